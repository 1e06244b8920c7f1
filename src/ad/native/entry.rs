//! The crate's only `unsafe` code: turning the addresses of the machine code `lower.rs`
//! produced into callable function pointers, and calling them.
//!
//! Cranelift hands compiled code out as a raw address (`*const u8`); Rust can only call it
//! after a transmute to a function-pointer type, and a call through a function pointer whose
//! body reads and writes memory behind raw pointers must be `unsafe`. Everything the code may
//! touch is checked here, before each call, against the [`Layout`] the code was compiled for.

#![allow(unsafe_code)]

use super::lower::{Layout, Lowered, MAX_ARGS};

/// Signature of one chunk of compiled code: pointers to the input data pointers, to the output
/// data pointers, and to the register file.
type ChunkFn = unsafe extern "C" fn(*const *const f64, *const *mut f64, *mut f64);

/// The compiled code of one tape, ready to call. `Send + Sync`: it holds plain function
/// pointers to immutable machine code that is never freed (see `lower.rs`).
#[derive(Debug)]
pub(super) struct NativeCode {
    chunks: Vec<ChunkFn>,
    layout: Layout,
}

impl NativeCode {
    pub(super) fn new(lowered: Lowered) -> NativeCode {
        let (entries, layout) = lowered.into_parts();
        let chunks = entries
            .into_iter()
            .map(|p| {
                // SAFETY: `p` is the entry address of a function `lower` defined with exactly
                // this signature (three pointer parameters, no result, the host's default C
                // calling convention = `extern "C"`) and finalized (relocated, made
                // executable) before returning it; cranelift-jit never unmaps finalized code
                // (its memory is leaked when the module is dropped), so the pointer stays
                // valid for the rest of the process. The transmute is how cranelift-jit's API
                // is meant to be used: it only returns `*const u8`.
                unsafe { std::mem::transmute::<*const u8, ChunkFn>(p) }
            })
            .collect();
        NativeCode { chunks, layout }
    }

    /// Number of machine-code functions.
    pub(super) fn n_chunks(&self) -> usize {
        self.chunks.len()
    }

    /// Run the code. Returns `false` (and runs nothing) if the arguments do not have the
    /// counts and lengths the code was compiled for or `regs` is too short; `eval` checks
    /// both before, so this never happens through the public API.
    pub(super) fn run(
        &self,
        inputs: &[&[f64]],
        outputs: &mut [&mut [f64]],
        regs: &mut [f64],
    ) -> bool {
        let l = &self.layout;
        let fits = inputs.len() == l.input_sizes.len()
            && outputs.len() == l.output_sizes.len()
            && inputs.len() <= MAX_ARGS
            && outputs.len() <= MAX_ARGS
            && inputs
                .iter()
                .zip(&l.input_sizes)
                .all(|(x, &n)| x.len() == n)
            && outputs
                .iter()
                .zip(&l.output_sizes)
                .all(|(y, &n)| y.len() == n)
            && regs.len() >= l.n_regs;
        if !fits {
            return false;
        }
        let mut ip = [std::ptr::null::<f64>(); MAX_ARGS];
        let mut op = [std::ptr::null_mut::<f64>(); MAX_ARGS];
        for (p, x) in ip.iter_mut().zip(inputs.iter()) {
            *p = x.as_ptr();
        }
        for (p, y) in op.iter_mut().zip(outputs.iter_mut()) {
            *p = y.as_mut_ptr();
        }
        let r = regs.as_mut_ptr();
        for chunk in &self.chunks {
            // SAFETY: the compiled code reads `ip[i][j]` only for i < input_sizes.len() and
            // j < input_sizes[i], writes `op[i][j]` only for i < output_sizes.len() and
            // j < output_sizes[i], and reads/writes `r[k]` only for k < n_regs: `lower.rs`
            // checks every index of the tape against `layout` before generating a single
            // access, and the checks above guarantee the slices behind these pointers have
            // exactly those lengths (and `regs` at least `n_regs`). The input slices are
            // shared borrows, the outputs and `regs` exclusive ones, so nothing the code
            // writes is aliased. The code does not unwind and keeps no pointer after it
            // returns.
            unsafe { chunk(ip.as_ptr(), op.as_ptr(), r) };
        }
        true
    }
}
