//! FESD-J as an integrator (§4.6): one problem with `N = 1` control interval of `N_FE`
//! elements over `T_step = T_sim / N_sim`, built once and solved `N_sim` times, each time from
//! the previous end state, warm-started with the previous step's solution, and on failure
//! retried once with the guess `Λ_n = 7, Y = 0, Υ± = 0, λ_n = 0, y = 0`.

use serde::{Deserialize, Serialize};

use super::cls::ClsModel;
use super::error::FesdjError;
use super::layout::{FrictionIndex, Layout};
use super::ocp::Ocp;
use super::options::FesdjOptions;
use super::problem::{FesdjProblem, SolveOptions, Start};
use super::trajectory::{SolveStats, Trajectory, TrajectoryBuilder};

/// Options of a simulation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimulationOptions {
    /// Simulated time `T_sim` (default 1).
    pub t_sim: f64,
    /// Number of integration steps `N_sim` (default 10).
    pub n_sim: usize,
    /// The FESD-J options of one step. `n_intervals` must be 1 and `t_final` is replaced by
    /// `T_sim / N_sim`.
    pub fesdj: FesdjOptions,
    /// Solver settings and trajectory thresholds.
    pub solve: SolveOptions,
    /// Warm start every step with the previous step's solution (nosnoc
    /// `use_previous_solution_as_initial_guess`, default true).
    pub warm_start: bool,
    /// Retry a failed step once with the guess of §4.6 (default true).
    pub retry: bool,
    /// Bounds on the speeds every step computes, one per coordinate
    /// ([`Simulator::set_speed_limits`]; default none).
    pub speed_limits: Option<Vec<f64>>,
}

impl Default for SimulationOptions {
    fn default() -> Self {
        SimulationOptions {
            t_sim: 1.0,
            n_sim: 10,
            fesdj: FesdjOptions::default(),
            solve: SolveOptions::default(),
            warm_start: true,
            retry: true,
            speed_limits: None,
        }
    }
}

/// Controls applied during a simulation.
#[derive(Clone, Debug, PartialEq)]
pub enum Controls {
    /// The same `u` in every step (empty for a model without inputs).
    Constant(Vec<f64>),
    /// One `u` per step (`N_sim` entries).
    PerStep(Vec<Vec<f64>>),
}

impl Controls {
    fn at(&self, step: usize) -> &[f64] {
        match self {
            Controls::Constant(u) => u,
            Controls::PerStep(us) => us.get(step).map_or(&[], |u| u.as_slice()),
        }
    }
}

/// A FESD-J integrator: one-step problem built once, stepped many times.
#[derive(Debug)]
pub struct Simulator {
    problem: FesdjProblem,
    step_time: f64,
    warm_start: bool,
    retry: bool,
    /// The §4.6 retry guess (computed once, refreshed with the current initial state).
    retry_guess: Vec<f64>,
    x: Vec<f64>,
    have_good: bool,
    /// Contact-mode restrictions of the attempts (on by default, see [`Simulator::step`]).
    modes: bool,
    /// Force variables: per impulse block (chain order) `Λ_n`, `Λ_d`/`Λ_t` and the cone slack
    /// `B`; and every stage's `λ_n`, `λ_d`/`λ_t`, `β`.
    impulse_forces: Vec<Vec<usize>>,
    stage_forces: Vec<usize>,
    /// The start point of an attempt (sized once).
    start: Vec<f64>,
    /// A finer simulator of the same model and its number of steps per step
    /// ([`Simulator::set_fallback`]).
    fallback: Option<(Box<Simulator>, usize)>,
    /// The speed limits of [`Simulator::set_speed_limits`] (applied to a later fallback too).
    speed_limits: Option<Vec<f64>>,
    /// Step sizes `h_n` with bounds `0 < (1 − γ_h) h̄ ≤ h ≤ (1 + γ_h) h̄`, each with `2 h̄`: the
    /// last attempt of [`Simulator::step`] widens their bounds to `[0, 2 h̄]` (γ_h = 1).
    step_vars: Vec<(usize, f64)>,
}

/// The contact mode an attempt of [`Simulator::step`] is restricted to, by fixing force
/// variables to 0. A solution of a restricted problem solves the full problem: the restriction
/// only removes the other branches of the relaxed complementarity (see `Simulator::step`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// No restriction.
    Free,
    /// No impulse and no contact force anywhere in the step.
    Flight,
    /// No impulse at any grid point; stage forces free (stance, lift-off).
    NoImpulse,
    /// An impulse only at impulse block `i` (chain order); stage forces free (touchdown).
    ImpulseAt(usize),
}

/// The force variables of `layout` (see [`Simulator`]'s fields).
fn force_indices(layout: &Layout) -> (Vec<Vec<usize>>, Vec<usize>) {
    fn friction(f: &FrictionIndex, out: &mut Vec<usize>) {
        match f {
            FrictionIndex::None => {}
            FrictionIndex::Polyhedral {
                lambda_d, beta_d, ..
            } => {
                out.extend(lambda_d);
                out.push(*beta_d);
            }
            FrictionIndex::Conic { lambda_t, beta, .. } => {
                out.extend(lambda_t);
                out.push(*beta);
            }
        }
    }
    let mut impulses = Vec::new();
    let mut stages = Vec::new();
    for iv in &layout.intervals {
        for e in &iv.elements {
            if let Some(imp) = &e.impulse {
                let mut v = imp.lambda_n.clone();
                for f in &imp.friction {
                    friction(f, &mut v);
                }
                impulses.push(v);
            }
            for st in &e.stages {
                stages.extend(&st.lambda_n);
                for f in &st.friction {
                    friction(f, &mut stages);
                }
            }
        }
    }
    (impulses, stages)
}

/// Result of one integration step.
#[derive(Clone, Copy, Debug)]
pub struct StepResult {
    /// Statistics (with `retried_steps`/`failed_steps` set to 0 or 1).
    pub stats: SolveStats,
}

impl Simulator {
    /// Build the one-step problem for `model` with steps of `step_time = T_sim / N_sim`.
    pub fn new(
        model: ClsModel,
        step_time: f64,
        fesdj: &FesdjOptions,
        mut solve: SolveOptions,
    ) -> Result<Simulator, FesdjError> {
        // Always the exact Hessian: the Gauss–Newton one (`solver.hessian`) approximates the
        // curvature of a tracking objective, which a simulation step does not have; its Newton
        // steps need the dynamics' curvature (a quadruped plant step with it ran for over
        // 20 min; offline two_discs and hopper_ocp stop at MaxIterations / RestorationFailed).
        solve.solver.hessian = crate::solver::HessianApproximation::Exact;
        // One interval's Jacobian is too short a tape to share between threads.
        solve.solver.eval_threads = 1;
        if fesdj.n_intervals != 1 {
            return Err(FesdjError::InvalidOption {
                field: "n_intervals".into(),
                why: format!(
                    "a simulation step has one interval, got {}",
                    fesdj.n_intervals
                ),
            });
        }
        if !(step_time.is_finite() && step_time > 0.0) {
            return Err(FesdjError::InvalidOption {
                field: "t_sim".into(),
                why: format!("the step T_sim/N_sim must be finite and > 0, got {step_time}"),
            });
        }
        let n_q = model.n_q();
        let options = FesdjOptions {
            t_final: step_time,
            ..fesdj.clone()
        };
        let ocp = Ocp::new(model, vec![0.0; 2 * n_q]);
        let problem = FesdjProblem::new(&ocp, &options, solve)?;
        let n_w = problem.n_w();
        let (impulse_forces, stage_forces) = force_indices(problem.layout());
        let step_vars = problem
            .layout()
            .elements()
            .filter_map(|e| e.h)
            .filter_map(|i| match problem.transcribed_bounds(i) {
                Some((lb, ub)) if lb > 0.0 && lb < ub => Some((i, lb + ub)),
                _ => None,
            })
            .collect();
        Ok(Simulator {
            problem,
            step_time,
            warm_start: true,
            retry: true,
            retry_guess: vec![0.0; n_w],
            x: vec![0.0; 2 * n_q],
            have_good: false,
            modes: true,
            impulse_forces,
            stage_forces,
            start: vec![0.0; n_w],
            fallback: None,
            speed_limits: None,
            step_vars,
        })
    }

    /// The simulator [`simulate`] runs: steps of `T_sim / N_sim`, the strategy and speed
    /// limits of `options`.
    pub fn from_options(
        model: ClsModel,
        options: &SimulationOptions,
    ) -> Result<Simulator, FesdjError> {
        if options.n_sim == 0 {
            return Err(FesdjError::InvalidOption {
                field: "n_sim".into(),
                why: "must be at least 1".into(),
            });
        }
        let mut sim = Simulator::new(
            model,
            options.t_sim / options.n_sim as f64,
            &options.fesdj,
            options.solve.clone(),
        )?;
        sim.set_strategy(options.warm_start, options.retry);
        if let Some(l) = &options.speed_limits {
            sim.set_speed_limits(l)?;
        }
        Ok(sim)
    }

    /// Bound every velocity a step computes (RK stages and right boundaries, not the given
    /// initial state) to `|v_i| ≤ limits[i]` (`+inf`: no bound), in this simulator and in its
    /// sub-stepping fallback (also one set later). A guard against the spurious roots of implicit RK steps **[ours]**:
    /// with velocity-quadratic forces (Coriolis, centrifugal) `M(q₊)(v₊ − v) = h f_v(q₊, v₊) + …`
    /// has, besides the physical root near `v`, roots with `h ∂f_v/∂v` as large as `M` — speeds
    /// of order `M / (h C)`, tens to hundreds of rad/s for a light link at `h = 0.05`, and the
    /// IPM can converge to one (a "solved" step that spins a wrist at 1700 rad/s). Limits well
    /// above the physical speeds and below those roots leave the physical root as the only
    /// solution; a step that would need more speed fails and goes to the fallback.
    pub fn set_speed_limits(&mut self, limits: &[f64]) -> Result<(), FesdjError> {
        let n_q = self.x.len() / 2;
        if limits.len() != n_q || limits.iter().any(|l| l.is_nan() || *l <= 0.0) {
            return Err(FesdjError::InvalidOption {
                field: "speed_limits".into(),
                why: format!("needs {n_q} limits > 0 (inf: none), got {limits:?}"),
            });
        }
        let mut indices: Vec<usize> = Vec::new();
        for e in self.problem.layout().elements() {
            for st in &e.stages {
                indices.extend(&st.v);
            }
            if let Some(r) = &e.right {
                indices.extend(&r.v);
            }
        }
        for (k, i) in indices.into_iter().enumerate() {
            let l = limits[k % n_q];
            self.problem.set_variable_bounds(i, Some((-l, l)))?;
        }
        if let Some((fine, _)) = self.fallback.as_mut() {
            fine.set_speed_limits(limits)?;
        }
        self.speed_limits = Some(limits.to_vec());
        Ok(())
    }

    /// Sub-stepping: when every attempt of a step fails, integrate the step with `fine`
    /// instead, a simulator of the same model whose step is this one's divided by an integer
    /// `n_sub ≥ 2` (its own attempts, and its own fallback if it has one). Errors if the step
    /// times do not divide or the state sizes differ. [`Simulator::run`] records the
    /// sub-steps' samples for such a step; its end state is the fine one.
    pub fn set_fallback(&mut self, mut fine: Simulator) -> Result<(), FesdjError> {
        let ratio = self.step_time / fine.step_time;
        let n_sub = ratio.round();
        if !(n_sub >= 2.0 && (ratio - n_sub).abs() <= 1e-9 * ratio) || fine.x.len() != self.x.len()
        {
            return Err(FesdjError::InvalidOption {
                field: "fallback".into(),
                why: format!(
                    "needs a step {} / n (integer n ≥ 2) and {} states, got step {} and {} states",
                    self.step_time,
                    self.x.len(),
                    fine.step_time,
                    fine.x.len()
                ),
            });
        }
        if let Some(l) = &self.speed_limits {
            fine.set_speed_limits(l)?;
        }
        self.fallback = Some((Box::new(fine), n_sub as usize));
        Ok(())
    }

    /// Enable or disable the contact-mode attempts of [`Simulator::step`] (on by default; off
    /// gives the attempts of §4.6 only).
    pub fn set_contact_modes(&mut self, on: bool) {
        self.modes = on;
    }

    /// Restrict the problem to `mode` (bounds of the force variables; no allocation).
    fn restrict(&mut self, mode: Mode) -> Result<(), FesdjError> {
        let zero = Some((0.0, 0.0));
        let stage = if mode == Mode::Flight { zero } else { None };
        for &i in &self.stage_forces {
            self.problem.set_variable_bounds(i, stage)?;
        }
        for (b, idx) in self.impulse_forces.iter().enumerate() {
            let fixed = match mode {
                Mode::Free => None,
                Mode::Flight | Mode::NoImpulse => zero,
                Mode::ImpulseAt(a) => (a != b).then_some((0.0, 0.0)),
            };
            for &i in idx {
                self.problem.set_variable_bounds(i, fixed)?;
            }
        }
        Ok(())
    }

    /// One attempt restricted to `mode`, from the default guess (impulse modes: the §4.6
    /// retry guess at that grid point) with every state at `x` (§5.9).
    fn attempt(&mut self, mode: Mode, x: &[f64]) -> Result<SolveStats, FesdjError> {
        let mut w = std::mem::take(&mut self.start);
        match mode {
            Mode::ImpulseAt(a) => match self.problem.impulse_points().nth(a) {
                Some((k, n)) => self.problem.retry_guess_at(k, n, &mut w),
                None => w.copy_from_slice(self.problem.guess()),
            },
            _ => w.copy_from_slice(self.problem.guess()),
        }
        let r = self
            .restrict(mode)
            .and_then(|()| self.problem.write_states(x, &mut w))
            .and_then(|()| self.problem.solve_only(Start::Primal(&w)));
        self.start = w;
        let reset = self.restrict(Mode::Free);
        let r = r?;
        reset?;
        Ok(r)
    }

    /// The last attempt of [`Simulator::step`] **[ours]**: every step size free in `[0, 2 h̄]`
    /// (γ_h = 1) instead of `[(1 − γ_h) h̄, (1 + γ_h) h̄]`, from the default guess and the
    /// §4.6 retry guess, both with every state at `x`, then in the impulse-at-one-point
    /// modes. An impact within `(1 − γ_h) h̄` of the step's start (a state a hair before
    /// contact, closing fast) needs a first element that short, and its step problem is
    /// infeasible with the bounds of (15): the three boxes' middle box 5.5e-4 from the left
    /// one at −8 m/s hits it 7e-5 s into a 0.4 s step, while γ_h = 0.8 keeps the first
    /// element ≥ 0.04 s. The bounds are restored afterwards.
    fn attempt_free_steps(&mut self, x: &[f64]) -> Result<SolveStats, FesdjError> {
        let r = self
            .free_step_bounds(true)
            .and_then(|()| self.free_step_attempts(x));
        let reset = self.free_step_bounds(false);
        let r = r?;
        reset?;
        Ok(r)
    }

    /// Widen (`free`) or restore the bounds of `step_vars`.
    fn free_step_bounds(&mut self, free: bool) -> Result<(), FesdjError> {
        for &(i, ub) in &self.step_vars {
            self.problem
                .set_variable_bounds(i, free.then_some((0.0, ub)))?;
        }
        Ok(())
    }

    /// The attempts of [`Simulator::attempt_free_steps`], with the bounds already widened.
    fn free_step_attempts(&mut self, x: &[f64]) -> Result<SolveStats, FesdjError> {
        let mut w = std::mem::take(&mut self.start);
        let r = self.guess_attempts(x, &mut w);
        self.start = w;
        let mut stats = r?;
        let modes = if self.modes {
            self.impulse_forces.len()
        } else {
            0
        };
        for a in 0..modes {
            if stats.status.is_success() {
                break;
            }
            stats = merge(stats, self.attempt(Mode::ImpulseAt(a), x)?);
        }
        Ok(stats)
    }

    /// The default guess, then (if it fails) the §4.6 retry guess, both with every state at
    /// `x`, written into `w`.
    fn guess_attempts(&mut self, x: &[f64], w: &mut [f64]) -> Result<SolveStats, FesdjError> {
        w.copy_from_slice(self.problem.guess());
        self.problem.write_states(x, w)?;
        let first = self.problem.solve_only(Start::Primal(w))?;
        if first.status.is_success() {
            return Ok(first);
        }
        self.problem.retry_guess(w);
        self.problem.write_states(x, w)?;
        Ok(merge(first, self.problem.solve_only(Start::Primal(w))?))
    }

    /// Enable or disable warm starts and the retry of §4.6 (both on by default).
    pub fn set_strategy(&mut self, warm_start: bool, retry: bool) {
        self.warm_start = warm_start;
        self.retry = retry;
    }

    /// The underlying one-step problem (layout, guess, solver settings).
    pub fn problem(&mut self) -> &mut FesdjProblem {
        &mut self.problem
    }

    /// Step length `T_step`.
    pub fn step_time(&self) -> f64 {
        self.step_time
    }

    /// The state after the last step (`2 n_q`).
    pub fn state(&self) -> &[f64] {
        &self.x
    }

    /// Integrate one step from `x` with control `u`; the end state is then in
    /// [`Simulator::state`] and the step's solution in the problem.
    ///
    /// Attempts, until one succeeds: the previous step's solution (warm start, if the previous
    /// step succeeded), the §4.6 retry guess (`Λ_n = 7, Y = 0, Υ± = 0, λ_n = 0, y = 0`), and —
    /// if the first attempt was warm — the default guess (§5.9) **[ours]**: the retry guess
    /// suits steps with an impact, the default guess free-flight steps after a warm start
    /// failed. With more than one impulse block per step, finally the retry guess with
    /// `Λ_n = 7` at one grid point at a time, in chain order, with every state at `x`
    /// ([`FesdjProblem::retry_guess_at`]) **[ours]**; last, the same problem with free step
    /// sizes (`Simulator::attempt_free_steps`) **[ours]**.
    pub fn step(&mut self, x: &[f64], u: &[f64]) -> Result<StepResult, FesdjError> {
        self.step_rec(x, u, None)
    }

    /// [`Simulator::step`], appending the step's samples from `t0` to a trajectory when `rec`
    /// is given: this problem's solution, or the sub-steps' solutions when the fallback
    /// integrated the step.
    fn step_rec(
        &mut self,
        x: &[f64],
        u: &[f64],
        mut rec: Option<(&mut TrajectoryBuilder, f64)>,
    ) -> Result<StepResult, FesdjError> {
        self.problem.set_initial_state(x)?;
        self.problem.fix_control(0, u)?;
        let warm = self.warm_start && self.have_good;
        let first = if warm { Start::Previous } else { Start::Guess };
        let mut stats = self.problem.solve_only(first)?;
        let mut retries = 0;
        if self.retry && self.modes && !stats.status.is_success() {
            // Contact modes, cheapest first: flight, no impulse (stance, lift-off), then an
            // impulse at one grid point at a time (touchdown).
            let n_imp = self.impulse_forces.len();
            let mut m = 0;
            while !stats.status.is_success() && m < 2 + n_imp {
                let mode = match m {
                    0 => Mode::Flight,
                    1 => Mode::NoImpulse,
                    a => Mode::ImpulseAt(a - 2),
                };
                m += 1;
                if mode == Mode::NoImpulse && n_imp == 0 {
                    continue;
                }
                stats = merge(stats, self.attempt(mode, x)?);
                retries += 1;
            }
        }
        if self.retry {
            if !stats.status.is_success() {
                self.problem.retry_guess(&mut self.retry_guess);
                let guess = std::mem::take(&mut self.retry_guess);
                let r = self.problem.solve_only(Start::Primal(&guess));
                self.retry_guess = guess;
                stats = merge(stats, r?);
                retries += 1;
            }
            if !stats.status.is_success() && warm {
                stats = merge(stats, self.problem.solve_only(Start::Guess)?);
                retries += 1;
            }
            // With several impulse blocks per step (N_FE ≥ 3, or N_FE = 2 without
            // `no_initial_impacts`), guess the impact at one grid point at a time (see
            // `FesdjProblem::retry_guess_at`: the homotopy cannot move an impact between grid
            // points, and `Λ_n = 7` at every block asks for an impact at each of them).
            if !stats.status.is_success() && self.problem.impulse_points().nth(1).is_some() {
                let mut guess = std::mem::take(&mut self.retry_guess);
                let mut at = 0;
                while !stats.status.is_success() {
                    let Some((k, n)) = self.problem.impulse_points().nth(at) else {
                        break;
                    };
                    at += 1;
                    self.problem.retry_guess_at(k, n, &mut guess);
                    // States at this step's start state everywhere (§5.9); the problem was
                    // built with x_0 = 0, which the other guesses keep.
                    if let Err(e) = self.problem.write_states(x, &mut guess) {
                        self.retry_guess = guess;
                        return Err(e);
                    }
                    let r = self.problem.solve_only(Start::Primal(&guess));
                    match r {
                        Ok(r) => stats = merge(stats, r),
                        Err(e) => {
                            self.retry_guess = guess;
                            return Err(e);
                        }
                    }
                    retries += 1;
                }
                self.retry_guess = guess;
            }
            if !stats.status.is_success() && !self.step_vars.is_empty() {
                stats = merge(stats, self.attempt_free_steps(x)?);
                retries += 1;
            }
        }
        self.have_good = stats.status.is_success();
        self.problem.final_state_into(&mut self.x);
        let mut sub_stepped = false;
        if !stats.status.is_success() {
            if let Some((fine, n_sub)) = self.fallback.as_mut() {
                // Sub-steps from x: the fine steps' status replaces the failed one (the
                // fine simulator's last solution then holds the end state, this problem's
                // solution stays the failed attempt's; a recorded trajectory gets the
                // sub-steps' samples).
                let mut sub = SolveStats::empty();
                self.x.copy_from_slice(x);
                fine.have_good = false;
                let dt = fine.step_time;
                for i in 0..*n_sub {
                    let sub_rec = rec.as_mut().map(|(b, t0)| (&mut **b, *t0 + i as f64 * dt));
                    let r = fine.step_rec(&self.x, u, sub_rec)?;
                    sub.accumulate(&r.stats);
                    self.x.copy_from_slice(&fine.x);
                    if !r.stats.status.is_success() {
                        break;
                    }
                }
                stats = merge(stats, sub);
                retries += 1;
                sub_stepped = true;
            }
        }
        if let (Some((b, t0)), false) = (rec, sub_stepped) {
            self.problem.append_solution(t0, b);
        }
        stats.retried_steps = usize::from(retries > 0);
        stats.failed_steps = usize::from(!stats.status.is_success());
        Ok(StepResult { stats })
    }

    /// Run `n_sim` steps from `x0` with `controls`, collecting the whole trajectory with
    /// impulses and switch times.
    pub fn run(
        &mut self,
        x0: &[f64],
        controls: &Controls,
        n_sim: usize,
    ) -> Result<Trajectory, FesdjError> {
        if let Controls::PerStep(us) = controls {
            if us.len() != n_sim {
                return Err(FesdjError::Dimension {
                    what: "controls (one per step)".into(),
                    expected: n_sim,
                    got: us.len(),
                });
            }
        }
        let mut b = TrajectoryBuilder::new(self.problem.impact_threshold());
        let n_fe = self.problem.layout().n_fe(0);
        b.reserve(n_sim * n_fe, self.problem.layout().n_s);
        let mut stats = SolveStats::empty();
        let mut x = x0.to_vec();
        let mut t = 0.0;
        self.have_good = false;
        for step in 0..n_sim {
            let r = self.step_rec(&x, controls.at(step), Some((&mut b, t)))?;
            stats.accumulate(&r.stats);
            // Steps are exactly T_step long (no accumulated round-off in the start times).
            t = (step + 1) as f64 * self.step_time;
            x.copy_from_slice(&self.x);
        }
        let n_q = x.len() / 2;
        let fin = super::trajectory::FinalState {
            q: x[..n_q].to_vec(),
            v: x[n_q..].to_vec(),
        };
        Ok(b.finish(t, fin, &stats))
    }
}

/// Statistics of a later attempt `b` with the cost of the earlier `a` added.
fn merge(a: SolveStats, mut b: SolveStats) -> SolveStats {
    b.solve_time_s += a.solve_time_s;
    b.nlp_iterations += a.nlp_iterations;
    b.homotopy_steps += a.homotopy_steps;
    b
}

/// Simulate `model` from `x0` over `T_sim` in `N_sim` FESD-J steps (§4.6) with `controls`.
pub fn simulate(
    model: ClsModel,
    x0: &[f64],
    controls: &Controls,
    options: &SimulationOptions,
) -> Result<Trajectory, FesdjError> {
    Simulator::from_options(model, options)?.run(x0, controls, options.n_sim)
}
