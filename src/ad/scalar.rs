//! The [`Scalar`] trait: the number type that model code is written against.
//!
//! Model code (rigid-body dynamics, contact gaps, FESD-J residuals) is written once, generic over
//! `S: Scalar`, and instantiated twice: with `f64` for fast numerical evaluation and with the
//! symbolic [`Sx`](crate::ad::Sx) to build expression graphs from which exact sparse derivatives
//! are compiled.
//!
//! The trait is `Copy`: `f64` is, and `Sx` is a handle into a thread-local arena.
//! Comparisons are deliberately absent: generic code must not branch on values, because a
//! symbolic value has none. Use [`Scalar::constant_value`] only for optimisations that are valid
//! for every value (e.g. skipping a multiplication by an exact zero).

use std::fmt::Debug;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// Arithmetic scalar implemented by `f64` and the symbolic [`Sx`](crate::ad::Sx).
///
/// `abs` and `sign` are **non-smooth**: their derivatives are taken as `sign(x)` and `0`
/// respectively (the subgradient choice at 0 is `0` for both). Avoid them in functions whose
/// derivatives an NLP solver relies on; complementarity formulations exist to avoid them.
pub trait Scalar:
    Copy
    + Debug
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Add<f64, Output = Self>
    + Sub<f64, Output = Self>
    + Mul<f64, Output = Self>
    + Div<f64, Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + AddAssign<f64>
    + SubAssign<f64>
    + MulAssign<f64>
    + DivAssign<f64>
{
    /// The constant `c`.
    fn from_f64(c: f64) -> Self;
    /// The constant 0.
    fn zero() -> Self {
        Self::from_f64(0.0)
    }
    /// The constant 1.
    fn one() -> Self {
        Self::from_f64(1.0)
    }
    /// `self^n` for an integer exponent.
    fn powi(self, n: i32) -> Self;
    /// `self^e` for a scalar exponent (`exp(e ln self)`, defined for `self > 0`).
    fn powf(self, e: Self) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Exponential.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Tangent.
    fn tan(self) -> Self;
    /// Four-quadrant arctangent of `self / x` (`self` is y).
    fn atan2(self, x: Self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// Absolute value (non-smooth at 0).
    fn abs(self) -> Self;
    /// Sign: -1, 0 or 1 (non-smooth; derivative 0).
    fn sign(self) -> Self;
    /// `self * self`.
    fn sq(self) -> Self {
        self * self
    }
    /// The value if it is known without evaluation (always for `f64`, for constants of `Sx`).
    fn constant_value(&self) -> Option<f64>;
    /// True if the value is known to be exactly zero.
    fn is_exact_zero(&self) -> bool {
        self.constant_value() == Some(0.0)
    }
    /// True if the value is known to be exactly one.
    fn is_exact_one(&self) -> bool {
        self.constant_value() == Some(1.0)
    }
}

impl Scalar for f64 {
    #[inline(always)]
    fn from_f64(c: f64) -> Self {
        c
    }
    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        f64::powi(self, n)
    }
    #[inline(always)]
    fn powf(self, e: Self) -> Self {
        f64::powf(self, e)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn exp(self) -> Self {
        f64::exp(self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        f64::ln(self)
    }
    #[inline(always)]
    fn sin(self) -> Self {
        f64::sin(self)
    }
    #[inline(always)]
    fn cos(self) -> Self {
        f64::cos(self)
    }
    #[inline(always)]
    fn tan(self) -> Self {
        f64::tan(self)
    }
    #[inline(always)]
    fn atan2(self, x: Self) -> Self {
        f64::atan2(self, x)
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        f64::tanh(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f64::abs(self)
    }
    #[inline(always)]
    fn sign(self) -> Self {
        sign_f64(self)
    }
    #[inline(always)]
    fn constant_value(&self) -> Option<f64> {
        Some(*self)
    }
}

/// Sign with `sign(0) = 0` and `sign(NaN) = NaN` (unlike `f64::signum`, which gives ±1 at ±0).
#[inline(always)]
pub fn sign_f64(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else if x == 0.0 {
        0.0
    } else {
        f64::NAN
    }
}
