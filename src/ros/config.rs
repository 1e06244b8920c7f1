//! Node identity, parameters and remaps ([`NodeConfig`]), the resulting topic and service names
//! ([`Topics`]), and the errors of node setup ([`NodeError`]).

use thiserror::Error;

use super::args::{ArgsError, RosArgs};
use super::names::{self, NameError, Remap};
use super::params::{NodeParams, ParamsError};

/// Default node name.
pub const DEFAULT_NODE_NAME: &str = "fesdj_mpc";

/// Failures of node setup or of the loop.
#[derive(Debug, Error)]
pub enum NodeError {
    /// Bad `--ros-args` or `ROS_DOMAIN_ID`.
    #[error(transparent)]
    Args(#[from] ArgsError),
    /// Bad parameter.
    #[error(transparent)]
    Params(#[from] ParamsError),
    /// A topic or service name (after remapping) breaks the ROS naming rules.
    #[error("name '{name}': {source}")]
    Name {
        /// The name.
        name: String,
        /// The rule broken.
        source: NameError,
    },
    /// ros2-client/RustDDS could not create an entity.
    #[error("DDS: cannot create {what}: {reason}")]
    Dds {
        /// What was being created.
        what: String,
        /// The library's message.
        reason: String,
    },
    /// The event loop (mio) failed.
    #[error("event loop: {0}")]
    Io(#[from] std::io::Error),
}

pub(crate) fn dds(what: impl Into<String>) -> impl FnOnce(String) -> NodeError {
    let what = what.into();
    move |reason| NodeError::Dds { what, reason }
}

/// Everything the runtime needs: identity, domain, parameters, remaps.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeConfig {
    /// Node base name (`fesdj_mpc` unless `-r __node:=`).
    pub node_name: String,
    /// Node namespace (`/` unless `-r __ns:=`).
    pub namespace: String,
    /// DDS domain (`ROS_DOMAIN_ID`).
    pub domain_id: u16,
    /// Effective parameters.
    pub params: NodeParams,
    /// Topic/service remaps.
    pub remaps: Vec<Remap>,
    /// Names of the parameters given explicitly (`-p` or a params file), as written.
    pub given: Vec<String>,
}

impl NodeConfig {
    /// From parsed `--ros-args` and a domain id; also returns warnings about ignored file
    /// parameters.
    pub fn from_args(
        args: &RosArgs,
        domain_id: u16,
    ) -> Result<(NodeConfig, Vec<String>), NodeError> {
        let node_name = args.node_name_or(DEFAULT_NODE_NAME).to_string();
        let namespace = args.namespace_or_root().to_string();
        let fqn = names::node_fqn(&namespace, &node_name);
        let overrides = args.parameter_overrides(&fqn)?;
        let (params, warnings) = NodeParams::from_overrides(&overrides)?;
        Ok((
            NodeConfig {
                node_name,
                namespace,
                domain_id,
                params,
                remaps: args.remaps.clone(),
                given: overrides.into_iter().map(|o| o.name).collect(),
            },
            warnings,
        ))
    }

    /// Default identity and domain with the given parameters.
    pub fn with_params(params: NodeParams) -> NodeConfig {
        NodeConfig {
            node_name: DEFAULT_NODE_NAME.into(),
            namespace: "/".into(),
            domain_id: 0,
            params,
            remaps: Vec::new(),
            given: Vec::new(),
        }
    }

    /// `/namespace/node_name`.
    pub fn fully_qualified_name(&self) -> String {
        names::node_fqn(&self.namespace, &self.node_name)
    }

    fn resolve(&self, name: &str) -> Result<String, NodeError> {
        let err = |source| NodeError::Name {
            name: name.into(),
            source,
        };
        let full = names::resolve_name(name, &self.namespace, &self.node_name).map_err(err)?;
        names::apply_remaps(&self.remaps, &full, &self.namespace, &self.node_name).map_err(err)
    }

    /// The fully qualified names of the node's topics and services after remapping.
    pub fn topics(&self) -> Result<Topics, NodeError> {
        Ok(Topics {
            joint_states: self.resolve("joint_states")?,
            odom: if self.params.floating_base {
                Some(self.resolve("odom")?)
            } else {
                None
            },
            cmd_vel: if self.params.floating_base {
                Some(self.resolve("cmd_vel")?)
            } else {
                None
            },
            planned_trajectory: self.resolve("~/planned_trajectory")?,
            planned_path: self.resolve("~/planned_path")?,
            planned_markers: self.resolve("~/planned_markers")?,
            effort_command: self.resolve("~/effort_command")?,
            diagnostics: self.resolve("/diagnostics")?,
            plan: self.resolve("~/plan")?,
            reset: self.resolve("~/reset")?,
            enable: self.resolve("~/enable")?,
        })
    }
}

/// Fully qualified topic and service names of a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topics {
    /// Joint state input.
    pub joint_states: String,
    /// Base odometry input (floating base only).
    pub odom: Option<String>,
    /// Velocity command input (floating base only).
    pub cmd_vel: Option<String>,
    /// Planned trajectory output.
    pub planned_trajectory: String,
    /// Planned base path output (RViz).
    pub planned_path: String,
    /// Planned contact points and forces output (RViz).
    pub planned_markers: String,
    /// Effort command output.
    pub effort_command: String,
    /// Diagnostics output.
    pub diagnostics: String,
    /// Plan-once service.
    pub plan: String,
    /// Reset service.
    pub reset: String,
    /// Enable service.
    pub enable: String,
}
