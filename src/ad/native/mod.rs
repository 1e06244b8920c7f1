//! Native code for tapes: a [`Function`](super::Function)'s tape compiled to machine code in
//! the running process with Cranelift (pure Rust, no C compiler needed on the robot).
//!
//! [`Function::eval`](super::Function::eval) runs the native code when it is available and the
//! interpreter otherwise; both give bit-identical results (`lower.rs` says why), except that a
//! NaN is only guaranteed to be a NaN in both: IEEE 754 leaves open which operand's NaN an
//! operation on two NaNs returns, x86 returns its first operand's, and each compiler picks the
//! operand order of `+` and `·` itself. How to choose:
//!
//! * [`Backend`] per function ([`Function::with_backend`](super::Function::with_backend)):
//!   `Auto` (the default: native code for tapes of at most [`AUTO_MAX_INSTRUCTIONS`]
//!   instructions, the interpreter for longer ones), `Native` or `Interpreter`;
//! * the environment variable `FESDJ_JIT=0` (also `off`, `false`, `no`) forces the interpreter
//!   for the whole process; read once, at the first evaluation;
//! * compiling happens once per function (shared by its clones), at its first native
//!   evaluation or earlier by [`Function::prepare_native`](super::Function::prepare_native)
//!   (the solvers call it when they are built, so no solve pays for it);
//! * if compiling fails (an unsupported host, more than 16 inputs or outputs, a Cranelift
//!   error) the function keeps using the interpreter and a warning is printed once to stderr.
//!
//! The machine code is never freed (about 20 bytes per tape instruction): fine for the
//! functions a controller builds once, wasteful for a process that builds and drops functions
//! in a loop — those can use [`Backend::Interpreter`].
//!
//! `entry.rs` is the only module of the crate with `unsafe` code.

mod entry;
mod error;
mod lower;

use super::tape::Instr;
use entry::NativeCode;
pub use error::NativeError;
use lower::Layout;
use std::sync::OnceLock;
use std::time::Instant;

/// Longest tape (in [`Function::n_instructions`](super::Function::n_instructions)) that
/// [`Backend::Auto`] compiles to native code.
///
/// Straight-line machine code takes about 20 bytes per tape instruction and each byte runs
/// once per evaluation, so once the code no longer fits the processor's level-2 cache (2 MiB
/// per core here) instruction fetch dominates and the interpreter, whose tape the hardware
/// prefetches as data, is faster: measured (`examples/native_tapes.rs`) 2.9× faster native
/// code on the hopper's 21 000-instruction Hessian, 1.35× on the quadruped's 50 000-instruction
/// constraints, but 0.6× on the quadruped's 160 000-instruction one-interval Jacobian and
/// 0.7× on its 1.3-million-instruction Jacobian (26 MB of code, 8 s to compile).
pub const AUTO_MAX_INSTRUCTIONS: usize = 60_000;

/// How [`Function::eval`](super::Function::eval) evaluates a tape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// Native code for tapes of at most [`AUTO_MAX_INSTRUCTIONS`] instructions, the
    /// interpreter for longer ones. The default.
    #[default]
    Auto,
    /// Machine code compiled from the tape (once, then cached) whatever its length, falling
    /// back to the interpreter where it cannot be compiled or `FESDJ_JIT=0` is set.
    Native,
    /// The tape interpreter.
    Interpreter,
}

/// Facts about a function's native code.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NativeInfo {
    /// Machine-code functions the tape was cut into.
    pub chunks: usize,
    /// Bytes of machine code.
    pub code_bytes: usize,
    /// Wall-clock seconds spent compiling.
    pub compile_s: f64,
}

/// A compiled tape.
#[derive(Debug)]
pub(super) struct NativeTape {
    code: NativeCode,
    info: NativeInfo,
}

impl NativeTape {
    /// Run the tape; `false` if the arguments do not fit (never through `Function::eval`,
    /// which checks them first).
    #[inline]
    pub(super) fn run(
        &self,
        inputs: &[&[f64]],
        outputs: &mut [&mut [f64]],
        regs: &mut [f64],
    ) -> bool {
        self.code.run(inputs, outputs, regs)
    }
    pub(super) fn info(&self) -> NativeInfo {
        self.info
    }
}

/// The per-function cache: compiled at most once, shared by clones.
pub(super) type NativeSlot = std::sync::Arc<OnceLock<Result<NativeTape, NativeError>>>;

/// Whether the environment allows native code (`FESDJ_JIT` unset or not one of `0`, `off`,
/// `false`, `no`). Read once per process.
pub fn native_enabled_by_env() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| match std::env::var("FESDJ_JIT") {
        Ok(v) => !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "off" | "false" | "no"
        ),
        Err(_) => true,
    })
}

/// Compile `tape` (catching any panic of the code generator).
pub(super) fn compile(
    tape: &[Instr],
    consts: &[f64],
    input_sizes: &[usize],
    output_sizes: &[usize],
    n_regs: usize,
) -> Result<NativeTape, NativeError> {
    let layout = Layout {
        input_sizes: input_sizes.to_vec(),
        output_sizes: output_sizes.to_vec(),
        n_regs,
    };
    let t0 = Instant::now();
    let lowered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        lower::lower(tape, consts, layout)
    }))
    .map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        NativeError::Panicked(msg)
    })??;
    let code_bytes = lowered.code_bytes;
    let code = NativeCode::new(lowered);
    let info = NativeInfo {
        chunks: code.n_chunks(),
        code_bytes,
        compile_s: t0.elapsed().as_secs_f64(),
    };
    Ok(NativeTape { code, info })
}
