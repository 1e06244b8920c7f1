//! A test double for the controller: plans from an analytic function of the state.
//!
//! Not a controller. With state (q0, v0) at stamp s it returns K = N + 1 points at t_k = k·h
//! (h = T/N): q_k = q0 + v0·t_k, v_k = v0, u_k = −KP·q_k − KD·v0, and the effort command
//! −KP·q0 − KD·v0 in effort-joint order. `tools/dds_peer.py` checks received plans against the
//! same formulas, so every number on the wire can be traced to the state it came from.

use fesdj_mpc::ros::{JointPlan, PlanProvider, PlanStatus, ProviderError, RobotState};

/// Proportional gain of the formula.
pub const KP: f64 = 10.0;
/// Damping gain of the formula.
pub const KD: f64 = 1.0;

/// The analytic test double.
pub struct AnalyticPlanner {
    /// Grid intervals.
    pub n: usize,
    /// Horizon length (s).
    pub horizon: f64,
    /// For each effort joint, its index among the joints.
    pub effort_index: Vec<usize>,
    q0: Vec<f64>,
    v0: Vec<f64>,
    /// States received through `on_state`, in order (stamp sec, nanosec, q0), when
    /// `record_states` is on.
    pub seen: Vec<(i32, u32, Vec<f64>)>,
    /// Whether to keep `seen` (off for the soak test, whose memory must stay flat).
    pub record_states: bool,
    /// Calls of `reset`.
    pub resets: usize,
    /// Last value given to `enable`.
    pub enabled: Option<bool>,
    /// When set, `plan` fails with this message.
    pub fail_with: Option<String>,
}

impl AnalyticPlanner {
    /// For `joints` with the effort command in `effort_joints` order.
    pub fn new(joints: &[&str], effort_joints: &[&str], n: usize, horizon: f64) -> AnalyticPlanner {
        let effort_index = effort_joints
            .iter()
            .map(|e| {
                joints
                    .iter()
                    .position(|j| j == e)
                    .expect("effort joint among the joints")
            })
            .collect();
        AnalyticPlanner {
            n,
            horizon,
            effort_index,
            q0: vec![0.0; joints.len()],
            v0: vec![0.0; joints.len()],
            seen: Vec::new(),
            record_states: true,
            resets: 0,
            enabled: None,
            fail_with: None,
        }
    }
}

impl PlanProvider for AnalyticPlanner {
    fn on_state(&mut self, state: &RobotState) {
        self.q0.copy_from_slice(&state.position);
        self.v0.copy_from_slice(&state.velocity);
        if self.record_states {
            self.seen
                .push((state.stamp.sec, state.stamp.nanosec, state.position.clone()));
        }
    }

    fn plan(&mut self, plan: &mut JointPlan) -> Result<(), ProviderError> {
        if let Some(msg) = &self.fail_with {
            return Err(msg.clone().into());
        }
        let nj = self.q0.len();
        let k = self.n + 1;
        let h = self.horizon / self.n as f64;
        plan.resize(k, nj, self.effort_index.len());
        for i in 0..k {
            let t = i as f64 * h;
            plan.times[i] = t;
            for j in 0..nj {
                let q = self.q0[j] + self.v0[j] * t;
                plan.q[i * nj + j] = q;
                plan.v[i * nj + j] = self.v0[j];
                plan.u[i * nj + j] = -KP * q - KD * self.v0[j];
            }
        }
        for (e, &j) in self.effort_index.iter().enumerate() {
            plan.effort[e] = -KP * self.q0[j] - KD * self.v0[j];
        }
        plan.status = PlanStatus::Solved;
        plan.stats.solve_time = 0.001;
        plan.stats.homotopy_steps = 3;
        plan.stats.iterations = 12;
        Ok(())
    }

    fn reset(&mut self) -> Result<(), ProviderError> {
        self.resets += 1;
        Ok(())
    }

    fn enable(&mut self, enabled: bool) -> Result<(), ProviderError> {
        self.enabled = Some(enabled);
        Ok(())
    }
}
