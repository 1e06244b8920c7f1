//! Errors of the `model` module.

use thiserror::Error;

/// Errors raised while reading a URDF, building a [`Model`](super::Model) or calling an algorithm
/// with arguments of the wrong size.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// File name.
        file: String,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The XML is not a URDF that `urdf-rs` can read.
    #[error("URDF parse error: {0}")]
    Parse(String),
    /// A joint names a parent link that does not exist.
    #[error("joint `{joint}`: unknown parent link `{link}`")]
    UnknownParentLink {
        /// Joint name.
        joint: String,
        /// Link name.
        link: String,
    },
    /// A joint names a child link that does not exist.
    #[error("joint `{joint}`: unknown child link `{link}`")]
    UnknownChildLink {
        /// Joint name.
        joint: String,
        /// Link name.
        link: String,
    },
    /// A link is the child of two joints.
    #[error("link `{link}` has two parent joints: `{first}` and `{second}`")]
    TwoParents {
        /// Link name.
        link: String,
        /// First parent joint.
        first: String,
        /// Second parent joint.
        second: String,
    },
    /// The joints form a cycle.
    #[error("the kinematic graph has a cycle through link `{link}`")]
    Cycle {
        /// A link on the cycle.
        link: String,
    },
    /// More than one link (or none) has no parent joint.
    #[error("the URDF must have exactly one root link, found {}: {}", .roots.len(), .roots.join(", "))]
    Roots {
        /// The links without a parent joint.
        roots: Vec<String>,
    },
    /// Two links or two joints share a name.
    #[error("duplicate {kind} name `{name}`")]
    DuplicateName {
        /// `link` or `joint`.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A link has a negative mass.
    #[error("link `{link}`: negative mass {mass}")]
    NegativeMass {
        /// Link name.
        link: String,
        /// The mass.
        mass: f64,
    },
    /// A link's inertia tensor is not positive semi-definite.
    #[error("link `{link}`: inertia tensor is not positive semi-definite ({why})")]
    InertiaNotPsd {
        /// Link name.
        link: String,
        /// Which test failed.
        why: String,
    },
    /// A joint axis has zero length.
    #[error("joint `{joint}`: axis has zero length")]
    ZeroAxis {
        /// Joint name.
        joint: String,
    },
    /// A joint type that URDF does not define.
    #[error("joint `{joint}`: unknown joint type `{joint_type}`")]
    UnknownJointType {
        /// Joint name.
        joint: String,
        /// The type as written.
        joint_type: String,
    },
    /// A URDF joint type this crate does not support (floating, planar, spherical inside the tree:
    /// a moving base is chosen with [`RootJoint`](super::RootJoint) instead).
    #[error("joint `{joint}`: unsupported joint type `{joint_type}` (choose a floating or planar base with the root joint option instead)")]
    UnsupportedJointType {
        /// Joint name.
        joint: String,
        /// The type.
        joint_type: String,
    },
    /// A number in the URDF is NaN or infinite.
    #[error("{element}: non-finite number in {field}")]
    NonFinite {
        /// The element (`link \`x\`` or `joint \`y\``).
        element: String,
        /// Which field.
        field: String,
    },
    /// An unknown frame, joint or link name.
    #[error("unknown {kind} `{name}`")]
    UnknownName {
        /// `frame`, `joint` or `link`.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A slice argument of the wrong length.
    #[error("{what}: expected length {expected}, got {got}")]
    Dimension {
        /// Which argument.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Actual length.
        got: usize,
    },
    /// An invalid contact description.
    #[error("contact `{name}`: {why}")]
    InvalidContact {
        /// Contact name.
        name: String,
        /// What is wrong.
        why: String,
    },
}

/// Check that a slice has the expected length.
pub(crate) fn check_len(what: &'static str, got: usize, expected: usize) -> Result<(), ModelError> {
    if got == expected {
        Ok(())
    } else {
        Err(ModelError::Dimension {
            what,
            expected,
            got,
        })
    }
}
