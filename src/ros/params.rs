//! The node's declared ROS parameters: names, types, defaults, validation.
//!
//! [`NodeParams::from_overrides`] applies `--params-file`/`-p` values (see [`super::args`]) on
//! top of the defaults with type checks, and [`NodeParams::validate`] checks the combination.
//! [`NodeParams::declarations`] lists every parameter with its effective value for
//! `NodeOptions::declare_parameter`, so `ros2 param list/get/describe` show what the node runs
//! with. All parameters are read-only at run time: the node's validator refuses changes through
//! `set_parameters` (restart the node, as for any structural setting of a controller).
//!
//! | name | type | default | meaning |
//! |---|---|---|---|
//! | `robot_description_path` | string | `""` | robot URDF replacing `model.robot.urdf` of the config (empty: the config's); alias `urdf_path` |
//! | `config_file` | string | `""` | FESD-J problem file YAML with `horizon`, `ocp`, `mpc` (empty: the embedded demo); alias `config_path` |
//! | `rate_hz` | double | 50.0 | control rate; each tick plans once (0 < rate ≤ 1000); `fesdj_node`: default the config's `mpc.rate_hz` |
//! | `command_rate_hz` | double | 0.0 | rate of `~/effort_command` between re-plans: the provider applies its last plan (with its feedback) to every fresh state (0: once per tick; else ≥ `rate_hz`, ≤ 1000); `fesdj_node`: default the config's `mpc.command_rate_hz` |
//! | `horizon.N` | integer | 20 | grid intervals of the horizon (1 ≤ N ≤ 10000); `fesdj_node`: default the config's |
//! | `horizon.T` | double | 0.5 | horizon length in seconds (> 0); `fesdj_node`: default the config's |
//! | `weights.q`, `weights.v`, `weights.u` | double array | `[]` | diagonal tracking weights (empty: config's); ≥ 0 |
//! | `sim` | bool | false | run the FESD-J simulator as plant inside the node (it publishes `joint_states`); `fesdj_node` without a config file: true |
//! | `floating_base` | bool | false | also subscribe `odom` (nav_msgs/Odometry) for the base; `fesdj_node`: a `floating_zyx` root's six base coordinates come from it |
//! | `joint_names` | string array | `[]` | controlled joints: order of q, v, u in plans and trajectories |
//! | `effort_joints` | string array | `[]` | order of `~/effort_command` (empty: `joint_names`) |
//! | `stale_state_timeout` | double | 0.1 | a state older than this (s) is not planned from (> 0) |
//! | `service_mapping` | string | `fastrtps` | service wire convention: `fastrtps` (rmw_fastrtps_cpp) or `cyclonedds` (rmw_cyclonedds_cpp) |
//! | `start_enabled` | bool | false | publish commands from start (else wait for `~/enable`); `fesdj_node` without a config file: true |
//! | `diagnostics_rate_hz` | double | 1.0 | `/diagnostics` publication rate (> 0) |
//! | `warn_throttle_s` | double | 1.0 | minimum interval between repeated input warnings (≥ 0) |
//! | `cmd_vel.timeout` | double | 0.5 | `floating_base`: a `cmd_vel` older than this (s) counts as zero, the robot comes to a stand (> 0) |
//! | `cmd_vel.min_linear_x`, `cmd_vel.max_linear_x` | double | -0.2, 0.4 | range of the forward command (m/s); beyond: clamped with a warning (min ≤ 0 ≤ max) |
//! | `cmd_vel.max_linear_y` | double | 0.15 | largest lateral command (m/s, ≥ 0) |
//! | `cmd_vel.max_angular_z` | double | 0.5 | largest yaw-rate command (rad/s, ≥ 0) |
//! | `cmd_vel.max_accel_linear`, `cmd_vel.max_accel_angular` | double | 0.5, 1.0 | blend: largest change of the command per second (m/s², rad/s²; > 0) |
//! | `visualization.frame` | string | `odom` | `frame_id` of `~/planned_path` and `~/planned_markers` (the frame of `odom`'s pose) |
//! | `visualization.force_scale` | double | 0.002 | arrow length per newton of planned contact force (m/N, > 0) |
//! | `use_sim_time` | bool | false | ROS's standard parameter (ros2-client declares it on every node): the node's clock is the simulator's `/clock` (rosgraph_msgs/Clock): ticks, commands and state ages follow it, stamps carry it; not with `sim` |

use ros2_client::ParameterValue;
use thiserror::Error;

use super::args::{OverrideSource, ParameterOverride};
use super::cmd_vel::CmdVelSettings;

/// A bad parameter value or combination; each variant names the parameter and its source.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ParamsError {
    /// The name is not a parameter of this node.
    #[error("{origin}: unknown parameter '{name}' (known: {known})")]
    Unknown {
        /// The name.
        name: String,
        /// Where it was set.
        origin: OverrideSource,
        /// Comma-separated list of valid names.
        known: String,
    },
    /// The value has the wrong type.
    #[error("{origin}: parameter '{name}' must be {expected}, got {got}")]
    WrongType {
        /// The name.
        name: String,
        /// Expected type, e.g. "a double".
        expected: &'static str,
        /// The value given.
        got: String,
        /// Where it was set.
        origin: OverrideSource,
    },
    /// The value is out of range or inconsistent with other parameters.
    #[error("parameter '{name}'{}: {reason}", origin.as_ref().map(|s| format!(" ({s})")).unwrap_or_default())]
    Invalid {
        /// The name.
        name: String,
        /// What is wrong.
        reason: String,
        /// Where it was set (None for a default or a cross-parameter check).
        origin: Option<OverrideSource>,
    },
}

/// Service wire convention of the `~/plan`, `~/reset`, `~/enable` services.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ServiceConvention {
    /// rmw_fastrtps_cpp (the ROS 2 default RMW): request id in the RTPS inline QoS.
    #[default]
    FastRtps,
    /// rmw_cyclonedds_cpp: 16-byte client id + sequence number in front of the payload.
    CycloneDds,
}

impl ServiceConvention {
    /// The parameter spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ServiceConvention::FastRtps => "fastrtps",
            ServiceConvention::CycloneDds => "cyclonedds",
        }
    }

    /// The ros2-client mapping.
    pub fn mapping(self) -> ros2_client::ServiceMapping {
        match self {
            ServiceConvention::FastRtps => ros2_client::ServiceMapping::Enhanced,
            ServiceConvention::CycloneDds => ros2_client::ServiceMapping::Cyclone,
        }
    }

    /// Parses `fastrtps` or `cyclonedds` (also the RMW names `rmw_fastrtps_cpp`,
    /// `rmw_cyclonedds_cpp`).
    pub fn parse(s: &str) -> Option<ServiceConvention> {
        match s {
            "fastrtps" | "rmw_fastrtps_cpp" | "fastdds" => Some(ServiceConvention::FastRtps),
            "cyclonedds" | "rmw_cyclonedds_cpp" | "cyclone" => Some(ServiceConvention::CycloneDds),
            _ => None,
        }
    }
}

/// Effective node parameters (see the module table).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeParams {
    /// `robot_description_path` (alias `urdf_path`).
    pub urdf_path: String,
    /// `config_file` (alias `config_path`).
    pub config_path: String,
    /// `rate_hz`.
    pub rate_hz: f64,
    /// `command_rate_hz` (0: one command per tick).
    pub command_rate_hz: f64,
    /// `horizon.N`.
    pub horizon_n: i64,
    /// `horizon.T` in seconds.
    pub horizon_t: f64,
    /// `weights.q`.
    pub weights_q: Vec<f64>,
    /// `weights.v`.
    pub weights_v: Vec<f64>,
    /// `weights.u`.
    pub weights_u: Vec<f64>,
    /// `sim`.
    pub sim: bool,
    /// `floating_base`.
    pub floating_base: bool,
    /// `joint_names`.
    pub joint_names: Vec<String>,
    /// `effort_joints` (empty means `joint_names`; see [`NodeParams::effort_joint_order`]).
    pub effort_joints: Vec<String>,
    /// `stale_state_timeout` in seconds.
    pub stale_state_timeout: f64,
    /// `service_mapping`.
    pub service_mapping: ServiceConvention,
    /// `start_enabled`.
    pub start_enabled: bool,
    /// `diagnostics_rate_hz`.
    pub diagnostics_rate_hz: f64,
    /// `warn_throttle_s`.
    pub warn_throttle_s: f64,
    /// `cmd_vel.*`: limits, timeout and blend of the velocity command (`floating_base`).
    pub cmd_vel: CmdVelSettings,
    /// `visualization.frame`.
    pub visualization_frame: String,
    /// `visualization.force_scale` (m/N).
    pub visualization_force_scale: f64,
    /// `use_sim_time` (built in): run on the simulator's `/clock`.
    pub use_sim_time: bool,
}

impl Default for NodeParams {
    fn default() -> Self {
        NodeParams {
            urdf_path: String::new(),
            config_path: String::new(),
            rate_hz: 50.0,
            command_rate_hz: 0.0,
            horizon_n: 20,
            horizon_t: 0.5,
            weights_q: Vec::new(),
            weights_v: Vec::new(),
            weights_u: Vec::new(),
            sim: false,
            floating_base: false,
            joint_names: Vec::new(),
            effort_joints: Vec::new(),
            stale_state_timeout: 0.1,
            service_mapping: ServiceConvention::FastRtps,
            start_enabled: false,
            diagnostics_rate_hz: 1.0,
            warn_throttle_s: 1.0,
            cmd_vel: CmdVelSettings::default(),
            visualization_frame: "odom".into(),
            visualization_force_scale: 0.002,
            use_sim_time: false,
        }
    }
}

/// Every declared parameter name, in declaration order.
pub const PARAMETER_NAMES: [&str; 28] = [
    "robot_description_path",
    "config_file",
    "rate_hz",
    "command_rate_hz",
    "horizon.N",
    "horizon.T",
    "weights.q",
    "weights.v",
    "weights.u",
    "sim",
    "floating_base",
    "joint_names",
    "effort_joints",
    "stale_state_timeout",
    "service_mapping",
    "start_enabled",
    "diagnostics_rate_hz",
    "warn_throttle_s",
    "cmd_vel.timeout",
    "cmd_vel.min_linear_x",
    "cmd_vel.max_linear_x",
    "cmd_vel.max_linear_y",
    "cmd_vel.max_angular_z",
    "cmd_vel.max_accel_linear",
    "cmd_vel.max_accel_angular",
    "visualization.frame",
    "visualization.force_scale",
    "use_sim_time",
];

fn describe(v: &ParameterValue) -> String {
    match v {
        ParameterValue::NotSet => "not set".into(),
        ParameterValue::Boolean(b) => format!("bool {b}"),
        ParameterValue::Integer(i) => format!("integer {i}"),
        ParameterValue::Double(d) => format!("double {d}"),
        ParameterValue::String(s) => format!("string '{s}'"),
        ParameterValue::ByteArray(a) => format!("byte array of {}", a.len()),
        ParameterValue::BooleanArray(a) => format!("bool array {a:?}"),
        ParameterValue::IntegerArray(a) => format!("integer array {a:?}"),
        ParameterValue::DoubleArray(a) => format!("double array {a:?}"),
        ParameterValue::StringArray(a) => format!("string array {a:?}"),
    }
}

fn is_empty_array(v: &ParameterValue) -> bool {
    match v {
        ParameterValue::ByteArray(a) => a.is_empty(),
        ParameterValue::BooleanArray(a) => a.is_empty(),
        ParameterValue::IntegerArray(a) => a.is_empty(),
        ParameterValue::DoubleArray(a) => a.is_empty(),
        ParameterValue::StringArray(a) => a.is_empty(),
        _ => false,
    }
}

struct Setter<'a> {
    o: &'a ParameterOverride,
}

impl Setter<'_> {
    fn wrong(&self, expected: &'static str) -> ParamsError {
        ParamsError::WrongType {
            name: self.o.name.clone(),
            expected,
            got: describe(&self.o.value),
            origin: self.o.source.clone(),
        }
    }
    fn invalid(&self, reason: impl Into<String>) -> ParamsError {
        ParamsError::Invalid {
            name: self.o.name.clone(),
            reason: reason.into(),
            origin: Some(self.o.source.clone()),
        }
    }
    fn string(&self) -> Result<String, ParamsError> {
        match &self.o.value {
            ParameterValue::String(s) => Ok(s.clone()),
            _ => Err(self.wrong("a string")),
        }
    }
    fn bool(&self) -> Result<bool, ParamsError> {
        match &self.o.value {
            ParameterValue::Boolean(b) => Ok(*b),
            _ => Err(self.wrong("a bool")),
        }
    }
    fn int(&self) -> Result<i64, ParamsError> {
        match &self.o.value {
            ParameterValue::Integer(i) => Ok(*i),
            _ => Err(self.wrong("an integer")),
        }
    }
    /// A double; integers are accepted (`-p rate_hz:=100`).
    fn double(&self) -> Result<f64, ParamsError> {
        match &self.o.value {
            ParameterValue::Double(d) => Ok(*d),
            ParameterValue::Integer(i) => Ok(*i as f64),
            _ => Err(self.wrong("a double")),
        }
    }
    /// A double array; integer arrays and `[]` are accepted.
    fn doubles(&self) -> Result<Vec<f64>, ParamsError> {
        match &self.o.value {
            ParameterValue::DoubleArray(a) => Ok(a.clone()),
            ParameterValue::IntegerArray(a) => Ok(a.iter().map(|&i| i as f64).collect()),
            v if is_empty_array(v) => Ok(Vec::new()),
            _ => Err(self.wrong("a double array")),
        }
    }
    /// A string array; `[]` is accepted.
    fn strings(&self) -> Result<Vec<String>, ParamsError> {
        match &self.o.value {
            ParameterValue::StringArray(a) => Ok(a.clone()),
            v if is_empty_array(v) => Ok(Vec::new()),
            _ => Err(self.wrong("a string array")),
        }
    }
    fn positive(&self, x: f64) -> Result<f64, ParamsError> {
        if x.is_finite() && x > 0.0 {
            Ok(x)
        } else {
            Err(self.invalid(format!("must be a finite number > 0, got {x}")))
        }
    }
    fn weights(&self) -> Result<Vec<f64>, ParamsError> {
        let w = self.doubles()?;
        match w.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
            Some(i) => Err(self.invalid(format!(
                "element {i} is {}; weights must be finite and ≥ 0",
                w[i]
            ))),
            None => Ok(w),
        }
    }
}

impl NodeParams {
    /// Defaults with `overrides` applied in order. Unknown names from the command line are
    /// errors; unknown names from a params file are returned as warnings (a `/**` entry may
    /// carry parameters of other nodes).
    pub fn from_overrides(
        overrides: &[ParameterOverride],
    ) -> Result<(NodeParams, Vec<String>), ParamsError> {
        let mut p = NodeParams::default();
        let mut warnings = Vec::new();
        for o in overrides {
            let s = Setter { o };
            match o.name.as_str() {
                "robot_description_path" | "urdf_path" => p.urdf_path = s.string()?,
                "config_file" | "config_path" => p.config_path = s.string()?,
                "rate_hz" => {
                    let r = s.positive(s.double()?)?;
                    if r > 1000.0 {
                        return Err(s.invalid(format!("{r} Hz is above the supported 1000 Hz")));
                    }
                    p.rate_hz = r;
                }
                "command_rate_hz" => {
                    let r = s.double()?;
                    if !(r.is_finite() && (0.0..=1000.0).contains(&r)) {
                        return Err(s.invalid(format!("must be in [0, 1000] Hz, got {r}")));
                    }
                    p.command_rate_hz = r;
                }
                "horizon.N" => {
                    let n = s.int()?;
                    if !(1..=10_000).contains(&n) {
                        return Err(s.invalid(format!("must be in 1..=10000, got {n}")));
                    }
                    p.horizon_n = n;
                }
                "horizon.T" => p.horizon_t = s.positive(s.double()?)?,
                "weights.q" => p.weights_q = s.weights()?,
                "weights.v" => p.weights_v = s.weights()?,
                "weights.u" => p.weights_u = s.weights()?,
                "sim" => p.sim = s.bool()?,
                "floating_base" => p.floating_base = s.bool()?,
                "joint_names" => p.joint_names = s.strings()?,
                "effort_joints" => p.effort_joints = s.strings()?,
                "stale_state_timeout" => p.stale_state_timeout = s.positive(s.double()?)?,
                "service_mapping" => {
                    let text = s.string()?;
                    p.service_mapping = ServiceConvention::parse(&text).ok_or_else(|| {
                        s.invalid(format!("'{text}' is neither 'fastrtps' nor 'cyclonedds'"))
                    })?;
                }
                "start_enabled" => p.start_enabled = s.bool()?,
                "diagnostics_rate_hz" => p.diagnostics_rate_hz = s.positive(s.double()?)?,
                "warn_throttle_s" => {
                    let t = s.double()?;
                    if !(t.is_finite() && t >= 0.0) {
                        return Err(s.invalid(format!("must be finite and ≥ 0, got {t}")));
                    }
                    p.warn_throttle_s = t;
                }
                "use_sim_time" => p.use_sim_time = s.bool()?,
                "cmd_vel.timeout" => p.cmd_vel.timeout = s.positive(s.double()?)?,
                "cmd_vel.min_linear_x" => p.cmd_vel.linear_x[0] = s.double()?,
                "cmd_vel.max_linear_x" => p.cmd_vel.linear_x[1] = s.double()?,
                "cmd_vel.max_linear_y" => p.cmd_vel.max_linear_y = s.double()?,
                "cmd_vel.max_angular_z" => p.cmd_vel.max_angular_z = s.double()?,
                "cmd_vel.max_accel_linear" => {
                    p.cmd_vel.max_accel_linear = s.positive(s.double()?)?
                }
                "cmd_vel.max_accel_angular" => {
                    p.cmd_vel.max_accel_angular = s.positive(s.double()?)?
                }
                "visualization.frame" => {
                    let f = s.string()?;
                    if f.is_empty() {
                        return Err(s.invalid("must not be empty"));
                    }
                    p.visualization_frame = f;
                }
                "visualization.force_scale" => {
                    p.visualization_force_scale = s.positive(s.double()?)?
                }
                name if name.starts_with("qos_overrides.") => {
                    warnings.push(format!(
                        "{}: '{name}' ignored (QoS overrides are not supported)",
                        o.source
                    ));
                }
                name => match &o.source {
                    OverrideSource::CommandLine => {
                        return Err(ParamsError::Unknown {
                            name: name.into(),
                            origin: o.source.clone(),
                            known: PARAMETER_NAMES.join(", "),
                        })
                    }
                    OverrideSource::File(_) => {
                        warnings.push(format!("{}: unknown parameter '{name}' ignored", o.source))
                    }
                },
            }
        }
        Ok((p, warnings))
    }

    /// Checks the combination: `joint_names` non-empty and unique, `effort_joints` unique and a
    /// subset of `joint_names`, weights (when given) as long as the joints they weight.
    pub fn validate(&self) -> Result<(), ParamsError> {
        let invalid = |name: &str, reason: String| ParamsError::Invalid {
            name: name.into(),
            reason,
            origin: None,
        };
        if self.command_rate_hz > 0.0 && self.command_rate_hz < self.rate_hz {
            return Err(invalid(
                "command_rate_hz",
                format!(
                    "{} Hz is below rate_hz ({} Hz); give 0 for one command per tick",
                    self.command_rate_hz, self.rate_hz
                ),
            ));
        }
        if self.use_sim_time && self.sim {
            return Err(invalid(
                "use_sim_time",
                "needs an external simulator publishing /clock; `sim: true` runs the node's own \
                 plant on its own clock"
                    .into(),
            ));
        }
        if let Err((name, reason)) = self.cmd_vel.check() {
            return Err(invalid(name, reason));
        }
        if self.joint_names.is_empty() {
            return Err(invalid(
                "joint_names",
                "no joints configured (e.g. --ros-args -p \"joint_names:=[hip, knee]\")".into(),
            ));
        }
        for (list, name) in [
            (&self.joint_names, "joint_names"),
            (&self.effort_joints, "effort_joints"),
        ] {
            for (i, j) in list.iter().enumerate() {
                if j.is_empty() {
                    return Err(invalid(name, format!("element {i} is an empty name")));
                }
                if list[..i].contains(j) {
                    return Err(invalid(name, format!("'{j}' appears twice")));
                }
            }
        }
        if let Some(j) = self
            .effort_joints
            .iter()
            .find(|j| !self.joint_names.contains(j))
        {
            return Err(invalid(
                "effort_joints",
                format!("'{j}' is not in joint_names {:?}", self.joint_names),
            ));
        }
        let nj = self.joint_names.len();
        let nu = self.effort_joint_order().len();
        for (w, name, n) in [
            (&self.weights_q, "weights.q", nj),
            (&self.weights_v, "weights.v", nj),
            (&self.weights_u, "weights.u", nu),
        ] {
            if !w.is_empty() && !self.floating_base && w.len() != n {
                return Err(invalid(
                    name,
                    format!("has {} entries for {n} joints", w.len()),
                ));
            }
        }
        Ok(())
    }

    /// The effort command order: `effort_joints`, or `joint_names` when that is empty.
    pub fn effort_joint_order(&self) -> &[String] {
        if self.effort_joints.is_empty() {
            &self.joint_names
        } else {
            &self.effort_joints
        }
    }

    /// Horizon length divided by N: the nominal grid step in seconds.
    pub fn nominal_step(&self) -> f64 {
        self.horizon_t / self.horizon_n as f64
    }

    /// `(name, value)` of every parameter with its effective value, for
    /// `NodeOptions::declare_parameter` (`use_sim_time` is left to ros2-client).
    pub fn declarations(&self) -> Vec<(&'static str, ParameterValue)> {
        use ParameterValue as V;
        vec![
            ("robot_description_path", V::String(self.urdf_path.clone())),
            ("config_file", V::String(self.config_path.clone())),
            ("rate_hz", V::Double(self.rate_hz)),
            ("command_rate_hz", V::Double(self.command_rate_hz)),
            ("horizon.N", V::Integer(self.horizon_n)),
            ("horizon.T", V::Double(self.horizon_t)),
            ("weights.q", V::DoubleArray(self.weights_q.clone())),
            ("weights.v", V::DoubleArray(self.weights_v.clone())),
            ("weights.u", V::DoubleArray(self.weights_u.clone())),
            ("sim", V::Boolean(self.sim)),
            ("floating_base", V::Boolean(self.floating_base)),
            ("joint_names", V::StringArray(self.joint_names.clone())),
            (
                "effort_joints",
                V::StringArray(self.effort_joint_order().to_vec()),
            ),
            ("stale_state_timeout", V::Double(self.stale_state_timeout)),
            (
                "service_mapping",
                V::String(self.service_mapping.as_str().into()),
            ),
            ("start_enabled", V::Boolean(self.start_enabled)),
            ("diagnostics_rate_hz", V::Double(self.diagnostics_rate_hz)),
            ("warn_throttle_s", V::Double(self.warn_throttle_s)),
            ("cmd_vel.timeout", V::Double(self.cmd_vel.timeout)),
            ("cmd_vel.min_linear_x", V::Double(self.cmd_vel.linear_x[0])),
            ("cmd_vel.max_linear_x", V::Double(self.cmd_vel.linear_x[1])),
            ("cmd_vel.max_linear_y", V::Double(self.cmd_vel.max_linear_y)),
            (
                "cmd_vel.max_angular_z",
                V::Double(self.cmd_vel.max_angular_z),
            ),
            (
                "cmd_vel.max_accel_linear",
                V::Double(self.cmd_vel.max_accel_linear),
            ),
            (
                "cmd_vel.max_accel_angular",
                V::Double(self.cmd_vel.max_accel_angular),
            ),
            (
                "visualization.frame",
                V::String(self.visualization_frame.clone()),
            ),
            (
                "visualization.force_scale",
                V::Double(self.visualization_force_scale),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn cli(name: &str, value: ParameterValue) -> ParameterOverride {
        ParameterOverride {
            name: name.into(),
            value,
            source: OverrideSource::CommandLine,
        }
    }

    #[test]
    fn defaults_and_declarations_cover_every_parameter() {
        let p = NodeParams::default();
        assert_eq!(p.rate_hz, 50.0);
        assert_eq!(p.service_mapping, ServiceConvention::FastRtps);
        let d = p.declarations();
        assert_eq!(d.len(), 27);
        for (name, _) in &d {
            assert!(PARAMETER_NAMES.contains(name), "{name}");
        }
        assert!(p.validate().is_err(), "no joints by default");
    }

    #[test]
    fn sim_time_needs_an_external_simulator() {
        use ParameterValue as V;
        let (p, _) = NodeParams::from_overrides(&[
            cli("joint_names", V::StringArray(vec!["hip".into()])),
            cli("use_sim_time", V::Boolean(true)),
        ])
        .unwrap();
        assert!(p.use_sim_time);
        assert!(p.validate().is_ok());
        let with_sim = NodeParams { sim: true, ..p };
        let e = with_sim.validate().unwrap_err().to_string();
        assert!(e.contains("use_sim_time"), "{e}");
    }

    #[test]
    fn overrides_are_type_checked_and_coerced() {
        use ParameterValue as V;
        let (p, warnings) = NodeParams::from_overrides(&[
            cli("rate_hz", V::Integer(100)),
            cli("horizon.N", V::Integer(30)),
            cli("horizon.T", V::Double(0.6)),
            cli("weights.q", V::IntegerArray(vec![1, 2])),
            cli("weights.u", V::StringArray(vec![])),
            cli(
                "joint_names",
                V::StringArray(vec!["hip".into(), "knee".into()]),
            ),
            cli("effort_joints", V::StringArray(vec!["knee".into()])),
            cli("service_mapping", V::String("cyclonedds".into())),
            cli("sim", V::Boolean(true)),
            ParameterOverride {
                name: "other_nodes_param".into(),
                value: V::Integer(1),
                source: OverrideSource::File(PathBuf::from("x.yaml")),
            },
        ])
        .unwrap();
        assert_eq!(p.rate_hz, 100.0);
        assert_eq!(p.horizon_n, 30);
        assert!((p.nominal_step() - 0.02).abs() < 1e-15);
        assert_eq!(p.weights_q, vec![1.0, 2.0]);
        assert!(p.weights_u.is_empty());
        assert_eq!(p.service_mapping, ServiceConvention::CycloneDds);
        assert_eq!(p.effort_joint_order(), ["knee".to_string()]);
        assert!(p.sim);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("x.yaml") && warnings[0].contains("other_nodes_param"));
        p.validate().unwrap();
    }

    #[test]
    fn errors_name_parameter_and_source() {
        use ParameterValue as V;
        let e =
            NodeParams::from_overrides(&[cli("rate_hz", V::String("fast".into()))]).unwrap_err();
        assert!(matches!(e, ParamsError::WrongType { .. }));
        assert!(
            e.to_string()
                .contains("'rate_hz' must be a double, got string 'fast'"),
            "{e}"
        );
        let e = NodeParams::from_overrides(&[cli("rate_hz", V::Double(-5.0))]).unwrap_err();
        assert!(matches!(e, ParamsError::Invalid { .. }) && e.to_string().contains("rate_hz"));
        let e =
            NodeParams::from_overrides(&[cli("command_rate_hz", V::Double(2000.0))]).unwrap_err();
        assert!(e.to_string().contains("command_rate_hz"), "{e}");
        let (mut slow, _) =
            NodeParams::from_overrides(&[cli("command_rate_hz", V::Integer(10))]).unwrap();
        slow.joint_names = vec!["hip".into()];
        let e = slow.validate().unwrap_err();
        assert!(
            e.to_string().contains("command_rate_hz") && e.to_string().contains("below rate_hz"),
            "{e}"
        );
        let e = NodeParams::from_overrides(&[cli("rat_hz", V::Double(5.0))]).unwrap_err();
        assert!(matches!(e, ParamsError::Unknown { .. }) && e.to_string().contains("rat_hz"));
        let e = NodeParams::from_overrides(&[cli("service_mapping", V::String("zenoh".into()))])
            .unwrap_err();
        assert!(e.to_string().contains("zenoh"));
        let e = NodeParams::from_overrides(&[cli("horizon.N", V::Double(2.0))]).unwrap_err();
        assert!(e.to_string().contains("an integer"));
        let e =
            NodeParams::from_overrides(&[cli("weights.v", V::DoubleArray(vec![1.0, f64::NAN]))])
                .unwrap_err();
        assert!(e.to_string().contains("element 1"));
        let e = NodeParams::from_overrides(&[cli("cmd_vel.max_accel_linear", V::Double(0.0))])
            .unwrap_err();
        assert!(e.to_string().contains("cmd_vel.max_accel_linear"), "{e}");
        let (mut p, _) =
            NodeParams::from_overrides(&[cli("cmd_vel.min_linear_x", V::Double(0.1))]).unwrap();
        p.joint_names = vec!["hip".into()];
        let e = p.validate().unwrap_err();
        assert!(e.to_string().contains("cmd_vel.min_linear_x"), "{e}");
        let file = ParameterOverride {
            name: "stale_state_timeout".into(),
            value: V::Double(0.0),
            source: OverrideSource::File(PathBuf::from("/cfg/p.yaml")),
        };
        let e = NodeParams::from_overrides(&[file]).unwrap_err();
        assert!(e.to_string().contains("/cfg/p.yaml"), "{e}");
    }

    #[test]
    fn cross_checks() {
        let base = NodeParams {
            joint_names: vec!["a".into(), "b".into()],
            ..NodeParams::default()
        };
        base.validate().unwrap();
        let dup = NodeParams {
            joint_names: vec!["a".into(), "a".into()],
            ..base.clone()
        };
        assert!(dup.validate().unwrap_err().to_string().contains("twice"));
        let foreign = NodeParams {
            effort_joints: vec!["c".into()],
            ..base.clone()
        };
        assert!(foreign.validate().unwrap_err().to_string().contains("'c'"));
        let short = NodeParams {
            weights_q: vec![1.0],
            ..base.clone()
        };
        assert!(short
            .validate()
            .unwrap_err()
            .to_string()
            .contains("weights.q"));
    }
}
