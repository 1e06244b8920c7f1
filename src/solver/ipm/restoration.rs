//! Feasibility restoration phase (Wächter & Biegler 2006, §3.3).
//!
//! When the filter line search finds no acceptable step, the solver minimises the constraint
//! violation
//! ```text
//! min_{x, p, n}  ρ Σ (p_i + n_i) + ζ/2 ‖D_R (x − x̄)‖²
//! s.t.  g_L <= g(x) − p + n <= g_U,  x_L <= x <= x_U,  p, n >= 0
//! ```
//! (ρ = 1000, ζ = √μ, D_R = diag(min(1, 1/|x̄_j|))) with a second instance of the same
//! interior-point method, stopped as soon as its iterate is acceptable to the original filter
//! and has reduced the violation by 10 %. If it instead converges with a violation above
//! `constr_viol_tol`, the problem is reported locally infeasible. The restoration solver and
//! its work space are built on first use and kept.

use super::init::{eval_fg, push_into};
use super::resto_nlp::{RestoData, RestoNlp, RHO};
use super::state::{Ipm, IpmStart, Restoration};
use crate::solver::error::SolverError;
use crate::solver::nlp::Nlp;
use crate::solver::settings::Settings;
use crate::solver::status::Status;

const KAPPA_RESTO: f64 = 0.9;

/// Settings of the restoration IPM derived from the outer solver's.
fn resto_settings(outer: &Settings) -> Settings {
    Settings {
        restoration: false,
        scaling: false,
        ..outer.clone()
    }
}

impl Restoration {
    /// Work space of the restoration phase for `inner` (built with the outer [`Ipm`], so that
    /// a first restoration late in a solve, e.g. in an MPC tick, allocates nothing).
    pub(super) fn new(inner: &dyn Nlp, outer: &Settings) -> Result<Restoration, SolverError> {
        let data = RestoData::new(inner)?;
        let settings = resto_settings(outer);
        let mut ipm = Ipm::new(&RestoNlp { inner, d: &data }, settings)?;
        ipm.is_restoration = true;
        ipm.log_prefix = "  [resto] ";
        Ok(Restoration { ipm, data })
    }
}

impl Ipm {
    /// Run the restoration phase from the current point. `Ok` means a point acceptable to the
    /// filter was found and is now the current iterate (derivatives not yet evaluated).
    pub(super) fn restoration_phase(&mut self, nlp: &dyn Nlp, p: &[f64]) -> Result<(), Status> {
        let theta_r = self.theta_of(false);
        let phi = self.barrier_of(false);
        self.augment_filter(theta_r, phi);
        let mut resto = match self.resto.take() {
            Some(mut r) => {
                // the current outer settings (no heap fields: the copy allocates nothing)
                r.ipm.settings = resto_settings(&self.settings);
                r
            }
            None => {
                Box::new(Restoration::new(nlp, &self.settings).map_err(|_| Status::NumericalError)?)
            }
        };
        let (n, m) = (self.n, self.m);
        {
            let d = &mut resto.data;
            d.xref.copy_from_slice(&self.x);
            for j in 0..n {
                d.dr[j] = (1.0 / self.x[j].abs()).min(1.0);
            }
            d.zeta = self.mu.sqrt();
            let mut cmax = 0.0f64;
            for i in 0..m {
                cmax = cmax.max((self.rc[i] / self.con_scale[i]).abs());
            }
            let mu_r = self.mu.max(cmax);
            for i in 0..m {
                let c = self.rc[i] / self.con_scale[i];
                let a = (mu_r - RHO * c) / (2.0 * RHO);
                let nn = a + (a * a + mu_r * c / (2.0 * RHO)).sqrt();
                d.n0[i] = nn.max(1e-12);
                d.p0[i] = (c + nn).max(1e-12);
            }
            let used = self.info.iterations;
            let st = &mut resto.ipm.settings;
            st.mu_init = mu_r;
            st.max_iter = self.settings.max_iter.saturating_sub(used).max(1);
            st.max_wall_time = (self.settings.max_wall_time - self.elapsed()).max(1e-6);
        }
        let Restoration { ipm: ripm, data } = &mut *resto;
        let rnlp = RestoNlp {
            inner: nlp,
            d: data,
        };
        let status = {
            let mut hook =
                |xr: &[f64], _: f64| -> bool { self.resto_accepts(nlp, p, &xr[..n], theta_r) };
            ripm.solve_impl(&rnlp, p, IpmStart::Initial, Some(&mut hook))
        };
        self.info.iterations += ripm.info.iterations;
        self.info.restoration_iterations += ripm.info.iterations;
        self.info.evaluations += ripm.info.evaluations;
        self.info.timers.add_phases(&ripm.info.timers);
        self.resto = Some(resto);
        match status {
            Status::UserStop => {
                // the trial buffers hold the accepted point
                std::mem::swap(&mut self.x, &mut self.xt);
                std::mem::swap(&mut self.s, &mut self.st);
                std::mem::swap(&mut self.g, &mut self.gt);
                self.f = self.ft;
                self.reset_bound_multipliers();
                if !self.eval_derivatives(nlp, p) {
                    return Err(Status::EvaluationError);
                }
                self.least_squares_multipliers();
                Ok(())
            }
            Status::Solved | Status::Acceptable => {
                // converged without becoming acceptable: infeasible if still violated
                let x = self.resto.as_ref().map(|r| &r.ipm.x[..n]);
                if let Some(x) = x {
                    self.xt.copy_from_slice(x);
                }
                let viol = match eval_fg(nlp, p, &self.xt, 1.0, &self.con_scale, &mut self.gt) {
                    Some(_) => self.unscaled_bound_violation(),
                    None => f64::INFINITY,
                };
                if viol > self.settings.constr_viol_tol {
                    Err(Status::Infeasible)
                } else {
                    Err(Status::RestorationFailed)
                }
            }
            Status::MaxIterations | Status::MaxTime | Status::EvaluationError => Err(status),
            _ => Err(Status::RestorationFailed),
        }
    }

    /// Max violation of `g_L <= g <= g_U` by the values in `gt` (scaled), unscaled.
    fn unscaled_bound_violation(&self) -> f64 {
        let mut v = 0.0f64;
        for i in 0..self.m {
            let c = self.con_scale[i];
            v = v
                .max((self.gl[i] - self.gt[i]) / c)
                .max((self.gt[i] - self.gu[i]) / c);
        }
        v
    }

    /// Early-exit test of the restoration phase at its primal iterate `x`.
    fn resto_accepts(&mut self, nlp: &dyn Nlp, p: &[f64], x: &[f64], theta_r: f64) -> bool {
        self.xt.copy_from_slice(x);
        let Some(f) = eval_fg(
            nlp,
            p,
            &self.xt,
            self.obj_scale,
            &self.con_scale,
            &mut self.gt,
        ) else {
            return false;
        };
        self.ft = f;
        for i in 0..self.m {
            self.st[i] = if self.is_eq[i] {
                self.gl[i]
            } else {
                push_into(
                    self.gt[i],
                    self.gl[i],
                    self.gu[i],
                    self.has_sl[i],
                    self.has_su[i],
                    1e-8,
                    1e-8,
                )
            };
        }
        let theta = self.theta_of(true);
        let phi = self.barrier_of(true);
        let reduced =
            theta <= KAPPA_RESTO * theta_r || theta <= 1e-2 * self.settings.constr_viol_tol;
        reduced && self.acceptable_to_filter(theta, phi)
    }

    /// Bound multipliers set to `μ / slack` (used after restoration).
    fn reset_bound_multipliers(&mut self) {
        let mu = self.mu;
        for j in 0..self.n {
            self.zl[j] = if self.has_xl[j] {
                mu / (self.x[j] - self.xl[j])
            } else {
                0.0
            };
            self.zu[j] = if self.has_xu[j] {
                mu / (self.xu[j] - self.x[j])
            } else {
                0.0
            };
        }
        for i in 0..self.m {
            self.vl[i] = if self.has_sl[i] {
                mu / (self.s[i] - self.gl[i])
            } else {
                0.0
            };
            self.vu[i] = if self.has_su[i] {
                mu / (self.gu[i] - self.s[i])
            } else {
                0.0
            };
        }
    }
}
