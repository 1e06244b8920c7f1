//! Two controllers of one problem file side by side against the same plant (`fesdj
//! mpc-compare`): the FESD-J transcription and the time-stepping baseline (§4.7), each in
//! closed loop at the file's rate and solve budget, against the plant of the unmodified file
//! (`mpc.plant`, the accurate FESD-J simulator).
//!
//! Beyond the closed loop's solve statistics it measures what switch detection is meant to buy:
//! - **one-interval prediction error**: the verified plan's state at the end of its first
//!   control interval against the plant's state one tick later (the plan's first control is
//!   what was applied), max-norm over positions and over velocities;
//! - **touchdown-time error**: on every tick that starts with every contact open, the plan's
//!   first predicted touchdown (a contact's gap at an element boundary falling to the
//!   tolerance) against the plant's first actual one after the tick (its samples, where the
//!   plant's own switch detection puts it); a touchdown the plant makes within the horizon and
//!   the plan does not predict is counted as missed;
//! - **tracking cost** `Σ_i Q_i (x_i − x_ref,i)²` of the file's LSQ weights and default
//!   reference at the ticks, and **control effort** `Σ u_i²`, both averaged over the ticks.
//!
//! Each variant's overrides apply to its controller only; the plant is built once per run from
//! the file with the user's overrides. The plant steps here are cold (`Simulator::run` of one
//! step, recording its samples), unlike `fesdj mpc`'s warm plant steps.

use serde::Serialize;

use super::closed_loop::{build_controller, build_plant};
use super::BuildError;
use crate::ad::{Function, Sx, Workspace};
use crate::config::Problem;
use crate::fesdj::{Controls, FesdjError};
use crate::mpc::stats::percentile;
use crate::mpc::{Plan, PlanSource, Planner};
use crate::solver::Status;
use std::path::Path;
use std::time::Duration;

/// Overrides that make a problem file's controller FESD-J (applied after the user's).
pub const FESDJ_SETS: &[&str] = &["fesdj.use_fesd=true", "fesdj.n_fe=2"];
/// Overrides that make it the time-stepping baseline.
pub const TIME_STEPPING_SETS: &[&str] = &["fesdj.use_fesd=false", "fesdj.n_fe=1"];

/// One controller of the comparison: a name and the overrides of its transcription.
#[derive(Clone, Debug)]
pub struct Variant {
    /// Name in the report.
    pub name: String,
    /// `KEY=VALUE` overrides applied to the controller's problem only.
    pub sets: Vec<String>,
}

impl Variant {
    /// The two controllers of the comparison: FESD-J (`fesd_sets`, or [`FESDJ_SETS`] when
    /// empty) and time stepping ([`TIME_STEPPING_SETS`]).
    pub fn pair(fesd_sets: &[String]) -> Vec<Variant> {
        let fesd = if fesd_sets.is_empty() {
            FESDJ_SETS.iter().map(|s| s.to_string()).collect()
        } else {
            fesd_sets.to_vec()
        };
        vec![
            Variant {
                name: "FESD-J".into(),
                sets: fesd,
            },
            Variant {
                name: "time stepping".into(),
                sets: TIME_STEPPING_SETS.iter().map(|s| s.to_string()).collect(),
            },
        ]
    }
}

/// Summary of a sample: count, median, mean and maximum (0 for an empty sample).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Sample {
    /// Number of values.
    pub n: usize,
    /// Median.
    pub median: f64,
    /// Mean.
    pub mean: f64,
    /// Maximum.
    pub max: f64,
}

/// The finite values of `x`, ascending.
fn sorted(mut x: Vec<f64>) -> Vec<f64> {
    x.retain(|v| v.is_finite());
    x.sort_by(f64::total_cmp);
    x
}

impl Sample {
    fn of(x: Vec<f64>) -> Sample {
        let x = sorted(x);
        if x.is_empty() {
            return Sample::default();
        }
        Sample {
            n: x.len(),
            median: percentile(&x, 0.5),
            mean: x.iter().sum::<f64>() / x.len() as f64,
            max: x[x.len() - 1],
        }
    }
}

/// The closed loop of one controller, measured.
#[derive(Clone, Debug, Serialize)]
pub struct VariantReport {
    /// Name of the variant.
    pub name: String,
    /// Its overrides.
    pub sets: Vec<String>,
    /// Ticks run (fewer than asked when the plant failed).
    pub ticks: usize,
    /// Ticks with a fresh verified plan / ticks.
    pub verified_fraction: f64,
    /// Ticks whose fresh verified plan came from the backup controller (`mpc.backup`) / ticks.
    pub backup_fraction: f64,
    /// Solves stopped by the budget.
    pub deadline_misses: usize,
    /// Solve time of every attempt, ms.
    pub solve_ms: Sample,
    /// 99th percentile of the solve time, ms.
    pub solve_p99_ms: f64,
    /// Interior-point iterations per tick.
    pub iterations: Sample,
    /// `|predicted − actual|` touchdown time, ms.
    pub touchdown_error_ms: Sample,
    /// Touchdowns within the horizon that a verified plan from an open-contact state did not
    /// predict.
    pub missed_touchdowns: usize,
    /// Touchdowns of the plant.
    pub plant_touchdowns: usize,
    /// Max-norm error of the predicted positions one interval ahead.
    pub prediction_error_q: Sample,
    /// Max-norm error of the predicted velocities one interval ahead.
    pub prediction_error_v: Sample,
    /// Mean tracking cost per tick.
    pub tracking_cost: f64,
    /// Mean `Σ u²` per tick.
    pub control_effort: f64,
    /// Change of the first coordinate over the run (e.g. the distance a hopper travelled).
    pub progress: f64,
    /// Time of the plant step that failed, if one did (the run ends there).
    pub plant_failed_at: Option<f64>,
}

/// Options of [`compare`].
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// Control ticks per run (`None`: the file's `mpc.steps`).
    pub steps: Option<usize>,
    /// Gap at or below which a contact counts as closed, m.
    pub touchdown_tol: f64,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            steps: None,
            touchdown_tol: 1e-4,
        }
    }
}

/// The contact gaps `f_c(q)` of a model, compiled once.
struct Gaps {
    f: Function,
    ws: Workspace,
    out: Vec<f64>,
}

impl Gaps {
    fn new(problem: &Problem) -> Result<Gaps, BuildError> {
        let model = problem.cls_model()?;
        let q = Sx::sym_vec("q", model.n_q());
        let g = model.gaps(&q)?;
        let f = Function::new("gaps", &[&q], &[&g]).map_err(FesdjError::from)?;
        let ws = f.workspace();
        Ok(Gaps {
            f,
            ws,
            out: vec![0.0; g.len()],
        })
    }

    /// The smallest gap at `q` (+∞ without contacts).
    fn min(&mut self, q: &[f64]) -> Result<f64, BuildError> {
        self.f
            .eval(&[q], &mut [&mut self.out], &mut self.ws)
            .map_err(FesdjError::from)?;
        Ok(self.out.iter().copied().fold(f64::INFINITY, f64::min))
    }
}

/// The first touchdown along `points` (time, positions): the first point whose smallest gap
/// is at most `tol` after one above it.
fn first_touchdown<'a>(
    gaps: &mut Gaps,
    points: impl Iterator<Item = (f64, &'a [f64])>,
    tol: f64,
) -> Result<Option<f64>, BuildError> {
    let mut open = false;
    for (t, q) in points {
        let g = gaps.min(q)?;
        if g > tol {
            open = true;
        } else if open {
            return Ok(Some(t));
        }
    }
    Ok(None)
}

/// Index of the plan point at the end of the first control interval.
fn first_interval_end(plan: &Plan) -> Option<usize> {
    let t1 = *plan.t_u.get(1)?;
    plan.times
        .iter()
        .position(|&t| (t - t1).abs() <= 1e-9 * t1.abs().max(1.0))
}

/// Run every variant of `config` (with the user's `sets`) against the plant of the file.
pub fn compare(
    config: &Path,
    sets: &[String],
    variants: &[Variant],
    options: &CompareOptions,
    mut progress: impl FnMut(&str, usize, usize),
) -> Result<Vec<VariantReport>, BuildError> {
    let base = Problem::load(config, sets)?;
    let base_setup = base.mpc_setup()?;
    let base_ocp = base.ocp()?;
    let lsq = base_ocp
        .ocp
        .lsq
        .as_ref()
        .map(|l| (l.q_weight.clone(), l.x_ref.clone()));
    let steps = options.steps.unwrap_or(base_setup.steps);
    let mut reports = Vec::with_capacity(variants.len());
    for variant in variants {
        let mut all: Vec<String> = sets.to_vec();
        all.extend(variant.sets.iter().cloned());
        let problem = Problem::load(config, &all)?;
        let setup = problem.mpc_setup()?;
        let ocp = problem.ocp()?;
        let mut ctrl = build_controller(&problem, &setup, &ocp)?;
        let mut plant = build_plant(&base, &base_setup, &base_ocp)?;
        let mut gaps = Gaps::new(&base)?;
        let horizon = ctrl.problem().options().t_final;
        let budget = Duration::from_secs_f64(setup.solve_budget_s);
        let dt = plant.step_time();
        let x0 = base.x0();
        let n_q = x0.len() / 2;
        let mut x = x0.clone();
        let mut solve_ms = Vec::new();
        let mut iterations = Vec::new();
        let mut err_q = Vec::new();
        let mut err_v = Vec::new();
        let mut predictions: Vec<(f64, Option<f64>)> = Vec::new();
        let mut touchdowns: Vec<f64> = Vec::new();
        let (mut fresh, mut misses, mut ticks) = (0usize, 0usize, 0usize);
        let mut by_backup = 0usize;
        // The start-up solve of `mpc.startup_deadline_s` at the initial state, as `fesdj mpc`
        // runs it (not a tick).
        if let Some(b) = setup.startup_budget_s {
            ctrl.set_state(0.0, &x[..n_q], &x[n_q..])?;
            ctrl.solve(Duration::from_secs_f64(b))?;
        }
        let (mut tracking, mut effort) = (0.0, 0.0);
        let mut failed_at = None;
        for k in 0..steps {
            progress(&variant.name, k, steps);
            let t = k as f64 * dt;
            ctrl.set_state(t, &x[..n_q], &x[n_q..])?;
            let plan = ctrl.solve(budget)?;
            let is_fresh = plan.source == PlanSource::Fresh;
            let last_attempt = plan.last_attempt;
            let predicted = match (is_fresh, first_interval_end(plan)) {
                (true, Some(p)) => Some((
                    plan.q_at(p).to_vec(),
                    plan.v[p * n_q..(p + 1) * n_q].to_vec(),
                )),
                _ => None,
            };
            // Every contact open at the tick: a touchdown the plan predicts, and one the plant
            // makes within this step, can be measured.
            let open = gaps.min(&x[..n_q])? > options.touchdown_tol;
            if is_fresh && open {
                let pts = (0..plan.n_points()).map(|p| (plan.t0 + plan.times[p], plan.q_at(p)));
                let td = first_touchdown(&mut gaps, pts, options.touchdown_tol)?;
                predictions.push((t, td));
            }
            let tick = ctrl.last_tick();
            if tick.solve_time_s.is_finite() {
                solve_ms.push(tick.solve_time_s * 1e3);
                iterations.push(tick.nlp_iterations as f64);
            }
            // A deadline stop of the tick: no fresh plan and the last attempt stopped by it.
            if !is_fresh && last_attempt == Status::MaxTime {
                misses += 1;
            }
            fresh += usize::from(is_fresh);
            by_backup += usize::from(is_fresh && ctrl.last_tick().planner == Planner::Backup);
            let u = ctrl.control(t).to_vec();
            if let Some((w, r)) = &lsq {
                tracking += x
                    .iter()
                    .zip(w)
                    .zip(r)
                    .map(|((xi, wi), ri)| wi * (xi - ri) * (xi - ri))
                    .sum::<f64>();
            }
            effort += u.iter().map(|v| v * v).sum::<f64>();
            ticks += 1;
            let traj = plant.run(&x, &Controls::PerStep(vec![u]), 1)?;
            if !traj.status.is_success() {
                failed_at = Some(t);
                break;
            }
            let pts = traj
                .t
                .iter()
                .zip(&traj.q)
                .map(|(&s, q)| (t + s, q.as_slice()));
            // The plant's touchdowns within this step (at most one per step is recorded).
            let pts = std::iter::once((t, &x[..n_q])).chain(pts);
            if open {
                if let Some(td) = first_touchdown(&mut gaps, pts, options.touchdown_tol)? {
                    touchdowns.push(td);
                }
            }
            x[..n_q].copy_from_slice(&traj.final_state.q);
            x[n_q..].copy_from_slice(&traj.final_state.v);
            if let Some((q, v)) = predicted {
                let e = |a: &[f64], b: &[f64]| {
                    a.iter()
                        .zip(b)
                        .map(|(p, r)| (p - r).abs())
                        .fold(0.0, f64::max)
                };
                err_q.push(e(&q, &x[..n_q]));
                err_v.push(e(&v, &x[n_q..]));
            }
        }
        let mut td_err = Vec::new();
        let mut missed = 0;
        for (t, predicted) in predictions {
            let actual = touchdowns.iter().copied().find(|&a| a > t);
            match (predicted, actual) {
                (Some(p), Some(a)) => td_err.push((p - a).abs() * 1e3),
                (None, Some(a)) if a - t <= horizon => missed += 1,
                _ => {}
            }
        }
        let solve_ms = sorted(solve_ms);
        let solve_p99_ms = percentile(&solve_ms, 0.99);
        let solve = Sample::of(solve_ms);
        let n = ticks.max(1) as f64;
        reports.push(VariantReport {
            name: variant.name.clone(),
            sets: variant.sets.clone(),
            ticks,
            verified_fraction: fresh as f64 / n,
            backup_fraction: by_backup as f64 / n,
            deadline_misses: misses,
            solve_ms: solve,
            solve_p99_ms,
            iterations: Sample::of(iterations),
            touchdown_error_ms: Sample::of(td_err),
            missed_touchdowns: missed,
            plant_touchdowns: touchdowns.len(),
            prediction_error_q: Sample::of(err_q),
            prediction_error_v: Sample::of(err_v),
            tracking_cost: tracking / n,
            control_effort: effort / n,
            progress: x[0] - x0[0],
            plant_failed_at: failed_at,
        });
    }
    Ok(reports)
}

/// The reports as a Markdown table (one column per variant).
pub fn markdown(reports: &[VariantReport]) -> String {
    let mut s = String::from("| |");
    for r in reports {
        s += &format!(" {} |", r.name);
    }
    s += "\n|---|";
    for _ in reports {
        s += "---|";
    }
    s += "\n";
    let mut row = |name: &str, f: &dyn Fn(&VariantReport) -> String| {
        s += &format!("| {name} |");
        for r in reports {
            s += &format!(" {} |", f(r));
        }
        s += "\n";
    };
    row("ticks", &|r| match r.plant_failed_at {
        Some(t) => format!("{} (plant failed at {t:.2} s)", r.ticks),
        None => r.ticks.to_string(),
    });
    row("verified plans", &|r| {
        format!("{:.1} %", 100.0 * r.verified_fraction)
    });
    row("… planned by the backup controller", &|r| {
        format!("{:.1} %", 100.0 * r.backup_fraction)
    });
    row("deadline misses", &|r| r.deadline_misses.to_string());
    row("solve p50 / p99 [ms]", &|r| {
        format!("{:.1} / {:.1}", r.solve_ms.median, r.solve_p99_ms)
    });
    row("IPM iterations per tick (median / max)", &|r| {
        format!("{:.0} / {:.0}", r.iterations.median, r.iterations.max)
    });
    row("touchdown-time error [ms] (median / max, n)", &|r| {
        format!(
            "{:.1} / {:.1}, {}",
            r.touchdown_error_ms.median, r.touchdown_error_ms.max, r.touchdown_error_ms.n
        )
    });
    row("touchdowns missed by a plan / plant touchdowns", &|r| {
        format!("{} / {}", r.missed_touchdowns, r.plant_touchdowns)
    });
    row("one-interval error, q (median / max)", &|r| {
        format!(
            "{:.2e} / {:.2e}",
            r.prediction_error_q.median, r.prediction_error_q.max
        )
    });
    row("one-interval error, v (median / max)", &|r| {
        format!(
            "{:.2e} / {:.2e}",
            r.prediction_error_v.median, r.prediction_error_v.max
        )
    });
    row("tracking cost per tick", &|r| {
        format!("{:.3}", r.tracking_cost)
    });
    row("control effort Σu² per tick", &|r| {
        format!("{:.1}", r.control_effort)
    });
    row("progress of q[0]", &|r| format!("{:.3}", r.progress));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::build_simulation;

    /// The plant's touchdown as this module detects it, against the free fall's analytic
    /// `t* = √(2 h / g)`: the ball of `bouncing_ball_1d.yaml` dropped from 0.8 m lands at
    /// 0.403855 s, inside a 0.15 s step, where the simulator's switch detection puts a grid
    /// point.
    #[test]
    fn the_plants_touchdown_is_the_free_falls() {
        let problem = Problem::load(Path::new("config/bouncing_ball_1d.yaml"), &[]).unwrap();
        let mut gaps = Gaps::new(&problem).unwrap();
        let sim = build_simulation(&problem).unwrap();
        let mut simulator = sim.simulator;
        let x0 = problem.x0();
        let traj = simulator.run(&x0, &Controls::Constant(vec![]), 4).unwrap();
        assert!(traj.status.is_success(), "{:?}", traj.status);
        let pts = traj.t.iter().zip(&traj.q).map(|(&t, q)| (t, q.as_slice()));
        let td = first_touchdown(&mut gaps, pts, 1e-4).unwrap().unwrap();
        let exact = (2.0 * 0.8 / 9.81f64).sqrt();
        assert!((td - exact).abs() < 1e-6, "touchdown {td}, exact {exact}");
        // No touchdown along a path that starts closed and stays closed.
        let closed = [0.0, 0.0];
        let pts = closed
            .iter()
            .enumerate()
            .map(|(i, q)| (i as f64, std::slice::from_ref(q)));
        assert_eq!(first_touchdown(&mut gaps, pts, 1e-4).unwrap(), None);
    }

    #[test]
    fn the_table_has_a_column_per_variant() {
        let r = VariantReport {
            name: "A".into(),
            sets: vec![],
            ticks: 3,
            verified_fraction: 2.0 / 3.0,
            backup_fraction: 0.0,
            deadline_misses: 1,
            solve_ms: Sample::of(vec![1.0, 2.0, 30.0]),
            solve_p99_ms: 30.0,
            iterations: Sample::of(vec![5.0, 7.0, 9.0]),
            touchdown_error_ms: Sample::default(),
            missed_touchdowns: 0,
            plant_touchdowns: 0,
            prediction_error_q: Sample::default(),
            prediction_error_v: Sample::default(),
            tracking_cost: 0.5,
            control_effort: 2.0,
            progress: 0.1,
            plant_failed_at: Some(0.1),
        };
        let b = VariantReport {
            name: "B".into(),
            plant_failed_at: None,
            ..r.clone()
        };
        let t = markdown(&[r, b]);
        assert!(t.starts_with("| | A | B |\n|---|---|---|\n"), "{t}");
        assert!(t.contains("| verified plans | 66.7 % | 66.7 % |"), "{t}");
        assert!(
            t.contains("| ticks | 3 (plant failed at 0.10 s) | 3 |"),
            "{t}"
        );
        assert!(t.contains("| solve p50 / p99 [ms] | 2.0 / 30.0 |"), "{t}");
    }
}
