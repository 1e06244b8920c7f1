//! Robot models from URDF and rigid-body algorithms generic over [`Scalar`](crate::ad::Scalar).
//!
//! Pinocchio's split: an immutable [`Model`] (joints in topological order, placements, spatial
//! inertias, limits, frames; fixed joints folded into their parent bodies as frames) built by
//! [`Model::from_urdf_file`] / [`Model::from_urdf_str`] with a [`RootJoint`] chosen in
//! [`ModelOptions`], and a mutable workspace [`Data<S>`]. The algorithms are free functions that
//! allocate nothing and never branch on values, so the same code runs on `f64` (fast) and on the
//! symbolic [`Sx`](crate::ad::Sx) (to build exact derivative tapes):
//!
//! * [`forward_kinematics`], [`update_frame_placements`], [`frame_placement`],
//!   [`frame_jacobian`] (LOCAL, WORLD, LOCAL_WORLD_ALIGNED; rows linear then angular);
//! * [`rnea`] (`τ = M a + h`), [`nonlinear_effects`] (`h`), [`gravity`] (`g`), [`crba`] (`M`),
//!   [`aba`] (`q̈`);
//! * [`center_of_mass`], [`total_mass`], [`kinetic_energy`], [`potential_energy`];
//! * [`integrate`], [`difference`], [`neutral`] on the configuration space, and the velocity
//!   map between `floating_zyx` and free-flyer coordinates;
//! * [`contact`]: signed distances and normal/tangent Jacobians of contact spheres.
//!
//! Conventions are Pinocchio's: spatial vectors `[linear; angular]`, the free-flyer's
//! quaternion `(x, y, z, w)` with a local twist, gravity `[0, 0, −9.81]` by default.

mod aba;
mod com;
pub mod configuration;
pub mod contact;
mod data;
mod dynamics;
mod error;
pub mod inertia;
mod joint;
mod kinematics;
pub mod spatial;
mod structure;
mod urdf;

pub use aba::aba;
pub use com::{
    center_of_mass, kinetic_energy, potential_energy, total_mass, total_mass_with_world,
};
pub use configuration::{difference, integrate, neutral, zyx_from_odometry};
pub use contact::{
    contact_jacobians, contact_point_and_normal, signed_distance, Contact, ContactSpec, Surface,
    SurfaceSpec,
};
pub use data::Data;
pub use dynamics::{crba, gravity, nonlinear_effects, rnea};
pub use error::ModelError;
pub use kinematics::{
    forward_kinematics, frame_jacobian, frame_placement, update_frame_placements, ReferenceFrame,
};
pub use structure::{
    Axis, Frame, FrameKind, Joint, JointLimits, JointMotion, JointType, Model, ModelOptions,
    RootJoint,
};
