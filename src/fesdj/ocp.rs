//! The optimal control problem of §4.1 (P-32) that [`transcribe`](super::transcribe) discretises:
//! a [`ClsModel`], the initial state, costs (§4.3) and constraints (§4.4).

use crate::ad::Sx;

use super::cls::ClsModel;
use super::error::FesdjError;

/// Running cost `L(q, v, u)`, integrated by RK quadrature with the weights `b_j` (§4.3).
pub type StageCostFn = Box<dyn Fn(&[Sx], &[Sx], &[Sx]) -> Sx>;
/// Mayer term `L_T(q, v)` at the final state.
pub type TerminalCostFn = Box<dyn Fn(&[Sx], &[Sx]) -> Sx>;
/// Path constraint function `g_path(q, v, u)`.
pub type PathFn = Box<dyn Fn(&[Sx], &[Sx], &[Sx]) -> Vec<Sx>>;
/// Terminal constraint function `g_T(q, v)`.
pub type TerminalFn = Box<dyn Fn(&[Sx], &[Sx]) -> Vec<Sx>>;

/// Lower and upper bounds of a vector.
#[derive(Clone, Debug, PartialEq)]
pub struct Bounds {
    /// Lower bounds (`-inf` allowed).
    pub lb: Vec<f64>,
    /// Upper bounds (`+inf` allowed).
    pub ub: Vec<f64>,
}

impl Bounds {
    /// Box `[lb, ub]`.
    pub fn new(lb: Vec<f64>, ub: Vec<f64>) -> Bounds {
        Bounds { lb, ub }
    }
    /// `[-b, b]` componentwise.
    pub fn symmetric(b: &[f64]) -> Bounds {
        Bounds {
            lb: b.iter().map(|x| -x).collect(),
            ub: b.to_vec(),
        }
    }
    /// Equality `= 0` for `n` rows.
    pub fn zero(n: usize) -> Bounds {
        Bounds {
            lb: vec![0.0; n],
            ub: vec![0.0; n],
        }
    }
    fn check(&self, field: &str, n: usize) -> Result<(), FesdjError> {
        for (what, v) in [("lb", &self.lb), ("ub", &self.ub)] {
            if v.len() != n {
                return Err(FesdjError::Dimension {
                    what: format!("{field}.{what}"),
                    expected: n,
                    got: v.len(),
                });
            }
        }
        for (i, (l, u)) in self.lb.iter().zip(&self.ub).enumerate() {
            if l.is_nan() || u.is_nan() || l > u {
                return Err(FesdjError::Problem {
                    field: format!("{field}[{i}]"),
                    why: format!("needs lb ≤ ub, got [{l}, {u}]"),
                });
            }
        }
        Ok(())
    }
}

/// Least-squares tracking (§4.3, nosnoc `lsq_x`, `lsq_u`, `lsq_T`) with diagonal weights:
/// `Σ_k (T/N) [‖x_{k,end} − x^ref_k‖²_Q + ‖û_k − u^ref_k‖²_R] + (T/N) ‖x(T) − x^ref_T‖²_{Q_T}`.
///
/// The references are NLP **parameters** (one per interval, see
/// [`ParamLayout`](super::layout::ParamLayout)) so that MPC can change them without
/// rebuilding; the values here are the defaults written into `p0`.
#[derive(Clone, Debug, PartialEq)]
pub struct LsqTracking {
    /// Diagonal of `Q` (`n_x = 2 n_q`, order `(q, v)`).
    pub q_weight: Vec<f64>,
    /// Diagonal of `R` (`n_u`).
    pub r_weight: Vec<f64>,
    /// Diagonal of `Q_T` (`n_x`).
    pub q_terminal: Vec<f64>,
    /// Default state reference (`n_x`), used for every interval.
    pub x_ref: Vec<f64>,
    /// Default control reference (`n_u`).
    pub u_ref: Vec<f64>,
    /// Default terminal reference (`n_x`).
    pub x_ref_terminal: Vec<f64>,
}

/// Constraint function with bounds.
pub struct Constraint<F> {
    /// The function.
    pub fun: F,
    /// Its bounds (length = number of outputs).
    pub bounds: Bounds,
}

/// Periodicity **[ours]** (formulation §10.9): `x(T) = A x(0) + s`, where `A` is the
/// identity except on the planar rotations, and the components of `x(0)` marked `free` are
/// decision variables (within the `q`/`v` boxes) instead of fixed at `x0`. A gait over one
/// period: the state at `T` equals the state at `0` moved by the travelled distance and turned
/// by the travelled heading.
#[derive(Clone, Debug, PartialEq)]
pub struct Periodic {
    /// `s` (`2 n_q`, order `(q, v)`).
    pub shift: Vec<f64>,
    /// Which components of `x(0)` are free (`2 n_q`); the others stay at `x0`.
    pub free: Vec<bool>,
    /// Planar rotations `(i, j, θ)`: `(x_i, x_j)(T) = R(θ) (x_i, x_j)(0) + (s_i, s_j)`, e.g.
    /// the horizontal base velocities of a gait that turns by `θ` per period.
    pub rotations: Vec<(usize, usize, f64)>,
}

impl Periodic {
    /// Row `i` of `A`: `(column, coefficient)` pairs (one, or two on a rotation).
    pub fn row(&self, i: usize) -> Vec<(usize, f64)> {
        for &(a, b, th) in &self.rotations {
            if i == a {
                return vec![(a, th.cos()), (b, -th.sin())];
            }
            if i == b {
                return vec![(a, th.sin()), (b, th.cos())];
            }
        }
        vec![(i, 1.0)]
    }
}

/// An optimal control problem for a CLS over `[0, T]` (the horizon and discretisation are in
/// [`FesdjOptions`](super::options::FesdjOptions)).
pub struct Ocp {
    /// The model.
    pub model: ClsModel,
    /// Initial state `x_0 = (q_0, v_0)` (`2 n_q`); changeable later through
    /// [`Transcription::set_initial_state`](super::Transcription::set_initial_state).
    pub x0: Vec<f64>,
    /// Running cost `L(q, v, u)`.
    pub lagrange: Option<StageCostFn>,
    /// Mayer term `L_T(q, v)`.
    pub mayer: Option<TerminalCostFn>,
    /// Least-squares tracking with references as parameters.
    pub lsq: Option<LsqTracking>,
    /// Box on `û_k`.
    pub u_bounds: Option<Bounds>,
    /// Box on `q` (at element boundaries and stage points, see `x_box_at_fe/stg`).
    pub q_bounds: Option<Bounds>,
    /// Box on `v`.
    pub v_bounds: Option<Bounds>,
    /// Path constraints `lb ≤ g_path(q, v, u) ≤ ub` at the end of every control interval (and
    /// at element ends / stage points with `g_path_at_fe` / `g_path_at_stg`).
    pub path: Option<Constraint<PathFn>>,
    /// Terminal constraints `lb ≤ g_T(q(T), v(T)) ≤ ub`.
    pub terminal: Option<Constraint<TerminalFn>>,
    /// Periodicity `x(T) = A x(0) + s` with a partly free `x(0)`.
    pub periodic: Option<Periodic>,
}

impl Ocp {
    /// A problem with no cost and no constraints beyond the dynamics (e.g. simulation).
    pub fn new(model: ClsModel, x0: Vec<f64>) -> Ocp {
        Ocp {
            model,
            x0,
            lagrange: None,
            mayer: None,
            lsq: None,
            u_bounds: None,
            q_bounds: None,
            v_bounds: None,
            path: None,
            terminal: None,
            periodic: None,
        }
    }

    /// Check dimensions and bounds; errors name the field.
    pub fn validate(&self) -> Result<(), FesdjError> {
        let (n_q, n_u) = (self.model.n_q(), self.model.n_u());
        let dim = |what: &str, expected: usize, got: usize| -> Result<(), FesdjError> {
            if expected == got {
                Ok(())
            } else {
                Err(FesdjError::Dimension {
                    what: what.to_string(),
                    expected,
                    got,
                })
            }
        };
        dim("x0", 2 * n_q, self.x0.len())?;
        if let Some(i) = self.x0.iter().position(|x| !x.is_finite()) {
            return Err(FesdjError::Problem {
                field: format!("x0[{i}]"),
                why: "must be finite".into(),
            });
        }
        if let Some(b) = &self.u_bounds {
            b.check("u_bounds", n_u)?;
        }
        if let Some(b) = &self.q_bounds {
            b.check("q_bounds", n_q)?;
        }
        if let Some(b) = &self.v_bounds {
            b.check("v_bounds", n_q)?;
        }
        if let Some(l) = &self.lsq {
            dim("lsq.q_weight", 2 * n_q, l.q_weight.len())?;
            dim("lsq.r_weight", n_u, l.r_weight.len())?;
            dim("lsq.q_terminal", 2 * n_q, l.q_terminal.len())?;
            dim("lsq.x_ref", 2 * n_q, l.x_ref.len())?;
            dim("lsq.u_ref", n_u, l.u_ref.len())?;
            dim("lsq.x_ref_terminal", 2 * n_q, l.x_ref_terminal.len())?;
        }
        if let Some(c) = &self.path {
            let q = Sx::sym_vec("q", n_q);
            let v = Sx::sym_vec("v", n_q);
            let u = Sx::sym_vec("u", n_u);
            let n = (c.fun)(&q, &v, &u).len();
            c.bounds.check("path.bounds", n)?;
        }
        if let Some(c) = &self.terminal {
            let q = Sx::sym_vec("q", n_q);
            let v = Sx::sym_vec("v", n_q);
            let n = (c.fun)(&q, &v).len();
            c.bounds.check("terminal.bounds", n)?;
        }
        if let Some(p) = &self.periodic {
            dim("periodic.shift", 2 * n_q, p.shift.len())?;
            dim("periodic.free", 2 * n_q, p.free.len())?;
            if let Some(i) = p.shift.iter().position(|x| !x.is_finite()) {
                return Err(FesdjError::Problem {
                    field: format!("periodic.shift[{i}]"),
                    why: "must be finite".into(),
                });
            }
            let mut seen = vec![false; 2 * n_q];
            for (r, &(a, b, th)) in p.rotations.iter().enumerate() {
                let bad = a >= 2 * n_q || b >= 2 * n_q || a == b || seen[a] || seen[b];
                if bad || !th.is_finite() {
                    return Err(FesdjError::Problem {
                        field: format!("periodic.rotations[{r}]"),
                        why: format!(
                            "needs two different state indices below {} that no other \
                             rotation uses, and a finite angle; got ({a}, {b}, {th})",
                            2 * n_q
                        ),
                    });
                }
                seen[a] = true;
                seen[b] = true;
            }
        }
        Ok(())
    }
}
