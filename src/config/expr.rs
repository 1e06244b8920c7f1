//! Small arithmetic expressions for model and problem files (parsed by [`parse`], evaluated
//! with any [`Scalar`], in particular the symbolic [`Sx`]).
//!
//! Grammar (whitespace is ignored):
//!
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/') unary)*
//! unary   := ('-' | '+') unary | power
//! power   := primary (('^' | '**') unary)?        right-associative: 2^3^2 = 2^9
//! primary := NUMBER | NAME | NAME '(' expr (',' expr)* ')' | '(' expr ')'
//! ```
//!
//! so `-x^2 = -(x^2)` and `2^-1 = 0.5`. Numbers: `1`, `1.5`, `.5`, `1e-3`. Functions: `sin cos
//! tan exp log sqrt abs sign tanh` (one argument), `atan2(y, x)`, `min(a, b)`, `max(a, b)`.
//! Constant: `pi`. Every other name must be known to the caller's resolver (coordinates,
//! velocities, controls, parameters); an unknown name is an error naming it.
//!
//! Powers with a constant integer exponent are expanded into products ([`Scalar::powi`]);
//! `x^0.5` becomes `sqrt(x)`; other exponents use `x^e = exp(e ln x)` (defined for `x > 0`).
//! `abs`, `sign`, `min`, `max` are non-smooth (see [`Scalar`]).

mod parse;

use thiserror::Error;

use crate::ad::{Scalar, Sx};

pub use parse::{parse, parse_sx};

/// A parse error. Positions are 1-based character columns of the expression text.
#[derive(Clone, Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum ExprError {
    /// A token that does not fit the grammar.
    #[error("unexpected {found} at column {pos}, expected {expected}")]
    Unexpected {
        /// Column of the token.
        pos: usize,
        /// The token as written (quoted), or `end of input`.
        found: String,
        /// What the parser expected there.
        expected: &'static str,
    },
    /// A name that is neither a function, a constant nor a symbol of the resolver.
    #[error("unknown symbol '{name}' at column {pos}")]
    UnknownSymbol {
        /// Column of the name.
        pos: usize,
        /// The name.
        name: String,
    },
    /// A call of a function that does not exist.
    #[error("unknown function '{name}' at column {pos}")]
    UnknownFunction {
        /// Column of the name.
        pos: usize,
        /// The name.
        name: String,
    },
    /// A function called with the wrong number of arguments.
    #[error("function '{name}' at column {pos} takes {expected} argument(s), got {got}")]
    Arity {
        /// Column of the name.
        pos: usize,
        /// The function.
        name: String,
        /// Its number of arguments.
        expected: usize,
        /// Number of arguments given.
        got: usize,
    },
    /// A character that starts no token.
    #[error("invalid character '{ch}' at column {pos}")]
    BadChar {
        /// Column.
        pos: usize,
        /// The character.
        ch: char,
    },
    /// A malformed number literal.
    #[error("invalid number '{text}' at column {pos}")]
    BadNumber {
        /// Column.
        pos: usize,
        /// The literal.
        text: String,
    },
}

/// Built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `sin(x)`.
    Sin,
    /// `cos(x)`.
    Cos,
    /// `tan(x)`.
    Tan,
    /// `exp(x)`.
    Exp,
    /// `log(x)` (natural logarithm).
    Log,
    /// `sqrt(x)`.
    Sqrt,
    /// `abs(x)` (non-smooth).
    Abs,
    /// `sign(x)` (non-smooth, `sign(0) = 0`).
    Sign,
    /// `tanh(x)`.
    Tanh,
    /// `atan2(y, x)`.
    Atan2,
    /// `min(a, b)` (non-smooth).
    Min,
    /// `max(a, b)` (non-smooth).
    Max,
}

impl Func {
    /// The function called `name`, if any.
    pub fn from_name(name: &str) -> Option<Func> {
        Some(match name {
            "sin" => Func::Sin,
            "cos" => Func::Cos,
            "tan" => Func::Tan,
            "exp" => Func::Exp,
            "log" => Func::Log,
            "sqrt" => Func::Sqrt,
            "abs" => Func::Abs,
            "sign" => Func::Sign,
            "tanh" => Func::Tanh,
            "atan2" => Func::Atan2,
            "min" => Func::Min,
            "max" => Func::Max,
            _ => return None,
        })
    }

    /// Number of arguments.
    pub fn arity(self) -> usize {
        match self {
            Func::Atan2 | Func::Min | Func::Max => 2,
            _ => 1,
        }
    }
}

/// Names that cannot be used for symbols: the functions and the constant `pi`.
pub fn is_reserved(name: &str) -> bool {
    name == "pi" || Func::from_name(name).is_some()
}

/// True if `name` is a valid symbol name: a letter or `_`, then letters, digits, `_`.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`.
    Div,
    /// `a ^ b`.
    Pow,
}

/// A parsed expression. Symbols are indices given by the resolver passed to [`parse`].
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A number (also `pi`).
    Num(f64),
    /// A symbol: resolver index and column of its first character.
    Sym {
        /// Index returned by the resolver.
        index: usize,
        /// Column in the text.
        pos: usize,
    },
    /// `-a`.
    Neg(Box<Expr>),
    /// `a op b`.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `f(args)`.
    Call(Func, Vec<Expr>),
}

/// Scalars an [`Expr`] can be evaluated with: [`Scalar`] plus `min`/`max`.
pub trait ExprScalar: Scalar {
    /// Minimum.
    fn min_of(self, other: Self) -> Self;
    /// Maximum.
    fn max_of(self, other: Self) -> Self;
}

impl ExprScalar for f64 {
    fn min_of(self, other: f64) -> f64 {
        self.min(other)
    }
    fn max_of(self, other: f64) -> f64 {
        self.max(other)
    }
}

impl ExprScalar for Sx {
    fn min_of(self, other: Sx) -> Sx {
        self.fmin(other)
    }
    fn max_of(self, other: Sx) -> Sx {
        self.fmax(other)
    }
}

impl Expr {
    /// Evaluate with `vars[index]` as the value of symbol `index`.
    ///
    /// # Panics
    /// If a symbol index is out of range of `vars` (the caller's resolver defines the range).
    pub fn eval<S: ExprScalar>(&self, vars: &[S]) -> S {
        match self {
            Expr::Num(x) => S::from_f64(*x),
            Expr::Sym { index, .. } => vars[*index],
            Expr::Neg(a) => -a.eval(vars),
            Expr::Bin(op, a, b) => {
                if *op == BinOp::Pow {
                    let x = a.eval(vars);
                    return match b.constant_value() {
                        Some(c) if c.fract() == 0.0 && c.abs() <= 64.0 => x.powi(c as i32),
                        Some(0.5) => x.sqrt(),
                        Some(c) => x.powf(S::from_f64(c)),
                        None => x.powf(b.eval(vars)),
                    };
                }
                let (x, y) = (a.eval(vars), b.eval(vars));
                match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    _ => x / y,
                }
            }
            Expr::Call(f, args) => {
                let x = args[0].eval(vars);
                match f {
                    Func::Sin => x.sin(),
                    Func::Cos => x.cos(),
                    Func::Tan => x.tan(),
                    Func::Exp => x.exp(),
                    Func::Log => x.ln(),
                    Func::Sqrt => x.sqrt(),
                    Func::Abs => x.abs(),
                    Func::Sign => x.sign(),
                    Func::Tanh => x.tanh(),
                    Func::Atan2 => x.atan2(args[1].eval(vars)),
                    Func::Min => x.min_of(args[1].eval(vars)),
                    Func::Max => x.max_of(args[1].eval(vars)),
                }
            }
        }
    }

    /// Every symbol occurrence `(index, column)`, in text order.
    pub fn symbols(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        self.collect_symbols(&mut out);
        out
    }

    fn collect_symbols(&self, out: &mut Vec<(usize, usize)>) {
        match self {
            Expr::Num(_) => {}
            Expr::Sym { index, pos } => out.push((*index, *pos)),
            Expr::Neg(a) => a.collect_symbols(out),
            Expr::Bin(_, a, b) => {
                a.collect_symbols(out);
                b.collect_symbols(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.collect_symbols(out)),
        }
    }

    /// The value if the expression contains no symbols.
    pub fn constant_value(&self) -> Option<f64> {
        if self.symbols().is_empty() {
            Some(self.eval::<f64>(&[]))
        } else {
            None
        }
    }
}
