//! The typed schema of a problem file (serde, `deny_unknown_fields` everywhere). See the
//! [module docs](super) for an annotated example.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

use crate::fesdj::FesdjOptions;
use crate::model::{RootJoint, SurfaceSpec};
use crate::solver::HomotopySettings;

/// A problem file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Optional name (used in plot titles).
    #[serde(default)]
    pub name: Option<String>,
    /// Optional free text.
    #[serde(default)]
    pub description: Option<String>,
    /// The Complementarity Lagrangian System.
    pub model: ModelSpec,
    /// Transcription options (`n_intervals` and `t_final` come from `horizon` / `simulation`).
    #[serde(default)]
    pub fesdj: FesdjOptions,
    /// OCP horizon.
    #[serde(default)]
    pub horizon: Option<Horizon>,
    /// Initial state.
    pub initial: Initial,
    /// Optimal control problem (costs, bounds, constraints).
    #[serde(default)]
    pub ocp: Option<OcpSpec>,
    /// Simulation (repeated one-interval problems with given controls).
    #[serde(default)]
    pub simulation: Option<SimulationSpec>,
    /// Homotopy and interior-point settings.
    #[serde(default)]
    pub solver: HomotopySettings,
    /// Receding-horizon control (`fesdj mpc`, the ROS node): rate, deadline, controller
    /// settings, measurement noise and plant mismatch. The MPC problem is the `horizon` + `ocp`.
    #[serde(default)]
    pub mpc: Option<MpcSpec>,
}

/// The `mpc` section. Every field is optional.
///
/// ```yaml
/// mpc:
///   rate_hz: 10            # control rate = plant step of `fesdj mpc` (default N/T: one tick per interval)
///   steps: 30              # ticks of `fesdj mpc` (default 50; --steps overrides)
///   deadline_s: 0.1        # per solve (default 1/rate_hz)
///   warm_sigma0: 1.0e-2    # ControllerSettings (defaults as there)
///   cold_sigma0: 1
///   startup_deadline_s: 5  # plan once at the initial state before the first tick (default none)
///   shift: true
///   warm_duals: true       # primal-dual warm start (false: primal only)
///   warm_retries: 0        # failures in a row warm-started from the last verified plan
///   accept_comp_residual: 1.0e-6
///   active_set_free_intervals: 1   # with solver.warm_active_set: first intervals left relaxed
///   active_set_free_last_intervals: 1   # … and last intervals
///   actuated: [x]          # coordinate driven by each control (default: from the model)
///   effort_limit: 20       # per control, symmetric (default: from the OCP's u bounds)
///   fallback: {damping: {kd: 1}}         # or {hold_position: {kp: 10, kd: 1}}
///   tail_simulation: true  # warm starts simulate their last interval (default false)
///   gait_schedule_from: 1  # with gait_library: its stance pattern imposed from interval 1 on
///   contact_penalty_weight: 10   # ℓ1 penalty weight of the normal-contact pairs (default 1)
///   tracking: {kp: [20, 200], kd: [1, 5]}  # PD on the plan between re-plans (default none)
///   command_rate_hz: 250   # node: commands per second, re-plans at rate_hz (default rate_hz)
///   noise: {std: [1e-3, 0, 1e-3, 0], seed: 7}   # measurement noise on (q, v) (default none)
///   plant: {model: {mu: 0.25}}           # overrides for the plant's model (mismatch)
///   backup: {fesdj: {use_fesd: false, n_fe: 1}}   # a backup controller (default none)
/// ```
///
/// `plant` holds overrides of the sections `model`, `fesdj` and `solver` of this file, applied
/// (like `--set`, leaf by leaf) to a second build of the problem whose model the closed-loop
/// plant simulates; the controller keeps the nominal model. Unknown keys are errors naming
/// `mpc.plant.<path>`.
///
/// `backup` holds overrides of the sections `fesdj`, `solver` and `mpc` for a second
/// controller of the same model (e.g. time stepping under a FESD-J controller): it plans first
/// on every tick, and its plan is in charge when this controller's solve is not verified
/// within the rest of the tick's budget ([`crate::mpc::Controller::set_backup`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MpcSpec {
    /// Control rate in Hz (default `N / T`).
    pub rate_hz: Option<f64>,
    /// Closed-loop ticks of `fesdj mpc` (default 50).
    pub steps: Option<usize>,
    /// Deadline of every solve in seconds (default `1 / rate_hz`).
    pub deadline_s: Option<f64>,
    /// Budget of a start-up solve before the first tick, at the initial state (default none:
    /// the first tick solves cold within `deadline_s`).
    pub startup_deadline_s: Option<f64>,
    /// σ₀ of warm starts.
    pub warm_sigma0: Option<f64>,
    /// σ₀ of cold starts.
    pub cold_sigma0: Option<f64>,
    /// Shift the previous solution for the warm start.
    pub shift: Option<bool>,
    /// Carry the multipliers in warm starts.
    pub warm_duals: Option<bool>,
    /// Failed solves in a row that are followed by a warm start from the last verified plan.
    pub warm_retries: Option<usize>,
    /// Simulate the last interval of every warm start from the plan's final state
    /// (`Controller::set_tail_simulator`; default false).
    #[serde(default)]
    pub tail_simulation: Option<bool>,
    /// Deepest measured contact penetration (per gap, model units) that the controller
    /// corrects by projecting the state onto `f_c(q) ≥ 0` before planning (default 0.01); a
    /// deeper one is refused as bad input.
    #[serde(default)]
    pub max_penetration: Option<f64>,
    /// PD feedback around the plan between re-plans (`mpc::Tracking`; default none).
    #[serde(default)]
    pub tracking: Option<TrackingSpec>,
    /// Rate (Hz) at which the node sends commands: between two re-plans (`rate_hz`) it applies
    /// the plan with the `tracking` feedback to every fresh measurement (default `rate_hz`).
    #[serde(default)]
    pub command_rate_hz: Option<f64>,
    /// Largest `max G·H` of an accepted, not fully converged homotopy.
    pub accept_comp_residual: Option<f64>,
    /// With `solver.warm_active_set`: control intervals at the start of the horizon whose
    /// complementarity pairs stay relaxed in the warm active-set NLP (default 1).
    #[serde(default)]
    pub active_set_free_intervals: Option<usize>,
    /// With `solver.warm_active_set`: control intervals at the end of the horizon whose pairs
    /// stay relaxed (default 1).
    #[serde(default)]
    pub active_set_free_last_intervals: Option<usize>,
    /// An imposed periodic contact schedule: the fixed-schedule variant of the controller
    /// (default none: the optimiser chooses every contact).
    #[serde(default)]
    pub contact_schedule: Option<ContactScheduleSpec>,
    /// A gait library (the data file of `fesdj gaits`, relative to the problem file) whose
    /// gaits, blended for the commanded base velocity, are the reference of every entry but
    /// the base's x, y, yaw and their rates (a `floating_zyx` base; default none).
    #[serde(default)]
    pub gait_library: Option<String>,
    /// With `gait_library`: from this control interval on, the contacts follow the stance
    /// pattern of the library gait the command steps with, imposed; the earlier intervals stay
    /// contact-implicit (`ControllerSettings::gait_schedule_from`; default none).
    #[serde(default)]
    pub gait_schedule_from: Option<usize>,
    /// Weight of the normal-contact pairs in the controller's ℓ1 penalty, the others weighing 1
    /// (`ControllerSettings::contact_penalty_weight`; default 1).
    #[serde(default)]
    pub contact_penalty_weight: Option<f64>,
    /// A constant base velocity command `[vₓ, v_y, ω]` (heading frame) of `fesdj mpc`; the node
    /// takes its command from `cmd_vel` (default none).
    #[serde(default)]
    pub base_velocity: Option<[f64; 3]>,
    /// Coordinate (by name) driven by each control.
    pub actuated: Option<Vec<String>>,
    /// Symmetric effort limit per control (or one for all).
    pub effort_limit: Option<Numbers>,
    /// Fallback law.
    pub fallback: Option<crate::mpc::Fallback>,
    /// Measurement noise.
    pub noise: Option<NoiseSpec>,
    /// Plant mismatch: overrides of `model`, `fesdj`, `solver` for the plant's build.
    pub plant: Option<super::tree::Tree>,
    /// A backup controller: overrides of `fesdj`, `solver`, `mpc` for its build.
    pub backup: Option<super::tree::Tree>,
}

/// `mpc.contact_schedule`: each listed contact swings (normal force 0) during `[start, end)`
/// of every period (fractions of `period`, wrapping past 1 allowed) and stands (gap 0) the
/// rest of the time, on the controller's clock (the one of `ocp.x_ref_period`); unlisted
/// contacts stay free.
///
/// ```yaml
/// contact_schedule: {period: 1.2, swing: {HL_foot: [0, 0.25], FL_foot: [0.25, 0.5]}}
/// ```
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactScheduleSpec {
    /// Period (s).
    pub period: f64,
    /// Swing window `[start, end]` per contact name.
    pub swing: std::collections::BTreeMap<String, [f64; 2]>,
}

/// `mpc.tracking`: gains per control (or one for all).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrackingSpec {
    /// Position gains.
    pub kp: Numbers,
    /// Velocity gains.
    pub kd: Numbers,
}

/// Gaussian measurement noise of `fesdj mpc`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoiseSpec {
    /// Standard deviation per state entry (`2 n_q`, or one for all).
    pub std: Numbers,
    /// Seed (default 0).
    #[serde(default)]
    pub seed: u64,
}

/// The model: exactly one of `expressions` and `robot`, plus defaults for every contact.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// A model written as expressions.
    #[serde(default)]
    pub expressions: Option<ExpressionModelSpec>,
    /// A robot from a URDF.
    #[serde(default)]
    pub robot: Option<RobotSpec>,
    /// Friction coefficient of every contact that does not set its own.
    #[serde(default)]
    pub mu: Option<f64>,
    /// Restitution coefficient of every contact that does not set its own.
    #[serde(default)]
    pub restitution: Option<f64>,
}

/// A model as expressions of named coordinates, velocities, controls and parameters.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpressionModelSpec {
    /// Names of the generalised coordinates `q`.
    pub q: Vec<String>,
    /// Names of the velocities (default `v_<q name>`).
    #[serde(default)]
    pub v: Option<Vec<String>>,
    /// Names of the controls `u` (default none).
    #[serde(default)]
    pub u: Vec<String>,
    /// Named constants, in order; a value may be an expression of earlier parameters.
    #[serde(default)]
    pub parameters: Params,
    /// Inertia matrix: a list of `n_q` diagonal entries or `n_q` rows of `n_q` entries.
    #[serde(rename = "M")]
    pub mass: Vec<Item>,
    /// Smooth forces `f_v(q, v)` (`n_q` entries). May contain the controls affinely when
    /// `B_u` is not given: then `B_u = ∂f_v/∂u` (which must depend on `q` only).
    pub f_v: Vec<Entry>,
    /// Input matrix: `n_q` rows of `n_u` entries (or `n_q` entries when `n_u = 1`).
    #[serde(default, rename = "B_u")]
    pub b_u: Option<Vec<Item>>,
    /// Contacts.
    #[serde(default)]
    pub contacts: Vec<ExpressionContactSpec>,
}

/// One contact of an expression model.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpressionContactSpec {
    /// Name (for messages and outputs).
    #[serde(default)]
    pub name: Option<String>,
    /// Gap function `f_c(q)` (≥ 0 admissible).
    pub f_c: Entry,
    /// Normal `J_n(q)` (`n_q` entries; default `∇f_c`).
    #[serde(default, rename = "J_n")]
    pub j_n: Option<Vec<Entry>>,
    /// Tangents `J_t(q)`: a list of `n_t` vectors of `n_q` entries (or one vector).
    #[serde(default, rename = "J_t")]
    pub j_t: Option<Vec<Item>>,
    /// Friction coefficient (default `model.mu`, else 0).
    #[serde(default)]
    pub mu: Option<f64>,
    /// Restitution coefficient (default `model.restitution`, else 0).
    #[serde(default)]
    pub restitution: Option<f64>,
}

/// A robot from a URDF with contacts and actuated joints.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RobotSpec {
    /// URDF file, relative to the configuration file.
    pub urdf: String,
    /// Root joint; `floating` (quaternion) is rejected because FESD-J needs `q̇ = v`.
    pub root: RootJoint,
    /// Gravity (default `[0, 0, -9.81]`).
    #[serde(default)]
    pub gravity: Option<[f64; 3]>,
    /// Names of the joints driven by the controls (one control each, in this order).
    #[serde(default)]
    pub actuated: Vec<String>,
    /// Contact spheres.
    #[serde(default)]
    pub contacts: Vec<RobotContactSpec>,
    /// Use the URDF position limits as bounds on `q` (default true).
    #[serde(default = "yes")]
    pub joint_limits: bool,
    /// Use the URDF effort limits as bounds on `u` (default true).
    #[serde(default = "yes")]
    pub effort_limits: bool,
}

fn yes() -> bool {
    true
}

/// A contact sphere of a robot.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RobotContactSpec {
    /// Name (default the frame name).
    #[serde(default)]
    pub name: Option<String>,
    /// Frame (link) carrying the sphere.
    pub frame: String,
    /// Centre in that frame.
    #[serde(default)]
    pub offset: [f64; 3],
    /// Radius (0: a point).
    #[serde(default)]
    pub radius: f64,
    /// Surface (default `ground: {height: 0}`).
    #[serde(default)]
    pub surface: Option<SurfaceSpec>,
    /// Friction coefficient (default `model.mu`, else 0).
    #[serde(default)]
    pub mu: Option<f64>,
    /// Restitution coefficient (default `model.restitution`, else 0).
    #[serde(default)]
    pub restitution: Option<f64>,
}

/// OCP horizon `[0, T]` with `N` control intervals.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Horizon {
    /// Horizon length.
    #[serde(rename = "T")]
    pub t: f64,
    /// Number of control intervals.
    #[serde(rename = "N")]
    pub n: usize,
}

/// Initial state.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Initial {
    /// `q_0`.
    pub q: Vec<f64>,
    /// `v_0` (default zeros).
    #[serde(default)]
    pub v: Option<Vec<f64>>,
}

/// How the tracking cost is discretised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrackingCost {
    /// nosnoc's least squares: state terms at the end of every interval, scaled by `T/N`;
    /// references are NLP parameters (one per interval; MPC changes them without rebuilding).
    #[default]
    Lsq,
    /// `∫ ‖x − x_ref‖²_Q + ‖u − u_ref‖²_R dt` by RK quadrature plus `‖x(T) − x_ref_T‖²_{Q_T}`
    /// ([P]'s examples); constant references only.
    Quadrature,
}

/// The optimal control problem.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OcpSpec {
    /// Tracking discretisation (default `lsq`).
    #[serde(default)]
    pub tracking: TrackingCost,
    /// Diagonal state weight (`2 n_q` entries or one for all).
    #[serde(default, rename = "Q")]
    pub q_weight: Option<Numbers>,
    /// Diagonal control weight (`n_u` or one).
    #[serde(default, rename = "R")]
    pub r_weight: Option<Numbers>,
    /// Diagonal terminal weight (`2 n_q` or one).
    #[serde(default, rename = "Q_T")]
    pub q_terminal: Option<Numbers>,
    /// State reference: one vector (`2 n_q`), or a list of waypoints interpolated linearly at
    /// the interval ends (times `x_ref_times`, default equally spaced over `[0, T]`).
    #[serde(default)]
    pub x_ref: Option<Vec<Numbers>>,
    /// Times of the waypoints of `x_ref`.
    #[serde(default)]
    pub x_ref_times: Option<Vec<f64>>,
    /// Repeat the waypoints of `x_ref` with this period (s) **[ours]**: their times lie in
    /// `[0, period)` (default equally spaced, `period i / n`), after the last one the reference
    /// goes back linearly to the first, and an MPC tracks it at its own clock (a gait).
    #[serde(default)]
    pub x_ref_period: Option<f64>,
    /// Control reference (`n_u`, default 0).
    #[serde(default)]
    pub u_ref: Option<Numbers>,
    /// Terminal reference (default: `x_ref`, or its last waypoint).
    #[serde(default, rename = "x_ref_T")]
    pub x_ref_terminal: Option<Vec<f64>>,
    /// Extra running cost `L(q, v, u)` (expression).
    #[serde(default)]
    pub lagrange: Option<String>,
    /// Extra terminal cost `L_T(q, v)` (expression).
    #[serde(default)]
    pub mayer: Option<String>,
    /// Boxes on `u`, `q`, `v`.
    #[serde(default)]
    pub bounds: BoundsSpec,
    /// Path constraints `lb ≤ g(q, v, u) ≤ ub` (default `ub = 0`, `lb = -inf`).
    #[serde(default)]
    pub path: Option<ConstraintSpec>,
    /// Terminal constraints `lb ≤ g_T(q, v) ≤ ub` (default `lb = ub = 0`).
    #[serde(default)]
    pub terminal: Option<ConstraintSpec>,
    /// A staged start of `fesdj solve` **[ours]**, see [`StartSpec`].
    #[serde(default)]
    pub start: Option<StartSpec>,
    /// Periodicity `x(T) = A x(0) + s` with a partly free initial state **[ours]**, see
    /// [`PeriodicSpec`] (`fesdj solve` and the gait library only).
    #[serde(default)]
    pub periodic: Option<PeriodicSpec>,
}

/// Periodicity of an OCP **[ours]** (formulation §10.9): the state at `T` equals the state at
/// 0 moved by `shift` and turned by `rotate`; the initial state is free except the components
/// named in `fixed`, which stay at `initial`. State components are named by the coordinate and
/// velocity names (`root_x`, `v_root_x`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeriodicSpec {
    /// Components of `x(0)` that stay at `initial` (default none).
    #[serde(default)]
    pub fixed: Vec<String>,
    /// `s` by name (the others 0).
    #[serde(default)]
    pub shift: std::collections::BTreeMap<String, f64>,
    /// Planar rotations of pairs of components.
    #[serde(default)]
    pub rotate: Vec<RotateSpec>,
}

/// `(x, y)(T) = R(angle) (x, y)(0) + (s_x, s_y)` for two named state components.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RotateSpec {
    /// First component (e.g. `v_root_x`).
    pub x: String,
    /// Second component (e.g. `v_root_y`).
    pub y: String,
    /// Angle (rad).
    pub angle: f64,
}

/// A staged start of `fesdj solve` **[ours]**: the OCP is first solved from the default guess
/// with the controls of its first intervals fixed to `fixed_controls`, then they get their
/// bounds back and the OCP is solved again from that point with σ₀ = `release_sigma0`. The first
/// solve need not converge; its point only steers the second into the local optimum near the
/// given controls (three boxes: [P]'s own optimum from its first seven controls). Used by
/// `fesdj solve` only (the MPC warm-starts every solve from its last plan).
///
/// ```yaml
/// ocp:
///   start: {fixed_controls: [6, -25.5, 7], release_sigma0: 5.0e-3}   # u_0, u_1, u_2 (n_u = 1)
/// ```
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartSpec {
    /// Controls of intervals `0, 1, …` (each `n_u` entries, or one number for all).
    pub fixed_controls: Vec<Numbers>,
    /// σ₀ of the second solve.
    pub release_sigma0: f64,
}

/// Boxes on controls and states.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BoundsSpec {
    /// On every `û_k`.
    pub u: Option<BoxSpec>,
    /// On `q`.
    pub q: Option<BoxSpec>,
    /// On `v`.
    pub v: Option<BoxSpec>,
}

/// A box: `lb`, `ub` and/or the symmetric `abs` (each a vector or one number for all).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BoxSpec {
    /// Lower bounds (default `-inf`).
    pub lb: Option<Numbers>,
    /// Upper bounds (default `+inf`).
    pub ub: Option<Numbers>,
    /// `[-abs, abs]` (not together with `lb`/`ub`).
    pub abs: Option<Numbers>,
}

/// Constraint expressions with bounds.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConstraintSpec {
    /// The expressions.
    pub g: Vec<String>,
    /// Lower bounds.
    #[serde(default)]
    pub lb: Option<Numbers>,
    /// Upper bounds.
    #[serde(default)]
    pub ub: Option<Numbers>,
}

/// Simulation: `N_sim` one-interval problems over `T_sim / N_sim` each.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSpec {
    /// Simulated time.
    #[serde(rename = "T_sim")]
    pub t_sim: f64,
    /// Number of steps.
    #[serde(rename = "N_sim")]
    pub n_sim: usize,
    /// Controls: one vector for all steps, or one per step (default 0).
    #[serde(default)]
    pub u: Option<Vec<Numbers>>,
    /// Bounds on every computed speed `|v_i|`, one per coordinate or one for all (default
    /// none): a guard against the spurious fast roots of long implicit steps
    /// (`Simulator::set_speed_limits`).
    #[serde(default)]
    pub max_speed: Option<Numbers>,
    /// A step whose attempts all fail is integrated again in this many FESD-J sub-steps of the
    /// same options (`Simulator::set_fallback`; default none). At least 2.
    #[serde(default)]
    pub fallback_substeps: Option<usize>,
}

/// A number or an expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// A number.
    Num(f64),
    /// An expression.
    Text(String),
}

/// An entry or a row of entries (matrices given as diagonals or rows).
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// One entry.
    Entry(Entry),
    /// A row.
    Row(Vec<Entry>),
}

/// One number or a list of numbers.
#[derive(Clone, Debug, PartialEq)]
pub enum Numbers {
    /// One number (broadcast where a vector is expected).
    One(f64),
    /// A list.
    List(Vec<f64>),
}

/// Parameters in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params(pub Vec<(String, Entry)>);

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number or an expression string")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Entry, E> {
        Ok(Entry::Num(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Entry, E> {
        Ok(Entry::Num(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Entry, E> {
        Ok(Entry::Num(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Entry, E> {
        Ok(Entry::Text(v.to_string()))
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Entry, D::Error> {
        d.deserialize_any(EntryVisitor)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = Item;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number, an expression string or a list of them")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Item, E> {
        EntryVisitor.visit_i64(v).map(Item::Entry)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Item, E> {
        EntryVisitor.visit_u64(v).map(Item::Entry)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Item, E> {
        EntryVisitor.visit_f64(v).map(Item::Entry)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Item, E> {
        EntryVisitor.visit_str(v).map(Item::Entry)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Item, A::Error> {
        let mut row = Vec::new();
        while let Some(e) = seq.next_element::<Entry>()? {
            row.push(e);
        }
        Ok(Item::Row(row))
    }
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Item, D::Error> {
        d.deserialize_any(ItemVisitor)
    }
}

struct NumbersVisitor;

impl<'de> Visitor<'de> for NumbersVisitor {
    type Value = Numbers;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number or a list of numbers")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Numbers, E> {
        Ok(Numbers::One(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Numbers, E> {
        Ok(Numbers::One(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Numbers, E> {
        Ok(Numbers::One(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Numbers, A::Error> {
        let mut out = Vec::new();
        while let Some(x) = seq.next_element::<f64>()? {
            out.push(x);
        }
        Ok(Numbers::List(out))
    }
}

impl<'de> Deserialize<'de> for Numbers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Numbers, D::Error> {
        d.deserialize_any(NumbersVisitor)
    }
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Params;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping of parameter names to numbers or expressions")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Params, E> {
        Ok(Params::default())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Params, A::Error> {
        let mut out = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Entry>()? {
            out.push((k, v));
        }
        Ok(Params(out))
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Params, D::Error> {
        d.deserialize_any(ParamsVisitor)
    }
}
