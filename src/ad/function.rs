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
//! created once by [`Function::workspace`].

use super::error::AdError;
use super::op::OpCode;
use super::sx::{with_arena, Sx};
use std::collections::HashMap;

/// Instruction kinds of the tape (a superset of [`OpCode`] with fused constant operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum TapeOp {
    /// `r[dst] = inputs[a][b]`
    Input,
    /// `outputs[a][b] = r[dst]` (here `dst` is the register read)
    Output,
    /// `outputs[a][b] = consts[dst]`
    OutputConst,
    /// `r[dst] = consts[a]`
    Const,
    /// `r[dst] = r[a] + consts[b]`
    AddC,
    /// `r[dst] = r[a] - consts[b]`
    SubC,
    /// `r[dst] = consts[b] - r[a]`
    CSub,
    /// `r[dst] = r[a] * consts[b]`
    MulC,
    /// `r[dst] = r[a] / consts[b]`
    DivC,
    /// `r[dst] = consts[b] / r[a]`
    CDiv,
    /// `r[dst] = r[a] + r[b]`
    Add,
    /// `r[dst] = r[a] - r[b]`
    Sub,
    /// `r[dst] = r[a] * r[b]`
    Mul,
    /// `r[dst] = r[a] / r[b]`
    Div,
    /// `r[dst] = -r[a]`
    Neg,
    /// `r[dst] = r[a]^2`
    Sq,
    /// `r[dst] = sin(r[a])`
    Sin,
    /// `r[dst] = cos(r[a])`
    Cos,
    /// `r[dst] = op(r[a])` or `op(r[a], r[b])` for the less frequent operations
    Op(OpCode),
}

impl TapeOp {
    fn of(op: OpCode) -> TapeOp {
        match op {
            OpCode::Add => TapeOp::Add,
            OpCode::Sub => TapeOp::Sub,
            OpCode::Mul => TapeOp::Mul,
            OpCode::Div => TapeOp::Div,
            OpCode::Neg => TapeOp::Neg,
            OpCode::Sq => TapeOp::Sq,
            OpCode::Sin => TapeOp::Sin,
            OpCode::Cos => TapeOp::Cos,
            op => TapeOp::Op(op),
        }
    }

    fn opcode(self) -> Option<OpCode> {
        Some(match self {
            TapeOp::Add => OpCode::Add,
            TapeOp::Sub => OpCode::Sub,
            TapeOp::Mul => OpCode::Mul,
            TapeOp::Div => OpCode::Div,
            TapeOp::Neg => OpCode::Neg,
            TapeOp::Sq => OpCode::Sq,
            TapeOp::Sin => OpCode::Sin,
            TapeOp::Cos => OpCode::Cos,
            TapeOp::Op(op) => op,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug)]
struct Instr {
    op: TapeOp,
    dst: u32,
    a: u32,
    b: u32,
}

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
    instrs: Vec<Instr>,
    consts: Vec<f64>,
    n_regs: usize,
}

/// Where a node's value comes from during compilation.
#[derive(Clone, Copy)]
enum Loc {
    Reg(u32),
    Const(u32),
}

impl Function {
    /// Compile `outputs` as a function of `inputs`.
    ///
    /// Every input element must be a distinct free symbol ([`Sx::sym`]); every symbol the
    /// outputs depend on must be an input element.
    pub fn new(name: &str, inputs: &[&[Sx]], outputs: &[&[Sx]]) -> Result<Function, AdError> {
        with_arena(|arena| compile(arena, name, inputs, outputs))
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
    /// Number of tape instructions (loads and stores included).
    pub fn n_instructions(&self) -> usize {
        self.instrs.len()
    }
    /// A workspace sized for this function.
    pub fn workspace(&self) -> Workspace {
        Workspace::with_registers(self.n_regs)
    }

    /// Check argument counts and lengths (what [`Function::eval`] checks).
    pub fn check_args(&self, inputs: &[&[f64]], outputs: &[&mut [f64]]) -> Result<(), AdError> {
        let dim = |what: String, expected: usize, got: usize| AdError::Dimension {
            function: self.name.clone(),
            what,
            expected,
            got,
        };
        if inputs.len() != self.input_sizes.len() {
            return Err(dim(
                "number of inputs".into(),
                self.input_sizes.len(),
                inputs.len(),
            ));
        }
        if outputs.len() != self.output_sizes.len() {
            return Err(dim(
                "number of outputs".into(),
                self.output_sizes.len(),
                outputs.len(),
            ));
        }
        for (i, (x, &n)) in inputs.iter().zip(&self.input_sizes).enumerate() {
            if x.len() != n {
                return Err(dim(format!("length of input {i}"), n, x.len()));
            }
        }
        for (i, (y, &n)) in outputs.iter().zip(&self.output_sizes).enumerate() {
            if y.len() != n {
                return Err(dim(format!("length of output {i}"), n, y.len()));
            }
        }
        Ok(())
    }

    /// Evaluate at `inputs`, writing every element of `outputs`. Allocates nothing.
    pub fn eval(
        &self,
        inputs: &[&[f64]],
        outputs: &mut [&mut [f64]],
        ws: &mut Workspace,
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
        self.run(inputs, outputs, &mut ws.regs);
        Ok(())
    }

    /// The tape interpreter.
    ///
    /// Safety of the unchecked indexing: [`compile`] checks that every register index is below
    /// `n_regs` and every constant index below `consts.len()`, and input/output element indices
    /// were generated from the argument sizes that [`Function::check_args`] enforces; `eval`
    /// checks the workspace holds at least `n_regs` registers before calling this.
    #[inline]
    fn run(&self, inputs: &[&[f64]], outputs: &mut [&mut [f64]], r: &mut [f64]) {
        let c = &self.consts[..];
        debug_assert!(r.len() >= self.n_regs);
        for ins in &self.instrs {
            let d = ins.dst as usize;
            let a = ins.a as usize;
            let b = ins.b as usize;
            // SAFETY: see the doc comment above; all indices were validated.
            unsafe {
                let v = match ins.op {
                    TapeOp::Input => *inputs.get_unchecked(a).get_unchecked(b),
                    TapeOp::Output => {
                        *outputs.get_unchecked_mut(a).get_unchecked_mut(b) = *r.get_unchecked(d);
                        continue;
                    }
                    TapeOp::OutputConst => {
                        *outputs.get_unchecked_mut(a).get_unchecked_mut(b) = *c.get_unchecked(d);
                        continue;
                    }
                    TapeOp::Const => *c.get_unchecked(a),
                    TapeOp::AddC => *r.get_unchecked(a) + *c.get_unchecked(b),
                    TapeOp::SubC => *r.get_unchecked(a) - *c.get_unchecked(b),
                    TapeOp::CSub => *c.get_unchecked(b) - *r.get_unchecked(a),
                    TapeOp::MulC => *r.get_unchecked(a) * *c.get_unchecked(b),
                    TapeOp::DivC => *r.get_unchecked(a) / *c.get_unchecked(b),
                    TapeOp::CDiv => *c.get_unchecked(b) / *r.get_unchecked(a),
                    TapeOp::Add => *r.get_unchecked(a) + *r.get_unchecked(b),
                    TapeOp::Sub => *r.get_unchecked(a) - *r.get_unchecked(b),
                    TapeOp::Mul => *r.get_unchecked(a) * *r.get_unchecked(b),
                    TapeOp::Div => *r.get_unchecked(a) / *r.get_unchecked(b),
                    TapeOp::Neg => -*r.get_unchecked(a),
                    TapeOp::Sq => {
                        let x = *r.get_unchecked(a);
                        x * x
                    }
                    TapeOp::Sin => r.get_unchecked(a).sin(),
                    TapeOp::Cos => r.get_unchecked(a).cos(),
                    TapeOp::Op(op) if op.is_binary() => {
                        op.eval_binary(*r.get_unchecked(a), *r.get_unchecked(b))
                    }
                    TapeOp::Op(op) => op.eval_unary(*r.get_unchecked(a)),
                };
                *r.get_unchecked_mut(d) = v;
            }
        }
    }

    /// Apply the function to symbolic arguments (builds the expression graph of the outputs in
    /// this thread's arena). Used to compose functions and to differentiate compiled ones.
    pub fn call_sx(&self, inputs: &[&[Sx]]) -> Result<Vec<Vec<Sx>>, AdError> {
        let dim = |what: String, expected: usize, got: usize| AdError::Dimension {
            function: self.name.clone(),
            what,
            expected,
            got,
        };
        if inputs.len() != self.input_sizes.len() {
            return Err(dim(
                "number of inputs".into(),
                self.input_sizes.len(),
                inputs.len(),
            ));
        }
        for (i, (x, &n)) in inputs.iter().zip(&self.input_sizes).enumerate() {
            if x.len() != n {
                return Err(dim(format!("length of input {i}"), n, x.len()));
            }
        }
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

fn compile(
    arena: &super::sx::Arena,
    name: &str,
    inputs: &[&[Sx]],
    outputs: &[&[Sx]],
) -> Result<Function, AdError> {
    let nodes = &arena.nodes;
    // Input symbols -> (input, element).
    let mut input_of: HashMap<u32, (u32, u32)> = HashMap::new();
    for (i, xs) in inputs.iter().enumerate() {
        for (j, x) in xs.iter().enumerate() {
            let bad = |why: &str| AdError::BadInput {
                function: name.to_string(),
                input: i,
                element: j,
                why: why.to_string(),
            };
            if nodes[x.0 as usize].op != OpCode::Symbol {
                return Err(bad("not a free symbol"));
            }
            if input_of.insert(x.0, (i as u32, j as u32)).is_some() {
                return Err(bad("the same symbol appears twice among the inputs"));
            }
        }
    }

    // Nodes the outputs depend on, and how often each is read (operand uses + output stores).
    let mut needed: Vec<u32> = Vec::new();
    let mut seen: HashMap<u32, ()> = HashMap::new();
    let mut stack: Vec<u32> = Vec::new();
    for ys in outputs {
        for y in ys.iter() {
            stack.push(y.0);
        }
    }
    while let Some(id) = stack.pop() {
        if seen.insert(id, ()).is_some() {
            continue;
        }
        needed.push(id);
        let n = nodes[id as usize];
        match n.op {
            OpCode::Const | OpCode::Symbol => {}
            op if op.is_binary() => {
                stack.push(n.a);
                stack.push(n.b);
            }
            _ => stack.push(n.a),
        }
    }
    needed.sort_unstable();

    // Free symbols that are not inputs.
    if let Some(&bad) = needed
        .iter()
        .find(|&&id| nodes[id as usize].op == OpCode::Symbol && !input_of.contains_key(&id))
    {
        // Name the first output element that depends on it.
        let (output, element) = first_dependent(nodes, outputs, bad);
        return Err(AdError::FreeSymbol {
            function: name.to_string(),
            output,
            element,
            symbol: Sx::from_id(bad).name().unwrap_or_else(|| format!("s{bad}")),
        });
    }

    // Constants and the instruction position of each needed node.
    let mut consts: Vec<f64> = Vec::new();
    let mut const_index: HashMap<u64, u32> = HashMap::new();
    let mut intern_const = |v: f64, consts: &mut Vec<f64>| -> u32 {
        *const_index.entry(v.to_bits()).or_insert_with(|| {
            consts.push(v);
            (consts.len() - 1) as u32
        })
    };

    // Output stores grouped by node.
    let mut stores: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    for (o, ys) in outputs.iter().enumerate() {
        for (e, y) in ys.iter().enumerate() {
            stores.entry(y.0).or_default().push((o as u32, e as u32));
        }
    }

    // Remaining reads of each node's register (operands that need a register + stores).
    let is_const = |id: u32| nodes[id as usize].op == OpCode::Const;
    let fused = |op: OpCode, a: u32, b: u32| -> bool {
        matches!(op, OpCode::Add | OpCode::Sub | OpCode::Mul | OpCode::Div)
            && (is_const(a) || is_const(b))
    };
    let mut reads: HashMap<u32, u32> = HashMap::new();
    for &id in &needed {
        let n = nodes[id as usize];
        match n.op {
            OpCode::Const | OpCode::Symbol => {}
            op if op.is_binary() => {
                if fused(op, n.a, n.b) {
                    let v = if is_const(n.a) { n.b } else { n.a };
                    *reads.entry(v).or_default() += 1;
                } else {
                    *reads.entry(n.a).or_default() += 1;
                    *reads.entry(n.b).or_default() += 1;
                }
            }
            _ => *reads.entry(n.a).or_default() += 1,
        }
    }
    for (&id, list) in &stores {
        if !is_const(id) {
            *reads.entry(id).or_default() += list.len() as u32;
        }
    }

    let mut loc: HashMap<u32, Loc> = HashMap::new();
    let mut free: Vec<u32> = Vec::new();
    let mut n_regs: u32 = 0;
    let mut instrs: Vec<Instr> = Vec::with_capacity(needed.len() + 16);

    // Reading a register once; release it when its last read has happened.
    fn release(
        id: u32,
        reads: &mut HashMap<u32, u32>,
        loc: &HashMap<u32, Loc>,
        free: &mut Vec<u32>,
    ) {
        if let Some(r) = reads.get_mut(&id) {
            *r -= 1;
            if *r == 0 {
                if let Some(Loc::Reg(reg)) = loc.get(&id) {
                    free.push(*reg);
                }
            }
        }
    }

    for &id in &needed {
        let n = nodes[id as usize];
        if n.op == OpCode::Const {
            let k = intern_const(n.value, &mut consts);
            loc.insert(id, Loc::Const(k));
            continue;
        }
        // Operands are read before the destination is written, so an operand register released
        // here can be the destination.
        let reg_of = |x: u32, loc: &HashMap<u32, Loc>| match loc.get(&x) {
            Some(Loc::Reg(r)) => *r,
            _ => u32::MAX,
        };
        let (op, a, b) = match n.op {
            OpCode::Symbol => {
                let (i, j) = input_of[&id];
                (TapeOp::Input, i, j)
            }
            op if op.is_binary() && fused(op, n.a, n.b) => {
                let (ca, var, cval) = if is_const(n.a) {
                    (true, n.b, nodes[n.a as usize].value)
                } else {
                    (false, n.a, nodes[n.b as usize].value)
                };
                let k = intern_const(cval, &mut consts);
                let t = match (op, ca) {
                    (OpCode::Add, _) => TapeOp::AddC,
                    (OpCode::Mul, _) => TapeOp::MulC,
                    (OpCode::Sub, false) => TapeOp::SubC,
                    (OpCode::Sub, true) => TapeOp::CSub,
                    (OpCode::Div, false) => TapeOp::DivC,
                    _ => TapeOp::CDiv,
                };
                let ra = reg_of(var, &loc);
                release(var, &mut reads, &loc, &mut free);
                (t, ra, k)
            }
            op if op.is_binary() => {
                let ra = operand_reg(n.a, &loc, &mut instrs, &mut free, &mut n_regs);
                let rb = operand_reg(n.b, &loc, &mut instrs, &mut free, &mut n_regs);
                // A constant operand loaded into a temporary register: free it right away.
                if is_const(n.a) {
                    free.push(ra);
                } else {
                    release(n.a, &mut reads, &loc, &mut free);
                }
                if is_const(n.b) {
                    free.push(rb);
                } else {
                    release(n.b, &mut reads, &loc, &mut free);
                }
                (TapeOp::of(op), ra, rb)
            }
            op => {
                let ra = reg_of(n.a, &loc);
                release(n.a, &mut reads, &loc, &mut free);
                (TapeOp::of(op), ra, 0)
            }
        };
        let dst = match free.pop() {
            Some(r) => r,
            None => {
                n_regs += 1;
                n_regs - 1
            }
        };
        instrs.push(Instr { op, dst, a, b });
        loc.insert(id, Loc::Reg(dst));
        if let Some(list) = stores.get(&id) {
            for &(o, e) in list {
                instrs.push(Instr {
                    op: TapeOp::Output,
                    dst,
                    a: o,
                    b: e,
                });
                release(id, &mut reads, &loc, &mut free);
            }
        }
        if !reads.contains_key(&id) {
            // Computed but never read (cannot happen for needed nodes; keep registers tidy).
            free.push(dst);
        }
    }
    // Outputs that are constants.
    for (o, ys) in outputs.iter().enumerate() {
        for (e, y) in ys.iter().enumerate() {
            if let Some(Loc::Const(k)) = loc.get(&y.0) {
                instrs.push(Instr {
                    op: TapeOp::OutputConst,
                    dst: *k,
                    a: o as u32,
                    b: e as u32,
                });
            }
        }
    }
    validate_tape(name, &instrs, consts.len(), n_regs, inputs, outputs)?;
    Ok(Function {
        name: name.to_string(),
        input_sizes: inputs.iter().map(|x| x.len()).collect(),
        output_sizes: outputs.iter().map(|y| y.len()).collect(),
        instrs,
        consts,
        n_regs: n_regs as usize,
    })
}

/// Register holding operand `x`; a constant operand is loaded into a fresh temporary register.
fn operand_reg(
    x: u32,
    loc: &HashMap<u32, Loc>,
    instrs: &mut Vec<Instr>,
    free: &mut Vec<u32>,
    n_regs: &mut u32,
) -> u32 {
    match loc.get(&x) {
        Some(Loc::Reg(r)) => *r,
        Some(Loc::Const(k)) => {
            let dst = match free.pop() {
                Some(r) => r,
                None => {
                    *n_regs += 1;
                    *n_regs - 1
                }
            };
            instrs.push(Instr {
                op: TapeOp::Const,
                dst,
                a: *k,
                b: 0,
            });
            dst
        }
        None => u32::MAX,
    }
}

/// The first output element whose expression depends on node `target`.
fn first_dependent(nodes: &[super::sx::Node], outputs: &[&[Sx]], target: u32) -> (usize, usize) {
    for (o, ys) in outputs.iter().enumerate() {
        for (e, y) in ys.iter().enumerate() {
            let mut stack = vec![y.0];
            let mut seen = std::collections::HashSet::new();
            while let Some(id) = stack.pop() {
                if id == target {
                    return (o, e);
                }
                if !seen.insert(id) {
                    continue;
                }
                let n = nodes[id as usize];
                match n.op {
                    OpCode::Const | OpCode::Symbol => {}
                    op if op.is_binary() => {
                        stack.push(n.a);
                        stack.push(n.b);
                    }
                    _ => stack.push(n.a),
                }
            }
        }
    }
    (0, 0)
}

/// Check every index of a freshly built tape (the interpreter relies on it).
fn validate_tape(
    name: &str,
    instrs: &[Instr],
    n_consts: usize,
    n_regs: u32,
    inputs: &[&[Sx]],
    outputs: &[&[Sx]],
) -> Result<(), AdError> {
    let ok = instrs.iter().all(|ins| {
        let reg = |x: u32| x < n_regs;
        let cst = |x: u32| (x as usize) < n_consts;
        let input = |i: u32, j: u32| {
            inputs
                .get(i as usize)
                .is_some_and(|v| (j as usize) < v.len())
        };
        let output = |i: u32, j: u32| {
            outputs
                .get(i as usize)
                .is_some_and(|v| (j as usize) < v.len())
        };
        match ins.op {
            TapeOp::Input => reg(ins.dst) && input(ins.a, ins.b),
            TapeOp::Output => reg(ins.dst) && output(ins.a, ins.b),
            TapeOp::OutputConst => cst(ins.dst) && output(ins.a, ins.b),
            TapeOp::Const => reg(ins.dst) && cst(ins.a),
            TapeOp::AddC
            | TapeOp::SubC
            | TapeOp::CSub
            | TapeOp::MulC
            | TapeOp::DivC
            | TapeOp::CDiv => reg(ins.dst) && reg(ins.a) && cst(ins.b),
            t => {
                let binary = t.opcode().is_some_and(|op| op.is_binary());
                reg(ins.dst) && reg(ins.a) && (!binary || reg(ins.b))
            }
        }
    });
    if ok {
        Ok(())
    } else {
        Err(AdError::Internal(format!(
            "tape of `{name}` failed validation"
        )))
    }
}
