//! Closed-loop runs against a [`Plant`] (the FESD-J simulator: what `fesdj mpc` does): the plant
//! may be a different model (mismatch) and the measured state may carry Gaussian noise.

use std::time::Duration;

use super::controller::Controller;
use super::error::MpcError;
use super::log::{ClosedLoopLog, StartupLog, TickLog};
use super::plant::Plant;

/// Options of a closed-loop run.
#[derive(Clone, Debug, PartialEq)]
pub struct ClosedLoopOptions {
    /// Number of control ticks (each one plant step).
    pub steps: usize,
    /// Wall-time budget of every solve, seconds.
    pub budget_s: f64,
    /// A start-up solve before the first tick, with this budget (seconds): the plan at the
    /// initial state, computed while the robot waits at rest, from which tick 0 warm-starts
    /// (`mpc.startup_deadline_s`). `None`: tick 0 solves cold within `budget_s`.
    pub startup_budget_s: Option<f64>,
    /// Standard deviation of the measurement noise per state entry (`2 n_q`; empty = none).
    pub noise_std: Vec<f64>,
    /// Seed of the noise generator.
    pub seed: u64,
}

/// Gaussian noise from a small deterministic generator (xorshift64* + Box–Muller).
struct Noise {
    state: u64,
    spare: Option<f64>,
}

impl Noise {
    fn new(seed: u64) -> Noise {
        Noise {
            state: seed ^ 0x9E37_79B9_7F4A_7C15 | 1,
            spare: None,
        }
    }
    fn uniform(&mut self) -> f64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let r = self.state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        ((r >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
    fn gaussian(&mut self) -> f64 {
        if let Some(s) = self.spare.take() {
            return s;
        }
        let (u1, u2) = (self.uniform(), self.uniform());
        let r = (-2.0 * u1.ln()).sqrt();
        let th = 2.0 * std::f64::consts::PI * u2;
        self.spare = Some(r * th.sin());
        r * th.cos()
    }
}

/// Run `ctrl` in closed loop with `plant` from `x0` for `options.steps` ticks of one plant
/// step each.
///
/// A plant step that fails (after the simulator's own attempts and sub-steps, see
/// [`crate::fesdj::Simulator::step`] and [`crate::fesdj::Simulator::set_fallback`]) ends the run with
/// [`MpcError::PlantFailed`] naming the tick: the failed solve's end state is the solver's last
/// iterate, not a state of the plant, and continuing from it (what earlier versions did) makes
/// every later tick meaningless. Holding the previous state instead would freeze the plant
/// while time runs. Give the plant accurate settings (not the controller's real-time ones).
pub fn run_closed_loop(
    ctrl: &mut Controller,
    plant: &mut dyn Plant,
    x0: &[f64],
    options: &ClosedLoopOptions,
) -> Result<ClosedLoopLog, MpcError> {
    run_closed_loop_with(ctrl, plant, x0, options, None)
}

/// A moving reference: called before every solve with the tick time and the problem's
/// parameter vector (`FesdjProblem::layout().params` gives the indices); it edits the
/// parameters in place (no allocation) and they are passed to
/// [`Controller::set_reference`].
pub type ReferenceFn<'a> = &'a mut dyn FnMut(f64, &mut [f64]);

/// [`run_closed_loop`] with an optional moving reference.
pub fn run_closed_loop_with(
    ctrl: &mut Controller,
    plant: &mut dyn Plant,
    x0: &[f64],
    options: &ClosedLoopOptions,
    mut reference: Option<ReferenceFn<'_>>,
) -> Result<ClosedLoopLog, MpcError> {
    let mut p = ctrl.problem().parameters().to_vec();
    let n_x = x0.len();
    let n_q = n_x / 2;
    if !options.noise_std.is_empty() && options.noise_std.len() != n_x {
        return Err(MpcError::Settings {
            field: "noise_std".into(),
            why: format!("needs {n_x} entries, got {}", options.noise_std.len()),
        });
    }
    if !(options.budget_s.is_finite() && options.budget_s > 0.0) {
        return Err(MpcError::Settings {
            field: "budget_s".into(),
            why: format!("must be finite and > 0, got {}", options.budget_s),
        });
    }
    let budget = Duration::from_secs_f64(options.budget_s);
    let dt = plant.step_time();
    let startup = match options.startup_budget_s {
        None => None,
        Some(b) if b.is_finite() && b > 0.0 => {
            if let Some(r) = reference.as_mut() {
                r(0.0, &mut p);
                ctrl.set_reference(&p)?;
            }
            let n_q = x0.len() / 2;
            ctrl.set_state(0.0, &x0[..n_q], &x0[n_q..])?;
            let plan = ctrl.solve(Duration::from_secs_f64(b))?;
            let (source, status) = (plan.source, plan.last_attempt);
            let tick = ctrl.last_tick();
            Some(StartupLog {
                source,
                status,
                solve_time_s: tick.solve_time_s,
                homotopy_steps: tick.homotopy_steps,
                nlp_iterations: tick.nlp_iterations,
                homotopy: ctrl.problem().last_homotopy().to_vec(),
            })
        }
        Some(b) => {
            return Err(MpcError::Settings {
                field: "startup_budget_s".into(),
                why: format!("must be finite and > 0, got {b}"),
            })
        }
    };
    let mut noise = Noise::new(options.seed);
    let mut x = x0.to_vec();
    let mut meas = x0.to_vec();
    let mut ticks = Vec::with_capacity(options.steps);
    for step in 0..options.steps {
        let t = step as f64 * dt;
        for i in 0..n_x {
            let s = options.noise_std.get(i).copied().unwrap_or(0.0);
            meas[i] = x[i] + if s > 0.0 { s * noise.gaussian() } else { 0.0 };
        }
        if let Some(r) = reference.as_mut() {
            r(t, &mut p);
            ctrl.set_reference(&p)?;
        }
        ctrl.set_state(t, &meas[..n_q], &meas[n_q..])?;
        let plan = ctrl.solve(budget)?;
        let (source, status) = (plan.source, plan.last_attempt);
        let tick = ctrl.last_tick();
        let homotopy = ctrl.problem().last_homotopy().to_vec();
        let u = ctrl.control(t).to_vec();
        let r = plant.step(&x, &u)?;
        if !r.converged() {
            let mut log = ClosedLoopLog::new(dt, ticks, x.clone(), ctrl.counters());
            log.startup = startup;
            return Err(MpcError::PlantFailed {
                tick: step,
                t,
                status: r.status,
                x,
                u,
                log: Box::new(log),
            });
        }
        ticks.push(TickLog {
            t,
            q: x[..n_q].to_vec(),
            v: x[n_q..].to_vec(),
            u,
            source,
            status,
            solve_time_s: tick.solve_time_s,
            homotopy_steps: tick.homotopy_steps,
            nlp_iterations: tick.nlp_iterations,
            planner: tick.planner,
            backup_nlp_iterations: tick.backup_nlp_iterations,
            homotopy,
            plant_failed: false,
            plant_nlp_iterations: r.nlp_iterations,
        });
        x.copy_from_slice(plant.state());
    }
    let mut log = ClosedLoopLog::new(dt, ticks, x, ctrl.counters());
    log.startup = startup;
    Ok(log)
}
