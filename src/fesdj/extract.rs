//! Reading a solution vector `w` through the [`Layout`]: grid samples, stage forces, impulses
//! and per-element contact states, appended to a [`TrajectoryBuilder`].

use crate::ad::{Function, Sx, Workspace};

use super::cls::{ClsModel, ContactLaw};
use super::error::FesdjError;
use super::layout::{FrictionIndex, Layout};
use super::linalg::mat_t_vec;
use super::trajectory::{ContactState, FinalState, Impact, TrajectoryBuilder};

/// Tangential coefficients of `J_t` of one friction block: `λ_d⁺ − λ_d⁻` (polyhedral) or
/// `λ_t` (conic), appended to `out`.
fn tangential(w: &[f64], f: &FrictionIndex, out: &mut Vec<f64>) {
    match f {
        FrictionIndex::None => {}
        FrictionIndex::Polyhedral { lambda_d, .. } => {
            let n_t = lambda_d.len() / 2;
            out.extend((0..n_t).map(|i| w[lambda_d[i]] - w[lambda_d[n_t + i]]));
        }
        FrictionIndex::Conic { lambda_t, .. } => out.extend(lambda_t.iter().map(|&i| w[i])),
    }
}

/// Extracts trajectories from solutions of one transcription.
pub(crate) struct Extractor {
    layout: Layout,
    contacts: Vec<ContactLaw>,
    /// `(q, v) ↦ (J_t^ℓᵀ v)_ℓ` over the contacts with friction (`None` without friction).
    tangent_velocity: Option<(Function, Workspace, Vec<f64>)>,
    impact_threshold: f64,
    state_threshold: f64,
    qv: Vec<f64>,
}

impl Extractor {
    pub fn new(
        model: &ClsModel,
        layout: &Layout,
        impact_threshold: f64,
        state_threshold: f64,
    ) -> Result<Extractor, FesdjError> {
        let n_q = model.n_q();
        let q = Sx::sym_vec("q", n_q);
        let v = Sx::sym_vec("v", n_q);
        let mut vt = Vec::new();
        for (l, c) in model.contacts().iter().enumerate() {
            if c.has_friction() {
                let jt = model.tangent_jacobian(&q, l)?;
                vt.extend(mat_t_vec(&jt, c.n_t, &v));
            }
        }
        let tangent_velocity = if vt.is_empty() {
            None
        } else {
            let f = Function::new("tangent_velocity", &[&q, &v], &[&vt])?;
            let ws = f.workspace();
            let out = vec![0.0; vt.len()];
            Some((f, ws, out))
        };
        Ok(Extractor {
            layout: layout.clone(),
            contacts: model.contacts().to_vec(),
            tangent_velocity,
            impact_threshold,
            state_threshold,
            qv: vec![0.0; 2 * n_q],
        })
    }

    /// The final state `x(T)` of `w`.
    pub fn final_state(&self, w: &[f64]) -> FinalState {
        let (q, v) = self.layout.final_state();
        FinalState {
            q: q.iter().map(|&i| w[i]).collect(),
            v: v.iter().map(|&i| w[i]).collect(),
        }
    }

    /// Write the final state `(q, v)` of `w` into `x` (length `2 n_q`).
    pub fn final_state_into(&self, w: &[f64], x: &mut [f64]) {
        let (q, v) = self.layout.final_state();
        for (o, &i) in x.iter_mut().zip(q.iter().chain(v)) {
            *o = w[i];
        }
    }

    /// Append all elements of `w`, with times shifted by `t0`, to `b`; controls with their
    /// interval start times. Returns the end time.
    pub fn append(&mut self, w: &[f64], t0: f64, b: &mut TrajectoryBuilder) -> f64 {
        let lay = &self.layout;
        let n_int = lay.n_intervals();
        let mut t = t0;
        for k in 0..n_int {
            b.t_u.push(t);
            b.u.push(lay.u(k).iter().map(|&i| w[i]).collect());
            for n in 0..lay.n_fe(k) {
                let e = lay.element(k, n);
                let h = e.h.map_or(lay.h_nominal, |i| w[i]);
                let (qp, vp) = lay.pre_impact(k, n);
                b.t.push(t);
                b.q.push(qp.iter().map(|&i| w[i]).collect());
                b.v.push(vp.iter().map(|&i| w[i]).collect());
                b.t.push(t);
                b.q.push(e.q0.iter().map(|&i| w[i]).collect());
                b.v.push(e.v0.iter().map(|&i| w[i]).collect());
                if let Some(imp) = &e.impulse {
                    for (l, &i) in imp.lambda_n.iter().enumerate() {
                        if w[i] > self.impact_threshold {
                            let mut lt = Vec::new();
                            tangential(w, &imp.friction[l], &mut lt);
                            b.impacts.push(Impact {
                                t,
                                contact: l,
                                lambda_n: w[i],
                                lambda_t: lt,
                            });
                        }
                    }
                }
                let mut states = Vec::with_capacity(self.contacts.len());
                for (l, c) in self.contacts.iter().enumerate() {
                    let load: f64 = e.stages.iter().map(|s| w[s.lambda_n[l]]).sum();
                    states.push(if load <= self.state_threshold {
                        ContactState::Open
                    } else if c.has_friction() {
                        ContactState::Slip(0) // refined below
                    } else {
                        ContactState::Stick
                    });
                }
                // Tangential speeds at the stages of loaded frictional contacts.
                let mut max_speed = vec![0.0f64; self.contacts.len()];
                let mut sum_vt = vec![0.0f64; self.contacts.len()];
                for (j, s) in e.stages.iter().enumerate() {
                    b.forces.t.push(t + lay.c[j] * h);
                    b.forces
                        .lambda_n
                        .push(s.lambda_n.iter().map(|&i| w[i]).collect());
                    let mut lt = Vec::new();
                    for f in &s.friction {
                        tangential(w, f, &mut lt);
                    }
                    b.forces.lambda_t.push(lt);
                    if let Some((f, ws, out)) = self.tangent_velocity.as_mut() {
                        for (o, &i) in self.qv.iter_mut().zip(s.q.iter().chain(&s.v)) {
                            *o = w[i];
                        }
                        let (qs, vs) = self.qv.split_at(s.q.len());
                        if f.eval(&[qs, vs], &mut [out.as_mut_slice()], ws).is_err() {
                            continue;
                        }
                        let mut off = 0;
                        for (l, c) in self.contacts.iter().enumerate() {
                            if !c.has_friction() {
                                continue;
                            }
                            let vt = &out[off..off + c.n_t];
                            off += c.n_t;
                            let speed = vt.iter().map(|x| x * x).sum::<f64>().sqrt();
                            max_speed[l] = max_speed[l].max(speed);
                            if c.n_t == 1 {
                                sum_vt[l] += vt[0];
                            }
                        }
                    }
                }
                for (l, st) in states.iter_mut().enumerate() {
                    if let ContactState::Slip(_) = st {
                        *st = if max_speed[l] <= self.state_threshold {
                            ContactState::Stick
                        } else if self.contacts[l].n_t == 1 {
                            ContactState::Slip(if sum_vt[l] > 0.0 { 1 } else { -1 })
                        } else {
                            ContactState::Slip(0)
                        };
                    }
                }
                b.element_t.push(t);
                b.element_states.push(states);
                t += h;
            }
        }
        t
    }
}
