//! Projection of a measured configuration onto the contact-admissible set `f_c(q) ≥ 0`
//! **[ours]**.
//!
//! A real plant's state estimate penetrates its contacts a little (MuJoCo's soft contacts by
//! tenths of a millimetre, noise on a resting foot). The FESD-J problem fixes the initial state,
//! and at the horizon's first element the lifted left-boundary gap `Y_0 = f_c(q_0) ≥ 0` and the
//! gap constraint (18) involve nothing but that state: a penetrating `q_0` makes the problem
//! infeasible (on the hopper a gap of −3·10⁻⁵ m turns a 30-iteration solve into 13,000
//! iterations without a plan). The controller therefore plans from the nearest admissible
//! configuration: the least-norm correction `Δq` with `f_A(q + Δq) = 0` on the violated gaps
//! `A` (Gauss–Newton on the optimality conditions: at the iterate `q_k` the linearised
//! constraint gives `q_{k+1} = q + J_Aᵀ λ`, `J_A J_Aᵀ λ = −f_A(q_k) − J_A (q − q_k)`, with `J_A`
//! at `q_k`). Velocities are kept.

use crate::ad::{gradient_sx, Function, Sx, Workspace};
use crate::fesdj::ClsModel;

use super::error::MpcError;

/// Gauss–Newton iterations of one projection.
const MAX_ITERATIONS: usize = 8;
/// Gaps above `-TOLERANCE` count as admissible.
const TOLERANCE: f64 = 1e-12;

/// The gap projection of a model, with every buffer sized once.
pub struct GapProjection {
    f: Function,
    ws: Workspace,
    n_q: usize,
    n_c: usize,
    /// `f_c(q)` (`n_c`) and the gradients `∇f_c^ℓ` (`n_c × n_q`, row ℓ).
    gaps: Vec<f64>,
    grad: Vec<f64>,
    active: Vec<usize>,
    in_active: Vec<bool>,
    /// The measured configuration and the last iterate.
    q0: Vec<f64>,
    qk: Vec<f64>,
    /// `J_A J_Aᵀ` (dense, `n_c × n_c` storage) and the right-hand side / multipliers.
    a: Vec<f64>,
    rhs: Vec<f64>,
    max_penetration: f64,
}

impl std::fmt::Debug for GapProjection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GapProjection")
            .field("n_q", &self.n_q)
            .field("n_c", &self.n_c)
            .field("max_penetration", &self.max_penetration)
            .finish_non_exhaustive()
    }
}

impl GapProjection {
    /// Compile `f_c` and its gradient for `model`. A measured penetration deeper than
    /// `max_penetration` (m or rad, per gap) is not corrected but refused as bad input.
    pub fn new(model: &ClsModel, max_penetration: f64) -> Result<GapProjection, MpcError> {
        if !(max_penetration.is_finite() && max_penetration > 0.0) {
            return Err(MpcError::Settings {
                field: "max_penetration".into(),
                why: format!("must be finite and > 0, got {max_penetration}"),
            });
        }
        let (n_q, n_c) = (model.n_q(), model.n_c());
        let q = Sx::sym_vec("q", n_q);
        let f = model.gaps(&q)?;
        let mut grad = Vec::with_capacity(n_c * n_q);
        for &fl in &f {
            grad.extend(gradient_sx(fl, &q));
        }
        let func = Function::new("gap_projection", &[&q], &[&f, &grad])
            .map_err(crate::fesdj::FesdjError::from)?;
        let ws = func.workspace();
        Ok(GapProjection {
            f: func,
            ws,
            n_q,
            n_c,
            gaps: vec![0.0; n_c],
            grad: vec![0.0; n_c * n_q],
            active: Vec::with_capacity(n_c),
            in_active: vec![false; n_c],
            q0: vec![0.0; n_q],
            qk: vec![0.0; n_q],
            a: vec![0.0; n_c * n_c],
            rhs: vec![0.0; n_c],
            max_penetration,
        })
    }

    fn eval(&mut self, q: &[f64]) -> Result<(), MpcError> {
        self.f
            .eval(
                &[q],
                &mut [self.gaps.as_mut_slice(), self.grad.as_mut_slice()],
                &mut self.ws,
            )
            .map_err(|e| MpcError::BadInput {
                what: "q".into(),
                why: format!("cannot evaluate the contact gaps: {e}"),
            })
    }

    /// Move `q` (length `n_q`) onto `f_c(q) ≥ 0` if it penetrates. Returns the deepest
    /// penetration found (0 if none); `q` is unchanged when it is 0 and on error. No allocation.
    pub fn project(&mut self, q: &mut [f64]) -> Result<f64, MpcError> {
        if q.len() != self.n_q {
            return Err(MpcError::BadInput {
                what: "q".into(),
                why: format!("expected {} values, got {}", self.n_q, q.len()),
            });
        }
        self.eval(q)?;
        let deepest = self.gaps.iter().fold(0.0f64, |m, &g| m.max(-g));
        if deepest <= TOLERANCE {
            return Ok(0.0);
        }
        if deepest > self.max_penetration {
            let l = self
                .gaps
                .iter()
                .position(|&g| -g == deepest)
                .unwrap_or_default();
            return Err(MpcError::BadInput {
                what: "q".into(),
                why: format!(
                    "contact {l} penetrates by {deepest:.3e}, more than max_penetration {:.3e}",
                    self.max_penetration
                ),
            });
        }
        self.q0.copy_from_slice(q);
        self.qk.copy_from_slice(q);
        self.in_active.fill(false);
        for _ in 0..MAX_ITERATIONS {
            // The gaps violated at the measurement or at any iterate are held at 0.
            self.active.clear();
            for (l, &g) in self.gaps.iter().enumerate() {
                self.in_active[l] |= g < -TOLERANCE;
                if self.in_active[l] {
                    self.active.push(l);
                }
            }
            let (n, n_q) = (self.active.len(), self.n_q);
            for (r, &i) in self.active.iter().enumerate() {
                let gi = &self.grad[i * n_q..(i + 1) * n_q];
                for (c, &j) in self.active.iter().enumerate() {
                    let gj = &self.grad[j * n_q..(j + 1) * n_q];
                    self.a[r * n + c] = gi.iter().zip(gj).map(|(x, y)| x * y).sum();
                }
                // −f_i(q_k) − ∇f_i(q_k)·(q0 − q_k)
                let lin: f64 = gi
                    .iter()
                    .zip(self.q0.iter().zip(q.iter()))
                    .map(|(g, (a, b))| g * (a - b))
                    .sum();
                self.rhs[r] = -self.gaps[i] - lin;
            }
            if !solve_spd(&mut self.a[..n * n], &mut self.rhs[..n], n) {
                q.copy_from_slice(&self.q0);
                return Err(MpcError::BadInput {
                    what: "q".into(),
                    why: "penetrating contacts with dependent gap gradients: no correction".into(),
                });
            }
            q.copy_from_slice(&self.q0);
            for (r, &i) in self.active.iter().enumerate() {
                let lam = self.rhs[r];
                for (qk, gk) in q.iter_mut().zip(&self.grad[i * n_q..(i + 1) * n_q]) {
                    *qk += lam * gk;
                }
            }
            // Converged when the new iterate did not move (to round-off) from the last one,
            // which then satisfies the linearised conditions at itself.
            let moved = q
                .iter()
                .zip(&self.qk)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f64, f64::max);
            self.qk.copy_from_slice(q);
            self.eval(q)?;
            let scale = 1.0 + q.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            if moved <= 1e-14 * scale && self.gaps.iter().all(|&g| g >= -TOLERANCE) {
                break;
            }
        }
        if let Some(l) = self.gaps.iter().position(|&g| g < -1e-9) {
            let g = self.gaps[l];
            q.copy_from_slice(&self.q0);
            return Err(MpcError::BadInput {
                what: "q".into(),
                why: format!("no admissible configuration found near it (gap {l} at {g:.3e})"),
            });
        }
        Ok(deepest)
    }
}

/// Solve `A x = b` in place for a symmetric positive definite `A` (`n × n`, row-major) by
/// Cholesky; false if `A` is not positive definite.
fn solve_spd(a: &mut [f64], b: &mut [f64], n: usize) -> bool {
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if d.is_nan() || d <= 1e-300 {
            return false;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= a[i * n + k] * b[k];
        }
        b[i] = s / a[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= a[k * n + i] * b[k];
        }
        b[i] = s / a[i * n + i];
    }
    true
}
