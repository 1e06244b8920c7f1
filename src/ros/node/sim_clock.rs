//! [`NodeRuntime`] on a simulator's clock (`use_sim_time`): reading `/clock` and the control
//! loop that runs on it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration as StdDuration, Instant};

use ros2_client::ros2::LogLevel;

use super::{publish, NodeError, NodeRuntime, PlanProvider, Time, MAX_DRAIN};

/// The last command is sent again when the clock has not moved for this long.
const RESEND: StdDuration = StdDuration::from_millis(500);

impl NodeRuntime {
    /// Takes the waiting `/clock` samples. A clock that goes back (a simulator restart) drops
    /// the stamp history at once, so that the restarted simulator's states are not judged by
    /// the old one's; the rest of the restart is in [`NodeRuntime::run_sim_time`].
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

    /// [`NodeRuntime::run`] on the simulator's clock (`use_sim_time`): the first tick at the
    /// first `/clock`, then one every period of simulated time, with commands between ticks
    /// as on the wall clock. A simulator in lockstep (tools/mujoco_sim.py `--lockstep`) does
    /// not advance its clock past a command time before the node's command for it arrived, so
    /// a slow solve slows the run down instead of leaving the plant without commands; the
    /// solve's wall-time budget is the provider's (`fesdj_node`: the problem file's
    /// `mpc.deadline_s`; the node offers one period). Diagnostics keep the wall clock.
    pub(super) fn run_sim_time<P: PlanProvider + ?Sized>(
        &mut self,
        provider: &mut P,
        stop: &AtomicBool,
    ) -> Result<(), NodeError> {
        let period = self.period.as_nanos() as i64;
        let command = self.command_period.map(|c| c.as_nanos() as i64);
        let diag_period = StdDuration::from_secs_f64(1.0 / self.config.params.diagnostics_rate_hz);
        let mut next_diag = Instant::now() + diag_period;
        let mut next_tick: Option<i64> = None;
        let mut next_command: Option<i64> = None;
        // The simulated time of the last command and when (wall) it was last sent.
        let mut last_sent: Option<(i64, Instant)> = None;
        let mut resends = 0_u64;
        while !stop.load(Ordering::Relaxed) {
            match self
                .poll
                .poll(&mut self.events, Some(StdDuration::from_millis(20)))
            {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            }
            self.drain_inputs();
            self.serve(provider);
            if let Some(t) = self.sim_now.map(Time::to_nanos) {
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
                            if self.commands_sent() == sent_before {
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
                    self.tick(provider, Instant::now() + self.period);
                    if self.commands_sent() != sent_before || !self.enabled {
                        let mut next = due + period;
                        if next <= t {
                            self.diag.tick_overruns += 1;
                            next = t + period;
                        }
                        next_tick = Some(next);
                        next_command = command.map(|c| t + c);
                    }
                    // Else no command went out (no valid state yet, e.g. the clock arrived
                    // before the first joint_states): the tick is tried again at the next
                    // wake-up, since a simulator in lockstep holds its clock until a command
                    // for this time arrives.
                }
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
}
