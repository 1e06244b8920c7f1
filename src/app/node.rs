//! The ROS node built from its parameters: the problem file (or the embedded demo) with the
//! parameters applied as typed overrides, the controller, the joint map and, with `sim: true`,
//! the internal plant ([`setup`]).
//!
//! * `config_file` (alias `config_path`) names the problem file (`horizon`, `ocp`, `mpc`); empty
//!   runs the embedded [`DEFAULT_DEMO`] with `sim: true` and `start_enabled: true` (unless given).
//! * `robot_description_path` (alias `urdf_path`) replaces `model.robot.urdf` of a URDF model.
//! * `rate_hz`, `horizon.N`, `horizon.T`, `weights.q` + `weights.v` (→ `ocp.Q`), `weights.u`
//!   (→ `ocp.R`), when given, override the file (`mpc.rate_hz`, `horizon`, `ocp`; applied as
//!   typed [`Override`]s); otherwise the declared parameters show the file's values.
//! * `joint_names` default to the model's coordinate names (base coordinates of a planar root
//!   are named as the config names them and travel in `joint_states` like joints); when given
//!   they must be exactly those names, in any order. `effort_joints` default to the coordinate
//!   driven by each control (control order); when given, each must be such a coordinate.
//! * `sim: true` builds the FESD-J simulator of the file (the `mpc.plant` mismatch included)
//!   with a step of `1 / rate_hz`; the node steps it every tick with the published effort and
//!   publishes its `joint_states`.
//!
//! The controller is a [`MpcProvider`]; the plant of `sim: true` a [`SimulatedRobot`] that the
//! node steps apart from the controller.

use std::path::{Path, PathBuf};
use std::time::Duration;

use thiserror::Error;

use super::closed_loop::{build_closed_loop, ClosedLoop};
use super::BuildError;
use crate::config::set::Override;
use crate::config::tree::Tree;
use crate::config::{ConfigError, ModelSource, Problem};
use crate::model::RootJoint;
use crate::mpc::BaseCoordinates;
use crate::ros::args::{ArgsError, RosArgs};
use crate::ros::params::ParamsError;
use crate::ros::plan_view::PlanKinematics;
use crate::ros::{JointMap, MpcProvider, NodeConfig, NodeError, SimulatedRobot};

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
    config_yaml: include_str!("../../config/sliding_block_mpc.yaml"),
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
    config_yaml: include_str!("../../config/hopper_mpc.yaml"),
    urdf: Some(("hopper.urdf", include_str!("../../urdf/hopper.urdf"))),
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
    Build(#[from] BuildError),
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

/// The base coordinates of a `floating_zyx` root, in order.
const ZYX_BASE: [&str; 6] = [
    "root_x",
    "root_y",
    "root_z",
    "root_yaw",
    "root_pitch",
    "root_roll",
];

fn list(v: &[f64]) -> Tree {
    Tree::Seq(v.iter().map(|&x| Tree::Float(x)).collect())
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

/// What [`setup`] builds: the node's configuration, its controller, the internal plant
/// (`sim: true`) and warnings (ignored file parameters).
#[derive(Debug)]
pub struct NodeSetup {
    /// The node configuration, with the effective parameter values.
    pub config: NodeConfig,
    /// The controller.
    pub provider: MpcProvider,
    /// The internal plant (`sim: true`), to attach with `NodeRuntime::set_plant`.
    pub plant: Option<SimulatedRobot>,
    /// Warnings (ignored file parameters).
    pub warnings: Vec<String>,
}

/// Build the node configuration, the controller and the plant from `--ros-args` and the
/// domain id.
pub fn setup(args: &RosArgs, domain_id: u16) -> Result<NodeSetup, SetupError> {
    let (mut config, warnings) = NodeConfig::from_args(args, domain_id)?;
    let given = std::mem::take(&mut config.given);
    let is_given = |names: &[&str]| names.iter().any(|n| given.iter().any(|g| g == n));
    let p = &mut config.params;
    let mut sets: Vec<Override> = Vec::new();
    if is_given(&["rate_hz"]) {
        sets.push(Override::new("mpc.rate_hz", Tree::Float(p.rate_hz))?);
    }
    if is_given(&["horizon.N"]) {
        sets.push(Override::new("horizon.N", Tree::Int(p.horizon_n))?);
    }
    if is_given(&["horizon.T"]) {
        sets.push(Override::new("horizon.T", Tree::Float(p.horizon_t))?);
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
        sets.push(Override::new("ocp.Q", list(&w))?);
    }
    if is_given(&["weights.u"]) && !p.weights_u.is_empty() {
        sets.push(Override::new("ocp.R", list(&p.weights_u))?);
    }
    if !p.urdf_path.is_empty() {
        let urdf = absolute(&p.urdf_path).display().to_string();
        sets.push(Override::new("model.robot.urdf", Tree::Str(urdf))?);
    }
    let problem = if p.config_path.is_empty() {
        let demo = DEFAULT_DEMO;
        let mut demo_sets = demo
            .overrides
            .iter()
            .map(|o| crate::config::set::parse_override(o))
            .collect::<Result<Vec<_>, _>>()?;
        demo_sets.append(&mut sets);
        sets = demo_sets;
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
            sets.push(Override::new(
                "model.robot.urdf",
                Tree::Str(path.display().to_string()),
            )?);
        }
        Problem::from_yaml_with(
            demo.config_yaml,
            Path::new(&format!("<embedded {}>", demo.name)),
            Path::new("."),
            &sets,
        )?
    } else {
        Problem::load_with(&absolute(&p.config_path), &sets)?
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
    let ClosedLoop {
        problem,
        setup,
        mut controller,
        plant,
    } = build_closed_loop(problem)?;
    let mut warnings = warnings;
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
    let horizon = controller.problem().options();
    p.horizon_n = horizon.n_intervals as i64;
    p.horizon_t = horizon.t_final;
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
    let map = JointMap {
        joint_coord,
        effort_control,
        actuated,
        base_coord,
        n_q: coords.len(),
    };
    let plant = if p.sim {
        Some(SimulatedRobot::new(
            Box::new(plant),
            problem.x0(),
            sym.n_u(),
            map.clone(),
        ))
    } else {
        None
    };
    let budget =
        Duration::try_from_secs_f64(setup.solve_budget_s).map_err(|e| SetupError::Mismatch {
            name: "mpc.deadline_s".into(),
            why: format!("not a solve budget: {e}"),
        })?;
    // `cmd_vel` drives the references of the base's x, y, yaw (floating_base only).
    if let Some(bc) = map.base_coord {
        let coords = BaseCoordinates {
            x: bc[0],
            y: bc[1],
            yaw: bc[3],
        };
        if let Err(e) = controller.set_base_command_coordinates(coords) {
            warnings.push(format!("cmd_vel will be ignored: {e}"));
        }
    }
    let mut provider = MpcProvider::new(controller, map, budget, p.start_enabled);
    if let ModelSource::Robot(r) = &problem.model {
        provider =
            provider.with_plan_kinematics(PlanKinematics::new(r.model.clone(), r.contacts.clone()));
    }
    config.params.validate()?;
    config.given = given;
    Ok(NodeSetup {
        config,
        provider,
        plant,
        warnings,
    })
}
