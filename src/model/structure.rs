//! The immutable robot description: joints in topological order, bodies, frames, root joint.

use super::error::ModelError;
use super::spatial::{RigidInertia, Se3};
use serde::{Deserialize, Serialize};

/// The joint that attaches the URDF's root link to the world (URDF cannot express it).
///
/// | option | nq | nv | q | v |
/// |---|---|---|---|---|
/// | `fixed` | 0 | 0 | – | – |
/// | `floating` | 7 | 6 | position, unit quaternion `(x, y, z, w)` | local twist `[v; ω]` (Pinocchio free-flyer) |
/// | `floating_zyx` | 6 | 6 | position, ZYX Euler angles `(yaw, pitch, roll)` | `q̇` |
/// | `planar_xz` | 3 | 3 | `x, z, pitch` | `q̇` |
/// | `planar_xy` | 3 | 3 | `x, y, yaw` | `q̇` |
///
/// `floating_zyx` orients the base by `R = Rz(yaw) Ry(pitch) Rx(roll)`; it is built as a chain
/// of three prismatic and three revolute joints (massless intermediate bodies), so M and h are
/// those of the body in these coordinates. It is **singular at pitch = ±90°** (the roll and yaw
/// axes align: M loses rank and the articulated-body algorithm divides by zero); keep trajectories
/// away from it or use `floating`. Planar bases are chains too (translations along world axes,
/// then the rotation), with `q̇ = v`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootJoint {
    /// Fixed to the world (the root link is the world body).
    #[default]
    Fixed,
    /// Free-flyer: position + unit quaternion, local twist, as Pinocchio.
    Floating,
    /// Position + ZYX Euler angles with `q̇ = v`.
    FloatingZyx,
    /// Planar in the world x-z plane: x, z, pitch (rotation about y).
    PlanarXz,
    /// Planar in the world x-y plane: x, y, yaw (rotation about z).
    PlanarXy,
}

impl RootJoint {
    /// The snake_case name used in configuration files.
    pub fn name(self) -> &'static str {
        match self {
            RootJoint::Fixed => "fixed",
            RootJoint::Floating => "floating",
            RootJoint::FloatingZyx => "floating_zyx",
            RootJoint::PlanarXz => "planar_xz",
            RootJoint::PlanarXy => "planar_xy",
        }
    }
}

/// Options for building a [`Model`] from a URDF.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelOptions {
    /// Root joint.
    pub root: RootJoint,
    /// Gravity in the world frame (m/s²).
    pub gravity: [f64; 3],
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions {
            root: RootJoint::Fixed,
            gravity: [0.0, 0.0, -9.81],
        }
    }
}

/// A joint axis (unit vector), specialised when it is a coordinate axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Axis {
    /// `+x`.
    X,
    /// `+y`.
    Y,
    /// `+z`.
    Z,
    /// Any other unit vector.
    Unaligned([f64; 3]),
}

impl Axis {
    /// From a non-zero vector (normalised here).
    pub fn from_vector(a: [f64; 3]) -> Axis {
        let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        let u = [a[0] / n, a[1] / n, a[2] / n];
        if u == [1.0, 0.0, 0.0] {
            Axis::X
        } else if u == [0.0, 1.0, 0.0] {
            Axis::Y
        } else if u == [0.0, 0.0, 1.0] {
            Axis::Z
        } else {
            Axis::Unaligned(u)
        }
    }

    /// The unit vector.
    pub fn vector(&self) -> [f64; 3] {
        match *self {
            Axis::X => [1.0, 0.0, 0.0],
            Axis::Y => [0.0, 1.0, 0.0],
            Axis::Z => [0.0, 0.0, 1.0],
            Axis::Unaligned(u) => u,
        }
    }
}

/// How a joint moves: its motion subspace and transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointMotion {
    /// Rotation about an axis of the joint frame (nq = nv = 1).
    Revolute(Axis),
    /// Translation along an axis of the joint frame (nq = nv = 1).
    Prismatic(Axis),
    /// Free-flyer: nq = 7 (position, quaternion x y z w), nv = 6 (local twist), S = I.
    FreeFlyer,
}

/// The kind of a joint as the user sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JointType {
    /// URDF revolute (position limits apply).
    Revolute,
    /// URDF continuous (one angle, unbounded).
    Continuous,
    /// URDF prismatic.
    Prismatic,
    /// The free-flyer root joint.
    FreeFlyer,
    /// One coordinate of a `floating_zyx` or planar root joint.
    RootCoordinate,
}

/// Limits of a one-coordinate joint (`±∞` where none are given; all infinite for root joints).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointLimits {
    /// Lower position limit.
    pub lower: f64,
    /// Upper position limit.
    pub upper: f64,
    /// Velocity limit (absolute value).
    pub velocity: f64,
    /// Effort limit (absolute value).
    pub effort: f64,
}

impl JointLimits {
    /// No limits.
    pub fn unlimited() -> Self {
        JointLimits {
            lower: f64::NEG_INFINITY,
            upper: f64::INFINITY,
            velocity: f64::INFINITY,
            effort: f64::INFINITY,
        }
    }
}

/// One joint of the tree, with the body it carries.
#[derive(Clone, Debug)]
pub struct Joint {
    /// Name (the URDF joint name; `root_joint` for the free-flyer, `root_x`… for the
    /// coordinates of chained root joints).
    pub name: String,
    /// Kind.
    pub joint_type: JointType,
    /// Motion model.
    pub motion: JointMotion,
    /// Parent joint (`None`: the world).
    pub parent: Option<usize>,
    /// Placement of this joint's frame in the parent joint's frame at `q = 0`.
    pub placement: Se3<f64>,
    /// Inertia of the body moved by this joint (fixed children folded in), in the joint frame.
    pub inertia: RigidInertia<f64>,
    /// First index in `q`.
    pub idx_q: usize,
    /// Number of configuration coordinates.
    pub nq: usize,
    /// First index in `v`.
    pub idx_v: usize,
    /// Number of velocity coordinates.
    pub nv: usize,
    /// Limits (per coordinate; one entry for 1-DoF joints, empty for the free-flyer).
    pub limits: Vec<JointLimits>,
    /// The joint this one mimics in the URDF (ignored: the joint is independent).
    pub mimic: Option<String>,
}

/// What a frame comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// A URDF link.
    Body,
    /// A URDF fixed joint (folded into its parent body).
    FixedJoint,
    /// A movable joint's frame.
    Joint,
}

/// A named frame rigidly attached to a joint's body.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Name.
    pub name: String,
    /// Kind.
    pub kind: FrameKind,
    /// The joint whose body carries the frame (`None`: the world).
    pub parent_joint: Option<usize>,
    /// Placement in that joint's frame.
    pub placement: Se3<f64>,
}

/// An immutable robot model (see the module docs). Build it with
/// [`Model::from_urdf_file`] or [`Model::from_urdf_str`].
#[derive(Clone, Debug)]
pub struct Model {
    /// Robot name.
    pub name: String,
    /// Joints in topological (depth-first) order; parents come before children.
    pub joints: Vec<Joint>,
    /// Named frames (every link, every fixed joint, every movable joint).
    pub frames: Vec<Frame>,
    /// Configuration dimension.
    pub nq: usize,
    /// Velocity dimension.
    pub nv: usize,
    /// Gravity in the world frame.
    pub gravity: [f64; 3],
    /// The root joint option the model was built with.
    pub root: RootJoint,
    /// Inertia fixed to the world (the root link and its fixed children, for a fixed base).
    /// It moves nothing; it is reported by [`total_mass_with_world`](super::total_mass_with_world).
    pub world_inertia: RigidInertia<f64>,
    /// Warnings produced while building (massless moving bodies, mimic joints).
    pub warnings: Vec<String>,
    /// For each joint, the joints from the root down to it (inclusive).
    pub(crate) supports: Vec<Vec<usize>>,
    /// For each velocity index, the joint it belongs to.
    pub(crate) v_joint: Vec<usize>,
}

impl Model {
    /// Index of the joint called `name`.
    pub fn joint_id(&self, name: &str) -> Result<usize, ModelError> {
        self.joints
            .iter()
            .position(|j| j.name == name)
            .ok_or_else(|| ModelError::UnknownName {
                kind: "joint",
                name: name.to_string(),
            })
    }

    /// Index of the frame called `name`; a link (body) frame wins over a joint frame of the
    /// same name.
    pub fn frame_id(&self, name: &str) -> Result<usize, ModelError> {
        self.frames
            .iter()
            .position(|f| f.name == name && f.kind == FrameKind::Body)
            .or_else(|| self.frames.iter().position(|f| f.name == name))
            .ok_or_else(|| ModelError::UnknownName {
                kind: "frame",
                name: name.to_string(),
            })
    }

    /// The joints from the root down to joint `j` (inclusive).
    pub fn support(&self, j: usize) -> &[usize] {
        &self.supports[j]
    }

    /// The joint that owns velocity coordinate `k`.
    pub fn joint_of_velocity(&self, k: usize) -> usize {
        self.v_joint[k]
    }

    /// Finish a model after its joints were pushed: supports, velocity owners.
    pub(crate) fn finish(&mut self) {
        self.supports.clear();
        for (i, j) in self.joints.iter().enumerate() {
            let mut s = match j.parent {
                Some(p) => self.supports[p].clone(),
                None => Vec::new(),
            };
            s.push(i);
            self.supports.push(s);
        }
        self.v_joint = Vec::with_capacity(self.nv);
        for (i, j) in self.joints.iter().enumerate() {
            for _ in 0..j.nv {
                self.v_joint.push(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_joint_names_are_snake_case() {
        for (root, name) in [
            (RootJoint::Fixed, "fixed"),
            (RootJoint::Floating, "floating"),
            (RootJoint::FloatingZyx, "floating_zyx"),
            (RootJoint::PlanarXz, "planar_xz"),
            (RootJoint::PlanarXy, "planar_xy"),
        ] {
            assert_eq!(root.name(), name);
            assert_eq!(serde_json::to_string(&root).unwrap(), format!("\"{name}\""));
            let back: RootJoint = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(back, root);
        }
        let o: ModelOptions = serde_json::from_str(r#"{"root":"planar_xz"}"#).unwrap();
        assert_eq!(o.root, RootJoint::PlanarXz);
        assert_eq!(o.gravity, [0.0, 0.0, -9.81]);
        assert!(serde_json::from_str::<ModelOptions>(r#"{"rot":"fixed"}"#).is_err());
    }
}
