//! The data of the interior-point solver: the [`Ipm`] with its work space, iterate and
//! algorithm state, the start of a solve, the state of the adaptive barrier update and the
//! nested solver of the restoration phase. The algorithms are `impl Ipm` blocks in the other
//! files of `ipm/` (entry points and main loop in `mod.rs`).

use super::resto_nlp::RestoData;
use crate::solver::kkt::Kkt;
use crate::solver::settings::Settings;
use crate::solver::status::Info;
use std::io::Write;
use std::time::Instant;

/// How to start a solve.
#[derive(Clone, Copy, Debug)]
pub enum IpmStart<'a> {
    /// Cold start from [`Nlp::initial_point`](crate::solver::Nlp::initial_point).
    Initial,
    /// Cold start from the given primal point.
    Primal(&'a [f64]),
    /// Warm start from a previous primal-dual solution (unscaled multipliers, as returned in
    /// [`Solution`](super::Solution)).
    Warm {
        /// Primal point (n).
        x: &'a [f64],
        /// Constraint multipliers (m).
        lambda: &'a [f64],
        /// Lower-bound multipliers (n).
        z_l: &'a [f64],
        /// Upper-bound multipliers (n).
        z_u: &'a [f64],
    },
}

/// Early-exit hook: called with the primal iterate and its unscaled constraint violation
/// (max norm of `g − s`) after every accepted step; returning `true` stops the solve with
/// [`Status::UserStop`](crate::solver::Status::UserStop).
pub(crate) type Hook<'h> = &'h mut dyn FnMut(&[f64], f64) -> bool;

/// The interior-point solver with all its work space, built once per problem structure.
pub struct Ipm {
    pub(super) settings: Settings,
    pub(super) n: usize,
    pub(super) m: usize,
    pub(super) nnz_j: usize,
    pub(super) nnz_h: usize,
    pub(super) jac_row: Vec<u32>,
    pub(super) jac_col: Vec<u32>,
    // bounds (constraint bounds scaled)
    pub(super) xl: Vec<f64>,
    pub(super) xu: Vec<f64>,
    pub(super) has_xl: Vec<bool>,
    pub(super) has_xu: Vec<bool>,
    pub(super) fixed: Vec<bool>,
    pub(super) gl: Vec<f64>,
    pub(super) gu: Vec<f64>,
    pub(super) is_eq: Vec<bool>,
    pub(super) has_sl: Vec<bool>,
    pub(super) has_su: Vec<bool>,
    // scaling
    pub(super) obj_scale: f64,
    pub(super) con_scale: Vec<f64>,
    // iterate
    pub(super) x: Vec<f64>,
    pub(super) s: Vec<f64>,
    pub(super) y: Vec<f64>,
    pub(super) zl: Vec<f64>,
    pub(super) zu: Vec<f64>,
    pub(super) vl: Vec<f64>,
    pub(super) vu: Vec<f64>,
    pub(super) f: f64,
    pub(super) grad: Vec<f64>,
    pub(super) g: Vec<f64>,
    pub(super) jac: Vec<f64>,
    pub(super) hess: Vec<f64>,
    pub(super) lam_cb: Vec<f64>,
    // residuals
    pub(super) rx: Vec<f64>,
    pub(super) rc: Vec<f64>,
    // direction
    pub(super) dx: Vec<f64>,
    pub(super) ds: Vec<f64>,
    pub(super) dy: Vec<f64>,
    pub(super) dzl: Vec<f64>,
    pub(super) dzu: Vec<f64>,
    pub(super) dvl: Vec<f64>,
    pub(super) dvu: Vec<f64>,
    // trial
    pub(super) xt: Vec<f64>,
    pub(super) st: Vec<f64>,
    pub(super) gt: Vec<f64>,
    pub(super) ft: f64,
    // KKT
    pub(super) kkt: Kkt,
    pub(super) rhs: Vec<f64>,
    pub(super) sol: Vec<f64>,
    pub(super) sol_save: Vec<f64>,
    pub(super) soc_alpha: f64,
    pub(super) fact_start: usize,
    pub(super) diag_x: Vec<f64>,
    pub(super) diag_c: Vec<f64>,
    pub(super) bs: Vec<f64>,
    pub(super) sig_s: Vec<f64>,
    pub(super) csoc: Vec<f64>,
    // algorithm state
    pub(super) mu: f64,
    pub(super) delta_w: f64,
    pub(super) last_delta_w: f64,
    pub(super) reg_c: f64,
    pub(super) filter: Vec<(f64, f64)>,
    pub(super) theta_max: f64,
    pub(super) theta_min: f64,
    /// Consecutive iterations whose last rejected trial point was rejected by the filter
    /// (IPOPT's filter-reset heuristic, `filter_reset_trigger`).
    pub(super) filter_rejections: usize,
    /// Filter resets done in this solve (at most `Settings::max_filter_resets`).
    pub(super) filter_resets: usize,
    /// Relative residual of the last KKT solve after iterative refinement.
    pub(super) kkt_residual: f64,
    pub(super) info: Info,
    // outputs
    pub(super) out_lambda: Vec<f64>,
    pub(super) out_zl: Vec<f64>,
    pub(super) out_zu: Vec<f64>,
    pub(super) out_g: Vec<f64>,
    // restoration
    pub(super) is_restoration: bool,
    pub(super) resto: Option<Box<Restoration>>,
    pub(super) log: Option<Box<dyn Write + Send>>,
    pub(super) log_prefix: &'static str,
    pub(super) start_time: Instant,
    /// The best iterate of the last solve that met the acceptable tolerances
    /// ([`Ipm::best_acceptable`]).
    pub(super) best: Snapshot,
}

/// An iterate kept by a solve ([`Ipm`]'s `best`): the point, its multipliers and the values
/// and derivatives that `finish` reads, so that it can be made the solution after the solve
/// ([`Ipm::use_best_acceptable`]).
pub(crate) struct Snapshot {
    pub(super) valid: bool,
    /// Scaled KKT error of the kept point.
    pub(super) error: f64,
    /// Iteration of the kept point.
    pub(super) iter: usize,
    pub(super) f: f64,
    pub(super) mu: f64,
    pub(super) x: Vec<f64>,
    pub(super) s: Vec<f64>,
    pub(super) y: Vec<f64>,
    pub(super) zl: Vec<f64>,
    pub(super) zu: Vec<f64>,
    pub(super) vl: Vec<f64>,
    pub(super) vu: Vec<f64>,
    pub(super) g: Vec<f64>,
    pub(super) grad: Vec<f64>,
    pub(super) jac: Vec<f64>,
}

impl Snapshot {
    pub(super) fn new(n: usize, m: usize, nnz_j: usize) -> Snapshot {
        let v = |k: usize| vec![0.0; k];
        Snapshot {
            valid: false,
            error: f64::INFINITY,
            iter: 0,
            f: 0.0,
            mu: 0.0,
            x: v(n),
            s: v(m),
            y: v(m),
            zl: v(n),
            zu: v(n),
            vl: v(m),
            vu: v(m),
            g: v(m),
            grad: v(n),
            jac: v(nnz_j),
        }
    }
}

/// State of the adaptive barrier strategy.
#[derive(Default)]
pub(crate) struct AdaptiveState {
    pub(super) fixed_mode: bool,
    pub(super) recent: [f64; 4],
    pub(super) count: usize,
    pub(super) switch_error: f64,
}

/// The restoration solver and its problem data.
pub(crate) struct Restoration {
    pub(super) ipm: Ipm,
    pub(super) data: RestoData,
}
