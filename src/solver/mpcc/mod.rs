//! MPCC homotopy (formulation §5): a sequence of relaxed NLPs ([`RelaxedNlp`]) with
//! `σ_k = σ₀ κ^k`, each warm-started (primal and dual) from the previous solution with a small
//! initial barrier parameter, stopped when the complementarity residual
//!
//! ```text
//! r_⊥(x) = max_i min(G_i(x), H_i(x))          (the stop test, issue 4)
//! ```
//! is at most `comp_tol` (default 1e-9) and the last NLP succeeded. The product residual of
//! the formulation document §5.5, `max_i G_i(x) H_i(x)`, is reported beside it
//! (`comp_residual_product`). An optional polishing step fixes the identified active set
//! (`G_i = 0` or `H_i = 0`, both for biactive pairs) and re-solves.

mod certificate;
mod least_squares;
mod relaxed;
mod schedule;
mod settings;
mod stationarity;

pub use certificate::{Certificate, DescentStep, Stationarity, StationaritySettings};
pub use relaxed::{Relaxation, RelaxedNlp, RelaxedStructure};
pub use settings::{HomotopySettings, Polish, SigmaUpdate, StopMeasure};
pub use stationarity::certify_point;

use super::error::SolverError;
use super::ipm::{Ipm, IpmStart};
use super::nlp::{Complementarity, Nlp};
use super::status::{Info, Status, Timers};
pub(crate) use schedule::Schedule;
use serde::Serialize;
use std::time::Instant;

/// One relaxed NLP of the homotopy.
#[derive(Clone, Debug, Serialize)]
pub struct HomotopyStep {
    /// σ of this subproblem (0 for the polishing step).
    pub sigma: f64,
    /// IPM status.
    pub status: Status,
    /// IPM iterations.
    pub iterations: usize,
    /// Objective of the original problem.
    pub objective: f64,
    /// `max_i min(G_i, H_i)` after the solve.
    pub comp_residual: f64,
    /// Wall time of the subproblem, seconds.
    pub time_s: f64,
    /// Its split into evaluations, KKT linear algebra and line search (the IPM's timers).
    pub timers: Timers,
    /// KKT factorisations (more than one per iteration when the inertia is corrected).
    pub factorizations: usize,
    /// Iterations in the restoration phase (included in `iterations`).
    pub restoration_iterations: usize,
}

impl HomotopyStep {
    /// The record of a relaxed NLP from the IPM's statistics `info` (iterations, objective,
    /// timers, counts), with the residual `comp_residual` and the wall time `time_s`.
    pub(super) fn of_ipm(
        sigma: f64,
        status: Status,
        info: &Info,
        comp_residual: f64,
        time_s: f64,
    ) -> HomotopyStep {
        HomotopyStep {
            sigma,
            status,
            iterations: info.iterations,
            objective: info.objective,
            comp_residual,
            time_s,
            timers: info.timers,
            factorizations: info.factorizations,
            restoration_iterations: info.restoration_iterations,
        }
    }
}

/// Result of an MPCC solve.
#[derive(Clone, Debug, Serialize)]
pub struct MpccResult {
    /// `Solved` when the residual met `comp_tol` and the last NLP succeeded; otherwise the
    /// status of the last NLP, or `ComplementarityNotMet`.
    pub status: Status,
    /// Objective of the original problem.
    pub objective: f64,
    /// `max_i min(G_i, H_i)` (the stop test).
    pub comp_residual: f64,
    /// `max_i G_i H_i` (formulation §5.5).
    pub comp_residual_product: f64,
    /// Max violation of the original bounds, constraints and `G, H >= 0`.
    pub max_constraint_violation: f64,
    /// Total IPM iterations.
    pub nlp_iterations: usize,
    /// Number of relaxed NLPs solved (polishing excluded).
    pub homotopy_steps: usize,
    /// True if the polishing step was taken.
    pub polished: bool,
    /// Wall time, seconds.
    pub time_s: f64,
    /// Solution.
    pub x: Vec<f64>,
    /// Per-subproblem statistics.
    pub steps: Vec<HomotopyStep>,
    /// Stationarity certificate (formulation §10.8), set by [`MpccSolver::certify`]; `None`
    /// when not checked.
    pub certificate: Option<Certificate>,
    /// The second homotopy path ([`HomotopySettings::second_path_sigma0`]); `None` when it
    /// did not run.
    pub second_path: Option<SecondPath>,
}

/// The second homotopy path is kept when its objective is lower than the first's by more
/// than this, relative to `max(|f|, 1)` (or when only it solved the problem).
pub const SECOND_PATH_RTOL: f64 = 1e-8;

/// The two homotopy paths of a solve with [`HomotopySettings::second_path_sigma0`]: the
/// result's fields (status, objective, solution, steps) are those of the kept path; its
/// `nlp_iterations` and `time_s` count both.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SecondPath {
    /// σ₀ of the second path.
    pub sigma0: f64,
    /// Status of the second path's result.
    pub status: Status,
    /// Objective of the second path's result.
    pub objective: f64,
    /// IPM iterations of the second path.
    pub nlp_iterations: usize,
    /// Status of the first path's result.
    pub first_status: Status,
    /// Objective of the first path's result.
    pub first_objective: f64,
    /// True when the solve kept the second path.
    pub kept: bool,
}

impl MpccResult {
    /// A result before any solve (status `MaxIterations`, non-finite measures, no solution), the
    /// buffer [`MpccSolver::solve_into`] fills.
    pub fn empty() -> MpccResult {
        MpccResult {
            status: Status::MaxIterations,
            objective: f64::NAN,
            comp_residual: f64::INFINITY,
            comp_residual_product: f64::INFINITY,
            max_constraint_violation: f64::INFINITY,
            nlp_iterations: 0,
            homotopy_steps: 0,
            polished: false,
            time_s: 0.0,
            x: Vec::new(),
            steps: Vec::new(),
            certificate: None,
            second_path: None,
        }
    }

    /// The verdict of the certificate (`unknown` when not checked).
    pub fn stationarity(&self) -> Stationarity {
        self.certificate
            .as_ref()
            .map_or(Stationarity::Unknown, |c| c.verdict)
    }
}

/// A primal-dual start point of [`MpccSolver::solve_warm_into`] (unscaled multipliers of the
/// relaxed NLP, as [`MpccSolver::duals`] returns them).
#[derive(Clone, Copy, Debug)]
pub struct WarmPoint<'a> {
    /// Primal point (n).
    pub x: &'a [f64],
    /// Multipliers of the relaxed NLP's rows (m).
    pub lambda: &'a [f64],
    /// Lower-bound multipliers (n).
    pub z_l: &'a [f64],
    /// Upper-bound multipliers (n).
    pub z_u: &'a [f64],
}

/// How the first relaxed NLP starts.
#[derive(Clone, Copy)]
enum First<'a> {
    Initial,
    Primal(&'a [f64]),
    Warm(WarmPoint<'a>),
}

/// The homotopy solver: relaxed NLP structure and IPM work space, built once for the dimensions
/// and sparsity patterns of a problem. The problem itself (the NLP and its complementarity
/// functions) is an argument of every solve, like [`Ipm::solve`]'s; it must have the
/// dimensions the solver was built for (checked).
pub struct MpccSolver {
    relaxed: RelaxedStructure,
    ipm: Ipm,
    settings: HomotopySettings,
    x: Vec<f64>,
    lam: Vec<f64>,
    zl: Vec<f64>,
    zu: Vec<f64>,
    gv: Vec<f64>,
    hv: Vec<f64>,
    /// Scratch copies of the primal point (sized once, so that a solve allocates nothing).
    xs: Vec<f64>,
    xp: Vec<f64>,
    steps: Vec<HomotopyStep>,
    /// Pairs left relaxed (at σ₀) in the warm active-set NLP instead of fixed.
    as_free: Vec<bool>,
    /// Per pair, the side an imposed schedule fixes: 0 none, 1 G, 2 H
    /// ([`MpccSolver::set_imposed_sides`]); turned into `relaxed.imposed` at each solve.
    imposed_sides: Vec<u8>,
    /// Start point of the later active-set NLPs (x, λ, z_L, z_U; sized once).
    as_start: [Vec<f64>; 4],
    /// Pairs relaxed in the active-set NLP being solved (sized once).
    as_mask: Vec<bool>,
    /// Scratch of `original_violation`: x_L, x_U, g_L, g_U, g of the original NLP.
    viol: [Vec<f64>; 5],
    /// The first path's point (x, λ, z_L, z_U) while the second path runs (sized once; swapped
    /// with the solver's vectors, never copied).
    first_point: [Vec<f64>; 4],
    /// The result of the path not kept (its vectors reused from solve to solve).
    other: MpccResult,
}

impl MpccSolver {
    /// Build the relaxed NLP structure and the IPM work space for `nlp` with pairs `comp`
    /// (read for their dimensions and patterns, not kept).
    pub fn new(
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        settings: HomotopySettings,
    ) -> Result<Self, SolverError> {
        settings.validate()?;
        let relaxed = RelaxedStructure::new(nlp, comp, settings.relaxation)?;
        let ipm = Ipm::new(&relaxed.bind(nlp, comp)?, settings.ipm.clone())?;
        let (n, m, k) = (nlp.n(), relaxed.m(), relaxed.n_pairs());
        Ok(MpccSolver {
            relaxed,
            ipm,
            x: vec![0.0; n],
            lam: vec![0.0; m],
            zl: vec![0.0; n],
            zu: vec![0.0; n],
            gv: vec![0.0; k],
            hv: vec![0.0; k],
            xs: vec![0.0; n],
            xp: vec![0.0; n],
            steps: Vec::with_capacity(settings.max_recorded_steps()),
            as_free: vec![false; k],
            imposed_sides: vec![0; k],
            as_mask: vec![false; k],
            as_start: [vec![0.0; n], vec![0.0; m], vec![0.0; n], vec![0.0; n]],
            viol: [
                vec![0.0; nlp.n()],
                vec![0.0; nlp.n()],
                vec![0.0; nlp.m()],
                vec![0.0; nlp.m()],
                vec![0.0; nlp.m()],
            ],
            first_point: [vec![0.0; n], vec![0.0; m], vec![0.0; n], vec![0.0; n]],
            other: MpccResult::empty(),
            settings,
        })
    }

    /// The homotopy settings used by the next [`MpccSolver::solve`].
    pub fn settings(&self) -> &HomotopySettings {
        &self.settings
    }

    /// Replace the homotopy settings for the next solves without rebuilding the structure
    /// (e.g. a smaller σ₀ and a wall-clock limit for a warm-started MPC solve, formulation
    /// §4.8). The relaxation cannot change: it determines the relaxed NLP's rows.
    pub fn set_settings(&mut self, settings: HomotopySettings) -> Result<(), SolverError> {
        settings.validate()?;
        if settings.relaxation != self.settings.relaxation {
            return Err(SolverError::InvalidSetting {
                name: "relaxation",
                why: "cannot change after the solver is built".into(),
            });
        }
        self.settings = settings;
        Ok(())
    }

    /// Which pairs the warm active-set NLP (`warm_active_set`) leaves relaxed at σ₀ instead
    /// of fixing a side (e.g. those of an MPC's first control interval, whose contact schedule
    /// the newly measured state decides). One flag per pair; default none.
    pub fn set_active_set_free(&mut self, free: &[bool]) -> Result<(), SolverError> {
        SolverError::check_dim("active-set free pairs", self.as_free.len(), free.len())?;
        self.as_free.copy_from_slice(free);
        Ok(())
    }

    /// Sides fixed to zero in every subproblem of the next solves, one code per pair: 0 none,
    /// 1 `G_i = 0`, 2 `H_i = 0` (an imposed contact schedule: the solver then chooses the
    /// remaining pairs only). A side that is a sum of variables with lower bound 0 is fixed
    /// through its members, as in the warm active-set NLP. Default: none. No allocation.
    pub fn set_imposed_sides(&mut self, sides: &[u8]) -> Result<(), SolverError> {
        SolverError::check_dim("imposed sides", self.imposed_sides.len(), sides.len())?;
        if let Some(i) = sides.iter().position(|&c| c > 2) {
            return Err(SolverError::InvalidSetting {
                name: "imposed sides",
                why: format!("pair {i}: code {} is not 0, 1 or 2", sides[i]),
            });
        }
        self.imposed_sides.copy_from_slice(sides);
        Ok(())
    }

    /// The codes of [`MpccSolver::set_imposed_sides`] as fix bits of the relaxed NLP of `nlp`
    /// (its bounds decide which sides are fixed through their members).
    fn apply_imposed_sides(&mut self, nlp: &dyn Nlp) {
        if self.imposed_sides.iter().all(|&c| c == 0) {
            self.relaxed.imposed.fill(0);
            return;
        }
        let [xl, xu, gl, gu, _] = &mut self.viol;
        nlp.bounds(xl, xu, gl, gu);
        for i in 0..self.relaxed.n_pairs() {
            let code = self.imposed_sides[i];
            self.relaxed.imposed[i] = match code {
                0 => 0,
                _ => self.relaxed.fix_bits(i, code == 2, xl),
            };
        }
    }

    /// The relaxed NLP structure (σ of the next subproblem, rows of the pairs).
    pub fn structure(&self) -> &RelaxedStructure {
        &self.relaxed
    }

    /// The relaxed NLP structure, e.g. to set σ before handing [`MpccSolver::relaxed`] to
    /// another solver.
    pub fn structure_mut(&mut self) -> &mut RelaxedStructure {
        &mut self.relaxed
    }

    /// The relaxed NLP of `nlp` and `comp` at the current σ (e.g. to hand the identical
    /// problem to another solver).
    pub fn relaxed<'s>(
        &'s self,
        nlp: &'s dyn Nlp,
        comp: &'s dyn Complementarity,
    ) -> Result<RelaxedNlp<'s>, SolverError> {
        self.relaxed.bind(nlp, comp)
    }

    /// The IPM (its `info()` describes the last subproblem).
    pub fn ipm(&self) -> &Ipm {
        &self.ipm
    }

    /// Residuals `(max min(G,H), max G·H, max(-G,-H,0))` at `x`.
    fn residuals(&mut self, comp: &dyn Complementarity, x: &[f64], p: &[f64]) -> (f64, f64, f64) {
        pair_residuals(comp, x, p, &mut self.gv, &mut self.hv)
    }

    /// The stop-test measure of [`HomotopySettings::stop_measure`] at `x` for the pairs `comp`
    /// (with the dimensions the solver was built for).
    pub fn stop_residual(
        &mut self,
        comp: &dyn Complementarity,
        x: &[f64],
        p: &[f64],
    ) -> Result<f64, SolverError> {
        let (k, n) = (self.relaxed.n_pairs(), self.x.len());
        SolverError::check_dim("pairs", k, comp.n_pairs())?;
        SolverError::check_dim("complementarity n", n, comp.n())?;
        SolverError::check_dim("x", n, x.len())?;
        Ok(self.stop_measure(comp, x, p))
    }

    fn stop_measure(&mut self, comp: &dyn Complementarity, x: &[f64], p: &[f64]) -> f64 {
        let (rmin, rprod, _) = self.residuals(comp, x, p);
        self.stop_of(rmin, rprod)
    }

    /// The stop-test measure from the residuals `max min(G,H)` and `max G·H`.
    fn stop_of(&self, rmin: f64, rprod: f64) -> f64 {
        self.settings.stop_measure.of(rmin, rprod)
    }

    /// The first relaxed NLP of a warm start with `warm_iteration_budget`: solved from `w` like
    /// any warm start, but stopped with [`Status::FeasibleBudget`] at the first accepted iterate
    /// after the budget that meets the IPM's constraint tolerance and the stop test.
    fn warm_budget_solve(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        w: WarmPoint<'_>,
        st: &HomotopySettings,
    ) -> Result<Status, SolverError> {
        let relaxed = self.relaxed.bind_unchecked(nlp, comp);
        let (gv, hv) = (&mut self.gv, &mut self.hv);
        let (budget, tol, viol) = (
            st.warm_iteration_budget,
            st.comp_tol,
            st.ipm.constr_viol_tol,
        );
        let measure = st.stop_measure;
        let mut iter = 0usize;
        let mut hook = |x: &[f64], pr: f64| -> bool {
            iter += 1;
            if iter < budget || pr > viol {
                return false;
            }
            let (rmin, rprod, _) = pair_residuals(comp, x, p, gv, hv);
            measure.of(rmin, rprod) <= tol
        };
        let start = IpmStart::Warm {
            x: w.x,
            lambda: w.lambda,
            z_l: w.z_l,
            z_u: w.z_u,
        };
        Ok(
            match self.ipm.solve_impl(&relaxed, p, start, Some(&mut hook)) {
                Status::UserStop => Status::FeasibleBudget,
                s => s,
            },
        )
    }

    /// The status of a relaxed (or polishing) NLP whose IPM solve ended with `status`. When the
    /// solve broke down (restoration failure, numerical error, local infeasibility, divergence,
    /// a failed evaluation; not a budget limit) after an iterate that met the IPM's acceptable
    /// tolerances, and the best such iterate ([`Ipm::best_acceptable`]) meets the homotopy's
    /// stop test (`comp_tol`), that iterate becomes the IPM's solution and the NLP counts as
    /// `Acceptable`: the homotopy ends there (or the polishing step is judged on it). Otherwise
    /// `status` is kept, and with it the handling of a failed step (the homotopy goes on from
    /// the last solved point).
    ///
    /// At σ ≤ 1e-10 and in the polishing NLP of degenerate MPCCs the IPM reaches primal and
    /// dual infeasibility ~1e-11, then a step leaves the dual infeasibility ~1e-1 and a
    /// restoration phase ends in failure (docs/nosbench.md). Taking the best acceptable
    /// iterate whatever its complementarity residual (commit 02d8260, reverted) also ends
    /// failed steps early in the homotopy (σ = 1e-2) or while the residual is stuck; the
    /// homotopy then follows another path than from the last solved point, and two FESD-J
    /// tests end on other local solutions. With the stop test the rescue only ends a homotopy
    /// that has converged.
    fn best_acceptable_if_stop(
        &mut self,
        status: Status,
        comp: &dyn Complementarity,
        p: &[f64],
    ) -> Status {
        let breakdown = matches!(
            status,
            Status::RestorationFailed
                | Status::NumericalError
                | Status::Infeasible
                | Status::Diverging
                | Status::EvaluationError
        );
        if !breakdown {
            return status;
        }
        let mut xs = std::mem::take(&mut self.xs);
        let r = match self.ipm.best_acceptable() {
            Some((x, _)) => {
                xs.copy_from_slice(x);
                self.stop_measure(comp, &xs, p)
            }
            None => f64::INFINITY,
        };
        self.xs = xs;
        if r <= self.settings.comp_tol && self.ipm.use_best_acceptable() {
            Status::Acceptable
        } else {
            status
        }
    }

    fn save_solution(&mut self) {
        let s = self.ipm.solution();
        self.x.copy_from_slice(s.x);
        self.lam.copy_from_slice(s.lambda);
        self.zl.copy_from_slice(s.z_l);
        self.zu.copy_from_slice(s.z_u);
    }

    /// Multipliers of the kept solution: constraint rows of the relaxed NLP (`m`), lower and
    /// upper bounds (`n`), unscaled as [`IpmStart::Warm`] takes them.
    pub fn duals(&self) -> (&[f64], &[f64], &[f64]) {
        (&self.lam, &self.zl, &self.zu)
    }

    /// [`MpccSolver::solve_into`] whose first relaxed NLP starts from a primal-dual point
    /// (e.g. the shifted solution of the previous MPC tick, formulation §4.8) with the small
    /// barrier parameter of the later homotopy steps (`mu_warm_factor σ₀`) instead of a primal
    /// cold start at the IPM's `mu_init`. `lambda` has the relaxed NLP's `m` rows.
    pub fn solve_warm_into(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        start: WarmPoint<'_>,
        out: &mut MpccResult,
    ) -> Result<(), SolverError> {
        let (n, m) = (self.x.len(), self.lam.len());
        for (what, len, want) in [
            ("x", start.x.len(), n),
            ("lambda", start.lambda.len(), m),
            ("z_l", start.z_l.len(), n),
            ("z_u", start.z_u.len(), n),
        ] {
            if len != want {
                return Err(SolverError::InvalidProblem(format!(
                    "warm start {what}: expected {want} values, got {len}"
                )));
            }
        }
        self.run(nlp, comp, p, First::Warm(start), out)
    }

    /// Run the homotopy on `nlp` with pairs `comp` (the dimensions the solver was built for)
    /// with parameters `p` from `x0` (or the NLP's initial point).
    pub fn solve(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        x0: Option<&[f64]>,
    ) -> Result<MpccResult, SolverError> {
        let mut out = MpccResult::empty();
        self.solve_into(nlp, comp, p, x0, &mut out)?;
        Ok(out)
    }

    /// [`MpccSolver::solve`] into a result whose vectors are reused: with `out` from an earlier
    /// solve of this solver, the whole homotopy allocates nothing.
    pub fn solve_into(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        x0: Option<&[f64]>,
        out: &mut MpccResult,
    ) -> Result<(), SolverError> {
        let first = match x0 {
            Some(x) => First::Primal(x),
            None => First::Initial,
        };
        self.run(nlp, comp, p, first, out)
    }

    fn run(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        first: First<'_>,
        out: &mut MpccResult,
    ) -> Result<(), SolverError> {
        let t0 = Instant::now();
        self.relaxed.check(nlp, comp)?;
        let st = self.settings.clone();
        let mut steps = std::mem::take(&mut self.steps);
        steps.clear();
        // Room for the longest homotopy (steps + polishing), so that a later solve with more
        // steps than the earlier ones does not grow the vectors.
        steps.reserve(st.max_recorded_steps());
        out.steps.clear();
        out.steps.reserve(st.max_recorded_steps());
        let r = self.homotopy(nlp, comp, p, first, &st, t0, &mut steps, out);
        let r = match r {
            Ok(()) if first_of_two(&st, first) && !out.status.is_success() => {
                self.warm_fallback(nlp, comp, p, first, &st, t0, &mut steps, out)
            }
            r => r,
        };
        out.steps.extend_from_slice(&steps);
        self.steps = steps;
        r?;
        out.second_path = None;
        if st.second_path_sigma0 > 0.0 && !matches!(first, First::Warm(_)) {
            self.second_path(nlp, comp, p, first, &st, t0, out)?;
        }
        Ok(())
    }

    /// The second homotopy path ([`HomotopySettings::second_path_sigma0`]) after the first
    /// one's result `out`: the same homotopy from the same start with the second σ₀, within
    /// the rest of the wall-clock budget. The better result stays in `out` (solved before not
    /// solved, then the objective lower by more than [`SECOND_PATH_RTOL`]; otherwise the
    /// first path) and its point in the solver
    /// (for [`MpccSolver::duals`] and the certificate).
    #[allow(clippy::too_many_arguments)]
    fn second_path(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        first: First<'_>,
        st: &HomotopySettings,
        t0: Instant,
        out: &mut MpccResult,
    ) -> Result<(), SolverError> {
        if st.max_wall_time - t0.elapsed().as_secs_f64() <= 0.0 {
            return Ok(());
        }
        // The first path's point is parked in `first_point` (swapped, not copied); the second
        // path overwrites the solver's own vectors.
        self.swap_first_point();
        let first_sigma = self.relaxed.sigma;
        let mut st2 = st.clone();
        st2.sigma0 = st.second_path_sigma0;
        let mut alt = std::mem::replace(&mut self.other, MpccResult::empty());
        let mut steps = std::mem::take(&mut self.steps);
        steps.clear();
        let r = self.homotopy(nlp, comp, p, first, &st2, t0, &mut steps, &mut alt);
        alt.steps.clear();
        alt.steps.extend_from_slice(&steps);
        self.steps = steps;
        let solved = |s: Status| s == Status::Solved;
        // Lower beyond rounding: paths that end at the same local minimum keep the first.
        let lower = alt.objective < out.objective - SECOND_PATH_RTOL * out.objective.abs().max(1.0);
        let kept = r.is_ok() && solved(alt.status) && (!solved(out.status) || lower);
        let info = SecondPath {
            sigma0: st2.sigma0,
            status: alt.status,
            objective: alt.objective,
            nlp_iterations: alt.nlp_iterations,
            first_status: out.status,
            first_objective: out.objective,
            kept,
        };
        let total = out.nlp_iterations + alt.nlp_iterations;
        if kept {
            std::mem::swap(out, &mut alt);
        } else {
            self.swap_first_point();
            self.relaxed.sigma = first_sigma;
            self.steps.clear();
            self.steps.extend_from_slice(&out.steps);
        }
        self.other = alt;
        out.nlp_iterations = total;
        out.time_s = t0.elapsed().as_secs_f64();
        out.second_path = Some(info);
        r
    }

    /// The fallback path of a warm start ([`HomotopySettings::warm_fallback_sigma0`]) after the
    /// first path failed with the result `out`: the homotopy again from the same warm start
    /// with the fallback σ₀, no active-set attempt, within the rest of the wall-clock budget.
    /// Its result replaces `out` (the iterations of both paths counted); its steps follow the
    /// first path's in `steps`.
    #[allow(clippy::too_many_arguments)]
    fn warm_fallback(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        first: First<'_>,
        st: &HomotopySettings,
        t0: Instant,
        steps: &mut Vec<HomotopyStep>,
        out: &mut MpccResult,
    ) -> Result<(), SolverError> {
        if st.max_wall_time - t0.elapsed().as_secs_f64() <= 0.0 || out.status == Status::MaxTime {
            return Ok(());
        }
        let mut st2 = st.clone();
        st2.sigma0 = st.warm_fallback_sigma0;
        st2.warm_active_set = false;
        st2.warm_fallback_sigma0 = 0.0;
        let before = out.nlp_iterations;
        let r = self.homotopy(nlp, comp, p, first, &st2, t0, steps, out);
        out.nlp_iterations += before;
        r
    }

    /// Exchange the kept point (x, λ, z_L, z_U) with `first_point` (same sizes).
    fn swap_first_point(&mut self) {
        let [kx, kl, ka, kb] = &mut self.first_point;
        std::mem::swap(kx, &mut self.x);
        std::mem::swap(kl, &mut self.lam);
        std::mem::swap(ka, &mut self.zl);
        std::mem::swap(kb, &mut self.zu);
    }

    #[allow(clippy::too_many_arguments)]
    fn homotopy(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        first: First<'_>,
        st: &HomotopySettings,
        t0: Instant,
        steps: &mut Vec<HomotopyStep>,
        out: &mut MpccResult,
    ) -> Result<(), SolverError> {
        let mut schedule = Schedule::new(st);
        // Steps of an earlier path (a fallback's first path) stay in `steps`.
        let s0 = steps.len();
        // The first path of a warm start with a fallback: each NLP limited, a failure ends it.
        let fast = first_of_two(st, first);
        let mut iters = 0usize;
        let mut converged = false;
        let mut last_status = Status::MaxIterations;
        let mut have_solution = false;
        let mut polished = false;
        let mut early_attempts = 0usize;
        // σ of the last solved point, and of the one the last early polish started from (one
        // attempt per point).
        let mut last_solved: Option<f64> = None;
        let mut early_from: Option<f64> = None;
        self.relaxed.fix.fill(0);
        self.apply_imposed_sides(nlp);
        // The active-set attempt is recorded as a step of σ = 0 but is not a homotopy step.
        let mut extra_steps = 0usize;
        if let (First::Warm(w), true) = (first, st.warm_active_set) {
            let met = self.active_set_first(nlp, comp, p, w, st, t0, steps, &mut iters)?;
            extra_steps = steps.len() - s0;
            if met {
                have_solution = true;
                converged = true;
                last_status = Status::Solved;
            }
        }
        while !converged && schedule.more() {
            let left = st.max_wall_time - t0.elapsed().as_secs_f64();
            if left <= 0.0 {
                last_status = Status::MaxTime;
                break;
            }
            let sigma = schedule.sigma;
            self.relaxed.sigma = sigma;
            let mut ipm_settings = st.ipm.clone();
            ipm_settings.max_wall_time = left.min(st.ipm.max_wall_time);
            let warm_first = matches!(first, First::Warm(_));
            let k0 = schedule.first();
            if !k0 || warm_first {
                ipm_settings.mu_init = (st.mu_warm_factor * sigma).clamp(1e-9, 1e-3);
            }
            if fast && st.warm_first_max_iter > 0 {
                ipm_settings.max_iter = st.warm_first_max_iter;
            }
            self.ipm.set_settings(ipm_settings)?;
            let ts = Instant::now();
            let status = if k0 || !have_solution {
                match first {
                    First::Primal(x) => self.ipm.solve(
                        &self.relaxed.bind_unchecked(nlp, comp),
                        p,
                        IpmStart::Primal(x),
                    )?,
                    First::Initial => self.ipm.solve(
                        &self.relaxed.bind_unchecked(nlp, comp),
                        p,
                        IpmStart::Initial,
                    )?,
                    First::Warm(w) if st.warm_iteration_budget > 0 => {
                        self.warm_budget_solve(nlp, comp, p, w, st)?
                    }
                    First::Warm(w) => self.ipm.solve(
                        &self.relaxed.bind_unchecked(nlp, comp),
                        p,
                        IpmStart::Warm {
                            x: w.x,
                            lambda: w.lambda,
                            z_l: w.z_l,
                            z_u: w.z_u,
                        },
                    )?,
                }
            } else {
                let (x, l, a, b) = (
                    std::mem::take(&mut self.x),
                    std::mem::take(&mut self.lam),
                    std::mem::take(&mut self.zl),
                    std::mem::take(&mut self.zu),
                );
                let r = self.ipm.solve(
                    &self.relaxed.bind_unchecked(nlp, comp),
                    p,
                    IpmStart::Warm {
                        x: &x,
                        lambda: &l,
                        z_l: &a,
                        z_u: &b,
                    },
                );
                self.x = x;
                self.lam = l;
                self.zl = a;
                self.zu = b;
                r?
            };
            let status = self.best_acceptable_if_stop(status, comp, p);
            iters += self.ipm.info().iterations;
            last_status = status;
            let ok = status.is_success();
            if ok || !have_solution {
                self.save_solution();
                have_solution = true;
            }
            if ok {
                last_solved = Some(sigma);
            }
            let mut xs = std::mem::take(&mut self.xs);
            xs.copy_from_slice(&self.x);
            let (rmin, rprod, _) = self.residuals(comp, &xs, p);
            let r_stop = self.stop_of(rmin, rprod);
            self.xs = xs;
            steps.push(HomotopyStep::of_ipm(
                sigma,
                status,
                self.ipm.info(),
                rmin,
                ts.elapsed().as_secs_f64(),
            ));
            if ok && r_stop <= st.comp_tol {
                converged = true;
                break;
            }
            if status == Status::MaxTime {
                break;
            }
            if !ok && fast {
                break;
            }
            // Early polishing from the last solved point (which `self.x` holds; `rmin` is
            // its residual), once per solved point.
            if !ok
                && st.early_polish_residual > 0.0
                && st.polish != Polish::Never
                && last_solved.is_some()
                && last_solved != early_from
                && rmin <= st.early_polish_residual
            {
                early_from = last_solved;
                early_attempts += 1;
                if self.polish(nlp, comp, p, steps, &mut iters, false, t0)? {
                    polished = true;
                    converged = true;
                    last_status = Status::Solved;
                    break;
                }
            }
            // A retry starts from the last solved point, which `self.x` still holds.
            schedule.advance(ok);
        }
        let homotopy_steps = steps.len() - s0 - early_attempts - extra_steps;
        let want_polish = match st.polish {
            // A failure of the first of two paths is left to the fallback path.
            _ if fast && !converged => false,
            Polish::Never => false,
            Polish::IfNotConverged => !converged,
            Polish::Always => !polished,
        };
        if want_polish && have_solution {
            polished = self.polish(nlp, comp, p, steps, &mut iters, converged, t0)?;
            if polished {
                converged = true;
                last_status = Status::Solved;
            }
        }
        // final measures at the kept solution
        let mut xs = std::mem::take(&mut self.xs);
        xs.copy_from_slice(&self.x);
        let (rmin, rprod, neg) = self.residuals(comp, &xs, p);
        let r_stop = self.stop_of(rmin, rprod);
        self.xs = xs;
        let objective = self.original_objective(nlp, p);
        let viol = self.original_violation(nlp, p).max(neg);
        let status = if converged && r_stop <= st.comp_tol {
            if last_status == Status::FeasibleBudget {
                Status::FeasibleBudget
            } else {
                Status::Solved
            }
        } else if last_status.is_success() {
            Status::ComplementarityNotMet
        } else {
            last_status
        };
        out.status = status;
        out.objective = objective;
        out.comp_residual = rmin;
        out.comp_residual_product = rprod;
        out.max_constraint_violation = viol;
        out.nlp_iterations = iters;
        out.homotopy_steps = homotopy_steps;
        out.polished = polished;
        out.time_s = t0.elapsed().as_secs_f64();
        out.x.clear();
        out.x.extend_from_slice(&self.x);
        out.certificate = None;
        Ok(())
    }

    /// The active-set NLP of the warm start `w` (formulation §4.8, `warm_active_set`): every
    /// pair's smaller side at `w.x` fixed to zero (`G` on ties; a side that is a sum of
    /// variables with lower bound 0 through its members), except the pairs of
    /// [`MpccSolver::set_active_set_free`], which stay relaxed at σ₀; solved from `w` at the small
    /// warm barrier parameter within `warm_active_set_max_iter` iterations. When pairs were
    /// left relaxed, a second NLP fixes every pair at the first one's solution if the stop
    /// test needs it. Returns true, with the solution kept, when the last NLP succeeds and its
    /// solution meets the stop test; otherwise the fixed sides are released and nothing is
    /// kept.
    #[allow(clippy::too_many_arguments)]
    fn active_set_first(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        w: WarmPoint<'_>,
        st: &HomotopySettings,
        t0: Instant,
        steps: &mut Vec<HomotopyStep>,
        iters: &mut usize,
    ) -> Result<bool, SolverError> {
        let mut mask = std::mem::take(&mut self.as_mask);
        mask.copy_from_slice(&self.as_free);
        let start = IpmStart::Warm {
            x: w.x,
            lambda: w.lambda,
            z_l: w.z_l,
            z_u: w.z_u,
        };
        let r = self.active_set_nlp(nlp, comp, p, start, &mask, st, t0, steps, iters);
        let Some(mut met) = r? else {
            self.as_mask = mask;
            return Ok(false);
        };
        let relaxed = mask.iter().any(|&f| f);
        if !met && relaxed {
            mask.fill(false);
            met = self.active_set_from_solution(nlp, comp, p, &mask, st, t0, steps, iters)?
                == Some(true);
        }
        self.as_mask = mask;
        Ok(met)
    }

    /// [`MpccSolver::active_set_nlp`] started from the kept solution.
    #[allow(clippy::too_many_arguments)]
    fn active_set_from_solution(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        mask: &[bool],
        st: &HomotopySettings,
        t0: Instant,
        steps: &mut Vec<HomotopyStep>,
        iters: &mut usize,
    ) -> Result<Option<bool>, SolverError> {
        let mut start = std::mem::take(&mut self.as_start);
        for (d, s) in start
            .iter_mut()
            .zip([&self.x, &self.lam, &self.zl, &self.zu])
        {
            d.copy_from_slice(s);
        }
        let [x, l, a, b] = &start;
        let r = self.active_set_nlp(
            nlp,
            comp,
            p,
            IpmStart::Warm {
                x,
                lambda: l,
                z_l: a,
                z_u: b,
            },
            mask,
            st,
            t0,
            steps,
            iters,
        );
        self.as_start = start;
        r
    }

    /// One active-set NLP of [`MpccSolver::active_set_first`] from `start`, the pairs of `free`
    /// relaxed at σ₀. `None` when it failed; `Some(met)` when it succeeded (its solution saved,
    /// its `G`, `H` in `gv`, `hv`), `met` whether that solution meets the stop test.
    #[allow(clippy::too_many_arguments)]
    fn active_set_nlp(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        start: IpmStart<'_>,
        free: &[bool],
        st: &HomotopySettings,
        t0: Instant,
        steps: &mut Vec<HomotopyStep>,
        iters: &mut usize,
    ) -> Result<Option<bool>, SolverError> {
        let x0 = match start {
            IpmStart::Warm { x, .. } | IpmStart::Primal(x) => x,
            IpmStart::Initial => return Ok(None),
        };
        if comp.eval(x0, p, &mut self.gv, &mut self.hv).is_err() {
            return Ok(None);
        }
        let [xl, xu, gl, gu, _] = &mut self.viol;
        nlp.bounds(xl, xu, gl, gu);
        for i in 0..self.relaxed.n_pairs() {
            if free[i] {
                self.relaxed.fix[i] = 0;
                continue;
            }
            let h = self.gv[i] > self.hv[i];
            self.relaxed.fix[i] = self.relaxed.fix_bits(i, h, xl);
        }
        self.relaxed.sigma = st.sigma0;
        let mut s = st.ipm.clone();
        s.max_iter = st.warm_active_set_max_iter;
        s.mu_init = (st.mu_warm_factor * st.sigma0).clamp(1e-9, 1e-3);
        s.max_wall_time = (st.max_wall_time - t0.elapsed().as_secs_f64())
            .min(st.ipm.max_wall_time)
            .max(1e-3);
        self.ipm.set_settings(s)?;
        let ts = Instant::now();
        let status = self
            .ipm
            .solve(&self.relaxed.bind_unchecked(nlp, comp), p, start);
        self.relaxed.fix.fill(0);
        let status = status?;
        let (r_stop, neg) = self.record_fixed_solve(status, comp, p, ts, steps, iters);
        if !(status.is_success() && neg <= st.ipm.tol.max(1e-9)) {
            return Ok(None);
        }
        self.save_solution();
        Ok(Some(r_stop <= st.comp_tol))
    }

    /// Book the IPM solve of a fixed-active-set NLP (polishing, warm active set) that began at
    /// `ts`: count its iterations, record it as a step of σ = 0 and return the stop measure and
    /// the sign violation `max(−G, −H, 0)` at its solution.
    fn record_fixed_solve(
        &mut self,
        status: Status,
        comp: &dyn Complementarity,
        p: &[f64],
        ts: Instant,
        steps: &mut Vec<HomotopyStep>,
        iters: &mut usize,
    ) -> (f64, f64) {
        *iters += self.ipm.info().iterations;
        let mut xp = std::mem::take(&mut self.xp);
        xp.copy_from_slice(self.ipm.solution().x);
        let (rmin, rprod, neg) = self.residuals(comp, &xp, p);
        self.xp = xp;
        steps.push(HomotopyStep::of_ipm(
            0.0,
            status,
            self.ipm.info(),
            rmin,
            ts.elapsed().as_secs_f64(),
        ));
        (self.stop_of(rmin, rprod), neg)
    }

    /// Fix the active set at the current solution and re-solve. Returns true if kept.
    #[allow(clippy::too_many_arguments)]
    fn polish(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        steps: &mut Vec<HomotopyStep>,
        iters: &mut usize,
        converged: bool,
        t0: Instant,
    ) -> Result<bool, SolverError> {
        let st = self.settings.clone();
        let mut xs = std::mem::take(&mut self.xs);
        xs.copy_from_slice(&self.x);
        let r_before = self.stop_measure(comp, &xs, p);
        let f_before = self.original_objective(nlp, p);
        let thr = st.comp_tol.sqrt();
        for i in 0..self.relaxed.n_pairs() {
            let (g, h) = (self.gv[i], self.hv[i]);
            self.relaxed.fix[i] = if g.max(h) <= thr {
                3
            } else if g <= h {
                1
            } else {
                2
            };
        }
        let mut s = st.ipm.clone();
        s.mu_init = 1e-6;
        s.max_wall_time = (st.max_wall_time - t0.elapsed().as_secs_f64()).max(1e-3);
        self.ipm.set_settings(s)?;
        let ts = Instant::now();
        let solved = self.ipm.solve(
            &self.relaxed.bind_unchecked(nlp, comp),
            p,
            IpmStart::Warm {
                x: &xs,
                lambda: &self.lam,
                z_l: &self.zl,
                z_u: &self.zu,
            },
        );
        self.xs = xs;
        let status = self.best_acceptable_if_stop(solved?, comp, p);
        let (r_after, _) = self.record_fixed_solve(status, comp, p, ts, steps, iters);
        self.relaxed.fix.fill(0);
        let f_after = self.ipm.info().objective;
        let keep = status.is_success()
            && r_after <= st.comp_tol
            && (!converged || f_after <= f_before + 1e-6 * (1.0 + f_before.abs()))
            && (converged
                || r_after < r_before
                || f_after <= f_before + 1e-4 * (1.0 + f_before.abs()));
        if keep {
            self.save_solution();
        }
        Ok(keep)
    }

    fn original_objective(&self, nlp: &dyn Nlp, p: &[f64]) -> f64 {
        nlp.eval_f(&self.x, p).unwrap_or(f64::NAN)
    }

    fn original_violation(&mut self, nlp: &dyn Nlp, p: &[f64]) -> f64 {
        let [xl, xu, gl, gu, g] = &mut self.viol;
        let (n, m) = (nlp.n(), nlp.m());
        nlp.bounds(xl, xu, gl, gu);
        if nlp.eval_g(&self.x, p, g).is_err() {
            return f64::INFINITY;
        }
        let mut v = 0.0f64;
        for j in 0..n {
            v = v.max(xl[j] - self.x[j]).max(self.x[j] - xu[j]);
        }
        for i in 0..m {
            v = v.max(gl[i] - g[i]).max(g[i] - gu[i]);
        }
        v
    }
}

/// `(max min(G, H), max G·H, max(−G, −H))` of the pairs `comp` at `x` (into `gv`, `hv`); all
/// infinite when they cannot be evaluated.
fn pair_residuals(
    comp: &dyn Complementarity,
    x: &[f64],
    p: &[f64],
    gv: &mut [f64],
    hv: &mut [f64],
) -> (f64, f64, f64) {
    if comp.eval(x, p, gv, hv).is_err() {
        return (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    }
    let (mut rmin, mut rprod, mut neg) = (0.0f64, 0.0f64, 0.0f64);
    for (g, h) in gv.iter().zip(hv.iter()) {
        rmin = rmin.max(g.min(*h));
        rprod = rprod.max(g * h);
        neg = neg.max(-g).max(-h);
    }
    (rmin, rprod, neg)
}

/// Whether a solve from `first` with `st` is the first of two paths: a warm start with a
/// fallback path ([`HomotopySettings::warm_fallback_sigma0`]).
fn first_of_two(st: &HomotopySettings, first: First<'_>) -> bool {
    st.warm_fallback_sigma0 > 0.0 && matches!(first, First::Warm(_))
}
