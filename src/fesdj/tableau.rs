//! Butcher tableaus of the collocation methods used by FESD-J (§3.2), generated
//! programmatically: nodes from Legendre polynomials (Golub–Welsch eigenvalues of the Jacobi
//! matrix, Radau modification of its last diagonal entry, then Newton polishing on the defining
//! polynomial), coefficients from integrals of the Lagrange basis.
//!
//! * Radau IIA: nodes are the zeros of `P_{n_s}(2τ−1) − P_{n_s−1}(2τ−1)` (so `c_{n_s} = 1`),
//!   order `2 n_s − 1`, stage order `n_s`, stiffly accurate.
//! * Gauss–Legendre: nodes are the zeros of `P_{n_s}(2τ−1)`, order `2 n_s`, stage order `n_s`,
//!   `c_{n_s} < 1` (the right boundary needs the handling of §3.7.4).
//! * Implicit Euler: Radau IIA with `n_s = 1`.
//!
//! For a collocation method `a_ij = ∫_0^{c_i} ℓ_j`, `b_j = ∫_0^1 ℓ_j` with the Lagrange basis
//! `ℓ_j` on `c`. The *integral representation* (§3.2, nosnoc `rk_representation = integral`)
//! uses the basis `L_r` on the `n_s + 1` nodes `τ_0 = 0, τ_j = c_j`:
//! `C_{r,j} = L_r'(τ_j)`, `D_r = L_r(1)`, `B_r = ∫_0^1 L_r`, with the stage equations
//! `h F(x_{n,j}) = Σ_r C_{r,j} x_{n,r}` and `x_{n+1} = Σ_r D_r x_{n,r}`.

use serde::{Deserialize, Serialize};

use super::error::FesdjError;

/// The Runge–Kutta scheme of every finite element (§3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RkScheme {
    /// Radau IIA collocation (default; L-stable, stiffly accurate, order `2 n_s − 1`).
    #[default]
    RadauIia,
    /// Gauss–Legendre collocation (A-stable, order `2 n_s`, `c_{n_s} < 1`).
    GaussLegendre,
    /// Implicit Euler (= Radau IIA with one stage; `n_s` must be 1).
    ImplicitEuler,
}

/// Largest number of stages the generator supports (as nosnoc: `n_s ∈ {1..9}`).
pub const MAX_STAGES: usize = 9;

/// A Butcher tableau `(A, b, c)` of an `n_s`-stage collocation method.
#[derive(Clone, Debug, PartialEq)]
pub struct ButcherTableau {
    /// The scheme it belongs to.
    pub scheme: RkScheme,
    /// Number of stages `n_s`.
    pub n_s: usize,
    /// `A` (row `i` = stage `i`), `n_s × n_s`.
    pub a: Vec<Vec<f64>>,
    /// Weights `b`.
    pub b: Vec<f64>,
    /// Nodes `c` (increasing).
    pub c: Vec<f64>,
    /// Classical order.
    pub order: usize,
    /// Stage order.
    pub stage_order: usize,
}

/// The integral (collocation) representation of §3.2 on the nodes `0, c_1, …, c_{n_s}`.
#[derive(Clone, Debug, PartialEq)]
pub struct IntegralForm {
    /// `C[r][j-1] = L_r'(τ_j)` for `r = 0..=n_s`, `j = 1..=n_s`.
    pub c_mat: Vec<Vec<f64>>,
    /// `D_r = L_r(1)`, `r = 0..=n_s`.
    pub d: Vec<f64>,
    /// `B_r = ∫_0^1 L_r`, `r = 0..=n_s` (see the cost-quadrature pitfall in §3.2: use `b`).
    pub b: Vec<f64>,
}

impl ButcherTableau {
    /// Generate the tableau of `scheme` with `n_s` stages (`1 ≤ n_s ≤ 9`; implicit Euler needs
    /// `n_s = 1`).
    pub fn new(scheme: RkScheme, n_s: usize) -> Result<ButcherTableau, FesdjError> {
        if n_s == 0 || n_s > MAX_STAGES {
            return Err(FesdjError::Tableau(format!(
                "n_s = {n_s} is outside 1..={MAX_STAGES}"
            )));
        }
        let c = match scheme {
            RkScheme::ImplicitEuler if n_s != 1 => {
                return Err(FesdjError::Tableau(format!(
                    "implicit Euler has one stage, n_s = {n_s} requested"
                )))
            }
            RkScheme::RadauIia | RkScheme::ImplicitEuler => radau_right_nodes(n_s),
            RkScheme::GaussLegendre => gauss_nodes(n_s),
        };
        let (qx, qw) = gauss_rule_01(12);
        let a = c
            .iter()
            .map(|&ci| {
                (0..n_s)
                    .map(|j| integrate(|t| lagrange(&c, j, t), 0.0, ci, &qx, &qw))
                    .collect()
            })
            .collect();
        let b = (0..n_s)
            .map(|j| integrate(|t| lagrange(&c, j, t), 0.0, 1.0, &qx, &qw))
            .collect();
        let order = match scheme {
            RkScheme::GaussLegendre => 2 * n_s,
            _ => 2 * n_s - 1,
        };
        Ok(ButcherTableau {
            scheme,
            n_s,
            a,
            b,
            c,
            order,
            stage_order: n_s,
        })
    }

    /// True if the last node is exactly 1 (Radau IIA, implicit Euler): the element end state is
    /// the last stage state and no right-boundary point exists (§3.7.4).
    pub fn ends_at_one(&self) -> bool {
        self.c.last() == Some(&1.0)
    }

    /// The integral representation `(C, D, B)` of §3.2.
    pub fn integral_form(&self) -> IntegralForm {
        let mut nodes = Vec::with_capacity(self.n_s + 1);
        nodes.push(0.0);
        nodes.extend_from_slice(&self.c);
        let m = nodes.len();
        // Barycentric weights w_r = 1 / Π_{k≠r} (τ_r − τ_k).
        let w: Vec<f64> = (0..m)
            .map(|r| {
                1.0 / (0..m)
                    .filter(|&k| k != r)
                    .map(|k| nodes[r] - nodes[k])
                    .product::<f64>()
            })
            .collect();
        let c_mat = (0..m)
            .map(|r| {
                (1..m)
                    .map(|j| {
                        if r == j {
                            (0..m)
                                .filter(|&k| k != j)
                                .map(|k| 1.0 / (nodes[j] - nodes[k]))
                                .sum()
                        } else {
                            (w[r] / w[j]) / (nodes[j] - nodes[r])
                        }
                    })
                    .collect()
            })
            .collect();
        let d = (0..m).map(|r| lagrange(&nodes, r, 1.0)).collect();
        let (qx, qw) = gauss_rule_01(12);
        let b = (0..m)
            .map(|r| integrate(|t| lagrange(&nodes, r, t), 0.0, 1.0, &qx, &qw))
            .collect();
        IntegralForm { c_mat, d, b }
    }
}

/// Legendre polynomial `P_n(x)` and its derivative by the three-term recurrence.
fn legendre(n: usize, x: f64) -> (f64, f64) {
    // (p_{k-1}, p_k) and derivatives; P'_{k+1} = P'_{k-1} + (2k+1) P_k.
    let (mut p0, mut p1) = (1.0, x);
    let (mut d0, mut d1) = (0.0, 1.0);
    if n == 0 {
        return (1.0, 0.0);
    }
    for k in 1..n {
        let kf = k as f64;
        let p2 = ((2.0 * kf + 1.0) * x * p1 - kf * p0) / (kf + 1.0);
        let d2 = d0 + (2.0 * kf + 1.0) * p1;
        p0 = p1;
        p1 = p2;
        d0 = d1;
        d1 = d2;
    }
    (p1, d1)
}

/// Eigenvalues of the symmetric tridiagonal matrix with diagonal `diag` and off-diagonal `off`.
fn tridiagonal_eigenvalues(diag: &[f64], off: &[f64]) -> Vec<f64> {
    let n = diag.len();
    let m = nalgebra::DMatrix::<f64>::from_fn(n, n, |i, j| {
        if i == j {
            diag[i]
        } else if i + 1 == j {
            off[i]
        } else if j + 1 == i {
            off[j]
        } else {
            0.0
        }
    });
    let mut ev: Vec<f64> = m.symmetric_eigenvalues().iter().copied().collect();
    ev.sort_by(f64::total_cmp);
    ev
}

/// Newton polishing of a simple root of `f` (value, derivative) started at `x`.
fn polish(mut x: f64, f: impl Fn(f64) -> (f64, f64)) -> f64 {
    for _ in 0..6 {
        let (v, d) = f(x);
        if d == 0.0 || !v.is_finite() {
            break;
        }
        let dx = v / d;
        x -= dx;
        if dx.abs() <= 1e-17 {
            break;
        }
    }
    x
}

/// Monic Legendre recurrence coefficient `β_k = k² / (4k² − 1)`.
fn beta(k: usize) -> f64 {
    let k = k as f64;
    k * k / (4.0 * k * k - 1.0)
}

/// Gauss–Legendre nodes on `[0, 1]`, increasing.
fn gauss_nodes(n: usize) -> Vec<f64> {
    let off: Vec<f64> = (1..n).map(|k| beta(k).sqrt()).collect();
    tridiagonal_eigenvalues(&vec![0.0; n], &off)
        .into_iter()
        .map(|x| (polish(x, |x| legendre(n, x)) + 1.0) / 2.0)
        .collect()
}

/// Radau IIA nodes (right Gauss–Radau, fixed node at τ = 1) on `[0, 1]`, increasing.
fn radau_right_nodes(n: usize) -> Vec<f64> {
    // Golub (1973): replace the last diagonal entry of the Jacobi matrix by
    // 1 − β_{n−1} p_{n−2}(1) / p_{n−1}(1) with the monic polynomials p_k.
    let (mut pm, mut p) = (0.0, 1.0); // p_{-1}(1), p_0(1)
    for k in 1..n {
        let next = if k >= 2 { p - beta(k - 1) * pm } else { p };
        pm = p;
        p = next;
    }
    // Now p = p_{n-1}(1), pm = p_{n-2}(1) (0 for n = 1).
    let mut diag = vec![0.0; n];
    diag[n - 1] = if n >= 2 {
        1.0 - beta(n - 1) * pm / p
    } else {
        1.0
    };
    let off: Vec<f64> = (1..n).map(|k| beta(k).sqrt()).collect();
    let ev = tridiagonal_eigenvalues(&diag, &off);
    let mut c: Vec<f64> = ev[..n - 1]
        .iter()
        .map(|&x| {
            let x = polish(x, |x| {
                let (a, da) = legendre(n, x);
                let (b, db) = legendre(n - 1, x);
                (a - b, da - db)
            });
            (x + 1.0) / 2.0
        })
        .collect();
    c.push(1.0);
    c
}

/// The `m`-point Gauss–Legendre rule on `[0, 1]`: nodes and weights.
fn gauss_rule_01(m: usize) -> (Vec<f64>, Vec<f64>) {
    let x = gauss_nodes(m);
    let w = x
        .iter()
        .map(|&t| {
            let xs = 2.0 * t - 1.0;
            let (_, d) = legendre(m, xs);
            // Weight on [-1, 1] is 2 / ((1 − x²) P_m'(x)²); on [0, 1] half of it.
            1.0 / ((1.0 - xs * xs) * d * d)
        })
        .collect();
    (x, w)
}

/// `∫_lo^hi f` with a Gauss rule on `[0, 1]` (exact for the polynomials used here).
fn integrate(f: impl Fn(f64) -> f64, lo: f64, hi: f64, qx: &[f64], qw: &[f64]) -> f64 {
    let len = hi - lo;
    qx.iter()
        .zip(qw)
        .map(|(&x, &w)| w * f(lo + len * x))
        .sum::<f64>()
        * len
}

/// The Lagrange basis polynomial `j` on `nodes`, at `t`.
fn lagrange(nodes: &[f64], j: usize, t: f64) -> f64 {
    nodes
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != j)
        .map(|(_, &ck)| (t - ck) / (nodes[j] - ck))
        .product()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn legendre_recurrence() {
        let (p, d) = legendre(3, 0.3);
        assert!(close(p, 0.5 * (5.0 * 0.027 - 0.9), 1e-15));
        assert!(close(d, 0.5 * (15.0 * 0.09 - 3.0), 1e-15));
    }

    #[test]
    fn gauss_rule_integrates_polynomials() {
        let (x, w) = gauss_rule_01(12);
        let s: f64 = x.iter().zip(&w).map(|(x, w)| w * x.powi(20)).sum();
        assert!(close(s, 1.0 / 21.0, 1e-15));
    }

    #[test]
    fn integral_form_radau1() {
        let t = ButcherTableau::new(RkScheme::RadauIia, 1).unwrap();
        let f = t.integral_form();
        assert!(close(f.c_mat[0][0], -1.0, 1e-15) && close(f.c_mat[1][0], 1.0, 1e-15));
        assert!(close(f.d[0], 0.0, 1e-15) && close(f.d[1], 1.0, 1e-15));
        assert!(close(f.b[0], 0.5, 1e-15) && close(f.b[1], 0.5, 1e-15));
    }

    #[test]
    fn rejects_bad_stage_counts() {
        assert!(ButcherTableau::new(RkScheme::RadauIia, 0).is_err());
        assert!(ButcherTableau::new(RkScheme::GaussLegendre, 10).is_err());
        assert!(ButcherTableau::new(RkScheme::ImplicitEuler, 2).is_err());
    }
}
