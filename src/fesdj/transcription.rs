//! The FESD-J transcription (§3–§4.2): from an [`Ocp`] and [`FesdjOptions`] to the [`Mpcc`].
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
    ElementIndex, FrictionIndex, IntervalIndex, Layout, RightBoundaryIndex, StageIndex, VarBuilder,
};
use super::linalg::{mat_t_vec, mat_vec, solve_spd};
use super::mpcc::{Mpcc, PairInfo, PairKind, RowInfo, RowKind, SwitchIndicator};
use super::ocp::Ocp;
use super::options::{ConicSwitchHandling, FesdjOptions, FrictionModel, StepEquilibration};
use super::tableau::{ButcherTableau, IntegralForm};

/// Build the FESD-J MPCC of `ocp` with `options` (§3–§4.2).
///
/// The options and the problem are validated first; errors name the offending field.
pub fn transcribe(ocp: &Ocp, options: &FesdjOptions) -> Result<Mpcc, FesdjError> {
    options.validate()?;
    ocp.validate()?;
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
    Ok(Mpcc {
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

    // ---------------------------------------------------------------- allocation

    /// Friction variables of contact `l` at one point (stage or impulse level; the two sets
    /// have the same shape, bounds and initial values, §2.5 and §3.1, and differ in `name`).
    pub fn alloc_friction(&mut self, name: &str, l: usize) -> FrictionIndex {
        let c = self.model.contacts()[l];
        if !c.has_friction() {
            return FrictionIndex::None;
        }
        let init = self.o.initial_guess.friction;
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

    fn state_bounds(&self, boxed: bool) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
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

    fn alloc_state(&mut self, name: &str, boxed: bool) -> (Vec<usize>, Vec<usize>) {
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

    fn alloc_element(&mut self, k: usize, n: usize) -> ElementIndex {
        let (n_c, n_q) = (self.model.n_c(), self.model.n_q());
        let ig = self.o.initial_guess;
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
            let lambda_n = self.vars.add(
                &format!("Lambda_n_{tag}"),
                n_c,
                0.0,
                inf,
                ig.big_lambda_normal,
            );
            let y_gap = self
                .vars
                .add(&format!("Y_gap_{tag}"), n_c, 0.0, inf, ig.big_y_gap);
            let p_vn = self
                .vars
                .add(&format!("P_vn_{tag}"), n_c, 0.0, inf, ig.p_vn);
            let n_vn = self
                .vars
                .add(&format!("N_vn_{tag}"), n_c, 0.0, inf, ig.n_vn);
            let friction = (0..n_c)
                .map(|l| self.alloc_friction(&format!("imp_{tag}_c{l}"), l))
                .collect();
            super::layout::ImpulseIndex {
                lambda_n,
                y_gap,
                p_vn,
                n_vn,
                friction,
            }
        });
        let (q0, v0) = self.alloc_state(&format!("{tag}_j0"), self.o.x_box_at_fe);
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
            let lambda_n =
                self.vars
                    .add(&format!("lambda_n_{st}"), n_c, 0.0, inf, ig.lambda_normal);
            let y_gap = self
                .vars
                .add(&format!("y_gap_{st}"), n_c, 0.0, inf, ig.y_gap);
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
            let y_gap = self
                .vars
                .add(&format!("y_gap_{st}"), n_c, 0.0, inf, ig.y_gap);
            let mut p_vt = vec![Vec::new(); n_c];
            let mut n_vt = vec![Vec::new(); n_c];
            if self.rb_tangential() {
                for (l, c) in self.model.contacts().iter().enumerate() {
                    if c.has_friction() {
                        let init = ig.friction;
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

    // ---------------------------------------------------------------- the build

    fn build(&mut self) -> Result<(), FesdjError> {
        let n_q = self.model.n_q();
        let n_u = self.model.n_u();
        let x0 = self.ocp.x0.clone();
        self.layout.x0_q = self
            .vars
            .add_vec("q_init", &x0[..n_q], &x0[..n_q], &x0[..n_q]);
        self.layout.x0_v = self
            .vars
            .add_vec("v_init", &x0[n_q..], &x0[n_q..], &x0[n_q..]);
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
                let e = self.alloc_element(k, n);
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
        self.costs()?;
        Ok(())
    }

    fn alloc_params(&mut self) {
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
            let acc = if s.z_v.is_empty() {
                solve_spd(&m, &rhs)
            } else {
                self.x(&s.z_v)
            };
            // (12b): Σ_r C_{r,j} v_{n,r} − h F_v = 0.
            let r: Vec<Sx> = (0..n_q).map(|i| col(&vs, i) - h * acc[i]).collect();
            self.eqs(&r, RowKind::StageVelocity, at);
            if !s.z_v.is_empty() {
                // (3): M z_v − rhs = 0.
                let mz = mat_vec(&m, n_q, &acc);
                let r: Vec<Sx> = mz.iter().zip(&rhs).map(|(&a, &b)| a - b).collect();
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

    /// Path constraints at element ends / stage points of element `(k, n)`.
    fn element_path_rows(&mut self, k: usize, n: usize) -> Result<(), FesdjError> {
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

    fn path_rows(&mut self, q: &[Sx], v: &[Sx], k: usize, at: At) -> Result<(), FesdjError> {
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

    fn terminal_rows(&mut self) -> Result<(), FesdjError> {
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

    /// Objective (§4.3): RK quadrature of the Lagrange term with the weights `b_j` (not the
    /// integral-form `B_r`, see the pitfall of §3.2), Mayer term, LSQ tracking with references
    /// as parameters, step-equilibration penalty (§3.8.4) and the slip-rate regulariser (5').
    fn costs(&mut self) -> Result<(), FesdjError> {
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
    fn step_equilibration_cost(&self, k: usize, terms: &mut Vec<Sx>) {
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

/// `ρ_ϑ Σ ϑ²` for the slip-rate variant (5') (stage and impulse level).
impl Builder<'_> {
    fn slip_rate_cost(&self, k: usize, terms: &mut Vec<Sx>) {
        if self.o.friction_model != FrictionModel::Conic
            || self.o.conic_formulation != super::options::ConicFormulation::SlipRate
            || self.o.rho_theta == 0.0
        {
            return;
        }
        let rho = self.o.rho_theta;
        for e in &self.layout.intervals[k].elements {
            let imp = e.impulse.iter().flat_map(|i| i.friction.iter());
            let stg = e.stages.iter().flat_map(|s| s.friction.iter());
            for f in imp.chain(stg) {
                if let FrictionIndex::Conic { gamma, .. } = f {
                    terms.push(self.xi(*gamma).sq() * rho);
                }
            }
        }
    }
}
