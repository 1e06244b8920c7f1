//! The node's one control loop, over a [`LoopClock`]: the wall clock, or a simulator's
//! `/clock` with `use_sim_time` (and reading `/clock`).
//!
//! Every wake-up drains the inputs and answers the services; then, on the loop's clock, a
//! control tick plans and publishes when it is due, and between ticks tracking commands go out
//! at `command_rate_hz`. Diagnostics keep the wall clock. On the simulator's clock the loop
//! also serves a simulator in lockstep (tools/mujoco_sim.py `--lockstep`), which does not
//! advance its clock past a command time before the node's command for it arrived: a tick
//! that sent no command is tried again at the next wake-up, a tracking command that cannot be
//! computed becomes a tick, and the last command is sent again when the clock stands still.
//! A solve's wall-time budget is the provider's (`fesdj_node`: the problem file's
//! `mpc.deadline_s`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration as StdDuration, Instant};

use ros2_client::ros2::LogLevel;

use super::{publish, NodeError, NodeRuntime, PlanProvider, Time, MAX_DRAIN};

/// The last command is sent again when the simulator's clock has not moved for this long.
const RESEND: StdDuration = StdDuration::from_millis(500);

/// Longest wait for input on the wall clock (the loop also wakes for every input).
const WALL_WAIT: StdDuration = StdDuration::from_millis(50);

/// Wait for input on the simulator's clock (the clock's own samples wake the loop too).
const SIM_WAIT: StdDuration = StdDuration::from_millis(20);

/// The clock the control loop ticks on; times are nanoseconds on it.
#[derive(Clone, Copy, Debug)]
enum LoopClock {
    /// The monotonic system clock, counted from the loop's start. The first tick comes one
    /// period after the start.
    Wall(Instant),
    /// A simulator's `/clock` (`use_sim_time`): no time before the first sample, the first tick
    /// at the first sample. The simulator may wait for the node's commands (lockstep).
    Sim,
}

impl LoopClock {
    fn is_sim(self) -> bool {
        matches!(self, LoopClock::Sim)
    }
}

impl NodeRuntime {
    /// Runs until `stop` becomes true (e.g. set by [`crate::ros::shutdown::flag_on_signals`]).
    pub fn run<P: PlanProvider + ?Sized>(
        &mut self,
        provider: &mut P,
        stop: &AtomicBool,
    ) -> Result<(), NodeError> {
        if self.enabled {
            if let Err(e) = provider.enable(true) {
                self.log(
                    LogLevel::Error,
                    &format!("provider refused to start enabled: {e}"),
                );
                self.enabled = false;
                self.diag.enabled = false;
            }
        }
        let clock = if self.config.params.use_sim_time {
            LoopClock::Sim
        } else {
            LoopClock::Wall(Instant::now())
        };
        let period = self.period.as_nanos() as i64;
        let command = self.command_period.map(|c| c.as_nanos() as i64);
        let diag_period = StdDuration::from_secs_f64(1.0 / self.config.params.diagnostics_rate_hz);
        let mut next_diag = Instant::now() + diag_period;
        let (mut next_tick, mut next_command) = match clock {
            LoopClock::Wall(_) => (Some(period), command),
            LoopClock::Sim => (None, None),
        };
        // The loop-clock time of the last command and when (wall) it was last sent.
        let mut last_sent: Option<(i64, Instant)> = None;
        let mut resends = 0_u64;
        while !stop.load(Ordering::Relaxed) {
            let wait = match clock {
                LoopClock::Wall(start) => {
                    let now = start.elapsed().as_nanos() as i64;
                    let due = next_tick
                        .into_iter()
                        .chain(next_command)
                        .min()
                        .map_or(i64::MAX, |t| t.saturating_sub(now).max(0));
                    StdDuration::from_nanos(due as u64)
                        .min(next_diag.saturating_duration_since(Instant::now()))
                        .min(WALL_WAIT)
                }
                LoopClock::Sim => SIM_WAIT,
            };
            match self.poll.poll(&mut self.events, Some(wait)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            }
            self.drain_inputs();
            self.serve(provider);
            if let Some(t) = self.clock_now(clock) {
                if std::mem::take(&mut self.clock_went_back) {
                    // The simulator restarted: the schedule and the provider start again, as
                    // on `~/reset` (the stamp history was dropped when the clock was read).
                    self.log(
                        LogLevel::Warn,
                        "/clock went backwards: the schedule starts again",
                    );
                    if let Err(e) = provider.reset() {
                        self.log(LogLevel::Warn, &format!("provider reset failed: {e}"));
                    }
                    next_tick = None;
                    next_command = None;
                }
                let due = *next_tick.get_or_insert(t);
                let mut tick_now = t >= due;
                let sent_before = self.commands_sent();
                if !tick_now {
                    if let (Some(at), Some(c)) = (next_command, command) {
                        if t >= at {
                            self.command_tick(provider);
                            if clock.is_sim() && self.commands_sent() == sent_before {
                                // Nothing to track yet: a simulator in lockstep waits for a
                                // command at this time, so plan now instead.
                                tick_now = true;
                            } else {
                                next_command = Some(if at + c <= t { t + c } else { at + c });
                            }
                        }
                    }
                }
                if tick_now {
                    // (Nothing was sent above when we get here.)
                    self.tick(provider);
                    // On the simulator's clock a tick that sent no command (no valid state
                    // yet, e.g. the clock arrived before the first joint_states) is tried again
                    // at the next wake-up: a simulator in lockstep holds its clock until a
                    // command for this time arrives.
                    if !clock.is_sim() || self.commands_sent() != sent_before || !self.enabled {
                        let mut next = due + period;
                        if next <= t {
                            self.diag.tick_overruns += 1;
                            next = t + period;
                        }
                        next_tick = Some(next);
                        // The tick sent a command: the next tracking command one period later.
                        if let (Some(c), Some(after)) = (command, self.clock_now(clock)) {
                            next_command = Some(after + c);
                        }
                    }
                }
                if clock.is_sim() {
                    let now = Instant::now();
                    match last_sent {
                        _ if self.commands_sent() != sent_before => last_sent = Some((t, now)),
                        // The clock has not moved for RESEND since the command for this time:
                        // send it again. A simulator in lockstep may have missed it (a sample
                        // lost before its reader matched our writer) and would wait for ever;
                        // anything else gets the same effort twice.
                        Some((at, when)) if at == t && self.enabled && now - when >= RESEND => {
                            publish(&self.effort_pub, &self.effort_msg, &mut self.diag);
                            resends += 1;
                            last_sent = Some((t, now));
                        }
                        _ => {}
                    }
                }
            }
            let now = Instant::now();
            self.diagnostics_due(now, &mut next_diag, diag_period);
        }
        if resends > 0 {
            let text = format!("{resends} commands sent again while the clock stood still");
            self.log(LogLevel::Info, &text);
        }
        self.log_summary();
        Ok(())
    }

    /// Now on the loop's clock (nanoseconds); `None` on the simulator's clock before its first
    /// sample.
    fn clock_now(&self, clock: LoopClock) -> Option<i64> {
        match clock {
            LoopClock::Wall(start) => Some(start.elapsed().as_nanos() as i64),
            LoopClock::Sim => self.sim_now.map(Time::to_nanos),
        }
    }

    /// Takes the waiting `/clock` samples. A clock that goes back (a simulator restart) drops
    /// the stamp history at once, so that the restarted simulator's states are not judged by
    /// the old one's; the rest of the restart is in [`NodeRuntime::run`].
    pub(super) fn drain_clock(&mut self) {
        for _ in 0..MAX_DRAIN {
            let next = self
                .clock_sub
                .as_ref()
                .and_then(|sub| self.next_sample(sub, "/clock"));
            let Some(msg) = next else { break };
            if msg.clock.is_normalized() {
                if self.sim_now.is_some_and(|t| msg.clock < t) {
                    self.validator.reset();
                    self.clock_went_back = true;
                }
                self.sim_now = Some(msg.clock);
            }
        }
    }
}
