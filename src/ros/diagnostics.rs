//! Counters behind `/diagnostics` and the throttled input warnings.
//!
//! Two `diagnostic_msgs/DiagnosticStatus` entries are published at `diagnostics_rate_hz`:
//!
//! * `<node>: input` — accepted/rejected message counts (total, and per fault kind), the last
//!   rejection; level WARN when messages were rejected since the last report, STALE when there
//!   is no valid state to plan from.
//! * `<node>: controller` — enabled, last plan status, solve time (last and max since the last
//!   report), homotopy steps, iterations, deadline misses, plan errors, fallback commands,
//!   control ticks and achieved rate; level ERROR after plan errors, WARN after deadline misses
//!   or non-`solved` plans.
//!
//! The message layout is fixed (same keys every time), so refilling it only rewrites the
//! `String`s in place.

use std::fmt::Write;
use std::time::{Duration as StdDuration, Instant};

use crate::mpc::stats::percentile;

use super::msg::{DiagnosticArray, DiagnosticStatus, KeyValue, Time};
use super::provider::{JointPlan, PlanStatus};
use super::validate::{FaultKind, StateFault, FAULT_KINDS};

const INPUT_KEYS: [&str; 4] = [
    "accepted",
    "rejected",
    "rejected_since_last_report",
    "last_rejection",
];
const CONTROLLER_KEYS: [&str; 16] = [
    "enabled",
    "status",
    "solve_time_ms",
    "solve_time_max_ms",
    "homotopy_steps",
    "iterations",
    "deadline_misses",
    "plans_published",
    "plan_errors",
    "last_plan_error",
    "fallback_commands",
    "ticks",
    "tick_overruns",
    "rate_hz",
    "publish_failures",
    "tracking_commands",
];

/// Solve times kept for the shutdown summary's percentiles: the last this many published plans
/// (a ring sized once, so recording a plan never allocates).
pub const SOLVE_TIME_WINDOW: usize = 4096;

/// Percentiles of the solve times of published plans (seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveTimes {
    /// Plans counted (at most [`SOLVE_TIME_WINDOW`], the latest).
    pub count: usize,
    /// Median (nearest rank).
    pub p50: f64,
    /// 99th percentile (nearest rank).
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

/// Counters and throttling state of one node.
#[derive(Debug, Clone)]
pub struct Diagnostics {
    /// Accepted `joint_states`/`odom` messages.
    pub accepted: u64,
    /// Rejections per [`FaultKind`] (index = `kind as usize`).
    pub rejected: [u64; FAULT_KINDS],
    rejected_window: u64,
    last_fault: String,
    /// Control ticks run.
    pub ticks: u64,
    /// Ticks that started more than one period late.
    pub tick_overruns: u64,
    /// Plans published on `~/planned_trajectory` (ticks and `~/plan` calls).
    pub plans_published: u64,
    /// Provider errors and defective plans.
    pub plan_errors: u64,
    plan_errors_window: u64,
    last_plan_error: String,
    /// Plans whose deadline was missed.
    pub deadline_misses: u64,
    deadline_misses_window: u64,
    /// Fallback effort commands published.
    pub fallback_commands: u64,
    /// Effort commands sent between re-plans (`command_rate_hz`).
    pub tracking_commands: u64,
    /// Publications that failed (send window full, serialisation).
    pub publish_failures: u64,
    /// Whether the node currently publishes commands.
    pub enabled: bool,
    last_status: &'static str,
    last_status_window_worst: Option<PlanStatus>,
    solve_time_last: f64,
    solve_time_max_window: f64,
    /// Ring of the latest solve times (capacity [`SOLVE_TIME_WINDOW`]).
    solve_times: Vec<f64>,
    solve_times_next: usize,
    homotopy_last: u32,
    iterations_last: u32,
    state_ok: bool,
    last_warn: [Option<Instant>; FAULT_KINDS],
    suppressed: [u64; FAULT_KINDS],
    tick_warn: Option<Instant>,
    tick_suppressed: u64,
    plan_warn: Option<Instant>,
    plan_suppressed: u64,
    window_start: Instant,
    ticks_at_window_start: u64,
}

impl Diagnostics {
    /// Fresh counters.
    pub fn new(enabled: bool) -> Diagnostics {
        Diagnostics {
            accepted: 0,
            rejected: [0; FAULT_KINDS],
            rejected_window: 0,
            last_fault: String::with_capacity(128),
            ticks: 0,
            tick_overruns: 0,
            plans_published: 0,
            plan_errors: 0,
            plan_errors_window: 0,
            last_plan_error: String::with_capacity(128),
            deadline_misses: 0,
            deadline_misses_window: 0,
            fallback_commands: 0,
            tracking_commands: 0,
            publish_failures: 0,
            enabled,
            last_status: "none",
            last_status_window_worst: None,
            solve_time_last: 0.0,
            solve_time_max_window: 0.0,
            solve_times: Vec::with_capacity(SOLVE_TIME_WINDOW),
            solve_times_next: 0,
            homotopy_last: 0,
            iterations_last: 0,
            state_ok: false,
            last_warn: [None; FAULT_KINDS],
            suppressed: [0; FAULT_KINDS],
            tick_warn: None,
            tick_suppressed: 0,
            plan_warn: None,
            plan_suppressed: 0,
            window_start: Instant::now(),
            ticks_at_window_start: 0,
        }
    }

    /// Total rejected messages.
    pub fn rejected_total(&self) -> u64 {
        self.rejected.iter().sum()
    }

    /// Counts a rejected message. Returns the warning to log, unless one of the same kind was
    /// logged less than `throttle` ago (then it is counted as suppressed and mentioned with the
    /// next warning of that kind).
    pub fn record_rejection(
        &mut self,
        fault: &StateFault,
        now: Instant,
        throttle: StdDuration,
    ) -> Option<String> {
        let k = fault.kind() as usize;
        self.rejected[k] += 1;
        self.rejected_window += 1;
        self.last_fault.clear();
        let _ = write!(self.last_fault, "{fault}");
        self.throttled(k, now, throttle).map(|suppressed| {
            if suppressed > 0 {
                format!("rejected {fault} ({suppressed} similar suppressed)")
            } else {
                format!("rejected {fault}")
            }
        })
    }

    fn throttled(&mut self, k: usize, now: Instant, throttle: StdDuration) -> Option<u64> {
        match self.last_warn[k] {
            Some(t) if now.duration_since(t) < throttle => {
                self.suppressed[k] += 1;
                None
            }
            _ => {
                self.last_warn[k] = Some(now);
                Some(std::mem::take(&mut self.suppressed[k]))
            }
        }
    }

    /// Whether the tick found a valid state (drives the input status level).
    pub fn set_state_ok(&mut self, ok: bool) {
        self.state_ok = ok;
    }

    /// A published plan.
    pub fn record_plan(&mut self, plan: &JointPlan) {
        self.plans_published += 1;
        self.last_status = plan.status.as_str();
        self.solve_time_last = plan.stats.solve_time;
        self.solve_time_max_window = self.solve_time_max_window.max(plan.stats.solve_time);
        if self.solve_times.len() < SOLVE_TIME_WINDOW {
            self.solve_times.push(plan.stats.solve_time);
        } else {
            self.solve_times[self.solve_times_next] = plan.stats.solve_time;
            self.solve_times_next = (self.solve_times_next + 1) % SOLVE_TIME_WINDOW;
        }
        self.homotopy_last = plan.stats.homotopy_steps;
        self.iterations_last = plan.stats.iterations;
        if plan.stats.deadline_missed {
            self.deadline_misses += 1;
            self.deadline_misses_window += 1;
        }
        if plan.status != PlanStatus::Solved {
            self.last_status_window_worst = Some(plan.status);
        }
    }

    /// Solve-time percentiles of the latest published plans (none before the first). Sorts a
    /// copy: for summaries, not for the control loop.
    pub fn solve_times(&self) -> Option<SolveTimes> {
        let mut t = self.solve_times.clone();
        if t.is_empty() {
            return None;
        }
        t.sort_by(f64::total_cmp);
        Some(SolveTimes {
            count: t.len(),
            p50: percentile(&t, 0.5),
            p99: percentile(&t, 0.99),
            max: percentile(&t, 1.0),
        })
    }

    /// A provider error or defective plan.
    pub fn record_plan_error(&mut self, error: &dyn std::fmt::Display) {
        self.plan_errors += 1;
        self.plan_errors_window += 1;
        self.last_status = "error";
        self.last_plan_error.clear();
        let _ = write!(self.last_plan_error, "{error}");
    }

    /// The warning to log for the plan error just recorded, throttled like
    /// [`record_no_state`](Self::record_no_state) but separately from it (`None`: suppressed).
    pub fn plan_error_warning(&mut self, now: Instant, throttle: StdDuration) -> Option<String> {
        let n = throttled(
            &mut self.plan_warn,
            &mut self.plan_suppressed,
            now,
            throttle,
        )?;
        Some(if n > 0 {
            format!("{} ({n} similar ticks suppressed)", self.last_plan_error)
        } else {
            self.last_plan_error.clone()
        })
    }

    /// A control tick without a valid state (nothing planned). Returns the warning to log,
    /// throttled like [`record_rejection`](Self::record_rejection) but separately from it.
    pub fn record_no_state(
        &mut self,
        fault: &StateFault,
        now: Instant,
        throttle: StdDuration,
    ) -> Option<String> {
        self.last_status = "no valid state";
        self.state_ok = false;
        let n = throttled(
            &mut self.tick_warn,
            &mut self.tick_suppressed,
            now,
            throttle,
        )?;
        Some(if n > 0 {
            format!("not planning: {fault} ({n} similar ticks suppressed)")
        } else {
            format!("not planning: {fault}")
        })
    }

    /// Writes the report into `msg` (reusing its strings) and starts a new window.
    pub fn fill(&mut self, msg: &mut DiagnosticArray, node_name: &str, stamp: Time, now: Instant) {
        msg.header.stamp = stamp;
        // The node may add its own entries after these two (`cmd_vel`).
        if msg.status.len() < 2 {
            msg.status = vec![
                status_with_keys(&format!("{node_name}: input"), &INPUT_KEYS, true),
                status_with_keys(&format!("{node_name}: controller"), &CONTROLLER_KEYS, false),
            ];
        }
        let window = now.duration_since(self.window_start).as_secs_f64();
        let rate = if window > 0.0 {
            (self.ticks - self.ticks_at_window_start) as f64 / window
        } else {
            0.0
        };

        let (input, controller) = msg.status[..2].split_at_mut(1);
        let input = &mut input[0];
        input.level = if !self.state_ok {
            DiagnosticStatus::STALE
        } else if self.rejected_window > 0 {
            DiagnosticStatus::WARN
        } else {
            DiagnosticStatus::OK
        };
        input.message.clear();
        input.message.push_str(match input.level {
            DiagnosticStatus::OK => "state valid",
            DiagnosticStatus::WARN => "state valid; messages rejected",
            _ => "no valid state",
        });
        let rejected_total = self.rejected_total();
        let v = &mut input.values;
        set(&mut v[0], format_args!("{}", self.accepted));
        set(&mut v[1], format_args!("{rejected_total}"));
        set(&mut v[2], format_args!("{}", self.rejected_window));
        set(&mut v[3], format_args!("{}", self.last_fault));
        for (i, kind) in FaultKind::ALL.iter().enumerate() {
            set(
                &mut v[4 + i],
                format_args!("{}", self.rejected[*kind as usize]),
            );
        }

        let c = &mut controller[0];
        c.level = if self.plan_errors_window > 0 {
            DiagnosticStatus::ERROR
        } else if self.deadline_misses_window > 0 || self.last_status_window_worst.is_some() {
            DiagnosticStatus::WARN
        } else {
            DiagnosticStatus::OK
        };
        c.message.clear();
        let _ = write!(
            c.message,
            "{}, last plan: {}",
            if self.enabled { "enabled" } else { "disabled" },
            self.last_status
        );
        let v = &mut c.values;
        set(&mut v[0], format_args!("{}", self.enabled));
        set(&mut v[1], format_args!("{}", self.last_status));
        set(&mut v[2], format_args!("{:.3}", self.solve_time_last * 1e3));
        set(
            &mut v[3],
            format_args!("{:.3}", self.solve_time_max_window * 1e3),
        );
        set(&mut v[4], format_args!("{}", self.homotopy_last));
        set(&mut v[5], format_args!("{}", self.iterations_last));
        set(&mut v[6], format_args!("{}", self.deadline_misses));
        set(&mut v[7], format_args!("{}", self.plans_published));
        set(&mut v[8], format_args!("{}", self.plan_errors));
        set(&mut v[9], format_args!("{}", self.last_plan_error));
        set(&mut v[10], format_args!("{}", self.fallback_commands));
        set(&mut v[11], format_args!("{}", self.ticks));
        set(&mut v[12], format_args!("{}", self.tick_overruns));
        set(&mut v[13], format_args!("{rate:.2}"));
        set(&mut v[14], format_args!("{}", self.publish_failures));
        set(&mut v[15], format_args!("{}", self.tracking_commands));

        self.window_start = now;
        self.ticks_at_window_start = self.ticks;
        self.rejected_window = 0;
        self.plan_errors_window = 0;
        self.deadline_misses_window = 0;
        self.solve_time_max_window = 0.0;
        self.last_status_window_worst = None;
    }
}

fn status_with_keys(name: &str, keys: &[&str], with_fault_kinds: bool) -> DiagnosticStatus {
    let mut values: Vec<KeyValue> = keys
        .iter()
        .map(|k| KeyValue {
            key: (*k).into(),
            value: String::with_capacity(32),
        })
        .collect();
    if with_fault_kinds {
        values.extend(FaultKind::ALL.iter().map(|k| KeyValue {
            key: format!("rejected_{}", k.as_str()),
            value: String::with_capacity(8),
        }));
    }
    DiagnosticStatus {
        level: DiagnosticStatus::OK,
        name: name.into(),
        message: String::with_capacity(64),
        hardware_id: String::new(),
        values,
    }
}

pub(crate) fn set(kv: &mut KeyValue, args: std::fmt::Arguments) {
    kv.value.clear();
    let _ = kv.value.write_fmt(args);
}

/// One throttled warning stream: `None` (and one more suppressed) within `throttle` of the
/// last warning, else the number of warnings suppressed since it (the warning is due now).
fn throttled(
    last: &mut Option<Instant>,
    suppressed: &mut u64,
    now: Instant,
    throttle: StdDuration,
) -> Option<u64> {
    match *last {
        Some(t) if now.duration_since(t) < throttle => {
            *suppressed += 1;
            None
        }
        _ => {
            *last = Some(now);
            Some(std::mem::take(suppressed))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve_time_percentiles_of_the_latest_plans() {
        let mut d = Diagnostics::new(true);
        assert_eq!(d.solve_times(), None);
        let mut plan = JointPlan::default();
        // 1..=100 ms in a scrambled order: nearest-rank p50 is the 51st (index 49.5 → 50),
        // p99 the 99th (index 98.01 → 98).
        for k in 0..100u64 {
            plan.stats.solve_time = ((k * 37) % 100 + 1) as f64 * 1e-3;
            d.record_plan(&plan);
        }
        let s = d.solve_times().unwrap();
        assert_eq!(s.count, 100);
        assert!((s.p50 - 0.051).abs() < 1e-12, "{s:?}");
        assert!((s.p99 - 0.099).abs() < 1e-12, "{s:?}");
        assert!((s.max - 0.100).abs() < 1e-12, "{s:?}");
        // The ring keeps the latest SOLVE_TIME_WINDOW: after that many 1 s solves the early
        // ones are gone.
        plan.stats.solve_time = 1.0;
        for _ in 0..SOLVE_TIME_WINDOW {
            d.record_plan(&plan);
        }
        let s = d.solve_times().unwrap();
        assert_eq!(s.count, SOLVE_TIME_WINDOW);
        assert_eq!((s.p50, s.max), (1.0, 1.0));
        assert_eq!(d.solve_times.capacity(), SOLVE_TIME_WINDOW);
    }

    #[test]
    fn warnings_are_throttled_per_kind_and_report_suppressed_counts() {
        let mut d = Diagnostics::new(false);
        let t0 = Instant::now();
        let throttle = StdDuration::from_secs(1);
        let nan = StateFault::NonFinite {
            topic: "joint_states",
            field: "position",
            what: "hip".into(),
        };
        let stale = StateFault::Stale {
            topic: "joint_states",
            age: 3.0,
        };
        assert!(d.record_rejection(&nan, t0, throttle).is_some());
        assert!(d
            .record_rejection(&nan, t0 + StdDuration::from_millis(10), throttle)
            .is_none());
        assert!(d
            .record_rejection(&nan, t0 + StdDuration::from_millis(20), throttle)
            .is_none());
        assert!(d
            .record_rejection(&stale, t0 + StdDuration::from_millis(30), throttle)
            .is_some());
        let w = d
            .record_rejection(&nan, t0 + StdDuration::from_millis(1100), throttle)
            .unwrap();
        assert!(w.contains("2 similar suppressed"), "{w}");
        assert_eq!(d.rejected_total(), 5);
        assert_eq!(d.rejected[FaultKind::NonFinite as usize], 4);
    }

    #[test]
    fn report_levels_and_in_place_refill() {
        let mut d = Diagnostics::new(true);
        let mut msg = DiagnosticArray::default();
        let now = Instant::now();
        d.fill(&mut msg, "fesdj_mpc", Time::ZERO, now);
        assert_eq!(msg.status.len(), 2);
        assert_eq!(msg.status[0].level, DiagnosticStatus::STALE);
        assert_eq!(msg.status[0].values.len(), 4 + FAULT_KINDS);
        d.set_state_ok(true);
        let bad = StateFault::WrongLength {
            topic: "joint_states",
            field: "velocity",
            expected: 2,
            got: 1,
        };
        d.record_rejection(&bad, now, StdDuration::ZERO);
        let mut plan = JointPlan::default();
        plan.stats.solve_time = 0.004;
        plan.stats.deadline_missed = true;
        d.record_plan(&plan);
        let ptr = msg.status[1].values[2].value.as_ptr();
        d.fill(&mut msg, "fesdj_mpc", Time::ZERO, now);
        assert_eq!(msg.status[0].level, DiagnosticStatus::WARN);
        assert_eq!(msg.status[0].values[1].value, "1");
        assert_eq!(msg.status[0].values[4].key, "rejected_wrong_length");
        assert_eq!(msg.status[0].values[4].value, "1");
        assert_eq!(msg.status[1].level, DiagnosticStatus::WARN);
        assert_eq!(msg.status[1].values[2].value, "4.000");
        assert_eq!(
            msg.status[1].values[2].value.as_ptr(),
            ptr,
            "strings are rewritten in place"
        );
        d.record_plan_error(&"solver diverged");
        d.fill(&mut msg, "fesdj_mpc", Time::ZERO, now);
        assert_eq!(msg.status[1].level, DiagnosticStatus::ERROR);
        assert_eq!(msg.status[1].values[9].value, "solver diverged");
        d.fill(&mut msg, "fesdj_mpc", Time::ZERO, now);
        assert_eq!(msg.status[1].level, DiagnosticStatus::OK, "window reset");
    }
}
