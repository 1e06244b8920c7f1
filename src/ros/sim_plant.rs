//! [`SimulatedRobot`]: the node's internal plant (`sim: true`), a [`Plant`] in the model's
//! coordinates seen through the node's joint and effort order. The node steps it every tick
//! with the effort it published during the last period and publishes its state on
//! `joint_states`.

use super::mpc_provider::JointMap;
use super::provider::{ProviderError, RobotState};
use crate::mpc::Plant;

/// A [`Plant`] with the state it is in and the node's joint map.
pub struct SimulatedRobot {
    plant: Box<dyn Plant>,
    map: JointMap,
    /// The plant's state `(q, v)`.
    x: Vec<f64>,
    /// The control of the next step (the model's inputs).
    u: Vec<f64>,
}

impl std::fmt::Debug for SimulatedRobot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimulatedRobot")
            .field("x", &self.x)
            .finish_non_exhaustive()
    }
}

impl SimulatedRobot {
    /// `plant` starting at `x0 = (q, v)` with `n_u` controls; joints and efforts mapped by
    /// `map`.
    pub fn new(plant: Box<dyn Plant>, x0: Vec<f64>, n_u: usize, map: JointMap) -> SimulatedRobot {
        SimulatedRobot {
            plant,
            map,
            x: x0,
            u: vec![0.0; n_u],
        }
    }

    /// The plant's state in the model's coordinates.
    pub fn state(&self) -> &[f64] {
        &self.x
    }

    /// Write the plant's positions and velocities in `joint_names` order (`stamp` is set by
    /// the node).
    pub fn write_state(&self, state: &mut RobotState) {
        let (q, v) = self.x.split_at(self.map.n_q);
        for (j, &c) in self.map.joint_coord.iter().enumerate() {
            state.position[j] = q[c];
            state.velocity[j] = v[c];
        }
    }

    /// Advance the plant by one step with `effort` (effort-joint order; non-finite entries
    /// count as 0, controls without an effort joint are 0).
    pub fn step(&mut self, effort: &[f64]) -> Result<(), ProviderError> {
        self.u.iter_mut().for_each(|u| *u = 0.0);
        for (&e, &c) in effort.iter().zip(&self.map.effort_control) {
            if let Some(u) = self.u.get_mut(c) {
                *u = if e.is_finite() { e } else { 0.0 };
            }
        }
        let r = self.plant.step(&self.x, &self.u)?;
        self.x.copy_from_slice(self.plant.state());
        if !r.converged() {
            return Err(format!("plant step did not converge ({:?})", r.status).into());
        }
        Ok(())
    }
}
