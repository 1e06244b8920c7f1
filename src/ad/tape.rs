//! The instruction tape of a compiled [`Function`](super::Function): the instruction kinds,
//! one instruction, the runs of one kind the interpreter loops over, and the parts a compiled
//! tape consists of. Shared by the compiler (`compile.rs`), the scheduler (`schedule.rs`) and
//! the interpreter (`function.rs`); depends on nothing but [`OpCode`].

use super::op::OpCode;

/// Instruction kinds of the tape (a superset of [`OpCode`] with fused constant operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum TapeOp {
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
    /// `r[dst] = r[a] * r[b] + r[c]` (a product read only by this sum; two roundings, as the
    /// unfused pair)
    MulAdd,
    /// `r[dst] = r[a] * r[b] - r[c]`
    MulSub,
    /// `r[dst] = r[c] - r[a] * r[b]`
    SubMul,
    /// `r[dst] = op(r[a])` or `op(r[a], r[b])` for the less frequent operations
    Op(OpCode),
}

impl TapeOp {
    pub(super) fn of(op: OpCode) -> TapeOp {
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

    pub(super) fn opcode(self) -> Option<OpCode> {
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
pub(super) struct Instr {
    pub op: TapeOp,
    pub dst: u32,
    pub a: u32,
    pub b: u32,
    /// Third operand register of the fused ops (`MulAdd`, `MulSub`, `SubMul`), else 0.
    pub c: u32,
}

/// A run `fast[start..end]` of instructions of one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Segment {
    pub op: TapeOp,
    pub start: u32,
    pub end: u32,
}

/// A compiled tape: what `compile.rs` produces and a [`Function`](super::Function) runs.
pub(super) struct Tape {
    /// Sizes of the inputs.
    pub input_sizes: Vec<usize>,
    /// Sizes of the outputs.
    pub output_sizes: Vec<usize>,
    /// One instruction per expression node, in creation order.
    pub instrs: Vec<Instr>,
    /// The same computation with products fused into sums, scheduled into runs of one kind.
    pub fast: Vec<Instr>,
    /// The runs of `fast`, in order.
    pub segments: Vec<Segment>,
    /// Constants the instructions read.
    pub consts: Vec<f64>,
    /// Registers needed to run either tape.
    pub n_regs: usize,
}
