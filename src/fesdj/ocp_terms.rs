//! The optimal-control parts of the transcription (§4.3–§4.4): path and terminal constraints
//! and the objective (Lagrange quadrature, Mayer, LSQ tracking, step-equilibration penalties,
//! slip-rate regulariser).

use crate::ad::{Scalar, Sx};

use super::error::FesdjError;
use super::layout::FrictionIndex;
use super::mpcc::{RowInfo, RowKind};
use super::options::{ConicFormulation, FrictionModel, StepEquilibration};
use super::transcription::{sum, At, Builder};

impl Builder<'_> {
    /// Path constraints at element ends / stage points of element `(k, n)`.
    pub(crate) fn element_path_rows(&mut self, k: usize, n: usize) -> Result<(), FesdjError> {
        if self.ocp.path.is_none() {
            return Ok(());
        }
        let e = self.layout.element(k, n).clone();
        if self.o.g_path_at_stg {
            for (j, s) in e.stages.iter().enumerate() {
                let (q, v) = (self.x(&s.q), self.x(&s.v));
                let at = At {
                    k,
                    n,
                    j: Some(j + 1),
                    contact: None,
                };
                self.path_rows(&q, &v, k, at)?;
            }
        }
        let end_is_stage = self.tab.ends_at_one() && self.o.g_path_at_stg;
        if self.o.g_path_at_fe && !end_is_stage {
            let (q, v) = self.layout.element_end(k, n);
            let (q, v) = (self.x(q), self.x(v));
            let at = At {
                k,
                n,
                j: Some(self.n_s + 1),
                contact: None,
            };
            self.path_rows(&q, &v, k, at)?;
        }
        Ok(())
    }

    pub(crate) fn path_rows(
        &mut self,
        q: &[Sx],
        v: &[Sx],
        k: usize,
        at: At,
    ) -> Result<(), FesdjError> {
        let Some(c) = &self.ocp.path else {
            return Ok(());
        };
        let u = self.x(self.layout.u(k));
        let r = (c.fun)(q, v, &u);
        for (i, x) in r.into_iter().enumerate() {
            self.g.push(x);
            self.lbg.push(c.bounds.lb[i]);
            self.ubg.push(c.bounds.ub[i]);
            self.g_info.push(RowInfo {
                kind: RowKind::Path,
                interval: Some(at.k),
                element: Some(at.n),
                point: at.j,
                contact: None,
                component: i,
            });
        }
        Ok(())
    }

    pub(crate) fn terminal_rows(&mut self) -> Result<(), FesdjError> {
        let Some(c) = &self.ocp.terminal else {
            return Ok(());
        };
        let (q, v) = self.layout.final_state();
        let (q, v) = (self.x(q), self.x(v));
        let r = (c.fun)(&q, &v);
        for (i, x) in r.into_iter().enumerate() {
            self.g.push(x);
            self.lbg.push(c.bounds.lb[i]);
            self.ubg.push(c.bounds.ub[i]);
            self.g_info.push(RowInfo {
                kind: RowKind::Terminal,
                interval: None,
                element: None,
                point: None,
                contact: None,
                component: i,
            });
        }
        Ok(())
    }

    /// Bounds of `x(0)`: fixed at `x0`, except the components a periodic problem frees
    /// (§10.9), which get the `q`/`v` boxes (or none).
    pub(crate) fn initial_state_box(&self) -> (Vec<f64>, Vec<f64>) {
        let x0 = &self.ocp.x0;
        let (mut lb, mut ub) = (x0.clone(), x0.clone());
        if let Some(p) = &self.ocp.periodic {
            let n_q = x0.len() / 2;
            for (i, _) in p.free.iter().enumerate().filter(|(_, &f)| f) {
                let (b, j) = if i < n_q {
                    (&self.ocp.q_bounds, i)
                } else {
                    (&self.ocp.v_bounds, i - n_q)
                };
                lb[i] = b.as_ref().map_or(f64::NEG_INFINITY, |b| b.lb[j]);
                ub[i] = b.as_ref().map_or(f64::INFINITY, |b| b.ub[j]);
            }
        }
        (lb, ub)
    }

    /// Periodicity rows `x(T) − A x(0) − s = 0` (§10.9), one per state component.
    pub(crate) fn periodic_rows(&mut self) {
        let Some(p) = &self.ocp.periodic else {
            return;
        };
        let (q, v) = self.layout.final_state();
        let end: Vec<Sx> = self.x(q).into_iter().chain(self.x(v)).collect();
        let start: Vec<Sx> = self
            .x(&self.layout.x0_q)
            .into_iter()
            .chain(self.x(&self.layout.x0_v))
            .collect();
        let rows: Vec<Sx> = (0..end.len())
            .map(|i| {
                let ax0 = p
                    .row(i)
                    .into_iter()
                    .fold(Sx::from(0.0), |acc, (j, a)| acc + start[j] * a);
                end[i] - ax0 - p.shift[i]
            })
            .collect();
        for (i, r) in rows.into_iter().enumerate() {
            self.g.push(r);
            self.lbg.push(0.0);
            self.ubg.push(0.0);
            self.g_info.push(RowInfo {
                kind: RowKind::Periodic,
                interval: None,
                element: None,
                point: None,
                contact: None,
                component: i,
            });
        }
    }

    /// Objective (§4.3): RK quadrature of the Lagrange term with the weights `b_j` (not the
    /// integral-form `B_r`, see the pitfall of §3.2), Mayer term, LSQ tracking with references
    /// as parameters, step-equilibration penalty (§3.8.4) and the slip-rate regulariser (5').
    pub(crate) fn costs(&mut self) -> Result<(), FesdjError> {
        let mut terms: Vec<Sx> = Vec::new();
        let n_int = self.layout.n_intervals();
        let t_int = self.o.t_final / n_int as f64;
        for k in 0..n_int {
            let u = self.x(self.layout.u(k));
            let elements = self.layout.intervals[k].elements.clone();
            for e in &elements {
                if let Some(lag) = &self.ocp.lagrange {
                    let h = self.h_sx(e);
                    for (j, s) in e.stages.iter().enumerate() {
                        let l = lag(&self.x(&s.q), &self.x(&s.v), &u);
                        terms.push(h * l * self.tab.b[j]);
                    }
                }
            }
            if let Some(lsq) = &self.ocp.lsq {
                let (q, v) = self.layout.interval_end(k);
                let x: Vec<Sx> = self.x(q).into_iter().chain(self.x(v)).collect();
                let xr: Vec<Sx> = self.layout.params.x_ref[k]
                    .iter()
                    .map(|&i| self.p[i])
                    .collect();
                let ur: Vec<Sx> = self.layout.params.u_ref[k]
                    .iter()
                    .map(|&i| self.p[i])
                    .collect();
                for i in 0..x.len() {
                    if lsq.q_weight[i] != 0.0 {
                        terms.push((x[i] - xr[i]).sq() * (lsq.q_weight[i] * t_int));
                    }
                }
                for i in 0..u.len() {
                    if lsq.r_weight[i] != 0.0 {
                        terms.push((u[i] - ur[i]).sq() * (lsq.r_weight[i] * t_int));
                    }
                }
            }
            self.step_equilibration_cost(k, &mut terms);
            self.slip_rate_cost(k, &mut terms);
        }
        let (q, v) = self.layout.final_state();
        let (q, v) = (self.x(q), self.x(v));
        if let Some(m) = &self.ocp.mayer {
            terms.push(m(&q, &v));
        }
        if let Some(lsq) = &self.ocp.lsq {
            // The terminal LSQ term is multiplied by T/N as in nosnoc (§4.3).
            let x: Vec<Sx> = q.iter().chain(&v).copied().collect();
            for (i, &xi) in x.iter().enumerate() {
                if lsq.q_terminal[i] != 0.0 {
                    let r = self.p[self.layout.params.x_ref_terminal[i]];
                    terms.push((xi - r).sq() * (lsq.q_terminal[i] * t_int));
                }
            }
        }
        self.cost = sum(&terms);
        Ok(())
    }

    /// Penalty terms of the heuristic step equilibration modes of interval `k` (§3.8.4).
    pub(crate) fn step_equilibration_cost(&self, k: usize, terms: &mut Vec<Sx>) {
        if !self.o.variable_steps() {
            return;
        }
        let rho = self.o.rho_h;
        let hs: Vec<Sx> = self.layout.intervals[k]
            .elements
            .iter()
            .filter_map(|e| e.h.map(|i| self.xi(i)))
            .collect();
        match self.o.step_equilibration {
            StepEquilibration::HeuristicMean => {
                for &h in &hs {
                    terms.push((h - self.h_bar).sq() * rho);
                }
            }
            StepEquilibration::HeuristicDiff => {
                for w in hs.windows(2) {
                    terms.push((w[1] - w[0]).sq() * rho);
                }
            }
            StepEquilibration::L2Relaxed | StepEquilibration::L2RelaxedScaled => {
                let sig = self.o.step_equilibration_sigma;
                for ind in self.indicators.iter().filter(|i| i.interval == k) {
                    let n = ind.element;
                    let eta = if self.o.step_equilibration == StepEquilibration::L2Relaxed {
                        ind.eta
                    } else {
                        (ind.eta / sig).tanh()
                    };
                    terms.push(eta * (hs[n] - hs[n - 1]).sq() * rho);
                }
            }
            StepEquilibration::None | StepEquilibration::Direct => {}
        }
    }
}

/// `ρ_ϑ Σ ϑ²` for the slip-rate variant (5') and `ρ_ϑ Σ γ_d²` for the polyhedral model (8)
/// (stage and impulse level, `Γ_d` included).
///
/// Both multipliers are only bounded below without contact (§1.5, §7 item 26: `ϑ` free,
/// `γ_d ≥ max_k(−d_kᵀv)`); the relaxed NLPs then have a flat direction along which the barrier
/// decreases without bound, which stalls the interior-point method as `σ → 0`. The tiny cost
/// selects the smallest admissible value (`γ_d = ‖v_t‖` for `D = [J_t, −J_t]` in 2D); where
/// the multiplier is determined (contact) it changes nothing.
impl Builder<'_> {
    pub(crate) fn slip_rate_cost(&self, k: usize, terms: &mut Vec<Sx>) {
        let slip_rate = self.o.friction_model == FrictionModel::Conic
            && self.o.conic_formulation == ConicFormulation::SlipRate;
        let polyhedral = self.o.friction_model == FrictionModel::Polyhedral;
        if !(slip_rate || polyhedral) || self.o.rho_theta == 0.0 {
            return;
        }
        let rho = self.o.rho_theta;
        for e in &self.layout.intervals[k].elements {
            let imp = e.impulse.iter().flat_map(|i| i.friction.iter());
            let stg = e.stages.iter().flat_map(|s| s.friction.iter());
            for f in imp.chain(stg) {
                match f {
                    FrictionIndex::Conic { gamma, .. } if slip_rate => {
                        terms.push(self.xi(*gamma).sq() * rho);
                    }
                    FrictionIndex::Polyhedral { gamma_d, .. } => {
                        terms.push(self.xi(*gamma_d).sq() * rho);
                    }
                    _ => {}
                }
            }
        }
    }
}
