//! The receding-horizon controller (§4.8).

use std::time::Duration;

use crate::fesdj::{ClsModel, FesdjProblem, Simulator, SolveStats, Start};
use crate::solver::Status;

use super::base_command::{BaseCommandReference, BaseCoordinates};
pub use super::counters::Counters;
use super::counters::TickStats;
use super::error::MpcError;
use super::gait_library::GaitBlend;
use super::plan::{Plan, PlanSource};
use super::projection::GapProjection;
use super::reference::PeriodicReference;
use super::schedule::impose_at_element_ends;
use super::schedule::ContactSchedule;
use super::settings::ControllerSettings;
use super::tail::Tail;

mod backup;

/// A receding-horizon FESD-J controller. Built once; per tick `set_state`, optionally
/// `set_reference`, `solve(budget)`, then [`Controller::control`] for the command to apply.
pub struct Controller {
    problem: FesdjProblem,
    settings: ControllerSettings,
    n_q: usize,
    x: Vec<f64>,
    t_state: f64,
    have_state: bool,
    current: Plan,
    candidate: Plan,
    warm: bool,
    sigma0: f64,
    wall: f64,
    q_hold: Vec<f64>,
    u_fallback: Vec<f64>,
    /// Zero velocities (the fallback law without a fresh measurement).
    v_zero: Vec<f64>,
    /// [`Controller::command`]'s output.
    u_command: Vec<f64>,
    ever_verified: bool,
    fallback_engaged: bool,
    failures_in_row: usize,
    /// The problem's checkpoint is a verified plan of this controller's life (not before a
    /// reset).
    can_revert: bool,
    tail: Option<Tail>,
    projection: Option<GapProjection>,
    /// The state the last solve planned from (the measured one, projected).
    x_plan: Vec<f64>,
    last_penetration: f64,
    counters: Counters,
    /// Length of a control interval (s).
    interval: f64,
    /// Time at which the grid of the problem's present solution begins (the last attempt's
    /// state time).
    t_aligned: f64,
    /// Elapsed time not yet shifted out of the warm start, in control intervals.
    shift_debt: f64,
    /// Written into the references before every solve.
    periodic: Option<PeriodicReference>,
    /// The base reference slots of a commanded base velocity, and the command in force
    /// (`None`: never commanded; the references stay as configured).
    base_command: Option<BaseCommandReference>,
    base_velocity: Option<[f64; 3]>,
    /// A gait library blended for the command in force (standing when never commanded).
    gaits: Option<GaitBlend>,
    /// An imposed contact schedule (the fixed-schedule variant), written before every solve.
    schedule: Option<ContactSchedule>,
    /// The gait library's schedule is lifted until the next verified solve (the last
    /// scheduled one failed; [`ControllerSettings::gait_schedule_from`]).
    schedule_released: bool,
    /// A second controller that plans first on every tick and serves when this one's solve
    /// is not verified ([`Controller::set_backup`]).
    backup: Option<Box<Controller>>,
    /// The backup's plan is in charge.
    serving_backup: bool,
    /// A primal start from the backup's plan, used when this controller has no warm start of
    /// its own (sized when the backup is set; empty when the backup's layout cannot be mapped
    /// onto this one's, see `seed::compatible`).
    seed: Vec<f64>,
    last_tick: TickStats,
}

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("settings", &self.settings)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

impl Controller {
    /// Take ownership of a built problem (its horizon, weights and bounds are the MPC's).
    /// `n_u` and `n_c` are the model's numbers of controls and contacts.
    pub fn new(
        mut problem: FesdjProblem,
        n_u: usize,
        n_c: usize,
        settings: ControllerSettings,
    ) -> Result<Controller, MpcError> {
        let layout = problem.layout();
        let n_q = layout.n_q;
        settings.validate(n_q, n_u)?;
        if (0..layout.n_intervals()).any(|k| layout.u(k).len() != n_u) {
            return Err(MpcError::Settings {
                field: "n_u".into(),
                why: "does not match the problem's controls".into(),
            });
        }
        if let Some(k) = settings.gait_schedule_from {
            if k >= layout.n_intervals() {
                return Err(MpcError::Settings {
                    field: "gait_schedule_from".into(),
                    why: format!(
                        "interval {k} is beyond the horizon's {} intervals",
                        layout.n_intervals()
                    ),
                });
            }
        }
        let interval = problem.options().t_final / layout.n_intervals() as f64;
        let current = Plan::sized(layout, n_u, n_c);
        problem.set_warm_duals(settings.warm_duals);
        problem.set_contact_penalty_weight(settings.contact_penalty_weight)?;
        problem.set_active_set_free_intervals(
            settings.active_set_free_intervals,
            settings.active_set_free_last_intervals,
        )?;
        let candidate = current.clone();
        Ok(Controller {
            problem,
            n_q,
            x: vec![0.0; 2 * n_q],
            t_state: 0.0,
            have_state: false,
            current,
            candidate,
            warm: false,
            sigma0: f64::NAN,
            wall: f64::NAN,
            q_hold: vec![0.0; n_q],
            u_fallback: vec![0.0; n_u],
            v_zero: vec![0.0; n_q],
            u_command: vec![0.0; n_u],
            ever_verified: false,
            fallback_engaged: false,
            failures_in_row: 0,
            can_revert: false,
            tail: None,
            projection: None,
            x_plan: vec![0.0; 2 * n_q],
            last_penetration: 0.0,
            counters: Counters::default(),
            interval,
            t_aligned: 0.0,
            shift_debt: 0.0,
            periodic: None,
            base_command: None,
            gaits: None,
            base_velocity: None,
            schedule: None,
            schedule_released: false,
            backup: None,
            serving_backup: false,
            seed: Vec::new(),
            last_tick: TickStats::default(),
            settings,
        })
    }

    /// Track a periodic reference: before every solve its values at the interval ends after
    /// the state's time (and with `terminal` at the horizon's end) replace the problem's LSQ
    /// references (see [`PeriodicReference`]).
    pub fn set_periodic_reference(
        &mut self,
        mut reference: PeriodicReference,
        terminal: bool,
    ) -> Result<(), MpcError> {
        let t_final = self.problem.options().t_final;
        reference.attach(self.problem.layout(), t_final, terminal)?;
        self.periodic = Some(reference);
        Ok(())
    }

    /// Impose a periodic contact schedule on every solve (the fixed-schedule variant of the
    /// controller, see [`ContactSchedule`]); it must list the model's `n_c` contacts. `None`
    /// removes it.
    pub fn set_contact_schedule(
        &mut self,
        schedule: Option<ContactSchedule>,
    ) -> Result<(), MpcError> {
        if let Some(s) = &schedule {
            if s.n_contacts() != self.current.n_c {
                return Err(MpcError::Settings {
                    field: "contact_schedule".into(),
                    why: format!(
                        "written for {} contacts, the model has {}",
                        s.n_contacts(),
                        self.current.n_c
                    ),
                });
            }
        } else {
            self.problem.set_contact_schedule(|_, _, _| None)?;
        }
        self.schedule = schedule;
        Ok(())
    }

    /// Let a commanded base velocity ([`Controller::set_base_velocity`]) drive the references
    /// of the base coordinates `coords` (a floating base's `x`, `y`, `yaw`), see
    /// [`BaseCommandReference`].
    pub fn set_base_command_coordinates(
        &mut self,
        coords: BaseCoordinates,
    ) -> Result<(), MpcError> {
        let t_final = self.problem.options().t_final;
        self.base_command = Some(BaseCommandReference::new(
            self.problem.layout(),
            t_final,
            coords,
        )?);
        Ok(())
    }

    /// Track a gait library ([`GaitBlend`]): before every solve, after the periodic reference
    /// and before the base command, the library's gaits blended for the command in force (a
    /// zero command when none was given) are written into every reference entry but the
    /// base's x, y, yaw and their rates.
    pub fn set_gait_library(&mut self, mut gaits: GaitBlend) -> Result<(), MpcError> {
        let t_final = self.problem.options().t_final;
        gaits.attach(self.problem.layout(), t_final)?;
        self.gaits = Some(gaits);
        Ok(())
    }

    /// The base velocity command `(vₓ, v_y, ω)` (heading frame: forward, lateral, yaw rate)
    /// the next solves track: before every solve the references of the base's `x, y, yaw` and
    /// of their rates are written along the command's arc from the state (after the periodic
    /// reference, which keeps the other entries). `None` leaves the references as they are
    /// from then on. Non-finite values are rejected and nothing changes; without
    /// [`Controller::set_base_command_coordinates`] every command is an error.
    pub fn set_base_velocity(&mut self, cmd: Option<[f64; 3]>) -> Result<(), MpcError> {
        if self.base_command.is_none() {
            return Err(MpcError::BadInput {
                what: "base velocity".into(),
                why: "no base coordinates configured (set_base_command_coordinates)".into(),
            });
        }
        if let Some(i) = cmd.and_then(|c| c.iter().position(|x| !x.is_finite())) {
            return Err(MpcError::BadInput {
                what: format!("base velocity[{i}]"),
                why: "must be finite".into(),
            });
        }
        if let Some(b) = self.backup.as_mut() {
            b.set_base_velocity(cmd)?;
        }
        self.base_velocity = cmd;
        Ok(())
    }

    /// The base velocity command in force ([`Controller::set_base_velocity`]).
    pub fn base_velocity(&self) -> Option<[f64; 3]> {
        self.base_velocity
    }

    /// Plan from the nearest contact-admissible configuration when the measured one
    /// penetrates a contact of `model` (the controller's model), by up to `max_penetration`
    /// per gap; a deeper penetration makes [`Controller::solve`] refuse the state as bad input
    /// (see [`GapProjection`]) **[ours]**.
    pub fn set_gap_projection(
        &mut self,
        model: &ClsModel,
        max_penetration: f64,
    ) -> Result<(), MpcError> {
        if model.n_q() != self.n_q {
            return Err(MpcError::Settings {
                field: "max_penetration".into(),
                why: format!(
                    "the model has {} coordinates, the controller {}",
                    model.n_q(),
                    self.n_q
                ),
            });
        }
        self.projection = Some(GapProjection::new(model, max_penetration)?);
        Ok(())
    }

    /// The deepest penetration of the state the last solve started from (0: none; it planned
    /// from the projected state, see [`Controller::set_gap_projection`]).
    pub fn last_penetration(&self) -> f64 {
        self.last_penetration
    }

    /// The state the last solve planned from: the measured one, or its projection.
    pub fn planned_state(&self) -> &[f64] {
        &self.x_plan
    }

    /// Simulate the last interval of every warm start **[ours]**: after a verified solve,
    /// `sim` integrates one control interval from the plan's final state under the plan's
    /// last control, and the next shifted warm start ([`Start::ShiftedTail`]) takes that
    /// interval instead of a copy of the old last one (§4.8 duplicates it, which leaves a
    /// continuity gap at the start of the last interval). `sim` must have the controller's
    /// interval structure: its one interval as long as a control interval, with the same
    /// variables per interval (same model, scheme, `n_s`, `N_FE`, `no_initial_impacts`,
    /// friction model). A failed tail step falls back to the plain shift.
    pub fn set_tail_simulator(&mut self, sim: Simulator) -> Result<(), MpcError> {
        self.tail = Some(Tail::new(sim, &self.problem, self.n_q, self.wall)?);
        Ok(())
    }

    /// The simulated state at the end of the next warm start's last interval (present after
    /// a verified solve whose tail step succeeded).
    pub fn tail_state(&self) -> Option<&[f64]> {
        self.tail.as_ref().and_then(Tail::state)
    }

    /// Statistics of the last tail simulation ([`Controller::set_tail_simulator`]).
    pub fn last_tail_stats(&self) -> Option<&SolveStats> {
        self.tail.as_ref().and_then(Tail::stats)
    }

    /// The settings.
    pub fn settings(&self) -> &ControllerSettings {
        &self.settings
    }
    /// The owned problem (layout, parameters).
    pub fn problem(&self) -> &FesdjProblem {
        &self.problem
    }
    /// Counters since construction (or the last [`Controller::reset`]).
    pub fn counters(&self) -> Counters {
        self.counters
    }
    /// The current plan (verified, previous or fallback; the backup's when it serves).
    pub fn plan(&self) -> &Plan {
        match &self.backup {
            Some(b) if self.serving_backup => &b.current,
            _ => &self.current,
        }
    }

    /// What the last [`Controller::solve`] cost and whose plan it left in charge.
    pub fn last_tick(&self) -> TickStats {
        self.last_tick
    }

    /// Set the measured state at time `t`. A non-finite value or a wrong length is rejected
    /// and nothing changes (the controller keeps its plan or fallback).
    pub fn set_state(&mut self, t: f64, q: &[f64], v: &[f64]) -> Result<(), MpcError> {
        check_measurement(t, q, v, self.n_q)?;
        if self.have_state && t < self.t_state {
            return Err(MpcError::BadInput {
                what: "t".into(),
                why: format!(
                    "out of order: {t} is before the last state at {}",
                    self.t_state
                ),
            });
        }
        self.x[..self.n_q].copy_from_slice(q);
        self.x[self.n_q..].copy_from_slice(v);
        self.t_state = t;
        self.have_state = true;
        Ok(())
    }

    /// Replace the references (the problem's parameter vector, see
    /// `FesdjProblem::layout().params`). Non-finite values are rejected. With a periodic
    /// reference ([`Controller::set_periodic_reference`]) every solve rewrites the LSQ state
    /// references from it.
    pub fn set_reference(&mut self, p: &[f64]) -> Result<(), MpcError> {
        if let Some(i) = p.iter().position(|x| !x.is_finite()) {
            return Err(MpcError::BadInput {
                what: format!("reference[{i}]"),
                why: "must be finite".into(),
            });
        }
        if let Some(b) = self.backup.as_mut() {
            b.set_reference(p)?;
        }
        self.problem.set_parameters(p)?;
        Ok(())
    }

    /// Forget the plan and warm start: the next solve is cold and the fallback holds the
    /// current posture until then.
    pub fn reset(&mut self) {
        self.warm = false;
        self.schedule_released = false;
        self.can_revert = false;
        if let Some(t) = self.tail.as_mut() {
            t.ready = false;
        }
        self.failures_in_row = 0;
        self.current.source = PlanSource::Fallback;
        if self.have_state {
            self.q_hold.copy_from_slice(&self.x[..self.n_q]);
        }
        self.fallback_engaged = true;
        self.counters = Counters::default();
        self.serving_backup = false;
        if let Some(b) = self.backup.as_mut() {
            b.reset();
        }
    }

    /// Re-solve from the last state within the wall-time `budget`. Returns the plan now in charge: a
    /// fresh verified one, the previous verified one (solve failed, previous plan still within
    /// its horizon), or a fallback plan. Only bad sizes or options are errors.
    pub fn solve(&mut self, budget: Duration) -> Result<&Plan, MpcError> {
        if !self.have_state {
            return Err(MpcError::NoState);
        }
        let Some(mut backup) = self.backup.take() else {
            self.solve_own(budget, None, false)?;
            self.last_tick = self.own_tick_stats();
            return Ok(&self.current);
        };
        let r = self.solve_with_backup(&mut backup, budget);
        self.backup = Some(backup);
        r?;
        Ok(self.plan())
    }

    /// [`TickStats`] of this controller's own last solve.
    fn own_tick_stats(&self) -> TickStats {
        let s = self.problem.last_stats();
        TickStats {
            solve_time_s: s.map_or(f64::NAN, |s| s.solve_time_s),
            nlp_iterations: s.map_or(0, |s| s.nlp_iterations),
            homotopy_steps: s.map_or(0, |s| s.homotopy_steps),
            ..TickStats::default()
        }
    }

    /// This controller's solve within `budget`. `backup`: the source of the backup's plan
    /// after its solve of this tick (it serves when this solve fails, so a deadline stop or
    /// a fallback is then not counted as the tick's). `seeded`: without a warm start, start
    /// from `self.seed` (the backup's plan of this tick) instead of the initial guess.
    fn solve_own(
        &mut self,
        budget: Duration,
        backup: Option<PlanSource>,
        seeded: bool,
    ) -> Result<(), MpcError> {
        let backup_fresh = backup == Some(PlanSource::Fresh);
        self.x_plan.copy_from_slice(&self.x);
        self.last_penetration = 0.0;
        if let Some(p) = self.projection.as_mut() {
            self.last_penetration = p.project(&mut self.x_plan[..self.n_q])?;
        }
        self.counters.solves += 1;
        if self.last_penetration > 0.0 {
            self.counters.projected_states += 1;
        }
        self.problem.set_initial_state(&self.x_plan)?;
        if let Some(r) = &self.periodic {
            r.write(self.t_state, self.problem.parameters_mut());
        }
        if let Some(g) = &self.gaits {
            let cmd = self.base_velocity.unwrap_or([0.0; 3]);
            g.write(self.t_state, cmd, self.problem.parameters_mut());
        }
        if let (Some(b), Some(cmd)) = (&self.base_command, self.base_velocity) {
            b.write(cmd, &self.x_plan, self.problem.parameters_mut());
        }
        let (t, h) = (self.t_state, self.interval);
        if let Some(s) = &self.schedule {
            impose_at_element_ends(&mut self.problem, t, h, 0, |l, at| s.in_contact(l, at))?;
        }
        let mut scheduled = false;
        if let (None, Some(g), Some(from)) = (
            &self.schedule,
            &self.gaits,
            self.settings.gait_schedule_from,
        ) {
            let cmd = self.base_velocity.unwrap_or([0.0; 3]);
            let which = g.schedule_gait(cmd).filter(|_| !self.schedule_released);
            if let Some(tail) = self.tail.as_mut() {
                tail.gait = which.map(|j| (j, t));
            }
            impose_at_element_ends(&mut self.problem, t, h, from, |l, at| {
                g.in_contact(which?, at, l)
            })?;
            scheduled = which.is_some();
            if self.schedule_released {
                self.counters.unscheduled_solves += 1;
            }
        }
        let wall = budget.as_secs_f64();
        if wall != self.wall {
            self.problem.set_max_wall_time(wall)?;
            // The tail simulation runs after the solve within the same tick: a bounded share
            // of the budget (nominally it takes a few per cent of it), or it could hold the
            // control thread for as long as its NLP wanders.
            if let Some(t) = self.tail.as_mut() {
                t.set_budget(wall)?;
            }
            self.wall = wall;
        }
        let shifted = self.warm && self.settings.shift && self.take_shift();
        self.t_aligned = self.t_state;
        if shifted {
            self.counters.shifted_starts += 1;
        }
        let (sigma0, start) = if self.warm {
            let start = match &self.tail {
                Some(t) if shifted && t.ready => Start::ShiftedTail(&t.values),
                _ if shifted => Start::Shifted,
                _ => Start::Previous,
            };
            (self.settings.warm_sigma0, start)
        } else if seeded {
            self.counters.seeded_starts += 1;
            self.shift_debt = 0.0;
            (self.settings.warm_sigma0, Start::Primal(&self.seed))
        } else {
            self.counters.cold_starts += 1;
            self.shift_debt = 0.0;
            (self.settings.cold_sigma0, Start::Guess)
        };
        if sigma0 != self.sigma0 {
            self.problem.set_sigma0(sigma0)?;
            self.sigma0 = sigma0;
        }
        let stats = self.problem.solve_only(start)?;
        if stats.status == Status::MaxTime {
            if backup_fresh {
                self.counters.primary_deadline_stops += 1;
            } else {
                self.counters.deadline_misses += 1;
            }
        }
        // A deadline stop is never accepted: the interrupted iterate is not verified, so the
        // best verified iterate is the previous plan (kept below while it covers the time).
        let accepted = stats.status.is_success()
            || (stats.status == Status::ComplementarityNotMet
                && stats.homotopy_steps > 0
                && stats.comp_residual <= self.settings.accept_comp_residual);
        let verified = accepted && self.verify_solution();
        self.current.last_attempt = stats.status;
        // A failed scheduled solve lifts the gait's schedule until a solve is verified.
        self.schedule_released = !verified && (scheduled || self.schedule_released);
        if verified {
            if let Some(w) = self.problem.solution() {
                self.candidate.fill(self.problem.layout(), w, self.t_state);
            }
            self.candidate.source = PlanSource::Fresh;
            self.candidate.status = stats.status;
            self.candidate.last_attempt = stats.status;
            self.candidate.solve_time_s = stats.solve_time_s;
            self.candidate.homotopy_steps = stats.homotopy_steps;
            self.candidate.nlp_iterations = stats.nlp_iterations;
            self.candidate.comp_residual = stats.comp_residual;
            std::mem::swap(&mut self.current, &mut self.candidate);
            let last = self.current.n_points() - 1;
            self.q_hold.copy_from_slice(self.current.q_at(last));
            self.warm = true;
            self.problem.checkpoint();
            if let Some(t) = self.tail.as_mut() {
                t.simulate(&self.problem, self.gaits.as_ref(), self.interval);
            }
            self.can_revert = true;
            self.failures_in_row = 0;
            self.ever_verified = true;
            self.fallback_engaged = false;
            self.counters.verified += 1;
        } else {
            self.counters.failures += 1;
            self.failures_in_row += 1;
            if let Some(t) = self.tail.as_mut() {
                t.ready = false;
            }
            // Warm again from the last verified plan, moved on as this attempt's start was
            // (the next attempt moves it by the time that passes until then), or cold.
            self.warm = self.settings.shift
                && self.can_revert
                && self.failures_in_row <= self.settings.warm_retries
                && self.problem.revert(shifted);
            if self.current.source != PlanSource::Fallback && self.current.covers(self.t_state) {
                self.current.source = PlanSource::Previous;
            } else {
                // Entering the fallback: hold the last verified plan's final posture, or the
                // present one if there never was a verified plan.
                if !self.fallback_engaged {
                    if !self.ever_verified {
                        self.q_hold.copy_from_slice(&self.x[..self.n_q]);
                    }
                    self.fallback_engaged = true;
                }
                self.current.source = PlanSource::Fallback;
                self.current.t0 = self.t_state;
                if !matches!(backup, Some(PlanSource::Fresh | PlanSource::Previous)) {
                    self.counters.fallbacks += 1;
                }
            }
        }
        Ok(())
    }

    /// Whether this warm start moves the last solution by one control interval (§4.8). The
    /// time since the solution's grid began accumulates in intervals (error diffusion) and a
    /// shift is due once half an interval has gathered: ticks one interval apart shift every
    /// time, ticks half an interval apart every other time (the other ticks start from the
    /// solution in place), so the warm start's grid never drifts more than half an interval
    /// from the time that passed **[ours]**. A backlog beyond that (a long pause between
    /// solves) is capped: one shift per solve.
    fn take_shift(&mut self) -> bool {
        self.shift_debt += (self.t_state - self.t_aligned) / self.interval;
        if self.shift_debt >= 0.5 {
            self.shift_debt = (self.shift_debt - 1.0).min(0.5);
            true
        } else {
            false
        }
    }

    /// Every value of the last solution finite, and its controls within the effort limits.
    fn verify_solution(&self) -> bool {
        let Some(w) = self.problem.solution() else {
            return false;
        };
        if w.iter().any(|x| !x.is_finite()) {
            return false;
        }
        let layout = self.problem.layout();
        if self.settings.effort_limit.is_empty() {
            return true;
        }
        (0..layout.n_intervals()).all(|k| {
            layout
                .u(k)
                .iter()
                .zip(&self.settings.effort_limit)
                .all(|(&i, &lim)| w[i].abs() <= lim * (1.0 + 1e-9) + 1e-12)
        })
    }

    /// The command to apply at absolute time `t`: the control of the plan in charge if it
    /// covers `t`, otherwise the fallback law at the last measured state.
    pub fn control(&mut self, t: f64) -> &[f64] {
        if self.serving_backup && self.backup.is_some() {
            return match self.backup.as_mut() {
                Some(b) => b.control(t),
                None => &[],
            };
        }
        if self.current.covers(t) {
            return self.current.control_at(t);
        }
        self.fallback_at_last_state(false)
    }

    /// The command for a tick without a valid measurement (the state went stale, or every
    /// recent message was rejected): the fallback law at the last measured positions with zero
    /// velocity — a stale velocity is not damped against, so joint damping commands zero and
    /// hold-position is a PD pull towards the held posture from the last known one. It
    /// replaces a plan's command, which an effort controller would otherwise keep applying.
    /// `None` before the first measurement. Nothing is allocated.
    pub fn stale_command(&mut self) -> Option<&[f64]> {
        if !self.have_state {
            return None;
        }
        Some(self.fallback_at_last_state(true))
    }

    /// The fallback law at the last measured state (its velocity, or zero).
    fn fallback_at_last_state(&mut self, zero_velocity: bool) -> &[f64] {
        let (q, v) = self.x.split_at(self.n_q);
        let v = if zero_velocity { &self.v_zero[..] } else { v };
        self.settings.fallback.control(
            &self.settings.actuated,
            &self.settings.effort_limit,
            q,
            v,
            &self.q_hold,
            &mut self.u_fallback,
        );
        &self.u_fallback
    }
}

impl Controller {
    /// The command for a fresh measurement `(q, v)` at absolute time `t`, without re-planning
    /// (between ticks): with a plan in charge that covers `t`, its control plus the
    /// [`Tracking`](super::Tracking) feedback towards its interpolated prediction (clamped to
    /// the effort limits; the control alone without `tracking`); otherwise the fallback law at
    /// `(q, v)`. Bad sizes or non-finite values are errors; nothing is allocated.
    pub fn command(&mut self, t: f64, q: &[f64], v: &[f64]) -> Result<&[f64], MpcError> {
        if self.serving_backup && self.backup.is_some() {
            return match self.backup.as_mut() {
                Some(b) => b.command(t, q, v),
                None => Err(MpcError::NoState),
            };
        }
        check_measurement(t, q, v, self.n_q)?;
        if !self.current.covers(t) {
            self.settings.fallback.control(
                &self.settings.actuated,
                &self.settings.effort_limit,
                q,
                v,
                &self.q_hold,
                &mut self.u_fallback,
            );
            return Ok(&self.u_fallback);
        }
        let u_plan = self.current.control_at(t);
        self.u_command.copy_from_slice(u_plan);
        if let Some(tr) = &self.settings.tracking {
            for (i, u) in self.u_command.iter_mut().enumerate() {
                let Some(&a) = self.settings.actuated.get(i) else {
                    continue;
                };
                let (q_hat, v_hat) = self.current.state_at(t, a);
                *u += tr.kp[i] * (q_hat - q[a]) + tr.kd[i] * (v_hat - v[a]);
                if let Some(&lim) = self.settings.effort_limit.get(i) {
                    *u = u.clamp(-lim, lim);
                }
            }
        }
        Ok(&self.u_command)
    }
}

/// A measurement `(t, q, v)` with `n_q` coordinates: right lengths, every value finite.
fn check_measurement(t: f64, q: &[f64], v: &[f64], n_q: usize) -> Result<(), MpcError> {
    check("q", q, n_q)?;
    check("v", v, n_q)?;
    if !t.is_finite() {
        return Err(MpcError::BadInput {
            what: "t".into(),
            why: format!("time must be finite, got {t}"),
        });
    }
    Ok(())
}

fn check(what: &str, x: &[f64], n: usize) -> Result<(), MpcError> {
    if x.len() != n {
        return Err(MpcError::BadInput {
            what: what.into(),
            why: format!("expected {n} values, got {}", x.len()),
        });
    }
    if let Some(i) = x.iter().position(|v| !v.is_finite()) {
        return Err(MpcError::BadInput {
            what: format!("{what}[{i}]"),
            why: format!("must be finite, got {}", x[i]),
        });
    }
    Ok(())
}
