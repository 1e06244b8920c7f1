//! A FESD-J problem built once and solved many times (§4.2, §4.6, §4.8): transcription,
//! compiled derivatives, the MPCC homotopy solver and its work space, with the quantities
//! that change between solves — initial state, fixed controls, parameters (references), start
//! point, σ₀ and wall-clock limit — changeable without rebuilding.

use serde::{Deserialize, Serialize};

use crate::solver::mpcc::HomotopyStep;
use crate::solver::{Certificate, HomotopySettings, StationaritySettings, StopMeasure, WarmPoint};

use super::error::FesdjError;
use super::extract::Extractor;
use super::layout::Layout;
use super::mpcc::{PairInfo, PairKind};
use super::ocp::Ocp;
use super::options::FesdjOptions;
use super::owned::{FesdjNlp, OwnedSolver};
use super::trajectory::{
    SolveStats, Trajectory, TrajectoryBuilder, DEFAULT_IMPACT_THRESHOLD, DEFAULT_STATE_THRESHOLD,
};
use super::transcription::transcribe;

/// Settings of a FESD-J solve: the MPCC homotopy (§5) and the thresholds used to read the
/// trajectory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SolveOptions {
    /// MPCC homotopy and interior-point settings (defaults: Scholtes, σ₀ = 1, κ = 0.1, stop
    /// when `r_⊥ = max_i G_i H_i ≤ 1e-9`, as §5.4, §5.5 and Appendix A).
    pub solver: HomotopySettings,
    /// Normal impulses above this are reported as impacts
    /// ([`DEFAULT_IMPACT_THRESHOLD`]).
    pub impact_threshold: f64,
    /// Contact-closed and slip thresholds ([`DEFAULT_STATE_THRESHOLD`]).
    pub state_threshold: f64,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            solver: HomotopySettings {
                stop_measure: StopMeasure::Product,
                ..HomotopySettings::default()
            },
            impact_threshold: DEFAULT_IMPACT_THRESHOLD,
            state_threshold: DEFAULT_STATE_THRESHOLD,
        }
    }
}

/// Where a solve starts.
#[derive(Clone, Copy, Debug)]
pub enum Start<'a> {
    /// The initial guess of §5.9 (states `x_0`, algebraic variables per
    /// [`InitialGuess`](super::InitialGuess)), possibly edited through
    /// [`FesdjProblem::guess_mut`].
    Guess,
    /// The last solution, in place (falls back to `Guess` before the first solve).
    Previous,
    /// The last solution shifted by one control interval, the last interval duplicated (§4.8;
    /// falls back to `Guess` before the first solve).
    Shifted,
    /// A given primal point (length `n_w`).
    Primal(&'a [f64]),
    /// As [`Start::Shifted`], but the last interval's variables take the given values (in
    /// the order of [`FesdjProblem::interval_variables`]) instead of a copy of the old last
    /// interval — e.g. the last interval simulated from the old final state **[ours]**: a
    /// duplicated last interval starts at the old interval's start state, not at the old
    /// final state, and the warm start then begins with that continuity gap.
    ShiftedTail(&'a [f64]),
}

/// A transcribed, compiled FESD-J problem with its solver.
pub struct FesdjProblem {
    solver: OwnedSolver,
    layout: Layout,
    comp_info: Vec<PairInfo>,
    /// Per pair, the side an imposed contact schedule fixes ([`FesdjProblem::set_contact_schedule`]).
    imposed: Vec<u8>,
    options: FesdjOptions,
    impact_threshold: f64,
    p: Vec<f64>,
    guess: Vec<f64>,
    /// Default bounds (as transcribed) to restore released controls.
    lbw0: Vec<f64>,
    ubw0: Vec<f64>,
    solution: Vec<f64>,
    has_solution: bool,
    start: Vec<f64>,
    interval_vars: Vec<Vec<usize>>,
    /// Rows of the relaxed NLP per control interval, in order (to shift the multipliers).
    interval_rows: Vec<Vec<usize>>,
    /// Multipliers of the last solution (relaxed rows, lower, upper bounds) and their shifted
    /// copies for a primal-dual warm start.
    duals: [Vec<f64>; 3],
    duals_start: [Vec<f64>; 3],
    warm_duals: bool,
    /// A saved primal-dual solution ([`FesdjProblem::checkpoint`]).
    ckpt: Vec<f64>,
    ckpt_duals: [Vec<f64>; 3],
    has_ckpt: bool,
    extractor: Extractor,
    last: Option<SolveStats>,
    homotopy: Vec<HomotopyStep>,
}

impl std::fmt::Debug for FesdjProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FesdjProblem")
            .field("n_w", &self.layout.n_w)
            .field("n_pairs", &self.comp_info.len())
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// `dst = src` shifted by one control interval: the entries of interval `k` (the index lists
/// `per_interval[k]`, in order) take the values of interval `k + 1`; the last interval and
/// everything outside the lists keep `src`'s values (§4.8, "the last interval duplicated").
fn shift_by_interval(src: &[f64], dst: &mut [f64], per_interval: &[Vec<usize>]) {
    dst.copy_from_slice(src);
    for pair in per_interval.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if a.len() == b.len() {
            for (&i, &j) in a.iter().zip(b) {
                dst[i] = src[j];
            }
        }
    }
}

/// Multiplier buffers `[rows (m), lower bounds (n), upper bounds (n)]`.
fn dual_buffers(m: usize, n: usize) -> [Vec<f64>; 3] {
    [vec![0.0; m], vec![0.0; n], vec![0.0; n]]
}

impl FesdjProblem {
    /// Transcribe `ocp` with `options` (§3–§4.2), compile `f, g, G, H` and their derivatives
    /// through the solver's ad adapter, and build the homotopy solver (§5) once.
    pub fn new(
        ocp: &Ocp,
        options: &FesdjOptions,
        solve: SolveOptions,
    ) -> Result<FesdjProblem, FesdjError> {
        for (name, x) in [
            ("impact_threshold", solve.impact_threshold),
            ("state_threshold", solve.state_threshold),
        ] {
            if !(x.is_finite() && x >= 0.0) {
                return Err(FesdjError::InvalidOption {
                    field: name.into(),
                    why: format!("must be finite and ≥ 0, got {x}"),
                });
            }
        }
        let mpcc = transcribe(ocp, options)?;
        let (mut nlp, comp) = mpcc.nlp_with(solve.solver.hessian)?;
        nlp.set_jacobian_threads(solve.solver.eval_threads)?;
        let nlp = FesdjNlp::new(nlp, mpcc.lbw.clone(), mpcc.ubw.clone(), mpcc.w0.clone());
        let solver = OwnedSolver::new(nlp, comp, solve.solver)?;
        let (m_relaxed, n_relaxed) = {
            let (l, z, _) = solver.duals();
            (l.len(), z.len())
        };
        let mut interval_rows = vec![Vec::new(); mpcc.layout.n_intervals()];
        for (r, info) in mpcc.g_info.iter().enumerate() {
            if let Some(k) = info.interval {
                interval_rows[k].push(r);
            }
        }
        for (i, info) in mpcc.comp_info.iter().enumerate() {
            let (a, b, c) = solver.pair_rows(i);
            interval_rows[info.interval].extend([a, b, c].into_iter().flatten());
        }
        let extractor = Extractor::new(
            &ocp.model,
            &mpcc.layout,
            solve.impact_threshold,
            solve.state_threshold,
        )?;
        let n_w = mpcc.n_w();
        let interval_vars = (0..mpcc.layout.n_intervals())
            .map(|k| mpcc.layout.interval_variables(k))
            .collect();
        Ok(FesdjProblem {
            solver,
            interval_vars,
            interval_rows,
            duals: dual_buffers(m_relaxed, n_relaxed),
            duals_start: dual_buffers(m_relaxed, n_relaxed),
            warm_duals: false,
            ckpt: vec![0.0; n_w],
            ckpt_duals: dual_buffers(m_relaxed, n_relaxed),
            has_ckpt: false,
            extractor,
            imposed: vec![0; mpcc.comp_info.len()],
            comp_info: mpcc.comp_info,
            options: options.clone(),
            impact_threshold: solve.impact_threshold,
            p: mpcc.p0,
            guess: mpcc.w0,
            lbw0: mpcc.lbw,
            ubw0: mpcc.ubw,
            solution: vec![0.0; n_w],
            has_solution: false,
            start: vec![0.0; n_w],
            layout: mpcc.layout,
            last: None,
            homotopy: Vec::new(),
        })
    }

    /// The variable layout (index queries for every quantity).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// Origin of every complementarity pair.
    pub fn pair_info(&self) -> &[PairInfo] {
        &self.comp_info
    }
    /// The transcription options.
    pub fn options(&self) -> &FesdjOptions {
        &self.options
    }
    /// The impulse threshold of [`Trajectory::impacts`].
    pub fn impact_threshold(&self) -> f64 {
        self.impact_threshold
    }
    /// Number of variables.
    pub fn n_w(&self) -> usize {
        self.layout.n_w
    }

    /// Set the initial state `x_0 = (q_0, v_0)`: the bounds of the initial-state variables
    /// (§4.2, §4.8) and their start values.
    pub fn set_initial_state(&mut self, x0: &[f64]) -> Result<(), FesdjError> {
        let n_q = self.layout.n_q;
        check_len("x0", 2 * n_q, x0.len())?;
        if let Some(i) = x0.iter().position(|x| !x.is_finite()) {
            return Err(FesdjError::Problem {
                field: format!("x0[{i}]"),
                why: "must be finite".into(),
            });
        }
        let nlp = self.solver.nlp_mut();
        for (&i, &x) in self.layout.x0_q.iter().chain(&self.layout.x0_v).zip(x0) {
            nlp.fix(i, x);
            self.guess[i] = x;
        }
        Ok(())
    }

    /// Write `x = (q, v)` into every state variable `q, v` of the primal vector `w` (boundary,
    /// stage and right-boundary points of all elements; the initial-state block is left
    /// alone): the "states = x_0 everywhere" initialisation of §5.9 for a start point.
    pub fn write_states(&self, x: &[f64], w: &mut [f64]) -> Result<(), FesdjError> {
        let n_q = self.layout.n_q;
        check_len("x", 2 * n_q, x.len())?;
        check_len("w", self.layout.n_w, w.len())?;
        let (q, v) = x.split_at(n_q);
        let mut put = |idx: &[usize], val: &[f64]| {
            for (&i, &x) in idx.iter().zip(val) {
                w[i] = x;
            }
        };
        for iv in &self.layout.intervals {
            for e in &iv.elements {
                put(&e.q0, q);
                put(&e.v0, v);
                for s in &e.stages {
                    put(&s.q, q);
                    put(&s.v, v);
                }
                if let Some(r) = &e.right {
                    put(&r.q, q);
                    put(&r.v, v);
                }
            }
        }
        Ok(())
    }

    /// Fix the control of interval `k` to `u` (simulation with given inputs, §4.6).
    pub fn fix_control(&mut self, k: usize, u: &[f64]) -> Result<(), FesdjError> {
        self.check_interval(k)?;
        check_len("u", self.layout.u(k).len(), u.len())?;
        let nlp = self.solver.nlp_mut();
        for (&i, &x) in self.layout.intervals[k].u.iter().zip(u) {
            if !x.is_finite() {
                return Err(FesdjError::Problem {
                    field: format!("u[{k}]"),
                    why: "must be finite".into(),
                });
            }
            nlp.fix(i, x);
            self.guess[i] = x;
        }
        Ok(())
    }

    /// Give the control of interval `k` its transcribed bounds again.
    pub fn release_control(&mut self, k: usize) -> Result<(), FesdjError> {
        self.check_interval(k)?;
        let nlp = self.solver.nlp_mut();
        for &i in &self.layout.intervals[k].u {
            nlp.set_bounds(i, self.lbw0[i], self.ubw0[i]);
        }
        Ok(())
    }

    /// The transcribed bounds `(lb, ub)` of variable `i` (before any
    /// [`FesdjProblem::set_variable_bounds`]); `None` out of range.
    pub fn transcribed_bounds(&self, i: usize) -> Option<(f64, f64)> {
        Some((*self.lbw0.get(i)?, *self.ubw0.get(i)?))
    }

    /// Bounds of variable `i` for the next solves: `Some((lb, ub))`, or `None` for the
    /// transcribed bounds. For a simulator that restricts a step to a contact mode (e.g. no
    /// impulse at a grid point: `Λ_n = 0` there), see [`Simulator`](super::Simulator).
    pub fn set_variable_bounds(
        &mut self,
        i: usize,
        bounds: Option<(f64, f64)>,
    ) -> Result<(), FesdjError> {
        if i >= self.layout.n_w {
            return Err(FesdjError::Problem {
                field: "variable".into(),
                why: format!("{i} out of range 0..{}", self.layout.n_w),
            });
        }
        let (lb, ub) = bounds.unwrap_or((self.lbw0[i], self.ubw0[i]));
        if lb.is_nan() || ub.is_nan() || lb > ub {
            return Err(FesdjError::Problem {
                field: format!("bounds of variable {i}"),
                why: format!("needs lb ≤ ub, got [{lb}, {ub}]"),
            });
        }
        self.solver.nlp_mut().set_bounds(i, lb, ub);
        Ok(())
    }

    fn check_interval(&self, k: usize) -> Result<(), FesdjError> {
        if k < self.layout.n_intervals() {
            Ok(())
        } else {
            Err(FesdjError::Problem {
                field: "interval".into(),
                why: format!("{k} out of range 0..{}", self.layout.n_intervals()),
            })
        }
    }

    /// The parameter vector `p` (LSQ references, indices in `layout().params`).
    pub fn parameters(&self) -> &[f64] {
        &self.p
    }
    /// Replace the parameters `p` (references, §4.3) for the next solves.
    pub fn set_parameters(&mut self, p: &[f64]) -> Result<(), FesdjError> {
        check_len("p", self.p.len(), p.len())?;
        self.p.copy_from_slice(p);
        Ok(())
    }
    /// Mutable parameters (e.g. to set one interval's reference through the layout).
    pub fn parameters_mut(&mut self) -> &mut [f64] {
        &mut self.p
    }

    /// The initial guess used by [`Start::Guess`] (§5.9).
    pub fn guess(&self) -> &[f64] {
        &self.guess
    }
    /// Edit the initial guess, e.g. `λ_n = m g` at loaded contacts (§7 item 19).
    pub fn guess_mut(&mut self) -> &mut [f64] {
        &mut self.guess
    }
    /// The retry guess of §4.6: the initial guess with `Λ_n = 7`, `Y = 0`, `Υ± = 0`,
    /// `λ_n = 0`, `y = 0` ("modified initial guess with `Λ_n > 0`" of [P] §5.1).
    pub fn retry_guess(&self, out: &mut [f64]) {
        out.copy_from_slice(&self.guess);
        for iv in &self.layout.intervals {
            for e in &iv.elements {
                if let Some(imp) = &e.impulse {
                    for &i in &imp.lambda_n {
                        out[i] = 7.0;
                    }
                    for &i in imp.y_gap.iter().chain(&imp.p_vn).chain(&imp.n_vn) {
                        out[i] = 0.0;
                    }
                }
                for s in &e.stages {
                    for &i in s.lambda_n.iter().chain(&s.y_gap) {
                        out[i] = 0.0;
                    }
                }
                if let Some(r) = &e.right {
                    for &i in &r.y_gap {
                        out[i] = 0.0;
                    }
                }
            }
        }
    }

    /// Grid points `(k, n)` that carry an impulse block, in chain order.
    pub fn impulse_points(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.layout
            .intervals
            .iter()
            .enumerate()
            .flat_map(|(k, iv)| {
                iv.elements
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.impulse.is_some())
                    .map(move |(n, _)| (k, n))
            })
    }

    /// The retry guess of [`FesdjProblem::retry_guess`] with the impact guessed at grid point
    /// `(k, n)` only: `Λ_n = 7` there and `Λ_n = 0` at every other impulse block.
    ///
    /// Why (issue 5): with `ε_r > 0` the relaxed impulse pair `Λ_n (Y + Υ_+ + Υ_−) ≤ σ` with
    /// `Υ_+ − Υ_− = J_nᵀ(v⁺ + ε_r v⁻)` and `v⁺ = v⁻ + M⁻¹J_nΛ_n` splits, at an approaching
    /// contact (`J_nᵀv⁻ < 0`), into two disconnected branches: "no impact"
    /// (`Λ_n ≲ σ / |(1 + ε_r) J_nᵀv⁻|`) and "impact" (`Λ_n` near the physical impulse, `Y` near
    /// 0). The homotopy cannot move an impact from one grid point to another, so the start point
    /// decides at which grid point the impact happens. `Λ_n = 7` at every block (§4.6) asks for
    /// an impact at every grid point: with `N_FE = 2` and `no_initial_impacts` there is a
    /// single block and that is right, but with `N_FE ≥ 3` the iterates settle the impact at the
    /// first reachable grid point and every other block stays on the impact branch — locally
    /// infeasible already at `σ = 1` whenever the impact must sit on a later grid point
    /// (the 1D ball with its impact beyond `2h̄`). The exact solution itself is feasible
    /// (tests/fesdj/fesdj_nfe.rs evaluates every row there).
    pub fn retry_guess_at(&self, k: usize, n: usize, out: &mut [f64]) {
        self.retry_guess(out);
        for (kk, iv) in self.layout.intervals.iter().enumerate() {
            for (nn, e) in iv.elements.iter().enumerate() {
                if (kk, nn) == (k, n) {
                    continue;
                }
                // Every other block on the "no impact" branch: Λ_n = 0 with the default
                // guess's gap and Υ± (with the retry guess's Y = Υ± = 0 there, an inelastic
                // impulse can grow at any block).
                if let Some(imp) = &e.impulse {
                    for &i in &imp.lambda_n {
                        out[i] = 0.0;
                    }
                    for &i in imp.y_gap.iter().chain(&imp.p_vn).chain(&imp.n_vn) {
                        out[i] = self.guess[i];
                    }
                }
                // Elements before the guessed impact are in flight: default gaps, no force.
                if kk == k && nn < n {
                    for st in &e.stages {
                        for &i in &st.y_gap {
                            out[i] = self.guess[i];
                        }
                    }
                    if e.left_gap_own {
                        for &i in &e.left_gap {
                            out[i] = self.guess[i];
                        }
                    }
                }
            }
        }
    }

    /// The last primal solution (`None` before the first solve).
    pub fn solution(&self) -> Option<&[f64]> {
        self.has_solution.then_some(self.solution.as_slice())
    }
    /// Statistics of the last solve.
    pub fn last_stats(&self) -> Option<&SolveStats> {
        self.last.as_ref()
    }
    /// The relaxed NLPs of the last solve (σ, status, iterations, residual, time; the
    /// polishing step has σ = 0).
    pub fn last_homotopy(&self) -> &[HomotopyStep] {
        &self.homotopy
    }

    /// The homotopy settings of the next solve.
    pub fn solver_settings(&self) -> &HomotopySettings {
        self.solver.settings()
    }
    /// Replace the homotopy settings (the relaxation cannot change).
    pub fn set_solver_settings(&mut self, s: HomotopySettings) -> Result<(), FesdjError> {
        Ok(self.solver.set_settings(s)?)
    }
    /// Start the homotopy at `σ₀` (MPC: `fast_sigma_0` after a warm start, §4.8).
    pub fn set_sigma0(&mut self, sigma0: f64) -> Result<(), FesdjError> {
        let mut s = self.solver.settings().clone();
        s.sigma0 = sigma0;
        self.set_solver_settings(s)
    }
    /// Warm starts (`Start::Previous`, `Start::Shifted`) carry the last solution's
    /// multipliers too (shifted like the primal point) and begin the homotopy with the small
    /// barrier parameter of its later steps; off by default (primal warm start, §4.8).
    pub fn set_warm_duals(&mut self, on: bool) {
        self.warm_duals = on;
    }

    /// With `solver.warm_active_set`, leave the complementarity pairs of the first `first` and
    /// the last `last` control intervals relaxed in the warm active-set NLP (§4.8): the newly
    /// measured state decides the schedule at the start, and at the end the plan may add a
    /// contact change that the shifted plan does not have (without it, the active set of the
    /// first plan would be kept for good). The other pairs keep the shifted plan's active set.
    pub fn set_active_set_free_intervals(
        &mut self,
        first: usize,
        last: usize,
    ) -> Result<(), FesdjError> {
        let n = self.layout.n_intervals();
        let free: Vec<bool> = self
            .comp_info
            .iter()
            .map(|c| c.interval < first || c.interval + last >= n)
            .collect();
        Ok(self.solver.set_active_set_free(&free)?)
    }

    /// Weigh the normal-contact pairs (time stepping's stage-wise (13a), FESD-J's cross
    /// complementarity (20) and the impulse pairs (A.2) `Λ_n ⊥ Y + Υ_+ + Υ_−`) by `w` in the ℓ1
    /// penalty, every other pair by 1 (formulation §5.2, "pair weights"; the Scholtes
    /// relaxation ignores it). Configuration, not a per-tick call: it allocates the weights.
    pub fn set_contact_penalty_weight(&mut self, w: f64) -> Result<(), FesdjError> {
        let weights: Vec<f64> = self
            .comp_info
            .iter()
            .map(|c| match c.kind {
                PairKind::StageContact | PairKind::ContactCross | PairKind::ImpulseNormal => w,
                _ => 1.0,
            })
            .collect();
        Ok(self.solver.set_penalty_weights(&weights)?)
    }

    /// The ℓ1 penalty's pair weights ([`FesdjProblem::set_contact_penalty_weight`]), in the
    /// order of the pairs.
    pub fn penalty_weights(&self) -> &[f64] {
        self.solver.penalty_weights()
    }

    /// Impose a contact schedule on the next solves (a fixed-schedule controller, the
    /// comparison baseline of contact-implicit planning): `contact(k, n, ℓ)` says whether
    /// contact `ℓ` is closed in element `n` of control interval `k` (`Some(true)`: its gap is
    /// fixed to 0, `Some(false)`: its normal force is fixed to 0, `None`: free). It applies to
    /// the normal-contact pairs (time stepping's stage-wise (13a), FESD-J's cross
    /// complementarity (20)); friction follows from the normal force. `None` everywhere
    /// removes the schedule. No allocation.
    pub fn set_contact_schedule(
        &mut self,
        mut contact: impl FnMut(usize, usize, usize) -> Option<bool>,
    ) -> Result<(), FesdjError> {
        for (code, c) in self.imposed.iter_mut().zip(&self.comp_info) {
            *code = match c.kind {
                // G is the normal force, H the gap.
                PairKind::StageContact | PairKind::ContactCross => {
                    match contact(c.interval, c.element, c.contact) {
                        Some(true) => 2,
                        Some(false) => 1,
                        None => 0,
                    }
                }
                _ => 0,
            };
        }
        Ok(self.solver.set_imposed_sides(&self.imposed)?)
    }

    /// Save the last solution and its multipliers (e.g. a verified MPC plan), to go back to
    /// with [`FesdjProblem::revert`] after failed solves. No allocation.
    pub fn checkpoint(&mut self) {
        if !self.has_solution {
            return;
        }
        self.ckpt.copy_from_slice(&self.solution);
        for (c, d) in self.ckpt_duals.iter_mut().zip(&self.duals) {
            c.copy_from_slice(d);
        }
        self.has_ckpt = true;
    }

    /// After a failed solve: make the checkpoint the last solution again, moved by one control
    /// interval (§4.8) when `shift` (it then becomes the new checkpoint, so that the next
    /// `Start::Shifted` starts from the saved solution moved by the time that passed since it
    /// was saved) or in place. Returns false (and changes nothing) without a checkpoint. No
    /// allocation.
    pub fn revert(&mut self, shift: bool) -> bool {
        if !self.has_ckpt {
            return false;
        }
        self.has_solution = true;
        if shift {
            shift_by_interval(&self.ckpt, &mut self.solution, &self.interval_vars);
            shift_duals(
                &self.ckpt_duals,
                &mut self.duals,
                &self.interval_rows,
                &self.interval_vars,
            );
            self.checkpoint();
        } else {
            self.solution.copy_from_slice(&self.ckpt);
            for (d, c) in self.duals.iter_mut().zip(&self.ckpt_duals) {
                d.copy_from_slice(c);
            }
        }
        true
    }

    /// Wall-clock limit of the whole homotopy, seconds (`f64::INFINITY` for none).
    pub fn set_max_wall_time(&mut self, seconds: f64) -> Result<(), FesdjError> {
        let mut s = self.solver.settings().clone();
        s.max_wall_time = seconds;
        self.set_solver_settings(s)
    }

    /// Every variable index of control interval `k` in a fixed order (controls, then element
    /// by element: step, impulse block, left state, stages, right boundary), the order in
    /// which [`Start::Shifted`] moves intervals and [`Start::ShiftedTail`] takes its values.
    /// Two problems of one model and options have equal lists for equal interval structure.
    pub fn interval_variables(&self, k: usize) -> &[usize] {
        &self.interval_vars[k]
    }

    /// Write the last solution shifted by one control interval into `out` (§4.8): every
    /// variable of interval `k` takes the value of interval `k + 1`, the last interval keeps
    /// its own. Without a solution, `out` gets the initial guess.
    pub fn shifted_solution(&self, out: &mut [f64]) {
        if !self.has_solution {
            out.copy_from_slice(&self.guess);
            return;
        }
        shift_by_interval(&self.solution, out, &self.interval_vars);
    }

    /// Solve from `start` and return the trajectory (§4.2) with the solver's status and
    /// statistics. A failed homotopy is not an error: see `status` in the result.
    pub fn solve(&mut self, start: Start<'_>) -> Result<Trajectory, FesdjError> {
        let stats = self.solve_only(start)?;
        let mut b = TrajectoryBuilder::new(self.impact_threshold);
        b.reserve(
            self.layout.intervals.iter().map(|i| i.elements.len()).sum(),
            self.layout.n_s,
        );
        let end = self.extractor.append(&self.solution, 0.0, &mut b);
        let fin = self.extractor.final_state(&self.solution);
        Ok(b.finish(end, fin, &stats))
    }

    /// Solve without building a trajectory (the solution is in [`FesdjProblem::solution`]).
    pub fn solve_only(&mut self, start: Start<'_>) -> Result<SolveStats, FesdjError> {
        let mut x = std::mem::take(&mut self.start);
        match start {
            Start::Guess => x.copy_from_slice(&self.guess),
            Start::Previous if self.has_solution => x.copy_from_slice(&self.solution),
            Start::Previous => x.copy_from_slice(&self.guess),
            Start::Shifted => self.shifted_solution(&mut x),
            Start::ShiftedTail(tail) => {
                let last = self.interval_vars.last().map_or(&[][..], |v| v.as_slice());
                if tail.len() != last.len() {
                    self.start = x;
                    return Err(FesdjError::Dimension {
                        what: "last-interval values of the shifted start".into(),
                        expected: last.len(),
                        got: tail.len(),
                    });
                }
                self.shifted_solution(&mut x);
                if self.has_solution {
                    for (&i, &v) in last.iter().zip(tail) {
                        x[i] = v;
                    }
                }
            }
            Start::Primal(w) => {
                if w.len() != x.len() {
                    self.start = x;
                    return Err(FesdjError::Dimension {
                        what: "start point".into(),
                        expected: self.layout.n_w,
                        got: w.len(),
                    });
                }
                x.copy_from_slice(w);
            }
        }
        // Variables fixed by their bounds (initial state, fixed controls) start at the bound.
        let nlp = self.solver.nlp();
        for (i, xi) in x.iter_mut().enumerate() {
            let (l, u) = nlp.bound(i);
            if l == u {
                *xi = l;
            }
        }
        let max_steps = self.solver.settings().max_recorded_steps();
        let warm = self.warm_duals
            && self.has_solution
            && matches!(
                start,
                Start::Previous | Start::Shifted | Start::ShiftedTail(_)
            );
        let r = if warm {
            if matches!(start, Start::Shifted | Start::ShiftedTail(_)) {
                shift_duals(
                    &self.duals,
                    &mut self.duals_start,
                    &self.interval_rows,
                    &self.interval_vars,
                );
            } else {
                for (d, s) in self.duals_start.iter_mut().zip(&self.duals) {
                    d.copy_from_slice(s);
                }
            }
            let [l, a, b] = &self.duals_start;
            self.solver.solve_warm(
                &self.p,
                WarmPoint {
                    x: &x,
                    lambda: l,
                    z_l: a,
                    z_u: b,
                },
            )
        } else {
            self.solver.solve(&self.p, Some(&x))
        };
        self.start = x;
        let r = r?;
        // Field-wise so that the solver's result is read in place (no copy of it).
        self.solution.copy_from_slice(&r.x);
        self.homotopy.clear();
        self.homotopy.reserve(max_steps);
        self.homotopy.extend_from_slice(&r.steps);
        self.has_solution = true;
        let s = SolveStats {
            status: r.status,
            objective: r.objective,
            comp_residual: r.comp_residual_product,
            comp_residual_min: r.comp_residual,
            solve_time_s: r.time_s,
            nlp_iterations: r.nlp_iterations,
            homotopy_steps: r.homotopy_steps,
            failed_steps: 0,
            retried_steps: 0,
        };
        let (l, a, b) = self.solver.duals();
        self.duals[0].copy_from_slice(l);
        self.duals[1].copy_from_slice(a);
        self.duals[2].copy_from_slice(b);
        self.last = Some(s);
        Ok(s)
    }

    /// The stationarity certificate of the last solution (formulation §10.8; `None` before
    /// the first solve). Runs after the solve and allocates (the MPC controller does not call
    /// it). With `settings.descent_step` and a kept branch-NLP step, the last solution (and its
    /// duals) becomes the step's point; `fesdj solve` checks only (descent off), so that its
    /// trajectory is the homotopy's.
    pub fn certify(
        &mut self,
        settings: &StationaritySettings,
    ) -> Result<Option<Certificate>, FesdjError> {
        if !self.has_solution {
            return Ok(None);
        }
        let r = self.solver.certify(&self.p, settings)?;
        let cert = r.certificate.clone();
        if cert
            .as_ref()
            .and_then(|c| c.descent.as_ref())
            .is_some_and(|d| d.kept)
        {
            self.solution.copy_from_slice(&r.x);
            let (l, a, b) = self.solver.duals();
            self.duals[0].copy_from_slice(l);
            self.duals[1].copy_from_slice(a);
            self.duals[2].copy_from_slice(b);
        }
        Ok(cert)
    }

    /// Append the last solution's samples (times shifted by `t0`) to `b`; returns the end time.
    pub(crate) fn append_solution(&mut self, t0: f64, b: &mut TrajectoryBuilder) -> f64 {
        self.extractor.append(&self.solution, t0, b)
    }

    /// The final state of the last solution into `x` (`2 n_q`).
    pub(crate) fn final_state_into(&self, x: &mut [f64]) {
        self.extractor.final_state_into(&self.solution, x);
    }

    /// The final state `x(T)` of the last solution.
    pub fn final_state(&self) -> Option<super::trajectory::FinalState> {
        self.has_solution
            .then(|| self.extractor.final_state(&self.solution))
    }
}

fn check_len(what: &str, expected: usize, got: usize) -> Result<(), FesdjError> {
    if expected == got {
        Ok(())
    } else {
        Err(FesdjError::Dimension {
            what: what.into(),
            expected,
            got,
        })
    }
}

/// The multipliers `src` shifted by one control interval into `dst` (rows by the problem's
/// row lists, bound multipliers by its variable lists).
fn shift_duals(
    src: &[Vec<f64>; 3],
    dst: &mut [Vec<f64>; 3],
    rows: &[Vec<usize>],
    vars: &[Vec<usize>],
) {
    let [lam, zl, zu] = src;
    let [ls, zls, zus] = dst;
    shift_by_interval(lam, ls, rows);
    shift_by_interval(zl, zls, vars);
    shift_by_interval(zu, zus, vars);
}
