//! Problem configurations (YAML): a Complementarity Lagrangian System from expressions or from a
//! robot, FESD-J options, horizon, initial state, OCP and simulation, solver settings.
//!
//! ```yaml
//! name: bouncing ball
//! model:
//!   restitution: 1.0            # default of every contact that does not set its own (also `mu`)
//!   expressions:
//!     q: [q]                    # coordinate names; velocities default to v_<name> (or `v:`)
//!     u: []                     # control names
//!     parameters: {g: 9.81, m: 1, mg: "m*g"}   # in order; may use earlier parameters
//!     M: [m]                    # diagonal, or rows [[..], [..]]
//!     f_v: ["-mg"]              # smooth forces; controls may appear affinely (B_u = ∂f_v/∂u)
//!     B_u: ...                  # optional input matrix (rows of n_u entries)
//!     contacts:
//!       - {f_c: "q", J_n: [1], J_t: [[..]], mu: 0.0, restitution: 1.0}   # J_n default ∇f_c
//!   # or
//!   robot:
//!     urdf: ../urdf/hopper.urdf # relative to this file
//!     root: planar_xz           # fixed | planar_xz | planar_xy | floating_zyx
//!     actuated: [hip, leg]      # one control per joint: u_<joint>
//!     contacts: [{frame: foot, radius: 0, surface: {ground: {height: 0}}, mu: 0.45}]
//!     joint_limits: true        # URDF position limits bound q; effort_limits: URDF efforts bound u
//! fesdj: {n_s: 2, n_fe: 2, no_initial_impacts: true}   # FesdjOptions, Appendix A names
//! horizon: {T: 1.0, N: 10}      # OCP horizon and control intervals
//! initial: {q: [0.8], v: [0]}
//! ocp:
//!   tracking: lsq               # lsq (interval ends, references as parameters) | quadrature
//!   Q: [10, 0.1]                # diagonals (or one number for all); R, Q_T alike
//!   x_ref: [0.5, 0]             # one state, or waypoints [[..], [..]] (+ x_ref_times)
//!   x_ref_period: 1.2           # waypoints repeat with this period (MPC: at its own clock)
//!   u_ref: [], x_ref_T: [..]
//!   lagrange: "u_1^2"           # extra running cost L(q, v, u); mayer: L_T(q, v)
//!   bounds: {u: {abs: 30}, q: {lb: [..], ub: [..]}, v: {abs: 5}}
//!   path: {g: ["..."], lb: .., ub: ..}       # default g ≤ 0
//!   terminal: {g: ["q - 1"]}                 # default g = 0
//!   start: {fixed_controls: [[1], [2]], release_sigma0: 1e-2}   # fesdj solve: solve with u_0, u_1
//!                                            # fixed, then released (schema::StartSpec)
//! simulation: {T_sim: 3, N_sim: 20, u: [..]} # one control vector, or one per step
//! solver: {sigma0: 1, kappa: 0.1, comp_tol: 1e-9, ipm: {max_iter: 500}}   # HomotopySettings
//! mpc: {rate_hz: 10, steps: 30, plant: {model: {mu: 0.25}}}   # see schema::MpcSpec
//! ```
//!
//! [`Problem::load`] reads a file, applies `--set KEY=VALUE` overrides ([`set`]) to the YAML
//! tree, deserialises it with `deny_unknown_fields` (unknown keys, wrong types and missing
//! fields name their path, e.g. `model.expressions.qq: unknown field`), parses every
//! expression (`model.expressions.f_v[1]: unknown symbol 'qq' at column 1`), checks shapes,
//! scopes (`M` may use coordinates and parameters only), `M(q_0)` symmetric positive definite,
//! and builds the OCP and simulation parts once. Then [`Problem::ocp`] and
//! [`Problem::simulation`] give [`Ocp`](crate::fesdj::Ocp)s with their
//! [`FesdjOptions`](crate::fesdj::FesdjOptions).

pub mod de;
pub mod error;
pub mod expr;
pub mod expressions;
mod mpc_build;
mod ocp_build;
mod problem;
pub mod robot;
pub mod schema;
pub mod set;
pub mod symbols;
pub mod tree;

pub use error::ConfigError;
pub use mpc_build::{MpcSetup, DEFAULT_STEPS};
pub use ocp_build::{OcpSetup, SimulationSetup};
pub use problem::{eval_mass_and_gaps, ModelSource, Problem};
pub use schema::{Config, StartSpec};
pub use symbols::Symbols;
