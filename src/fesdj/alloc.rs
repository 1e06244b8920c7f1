//! Variable allocation of the FESD-J transcription, in the order of the
//! [`Layout`](super::layout::Layout): per element `h`, impulse block, boundary state, stages,
//! right boundary; bounds per §2.5, §3.1, (15), §4.4 and initial values per §5.9.

use crate::ad::Sx;

use super::layout::{ElementIndex, FrictionIndex, ImpulseIndex, RightBoundaryIndex, StageIndex};
use super::options::{ConicSwitchHandling, FrictionModel, PerContact};
use super::transcription::Builder;

impl Builder<'_> {
    /// Friction variables of contact `l` at one point (stage or impulse level; the two sets
    /// have the same shape, bounds and initial values, §2.5 and §3.1, and differ in `name`).
    pub fn alloc_friction(&mut self, name: &str, l: usize) -> FrictionIndex {
        let c = self.model.contacts()[l];
        if !c.has_friction() {
            return FrictionIndex::None;
        }
        let init = self.o.initial_guess.friction.at(l);
        let inf = f64::INFINITY;
        match self.o.friction_model {
            FrictionModel::Polyhedral => {
                let n_d = 2 * c.n_t;
                FrictionIndex::Polyhedral {
                    lambda_d: self
                        .vars
                        .add(&format!("lambda_d_{name}"), n_d, 0.0, inf, init),
                    gamma_d: self
                        .vars
                        .add_one(&format!("gamma_d_{name}"), 0.0, inf, init),
                    beta_d: self.vars.add_one(&format!("beta_d_{name}"), 0.0, inf, init),
                    delta_d: self
                        .vars
                        .add(&format!("delta_d_{name}"), n_d, 0.0, inf, init),
                }
            }
            FrictionModel::Conic => {
                let n_t = c.n_t;
                let lambda_t = self
                    .vars
                    .add(&format!("lambda_t_{name}"), n_t, -inf, inf, init);
                let gamma = self.vars.add_one(&format!("gamma_{name}"), 0.0, inf, init);
                let beta = self.vars.add_one(&format!("beta_{name}"), 0.0, inf, init);
                let (p_vt, n_vt, alpha_vt) = match self.o.conic_model_switch_handling {
                    ConicSwitchHandling::Plain => (Vec::new(), Vec::new(), Vec::new()),
                    h => {
                        let p = self.vars.add(&format!("p_vt_{name}"), n_t, 0.0, inf, init);
                        let n = self.vars.add(&format!("n_vt_{name}"), n_t, 0.0, inf, init);
                        let a = if h == ConicSwitchHandling::Lp {
                            self.vars
                                .add(&format!("alpha_vt_{name}"), n_t, 0.0, 1.0, init.min(1.0))
                        } else {
                            Vec::new()
                        };
                        (p, n, a)
                    }
                };
                FrictionIndex::Conic {
                    lambda_t,
                    gamma,
                    beta,
                    p_vt,
                    n_vt,
                    alpha_vt,
                }
            }
        }
    }

    pub(crate) fn state_bounds(&self, boxed: bool) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
        let n_q = self.model.n_q();
        let free = (vec![f64::NEG_INFINITY; n_q], vec![f64::INFINITY; n_q]);
        let pick = |b: &Option<super::ocp::Bounds>| match b {
            Some(b) if boxed => (b.lb.clone(), b.ub.clone()),
            _ => free.clone(),
        };
        let (ql, qu) = pick(&self.ocp.q_bounds);
        let (vl, vu) = pick(&self.ocp.v_bounds);
        (ql, qu, vl, vu)
    }

    pub(crate) fn alloc_state(&mut self, name: &str, boxed: bool) -> (Vec<usize>, Vec<usize>) {
        let n_q = self.model.n_q();
        let (ql, qu, vl, vu) = self.state_bounds(boxed);
        let x0 = self.ocp.x0.clone();
        let q = self
            .vars
            .add_vec(&format!("q_{name}"), &ql, &qu, &x0[..n_q]);
        let v = self
            .vars
            .add_vec(&format!("v_{name}"), &vl, &vu, &x0[n_q..]);
        (q, v)
    }

    /// One nonnegative variable per contact, named `name_l`, with the per-contact initial
    /// value (§5.9; list lengths are checked by the transcription).
    fn add_contacts(&mut self, name: &str, init: &PerContact) -> Vec<usize> {
        let n_c = self.model.n_c();
        let inf = f64::INFINITY;
        (0..n_c)
            .map(|l| {
                self.vars
                    .add_one(&format!("{name}_{l}"), 0.0, inf, init.at(l))
            })
            .collect()
    }

    /// The variables of element `(k, n)`; `prev_end_gap`: with `share_left_gap`, the end-point
    /// gaps of the element before it (none for the horizon's first, and without the option).
    pub(crate) fn alloc_element(
        &mut self,
        k: usize,
        n: usize,
        prev_end_gap: Option<&[usize]>,
    ) -> ElementIndex {
        let (n_c, n_q) = (self.model.n_c(), self.model.n_q());
        let o = self.o;
        let ig = &o.initial_guess;
        let inf = f64::INFINITY;
        let tag = format!("k{k}_n{n}");
        let h = self.o.variable_steps().then(|| {
            let g = self.o.gamma_h;
            self.vars.add_one(
                &format!("h_{tag}"),
                (1.0 - g) * self.h_bar,
                (1.0 + g) * self.h_bar,
                self.h_bar,
            )
        });
        let has_impulse = self.fesd && !(self.o.no_initial_impacts && n == 0);
        let impulse = has_impulse.then(|| {
            let lambda_n = self.add_contacts(&format!("Lambda_n_{tag}"), &ig.big_lambda_normal);
            let y_gap = self.add_contacts(&format!("Y_gap_{tag}"), &ig.big_y_gap);
            let p_vn = self.add_contacts(&format!("P_vn_{tag}"), &ig.p_vn);
            let n_vn = self.add_contacts(&format!("N_vn_{tag}"), &ig.n_vn);
            let friction = (0..n_c)
                .map(|l| self.alloc_friction(&format!("imp_{tag}_c{l}"), l))
                .collect();
            ImpulseIndex {
                lambda_n,
                y_gap,
                p_vn,
                n_vn,
                friction,
            }
        });
        // The left-boundary gap of (20). With `share_left_gap`, after another element it is
        // that element's end-point gap, f_c of the same position (16): a second variable for it
        // (with its own row) makes both bounds active together wherever a contact stays closed
        // across the boundary, a degenerate pair of constraints.
        let wanted = self.fesd && impulse.is_none() && self.o.initial_element_gap;
        let (left_gap, left_gap_own) = match (wanted, prev_end_gap) {
            (false, _) => (Vec::new(), false),
            (true, Some(prev)) => (prev.to_vec(), false),
            (true, None) => (
                self.add_contacts(&format!("Y_gap0_{tag}"), &ig.big_y_gap),
                true,
            ),
        };
        // The state at t = 0 (after a possible initial impulse) is the given initial state
        // (nosnoc fixes it, it boxes nothing there): a box on it only makes the problem
        // infeasible when a measured state is outside the box (an MPC tick from a state that a
        // model mismatch pushed 0.02 m/s beyond a velocity bound was Infeasible, tick after tick).
        let boxed0 = self.o.x_box_at_fe && !(k == 0 && n == 0);
        let (q0, v0) = self.alloc_state(&format!("{tag}_j0"), boxed0);
        let ends_at_one = self.tab.ends_at_one();
        let mut stages = Vec::with_capacity(self.n_s);
        for j in 1..=self.n_s {
            let st = format!("{tag}_j{j}");
            let boundary = ends_at_one && j == self.n_s;
            let boxed = self.o.x_box_at_stg || (boundary && self.o.x_box_at_fe);
            let (q, v) = self.alloc_state(&st, boxed);
            let z_v = if self.o.lift_velocity_state {
                self.vars.add(&format!("z_v_{st}"), n_q, -inf, inf, ig.z_v)
            } else {
                Vec::new()
            };
            let lambda_n = self.add_contacts(&format!("lambda_n_{st}"), &ig.lambda_normal);
            let y_gap = self.add_contacts(&format!("y_gap_{st}"), &ig.y_gap);
            let friction = (0..n_c)
                .map(|l| self.alloc_friction(&format!("{st}_c{l}"), l))
                .collect();
            stages.push(StageIndex {
                q,
                v,
                z_v,
                lambda_n,
                y_gap,
                friction,
            });
        }
        let right = (!ends_at_one).then(|| {
            let st = format!("{tag}_rb");
            let (q, v) = self.alloc_state(&st, self.o.x_box_at_fe);
            let y_gap = self.add_contacts(&format!("y_gap_{st}"), &ig.y_gap);
            let mut p_vt = vec![Vec::new(); n_c];
            let mut n_vt = vec![Vec::new(); n_c];
            if self.rb_tangential() {
                for (l, c) in self.model.contacts().iter().enumerate() {
                    if c.has_friction() {
                        let init = ig.friction.at(l);
                        p_vt[l] = self
                            .vars
                            .add(&format!("p_vt_{st}_c{l}"), c.n_t, 0.0, inf, init);
                        n_vt[l] = self
                            .vars
                            .add(&format!("n_vt_{st}_c{l}"), c.n_t, 0.0, inf, init);
                    }
                }
            }
            RightBoundaryIndex {
                q,
                v,
                y_gap,
                p_vt,
                n_vt,
            }
        });
        ElementIndex {
            h,
            impulse,
            left_gap,
            left_gap_own,
            q0,
            v0,
            stages,
            right,
        }
    }

    /// Right-boundary `ξ±` exist (§3.7.4 [spec]): FESD, conic model with Abs or Lp.
    pub fn rb_tangential(&self) -> bool {
        self.fesd
            && self.o.friction_model == FrictionModel::Conic
            && self.o.conic_model_switch_handling != ConicSwitchHandling::Plain
    }

    pub(crate) fn alloc_params(&mut self) {
        let Some(lsq) = &self.ocp.lsq else { return };
        let n_int = self.o.n_intervals;
        let add = |p: &mut Vec<Sx>, p0: &mut Vec<f64>, name: &str, vals: &[f64]| {
            vals.iter()
                .enumerate()
                .map(|(i, &v)| {
                    p.push(Sx::sym(&format!("{name}_{i}")));
                    p0.push(v);
                    p.len() - 1
                })
                .collect::<Vec<usize>>()
        };
        let (mut p, mut p0) = (Vec::new(), Vec::new());
        for k in 0..n_int {
            let xr = add(&mut p, &mut p0, &format!("x_ref_k{k}"), &lsq.x_ref);
            self.layout.params.x_ref.push(xr);
            let ur = add(&mut p, &mut p0, &format!("u_ref_k{k}"), &lsq.u_ref);
            self.layout.params.u_ref.push(ur);
        }
        self.layout.params.x_ref_terminal = add(&mut p, &mut p0, "x_ref_T", &lsq.x_ref_terminal);
        self.p = p;
        self.p0 = p0;
    }
}
