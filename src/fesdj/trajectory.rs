//! The result of a FESD-J solve or simulation: grid, states, controls, contact forces,
//! impulses and detected switches (the `OUT.json` contract of the `fesdj solve` and
//! `fesdj simulate` commands).
//!
//! Field names are the contract: `status`, `objective`, `comp_residual`, `solve_time_s`, `t`,
//! `q`, `v`, `u`, `stage_forces`, `impacts` (`{t, contact, Lambda_n}`), `final` (`{q, v}`).

use serde::Serialize;

use crate::solver::Status;

/// Default threshold above which a normal impulse `Λ_n` counts as an impact.
///
/// The homotopy stops at `σ ≈ 1e-9` (`r_⊥ = max G_i H_i ≤ 1e-9`, §5.4). Where a pair is
/// biactive — `Λ_n ⊥ Y + Υ_+ + Υ_−` in persistent contact, where `Y = Υ± = 0` — the relaxed
/// solution keeps both members at `≈ √σ ≈ 3e-5` (§1.5, §8.6), so a threshold must lie well
/// above `√σ` and well below physical impulses (the spec's smallest are `≈ 0.1`, §6.2).
pub const DEFAULT_IMPACT_THRESHOLD: f64 = 1e-3;
/// Default threshold on `Σ_j λ_{n,j}` above which a contact counts as closed (loaded) in an
/// element, and on the tangential speed `‖J_tᵀ v‖` above which a closed contact slips (the
/// same `√σ` argument: in stick without tangential load `λ_d ⊥ δ_d` is biactive, so
/// `|v_t| ≈ √σ`).
pub const DEFAULT_STATE_THRESHOLD: f64 = 1e-3;

/// A positive normal impulse at a grid point (§2.5, (17)).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Impact {
    /// Time of the grid point.
    pub t: f64,
    /// Contact index `ℓ`.
    pub contact: usize,
    /// Normal impulse `Λ_n^ℓ`.
    #[serde(rename = "Lambda_n")]
    pub lambda_n: f64,
    /// Tangential impulse `Λ_t^ℓ` (coefficients of `J_t^ℓ`; `Λ_d⁺ − Λ_d⁻` for the polyhedral
    /// model; empty for a frictionless contact).
    #[serde(rename = "Lambda_t")]
    pub lambda_t: Vec<f64>,
}

/// What changed at a grid point (§3.7, Tables 1 and 2 of §3.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SwitchKind {
    /// A normal impulse (elastic or inelastic impact).
    Impact,
    /// The contact force switches on (contact closes and stays closed).
    ContactMaking,
    /// The contact force switches off.
    ContactBreaking,
    /// A loaded contact stops slipping.
    SlipToStick,
    /// A loaded contact starts slipping.
    StickToSlip,
    /// The slip direction of a planar contact reverses.
    SlipReversal,
}

/// A detected switch.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Switch {
    /// Time of the grid point.
    pub t: f64,
    /// Contact index.
    pub contact: usize,
    /// What switched.
    pub kind: SwitchKind,
}

/// Contact forces at the RK stage points (§3.1), one sample per stage point.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StageForces {
    /// Stage times `t_n + c_j h_n`.
    pub t: Vec<f64>,
    /// Normal forces `λ_n` per sample (`n_c` each). In time stepping (§4.7) these are the
    /// impulses over the step divided by `h̄`, i.e. forces too.
    pub lambda_n: Vec<Vec<f64>>,
    /// Tangential forces per sample: for every contact with friction, in contact order, its
    /// `n_t` coefficients of `J_t^ℓ` (`λ_d⁺ − λ_d⁻` polyhedral, `λ_t` conic).
    pub lambda_t: Vec<Vec<f64>>,
}

/// The state at the end time.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FinalState {
    /// `q(T)`.
    pub q: Vec<f64>,
    /// `v(T)`.
    pub v: Vec<f64>,
}

/// A FESD-J trajectory (one OCP solve, or a whole simulation).
#[derive(Clone, Debug, Serialize)]
pub struct Trajectory {
    /// Solver status (the worst step status for a simulation: the first failed step's).
    pub status: Status,
    /// Objective of the MPCC (summed over the steps of a simulation).
    pub objective: f64,
    /// Complementarity residual `max_i G_i H_i` of the unrelaxed pairs (§5.5; max over the
    /// steps of a simulation).
    pub comp_residual: f64,
    /// The solver's stop measure `max_i min(G_i, H_i)`.
    pub comp_residual_min: f64,
    /// Wall time of the solve(s), seconds.
    pub solve_time_s: f64,
    /// Interior-point iterations (total).
    pub nlp_iterations: usize,
    /// Relaxed NLPs solved (total).
    pub homotopy_steps: usize,
    /// Grid times: at every element boundary `t_n` two samples, the pre-impact `(q_n, v_n)`
    /// and the post-impact `(q_{n,0}, v_{n,0})` (§4.6), then the end time once. Variable step
    /// sizes make the grid non-uniform.
    pub t: Vec<f64>,
    /// Positions at `t`.
    pub q: Vec<Vec<f64>>,
    /// Velocities at `t`.
    pub v: Vec<Vec<f64>>,
    /// Start times of the control intervals (simulation: of the steps).
    pub t_u: Vec<f64>,
    /// Piecewise-constant controls `û_k`, one per control interval (simulation: per step).
    pub u: Vec<Vec<f64>>,
    /// Contact forces at the stage points.
    pub stage_forces: StageForces,
    /// Every grid point with a normal impulse above `impact_threshold`.
    pub impacts: Vec<Impact>,
    /// The impulse threshold used for `impacts` and impact switches.
    pub impact_threshold: f64,
    /// Detected switches (impacts, contact making/breaking, stick/slip), in time order.
    pub switches: Vec<Switch>,
    /// The distinct times of `switches`.
    pub switch_times: Vec<f64>,
    /// State at the end time.
    #[serde(rename = "final")]
    pub final_state: FinalState,
    /// Simulation only: number of steps whose solve failed after the retry (§4.6).
    pub failed_steps: usize,
    /// Simulation only: number of steps that needed the retry guess.
    pub retried_steps: usize,
}

/// Contact state of one contact during one finite element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ContactState {
    /// No contact force.
    Open,
    /// Loaded, tangential velocity zero (or frictionless contact).
    Stick,
    /// Loaded and slipping; for planar contacts with the sign of `v_t`.
    Slip(i8),
}

/// Collects the samples of consecutive finite elements (of one solve or many simulation
/// steps) and derives impacts and switches.
#[derive(Debug, Default)]
pub(crate) struct TrajectoryBuilder {
    pub t: Vec<f64>,
    pub q: Vec<Vec<f64>>,
    pub v: Vec<Vec<f64>>,
    pub t_u: Vec<f64>,
    pub u: Vec<Vec<f64>>,
    pub forces: StageForces,
    pub impacts: Vec<Impact>,
    /// Per element: start time and per-contact state.
    pub element_t: Vec<f64>,
    pub element_states: Vec<Vec<ContactState>>,
    pub impact_threshold: f64,
}

impl TrajectoryBuilder {
    pub fn new(impact_threshold: f64) -> TrajectoryBuilder {
        TrajectoryBuilder {
            impact_threshold,
            ..Default::default()
        }
    }

    /// Reserve room for `n_el` elements with `n_s` stages each.
    pub fn reserve(&mut self, n_el: usize, n_s: usize) {
        self.t.reserve(2 * n_el + 1);
        self.q.reserve(2 * n_el + 1);
        self.v.reserve(2 * n_el + 1);
        self.forces.t.reserve(n_el * n_s);
        self.forces.lambda_n.reserve(n_el * n_s);
        self.forces.lambda_t.reserve(n_el * n_s);
        self.element_t.reserve(n_el);
        self.element_states.reserve(n_el);
    }

    /// Detect switches at the interior element boundaries and at impacts.
    fn switches(&self) -> Vec<Switch> {
        let mut out = Vec::new();
        for imp in &self.impacts {
            out.push(Switch {
                t: imp.t,
                contact: imp.contact,
                kind: SwitchKind::Impact,
            });
        }
        for i in 1..self.element_states.len() {
            let t = self.element_t[i];
            let (a, b) = (&self.element_states[i - 1], &self.element_states[i]);
            for (l, (&sa, &sb)) in a.iter().zip(b).enumerate() {
                use ContactState::*;
                let kind = match (sa, sb) {
                    (Open, Open) | (Stick, Stick) => None,
                    (Slip(x), Slip(y)) => {
                        (x != y && x != 0 && y != 0).then_some(SwitchKind::SlipReversal)
                    }
                    (Open, _) => Some(SwitchKind::ContactMaking),
                    (_, Open) => Some(SwitchKind::ContactBreaking),
                    (Slip(_), Stick) => Some(SwitchKind::SlipToStick),
                    (Stick, Slip(_)) => Some(SwitchKind::StickToSlip),
                };
                if let Some(kind) = kind {
                    out.push(Switch {
                        t,
                        contact: l,
                        kind,
                    });
                }
            }
        }
        out.sort_by(|a, b| a.t.total_cmp(&b.t).then(a.contact.cmp(&b.contact)));
        out
    }

    /// Finish with the end state and the solver statistics.
    pub fn finish(self, end_t: f64, fin: FinalState, stats: &SolveStats) -> Trajectory {
        let switches = self.switches();
        let mut switch_times: Vec<f64> = switches.iter().map(|s| s.t).collect();
        switch_times.dedup_by(|a, b| (*a - *b).abs() <= 1e-12 * (1.0 + b.abs()));
        let (mut t, mut q, mut v) = (self.t, self.q, self.v);
        t.push(end_t);
        q.push(fin.q.clone());
        v.push(fin.v.clone());
        Trajectory {
            status: stats.status,
            objective: stats.objective,
            comp_residual: stats.comp_residual,
            comp_residual_min: stats.comp_residual_min,
            solve_time_s: stats.solve_time_s,
            nlp_iterations: stats.nlp_iterations,
            homotopy_steps: stats.homotopy_steps,
            t,
            q,
            v,
            t_u: self.t_u,
            u: self.u,
            stage_forces: self.forces,
            impacts: self.impacts,
            impact_threshold: self.impact_threshold,
            switches,
            switch_times,
            final_state: fin,
            failed_steps: stats.failed_steps,
            retried_steps: stats.retried_steps,
        }
    }
}

/// Solver statistics of one solve or accumulated over a simulation.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SolveStats {
    /// Status (simulation: the first failure, else `Solved`).
    pub status: Status,
    /// Objective (summed).
    pub objective: f64,
    /// `max_i G_i H_i` (max).
    pub comp_residual: f64,
    /// `max_i min(G_i, H_i)` (max).
    pub comp_residual_min: f64,
    /// Wall time, seconds (summed).
    pub solve_time_s: f64,
    /// Interior-point iterations (summed).
    pub nlp_iterations: usize,
    /// Relaxed NLPs (summed).
    pub homotopy_steps: usize,
    /// Failed simulation steps.
    pub failed_steps: usize,
    /// Simulation steps that used the retry guess.
    pub retried_steps: usize,
}

impl SolveStats {
    /// Statistics of nothing solved yet (status `Solved`, zeros).
    pub fn empty() -> SolveStats {
        SolveStats {
            status: Status::Solved,
            objective: 0.0,
            comp_residual: 0.0,
            comp_residual_min: 0.0,
            solve_time_s: 0.0,
            nlp_iterations: 0,
            homotopy_steps: 0,
            failed_steps: 0,
            retried_steps: 0,
        }
    }

    /// Add the statistics of one more step.
    pub fn accumulate(&mut self, s: &SolveStats) {
        if self.status.is_success() && !s.status.is_success() {
            self.status = s.status;
        }
        self.objective += s.objective;
        self.comp_residual = self.comp_residual.max(s.comp_residual);
        self.comp_residual_min = self.comp_residual_min.max(s.comp_residual_min);
        self.solve_time_s += s.solve_time_s;
        self.nlp_iterations += s.nlp_iterations;
        self.homotopy_steps += s.homotopy_steps;
        self.failed_steps += s.failed_steps;
        self.retried_steps += s.retried_steps;
    }
}
