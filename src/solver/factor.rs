//! The KKT matrix's numeric LDLᵀ: the scalar up-looking [`StaticLdlt`] or the supernodal
//! [`SupernodalLdlt`] behind one interface, chosen by [`LdltMethod`] (`ipm.kkt_factorization`).

use super::ldlt::StaticLdlt;
use super::supernodal::{Relax, SupernodalLdlt};

/// [`LdltMethod::Auto`] picks the supernodal factorisation from this many multiply-adds per
/// column on (measured: the hopper MPC's KKT, 59 per column, factorises in 15 µs scalar and
/// 25 µs supernodal; the quadruped MPC's, 711 and 748 per column, 1.6–1.8 times faster
/// supernodal).
pub const AUTO_SUPERNODAL_FLOPS_PER_COLUMN: usize = 200;

/// Which numeric factorisation [`Ldlt::new`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LdltMethod {
    /// Chosen from the analysis ([`Ldlt::new`]).
    Auto,
    /// [`StaticLdlt`] (scalar up-looking).
    Simplicial,
    /// [`SupernodalLdlt`] (dense panels).
    Supernodal,
}

impl From<crate::solver::settings::KktFactorization> for LdltMethod {
    fn from(k: crate::solver::settings::KktFactorization) -> LdltMethod {
        use crate::solver::settings::KktFactorization as K;
        match k {
            K::Auto => LdltMethod::Auto,
            K::Simplicial => LdltMethod::Simplicial,
            K::Supernodal => LdltMethod::Supernodal,
        }
    }
}

/// A fixed-order sparse LDLᵀ: scalar or supernodal, same interface.
#[derive(Clone, Debug)]
pub(crate) enum Ldlt {
    Simplicial(StaticLdlt),
    Supernodal(SupernodalLdlt),
}

impl Ldlt {
    /// Analyse (see [`StaticLdlt::new`](super::ldlt::StaticLdlt::new)). With [`LdltMethod::Auto`] the supernodal
    /// factorisation is used when the factor's multiply-adds per column (Σ_j nnz(L[:, j])² / n)
    /// are at least [`AUTO_SUPERNODAL_FLOPS_PER_COLUMN`]: below that the panels are too small
    /// for the dense kernels to pay for their bookkeeping.
    pub fn new(
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
        perm: &[usize],
        method: LdltMethod,
    ) -> Ldlt {
        let supernodal = || {
            Ldlt::Supernodal(SupernodalLdlt::new(
                n,
                col_ptr,
                row_idx,
                perm,
                Relax::default(),
            ))
        };
        match method {
            LdltMethod::Simplicial => Ldlt::Simplicial(StaticLdlt::new(n, col_ptr, row_idx, perm)),
            LdltMethod::Supernodal => supernodal(),
            LdltMethod::Auto => {
                let scalar = StaticLdlt::new(n, col_ptr, row_idx, perm);
                if scalar.flops() >= AUTO_SUPERNODAL_FLOPS_PER_COLUMN * n.max(1) {
                    supernodal()
                } else {
                    Ldlt::Simplicial(scalar)
                }
            }
        }
    }

    /// Factorise (see [`StaticLdlt::factor`](super::ldlt::StaticLdlt::factor)); `Err(i)`: pivot `i` (caller's order) is zero or
    /// not finite.
    pub fn factor(&mut self, values: &[f64]) -> Result<(), usize> {
        match self {
            Ldlt::Simplicial(f) => f.factor(values),
            Ldlt::Supernodal(f) => f.factor(values),
        }
    }

    /// The pivots `D` in the caller's pivot order.
    pub fn pivots(&self) -> &[f64] {
        match self {
            Ldlt::Simplicial(f) => f.pivots(),
            Ldlt::Supernodal(f) => f.pivots(),
        }
    }

    /// Length of the `work` slice of [`Ldlt::solve_in_place`].
    pub fn work_len(&self) -> usize {
        match self {
            Ldlt::Simplicial(f) => f.dim(),
            Ldlt::Supernodal(f) => f.work_len(),
        }
    }

    /// Solve `A x = b` in place; `work` has length [`Ldlt::work_len`].
    pub fn solve_in_place(&self, b: &mut [f64], work: &mut [f64]) {
        match self {
            Ldlt::Simplicial(f) => f.solve_in_place(b, work),
            Ldlt::Supernodal(f) => f.solve_in_place(b, work),
        }
    }

    /// (nnz of the permuted lower triangle, nnz of L, multiply-adds per factorisation).
    pub fn stats(&self) -> (usize, usize, usize) {
        match self {
            Ldlt::Simplicial(f) => (f.nnz_a(), f.nnz_l(), f.flops()),
            Ldlt::Supernodal(f) => (f.nnz_a(), f.nnz_l(), f.flops()),
        }
    }
}
