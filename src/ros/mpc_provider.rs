//! [`MpcProvider`]: the [`PlanProvider`] of `fesdj_node` over an [`mpc::Controller`]; the
//! [`JointMap`] between the model's coordinates and the node's joint and effort order.
//!
//! The provider never publishes an unverified plan: the controller verifies every solve, a plan
//! is handed out only when it is fresh or the remainder of the last verified one; when only the
//! fallback law is in charge, `plan` fails (no trajectory) and the fallback effort is published
//! through [`PlanProvider::failure_effort`].

use std::time::Duration;

use super::msg::Time;
use super::plan_view::{PlanKinematics, PlanView};
use super::provider::{JointPlan, PlanProvider, PlanStatus, ProviderError, RobotState};
use super::validate::StateFault;
use crate::model::zyx_from_odometry;
use crate::mpc::{self, PlanSource};
use crate::solver::Status;

/// Where the node's joints and efforts are in the model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointMap {
    /// Coordinate of every joint (`joint_names` order).
    pub joint_coord: Vec<usize>,
    /// Control of every effort joint (`effort_joints` order).
    pub effort_control: Vec<usize>,
    /// Coordinate driven by each control.
    pub actuated: Vec<usize>,
    /// `floating_base`: the coordinates of the six base coordinates (set from odom).
    pub base_coord: Option<[usize; 6]>,
    /// Number of coordinates of the model.
    pub n_q: usize,
}

impl JointMap {
    /// Controls `u` (the model's inputs) in effort-joint order: effort joint `j` takes input
    /// `effort_control[j]`.
    pub fn to_efforts(&self, u: &[f64], effort: &mut [f64]) {
        for (e, &c) in effort.iter_mut().zip(&self.effort_control) {
            *e = u.get(c).copied().unwrap_or(0.0);
        }
    }
}

/// The [`PlanProvider`] of `fesdj_node`: an MPC controller.
pub struct MpcProvider {
    controller: mpc::Controller,
    map: JointMap,
    q: Vec<f64>,
    v: Vec<f64>,
    t: f64,
    /// How long one solve may take (the problem file's `mpc.deadline_s`).
    budget: Duration,
    t_origin: Option<Time>,
    /// The controller's time at `t_origin` (after a reset: where the last run left off, so
    /// that the controller's time never goes back when the stamps start over).
    t_base: f64,
    have_state: bool,
    enabled: bool,
    /// Why the last odom could not be mapped to the base coordinates.
    base_fault: Option<&'static str>,
    /// Kinematics of a URDF robot for [`PlanProvider::plan_view`].
    kinematics: Option<PlanKinematics>,
    /// The last handed-out plan's first point in the controller's plan and its time shift.
    view_first: usize,
    view_shift: f64,
}

impl std::fmt::Debug for MpcProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpcProvider")
            .field("controller", &self.controller)
            .finish_non_exhaustive()
    }
}

impl MpcProvider {
    /// A provider over `controller` with joints and efforts mapped by `map`; each solve may
    /// take `budget`; `enabled` as `start_enabled`.
    pub fn new(
        controller: mpc::Controller,
        map: JointMap,
        budget: Duration,
        enabled: bool,
    ) -> MpcProvider {
        let n_q = map.n_q;
        MpcProvider {
            controller,
            map,
            q: vec![0.0; n_q],
            v: vec![0.0; n_q],
            t: 0.0,
            budget,
            t_origin: None,
            t_base: 0.0,
            have_state: false,
            enabled,
            base_fault: None,
            kinematics: None,
            view_first: 0,
            view_shift: 0.0,
        }
    }

    /// With the robot's kinematics the provider describes its plans for RViz
    /// ([`PlanProvider::plan_view`]); its contacts must be the problem's, in order.
    pub fn with_plan_kinematics(mut self, kinematics: PlanKinematics) -> MpcProvider {
        self.kinematics = Some(kinematics);
        self
    }

    /// The controller (counters, current plan).
    pub fn controller(&self) -> &mpc::Controller {
        &self.controller
    }

    /// The joint map.
    pub fn joint_map(&self) -> &JointMap {
        &self.map
    }

    /// Whether the node has enabled it.
    pub fn is_enabled(&self) -> bool {
        self.enabled
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
        self.map.to_efforts(u, effort);
        Ok(())
    }

    fn seconds(&mut self, stamp: Time) -> f64 {
        let origin = *self.t_origin.get_or_insert(stamp);
        self.t_base + (stamp.to_nanos() - origin.to_nanos()) as f64 * 1e-9
    }
}

impl PlanProvider for MpcProvider {
    fn on_state(&mut self, state: &RobotState) {
        for (j, &c) in self.map.joint_coord.iter().enumerate() {
            self.q[c] = state.position[j];
            self.v[c] = state.velocity[j];
        }
        self.base_fault = None;
        if let (Some(bc), Some(b)) = (self.map.base_coord, &state.base) {
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

    fn plan(&mut self, plan: &mut JointPlan) -> Result<(), ProviderError> {
        if !self.have_state {
            return Err("no state".into());
        }
        if let Some(why) = self.base_fault {
            return Err(why.into());
        }
        self.controller.set_state(self.t, &self.q, &self.v)?;
        // The problem file's `mpc.deadline_s` bounds the solve (default one control period,
        // like the node's tick; a longer one lets a cold start finish at the cost of tick
        // overruns).
        let p = self.controller.solve(self.budget)?;
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
        let nj = self.map.joint_coord.len();
        plan.resize(k, nj, self.map.effort_control.len());
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
            for (j, &c) in self.map.joint_coord.iter().enumerate() {
                plan.q[i * nj + j] = q[c];
                plan.v[i * nj + j] = v[c];
                plan.u[i * nj + j] = self
                    .map
                    .actuated
                    .iter()
                    .position(|&a| a == c)
                    .map_or(0.0, |ui| u[ui]);
            }
        }
        self.view_first = first;
        self.view_shift = shift;
        plan.status = status;
        plan.stats.solve_time = p.solve_time_s;
        plan.stats.homotopy_steps = p.homotopy_steps as u32;
        plan.stats.iterations = p.nlp_iterations as u32;
        plan.stats.deadline_missed = p.last_attempt == Status::MaxTime;
        Ok(self.write_command(&mut plan.effort)?)
    }

    fn set_velocity_command(&mut self, cmd: [f64; 3]) -> bool {
        self.controller.set_base_velocity(Some(cmd)).is_ok()
    }

    fn plan_view(&mut self, view: &mut PlanView) -> bool {
        let Some(kin) = self.kinematics.as_mut() else {
            return false;
        };
        let p = self.controller.plan();
        if p.source == PlanSource::Fallback || self.view_first >= p.n_points() {
            return false;
        }
        let n_c = p.n_c.min(kin.n_contacts());
        let n_el = p.n_points() - 1;
        let k = p.n_points() - self.view_first;
        view.resize(k, n_c);
        for i in 0..k {
            let pt = self.view_first + i;
            view.times[i] = (p.times[pt] - self.view_shift).max(0.0);
            // The force of the element that ends at this point (the first element's at 0).
            let e = pt.saturating_sub(1).min(n_el.saturating_sub(1));
            let lambda = p.lambda_n.get(e * p.n_c..e * p.n_c + n_c).unwrap_or(&[]);
            if kin.write_point(p.q_at(pt), lambda, view, i).is_err() {
                return false;
            }
        }
        view.times.iter().all(|t| t.is_finite())
            && view.base_position.iter().flatten().all(|x| x.is_finite())
            && view
                .contact_position
                .iter()
                .flatten()
                .all(|x| x.is_finite())
            && view.contact_force.iter().flatten().all(|x| x.is_finite())
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
        self.map.to_efforts(u, effort);
        effort.iter().all(|e| e.is_finite())
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
