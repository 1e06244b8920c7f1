//! Operation codes shared by the expression graph, the compiled tape and the import format.

use super::scalar::sign_f64;

/// One elementary operation. Binary operations use both operands, unary ones only the first.
///
/// The textual names (see [`OpCode::name`]) are the op codes of the JSON import format
/// (`docs/formats.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum OpCode {
    /// A constant (value stored beside the node).
    Const,
    /// A free symbol (an input element).
    Symbol,
    /// a + b
    Add,
    /// a - b
    Sub,
    /// a * b
    Mul,
    /// a / b
    Div,
    /// -a
    Neg,
    /// a * a
    Sq,
    /// sqrt(a)
    Sqrt,
    /// exp(a)
    Exp,
    /// ln(a)
    Log,
    /// sin(a)
    Sin,
    /// cos(a)
    Cos,
    /// tan(a)
    Tan,
    /// tanh(a)
    Tanh,
    /// asin(a)
    Asin,
    /// acos(a)
    Acos,
    /// atan(a)
    Atan,
    /// sinh(a)
    Sinh,
    /// cosh(a)
    Cosh,
    /// |a| (non-smooth)
    Abs,
    /// sign(a) (non-smooth, derivative 0)
    Sign,
    /// 1 / a
    Inv,
    /// atan2(a, b) = atan(a / b) in four quadrants
    Atan2,
    /// a ^ b (general power, `exp(b ln a)`)
    Pow,
    /// min(a, b) (non-smooth)
    Fmin,
    /// max(a, b) (non-smooth)
    Fmax,
}

impl OpCode {
    /// Every operation, in code order.
    pub const ALL: [OpCode; 27] = [
        OpCode::Const,
        OpCode::Symbol,
        OpCode::Add,
        OpCode::Sub,
        OpCode::Mul,
        OpCode::Div,
        OpCode::Neg,
        OpCode::Sq,
        OpCode::Sqrt,
        OpCode::Exp,
        OpCode::Log,
        OpCode::Sin,
        OpCode::Cos,
        OpCode::Tan,
        OpCode::Tanh,
        OpCode::Asin,
        OpCode::Acos,
        OpCode::Atan,
        OpCode::Sinh,
        OpCode::Cosh,
        OpCode::Abs,
        OpCode::Sign,
        OpCode::Inv,
        OpCode::Atan2,
        OpCode::Pow,
        OpCode::Fmin,
        OpCode::Fmax,
    ];

    /// True for operations with two operands.
    #[inline]
    pub fn is_binary(self) -> bool {
        matches!(
            self,
            OpCode::Add
                | OpCode::Sub
                | OpCode::Mul
                | OpCode::Div
                | OpCode::Atan2
                | OpCode::Pow
                | OpCode::Fmin
                | OpCode::Fmax
        )
    }

    /// True for commutative binary operations (operands are ordered for hash-consing).
    #[inline]
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            OpCode::Add | OpCode::Mul | OpCode::Fmin | OpCode::Fmax
        )
    }

    /// The name used in the JSON import format.
    pub fn name(self) -> &'static str {
        match self {
            OpCode::Const => "const",
            OpCode::Symbol => "symbol",
            OpCode::Add => "add",
            OpCode::Sub => "sub",
            OpCode::Mul => "mul",
            OpCode::Div => "div",
            OpCode::Neg => "neg",
            OpCode::Sq => "sq",
            OpCode::Sqrt => "sqrt",
            OpCode::Exp => "exp",
            OpCode::Log => "log",
            OpCode::Sin => "sin",
            OpCode::Cos => "cos",
            OpCode::Tan => "tan",
            OpCode::Tanh => "tanh",
            OpCode::Asin => "asin",
            OpCode::Acos => "acos",
            OpCode::Atan => "atan",
            OpCode::Sinh => "sinh",
            OpCode::Cosh => "cosh",
            OpCode::Abs => "abs",
            OpCode::Sign => "sign",
            OpCode::Inv => "inv",
            OpCode::Atan2 => "atan2",
            OpCode::Pow => "pow",
            OpCode::Fmin => "fmin",
            OpCode::Fmax => "fmax",
        }
    }

    /// Inverse of [`OpCode::name`].
    pub fn from_name(name: &str) -> Option<OpCode> {
        OpCode::ALL.iter().copied().find(|op| op.name() == name)
    }

    /// Numerical value of a unary operation.
    #[inline(always)]
    pub fn eval_unary(self, a: f64) -> f64 {
        match self {
            OpCode::Neg => -a,
            OpCode::Sq => a * a,
            OpCode::Sqrt => a.sqrt(),
            OpCode::Exp => a.exp(),
            OpCode::Log => a.ln(),
            OpCode::Sin => a.sin(),
            OpCode::Cos => a.cos(),
            OpCode::Tan => a.tan(),
            OpCode::Tanh => a.tanh(),
            OpCode::Asin => a.asin(),
            OpCode::Acos => a.acos(),
            OpCode::Atan => a.atan(),
            OpCode::Sinh => a.sinh(),
            OpCode::Cosh => a.cosh(),
            OpCode::Abs => a.abs(),
            OpCode::Sign => sign_f64(a),
            OpCode::Inv => 1.0 / a,
            _ => f64::NAN,
        }
    }

    /// Numerical value of a binary operation.
    #[inline(always)]
    pub fn eval_binary(self, a: f64, b: f64) -> f64 {
        match self {
            OpCode::Add => a + b,
            OpCode::Sub => a - b,
            OpCode::Mul => a * b,
            OpCode::Div => a / b,
            OpCode::Atan2 => a.atan2(b),
            OpCode::Pow => a.powf(b),
            OpCode::Fmin => a.min(b),
            OpCode::Fmax => a.max(b),
            _ => f64::NAN,
        }
    }
}
