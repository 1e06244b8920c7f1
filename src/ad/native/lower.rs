//! Lowering of a tape to machine code with Cranelift (no `unsafe` here).
//!
//! The tape is cut into chunks of at most [`CHUNK`] instructions and each chunk becomes one
//! machine-code function `extern "C" fn(inputs, outputs, regs)`:
//!
//! * `inputs` / `outputs` point to arrays of data pointers, one per argument; element `j` of
//!   input `i` is read as `inputs[i][j]`, exactly the interpreter's `inputs[i][j]`;
//! * inside a chunk every register value is an SSA value (Cranelift allocates machine
//!   registers and spills); a value read by a later chunk is also stored to the register file
//!   `regs[r]` (the [`Workspace`](crate::ad::Workspace)) right after it is computed, and a
//!   chunk reads such a value from there once;
//! * constants are immediates; `+ − · /`, negation, square, `sqrt` and `abs` are single
//!   IEEE-754 instructions (correctly rounded, as the interpreter's), and every other operation
//!   is a call to an `extern "C"` shim that calls the same Rust function as the interpreter
//!   ([`OpCode::eval_unary`], [`OpCode::eval_binary`]). Fused products (`MulAdd` …) are a
//!   multiplication followed by an addition, two roundings, as in the interpreter: Cranelift
//!   never contracts them into an FMA instruction.
//!
//! Every index of the tape is checked here against the [`Layout`] the code is compiled for (so
//! the memory accesses of the generated code stay inside the arguments `entry.rs` checks
//! before each call), independently of the tape validation in `compile.rs`.

use super::super::op::OpCode;
use super::super::tape::{Instr, TapeOp};
use super::error::NativeError;
use cranelift_codegen::ir::{self, types, AbiParam, FuncRef, InstBuilder, MemFlags, Value};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};

/// Instructions per machine-code function: bounds Cranelift's compile time and register
/// allocation per function (both grow faster than linearly with the function's size). On the
/// hopper's derivative tapes 250–500 gave the smallest code, the fastest code and the shortest
/// compile (3000: +6 % code, +10 % time per evaluation, +30 % compile time).
pub(super) const CHUNK: usize = 500;

/// At most this many inputs and as many outputs (the pointer arrays live on the stack).
pub(super) const MAX_ARGS: usize = 16;

/// What the compiled code may touch: argument counts and lengths, and registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    pub input_sizes: Vec<usize>,
    pub output_sizes: Vec<usize>,
    pub n_regs: usize,
}

/// The finalized machine code of one tape: entry addresses of its chunk functions, each of
/// signature `extern "C" fn(*const *const f64, *const *mut f64, *mut f64)` with the host's C
/// calling convention, to be called in order. Only [`lower`] creates it.
pub(super) struct Lowered {
    entries: Vec<*const u8>,
    layout: Layout,
    /// Bytes of machine code.
    pub code_bytes: usize,
}

impl Lowered {
    /// The chunk entry addresses and the layout their memory accesses stay inside.
    pub(super) fn into_parts(self) -> (Vec<*const u8>, Layout) {
        (self.entries, self.layout)
    }
}

macro_rules! shims {
    ($($name:ident: $op:ident, $kind:ident;)*) => {
        $(
            extern "C" fn $name(a: f64, b: f64) -> f64 {
                shims!(@call $kind $op a b)
            }
        )*
        /// The operations compiled to calls: (op code, symbol, address, binary).
        fn shim_table() -> Vec<(OpCode, &'static str, *const u8, bool)> {
            vec![$((
                OpCode::$op,
                concat!("fesdj_native_", stringify!($name)),
                $name as *const u8,
                shims!(@binary $kind),
            ),)*]
        }
    };
    (@call unary $op:ident $a:ident $b:ident) => {{
        let _ = $b;
        OpCode::$op.eval_unary($a)
    }};
    (@call binary $op:ident $a:ident $b:ident) => {
        OpCode::$op.eval_binary($a, $b)
    };
    (@binary unary) => { false };
    (@binary binary) => { true };
}

// Every shim takes two arguments (the second is ignored by unary ones) so that one signature
// serves all; the interpreter calls the very same `eval_unary` / `eval_binary`.
shims! {
    sin: Sin, unary;
    cos: Cos, unary;
    tan: Tan, unary;
    tanh: Tanh, unary;
    asin: Asin, unary;
    acos: Acos, unary;
    atan: Atan, unary;
    sinh: Sinh, unary;
    cosh: Cosh, unary;
    exp: Exp, unary;
    log: Log, unary;
    sign: Sign, unary;
    atan2: Atan2, binary;
    pow: Pow, binary;
    fmin: Fmin, binary;
    fmax: Fmax, binary;
}

fn codegen_err(e: impl std::fmt::Display) -> NativeError {
    NativeError::Codegen(e.to_string())
}

/// Cranelift settings. `opt_level = none`: the tape is already optimised (hash-consed, constants
/// folded), and Cranelift's e-graph pass made both the compile (+50 %) and the code (+10 %
/// bytes and time per evaluation) worse on the hopper's tapes. No IR verifier in release
/// builds (it costs compile time and checks only what the lowering below builds), no NaN
/// canonicalisation.
fn isa() -> Result<cranelift_codegen::isa::OwnedTargetIsa, NativeError> {
    let mut flags = settings::builder();
    let set =
        |flags: &mut settings::Builder, k: &str, v: &str| flags.set(k, v).map_err(codegen_err);
    set(&mut flags, "opt_level", "none")?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(
        &mut flags,
        "enable_verifier",
        if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        },
    )?;
    let builder = cranelift_native::builder().map_err(|e| NativeError::Host(e.to_string()))?;
    builder
        .finish(settings::Flags::new(flags))
        .map_err(codegen_err)
}

/// Check every index of `tape` against `layout`.
fn check(tape: &[Instr], consts: &[f64], layout: &Layout) -> Result<(), NativeError> {
    let reg = |x: u32| (x as usize) < layout.n_regs;
    let cst = |x: u32| (x as usize) < consts.len();
    let input = |i: u32, j: u32| {
        layout
            .input_sizes
            .get(i as usize)
            .is_some_and(|&n| (j as usize) < n)
    };
    let output = |i: u32, j: u32| {
        layout
            .output_sizes
            .get(i as usize)
            .is_some_and(|&n| (j as usize) < n)
    };
    let ok = tape.iter().all(|ins| match ins.op {
        TapeOp::Input => reg(ins.dst) && input(ins.a, ins.b),
        TapeOp::Output => reg(ins.dst) && output(ins.a, ins.b),
        TapeOp::OutputConst => cst(ins.dst) && output(ins.a, ins.b),
        TapeOp::Const => reg(ins.dst) && cst(ins.a),
        TapeOp::AddC | TapeOp::SubC | TapeOp::CSub | TapeOp::MulC | TapeOp::DivC | TapeOp::CDiv => {
            reg(ins.dst) && reg(ins.a) && cst(ins.b)
        }
        TapeOp::MulAdd | TapeOp::MulSub | TapeOp::SubMul => {
            reg(ins.dst) && reg(ins.a) && reg(ins.b) && reg(ins.c)
        }
        t => {
            let binary = t.opcode().is_some_and(|op| op.is_binary());
            reg(ins.dst) && reg(ins.a) && (!binary || reg(ins.b))
        }
    });
    // Byte offsets are 32-bit immediates.
    let fits = |n: usize| n.checked_mul(8).is_some_and(|b| b <= i32::MAX as usize);
    let offsets_fit = fits(layout.n_regs)
        && layout.input_sizes.iter().all(|&n| fits(n))
        && layout.output_sizes.iter().all(|&n| fits(n));
    if layout.input_sizes.len() > MAX_ARGS || layout.output_sizes.len() > MAX_ARGS {
        return Err(NativeError::TooManyArguments {
            inputs: layout.input_sizes.len(),
            outputs: layout.output_sizes.len(),
            max: MAX_ARGS,
        });
    }
    if !ok || !offsets_fit {
        return Err(NativeError::BadTape);
    }
    Ok(())
}

/// Registers an instruction reads, in operand order.
fn reads(ins: &Instr) -> ([u32; 3], usize) {
    match ins.op {
        TapeOp::Input | TapeOp::OutputConst | TapeOp::Const => ([0; 3], 0),
        TapeOp::Output => ([ins.dst, 0, 0], 1),
        TapeOp::MulAdd | TapeOp::MulSub | TapeOp::SubMul => ([ins.a, ins.b, ins.c], 3),
        TapeOp::AddC | TapeOp::SubC | TapeOp::CSub | TapeOp::MulC | TapeOp::DivC | TapeOp::CDiv => {
            ([ins.a, 0, 0], 1)
        }
        t if t.opcode().is_some_and(|op| op.is_binary()) => ([ins.a, ins.b, 0], 2),
        _ => ([ins.a, 0, 0], 1),
    }
}

fn writes(op: TapeOp) -> bool {
    !matches!(op, TapeOp::Output | TapeOp::OutputConst)
}

/// For each instruction: whether the value it defines is read by a later chunk (and must
/// therefore be stored to the register file).
fn crossing_values(tape: &[Instr], n_regs: usize, chunk: usize) -> Vec<bool> {
    let mut def_at = vec![usize::MAX; n_regs];
    let mut store = vec![false; tape.len()];
    for (i, ins) in tape.iter().enumerate() {
        let (regs, k) = reads(ins);
        for &r in &regs[..k] {
            let d = def_at[r as usize];
            if d != usize::MAX && d / chunk != i / chunk {
                store[d] = true;
            }
        }
        if writes(ins.op) {
            def_at[ins.dst as usize] = i;
        }
    }
    store
}

/// State of one chunk function while it is built.
struct ChunkBuilder<'a, 'b> {
    b: FunctionBuilder<'a>,
    consts: &'b [f64],
    flags: MemFlags,
    ptr: ir::Type,
    ins_ptr: Value,
    outs_ptr: Value,
    regs_ptr: Value,
    /// SSA value of each register in this chunk (valid where `stamp[r] == chunk`).
    vals: &'b mut [Option<Value>],
    stamp: &'b mut [usize],
    chunk: usize,
    in_base: Vec<Option<Value>>,
    out_base: Vec<Option<Value>>,
    /// Shim function references declared in this chunk, by op code.
    shims: Vec<(OpCode, FuncRef)>,
}

impl ChunkBuilder<'_, '_> {
    fn reg(&mut self, r: u32) -> Value {
        let r = r as usize;
        if self.stamp[r] == self.chunk {
            if let Some(v) = self.vals[r] {
                return v;
            }
        }
        let v = self
            .b
            .ins()
            .load(types::F64, self.flags, self.regs_ptr, (r * 8) as i32);
        self.set(r as u32, v);
        v
    }
    fn set(&mut self, r: u32, v: Value) {
        self.stamp[r as usize] = self.chunk;
        self.vals[r as usize] = Some(v);
    }
    fn cst(&mut self, k: u32) -> Value {
        self.b.ins().f64const(self.consts[k as usize])
    }
    fn base(&mut self, output: bool, i: u32) -> Value {
        let i = i as usize;
        let (cache, array) = if output {
            (&mut self.out_base, self.outs_ptr)
        } else {
            (&mut self.in_base, self.ins_ptr)
        };
        if let Some(v) = cache[i] {
            return v;
        }
        let v = self
            .b
            .ins()
            .load(self.ptr, self.flags, array, (i * 8) as i32);
        let cache = if output {
            &mut self.out_base
        } else {
            &mut self.in_base
        };
        cache[i] = Some(v);
        v
    }
    fn call(&mut self, op: OpCode, a: Value, b: Value) -> Result<Value, NativeError> {
        let f = self
            .shims
            .iter()
            .find(|(o, _)| *o == op)
            .map(|&(_, f)| f)
            .ok_or(NativeError::BadTape)?;
        let call = self.b.ins().call(f, &[a, b]);
        Ok(self.b.inst_results(call)[0])
    }
    fn lower(&mut self, ins: &Instr) -> Result<Option<Value>, NativeError> {
        let v = match ins.op {
            TapeOp::Input => {
                let base = self.base(false, ins.a);
                self.b
                    .ins()
                    .load(types::F64, self.flags, base, (ins.b as usize * 8) as i32)
            }
            TapeOp::Output | TapeOp::OutputConst => {
                let v = if ins.op == TapeOp::Output {
                    self.reg(ins.dst)
                } else {
                    self.cst(ins.dst)
                };
                let base = self.base(true, ins.a);
                self.b
                    .ins()
                    .store(self.flags, v, base, (ins.b as usize * 8) as i32);
                return Ok(None);
            }
            TapeOp::Const => self.cst(ins.a),
            TapeOp::AddC | TapeOp::SubC | TapeOp::MulC | TapeOp::DivC => {
                let (x, c) = (self.reg(ins.a), self.cst(ins.b));
                match ins.op {
                    TapeOp::AddC => self.b.ins().fadd(x, c),
                    TapeOp::SubC => self.b.ins().fsub(x, c),
                    TapeOp::MulC => self.b.ins().fmul(x, c),
                    _ => self.b.ins().fdiv(x, c),
                }
            }
            TapeOp::CSub | TapeOp::CDiv => {
                let (x, c) = (self.reg(ins.a), self.cst(ins.b));
                if ins.op == TapeOp::CSub {
                    self.b.ins().fsub(c, x)
                } else {
                    self.b.ins().fdiv(c, x)
                }
            }
            TapeOp::MulAdd | TapeOp::MulSub | TapeOp::SubMul => {
                let (x, y, z) = (self.reg(ins.a), self.reg(ins.b), self.reg(ins.c));
                let p = self.b.ins().fmul(x, y);
                match ins.op {
                    TapeOp::MulAdd => self.b.ins().fadd(p, z),
                    TapeOp::MulSub => self.b.ins().fsub(p, z),
                    _ => self.b.ins().fsub(z, p),
                }
            }
            t => {
                let op = t.opcode().ok_or(NativeError::BadTape)?;
                let x = self.reg(ins.a);
                if op.is_binary() {
                    let y = self.reg(ins.b);
                    match op {
                        OpCode::Add => self.b.ins().fadd(x, y),
                        OpCode::Sub => self.b.ins().fsub(x, y),
                        OpCode::Mul => self.b.ins().fmul(x, y),
                        OpCode::Div => self.b.ins().fdiv(x, y),
                        op => self.call(op, x, y)?,
                    }
                } else {
                    match op {
                        OpCode::Neg => self.b.ins().fneg(x),
                        OpCode::Sq => self.b.ins().fmul(x, x),
                        OpCode::Sqrt => self.b.ins().sqrt(x),
                        OpCode::Abs => self.b.ins().fabs(x),
                        OpCode::Inv => {
                            let one = self.b.ins().f64const(1.0);
                            self.b.ins().fdiv(one, x)
                        }
                        op => self.call(op, x, x)?,
                    }
                }
            }
        };
        Ok(Some(v))
    }
}

/// Compile `tape` (any of a function's tapes: every instruction kind is supported) to machine
/// code for this host.
pub(super) fn lower(
    tape: &[Instr],
    consts: &[f64],
    layout: Layout,
) -> Result<Lowered, NativeError> {
    check(tape, consts, &layout)?;
    let isa = isa()?;
    let mut jb = JITBuilder::with_isa(isa, default_libcall_names());
    let table = shim_table();
    for &(_, name, addr, _) in &table {
        jb.symbol(name, addr);
    }
    let mut module = JITModule::new(jb);
    let call_conv = module.target_config().default_call_conv;
    let ptr = module.target_config().pointer_type();

    // Shims the tape needs, declared once in the module.
    let mut shim_sig = ir::Signature::new(call_conv);
    shim_sig.params.push(AbiParam::new(types::F64));
    shim_sig.params.push(AbiParam::new(types::F64));
    shim_sig.returns.push(AbiParam::new(types::F64));
    let mut shim_ids: Vec<(OpCode, FuncId)> = Vec::new();
    for &(op, name, _, _) in &table {
        let used = tape.iter().any(|i| i.op.opcode() == Some(op));
        if used {
            let id = module
                .declare_function(name, Linkage::Import, &shim_sig)
                .map_err(codegen_err)?;
            shim_ids.push((op, id));
        }
    }

    let mut sig = ir::Signature::new(call_conv);
    for _ in 0..3 {
        sig.params.push(AbiParam::new(ptr));
    }
    let store = crossing_values(tape, layout.n_regs, CHUNK);
    let mut vals: Vec<Option<Value>> = vec![None; layout.n_regs];
    let mut stamp: Vec<usize> = vec![usize::MAX; layout.n_regs];
    let mut ctx = module.make_context();
    let mut fctx = FunctionBuilderContext::new();
    let mut ids = Vec::new();
    let mut code_bytes = 0;
    let flags = MemFlags::trusted();
    for (k, part) in tape.chunks(CHUNK).enumerate() {
        ctx.func.signature = sig.clone();
        let id = module
            .declare_anonymous_function(&sig)
            .map_err(codegen_err)?;
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let block = b.create_block();
            b.append_block_params_for_function_params(block);
            b.switch_to_block(block);
            b.seal_block(block);
            let params = b.block_params(block).to_vec();
            let shims = shim_ids
                .iter()
                .map(|&(op, id)| (op, module.declare_func_in_func(id, b.func)))
                .collect();
            let mut cb = ChunkBuilder {
                b,
                consts,
                flags,
                ptr,
                ins_ptr: params[0],
                outs_ptr: params[1],
                regs_ptr: params[2],
                vals: &mut vals,
                stamp: &mut stamp,
                chunk: k,
                in_base: vec![None; layout.input_sizes.len()],
                out_base: vec![None; layout.output_sizes.len()],
                shims,
            };
            for (j, ins) in part.iter().enumerate() {
                if let Some(v) = cb.lower(ins)? {
                    cb.set(ins.dst, v);
                    if store[k * CHUNK + j] {
                        let regs = cb.regs_ptr;
                        cb.b.ins()
                            .store(flags, v, regs, (ins.dst as usize * 8) as i32);
                    }
                }
            }
            cb.b.ins().return_(&[]);
            cb.b.finalize();
        }
        module.define_function(id, &mut ctx).map_err(codegen_err)?;
        code_bytes += ctx.compiled_code().map_or(0, |c| c.code_buffer().len());

        module.clear_context(&mut ctx);
        ids.push(id);
    }
    module.finalize_definitions().map_err(codegen_err)?;
    let entries = ids
        .iter()
        .map(|&id| module.get_finalized_function(id))
        .collect();
    // Dropping the module keeps the finalized code mapped (cranelift-jit's system memory
    // provider leaks it on drop so that function pointers stay valid).
    drop(module);
    Ok(Lowered {
        entries,
        layout,
        code_bytes,
    })
}
