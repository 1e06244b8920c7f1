//! The FESD-J transcription (§3–§4.2): from an [`Ocp`] and [`FesdjOptions`] to the [`Transcription`].
//!
//! One chain of finite elements over all control intervals (§4.2). Per element `(k, n)`, in
//! this order (variables and rows alike, so the KKT matrix is almost block-banded):
//!
//! 1. variables: `h_{k,n}`, the impulse block at `t_n` (§2.5), `q_{n,0}, v_{n,0}`, the stage
//!    blocks `j = 1..n_s`, the right boundary (`c_{n_s} ≠ 1`);
//! 2. rows: (16); (17a) with gap lifting and (A.2) and the friction impulse rows (or velocity
//!    continuity without impulse block); per stage (12a), (12b) in integral form, [(3)], the gap
//!    lifting and the friction rows; right-boundary rows; (18); (26) for `direct`; path rows;
//! 3. pairs: the impulse pairs, then the cross complementarity of §3.7.5 (FESD) or the
//!    stage-wise pairs (time stepping, §4.7).
//!
//! After the last element of an interval: the clock constraint (15) `Σ_n h_{k,n} − T/N = 0`
//! and the path constraints at the interval end. After the last interval: terminal
//! constraints. The worked instance of §8 reproduces exactly this order.

use crate::ad::{Scalar, Sx};

use super::cls::ClsModel;
use super::error::FesdjError;
use super::layout::{
    ElementIndex, FrictionIndex, IntervalIndex, Layout, RightBoundaryIndex, VarBuilder,
};
use super::linalg::{mat_t_vec, mat_vec, solve_spd};
use super::mpcc::{PairInfo, PairKind, RowInfo, RowKind, SwitchIndicator, Transcription};
use super::ocp::Ocp;
use super::options::FesdjOptions;
use super::tableau::{ButcherTableau, IntegralForm};

/// Build the FESD-J MPCC of `ocp` with `options` (§3–§4.2).
///
/// The options and the problem are validated first; errors name the offending field.
pub fn transcribe(ocp: &Ocp, options: &FesdjOptions) -> Result<Transcription, FesdjError> {
    options.validate()?;
    ocp.validate()?;
    options.initial_guess.check_contacts(ocp.model.n_c())?;
    let (scheme, n_s) = options.effective_scheme();
    let tab = ButcherTableau::new(scheme, n_s)?;
    let int = tab.integral_form();
    let mut b = Builder {
        o: options,
        ocp,
        model: &ocp.model,
        n_s,
        fesd: options.use_fesd,
        h_bar: options.h_nominal(),
        int,
        vars: VarBuilder::default(),
        g: Vec::new(),
        lbg: Vec::new(),
        ubg: Vec::new(),
        g_info: Vec::new(),
        cg: Vec::new(),
        ch: Vec::new(),
        comp_info: Vec::new(),
        cost: Sx::zero(),
        indicators: Vec::new(),
        layout: Layout {
            n_q: ocp.model.n_q(),
            n_s,
            c: tab.c.clone(),
            h_nominal: options.h_nominal(),
            shared_left_gap: options.share_left_gap,
            ..Layout::default()
        },
        p: Vec::new(),
        p0: Vec::new(),
        tab,
    };
    b.build()?;
    let layout = Layout {
        n_w: b.vars.w.len(),
        ..b.layout
    };
    Ok(Transcription {
        w: b.vars.w,
        lbw: b.vars.lbw,
        ubw: b.vars.ubw,
        w0: b.vars.w0,
        p: b.p,
        p0: b.p0,
        f: b.cost,
        g: b.g,
        lbg: b.lbg,
        ubg: b.ubg,
        g_info: b.g_info,
        comp_g: b.cg,
        comp_h: b.ch,
        comp_info: b.comp_info,
        switch_indicators: b.indicators,
        layout,
    })
}

/// Contact geometry at one position: gaps, normals, tangents.
pub(crate) struct Geom {
    /// `f_c(q)`.
    pub fc: Vec<Sx>,
    /// `J_n(q)`, column-major `n_q × n_c`.
    pub jn: Vec<Sx>,
    /// `J_t^ℓ(q)` per contact (empty for frictionless contacts).
    pub jt: Vec<Vec<Sx>>,
}

/// Row/pair location used while building.
#[derive(Clone, Copy, Default)]
pub(crate) struct At {
    pub k: usize,
    pub n: usize,
    pub j: Option<usize>,
    pub contact: Option<usize>,
}

pub(crate) struct Builder<'a> {
    pub o: &'a FesdjOptions,
    pub ocp: &'a Ocp,
    pub model: &'a ClsModel,
    pub tab: ButcherTableau,
    pub int: IntegralForm,
    pub n_s: usize,
    pub fesd: bool,
    pub h_bar: f64,
    pub vars: VarBuilder,
    pub g: Vec<Sx>,
    pub lbg: Vec<f64>,
    pub ubg: Vec<f64>,
    pub g_info: Vec<RowInfo>,
    pub cg: Vec<Sx>,
    pub ch: Vec<Sx>,
    pub comp_info: Vec<PairInfo>,
    pub cost: Sx,
    pub indicators: Vec<SwitchIndicator>,
    pub layout: Layout,
    pub p: Vec<Sx>,
    pub p0: Vec<f64>,
}

/// Sum of expressions (0 for none).
pub(crate) fn sum(xs: &[Sx]) -> Sx {
    let mut it = xs.iter();
    let Some(&first) = it.next() else {
        return Sx::zero();
    };
    it.fold(first, |a, &b| a + b)
}

impl Builder<'_> {
    // ---------------------------------------------------------------- small helpers

    pub fn x(&self, idx: &[usize]) -> Vec<Sx> {
        self.vars.sx(idx)
    }

    pub fn xi(&self, i: usize) -> Sx {
        self.vars.w[i]
    }

    /// Push rows `lb ≤ e ≤ ub`.
    pub fn rows(&mut self, e: &[Sx], lb: f64, ub: f64, kind: RowKind, at: At) {
        for (c, &x) in e.iter().enumerate() {
            self.g.push(x);
            self.lbg.push(lb);
            self.ubg.push(ub);
            self.g_info.push(RowInfo {
                kind,
                interval: Some(at.k),
                element: Some(at.n),
                point: at.j,
                contact: at.contact,
                component: c,
            });
        }
    }

    /// Push equality rows `e = 0`.
    pub fn eqs(&mut self, e: &[Sx], kind: RowKind, at: At) {
        self.rows(e, 0.0, 0.0, kind, at);
    }

    /// Push one complementarity pair `0 ≤ a ⊥ b ≥ 0`.
    #[allow(clippy::too_many_arguments)]
    pub fn pair(
        &mut self,
        a: Sx,
        b: Sx,
        kind: PairKind,
        at: At,
        j: Option<usize>,
        j2: Option<usize>,
        component: usize,
    ) {
        self.cg.push(a);
        self.ch.push(b);
        self.comp_info.push(PairInfo {
            kind,
            interval: at.k,
            element: at.n,
            contact: at.contact.unwrap_or(0),
            j,
            j2,
            component,
        });
    }

    /// Step size of element `(k, n)` as an expression (`h̄` on a fixed grid).
    pub fn h_sx(&self, e: &ElementIndex) -> Sx {
        e.h.map_or(Sx::constant(self.h_bar), |i| self.xi(i))
    }

    pub fn geom(&self, q: &[Sx]) -> Result<Geom, FesdjError> {
        let fc = self.model.gaps(q)?;
        let jn = self.model.normal_jacobian(q)?;
        let mut jt = Vec::with_capacity(self.model.n_c());
        for (l, c) in self.model.contacts().iter().enumerate() {
            jt.push(if c.has_friction() {
                self.model.tangent_jacobian(q, l)?
            } else {
                Vec::new()
            });
        }
        Ok(Geom { fc, jn, jt })
    }

    /// Generalised contact force `Σ_ℓ J_n^ℓ λ_n^ℓ + J_t^ℓ λ_t^ℓ (or D^ℓ λ_d^ℓ)` of stage or
    /// impulse variables (the friction part read from `fr`).
    pub fn contact_force(&self, geo: &Geom, lambda_n: &[usize], fr: &[FrictionIndex]) -> Vec<Sx> {
        let n_q = self.model.n_q();
        let mut f = mat_vec(&geo.jn, n_q, &self.x(lambda_n));
        for (l, fi) in fr.iter().enumerate() {
            let t = match fi {
                FrictionIndex::None => continue,
                FrictionIndex::Polyhedral { lambda_d, .. } => {
                    // D = [J_t, −J_t]: D λ_d = J_t (λ_d⁺ − λ_d⁻).
                    let n_t = lambda_d.len() / 2;
                    let ld = self.x(lambda_d);
                    let diff: Vec<Sx> = (0..n_t).map(|i| ld[i] - ld[n_t + i]).collect();
                    mat_vec(&geo.jt[l], n_q, &diff)
                }
                FrictionIndex::Conic { lambda_t, .. } => {
                    mat_vec(&geo.jt[l], n_q, &self.x(lambda_t))
                }
            };
            for (a, b) in f.iter_mut().zip(t) {
                *a += b;
            }
        }
        f
    }

    // ---------------------------------------------------------------- the build

    fn build(&mut self) -> Result<(), FesdjError> {
        let n_q = self.model.n_q();
        let n_u = self.model.n_u();
        let x0 = self.ocp.x0.clone();
        let (lb0, ub0) = self.initial_state_box();
        self.layout.x0_q = self
            .vars
            .add_vec("q_init", &lb0[..n_q], &ub0[..n_q], &x0[..n_q]);
        self.layout.x0_v = self
            .vars
            .add_vec("v_init", &lb0[n_q..], &ub0[n_q..], &x0[n_q..]);
        self.alloc_params();
        let n_int = self.o.n_intervals;
        for k in 0..n_int {
            let (ul, uu) = match &self.ocp.u_bounds {
                Some(b) => (b.lb.clone(), b.ub.clone()),
                None => (vec![f64::NEG_INFINITY; n_u], vec![f64::INFINITY; n_u]),
            };
            // The initial control, projected into the bounds.
            let u_init = self.o.initial_guess.u;
            let u0: Vec<f64> = ul
                .iter()
                .zip(&uu)
                .map(|(&l, &h)| u_init.max(l).min(h))
                .collect();
            let u = self.vars.add_vec(&format!("u_k{k}"), &ul, &uu, &u0);
            self.layout.intervals.push(IntervalIndex {
                u,
                elements: Vec::new(),
            });
            for n in 0..self.o.n_fe {
                // With `share_left_gap`: the end-point gaps of the previous element of the
                // chain (none before the horizon's first element).
                let prev = match (n, k) {
                    (1.., _) => Some((k, n - 1)),
                    (0, 1..) => Some((k - 1, self.o.n_fe - 1)),
                    _ => None,
                };
                let prev_end_gap = prev
                    .filter(|_| self.o.share_left_gap)
                    .map(|(kp, np)| self.layout.element_end_gap(kp, np).to_vec());
                let e = self.alloc_element(k, n, prev_end_gap.as_deref());
                self.layout.intervals[k].elements.push(e);
                self.element_rows(k, n)?;
                self.element_pairs(k, n);
                if self.fesd && n >= 1 {
                    self.step_equilibration(k, n)?;
                }
                self.element_path_rows(k, n)?;
            }
            self.interval_rows(k)?;
        }
        self.terminal_rows()?;
        self.periodic_rows();
        self.costs()?;
        Ok(())
    }

    /// Rows of element `(k, n)`: (16), impulse block or continuity, stage equations, right
    /// boundary, (18).
    fn element_rows(&mut self, k: usize, n: usize) -> Result<(), FesdjError> {
        let e = self.layout.element(k, n).clone();
        let (qp, vp) = {
            let (a, b) = self.layout.pre_impact(k, n);
            (a.to_vec(), b.to_vec())
        };
        let at0 = At {
            k,
            n,
            j: Some(0),
            contact: None,
        };
        // (16)
        let q0 = self.x(&e.q0);
        let v0 = self.x(&e.v0);
        let qpre = self.x(&qp);
        let vpre = self.x(&vp);
        let r: Vec<Sx> = q0.iter().zip(&qpre).map(|(&a, &b)| a - b).collect();
        self.eqs(&r, RowKind::PositionJunction, at0);
        // (17) or continuity
        match &e.impulse {
            Some(imp) => self.impulse_rows(k, n, &e, imp, &vp)?,
            None => {
                let r: Vec<Sx> = v0.iter().zip(&vpre).map(|(&a, &b)| a - b).collect();
                self.eqs(&r, RowKind::VelocityContinuity, at0);
                if e.left_gap_own {
                    let fc = self.model.gaps(&q0)?;
                    let y = self.x(&e.left_gap);
                    let r: Vec<Sx> = y.iter().zip(&fc).map(|(&a, &b)| a - b).collect();
                    self.eqs(&r, RowKind::LeftGap, at0);
                }
            }
        }
        self.stage_rows(k, n, &e)?;
        if let Some(rb) = &e.right {
            self.right_boundary_rows(k, n, &e, rb)?;
        }
        // (18)
        if self.fesd && self.o.eps_cls > 0.0 {
            let h = if self.o.fixed_eps_cls {
                Sx::one()
            } else {
                self.h_sx(&e)
            };
            let eps = self.o.eps_cls;
            let qs: Vec<Sx> = q0.iter().zip(&v0).map(|(&q, &v)| q + h * v * eps).collect();
            let fc = self.model.gaps(&qs)?;
            self.rows(&fc, 0.0, f64::INFINITY, RowKind::ExtraGap, at0);
        }
        Ok(())
    }

    /// Stage equations (12a), (12b) in integral form, (3), gap lifting and friction rows.
    fn stage_rows(&mut self, k: usize, n: usize, e: &ElementIndex) -> Result<(), FesdjError> {
        let n_q = self.model.n_q();
        let h = self.h_sx(e);
        let u = self.x(self.layout.u(k)).to_vec();
        // Points r = 0..n_s of the integral form.
        let mut qs = vec![self.x(&e.q0)];
        let mut vs = vec![self.x(&e.v0)];
        for s in &e.stages {
            qs.push(self.x(&s.q));
            vs.push(self.x(&s.v));
        }
        // Time stepping: the stage algebraics are impulses over the step (§4.7).
        let force_scale = if self.fesd { 1.0 } else { 1.0 / self.h_bar };
        let n_s = self.n_s;
        let c_mat = self.int.c_mat.clone();
        for j in 1..=n_s {
            let at = At {
                k,
                n,
                j: Some(j),
                contact: None,
            };
            let s = &e.stages[j - 1];
            let col = |x: &[Vec<Sx>], i: usize| -> Sx {
                let terms: Vec<Sx> = (0..=n_s)
                    .filter(|&r| c_mat[r][j - 1] != 0.0)
                    .map(|r| x[r][i] * c_mat[r][j - 1])
                    .collect();
                sum(&terms)
            };
            // (12a): Σ_r C_{r,j} q_{n,r} − h v_{n,j} = 0.
            let r: Vec<Sx> = (0..n_q).map(|i| col(&qs, i) - h * vs[j][i]).collect();
            self.eqs(&r, RowKind::StagePosition, at);
            // Dynamics.
            let q = &qs[j];
            let v = &vs[j];
            let geo = self.geom(q)?;
            let acc = if s.z_v.is_empty() {
                // (2): M⁻¹ (f_v + B_u u + J λ).
                let mut rhs = self.model.smooth_forces(q, v)?;
                if self.model.n_u() > 0 {
                    let bu = self.model.input_matrix(q)?;
                    for (a, b) in rhs.iter_mut().zip(mat_vec(&bu, n_q, &u)) {
                        *a += b;
                    }
                }
                let fc = self.contact_force(&geo, &s.lambda_n, &s.friction);
                for (a, b) in rhs.iter_mut().zip(fc) {
                    *a += b * force_scale;
                }
                let m = self.model.mass_matrix(q)?;
                solve_spd(&m, &rhs)
            } else {
                self.x(&s.z_v)
            };
            // (12b): Σ_r C_{r,j} v_{n,r} − h F_v = 0.
            let r: Vec<Sx> = (0..n_q).map(|i| col(&vs, i) - h * acc[i]).collect();
            self.eqs(&r, RowKind::StageVelocity, at);
            if !s.z_v.is_empty() {
                // (3): M z_v − f_v − B_u u − J λ = 0, with M z_v − f_v as the model's inverse
                // dynamics (one RNEA pass for a robot).
                let mut r = self.model.inverse_dynamics(q, v, &acc)?;
                if self.model.n_u() > 0 {
                    let bu = self.model.input_matrix(q)?;
                    for (a, b) in r.iter_mut().zip(mat_vec(&bu, n_q, &u)) {
                        *a -= b;
                    }
                }
                let fc = self.contact_force(&geo, &s.lambda_n, &s.friction);
                for (a, b) in r.iter_mut().zip(fc) {
                    *a -= b * force_scale;
                }
                self.eqs(&r, RowKind::LiftedDynamics, at);
            }
            // Gap lifting y − f_c(q) = 0.
            let y = self.x(&s.y_gap);
            let r: Vec<Sx> = y.iter().zip(&geo.fc).map(|(&a, &b)| a - b).collect();
            self.eqs(&r, RowKind::StageGap, at);
            self.stage_friction_rows(at, &geo, v, s)?;
        }
        Ok(())
    }

    /// Right boundary rows (§3.7.4 [spec]): `x_{n+1} = Σ_r D_r x_{n,r}`, the gap and (24).
    fn right_boundary_rows(
        &mut self,
        k: usize,
        n: usize,
        e: &ElementIndex,
        rb: &RightBoundaryIndex,
    ) -> Result<(), FesdjError> {
        let n_q = self.model.n_q();
        let at = At {
            k,
            n,
            j: Some(self.n_s + 1),
            contact: None,
        };
        let mut qs = vec![self.x(&e.q0)];
        let mut vs = vec![self.x(&e.v0)];
        for s in &e.stages {
            qs.push(self.x(&s.q));
            vs.push(self.x(&s.v));
        }
        let d = self.int.d.clone();
        let n_s = self.n_s;
        let interp = |x: &[Vec<Sx>], i: usize| -> Sx {
            let t: Vec<Sx> = (0..=n_s)
                .filter(|&r| d[r] != 0.0)
                .map(|r| x[r][i] * d[r])
                .collect();
            sum(&t)
        };
        let qr = self.x(&rb.q);
        let vr = self.x(&rb.v);
        let r: Vec<Sx> = (0..n_q).map(|i| qr[i] - interp(&qs, i)).collect();
        self.eqs(&r, RowKind::RightBoundaryPosition, at);
        let r: Vec<Sx> = (0..n_q).map(|i| vr[i] - interp(&vs, i)).collect();
        self.eqs(&r, RowKind::RightBoundaryVelocity, at);
        let geo = self.geom(&qr)?;
        let y = self.x(&rb.y_gap);
        let r: Vec<Sx> = y.iter().zip(&geo.fc).map(|(&a, &b)| a - b).collect();
        self.eqs(&r, RowKind::RightBoundaryGap, at);
        for l in 0..self.model.n_c() {
            if rb.p_vt[l].is_empty() {
                continue;
            }
            let vt = mat_t_vec(&geo.jt[l], rb.p_vt[l].len(), &vr);
            let p = self.x(&rb.p_vt[l]);
            let m = self.x(&rb.n_vt[l]);
            let r: Vec<Sx> = (0..vt.len()).map(|i| vt[i] - p[i] + m[i]).collect();
            self.eqs(
                &r,
                RowKind::RightBoundaryTangentialVelocity,
                At {
                    contact: Some(l),
                    ..at
                },
            );
        }
        Ok(())
    }

    /// Impulse pairs and cross complementarity (FESD) or stage-wise pairs (time stepping).
    fn element_pairs(&mut self, k: usize, n: usize) {
        let e = self.layout.element(k, n).clone();
        if let Some(imp) = &e.impulse {
            self.impulse_pairs(k, n, imp);
        }
        if self.fesd {
            self.cross_complementarity(k, n, &e);
        } else {
            self.stage_pairs(k, n, &e);
        }
    }

    /// Clock constraint (15) and path constraints at the end of interval `k`.
    fn interval_rows(&mut self, k: usize) -> Result<(), FesdjError> {
        let n_fe = self.layout.n_fe(k);
        let at = At {
            k,
            n: n_fe - 1,
            j: None,
            contact: None,
        };
        if self.o.variable_steps() {
            let hs: Vec<Sx> = self.layout.intervals[k]
                .elements
                .iter()
                .filter_map(|e| e.h.map(|i| self.xi(i)))
                .collect();
            let t_int = self.o.t_final / self.o.n_intervals as f64;
            let r = sum(&hs) - t_int;
            self.g.push(r);
            self.lbg.push(0.0);
            self.ubg.push(0.0);
            self.g_info.push(RowInfo {
                kind: RowKind::ClockSum,
                interval: Some(k),
                element: None,
                point: None,
                contact: None,
                component: 0,
            });
        }
        // Path constraints at the interval end (unless already imposed at every element end).
        if self.ocp.path.is_some() && !self.o.g_path_at_fe {
            let ends_at_one = self.tab.ends_at_one();
            if !(self.o.g_path_at_stg && ends_at_one) {
                let (q, v) = self.layout.interval_end(k);
                let (q, v) = (self.x(q), self.x(v));
                self.path_rows(&q, &v, k, at)?;
            }
        }
        Ok(())
    }
}
