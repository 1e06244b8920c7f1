//! The plan a controller hands out: the predicted trajectory of one verified solve.

use serde::Serialize;

use crate::fesdj::Layout;
use crate::solver::Status;

/// Where the current plan comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanSource {
    /// Verified solution of the last solve.
    Fresh,
    /// The last solve failed or missed its deadline; this is the previous verified plan, still
    /// within its horizon.
    Previous,
    /// No verified plan covers the current time: the fallback law is in charge.
    Fallback,
}

/// A plan: grid times (relative to `t0`), predicted states, piecewise-constant controls and
/// predicted normal contact forces, with the statistics of the solve that produced it. All
/// buffers are sized once for the problem's layout.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// Time of the measured state the plan starts from.
    pub t0: f64,
    /// Where the plan comes from.
    pub source: PlanSource,
    /// Solver status of the solve that produced the plan (for `Previous`/`Fallback` plans the
    /// status of the last, failed, attempt is in [`Plan::last_attempt`]).
    pub status: Status,
    /// Status of the most recent solve attempt.
    pub last_attempt: Status,
    /// Number of coordinates.
    pub n_q: usize,
    /// Number of controls.
    pub n_u: usize,
    /// Number of contacts.
    pub n_c: usize,
    /// Element-boundary times relative to `t0` (`1 + N·N_FE` points; variable steps).
    pub times: Vec<f64>,
    /// Predicted positions at those points, row-major (`points × n_q`; post-impact values).
    pub q: Vec<f64>,
    /// Predicted velocities, row-major.
    pub v: Vec<f64>,
    /// Start of every control interval relative to `t0`, and the horizon end (`N + 1`).
    pub t_u: Vec<f64>,
    /// Controls per interval, row-major (`N × n_u`).
    pub u: Vec<f64>,
    /// Predicted normal contact force per element (last stage), row-major (`N·N_FE × n_c`).
    pub lambda_n: Vec<f64>,
    /// Wall-clock time of the solve, seconds.
    pub solve_time_s: f64,
    /// Homotopy steps of the solve.
    pub homotopy_steps: usize,
    /// Interior-point iterations of the solve.
    pub nlp_iterations: usize,
    /// `max_i G_i H_i` of the solution (spec §5.5, the FESD-J homotopy's stop measure).
    pub comp_residual: f64,
}

impl Plan {
    /// An empty plan sized for `layout` with `n_u` controls and `n_c` contacts.
    pub fn sized(layout: &Layout, n_u: usize, n_c: usize) -> Plan {
        let n_el: usize = (0..layout.n_intervals()).map(|k| layout.n_fe(k)).sum();
        let n_pts = n_el + 1;
        let n_int = layout.n_intervals();
        Plan {
            t0: 0.0,
            source: PlanSource::Fallback,
            status: Status::MaxIterations,
            last_attempt: Status::MaxIterations,
            n_q: layout.n_q,
            n_u,
            n_c,
            times: vec![0.0; n_pts],
            q: vec![0.0; n_pts * layout.n_q],
            v: vec![0.0; n_pts * layout.n_q],
            t_u: vec![0.0; n_int + 1],
            u: vec![0.0; n_int * n_u],
            lambda_n: vec![0.0; n_el * n_c],
            solve_time_s: 0.0,
            homotopy_steps: 0,
            nlp_iterations: 0,
            comp_residual: f64::INFINITY,
        }
    }

    /// Fill from a solution vector `w` of the problem with `layout` (no allocation).
    pub(crate) fn fill(&mut self, layout: &Layout, w: &[f64], t0: f64) {
        let n_q = layout.n_q;
        self.t0 = t0;
        let mut t = 0.0;
        let mut p = 0;
        let mut el = 0;
        // First point: the initial state.
        for (i, (&iq, &iv)) in layout.x0_q.iter().zip(&layout.x0_v).enumerate() {
            self.q[i] = w[iq];
            self.v[i] = w[iv];
        }
        self.times[0] = 0.0;
        for k in 0..layout.n_intervals() {
            self.t_u[k] = t;
            for (i, &iu) in layout.u(k).iter().enumerate() {
                self.u[k * self.n_u + i] = w[iu];
            }
            for n in 0..layout.n_fe(k) {
                let e = layout.element(k, n);
                let h = e.h.map_or(layout.h_nominal, |ih| w[ih]);
                t += h;
                p += 1;
                let (qe, ve) = layout.element_end(k, n);
                for i in 0..n_q {
                    self.q[p * n_q + i] = w[qe[i]];
                    self.v[p * n_q + i] = w[ve[i]];
                }
                self.times[p] = t;
                if let Some(last) = e.stages.last() {
                    for (l, &il) in last.lambda_n.iter().enumerate().take(self.n_c) {
                        self.lambda_n[el * self.n_c + l] = w[il];
                    }
                }
                el += 1;
            }
        }
        let n_int = layout.n_intervals();
        self.t_u[n_int] = t;
    }

    /// Length of the horizon (seconds after `t0`).
    pub fn horizon(&self) -> f64 {
        self.t_u.last().copied().unwrap_or(0.0)
    }

    /// True if absolute time `t` lies inside the plan's horizon.
    pub fn covers(&self, t: f64) -> bool {
        self.source != PlanSource::Fallback && t >= self.t0 && t < self.t0 + self.horizon()
    }

    /// Control of the interval containing absolute time `t` (clamped to the horizon).
    pub fn control_at(&self, t: f64) -> &[f64] {
        let rel = t - self.t0;
        let n_int = self.t_u.len().saturating_sub(1);
        let mut k = 0;
        while k + 1 < n_int && rel >= self.t_u[k + 1] {
            k += 1;
        }
        &self.u[k * self.n_u..(k + 1) * self.n_u]
    }

    /// Predicted position and velocity of coordinate `c` at absolute time `t`, linear in time
    /// between the grid points (clamped to the horizon; at an impact point, where two grid
    /// points share a time, the post-impact values).
    pub fn state_at(&self, t: f64, c: usize) -> (f64, f64) {
        let rel = t - self.t0;
        let n = self.times.len();
        if n == 0 || c >= self.n_q {
            return (0.0, 0.0);
        }
        let mut p = 0;
        while p + 2 < n && rel >= self.times[p + 1] {
            p += 1;
        }
        let at = |k: usize| (self.q[k * self.n_q + c], self.v[k * self.n_q + c]);
        if n == 1 {
            return at(0);
        }
        let (t_a, t_b) = (self.times[p], self.times[p + 1]);
        let s = if t_b > t_a {
            ((rel - t_a) / (t_b - t_a)).clamp(0.0, 1.0)
        } else {
            1.0
        };
        let ((qa, va), (qb, vb)) = (at(p), at(p + 1));
        (qa + s * (qb - qa), va + s * (vb - va))
    }

    /// Predicted positions at grid point `p`.
    pub fn q_at(&self, p: usize) -> &[f64] {
        &self.q[p * self.n_q..(p + 1) * self.n_q]
    }

    /// Predicted velocities at grid point `p`.
    pub fn v_at(&self, p: usize) -> &[f64] {
        &self.v[p * self.n_q..(p + 1) * self.n_q]
    }

    /// Number of grid points.
    pub fn n_points(&self) -> usize {
        self.times.len()
    }
}
