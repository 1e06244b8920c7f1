//! The symbolic scalar [`Sx`]: a handle to a node of an expression DAG.
//!
//! # Ownership and threading model
//! All nodes live in one **thread-local arena**. An `Sx` is a 4-byte `Copy` handle (the node's
//! index), so symbolic model code reads like numeric code with no reference counting. Handles are
//! only meaningful on the thread that created them, which the type enforces: `Sx` is neither
//! `Send` nor `Sync`. Nodes are never freed while the thread lives (an arena grows by about
//! 40 bytes per node, hash-consing table included); symbolic graphs are built once at set-up.
//! Everything numeric that is derived from a graph — a compiled [`Function`](super::Function) —
//! owns its tape, is independent of the arena, and is `Send + Sync`.
//!
//! # Hash-consing and simplification
//! Creating a node with the same operation and operands as an existing one returns the existing
//! node (commutative operands are ordered first), so common subexpressions are shared and
//! handle equality is structural equality of the DAG. Operations on constants are folded, and
//! the trivial identities are applied: `x·0 = 0`, `x·1 = x`, `x·(−1) = −x`, `x+0 = x`,
//! `x−0 = x`, `0−x = −x`, `x−x = 0`, `x/1 = x`, `0/x = 0`, `x/x = 1`, `−(−x) = x`,
//! `x+(−y) = x−y`, `x·x = sq(x)`. (`x·0 = 0` and `x−x = 0` are the IEEE-unsafe identities that
//! every symbolic framework applies; they differ from f64 only for infinite or NaN `x`.)

use super::hash::FastMap;
use super::op::OpCode;
use super::scalar::Scalar;
use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// One node of the expression DAG.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    pub op: OpCode,
    pub a: u32,
    pub b: u32,
    /// Constant value for [`OpCode::Const`], otherwise unused (0).
    pub value: f64,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Const(u64),
    Op(OpCode, u32, u32),
}

pub(crate) struct Arena {
    pub nodes: Vec<Node>,
    map: FastMap<Key, u32>,
    names: FastMap<u32, String>,
}

const ZERO: u32 = 0;
const ONE: u32 = 1;
const MINUS_ONE: u32 = 2;

impl Arena {
    fn new() -> Self {
        let mut arena = Arena {
            nodes: Vec::with_capacity(1024),
            map: FastMap::with_capacity_and_hasher(1024, Default::default()),
            names: FastMap::default(),
        };
        arena.constant(0.0);
        arena.constant(1.0);
        arena.constant(-1.0);
        arena
    }

    fn push(&mut self, node: Node) -> u32 {
        let id = u32::try_from(self.nodes.len()).unwrap_or_else(|_| {
            // 4 billion nodes exceed any memory this library is meant for; failing loudly is
            // better than aliasing handles.
            panic!("fesdj_mpc::ad: expression arena exceeded 2^32 nodes")
        });
        self.nodes.push(node);
        id
    }

    fn constant(&mut self, c: f64) -> u32 {
        // 0.0 and -0.0 are the same constant; every NaN is the same constant.
        let c = if c == 0.0 { 0.0 } else { c };
        let bits = if c.is_nan() {
            f64::NAN.to_bits()
        } else {
            c.to_bits()
        };
        let key = Key::Const(bits);
        if let Some(&id) = self.map.get(&key) {
            return id;
        }
        let id = self.push(Node {
            op: OpCode::Const,
            a: 0,
            b: 0,
            value: c,
        });
        self.map.insert(key, id);
        id
    }

    fn symbol(&mut self, name: &str) -> u32 {
        let id = self.push(Node {
            op: OpCode::Symbol,
            a: 0,
            b: 0,
            value: 0.0,
        });
        self.names.insert(id, name.to_string());
        id
    }

    #[inline]
    fn const_of(&self, id: u32) -> Option<f64> {
        let n = &self.nodes[id as usize];
        (n.op == OpCode::Const).then_some(n.value)
    }

    fn intern(&mut self, op: OpCode, a: u32, b: u32) -> u32 {
        let key = Key::Op(op, a, b);
        if let Some(&id) = self.map.get(&key) {
            return id;
        }
        let id = self.push(Node {
            op,
            a,
            b,
            value: 0.0,
        });
        self.map.insert(key, id);
        id
    }

    /// Unary node with folding and simplification.
    pub(crate) fn unary(&mut self, op: OpCode, a: u32) -> u32 {
        if let Some(c) = self.const_of(a) {
            return self.constant(op.eval_unary(c));
        }
        let na = self.nodes[a as usize];
        match op {
            OpCode::Neg if na.op == OpCode::Neg => return na.a,
            OpCode::Abs if matches!(na.op, OpCode::Abs | OpCode::Sq) => return a,
            _ => {}
        }
        self.intern(op, a, 0)
    }

    /// Binary node with folding and simplification.
    pub(crate) fn binary(&mut self, op: OpCode, mut a: u32, mut b: u32) -> u32 {
        let ca = self.const_of(a);
        let cb = self.const_of(b);
        if let (Some(x), Some(y)) = (ca, cb) {
            return self.constant(op.eval_binary(x, y));
        }
        match op {
            OpCode::Add => {
                if ca == Some(0.0) {
                    return b;
                }
                if cb == Some(0.0) {
                    return a;
                }
                let nb = self.nodes[b as usize];
                if nb.op == OpCode::Neg {
                    return self.binary(OpCode::Sub, a, nb.a);
                }
                let na = self.nodes[a as usize];
                if na.op == OpCode::Neg {
                    return self.binary(OpCode::Sub, b, na.a);
                }
            }
            OpCode::Sub => {
                if cb == Some(0.0) {
                    return a;
                }
                if ca == Some(0.0) {
                    return self.unary(OpCode::Neg, b);
                }
                if a == b {
                    return ZERO;
                }
                let nb = self.nodes[b as usize];
                if nb.op == OpCode::Neg {
                    return self.binary(OpCode::Add, a, nb.a);
                }
            }
            OpCode::Mul => {
                if ca == Some(0.0) || cb == Some(0.0) {
                    return ZERO;
                }
                if ca == Some(1.0) {
                    return b;
                }
                if cb == Some(1.0) {
                    return a;
                }
                if ca == Some(-1.0) {
                    return self.unary(OpCode::Neg, b);
                }
                if cb == Some(-1.0) {
                    return self.unary(OpCode::Neg, a);
                }
                if a == b {
                    return self.unary(OpCode::Sq, a);
                }
            }
            OpCode::Div => {
                if cb == Some(1.0) {
                    return a;
                }
                if cb == Some(-1.0) {
                    return self.unary(OpCode::Neg, a);
                }
                if ca == Some(0.0) {
                    return ZERO;
                }
                if ca == Some(1.0) {
                    return self.unary(OpCode::Inv, b);
                }
                if a == b {
                    return ONE;
                }
            }
            OpCode::Pow => {
                if cb == Some(1.0) {
                    return a;
                }
                if cb == Some(0.0) {
                    return ONE;
                }
                if cb == Some(2.0) {
                    return self.unary(OpCode::Sq, a);
                }
                if cb == Some(0.5) {
                    return self.unary(OpCode::Sqrt, a);
                }
            }
            OpCode::Fmin | OpCode::Fmax if a == b => return a,
            _ => {}
        }
        if op.is_commutative() && a > b {
            std::mem::swap(&mut a, &mut b);
        }
        self.intern(op, a, b)
    }
}

thread_local! {
    static ARENA: RefCell<Arena> = RefCell::new(Arena::new());
}

/// Run `f` with shared access to this thread's arena.
pub(crate) fn with_arena<R>(f: impl FnOnce(&Arena) -> R) -> R {
    ARENA.with(|a| f(&a.borrow()))
}

/// Run `f` with mutable access to this thread's arena.
pub(crate) fn with_arena_mut<R>(f: impl FnOnce(&mut Arena) -> R) -> R {
    ARENA.with(|a| f(&mut a.borrow_mut()))
}

/// Number of nodes in this thread's arena (a measure of symbolic memory use).
pub fn arena_len() -> usize {
    with_arena(|a| a.nodes.len())
}

/// Approximate bytes held by this thread's arena (nodes, hash-consing table, symbol names).
pub fn arena_len_bytes_estimate() -> usize {
    with_arena(|a| {
        a.nodes.capacity() * std::mem::size_of::<Node>()
            + a.map.capacity() * (std::mem::size_of::<Key>() + std::mem::size_of::<u32>() + 1)
            + a.names.values().map(|n| n.capacity() + 32).sum::<usize>()
    })
}

/// Symbolic scalar: a handle to a node of this thread's expression DAG (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sx(pub(crate) u32, PhantomData<*const ()>);

impl Sx {
    #[inline]
    pub(crate) fn from_id(id: u32) -> Sx {
        Sx(id, PhantomData)
    }

    /// The node index (stable for the thread's lifetime).
    #[inline]
    pub fn id(self) -> u32 {
        self.0
    }

    /// A new free symbol. Every call makes a distinct symbol, even with the same name.
    pub fn sym(name: &str) -> Sx {
        Sx::from_id(with_arena_mut(|a| a.symbol(name)))
    }

    /// A vector of `n` new symbols named `name_0 … name_{n-1}`.
    pub fn sym_vec(name: &str, n: usize) -> Vec<Sx> {
        (0..n).map(|i| Sx::sym(&format!("{name}_{i}"))).collect()
    }

    /// The constant `c`.
    pub fn constant(c: f64) -> Sx {
        if c == 0.0 {
            return Sx::from_id(ZERO);
        }
        if c == 1.0 {
            return Sx::from_id(ONE);
        }
        if c == -1.0 {
            return Sx::from_id(MINUS_ONE);
        }
        Sx::from_id(with_arena_mut(|a| a.constant(c)))
    }

    /// True if this is a free symbol.
    pub fn is_symbol(self) -> bool {
        self.op() == OpCode::Symbol
    }

    /// The node's operation.
    pub fn op(self) -> OpCode {
        with_arena(|a| a.nodes[self.0 as usize].op)
    }

    /// The symbol's name, if this is a symbol.
    pub fn name(self) -> Option<String> {
        with_arena(|a| a.names.get(&self.0).cloned())
    }

    /// Apply a unary operation (with folding and simplification).
    pub fn apply_unary(op: OpCode, a: Sx) -> Sx {
        Sx::from_id(with_arena_mut(|ar| ar.unary(op, a.0)))
    }

    /// Apply a binary operation (with folding and simplification).
    pub fn apply_binary(op: OpCode, a: Sx, b: Sx) -> Sx {
        Sx::from_id(with_arena_mut(|ar| ar.binary(op, a.0, b.0)))
    }

    /// The operands of this node (`None` for constants and symbols).
    pub fn operands(self) -> (Option<Sx>, Option<Sx>) {
        with_arena(|a| {
            let n = a.nodes[self.0 as usize];
            match n.op {
                OpCode::Const | OpCode::Symbol => (None, None),
                op if op.is_binary() => (Some(Sx::from_id(n.a)), Some(Sx::from_id(n.b))),
                _ => (Some(Sx::from_id(n.a)), None),
            }
        })
    }

    /// Minimum of two expressions (non-smooth).
    pub fn fmin(self, other: Sx) -> Sx {
        Sx::apply_binary(OpCode::Fmin, self, other)
    }

    /// Maximum of two expressions (non-smooth).
    pub fn fmax(self, other: Sx) -> Sx {
        Sx::apply_binary(OpCode::Fmax, self, other)
    }

    /// Render the expression as text (shared subexpressions are repeated; large graphs are
    /// truncated with `…`).
    pub fn to_expr_string(self) -> String {
        let mut out = String::new();
        let mut budget = 2000usize;
        with_arena(|a| render(a, self.0, &mut out, &mut budget));
        out
    }
}

fn render(a: &Arena, id: u32, out: &mut String, budget: &mut usize) {
    use std::fmt::Write;
    if *budget == 0 {
        out.push('…');
        return;
    }
    *budget -= 1;
    let n = a.nodes[id as usize];
    match n.op {
        OpCode::Const => {
            let _ = write!(out, "{}", n.value);
        }
        OpCode::Symbol => match a.names.get(&id) {
            Some(name) => out.push_str(name),
            None => {
                let _ = write!(out, "s{id}");
            }
        },
        op @ (OpCode::Add | OpCode::Sub | OpCode::Mul | OpCode::Div) => {
            let sym = match op {
                OpCode::Add => " + ",
                OpCode::Sub => " - ",
                OpCode::Mul => "*",
                _ => "/",
            };
            out.push('(');
            render(a, n.a, out, budget);
            out.push_str(sym);
            render(a, n.b, out, budget);
            out.push(')');
        }
        op if op.is_binary() => {
            out.push_str(op.name());
            out.push('(');
            render(a, n.a, out, budget);
            out.push_str(", ");
            render(a, n.b, out, budget);
            out.push(')');
        }
        op => {
            out.push_str(op.name());
            out.push('(');
            render(a, n.a, out, budget);
            out.push(')');
        }
    }
}

impl fmt::Debug for Sx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_expr_string())
    }
}

impl fmt::Display for Sx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_expr_string())
    }
}

impl From<f64> for Sx {
    fn from(c: f64) -> Sx {
        Sx::constant(c)
    }
}

macro_rules! sx_binop {
    ($tr:ident, $method:ident, $atr:ident, $amethod:ident, $op:expr) => {
        impl $tr for Sx {
            type Output = Sx;
            #[inline]
            fn $method(self, rhs: Sx) -> Sx {
                Sx::apply_binary($op, self, rhs)
            }
        }
        impl $tr<f64> for Sx {
            type Output = Sx;
            #[inline]
            fn $method(self, rhs: f64) -> Sx {
                Sx::apply_binary($op, self, Sx::constant(rhs))
            }
        }
        impl $tr<Sx> for f64 {
            type Output = Sx;
            #[inline]
            fn $method(self, rhs: Sx) -> Sx {
                Sx::apply_binary($op, Sx::constant(self), rhs)
            }
        }
        impl<'a> $tr<&'a Sx> for Sx {
            type Output = Sx;
            #[inline]
            fn $method(self, rhs: &'a Sx) -> Sx {
                Sx::apply_binary($op, self, *rhs)
            }
        }
        impl<'a> $tr<Sx> for &'a Sx {
            type Output = Sx;
            #[inline]
            fn $method(self, rhs: Sx) -> Sx {
                Sx::apply_binary($op, *self, rhs)
            }
        }
        impl<'a, 'b> $tr<&'b Sx> for &'a Sx {
            type Output = Sx;
            #[inline]
            fn $method(self, rhs: &'b Sx) -> Sx {
                Sx::apply_binary($op, *self, *rhs)
            }
        }
        impl $atr for Sx {
            #[inline]
            fn $amethod(&mut self, rhs: Sx) {
                *self = Sx::apply_binary($op, *self, rhs);
            }
        }
        impl $atr<f64> for Sx {
            #[inline]
            fn $amethod(&mut self, rhs: f64) {
                *self = Sx::apply_binary($op, *self, Sx::constant(rhs));
            }
        }
    };
}

sx_binop!(Add, add, AddAssign, add_assign, OpCode::Add);
sx_binop!(Sub, sub, SubAssign, sub_assign, OpCode::Sub);
sx_binop!(Mul, mul, MulAssign, mul_assign, OpCode::Mul);
sx_binop!(Div, div, DivAssign, div_assign, OpCode::Div);

impl Neg for Sx {
    type Output = Sx;
    #[inline]
    fn neg(self) -> Sx {
        Sx::apply_unary(OpCode::Neg, self)
    }
}

impl Neg for &Sx {
    type Output = Sx;
    #[inline]
    fn neg(self) -> Sx {
        Sx::apply_unary(OpCode::Neg, *self)
    }
}

impl Scalar for Sx {
    fn from_f64(c: f64) -> Self {
        Sx::constant(c)
    }
    fn zero() -> Self {
        Sx::from_id(ZERO)
    }
    fn one() -> Self {
        Sx::from_id(ONE)
    }
    /// Integer powers are expanded into squarings and products (exact derivatives, no `pow`).
    fn powi(self, n: i32) -> Self {
        if n == 0 {
            return Sx::one();
        }
        let mut base = self;
        let mut e = n.unsigned_abs();
        let mut acc: Option<Sx> = None;
        while e > 0 {
            if e & 1 == 1 {
                acc = Some(match acc {
                    None => base,
                    Some(x) => x * base,
                });
            }
            e >>= 1;
            if e > 0 {
                base = base.sq();
            }
        }
        let r = acc.unwrap_or_else(Sx::one);
        if n < 0 {
            Sx::apply_unary(OpCode::Inv, r)
        } else {
            r
        }
    }
    fn powf(self, e: Self) -> Self {
        Sx::apply_binary(OpCode::Pow, self, e)
    }
    fn sqrt(self) -> Self {
        Sx::apply_unary(OpCode::Sqrt, self)
    }
    fn exp(self) -> Self {
        Sx::apply_unary(OpCode::Exp, self)
    }
    fn ln(self) -> Self {
        Sx::apply_unary(OpCode::Log, self)
    }
    fn sin(self) -> Self {
        Sx::apply_unary(OpCode::Sin, self)
    }
    fn cos(self) -> Self {
        Sx::apply_unary(OpCode::Cos, self)
    }
    fn tan(self) -> Self {
        Sx::apply_unary(OpCode::Tan, self)
    }
    fn atan2(self, x: Self) -> Self {
        Sx::apply_binary(OpCode::Atan2, self, x)
    }
    fn tanh(self) -> Self {
        Sx::apply_unary(OpCode::Tanh, self)
    }
    fn abs(self) -> Self {
        Sx::apply_unary(OpCode::Abs, self)
    }
    fn sign(self) -> Self {
        Sx::apply_unary(OpCode::Sign, self)
    }
    fn sq(self) -> Self {
        Sx::apply_unary(OpCode::Sq, self)
    }
    fn constant_value(&self) -> Option<f64> {
        with_arena(|a| a.const_of(self.0))
    }
}

// What nalgebra needs for small fixed-size matrices of Sx: nalgebra::Scalar is implemented by
// blanket impl for `Clone + PartialEq + Debug + 'static`; matrix products need `Zero`, `One`
// and the closed operator traits (blanket impls over the std operators above).
impl num_traits::Zero for Sx {
    fn zero() -> Self {
        Sx::from_id(ZERO)
    }
    fn is_zero(&self) -> bool {
        self.0 == ZERO
    }
}

impl num_traits::One for Sx {
    fn one() -> Self {
        Sx::from_id(ONE)
    }
}
