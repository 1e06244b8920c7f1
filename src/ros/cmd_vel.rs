//! The velocity command of a floating-base robot (`cmd_vel`, `geometry_msgs/msg/Twist` in the
//! base frame, as Nav2 and teleop publish it) turned into the command the controller tracks
//! ([`CmdVelFilter`]): rejected when not finite, clamped to the configured range, zero when
//! stale, and blended by acceleration limits so that a step in the command becomes a ramp.
//!
//! Only `linear.x` (forward), `linear.y` (lateral) and `angular.z` (yaw rate) are used; they are
//! taken in the heading frame (the base frame turned by yaw only). Pure logic on nanosecond
//! times of the node's clock, no I/O and no allocation.

use std::fmt::Write;

use super::diagnostics::set;
use super::msg::{DiagnosticStatus, KeyValue, Twist};

/// Keys of the `cmd_vel` diagnostics entry.
const STATUS_KEYS: [&str; 6] = [
    "accepted", "rejected", "clamped", "fresh", "target", "command",
];

/// An empty `cmd_vel` diagnostics entry named `name` (its strings sized once).
pub fn status_with_keys(name: &str) -> DiagnosticStatus {
    DiagnosticStatus {
        level: DiagnosticStatus::OK,
        name: name.into(),
        message: String::with_capacity(64),
        hardware_id: String::new(),
        values: STATUS_KEYS
            .iter()
            .map(|k| KeyValue {
                key: (*k).into(),
                value: String::with_capacity(48),
            })
            .collect(),
    }
}

/// Limits, timeout and blend of the velocity command (the `cmd_vel.*` parameters).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CmdVelSettings {
    /// A command older than this (s) counts as zero (the robot comes to a stand).
    pub timeout: f64,
    /// Range of `linear.x` (m/s): `[min, max]`, `min ≤ 0 ≤ max`.
    pub linear_x: [f64; 2],
    /// Largest `|linear.y|` (m/s).
    pub max_linear_y: f64,
    /// Largest `|angular.z|` (rad/s).
    pub max_angular_z: f64,
    /// Largest change of the linear command per second (m/s²), per axis.
    pub max_accel_linear: f64,
    /// Largest change of the yaw-rate command per second (rad/s²).
    pub max_accel_angular: f64,
}

impl Default for CmdVelSettings {
    fn default() -> Self {
        CmdVelSettings {
            timeout: 0.5,
            linear_x: [-0.2, 0.4],
            max_linear_y: 0.15,
            max_angular_z: 0.5,
            max_accel_linear: 0.5,
            max_accel_angular: 1.0,
        }
    }
}

impl CmdVelSettings {
    /// `[lower, upper]` of each axis `(vₓ, v_y, ω)`.
    fn bounds(&self) -> [[f64; 2]; 3] {
        [
            self.linear_x,
            [-self.max_linear_y, self.max_linear_y],
            [-self.max_angular_z, self.max_angular_z],
        ]
    }

    /// A problem with the settings, naming the parameter.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let finite_pos = |x: f64| x.is_finite() && x > 0.0;
        let finite_nonneg = |x: f64| x.is_finite() && x >= 0.0;
        if !finite_pos(self.timeout) {
            return Err((
                "cmd_vel.timeout",
                format!("must be > 0, got {}", self.timeout),
            ));
        }
        let [lo, hi] = self.linear_x;
        if !(lo.is_finite() && hi.is_finite() && lo <= 0.0 && hi >= 0.0) {
            return Err((
                "cmd_vel.min_linear_x",
                format!("need min_linear_x ≤ 0 ≤ max_linear_x, got [{lo}, {hi}]"),
            ));
        }
        for (name, x) in [
            ("cmd_vel.max_linear_y", self.max_linear_y),
            ("cmd_vel.max_angular_z", self.max_angular_z),
        ] {
            if !finite_nonneg(x) {
                return Err((name, format!("must be finite and ≥ 0, got {x}")));
            }
        }
        for (name, x) in [
            ("cmd_vel.max_accel_linear", self.max_accel_linear),
            ("cmd_vel.max_accel_angular", self.max_accel_angular),
        ] {
            if !finite_pos(x) {
                return Err((name, format!("must be finite and > 0, got {x}")));
            }
        }
        Ok(())
    }
}

/// Why a `cmd_vel` message was not taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CmdVelFault {
    /// A NaN or infinite component (any of the six).
    #[error("cmd_vel: non-finite component {0} (rejected, the previous command stays)")]
    NonFinite(&'static str),
}

/// What happened to an accepted message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmdVelAccepted {
    /// Within the limits.
    AsGiven,
    /// At least one axis was beyond its limit and was clamped.
    Clamped,
}

/// The command state: the last accepted (clamped) target, its time, and the blended output.
#[derive(Clone, Debug, PartialEq)]
pub struct CmdVelFilter {
    settings: CmdVelSettings,
    /// Last accepted target `(vₓ, v_y, ω)` and its arrival time (ns on the node's clock).
    target: [f64; 3],
    received: Option<i64>,
    /// The blended command and the time it was last advanced.
    output: [f64; 3],
    updated: Option<i64>,
    /// The target at the last update and whether it was fresh then (what the controller got).
    in_force: [f64; 3],
    fresh_at_update: bool,
    /// Messages accepted, rejected, clamped.
    pub accepted: u64,
    /// Messages rejected (non-finite).
    pub rejected: u64,
    /// Accepted messages that were clamped.
    pub clamped: u64,
}

impl CmdVelFilter {
    /// No command yet.
    pub fn new(settings: CmdVelSettings) -> CmdVelFilter {
        CmdVelFilter {
            settings,
            target: [0.0; 3],
            received: None,
            output: [0.0; 3],
            updated: None,
            in_force: [0.0; 3],
            fresh_at_update: false,
            accepted: 0,
            rejected: 0,
            clamped: 0,
        }
    }

    /// The settings.
    pub fn settings(&self) -> &CmdVelSettings {
        &self.settings
    }

    /// Takes a message received at `now` (ns): a non-finite component rejects it (the previous
    /// command stays in force until it times out); each axis beyond its limit is clamped.
    pub fn accept(&mut self, msg: &Twist, now: i64) -> Result<CmdVelAccepted, CmdVelFault> {
        let components = [
            ("linear.x", msg.linear.x),
            ("linear.y", msg.linear.y),
            ("linear.z", msg.linear.z),
            ("angular.x", msg.angular.x),
            ("angular.y", msg.angular.y),
            ("angular.z", msg.angular.z),
        ];
        if let Some((name, _)) = components.iter().find(|(_, x)| !x.is_finite()) {
            self.rejected += 1;
            return Err(CmdVelFault::NonFinite(name));
        }
        let raw = [msg.linear.x, msg.linear.y, msg.angular.z];
        let mut clamped = false;
        for ((t, r), [lo, hi]) in self.target.iter_mut().zip(raw).zip(self.settings.bounds()) {
            *t = r.clamp(lo, hi);
            clamped |= *t != r;
        }
        self.received = Some(now);
        self.accepted += 1;
        if clamped {
            self.clamped += 1;
            Ok(CmdVelAccepted::Clamped)
        } else {
            Ok(CmdVelAccepted::AsGiven)
        }
    }

    /// Whether a command arrived within the timeout before `now`.
    pub fn is_fresh(&self, now: i64) -> bool {
        self.received
            .is_some_and(|t| (now - t) as f64 * 1e-9 <= self.settings.timeout)
    }

    /// The target in force at `now`: the last accepted one, or zero when it is stale.
    pub fn target(&self, now: i64) -> [f64; 3] {
        if self.is_fresh(now) {
            self.target
        } else {
            [0.0; 3]
        }
    }

    /// Advances the blended command to `now` (ns) and returns it; `None` while no command was
    /// ever accepted (the controller's references then stay as configured). Each axis moves
    /// towards [`CmdVelFilter::target`] by at most its acceleration limit times the time since
    /// the last call (none on the first call: the blend starts from zero). A clock that goes
    /// back moves nothing.
    pub fn update(&mut self, now: i64) -> Option<[f64; 3]> {
        self.received?;
        let dt = self
            .updated
            .map_or(0.0, |t| ((now - t).max(0) as f64) * 1e-9);
        self.updated = Some(self.updated.map_or(now, |t| t.max(now)));
        let target = self.target(now);
        self.in_force = target;
        self.fresh_at_update = self.is_fresh(now);
        let limits = [
            self.settings.max_accel_linear,
            self.settings.max_accel_linear,
            self.settings.max_accel_angular,
        ];
        for ((o, t), a) in self.output.iter_mut().zip(target).zip(limits) {
            let step = a * dt;
            if (t - *o).abs() <= step {
                *o = t;
            } else {
                *o += (t - *o).signum() * step;
            }
        }
        Some(self.output)
    }

    /// The blended command as of the last [`CmdVelFilter::update`] (`None`: never commanded).
    pub fn output(&self) -> Option<[f64; 3]> {
        self.received.map(|_| self.output)
    }

    /// Writes the `cmd_vel` diagnostics entry into `status` (made by [`status_with_keys`]): the
    /// counters, and the target and blended command as of the last
    /// [`update`](CmdVelFilter::update) (the last plan: what the controller got, also when a
    /// long solve has passed since); `window` holds the messages rejected and clamped since the
    /// last report, which make it a warning.
    pub fn fill_status(&self, status: &mut DiagnosticStatus, window: (u64, u64)) {
        status.level = if window.0 > 0 || window.1 > 0 {
            DiagnosticStatus::WARN
        } else {
            DiagnosticStatus::OK
        };
        status.message.clear();
        let _ = write!(
            status.message,
            "{}{}",
            match (self.received.is_some(), self.fresh_at_update) {
                (false, _) => "no command yet",
                (true, true) => "following the command",
                (true, false) => "command stale: coming to a stand",
            },
            match window {
                (0, 0) => "",
                (_, 0) => "; messages rejected",
                (0, _) => "; commands clamped",
                _ => "; messages rejected and clamped",
            }
        );
        let target = self.in_force;
        let out = self.output;
        let values = &mut status.values;
        if values.len() < STATUS_KEYS.len() {
            return;
        }
        set(&mut values[0], format_args!("{}", self.accepted));
        set(&mut values[1], format_args!("{}", self.rejected));
        set(&mut values[2], format_args!("{}", self.clamped));
        set(&mut values[3], format_args!("{}", self.fresh_at_update));
        set(
            &mut values[4],
            format_args!("{:.3} {:.3} {:.3}", target[0], target[1], target[2]),
        );
        set(
            &mut values[5],
            format_args!("{:.3} {:.3} {:.3}", out[0], out[1], out[2]),
        );
    }

    /// Forget everything (`~/reset`): as if no command had ever been received.
    pub fn reset(&mut self) {
        *self = CmdVelFilter::new(self.settings);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ros::msg::Vector3;

    const S: i64 = 1_000_000_000;

    fn twist(x: f64, y: f64, wz: f64) -> Twist {
        Twist {
            linear: Vector3 { x, y, z: 0.0 },
            angular: Vector3 {
                x: 0.0,
                y: 0.0,
                z: wz,
            },
        }
    }

    #[test]
    fn nothing_before_the_first_command() {
        let mut f = CmdVelFilter::new(CmdVelSettings::default());
        assert_eq!(f.update(0), None);
        assert_eq!(f.update(5 * S), None);
        assert_eq!(f.output(), None);
        // A rejected message is no command either.
        let mut bad = twist(0.1, 0.0, 0.0);
        bad.angular.x = f64::NAN;
        assert_eq!(f.accept(&bad, S), Err(CmdVelFault::NonFinite("angular.x")));
        assert_eq!(f.update(S), None);
        assert_eq!((f.accepted, f.rejected), (0, 1));
    }

    #[test]
    fn clamps_each_axis_to_its_range() {
        let mut f = CmdVelFilter::new(CmdVelSettings::default());
        assert_eq!(
            f.accept(&twist(1.0, -0.5, 2.0), 0),
            Ok(CmdVelAccepted::Clamped)
        );
        assert_eq!(f.target(0), [0.4, -0.15, 0.5]);
        assert_eq!(
            f.accept(&twist(-1.0, 0.1, -0.3), 0),
            Ok(CmdVelAccepted::Clamped)
        );
        assert_eq!(f.target(0), [-0.2, 0.1, -0.3]);
        assert_eq!(
            f.accept(&twist(0.3, 0.0, 0.0), 0),
            Ok(CmdVelAccepted::AsGiven)
        );
        assert_eq!((f.accepted, f.clamped), (3, 2));
    }

    #[test]
    fn non_finite_is_rejected_and_the_previous_command_stays() {
        let mut f = CmdVelFilter::new(CmdVelSettings::default());
        f.accept(&twist(0.2, 0.0, 0.1), 0).unwrap();
        for (i, bad) in [
            twist(f64::NAN, 0.0, 0.0),
            twist(0.0, f64::INFINITY, 0.0),
            twist(0.0, 0.0, f64::NEG_INFINITY),
        ]
        .iter()
        .enumerate()
        {
            assert!(f.accept(bad, (i as i64 + 1) * S / 10).is_err());
        }
        assert_eq!(f.target(S / 4), [0.2, 0.0, 0.1]);
        assert_eq!(f.rejected, 3);
    }

    #[test]
    fn stale_command_becomes_zero() {
        let mut f = CmdVelFilter::new(CmdVelSettings::default()); // timeout 0.5 s
        f.accept(&twist(0.2, 0.1, 0.3), S).unwrap();
        assert_eq!(f.target(S + S / 2), [0.2, 0.1, 0.3]);
        assert_eq!(f.target(S + S / 2 + 1_000_000), [0.0; 3]);
        assert!(!f.is_fresh(3 * S));
    }

    #[test]
    fn a_step_is_blended_at_the_acceleration_limits() {
        // 0.5 m/s² linear, 1 rad/s² angular; ticks of 0.1 s.
        let mut f = CmdVelFilter::new(CmdVelSettings {
            timeout: 10.0,
            ..CmdVelSettings::default()
        });
        f.accept(&twist(0.3, -0.1, 0.4), 0).unwrap();
        assert_eq!(f.update(0), Some([0.0; 3]));
        let tick = S / 10;
        let mut out = [0.0; 3];
        for k in 1..=10 {
            out = f.update(k * tick).unwrap();
            let t = k as f64 * 0.1;
            let want = [(0.5 * t).min(0.3), (-0.5 * t).max(-0.1), (1.0 * t).min(0.4)];
            for i in 0..3 {
                assert!(
                    (out[i] - want[i]).abs() < 1e-12,
                    "t {t}: {out:?} vs {want:?}"
                );
            }
        }
        assert_eq!(out, [0.3, -0.1, 0.4]);
        // The command times out: the output ramps down to zero, never beyond.
        let mut f2 = f.clone();
        f2.settings.timeout = 0.5;
        let late = 2 * S;
        let o1 = f2.update(late).unwrap(); // 1 s after the last update: 0.5 m/s, 1 rad/s room
        assert_eq!(o1, [0.0; 3]);
        // A clock going back moves nothing.
        assert_eq!(f.update(0), Some([0.3, -0.1, 0.4]));
    }

    #[test]
    fn settings_are_checked() {
        assert!(CmdVelSettings::default().check().is_ok());
        let bad = CmdVelSettings {
            linear_x: [0.1, 0.4],
            ..CmdVelSettings::default()
        };
        assert_eq!(bad.check().unwrap_err().0, "cmd_vel.min_linear_x");
        let bad = CmdVelSettings {
            max_accel_angular: 0.0,
            ..CmdVelSettings::default()
        };
        assert_eq!(bad.check().unwrap_err().0, "cmd_vel.max_accel_angular");
        let bad = CmdVelSettings {
            timeout: f64::NAN,
            ..CmdVelSettings::default()
        };
        assert_eq!(bad.check().unwrap_err().0, "cmd_vel.timeout");
    }
}
