//! IPOPT on the identical NLP (feature `ipopt-baseline`; Debian `coinor-libipopt-dev` through
//! the `ipopt` crate, see `tools/ipopt_pkgconfig.sh`). Same callbacks (hence the same
//! derivatives), the same MPCC homotopy and tolerances as [`MpccSolver`](super::MpccSolver);
//! `bound_relax_factor = 0` so that bounds are never relaxed, as in ours.

use super::mpcc::{HomotopySettings, HomotopyStep, MpccResult, MpccSolver, Schedule};
use super::nlp::{Complementarity, Nlp};
use super::settings::Settings;
use super::status::{Status, Timers};
use super::SolverError;
use ipopt::{BasicProblem, ConstrainedProblem, Index, Ipopt, Number, SolveStatus};
use std::cell::Cell;
use std::time::{Duration, Instant};

/// The NLP seen by IPOPT.
struct Wrapped<'a> {
    nlp: &'a dyn Nlp,
    p: &'a [f64],
    x0: Vec<f64>,
    lam0: Option<Vec<f64>>,
    zl0: Option<Vec<f64>>,
    zu0: Option<Vec<f64>>,
    iters: Cell<usize>,
    /// Wall-clock end of the solve (IPOPT 3.11 limits only CPU time, `max_cpu_time`).
    deadline: Option<Instant>,
    timed_out: Cell<bool>,
}

impl BasicProblem for Wrapped<'_> {
    fn num_variables(&self) -> usize {
        self.nlp.n()
    }
    fn bounds(&self, x_l: &mut [Number], x_u: &mut [Number]) -> bool {
        let m = self.nlp.m();
        let (mut gl, mut gu) = (vec![0.0; m], vec![0.0; m]);
        self.nlp.bounds(x_l, x_u, &mut gl, &mut gu);
        for v in x_l.iter_mut().chain(x_u.iter_mut()) {
            *v = v.clamp(-1e20, 1e20);
        }
        true
    }
    fn initial_point(&self, x: &mut [Number]) -> bool {
        x.copy_from_slice(&self.x0);
        true
    }
    fn initial_bounds_multipliers(&self, z_l: &mut [Number], z_u: &mut [Number]) -> bool {
        match (&self.zl0, &self.zu0) {
            (Some(a), Some(b)) => {
                z_l.copy_from_slice(a);
                z_u.copy_from_slice(b);
                true
            }
            _ => false,
        }
    }
    fn objective(&self, x: &[Number], _new_x: bool, obj: &mut Number) -> bool {
        match self.nlp.eval_f(x, self.p) {
            Ok(v) => {
                *obj = v;
                true
            }
            Err(_) => false,
        }
    }
    fn objective_grad(&self, x: &[Number], _new_x: bool, grad_f: &mut [Number]) -> bool {
        self.nlp.eval_grad_f(x, self.p, grad_f).is_ok()
    }
}

impl ConstrainedProblem for Wrapped<'_> {
    fn num_constraints(&self) -> usize {
        self.nlp.m()
    }
    fn num_constraint_jacobian_non_zeros(&self) -> usize {
        self.nlp.jacobian_pattern().nnz()
    }
    fn constraint(&self, x: &[Number], _new_x: bool, g: &mut [Number]) -> bool {
        self.nlp.eval_g(x, self.p, g).is_ok()
    }
    fn constraint_bounds(&self, g_l: &mut [Number], g_u: &mut [Number]) -> bool {
        let n = self.nlp.n();
        let (mut xl, mut xu) = (vec![0.0; n], vec![0.0; n]);
        self.nlp.bounds(&mut xl, &mut xu, g_l, g_u);
        for v in g_l.iter_mut().chain(g_u.iter_mut()) {
            *v = v.clamp(-1e20, 1e20);
        }
        true
    }
    fn initial_constraint_multipliers(&self, lambda: &mut [Number]) -> bool {
        match &self.lam0 {
            Some(l) => {
                lambda.copy_from_slice(l);
                true
            }
            None => false,
        }
    }
    fn constraint_jacobian_indices(&self, rows: &mut [Index], cols: &mut [Index]) -> bool {
        for (k, (i, j)) in self.nlp.jacobian_pattern().entries().enumerate() {
            rows[k] = i as Index;
            cols[k] = j as Index;
        }
        true
    }
    fn constraint_jacobian_values(&self, x: &[Number], _new_x: bool, vals: &mut [Number]) -> bool {
        self.nlp.eval_jac_g(x, self.p, vals).is_ok()
    }
    fn num_hessian_non_zeros(&self) -> usize {
        self.nlp.hessian_pattern().nnz()
    }
    fn hessian_indices(&self, rows: &mut [Index], cols: &mut [Index]) -> bool {
        for (k, (i, j)) in self.nlp.hessian_pattern().entries().enumerate() {
            rows[k] = i as Index;
            cols[k] = j as Index;
        }
        true
    }
    fn hessian_values(
        &self,
        x: &[Number],
        _new_x: bool,
        obj_factor: Number,
        lambda: &[Number],
        vals: &mut [Number],
    ) -> bool {
        self.nlp
            .eval_hess_l(x, self.p, obj_factor, lambda, vals)
            .is_ok()
    }
}

/// Result of one IPOPT solve.
#[derive(Clone, Debug)]
pub struct BaselineSolve {
    /// Status mapped to ours.
    pub status: Status,
    /// IPOPT iterations.
    pub iterations: usize,
    /// Objective.
    pub objective: f64,
    /// Primal solution.
    pub x: Vec<f64>,
    /// Constraint multipliers.
    pub lambda: Vec<f64>,
    /// Lower-bound multipliers.
    pub z_l: Vec<f64>,
    /// Upper-bound multipliers.
    pub z_u: Vec<f64>,
    /// Wall time, seconds.
    pub time_s: f64,
}

fn map_status(s: SolveStatus) -> Status {
    match s {
        SolveStatus::SolveSucceeded => Status::Solved,
        SolveStatus::SolvedToAcceptableLevel | SolveStatus::SearchDirectionBecomesTooSmall => {
            Status::Acceptable
        }
        SolveStatus::InfeasibleProblemDetected => Status::Infeasible,
        SolveStatus::MaximumIterationsExceeded => Status::MaxIterations,
        SolveStatus::MaximumCpuTimeExceeded => Status::MaxTime,
        SolveStatus::RestorationFailed => Status::RestorationFailed,
        SolveStatus::DivergingIterates => Status::Diverging,
        _ => Status::NumericalError,
    }
}

/// Warm start data for [`ipopt_solve`].
pub struct WarmStart<'a> {
    /// Constraint multipliers.
    pub lambda: &'a [f64],
    /// Lower-bound multipliers.
    pub z_l: &'a [f64],
    /// Upper-bound multipliers.
    pub z_u: &'a [f64],
}

/// Solve `nlp` with IPOPT from `x0` (warm-started with multipliers if given), with the
/// tolerances of `settings`. `settings.max_wall_time` is a wall-clock limit, checked after
/// every IPOPT iteration (status `MaxTime`), and IPOPT's own CPU-time limit.
pub fn ipopt_solve(
    nlp: &dyn Nlp,
    p: &[f64],
    x0: &[f64],
    warm: Option<WarmStart<'_>>,
    settings: &Settings,
) -> Result<BaselineSolve, SolverError> {
    let t = Instant::now();
    let is_warm = warm.is_some();
    let w = Wrapped {
        nlp,
        p,
        x0: x0.to_vec(),
        lam0: warm.as_ref().map(|w| w.lambda.to_vec()),
        zl0: warm.as_ref().map(|w| w.z_l.to_vec()),
        zu0: warm.as_ref().map(|w| w.z_u.to_vec()),
        iters: Cell::new(0),
        deadline: Duration::try_from_secs_f64(settings.max_wall_time)
            .ok()
            .and_then(|d| t.checked_add(d)),
        timed_out: Cell::new(false),
    };
    let mut ipopt = Ipopt::new(w).map_err(|e| SolverError::InvalidProblem(format!("{e:?}")))?;
    // `settings.print` shows IPOPT's own iteration log (stdout), for side-by-side comparisons
    // with ours.
    ipopt.set_option("print_level", if settings.print { 5 } else { 0 });
    ipopt.set_option("sb", "yes");
    ipopt.set_option("tol", settings.tol);
    ipopt.set_option("acceptable_tol", settings.acceptable_tol);
    ipopt.set_option("max_iter", settings.max_iter.min(i32::MAX as usize) as i32);
    ipopt.set_option("mu_init", settings.mu_init);
    ipopt.set_option("bound_relax_factor", 0.0);
    if settings.max_wall_time.is_finite() {
        ipopt.set_option("max_cpu_time", settings.max_wall_time);
    }
    if is_warm {
        ipopt.set_option("warm_start_init_point", "yes");
        ipopt.set_option("warm_start_bound_push", settings.warm_start_bound_push);
        ipopt.set_option(
            "warm_start_slack_bound_push",
            settings.warm_start_slack_bound_push,
        );
        ipopt.set_option(
            "warm_start_mult_bound_push",
            settings.warm_start_mult_bound_push,
        );
    }
    ipopt.set_intermediate_callback(Some(|w: &mut Wrapped<'_>, d| {
        w.iters.set(d.iter_count.max(0) as usize);
        let late = w.deadline.is_some_and(|end| Instant::now() >= end);
        w.timed_out.set(late);
        !late
    }));
    let r = ipopt.solve();
    let sol = &r.solver_data.solution;
    let timed_out = r.solver_data.problem.timed_out.get();
    let out = BaselineSolve {
        status: match r.status {
            SolveStatus::UserRequestedStop if timed_out => Status::MaxTime,
            other => map_status(other),
        },
        iterations: r.solver_data.problem.iters.get(),
        objective: r.objective_value,
        x: sol.primal_variables.to_vec(),
        lambda: sol.constraint_multipliers.to_vec(),
        z_l: sol.lower_bound_multipliers.to_vec(),
        z_u: sol.upper_bound_multipliers.to_vec(),
        time_s: 0.0,
    };
    Ok(BaselineSolve {
        time_s: t.elapsed().as_secs_f64(),
        ..out
    })
}

/// The MPCC homotopy of [`MpccSolver`] with IPOPT as the NLP solver: the relaxed NLPs are
/// those of an [`MpccSolver`] built for `nlp` ([`MpccSolver::relaxed`]), with its σ schedule,
/// primal–dual warm starts, initial barrier `mu_warm_factor σ_k`, wall-clock limit and stop
/// test ([`MpccSolver::stop_residual`], the measure of [`HomotopySettings::stop_measure`]); no
/// polishing. The [`MpccSolver`] (its IPM work space included) is built once per call and
/// counts in the reported time.
pub fn ipopt_mpcc(
    nlp: &dyn Nlp,
    comp: &dyn Complementarity,
    settings: &HomotopySettings,
    p: &[f64],
    x0: Option<&[f64]>,
) -> Result<MpccResult, SolverError> {
    let t0 = Instant::now();
    let mut ours = MpccSolver::new(nlp, comp, settings.clone())?;
    let n = nlp.n();
    let k = comp.n_pairs();
    let mut x = vec![0.0; n];
    match x0 {
        Some(v) => x.copy_from_slice(v),
        None => nlp.initial_point(&mut x),
    }
    let mut warm: Option<BaselineSolve> = None;
    let (mut iters, mut steps) = (0usize, Vec::new());
    let (mut gv, mut hv) = (vec![0.0; k], vec![0.0; k]);
    let mut last = Status::MaxIterations;
    let mut converged = false;
    let resid = |x: &[f64], gv: &mut [f64], hv: &mut [f64]| -> (f64, f64, f64) {
        if comp.eval(x, p, gv, hv).is_err() {
            return (f64::INFINITY, f64::INFINITY, f64::INFINITY);
        }
        let (mut a, mut b, mut c) = (0.0f64, 0.0f64, 0.0f64);
        for (g, h) in gv.iter().zip(hv.iter()) {
            a = a.max(g.min(*h));
            b = b.max(g * h);
            c = c.max(-g).max(-h);
        }
        (a, b, c)
    };
    let mut schedule = Schedule::new(settings);
    while schedule.more() {
        let left = settings.max_wall_time - t0.elapsed().as_secs_f64();
        if left <= 0.0 {
            last = Status::MaxTime;
            break;
        }
        let sigma = schedule.sigma;
        ours.structure_mut().sigma = sigma;
        let mut s = settings.ipm.clone();
        s.max_wall_time = left.min(settings.ipm.max_wall_time);
        if !schedule.first() {
            s.mu_init = (settings.mu_warm_factor * sigma).clamp(1e-9, 1e-3);
        }
        let relaxed = ours.relaxed(nlp, comp)?;
        let relaxed: &dyn Nlp = &relaxed;
        let r = match &warm {
            Some(w) => ipopt_solve(
                relaxed,
                p,
                &w.x,
                Some(WarmStart {
                    lambda: &w.lambda,
                    z_l: &w.z_l,
                    z_u: &w.z_u,
                }),
                &s,
            )?,
            None => ipopt_solve(relaxed, p, &x, None, &s)?,
        };
        iters += r.iterations;
        last = r.status;
        let (rmin, _, _) = resid(&r.x, &mut gv, &mut hv);
        let r_stop = ours.stop_residual(comp, &r.x, p)?;
        steps.push(HomotopyStep {
            sigma,
            status: r.status,
            iterations: r.iterations,
            objective: r.objective,
            comp_residual: rmin,
            time_s: r.time_s,
            // IPOPT reports no phase times: the whole subproblem as `total`.
            timers: Timers {
                total: r.time_s,
                ..Timers::default()
            },
            // Not reported by IPOPT's C interface as used here.
            factorizations: 0,
            restoration_iterations: 0,
        });
        let ok = r.status.is_success();
        if ok || warm.is_none() {
            x.copy_from_slice(&r.x);
            warm = Some(r);
        }
        if ok && r_stop <= settings.comp_tol {
            converged = true;
            break;
        }
        if last == Status::MaxTime {
            break;
        }
        // A retry starts from the last solved point, which `warm` still holds.
        schedule.advance(ok);
    }
    let (rmin, rprod, neg) = resid(&x, &mut gv, &mut hv);
    let objective = nlp.eval_f(&x, p).unwrap_or(f64::NAN);
    let status = if converged {
        Status::Solved
    } else if last.is_success() {
        Status::ComplementarityNotMet
    } else {
        last
    };
    Ok(MpccResult {
        status,
        objective,
        comp_residual: rmin,
        comp_residual_product: rprod,
        max_constraint_violation: neg,
        nlp_iterations: iters,
        homotopy_steps: steps.len(),
        polished: false,
        time_s: t0.elapsed().as_secs_f64(),
        x,
        steps,
        certificate: None,
        second_path: None,
    })
}
