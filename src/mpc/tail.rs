//! The simulated last interval of the controller's warm starts **[ours]**
//! ([`Controller::set_tail_simulator`](super::Controller::set_tail_simulator)).

use crate::fesdj::{FesdjProblem, Simulator, SolveStats};

use super::error::MpcError;
use super::gait_library::GaitBlend;
use super::schedule::impose_at_element_ends;

/// Share of a tick's solve budget given to the tail simulation.
const TAIL_BUDGET: f64 = 0.25;

/// The last interval of the next warm start, simulated from the verified plan's final state
/// under its last control.
pub(super) struct Tail {
    sim: Simulator,
    /// Final state of the plan (`2 n_q`) and its last control.
    x: Vec<f64>,
    u: Vec<f64>,
    /// The simulated interval's values in the order of `FesdjProblem::interval_variables`.
    pub(super) values: Vec<f64>,
    /// `values` belong to the problem's present solution.
    pub(super) ready: bool,
    /// The gait (of the controller's library) whose swing phases the next tail imposes, and
    /// the state time of the solve it continues ([`ControllerSettings::gait_schedule_from`](super::ControllerSettings::gait_schedule_from)).
    pub(super) gait: Option<(usize, f64)>,
    last: Option<SolveStats>,
}

impl Tail {
    /// A tail simulator for `problem` (the controller's, `n_q` coordinates), its budget a share
    /// of the solve budget `wall` (none when `wall` is not a positive number). `sim` must have
    /// the controller's interval structure: one interval as long as a control interval, with
    /// the same variables per interval.
    pub(super) fn new(
        mut sim: Simulator,
        problem: &FesdjProblem,
        n_q: usize,
        wall: f64,
    ) -> Result<Tail, MpcError> {
        let layout = problem.layout();
        let n_int = layout.n_intervals();
        let dt = problem.options().t_final / n_int as f64;
        let want = problem.interval_variables(n_int - 1).len();
        let got = sim.problem().interval_variables(0).len();
        let bad = |why: String| MpcError::Settings {
            field: "tail_simulation".into(),
            why,
        };
        if sim.problem().layout().n_q != n_q {
            return Err(bad(format!(
                "the simulator has {} coordinates, the controller {n_q}",
                sim.problem().layout().n_q,
            )));
        }
        if got != want {
            return Err(bad(format!(
                "the simulator's interval has {got} variables, the controller's last {want} \
                 (scheme, n_s, N_FE, no_initial_impacts and friction must match)"
            )));
        }
        if (sim.step_time() - dt).abs() > 1e-9 * dt.max(1.0) {
            return Err(bad(format!(
                "the simulator's step {} is not the control interval {dt}",
                sim.step_time()
            )));
        }
        let n_u = layout.u(n_int - 1).len();
        // One bounded solve per tail (no retry from scratch: a failed tail only costs the
        // plain shift).
        sim.set_strategy(true, false);
        let mut tail = Tail {
            sim,
            x: vec![0.0; 2 * n_q],
            u: vec![0.0; n_u],
            values: vec![0.0; want],
            ready: false,
            gait: None,
            last: None,
        };
        if wall.is_finite() && wall > 0.0 {
            tail.set_budget(wall)?;
        }
        Ok(tail)
    }

    /// The tail runs after the solve within the same tick: a bounded share of the solve budget
    /// `wall` (nominally it takes a few per cent of it), or it could hold the control thread
    /// for as long as its NLP wanders.
    pub(super) fn set_budget(&mut self, wall: f64) -> Result<(), MpcError> {
        Ok(self.sim.problem().set_max_wall_time(TAIL_BUDGET * wall)?)
    }

    /// The simulated state at the end of the interval, when `ready`.
    pub(super) fn state(&self) -> Option<&[f64]> {
        self.ready.then(|| self.sim.state())
    }

    /// Statistics of the last simulation.
    pub(super) fn stats(&self) -> Option<&SolveStats> {
        self.last.as_ref()
    }

    /// After a verified solve of `problem`: simulate the next warm start's last interval from
    /// the plan's final state under its last control (`interval`: the control interval).
    pub(super) fn simulate(
        &mut self,
        problem: &FesdjProblem,
        gaits: Option<&GaitBlend>,
        interval: f64,
    ) {
        self.ready = false;
        let Some(w) = problem.solution() else {
            return;
        };
        let layout = problem.layout();
        let n_int = layout.n_intervals();
        for (u, &i) in self.u.iter_mut().zip(layout.u(n_int - 1)) {
            *u = w[i];
        }
        problem.final_state_into(&mut self.x);
        // Under a gait schedule the next warm start's new last interval is imposed too: its
        // swing phases (a foot unloaded) are imposed on the tail, so that the warm start's
        // forces already follow the schedule there and are consistent with its dynamics. A
        // stance phase is not (a foot in the air cannot be put down by the plan's control).
        if let Some(g) = gaits {
            let gait = self.gait;
            let t0 = gait.map_or(0.0, |(_, t)| t) + n_int as f64 * interval;
            let imposed = impose_at_element_ends(self.sim.problem(), t0, interval, 0, |l, at| {
                let (j, _) = gait?;
                (g.in_contact(j, at, l) == Some(false)).then_some(false)
            });
            if imposed.is_err() {
                return;
            }
        }
        let Ok(r) = self.sim.step(&self.x, &self.u) else {
            return;
        };
        self.last = Some(r.stats);
        if !r.stats.status.is_success() {
            return;
        }
        let problem = self.sim.problem();
        let (Some(sw), vars) = (problem.solution(), problem.interval_variables(0)) else {
            return;
        };
        for (v, &i) in self.values.iter_mut().zip(vars) {
            *v = sw[i];
        }
        self.ready = true;
    }
}
