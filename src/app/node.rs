//! The `fesdj_node` binary's library side: a [`PlanProvider`] over [`mpc::Controller`]
//! ([`MpcProvider`]) built from a problem file, the embedded demo, and the mapping of ROS
//! parameters onto the problem file ([`setup`]).
//!
//! * `config_file` (alias `config_path`) names the problem file (`horizon`, `ocp`, `mpc`); empty
//!   runs the embedded [`DEFAULT_DEMO`] with `sim: true` and `start_enabled: true` (unless given).
//! * `robot_description_path` (alias `urdf_path`) replaces `model.robot.urdf` of a URDF model.
//! * `rate_hz`, `horizon.N`, `horizon.T`, `weights.q` + `weights.v` (→ `ocp.Q`), `weights.u`
//!   (→ `ocp.R`), when given, override the file (`mpc.rate_hz`, `horizon`, `ocp`); otherwise the
//!   declared parameters show the file's values.
//! * `joint_names` default to the model's coordinate names (base coordinates of a planar root
//!   are named as the config names them and travel in `joint_states` like joints); when given
//!   they must be exactly those names, in any order. `effort_joints` default to the coordinate
//!   driven by each control (control order); when given, each must be such a coordinate.
//! * `sim: true` builds the FESD-J simulator of the file (the `mpc.plant` mismatch included)
//!   with a step of `1 / rate_hz`; the node steps it every tick with the published effort and
//!   publishes its `joint_states`.
//!
//! The provider never publishes an unverified plan: the controller verifies every solve, a plan
//! is handed out only when it is fresh or the remainder of the last verified one; when only the
//! fallback law is in charge, `plan` fails (no trajectory) and the fallback effort is published
//! through [`PlanProvider::failure_effort`].

use std::path::{Path, PathBuf};
use std::time::Instant;

use thiserror::Error;

use crate::cli::mpc::{build, ClosedLoop};
use crate::cli::run::RunError;
use crate::config::{ConfigError, ModelSource, Problem};
use crate::fesdj::Simulator;
use crate::model::{zyx_from_odometry, RootJoint};
use crate::mpc::{self, PlanSource};
use crate::ros::args::{ArgsError, RosArgs};
use crate::ros::msg::Time;
use crate::ros::params::ParamsError;
use crate::ros::provider::{Plan, PlanProvider, PlanStatus, ProviderError, RobotState};
use crate::ros::validate::StateFault;
use crate::ros::{names, NodeConfig, NodeError};
use crate::solver::Status;

/// An embedded demo: a problem file and the URDF it refers to, compiled into the binary.
#[derive(Clone, Copy, Debug)]
pub struct Demo {
    /// Name (logs).
    pub name: &'static str,
    /// The problem file's text.
    pub config_yaml: &'static str,
    /// `(file name, text)` of the URDF of a robot model (written to a temporary directory and
    /// set as `model.robot.urdf`).
    pub urdf: Option<(&'static str, &'static str)>,
    /// `KEY=VALUE` overrides of the problem file for the demo (applied before the ones that
    /// parameters give).
    pub overrides: &'static [&'static str],
}

/// The sliding block of `config/sliding_block_mpc.yaml`.
pub const SLIDING_BLOCK: Demo = Demo {
    name: "sliding_block_mpc",
    config_yaml: include_str!("../config/sliding_block_mpc.yaml"),
    urdf: None,
    overrides: &[],
};

/// The planar hopper MPC of `config/hopper_mpc.yaml` (`urdf/hopper.urdf`), hopping forward.
///
/// Its internal plant is FESD-J's time-stepping mode (implicit Euler, N_FE = 2 steps per
/// 50 ms tick), not the file's accurate FESD plant (Radau IIA n_s = 2, N_FE = 2): a demo's plant
/// must keep up with the 20 Hz loop, and the accurate plant's warm-started homotopy takes
/// 0.3–4 s per stance step (500–6500 IPM iterations, measured in the node), while a
/// time-stepping step takes milliseconds. `fesdj mpc config/hopper_mpc.yaml` runs the same
/// controller against the accurate plant offline.
pub const HOPPER: Demo = Demo {
    name: "hopper_mpc",
    config_yaml: include_str!("../config/hopper_mpc.yaml"),
    urdf: Some(("hopper.urdf", include_str!("../urdf/hopper.urdf"))),
    overrides: &["mpc.plant.fesdj.use_fesd=false"],
};

/// What `fesdj_node` runs without a `config_file`: the bundled hopper.
pub const DEFAULT_DEMO: Demo = HOPPER;

/// Errors of node setup.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SetupError {
    /// Bad `--ros-args`.
    #[error(transparent)]
    Args(#[from] ArgsError),
    /// Bad parameter.
    #[error(transparent)]
    Params(#[from] ParamsError),
    /// The node configuration failed.
    #[error(transparent)]
    Node(#[from] NodeError),
    /// The problem file is invalid.
    #[error("config_file: {0}")]
    Config(#[from] ConfigError),
    /// The controller or plant could not be built.
    #[error(transparent)]
    Build(#[from] RunError),
    /// A parameter does not fit the model.
    #[error("parameter '{name}': {why}")]
    Mismatch {
        /// Parameter.
        name: String,
        /// What is wrong.
        why: String,
    },
    /// The embedded demo's URDF could not be written.
    #[error("cannot write the embedded URDF to {file}: {why}")]
    Io {
        /// File.
        file: String,
        /// Why.
        why: String,
    },
}

/// The [`PlanProvider`] of `fesdj_node`: an MPC controller, and with `sim: true` the plant.
pub struct MpcProvider {
    controller: mpc::Controller,
    plant: Option<Simulator>,
    n_q: usize,
    /// Coordinate of every joint (joint_names order).
    joint_coord: Vec<usize>,
    /// Control of every effort joint (effort_joints order).
    effort_control: Vec<usize>,
    /// Coordinate driven by each control.
    actuated: Vec<usize>,
    q: Vec<f64>,
    v: Vec<f64>,
    plant_x: Vec<f64>,
    u_plant: Vec<f64>,
    t: f64,
    deadline_s: f64,
    t_origin: Option<Time>,
    /// The controller's time at `t_origin` (after a reset: where the last run left off, so
    /// that the controller's time never goes back when the stamps start over).
    t_base: f64,
    have_state: bool,
    enabled: bool,
    /// `floating_base`: the coordinates of `ZYX_BASE` (set from odom).
    base_coord: Option<[usize; 6]>,
    /// Why the last odom could not be mapped to the base coordinates.
    base_fault: Option<&'static str>,
}

/// The base coordinates of a `floating_zyx` root, in order.
const ZYX_BASE: [&str; 6] = [
    "root_x",
    "root_y",
    "root_z",
    "root_yaw",
    "root_pitch",
    "root_roll",
];

impl std::fmt::Debug for MpcProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpcProvider")
            .field("controller", &self.controller)
            .field("sim", &self.plant.is_some())
            .finish_non_exhaustive()
    }
}

impl MpcProvider {
    /// The controller (counters, current plan).
    pub fn controller(&self) -> &mpc::Controller {
        &self.controller
    }

    /// The last state given to [`PlanProvider::on_state`] in the model's coordinates
    /// (`floating_base`: the base coordinates from odom), positions and velocities.
    pub fn state(&self) -> (&[f64], &[f64]) {
        (&self.q, &self.v)
    }

    /// The controller's command (the plan in charge with its tracking feedback, or the
    /// fallback law) for the last state, in effort-joint order.
    fn write_command(&mut self, effort: &mut [f64]) -> Result<(), mpc::MpcError> {
        let u = self.controller.command(self.t, &self.q, &self.v)?;
        to_efforts(u, &self.effort_control, effort);
        Ok(())
    }

    fn seconds(&mut self, stamp: Time) -> f64 {
        let origin = *self.t_origin.get_or_insert(stamp);
        self.t_base + (stamp.to_nanos() - origin.to_nanos()) as f64 * 1e-9
    }
}

/// Controls `u` (the model's inputs) in effort-joint order: effort joint `j` takes input
/// `effort_control[j]`.
fn to_efforts(u: &[f64], effort_control: &[usize], effort: &mut [f64]) {
    for (e, &c) in effort.iter_mut().zip(effort_control) {
        *e = u.get(c).copied().unwrap_or(0.0);
    }
}

impl PlanProvider for MpcProvider {
    fn on_state(&mut self, state: &RobotState) {
        for (j, &c) in self.joint_coord.iter().enumerate() {
            self.q[c] = state.position[j];
            self.v[c] = state.velocity[j];
        }
        self.base_fault = None;
        if let (Some(bc), Some(b)) = (self.base_coord, &state.base) {
            match zyx_from_odometry(
                &b.position,
                &b.orientation,
                &b.linear_velocity,
                &b.angular_velocity,
            ) {
                Some((qb, vb)) => {
                    for (k, &c) in bc.iter().enumerate() {
                        self.q[c] = qb[k];
                        self.v[c] = vb[k];
                    }
                }
                None => {
                    self.base_fault = Some(
                        "odom: orientation not a unit quaternion or at pitch ±90° \
                         (ZYX rates undefined)",
                    )
                }
            }
        }
        self.t = self.seconds(state.stamp);
        self.have_state = true;
    }

    fn plan(&mut self, deadline: Instant, plan: &mut Plan) -> Result<(), ProviderError> {
        if !self.have_state {
            return Err("no state".into());
        }
        if let Some(why) = self.base_fault {
            return Err(why.into());
        }
        self.controller.set_state(self.t, &self.q, &self.v)?;
        // The problem file's `mpc.deadline_s` bounds the solve (default one control period,
        // like the node's tick deadline; a longer one lets a cold start finish at the cost of
        // tick overruns).
        let _ = deadline;
        let budget = std::time::Duration::from_secs_f64(self.deadline_s);
        let p = self.controller.solve(budget)?;
        let status = match (p.source, p.status) {
            (PlanSource::Fresh, Status::Solved) => PlanStatus::Solved,
            (PlanSource::Fresh, _) => PlanStatus::Acceptable,
            (PlanSource::Previous, _) => PlanStatus::Fallback,
            (PlanSource::Fallback, _) => {
                return Err(format!(
                    "no verified plan (last attempt {:?}): the fallback law is in charge",
                    p.last_attempt
                )
                .into())
            }
        };
        let shift = self.t - p.t0;
        let first = p.times.iter().position(|&t| t - shift >= 0.0).unwrap_or(0);
        let k = p.n_points() - first;
        let nj = self.joint_coord.len();
        plan.resize(k, nj, self.effort_control.len());
        let n_int = p.t_u.len().saturating_sub(1);
        for i in 0..k {
            let pt = first + i;
            plan.times[i] = (p.times[pt] - shift).max(0.0);
            let (q, v) = (p.q_at(pt), p.v_at(pt));
            // Control of the interval that starts at or before this point (the last one at
            // the horizon end).
            let mut interval = 0;
            while interval + 1 < n_int && p.times[pt] >= p.t_u[interval + 1] - 1e-12 {
                interval += 1;
            }
            let u = &p.u[interval * p.n_u..(interval + 1) * p.n_u];
            for (j, &c) in self.joint_coord.iter().enumerate() {
                plan.q[i * nj + j] = q[c];
                plan.v[i * nj + j] = v[c];
                plan.u[i * nj + j] = self
                    .actuated
                    .iter()
                    .position(|&a| a == c)
                    .map_or(0.0, |ui| u[ui]);
            }
        }
        plan.status = status;
        plan.stats.solve_time = p.solve_time_s;
        plan.stats.homotopy_steps = p.homotopy_steps as u32;
        plan.stats.iterations = p.nlp_iterations as u32;
        plan.stats.deadline_missed = p.last_attempt == Status::MaxTime;
        Ok(self.write_command(&mut plan.effort)?)
    }

    fn failure_effort(&mut self, effort: &mut [f64]) -> bool {
        self.have_state && self.write_command(effort).is_ok()
    }

    fn track(&mut self, state: &RobotState, effort: &mut [f64]) -> bool {
        if !self.have_state {
            // Nothing planned yet: the ticks decide.
            return false;
        }
        self.on_state(state);
        if self.base_fault.is_some() {
            return false;
        }
        self.write_command(effort).is_ok()
    }

    fn fallback_effort(&mut self, _fault: &StateFault, effort: &mut [f64]) -> bool {
        // No valid state: the fallback law at the last positions with zero velocity
        // (`Controller::stale_command`) replaces the plan's command, which an effort
        // controller would otherwise keep applying; nothing before the first state.
        let Some(u) = self.controller.stale_command() else {
            return false;
        };
        to_efforts(u, &self.effort_control, effort);
        effort.iter().all(|e| e.is_finite())
    }

    fn sim_state(&mut self, state: &mut RobotState) -> bool {
        if self.plant.is_none() {
            return false;
        }
        let (q, v) = self.plant_x.split_at(self.n_q);
        for (j, &c) in self.joint_coord.iter().enumerate() {
            state.position[j] = q[c];
            state.velocity[j] = v[c];
        }
        true
    }

    fn sim_step(&mut self, effort: &[f64], _dt: f64) -> Result<(), ProviderError> {
        let Some(plant) = &mut self.plant else {
            return Ok(());
        };
        self.u_plant.iter_mut().for_each(|u| *u = 0.0);
        for (&e, &c) in effort.iter().zip(&self.effort_control) {
            if let Some(u) = self.u_plant.get_mut(c) {
                *u = if e.is_finite() { e } else { 0.0 };
            }
        }
        let r = plant.step(&self.plant_x, &self.u_plant)?;
        self.plant_x.copy_from_slice(plant.state());
        if !r.stats.status.is_success() {
            return Err(format!("plant step did not converge ({:?})", r.stats.status).into());
        }
        Ok(())
    }

    fn reset(&mut self) -> Result<(), ProviderError> {
        self.controller.reset();
        // Times count on from the next state's stamp (after a simulator restart the stamps
        // start over; the controller's time continues from where it was).
        self.t_base = self.t;
        self.t_origin = None;
        self.have_state = false;
        Ok(())
    }

    fn enable(&mut self, enabled: bool) -> Result<(), ProviderError> {
        self.enabled = enabled;
        Ok(())
    }
}

/// Parameters given explicitly (by `-p` or a params file).
fn given(args: &RosArgs, fqn: &str) -> Result<Vec<String>, ArgsError> {
    Ok(args
        .parameter_overrides(fqn)?
        .into_iter()
        .map(|o| o.name)
        .collect())
}

fn yaml_list(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:e}")).collect();
    format!("[{}]", items.join(", "))
}

/// Absolute path of a parameter path (relative to the working directory).
fn absolute(p: &str) -> PathBuf {
    let path = Path::new(p);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    }
}

/// Build the node configuration and the provider from `--ros-args` and the domain id. Returns
/// warnings (ignored file parameters) too.
pub fn setup(
    args: &RosArgs,
    domain_id: u16,
) -> Result<(NodeConfig, MpcProvider, Vec<String>), SetupError> {
    let (mut config, warnings) = NodeConfig::from_args(args, domain_id)?;
    let fqn = names::node_fqn(&config.namespace, &config.node_name);
    let given = given(args, &fqn)?;
    let is_given = |names: &[&str]| names.iter().any(|n| given.iter().any(|g| g == n));
    let p = &mut config.params;
    let mut sets = Vec::new();
    if is_given(&["rate_hz"]) {
        sets.push(format!("mpc.rate_hz={}", p.rate_hz));
    }
    if is_given(&["horizon.N"]) {
        sets.push(format!("horizon.N={}", p.horizon_n));
    }
    if is_given(&["horizon.T"]) {
        sets.push(format!("horizon.T={}", p.horizon_t));
    }
    if is_given(&["weights.q", "weights.v"]) {
        if p.weights_q.is_empty() || p.weights_v.is_empty() {
            return Err(SetupError::Mismatch {
                name: "weights.q".into(),
                why: "give weights.q and weights.v together (they form ocp.Q)".into(),
            });
        }
        let mut w = p.weights_q.clone();
        w.extend_from_slice(&p.weights_v);
        sets.push(format!("ocp.Q={}", yaml_list(&w)));
    }
    if is_given(&["weights.u"]) && !p.weights_u.is_empty() {
        sets.push(format!("ocp.R={}", yaml_list(&p.weights_u)));
    }
    if !p.urdf_path.is_empty() {
        sets.push(format!(
            "model.robot.urdf={}",
            absolute(&p.urdf_path).display()
        ));
    }
    let problem = if p.config_path.is_empty() {
        let demo = DEFAULT_DEMO;
        sets.splice(0..0, demo.overrides.iter().map(|o| o.to_string()));
        if !is_given(&["sim"]) {
            p.sim = true;
        }
        if !is_given(&["start_enabled"]) {
            p.start_enabled = true;
        }
        if let (Some((file, text)), true) = (demo.urdf, p.urdf_path.is_empty()) {
            let dir = std::env::temp_dir().join(format!("fesdj_node-{}", std::process::id()));
            let path = dir.join(file);
            std::fs::create_dir_all(&dir)
                .and_then(|()| std::fs::write(&path, text))
                .map_err(|e| SetupError::Io {
                    file: path.display().to_string(),
                    why: e.to_string(),
                })?;
            sets.push(format!("model.robot.urdf={}", path.display()));
        }
        Problem::from_yaml(
            demo.config_yaml,
            Path::new(&format!("<embedded {}>", demo.name)),
            Path::new("."),
            &sets,
        )?
    } else {
        Problem::load(&absolute(&p.config_path), &sets)?
    };
    let floating_zyx = matches!(&problem.model,
        ModelSource::Robot(r) if r.model.root == RootJoint::FloatingZyx);
    if p.floating_base && !floating_zyx {
        return Err(SetupError::Mismatch {
            name: "floating_base".into(),
            why: "needs a URDF model with `root: floating_zyx` (its six base coordinates come \
                  from odom); a planar root's base coordinates travel in joint_states"
                .into(),
        });
    }
    if p.floating_base && p.sim {
        return Err(SetupError::Mismatch {
            name: "floating_base".into(),
            why: "the internal plant (sim: true) publishes joint_states only, no odom".into(),
        });
    }
    let cl = build(problem)?;
    let ClosedLoop {
        problem,
        setup,
        controller,
        plant,
    } = cl;
    let sym = problem.symbols();
    let coords = sym.q.clone();
    // Reflect the effective values in the declared parameters.
    p.rate_hz = setup.rate_hz;
    if !is_given(&["command_rate_hz"]) {
        p.command_rate_hz = if setup.command_rate_hz > setup.rate_hz {
            setup.command_rate_hz
        } else {
            0.0
        };
    }
    let ocp = problem.ocp()?;
    p.horizon_n = ocp.options.n_intervals as i64;
    p.horizon_t = ocp.options.t_final;
    // With `floating_base` the base coordinates come from odom, the rest from joint_states.
    let base_coord = if p.floating_base {
        let mut bc = [0; 6];
        for (b, name) in bc.iter_mut().zip(ZYX_BASE) {
            *b = coords
                .iter()
                .position(|c| c == name)
                .ok_or_else(|| SetupError::Mismatch {
                    name: "floating_base".into(),
                    why: format!("the model has no base coordinate '{name}'"),
                })?;
        }
        Some(bc)
    } else {
        None
    };
    let is_base = |c: &String| base_coord.is_some() && ZYX_BASE.contains(&c.as_str());
    if p.joint_names.is_empty() {
        p.joint_names = coords.iter().filter(|c| !is_base(c)).cloned().collect();
    }
    if let Some(j) = p.joint_names.iter().find(|j| is_base(j)) {
        return Err(SetupError::Mismatch {
            name: "joint_names".into(),
            why: format!("'{j}' is a base coordinate: with floating_base it comes from odom"),
        });
    }
    let mut joint_coord = Vec::with_capacity(p.joint_names.len());
    for j in &p.joint_names {
        match coords.iter().position(|c| c == j) {
            Some(c) => joint_coord.push(c),
            None => {
                return Err(SetupError::Mismatch {
                    name: "joint_names".into(),
                    why: format!("'{j}' is not a coordinate of the model {coords:?}"),
                })
            }
        }
    }
    if let Some(missing) = coords
        .iter()
        .find(|c| !is_base(c) && !p.joint_names.contains(c))
    {
        return Err(SetupError::Mismatch {
            name: "joint_names".into(),
            why: format!(
                "the model's coordinate '{missing}' is missing (all of {coords:?} are needed)"
            ),
        });
    }
    let actuated = setup.settings.actuated.clone();
    if p.effort_joints.is_empty() {
        p.effort_joints = actuated.iter().map(|&a| coords[a].clone()).collect();
    }
    let mut effort_control = Vec::with_capacity(p.effort_joints.len());
    for e in &p.effort_joints {
        let c = coords.iter().position(|c| c == e);
        match c.and_then(|c| actuated.iter().position(|&a| a == c)) {
            Some(u) => effort_control.push(u),
            None => {
                return Err(SetupError::Mismatch {
                    name: "effort_joints".into(),
                    why: format!("'{e}' is not driven by a control of the model"),
                })
            }
        }
    }
    let n_q = coords.len();
    let n_u = sym.n_u();
    let x0 = problem.x0();
    let provider = MpcProvider {
        controller,
        plant: if p.sim { Some(plant) } else { None },
        n_q,
        joint_coord,
        effort_control,
        actuated,
        q: vec![0.0; n_q],
        v: vec![0.0; n_q],
        plant_x: x0,
        u_plant: vec![0.0; n_u],
        t: 0.0,
        deadline_s: setup.deadline_s,
        t_origin: None,
        t_base: 0.0,
        have_state: false,
        enabled: p.start_enabled,
        base_coord,
        base_fault: None,
    };
    config.params.validate()?;
    Ok((config, provider, warnings))
}
