//! Primal-dual interior-point method with a filter line search (Wächter & Biegler 2006).
//!
//! The problem `min f s.t. g_L <= g <= g_U, x_L <= x <= x_U` is solved through the barrier
//! problems
//! ```text
//! min φ_μ(x, s) = f(x) − μ Σ ln(x − x_L) − μ Σ ln(x_U − x) − μ Σ ln(s − g_L) − μ Σ ln(g_U − s)
//! s.t. g_E(x) = g_L,E,   g_I(x) − s = 0
//! ```
//! with slacks `s` for the inequality rows. Each iteration solves the reduced primal-dual
//! system of [`kkt`](super::kkt) with inertia correction, backtracks along the step with the
//! filter rules (second-order corrections included) and enters a feasibility-restoration phase
//! when no acceptable step exists. All work arrays are allocated by [`Ipm::new`]; an iteration
//! allocates nothing.

mod direction;
mod init;
mod linesearch;
mod log;
mod resto_nlp;
mod restoration;
mod state;

pub use state::{Ipm, IpmStart};

use super::error::SolverError;
use super::kkt::Kkt;
use super::nlp::{validate_nlp, Nlp};
use super::settings::Settings;
use super::status::{Info, Status};
use linesearch::Outcome;
use state::{AdaptiveState, Hook, Restoration, Snapshot};
use std::io::Write;
use std::time::Instant;

/// The final primal-dual point of a solve (unscaled; multipliers satisfy
/// `∇f + Jᵀλ − z_L + z_U = 0` at a KKT point).
#[derive(Clone, Copy, Debug)]
pub struct Solution<'a> {
    /// Primal solution.
    pub x: &'a [f64],
    /// Constraint values at `x`.
    pub g: &'a [f64],
    /// Constraint multipliers.
    pub lambda: &'a [f64],
    /// Lower-bound multipliers.
    pub z_l: &'a [f64],
    /// Upper-bound multipliers.
    pub z_u: &'a [f64],
    /// Objective value.
    pub objective: f64,
}

impl Ipm {
    /// Allocate the work space for `nlp` and analyse its KKT pattern.
    pub fn new(nlp: &dyn Nlp, settings: Settings) -> Result<Ipm, SolverError> {
        settings.validate()?;
        validate_nlp(nlp)?;
        let (n, m) = (nlp.n(), nlp.m());
        let jp = nlp.jacobian_pattern();
        let hp = nlp.hessian_pattern();
        let mut kkt = Kkt::with_method(hp, jp, settings.kkt_factorization.into())?;
        kkt.set_options(settings.kkt_equilibration, settings.kkt_gmres);
        let dim = kkt.dim();
        let mut jac_row = Vec::with_capacity(jp.nnz());
        let mut jac_col = Vec::with_capacity(jp.nnz());
        for (i, j) in jp.entries() {
            jac_row.push(i as u32);
            jac_col.push(j as u32);
        }
        let v = |k: usize| vec![0.0; k];
        let b = |k: usize| vec![false; k];
        let mut info = Info::default();
        info.history.reserve(settings.max_iter + 1);
        let log: Option<Box<dyn Write + Send>> = if settings.print {
            Some(Box::new(std::io::stderr()))
        } else {
            None
        };
        let resto = if settings.restoration {
            Some(Box::new(Restoration::new(nlp, &settings)?))
        } else {
            None
        };
        Ok(Ipm {
            n,
            m,
            nnz_j: jp.nnz(),
            nnz_h: hp.nnz(),
            jac_row,
            jac_col,
            xl: v(n),
            xu: v(n),
            has_xl: b(n),
            has_xu: b(n),
            fixed: b(n),
            gl: v(m),
            gu: v(m),
            is_eq: b(m),
            has_sl: b(m),
            has_su: b(m),
            obj_scale: 1.0,
            con_scale: vec![1.0; m],
            x: v(n),
            s: v(m),
            y: v(m),
            zl: v(n),
            zu: v(n),
            vl: v(m),
            vu: v(m),
            f: 0.0,
            grad: v(n),
            g: v(m),
            jac: v(jp.nnz()),
            hess: v(hp.nnz()),
            lam_cb: v(m),
            rx: v(n),
            rc: v(m),
            dx: v(n),
            ds: v(m),
            dy: v(m),
            dzl: v(n),
            dzu: v(n),
            dvl: v(m),
            dvu: v(m),
            xt: v(n),
            st: v(m),
            gt: v(m),
            ft: 0.0,
            kkt,
            rhs: v(dim),
            sol: v(dim),
            sol_save: v(dim),
            soc_alpha: 1.0,
            fact_start: 0,
            diag_x: v(n),
            diag_c: v(m),
            bs: v(m),
            sig_s: v(m),
            csoc: v(m),
            mu: settings.mu_init,
            delta_w: 0.0,
            last_delta_w: 0.0,
            reg_c: settings.dual_regularization,
            filter: Vec::with_capacity(2 * settings.max_iter + 16),
            theta_max: 0.0,
            theta_min: 0.0,
            filter_rejections: 0,
            filter_resets: 0,
            kkt_residual: 0.0,
            info,
            out_lambda: v(m),
            out_zl: v(n),
            out_zu: v(n),
            out_g: v(m),
            is_restoration: false,
            resto,
            log,
            log_prefix: "",
            start_time: Instant::now(),
            best: Snapshot::new(n, m, jp.nnz()),
            settings,
        })
    }

    /// Current settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Change settings between solves (validated; the history capacity grows if `max_iter` did).
    pub fn set_settings(&mut self, settings: Settings) -> Result<(), SolverError> {
        settings.validate()?;
        if settings.print && self.log.is_none() {
            self.log = Some(Box::new(std::io::stderr()));
        } else if !settings.print {
            self.log = None;
        }
        let need = settings.max_iter + 1;
        if self.info.history.capacity() < need {
            self.info.history.reserve(need);
        }
        if self.filter.capacity() < 2 * settings.max_iter + 16 {
            self.filter.reserve(2 * settings.max_iter + 16);
        }
        self.kkt
            .set_options(settings.kkt_equilibration, settings.kkt_gmres);
        self.kkt.set_method(settings.kkt_factorization.into());
        self.settings = settings;
        Ok(())
    }

    /// Send the iteration log to `w` (or switch it off with `None`).
    pub fn set_log_writer(&mut self, w: Option<Box<dyn Write + Send>>) {
        self.log = w;
    }

    /// Statistics of the last solve.
    pub fn info(&self) -> &Info {
        &self.info
    }

    /// The final point of the last solve.
    pub fn solution(&self) -> Solution<'_> {
        Solution {
            x: &self.x,
            g: &self.out_g,
            lambda: &self.out_lambda,
            z_l: &self.out_zl,
            z_u: &self.out_zu,
            objective: self.info.objective,
        }
    }

    /// The best iterate of the last solve that met the acceptable tolerances
    /// (`acceptable_tol`, `acceptable_constr_viol_tol`; least scaled KKT error, iterates of the
    /// restoration phase not counted), whatever the solve's status: its primal point and its
    /// scaled KKT error. `None` when no iterate met them.
    ///
    /// A solve that breaks down (restoration failure, numerical error, …) after such an
    /// iterate returns the point where it broke down; near the solution of a degenerate NLP
    /// (an MPCC's relaxation at tiny σ) the last steps stall at rounding level and end in a
    /// restoration phase that cannot improve on a point the solver had already reached. The
    /// caller may judge that point by its own test and take it ([`Ipm::use_best_acceptable`]).
    pub fn best_acceptable(&self) -> Option<(&[f64], f64)> {
        self.best
            .valid
            .then_some((self.best.x.as_slice(), self.best.error))
    }

    /// Make the iterate of [`Ipm::best_acceptable`] the solution of the last solve
    /// ([`Ipm::solution`] and the final measures of [`Ipm::info`]; the counts and timers stay
    /// those of the solve). Returns false, changing nothing, when there is none.
    pub fn use_best_acceptable(&mut self) -> bool {
        if !self.best.valid {
            return false;
        }
        let b = &self.best;
        self.f = b.f;
        self.mu = b.mu;
        self.x.copy_from_slice(&b.x);
        self.s.copy_from_slice(&b.s);
        self.y.copy_from_slice(&b.y);
        self.zl.copy_from_slice(&b.zl);
        self.zu.copy_from_slice(&b.zu);
        self.vl.copy_from_slice(&b.vl);
        self.vu.copy_from_slice(&b.vu);
        self.g.copy_from_slice(&b.g);
        self.grad.copy_from_slice(&b.grad);
        self.jac.copy_from_slice(&b.jac);
        self.finish();
        if let Some(w) = self.log.as_mut() {
            let _ = writeln!(
                w,
                "{}using iterate {} (acceptable, KKT error {:.2e}): objective {:.10e}",
                self.log_prefix, self.best.iter, self.best.error, self.info.objective
            );
        }
        true
    }

    /// Keep the current iterate as the best acceptable one.
    fn keep_best(&mut self, iter: usize, error: f64) {
        let b = &mut self.best;
        b.valid = true;
        b.error = error;
        b.iter = iter;
        b.f = self.f;
        b.mu = self.mu;
        b.x.copy_from_slice(&self.x);
        b.s.copy_from_slice(&self.s);
        b.y.copy_from_slice(&self.y);
        b.zl.copy_from_slice(&self.zl);
        b.zu.copy_from_slice(&self.zu);
        b.vl.copy_from_slice(&self.vl);
        b.vu.copy_from_slice(&self.vu);
        b.g.copy_from_slice(&self.g);
        b.grad.copy_from_slice(&self.grad);
        b.jac.copy_from_slice(&self.jac);
    }

    /// Solve `nlp` (which must have the structure the solver was built for) with parameters `p`.
    pub fn solve(
        &mut self,
        nlp: &dyn Nlp,
        p: &[f64],
        start: IpmStart<'_>,
    ) -> Result<Status, SolverError> {
        self.check_dims(nlp, p, &start)?;
        Ok(self.solve_impl(nlp, p, start, None))
    }

    fn check_dims(
        &self,
        nlp: &dyn Nlp,
        p: &[f64],
        start: &IpmStart<'_>,
    ) -> Result<(), SolverError> {
        let d = SolverError::check_dim;
        d("n", self.n, nlp.n())?;
        d("m", self.m, nlp.m())?;
        d("Jacobian nnz", self.nnz_j, nlp.jacobian_pattern().nnz())?;
        d("Hessian nnz", self.nnz_h, nlp.hessian_pattern().nnz())?;
        d("parameters", nlp.n_p(), p.len())?;
        match start {
            IpmStart::Initial => {}
            IpmStart::Primal(x) => d("x0", self.n, x.len())?,
            IpmStart::Warm {
                x,
                lambda,
                z_l,
                z_u,
            } => {
                d("x0", self.n, x.len())?;
                d("lambda0", self.m, lambda.len())?;
                d("z_l0", self.n, z_l.len())?;
                d("z_u0", self.n, z_u.len())?;
            }
        }
        Ok(())
    }

    pub(crate) fn solve_impl(
        &mut self,
        nlp: &dyn Nlp,
        p: &[f64],
        start: IpmStart<'_>,
        mut hook: Option<Hook<'_>>,
    ) -> Status {
        self.start_time = Instant::now();
        self.info.reset();
        self.fact_start = self.kkt.factorizations;
        self.best.valid = false;
        self.best.error = f64::INFINITY;
        let status = self.run(nlp, p, start, &mut hook);
        self.finish();
        self.info.timers.total = self.start_time.elapsed().as_secs_f64();
        if let Some(w) = self.log.as_mut() {
            let _ = writeln!(
                w,
                "{}status {:?}: {} iterations, objective {:.10e}, constr viol {:.2e}, time {:.3} ms",
                self.log_prefix,
                status,
                self.info.iterations,
                self.info.objective,
                self.info.constr_violation,
                1e3 * self.info.timers.total
            );
        }
        status
    }

    fn elapsed(&self) -> f64 {
        self.start_time.elapsed().as_secs_f64()
    }

    fn run(
        &mut self,
        nlp: &dyn Nlp,
        p: &[f64],
        start: IpmStart<'_>,
        hook: &mut Option<Hook<'_>>,
    ) -> Status {
        if let Err(st) = self.initialize(nlp, p, start) {
            return st;
        }
        self.log_header();
        let mut acceptable_count = 0usize;
        let mut adaptive = AdaptiveState::default();
        let mut iter = 0usize;
        loop {
            // derivatives at the current point (f and g are current)
            if !self.eval_derivatives(nlp, p) {
                return Status::EvaluationError;
            }
            self.compute_residuals();
            let e0 = self.kkt_error(0.0);
            let (du, pr, co) = self.unscaled_errors();
            self.log_iteration(iter, pr, du, co);
            if e0 <= self.settings.tol
                && du <= self.settings.dual_inf_tol
                && pr <= self.settings.constr_viol_tol
                && co <= self.settings.compl_inf_tol
            {
                return Status::Solved;
            }
            if e0 <= self.settings.acceptable_tol && pr <= self.settings.acceptable_constr_viol_tol
            {
                if !self.is_restoration && e0 < self.best.error {
                    self.keep_best(iter, e0);
                }
                acceptable_count += 1;
                if acceptable_count >= self.settings.acceptable_iter {
                    return Status::Acceptable;
                }
            } else {
                acceptable_count = 0;
            }
            if iter >= self.settings.max_iter {
                return Status::MaxIterations;
            }
            if self.elapsed() > self.settings.max_wall_time {
                return Status::MaxTime;
            }
            if crate::solver::kkt::inf_norm(&self.x) > self.settings.diverging_iterates_tol {
                return Status::Diverging;
            }
            self.update_barrier(e0, &mut adaptive);
            // search direction
            let t0 = Instant::now();
            let ok = self.compute_direction();
            self.info.timers.linear_algebra += t0.elapsed().as_secs_f64();
            if !ok {
                return Status::NumericalError;
            }
            iter += 1;
            self.info.iterations += 1;
            let t1 = Instant::now();
            let eval_before = self.info.timers.evaluation;
            let ls = self.line_search(nlp, p);
            // The trial points' evaluations count as evaluation time only.
            let evals = self.info.timers.evaluation - eval_before;
            self.info.timers.line_search += (t1.elapsed().as_secs_f64() - evals).max(0.0);
            match ls {
                Outcome::Accepted => {}
                Outcome::Failed => {
                    if self.is_restoration || !self.settings.restoration {
                        return Status::RestorationFailed;
                    }
                    let tr = Instant::now();
                    let r = self.restoration_phase(nlp, p);
                    self.info.timers.restoration += tr.elapsed().as_secs_f64();
                    if let Err(st) = r {
                        return st;
                    }
                    acceptable_count = 0;
                    continue;
                }
                Outcome::EvalError => return Status::EvaluationError,
            }
            if let Some(h) = hook.as_mut() {
                let pr = self
                    .g
                    .iter()
                    .zip(&self.s)
                    .zip(&self.con_scale)
                    .fold(0.0f64, |a, ((g, s), c)| a.max((g - s).abs() / c));
                if h(&self.x, pr) {
                    return Status::UserStop;
                }
            }
        }
    }
}
