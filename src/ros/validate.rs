//! Validation of incoming `joint_states` and `odom` messages into a [`RobotState`].
//!
//! A `JointState` is matched by joint name: joints may come in any order and joints that are
//! not configured are ignored. It is rejected — and the previous state is then no longer used
//! for planning until a good message arrives — when any of these holds:
//!
//! * `position`/`velocity` not as long as `name` (`effort` may also be empty);
//! * a configured joint is missing or named twice (unknown names are reported with it);
//! * a configured joint's position, velocity or effort is NaN or infinite;
//! * the stamp is invalid (`nanosec ≥ 10⁹`), older than `stale_state_timeout`, more than that
//!   far in the future, or not newer than the last accepted stamp.
//!
//! Odometry has the same stamp rules; its pose and twist must be finite and the orientation a
//! unit quaternion (|‖q‖ − 1| ≤ 10⁻³, then normalised). The happy path allocates nothing: the
//! matching compares `&str`s and writes into the state's existing vectors.

use super::msg::{JointState, Odometry, Time};
use super::state::{BaseState, RobotState};

/// Why a message (or the current state) cannot be planned from.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StateFault {
    /// `field` has `got` entries where `expected` were needed.
    WrongLength {
        /// Topic the message came on (`joint_states`).
        topic: &'static str,
        /// Message field.
        field: &'static str,
        /// Needed length.
        expected: usize,
        /// Actual length.
        got: usize,
    },
    /// A configured joint is not in the message; `unknown` lists names we do not know.
    MissingJoint {
        /// The missing joint.
        joint: String,
        /// Names in the message that are not configured.
        unknown: Vec<String>,
    },
    /// A configured joint appears twice.
    DuplicateJoint {
        /// The joint.
        joint: String,
    },
    /// A NaN or infinite value.
    NonFinite {
        /// Topic.
        topic: &'static str,
        /// Field (`position`, `velocity`, `effort`, `pose`, `twist`).
        field: &'static str,
        /// Joint name or component.
        what: String,
    },
    /// The odometry orientation is not a unit quaternion.
    BadQuaternion {
        /// Its norm.
        norm: f64,
    },
    /// `nanosec ≥ 10⁹`.
    BadStamp {
        /// Topic.
        topic: &'static str,
    },
    /// Older than the stale timeout (also: a zero stamp).
    Stale {
        /// Topic.
        topic: &'static str,
        /// Age in seconds.
        age: f64,
    },
    /// Stamped further in the future than the stale timeout.
    FutureStamp {
        /// Topic.
        topic: &'static str,
        /// How far ahead, in seconds.
        ahead: f64,
    },
    /// Not newer than the last accepted message.
    OutOfOrder {
        /// Topic.
        topic: &'static str,
        /// This message's stamp.
        stamp: Time,
        /// Last accepted stamp.
        last: Time,
    },
    /// Nothing valid received yet (or invalidated by a rejected message).
    NoState {
        /// Topic that has no valid data.
        topic: &'static str,
    },
}

/// Number of [`FaultKind`]s.
pub const FAULT_KINDS: usize = 10;

/// A fault's category, for counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum FaultKind {
    WrongLength = 0,
    MissingJoint,
    DuplicateJoint,
    NonFinite,
    BadQuaternion,
    BadStamp,
    Stale,
    FutureStamp,
    OutOfOrder,
    NoState,
}

impl FaultKind {
    /// All kinds in index order.
    pub const ALL: [FaultKind; FAULT_KINDS] = [
        FaultKind::WrongLength,
        FaultKind::MissingJoint,
        FaultKind::DuplicateJoint,
        FaultKind::NonFinite,
        FaultKind::BadQuaternion,
        FaultKind::BadStamp,
        FaultKind::Stale,
        FaultKind::FutureStamp,
        FaultKind::OutOfOrder,
        FaultKind::NoState,
    ];

    /// Snake-case name used as diagnostics key.
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::WrongLength => "wrong_length",
            FaultKind::MissingJoint => "missing_joint",
            FaultKind::DuplicateJoint => "duplicate_joint",
            FaultKind::NonFinite => "non_finite",
            FaultKind::BadQuaternion => "bad_quaternion",
            FaultKind::BadStamp => "bad_stamp",
            FaultKind::Stale => "stale",
            FaultKind::FutureStamp => "future_stamp",
            FaultKind::OutOfOrder => "out_of_order",
            FaultKind::NoState => "no_state",
        }
    }
}

impl StateFault {
    /// The category.
    pub fn kind(&self) -> FaultKind {
        match self {
            StateFault::WrongLength { .. } => FaultKind::WrongLength,
            StateFault::MissingJoint { .. } => FaultKind::MissingJoint,
            StateFault::DuplicateJoint { .. } => FaultKind::DuplicateJoint,
            StateFault::NonFinite { .. } => FaultKind::NonFinite,
            StateFault::BadQuaternion { .. } => FaultKind::BadQuaternion,
            StateFault::BadStamp { .. } => FaultKind::BadStamp,
            StateFault::Stale { .. } => FaultKind::Stale,
            StateFault::FutureStamp { .. } => FaultKind::FutureStamp,
            StateFault::OutOfOrder { .. } => FaultKind::OutOfOrder,
            StateFault::NoState { .. } => FaultKind::NoState,
        }
    }
}

impl std::fmt::Display for StateFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateFault::WrongLength {
                topic,
                field,
                expected,
                got,
            } => {
                write!(
                    f,
                    "{topic}: '{field}' has {got} entries, expected {expected}"
                )
            }
            StateFault::MissingJoint { joint, unknown } if unknown.is_empty() => {
                write!(f, "joint_states: joint '{joint}' missing")
            }
            StateFault::MissingJoint { joint, unknown } => {
                write!(
                    f,
                    "joint_states: joint '{joint}' missing (unknown joints {unknown:?})"
                )
            }
            StateFault::DuplicateJoint { joint } => {
                write!(f, "joint_states: joint '{joint}' appears twice")
            }
            StateFault::NonFinite { topic, field, what } => {
                write!(f, "{topic}: non-finite {field} of '{what}'")
            }
            StateFault::BadQuaternion { norm } => write!(
                f,
                "odom: orientation is not a unit quaternion (norm {norm})"
            ),
            StateFault::BadStamp { topic } => write!(f, "{topic}: invalid stamp (nanosec ≥ 1e9)"),
            StateFault::Stale { topic, age } => write!(f, "{topic}: stale stamp ({age:.3} s old)"),
            StateFault::FutureStamp { topic, ahead } => {
                write!(f, "{topic}: stamp {ahead:.3} s in the future")
            }
            StateFault::OutOfOrder { topic, stamp, last } => write!(
                f,
                "{topic}: stamp {}.{:09} not newer than last accepted {}.{:09}",
                stamp.sec, stamp.nanosec, last.sec, last.nanosec
            ),
            StateFault::NoState { topic } => write!(f, "{topic}: no valid message yet"),
        }
    }
}

/// Stamp rules shared by both topics.
#[derive(Debug, Clone)]
struct StampGate {
    topic: &'static str,
    last: Option<Time>,
    timeout_ns: i64,
}

impl StampGate {
    fn check(&self, stamp: Time, now: Time) -> Result<(), StateFault> {
        let topic = self.topic;
        if !stamp.is_normalized() {
            return Err(StateFault::BadStamp { topic });
        }
        let age = now.to_nanos() - stamp.to_nanos();
        if age > self.timeout_ns {
            return Err(StateFault::Stale {
                topic,
                age: age as f64 * 1e-9,
            });
        }
        if -age > self.timeout_ns {
            return Err(StateFault::FutureStamp {
                topic,
                ahead: -age as f64 * 1e-9,
            });
        }
        if let Some(last) = self.last {
            if stamp <= last {
                return Err(StateFault::OutOfOrder { topic, stamp, last });
            }
        }
        Ok(())
    }
}

/// Turns messages into a [`RobotState`], keeping the stamp history and validity.
#[derive(Debug, Clone)]
pub struct StateValidator {
    joint_names: Vec<String>,
    /// Message index of each configured joint (reused buffer).
    index: Vec<usize>,
    joints: StampGate,
    base: Option<StampGate>,
    joints_valid: bool,
    base_valid: bool,
    state: RobotState,
}

fn finite3(a: [f64; 3]) -> bool {
    a.iter().all(|x| x.is_finite())
}

impl StateValidator {
    /// For `joint_names` (the `joint_names` parameter), with a base when `floating_base`.
    pub fn new(
        joint_names: &[String],
        floating_base: bool,
        stale_timeout_s: f64,
    ) -> StateValidator {
        let timeout_ns = (stale_timeout_s * 1e9).round() as i64;
        StateValidator {
            joint_names: joint_names.to_vec(),
            index: vec![0; joint_names.len()],
            joints: StampGate {
                topic: "joint_states",
                last: None,
                timeout_ns,
            },
            base: floating_base.then_some(StampGate {
                topic: "odom",
                last: None,
                timeout_ns,
            }),
            joints_valid: false,
            base_valid: false,
            state: RobotState::new(joint_names.len(), floating_base),
        }
    }

    /// Checks `msg` against the configuration and the clock `now`; on success it becomes the
    /// current joint state. On failure the joint state is invalid until the next good message.
    pub fn accept_joint_state(&mut self, msg: &JointState, now: Time) -> Result<(), StateFault> {
        let r = self.check_joint_state(msg, now);
        self.joints_valid = r.is_ok();
        if r.is_ok() {
            self.joints.last = Some(msg.header.stamp);
            let s = &mut self.state;
            s.stamp = msg.header.stamp;
            s.effort.clear();
            for (j, &i) in self.index.iter().enumerate() {
                s.position[j] = msg.position[i];
                s.velocity[j] = msg.velocity[i];
                if !msg.effort.is_empty() {
                    s.effort.push(msg.effort[i]);
                }
            }
        }
        r
    }

    fn check_joint_state(&mut self, msg: &JointState, now: Time) -> Result<(), StateFault> {
        let n = msg.name.len();
        let topic = "joint_states";
        for (field, len, may_be_empty) in [
            ("position", msg.position.len(), false),
            ("velocity", msg.velocity.len(), false),
            ("effort", msg.effort.len(), true),
        ] {
            if len != n && !(may_be_empty && len == 0) {
                return Err(StateFault::WrongLength {
                    topic,
                    field,
                    expected: n,
                    got: len,
                });
            }
        }
        for (j, joint) in self.joint_names.iter().enumerate() {
            let mut found = None;
            for (i, name) in msg.name.iter().enumerate() {
                if name == joint {
                    if found.is_some() {
                        return Err(StateFault::DuplicateJoint {
                            joint: joint.clone(),
                        });
                    }
                    found = Some(i);
                }
            }
            let Some(i) = found else {
                let unknown = msg
                    .name
                    .iter()
                    .filter(|m| !self.joint_names.contains(m))
                    .cloned()
                    .collect();
                return Err(StateFault::MissingJoint {
                    joint: joint.clone(),
                    unknown,
                });
            };
            self.index[j] = i;
        }
        for (j, &i) in self.index.iter().enumerate() {
            for (field, data) in [
                ("position", &msg.position),
                ("velocity", &msg.velocity),
                ("effort", &msg.effort),
            ] {
                if data.get(i).is_some_and(|x| !x.is_finite()) {
                    return Err(StateFault::NonFinite {
                        topic,
                        field,
                        what: self.joint_names[j].clone(),
                    });
                }
            }
        }
        self.joints.check(msg.header.stamp, now)
    }

    /// Checks an odometry message (only with a floating base; otherwise it is ignored and
    /// `Ok` returned). On failure the base state is invalid until the next good message.
    pub fn accept_odometry(&mut self, msg: &Odometry, now: Time) -> Result<(), StateFault> {
        let Some(gate) = &self.base else {
            return Ok(());
        };
        let topic = "odom";
        let p = &msg.pose.pose;
        let t = &msg.twist.twist;
        let position = [p.position.x, p.position.y, p.position.z];
        let q = [
            p.orientation.x,
            p.orientation.y,
            p.orientation.z,
            p.orientation.w,
        ];
        let lin = [t.linear.x, t.linear.y, t.linear.z];
        let ang = [t.angular.x, t.angular.y, t.angular.z];
        let r = (|| {
            if !finite3(position) || !q.iter().all(|x| x.is_finite()) {
                return Err(StateFault::NonFinite {
                    topic,
                    field: "pose",
                    what: "base".into(),
                });
            }
            if !finite3(lin) || !finite3(ang) {
                return Err(StateFault::NonFinite {
                    topic,
                    field: "twist",
                    what: "base".into(),
                });
            }
            let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
            if (norm - 1.0).abs() > 1e-3 {
                return Err(StateFault::BadQuaternion { norm });
            }
            gate.check(msg.header.stamp, now)?;
            Ok(norm)
        })();
        self.base_valid = r.is_ok();
        let norm = r?;
        if let Some(gate) = &mut self.base {
            gate.last = Some(msg.header.stamp);
        }
        self.state.base = Some(BaseState {
            stamp: msg.header.stamp,
            position,
            orientation: q.map(|x| x / norm),
            linear_velocity: lin,
            angular_velocity: ang,
        });
        Ok(())
    }

    /// The current state if it is valid and fresh at `now` (joints, and base when configured).
    pub fn current(&self, now: Time) -> Result<&RobotState, StateFault> {
        let timeout = self.joints.timeout_ns;
        let fresh = |topic: &'static str, stamp: Time| {
            let age = now.to_nanos() - stamp.to_nanos();
            if age > timeout {
                Err(StateFault::Stale {
                    topic,
                    age: age as f64 * 1e-9,
                })
            } else {
                Ok(())
            }
        };
        if !self.joints_valid {
            return Err(StateFault::NoState {
                topic: "joint_states",
            });
        }
        fresh("joint_states", self.state.stamp)?;
        if self.base.is_some() {
            match (&self.state.base, self.base_valid) {
                (Some(b), true) => fresh("odom", b.stamp)?,
                _ => return Err(StateFault::NoState { topic: "odom" }),
            }
        }
        Ok(&self.state)
    }

    /// Forgets stamp history and validity (`~/reset`), e.g. after a simulator restart.
    pub fn reset(&mut self) {
        self.joints.last = None;
        if let Some(b) = &mut self.base {
            b.last = None;
        }
        self.joints_valid = false;
        self.base_valid = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ros::msg::{Header, Quaternion};

    fn names() -> Vec<String> {
        vec!["hip".into(), "knee".into()]
    }

    fn js(stamp: Time, name: &[&str], pos: &[f64], vel: &[f64]) -> JointState {
        JointState {
            header: Header {
                stamp,
                frame_id: String::new(),
            },
            name: name.iter().map(|s| s.to_string()).collect(),
            position: pos.to_vec(),
            velocity: vel.to_vec(),
            effort: vec![],
        }
    }

    const NOW: Time = Time {
        sec: 1000,
        nanosec: 0,
    };
    fn at(ms: i64) -> Time {
        Time::from_nanos(NOW.to_nanos() + ms * 1_000_000)
    }

    #[test]
    fn accepts_any_order_and_ignores_extra_joints() {
        let mut v = StateValidator::new(&names(), false, 0.1);
        assert!(matches!(v.current(NOW), Err(StateFault::NoState { .. })));
        v.accept_joint_state(
            &js(
                at(-5),
                &["extra", "knee", "hip"],
                &[9.0, 2.0, 1.0],
                &[9.0, 20.0, 10.0],
            ),
            NOW,
        )
        .unwrap();
        let s = v.current(NOW).unwrap();
        assert_eq!(s.position, vec![1.0, 2.0]);
        assert_eq!(s.velocity, vec![10.0, 20.0]);
        assert!(s.effort.is_empty());
        // Stale at tick time even though it was fine on arrival.
        assert!(matches!(v.current(at(200)), Err(StateFault::Stale { .. })));
    }

    #[test]
    fn rejects_each_fault_and_invalidates_the_state() {
        let mut v = StateValidator::new(&names(), false, 0.1);
        v.accept_joint_state(&js(at(-5), &["hip", "knee"], &[1.0, 2.0], &[0.0, 0.0]), NOW)
            .unwrap();
        let cases: Vec<(JointState, FaultKind)> = vec![
            (
                js(at(-1), &["hip", "knee"], &[f64::NAN, 2.0], &[0.0, 0.0]),
                FaultKind::NonFinite,
            ),
            (
                js(at(-1), &["hip", "knee"], &[1.0, 2.0], &[f64::INFINITY, 0.0]),
                FaultKind::NonFinite,
            ),
            (
                js(at(-1), &["hip", "knee"], &[1.0], &[0.0, 0.0]),
                FaultKind::WrongLength,
            ),
            (
                js(at(-1), &["hip", "knee"], &[1.0, 2.0], &[]),
                FaultKind::WrongLength,
            ),
            (
                js(at(-1), &["hip", "ankle"], &[1.0, 2.0], &[0.0, 0.0]),
                FaultKind::MissingJoint,
            ),
            (
                js(at(-1), &["hip", "knee", "hip"], &[1.0, 2.0, 3.0], &[0.0; 3]),
                FaultKind::DuplicateJoint,
            ),
            (
                js(at(-500), &["hip", "knee"], &[1.0, 2.0], &[0.0, 0.0]),
                FaultKind::Stale,
            ),
            (
                js(Time::ZERO, &["hip", "knee"], &[1.0, 2.0], &[0.0, 0.0]),
                FaultKind::Stale,
            ),
            (
                js(at(500), &["hip", "knee"], &[1.0, 2.0], &[0.0, 0.0]),
                FaultKind::FutureStamp,
            ),
            (
                js(at(-10), &["hip", "knee"], &[1.0, 2.0], &[0.0, 0.0]),
                FaultKind::OutOfOrder,
            ),
            (
                js(at(-5), &["hip", "knee"], &[1.0, 2.0], &[0.0, 0.0]),
                FaultKind::OutOfOrder,
            ),
            (
                js(
                    Time {
                        sec: 1000,
                        nanosec: 2_000_000_000,
                    },
                    &["hip", "knee"],
                    &[1.0, 2.0],
                    &[0.0, 0.0],
                ),
                FaultKind::BadStamp,
            ),
        ];
        for (msg, kind) in cases {
            let e = v.accept_joint_state(&msg, NOW).unwrap_err();
            assert_eq!(e.kind(), kind, "{e}");
            assert!(v.current(NOW).is_err(), "state must be invalid after {e}");
        }
        let e = v
            .accept_joint_state(
                &js(at(-1), &["hip", "ankle"], &[1.0, 2.0], &[0.0, 0.0]),
                NOW,
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "joint_states: joint 'knee' missing (unknown joints [\"ankle\"])"
        );
        // NaN in an ignored joint is fine.
        v.accept_joint_state(
            &js(
                at(-1),
                &["hip", "knee", "x"],
                &[1.0, 2.0, f64::NAN],
                &[0.0; 3],
            ),
            NOW,
        )
        .unwrap();
        assert_eq!(v.current(NOW).unwrap().position, vec![1.0, 2.0]);
        v.reset();
        assert!(v.current(NOW).is_err());
        v.accept_joint_state(
            &js(at(-50), &["hip", "knee"], &[1.0, 2.0], &[0.0, 0.0]),
            NOW,
        )
        .unwrap();
    }

    #[test]
    fn odometry_for_floating_base() {
        let mut v = StateValidator::new(&names(), true, 0.1);
        v.accept_joint_state(&js(at(-1), &["hip", "knee"], &[1.0, 2.0], &[0.0, 0.0]), NOW)
            .unwrap();
        assert!(matches!(
            v.current(NOW),
            Err(StateFault::NoState { topic: "odom" })
        ));
        let mut odom = Odometry::default();
        odom.header.stamp = at(-2);
        odom.pose.pose.position.z = 0.4;
        odom.pose.pose.orientation = Quaternion {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 1.0005,
        };
        v.accept_odometry(&odom, NOW).unwrap();
        let base = v.current(NOW).unwrap().base.unwrap();
        assert_eq!(base.position, [0.0, 0.0, 0.4]);
        assert!((base.orientation[3] - 1.0).abs() < 1e-15);
        odom.header.stamp = at(-1);
        odom.pose.pose.orientation.w = 2.0;
        assert_eq!(
            v.accept_odometry(&odom, NOW).unwrap_err().kind(),
            FaultKind::BadQuaternion
        );
        assert!(v.current(NOW).is_err());
        odom.pose.pose.orientation.w = 1.0;
        odom.twist.twist.angular.y = f64::NAN;
        assert_eq!(
            v.accept_odometry(&odom, NOW).unwrap_err().kind(),
            FaultKind::NonFinite
        );
    }

    #[test]
    fn happy_path_reuses_buffers() {
        let mut v = StateValidator::new(&names(), false, 0.1);
        let mut msg = js(at(-3), &["knee", "hip"], &[2.0, 1.0], &[0.0, 0.0]);
        msg.effort = vec![5.0, 6.0];
        v.accept_joint_state(&msg, NOW).unwrap();
        let ptr = v.current(NOW).unwrap().effort.as_ptr();
        msg.header.stamp = at(-2);
        v.accept_joint_state(&msg, NOW).unwrap();
        let s = v.current(NOW).unwrap();
        assert_eq!(s.effort.as_ptr(), ptr);
        assert_eq!(s.effort, vec![6.0, 5.0]);
    }
}
