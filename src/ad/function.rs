//! Compiled functions: a linear instruction tape with register reuse.
//!
//! [`Function::new`] takes symbolic inputs (free symbols) and output expressions, collects the
//! nodes the outputs depend on (in the arena's creation order, which is a topological order),
//! and emits one instruction per node. Registers are assigned by a liveness analysis: a register
//! is released after the last instruction that reads it and reused by the next node, so the
//! workspace holds only as many values as are alive at once. Constant operands of `+ − · /` are
//! folded into the instruction (no register, no load), and outputs are stored as soon as their
//! value is known.
//!
//! [`Function::eval`] runs the tape on `f64` slices and allocates nothing; the `Workspace` is
//! created once by [`Function::workspace`]. The tape it runs is scheduled into runs of one
//! instruction kind (`schedule.rs`), one tight loop per run: the hopper MPC's Hessian of the
//! Lagrangian (53 000 instructions) went from 295 µs to 53 µs per evaluation with identical
//! results.
//!
//! Unless told otherwise, `eval` does not interpret at all: it runs the tape compiled to machine
//! code ([`native`](super::native): once per function, at its first evaluation or at
//! [`Function::prepare_native`]), with bit-identical results, and falls back to the
//! interpreter where no native code can be had ([`Backend`], `FESDJ_JIT=0`).

use super::compile::compile;
use super::error::AdError;
use super::native::{self, Backend, NativeError, NativeInfo, NativeSlot, NativeTape};
use super::sx::{with_arena, Sx};
use super::tape::{Instr, Segment, Tape, TapeOp};

/// Scratch memory for [`Function::eval`]: one `f64` per register. Create it once with
/// [`Function::workspace`]; it may be shared by functions with at most as many registers.
#[derive(Clone, Debug)]
pub struct Workspace {
    regs: Vec<f64>,
}

impl Workspace {
    /// A workspace with `n` registers.
    pub fn with_registers(n: usize) -> Self {
        Workspace { regs: vec![0.0; n] }
    }
    /// Number of registers.
    pub fn len(&self) -> usize {
        self.regs.len()
    }
    /// True if there are no registers.
    pub fn is_empty(&self) -> bool {
        self.regs.is_empty()
    }
    /// Grow to at least `n` registers (allocates only if it grows).
    pub fn reserve_registers(&mut self, n: usize) {
        if self.regs.len() < n {
            self.regs.resize(n, 0.0);
        }
    }
}

/// Input symbols and output expressions of a function applied symbolically.
pub type SymbolicCall = (Vec<Vec<Sx>>, Vec<Vec<Sx>>);

/// A compiled function of several vector inputs to several vector outputs.
///
/// It owns its tape and is independent of the symbolic arena: `Send + Sync`, cheap to share.
#[derive(Clone, Debug)]
pub struct Function {
    name: String,
    input_sizes: Vec<usize>,
    output_sizes: Vec<usize>,
    /// One instruction per expression node: replayed by [`Function::call_sx`].
    instrs: Vec<Instr>,
    /// The same computation with products fused into the sums that read them, scheduled into
    /// runs of one instruction kind (`schedule.rs`): run by [`Function::eval`].
    fast: Vec<Instr>,
    /// The runs of `fast`, in order.
    segments: Vec<Segment>,
    consts: Vec<f64>,
    n_regs: usize,
    /// Which evaluator `eval` uses.
    backend: Backend,
    /// The native code, compiled at most once and shared by clones.
    native: NativeSlot,
}

/// `Ok` when the `kind` arguments ("input", "output") of function `function` have the lengths
/// `sizes`; otherwise the error names their number or the first argument of another length.
pub(crate) fn check_lengths(
    function: &str,
    kind: &str,
    sizes: &[usize],
    got: impl ExactSizeIterator<Item = usize>,
) -> Result<(), AdError> {
    let dim = |what: String, expected: usize, got: usize| AdError::Dimension {
        function: function.to_string(),
        what,
        expected,
        got,
    };
    if got.len() != sizes.len() {
        return Err(dim(format!("number of {kind}s"), sizes.len(), got.len()));
    }
    for (i, (n, &want)) in got.zip(sizes).enumerate() {
        if n != want {
            return Err(dim(format!("length of {kind} {i}"), want, n));
        }
    }
    Ok(())
}

/// `Ok` when a call of function `function` has the argument lengths of its `input_sizes` and
/// `output_sizes` ([`check_lengths`] for both).
pub(crate) fn check_call(
    function: &str,
    input_sizes: &[usize],
    inputs: impl ExactSizeIterator<Item = usize>,
    output_sizes: &[usize],
    outputs: impl ExactSizeIterator<Item = usize>,
) -> Result<(), AdError> {
    check_lengths(function, "input", input_sizes, inputs)?;
    check_lengths(function, "output", output_sizes, outputs)
}

impl Function {
    /// Compile `outputs` as a function of `inputs`.
    ///
    /// Every input element must be a distinct free symbol ([`Sx::sym`]); every symbol the
    /// outputs depend on must be an input element.
    pub fn new(name: &str, inputs: &[&[Sx]], outputs: &[&[Sx]]) -> Result<Function, AdError> {
        let tape = with_arena(|arena| compile(arena, name, inputs, outputs))?;
        Ok(Function::from_tape(name, tape))
    }

    fn from_tape(name: &str, tape: Tape) -> Function {
        let Tape {
            input_sizes,
            output_sizes,
            instrs,
            fast,
            segments,
            consts,
            n_regs,
        } = tape;
        Function {
            name: name.to_string(),
            input_sizes,
            output_sizes,
            instrs,
            fast,
            segments,
            consts,
            n_regs,
            backend: Backend::default(),
            native: NativeSlot::default(),
        }
    }

    /// This function with evaluator `backend` (shares any native code already compiled).
    pub fn with_backend(mut self, backend: Backend) -> Function {
        self.backend = backend;
        self
    }
    /// Choose the evaluator of [`Function::eval`].
    pub fn set_backend(&mut self, backend: Backend) {
        self.backend = backend;
    }
    /// The evaluator chosen for this function (the interpreter runs anyway where native code
    /// cannot be had: see [`Function::prepare_native`]).
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Compile the native code now (if the backend and the tape's length select it and
    /// `FESDJ_JIT` allows it) rather than at the first evaluation; does nothing if it is
    /// compiled already. `Ok(Some(_))`: `eval` runs native code; `Ok(None)`: the interpreter
    /// was chosen;
    /// `Err(_)`: compiling failed (a warning was printed) and `eval` runs the interpreter.
    pub fn prepare_native(&self) -> Result<Option<NativeInfo>, NativeError> {
        if !self.native_selected() {
            return Ok(None);
        }
        match self.native_slot() {
            Ok(t) => Ok(Some(t.info())),
            Err(e) => Err(e.clone()),
        }
    }

    /// Facts about the native code if it has been compiled (compiles nothing).
    pub fn native_info(&self) -> Option<NativeInfo> {
        match self.native.get() {
            Some(Ok(t)) if self.native_selected() => Some(t.info()),
            _ => None,
        }
    }

    /// Whether `eval` runs native code (the backend chosen, the tape's length, `FESDJ_JIT`).
    fn native_selected(&self) -> bool {
        let wanted = match self.backend {
            Backend::Interpreter => false,
            Backend::Native => true,
            Backend::Auto => self.fast.len() <= native::AUTO_MAX_INSTRUCTIONS,
        };
        wanted && native::native_enabled_by_env()
    }

    /// The native code, compiled at the first call. The creation-order tape is compiled, not
    /// the scheduled one `run` interprets: its values are read close to where they are made,
    /// whereas the scheduled tape (ordered by depth, for the interpreter's sake) keeps many
    /// more alive at once (on the hopper: 1.6× the code, 1.5× the time per evaluation).
    fn native_slot(&self) -> &Result<NativeTape, NativeError> {
        self.native.get_or_init(|| {
            let r = native::compile(
                &self.instrs,
                &self.consts,
                &self.input_sizes,
                &self.output_sizes,
                self.n_regs,
            );
            if let Err(e) = &r {
                eprintln!(
                    "[WARN] function `{}`: no native code ({e}); using the tape interpreter",
                    self.name
                );
            }
            r
        })
    }

    /// The native code `eval` runs, if any (compiles it at the first call).
    #[inline]
    fn native_code(&self) -> Option<&NativeTape> {
        if self.native_selected() {
            self.native_slot().as_ref().ok()
        } else {
            None
        }
    }

    /// The function's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Number of inputs.
    pub fn n_in(&self) -> usize {
        self.input_sizes.len()
    }
    /// Number of outputs.
    pub fn n_out(&self) -> usize {
        self.output_sizes.len()
    }
    /// Length of input `i`.
    pub fn size_in(&self, i: usize) -> usize {
        self.input_sizes[i]
    }
    /// Length of output `i`.
    pub fn size_out(&self, i: usize) -> usize {
        self.output_sizes[i]
    }
    /// Lengths of all inputs.
    pub fn input_sizes(&self) -> &[usize] {
        &self.input_sizes
    }
    /// Lengths of all outputs.
    pub fn output_sizes(&self) -> &[usize] {
        &self.output_sizes
    }
    /// Number of registers the tape needs.
    pub fn n_registers(&self) -> usize {
        self.n_regs
    }
    /// Number of instructions [`Function::eval`] runs (loads and stores included).
    pub fn n_instructions(&self) -> usize {
        self.fast.len()
    }
    /// Number of tape instructions of each kind (for measurements), most frequent first.
    #[doc(hidden)]
    pub fn instruction_mix(&self) -> Vec<(String, usize)> {
        let mut m: std::collections::BTreeMap<String, usize> = Default::default();
        for ins in &self.fast {
            *m.entry(format!("{:?}", ins.op)).or_default() += 1;
        }
        let mut v: Vec<_> = m.into_iter().collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.1));
        v
    }
    /// A workspace sized for this function.
    pub fn workspace(&self) -> Workspace {
        Workspace::with_registers(self.n_regs)
    }

    /// Check argument counts and lengths (what [`Function::eval`] checks).
    pub fn check_args(&self, inputs: &[&[f64]], outputs: &[&mut [f64]]) -> Result<(), AdError> {
        check_call(
            &self.name,
            &self.input_sizes,
            inputs.iter().map(|x| x.len()),
            &self.output_sizes,
            outputs.iter().map(|y| y.len()),
        )
    }

    /// Evaluate at `inputs`, writing every element of `outputs`. Allocates nothing.
    pub fn eval(
        &self,
        inputs: &[&[f64]],
        outputs: &mut [&mut [f64]],
        ws: &mut Workspace,
    ) -> Result<(), AdError> {
        self.check_eval_args(inputs, outputs, ws)?;
        if let Some(code) = self.native_code() {
            if code.run(inputs, outputs, &mut ws.regs) {
                return Ok(());
            }
        }
        self.run(inputs, outputs, &mut ws.regs);
        Ok(())
    }

    /// Evaluate with the tape interpreter whatever the backend (for comparisons and tests).
    /// Allocates nothing.
    pub fn eval_interpreted(
        &self,
        inputs: &[&[f64]],
        outputs: &mut [&mut [f64]],
        ws: &mut Workspace,
    ) -> Result<(), AdError> {
        self.check_eval_args(inputs, outputs, ws)?;
        self.run(inputs, outputs, &mut ws.regs);
        Ok(())
    }

    /// [`Function::check_args`] and the workspace's size.
    fn check_eval_args(
        &self,
        inputs: &[&[f64]],
        outputs: &[&mut [f64]],
        ws: &Workspace,
    ) -> Result<(), AdError> {
        self.check_args(inputs, outputs)?;
        if ws.regs.len() < self.n_regs {
            return Err(AdError::Dimension {
                function: self.name.clone(),
                what: "workspace registers".into(),
                expected: self.n_regs,
                got: ws.regs.len(),
            });
        }
        Ok(())
    }

    /// The tape interpreter: one loop per segment of equal instructions.
    ///
    /// Indexing is checked. [`compile`] validates every register index against `n_regs` and
    /// every constant index against `consts.len()`, input/output element indices come from the
    /// argument sizes [`Function::check_args`] enforces, and `eval` checks the workspace holds
    /// at least `n_regs` registers, so no check ever fails; the branches are predicted and cost
    /// little next to the dispatch the segments already remove.
    #[inline]
    fn run(&self, inputs: &[&[f64]], outputs: &mut [&mut [f64]], r: &mut [f64]) {
        let c = &self.consts[..];
        debug_assert!(r.len() >= self.n_regs);
        macro_rules! each {
            ($seg:expr, |$i:ident| $body:expr) => {
                for $i in $seg {
                    let v = $body;
                    r[$i.dst as usize] = v;
                }
            };
        }
        for s in &self.segments {
            let seg = &self.fast[s.start as usize..s.end as usize];
            match s.op {
                TapeOp::Input => each!(seg, |i| inputs[i.a as usize][i.b as usize]),
                TapeOp::Output => {
                    for i in seg {
                        outputs[i.a as usize][i.b as usize] = r[i.dst as usize];
                    }
                }
                TapeOp::OutputConst => {
                    for i in seg {
                        outputs[i.a as usize][i.b as usize] = c[i.dst as usize];
                    }
                }
                TapeOp::Const => each!(seg, |i| c[i.a as usize]),
                TapeOp::AddC => each!(seg, |i| r[i.a as usize] + c[i.b as usize]),
                TapeOp::SubC => each!(seg, |i| r[i.a as usize] - c[i.b as usize]),
                TapeOp::CSub => each!(seg, |i| c[i.b as usize] - r[i.a as usize]),
                TapeOp::MulC => each!(seg, |i| r[i.a as usize] * c[i.b as usize]),
                TapeOp::DivC => each!(seg, |i| r[i.a as usize] / c[i.b as usize]),
                TapeOp::CDiv => each!(seg, |i| c[i.b as usize] / r[i.a as usize]),
                TapeOp::Add => each!(seg, |i| r[i.a as usize] + r[i.b as usize]),
                TapeOp::Sub => each!(seg, |i| r[i.a as usize] - r[i.b as usize]),
                TapeOp::Mul => each!(seg, |i| r[i.a as usize] * r[i.b as usize]),
                TapeOp::Div => each!(seg, |i| r[i.a as usize] / r[i.b as usize]),
                TapeOp::MulAdd => each!(seg, |i| {
                    let p = r[i.a as usize] * r[i.b as usize];
                    p + r[i.c as usize]
                }),
                TapeOp::MulSub => each!(seg, |i| {
                    let p = r[i.a as usize] * r[i.b as usize];
                    p - r[i.c as usize]
                }),
                TapeOp::SubMul => each!(seg, |i| {
                    let p = r[i.a as usize] * r[i.b as usize];
                    r[i.c as usize] - p
                }),
                TapeOp::Neg => each!(seg, |i| -r[i.a as usize]),
                TapeOp::Sq => each!(seg, |i| {
                    let x = r[i.a as usize];
                    x * x
                }),
                TapeOp::Sin => each!(seg, |i| r[i.a as usize].sin()),
                TapeOp::Cos => each!(seg, |i| r[i.a as usize].cos()),
                TapeOp::Op(op) if op.is_binary() => {
                    each!(seg, |i| op.eval_binary(r[i.a as usize], r[i.b as usize]))
                }
                TapeOp::Op(op) => each!(seg, |i| op.eval_unary(r[i.a as usize])),
            }
        }
    }

    /// Test reference: the unscheduled, unfused tape (one instruction per node, creation
    /// order) run by a plain safe interpreter.
    #[cfg(test)]
    pub(super) fn eval_creation_order(&self, inputs: &[&[f64]]) -> Vec<Vec<f64>> {
        let mut out: Vec<Vec<f64>> = self.output_sizes.iter().map(|&n| vec![0.0; n]).collect();
        let mut r = vec![0.0; self.n_regs];
        let c = &self.consts;
        for ins in &self.instrs {
            let (d, a, b) = (ins.dst as usize, ins.a as usize, ins.b as usize);
            match ins.op {
                TapeOp::Input => r[d] = inputs[a][b],
                TapeOp::Output => out[a][b] = r[d],
                TapeOp::OutputConst => out[a][b] = c[d],
                TapeOp::Const => r[d] = c[a],
                TapeOp::AddC => r[d] = r[a] + c[b],
                TapeOp::SubC => r[d] = r[a] - c[b],
                TapeOp::CSub => r[d] = c[b] - r[a],
                TapeOp::MulC => r[d] = r[a] * c[b],
                TapeOp::DivC => r[d] = r[a] / c[b],
                TapeOp::CDiv => r[d] = c[b] / r[a],
                t => match t.opcode() {
                    Some(op) if op.is_binary() => r[d] = op.eval_binary(r[a], r[b]),
                    Some(op) => r[d] = op.eval_unary(r[a]),
                    None => unreachable!("fused instruction in the plain tape"),
                },
            }
        }
        out
    }

    /// Test access: the segments of the scheduled tape.
    #[cfg(test)]
    pub(super) fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Apply the function to symbolic arguments (builds the expression graph of the outputs in
    /// this thread's arena). Used to compose functions and to differentiate compiled ones.
    pub fn call_sx(&self, inputs: &[&[Sx]]) -> Result<Vec<Vec<Sx>>, AdError> {
        check_lengths(
            &self.name,
            "input",
            &self.input_sizes,
            inputs.iter().map(|x| x.len()),
        )?;
        let zero = Sx::constant(0.0);
        let mut out: Vec<Vec<Sx>> = self.output_sizes.iter().map(|&n| vec![zero; n]).collect();
        let mut r = vec![zero; self.n_regs];
        let c = |k: u32| Sx::constant(self.consts[k as usize]);
        for ins in &self.instrs {
            let d = ins.dst as usize;
            let a = ins.a as usize;
            let b = ins.b as usize;
            match ins.op {
                TapeOp::Input => r[d] = inputs[a][b],
                TapeOp::Output => out[a][b] = r[d],
                TapeOp::OutputConst => out[a][b] = c(ins.dst),
                TapeOp::Const => r[d] = c(ins.a),
                TapeOp::AddC => r[d] = r[a] + c(ins.b),
                TapeOp::SubC => r[d] = r[a] - c(ins.b),
                TapeOp::CSub => r[d] = c(ins.b) - r[a],
                TapeOp::MulC => r[d] = r[a] * c(ins.b),
                TapeOp::DivC => r[d] = r[a] / c(ins.b),
                TapeOp::CDiv => r[d] = c(ins.b) / r[a],
                TapeOp::MulAdd => r[d] = r[a] * r[b] + r[ins.c as usize],
                TapeOp::MulSub => r[d] = r[a] * r[b] - r[ins.c as usize],
                TapeOp::SubMul => r[d] = r[ins.c as usize] - r[a] * r[b],
                t => match t.opcode() {
                    Some(op) if op.is_binary() => r[d] = Sx::apply_binary(op, r[a], r[b]),
                    Some(op) => r[d] = Sx::apply_unary(op, r[a]),
                    None => {}
                },
            }
        }
        Ok(out)
    }

    /// Fresh input symbols named after this function, and the outputs applied to them.
    pub fn symbolic(&self) -> Result<SymbolicCall, AdError> {
        let inputs: Vec<Vec<Sx>> = self
            .input_sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| Sx::sym_vec(&format!("{}_in{i}", self.name), n))
            .collect();
        let refs: Vec<&[Sx]> = inputs.iter().map(|v| v.as_slice()).collect();
        let outputs = self.call_sx(&refs)?;
        Ok((inputs, outputs))
    }
}
