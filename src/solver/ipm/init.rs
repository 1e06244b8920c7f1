//! Initial point, scaling, evaluations, residuals, error measures and the barrier update.

use super::state::{AdaptiveState, Ipm, IpmStart};
use crate::solver::kkt::{inf_norm, Factor};
use crate::solver::nlp::{Nlp, INF_BOUND};
use crate::solver::settings::MuStrategy;
use crate::solver::status::Status;
use std::time::Instant;

/// Damping factor of the linear barrier term for one-sided bounds (IPOPT's κ_d).
pub(crate) const KAPPA_D: f64 = 1e-5;
/// Norm scale of the scaled error (IPOPT's s_max).
const S_MAX: f64 = 100.0;

/// Push `v` into `[l, u]` (either may be infinite) by the IPOPT rule.
pub(crate) fn push_into(v: f64, l: f64, u: f64, hl: bool, hu: bool, k1: f64, k2: f64) -> f64 {
    match (hl, hu) {
        (true, true) => {
            let pl = (k1 * l.abs().max(1.0)).min(k2 * (u - l));
            let pu = (k1 * u.abs().max(1.0)).min(k2 * (u - l));
            v.max(l + pl).min(u - pu)
        }
        (true, false) => v.max(l + k1 * l.abs().max(1.0)),
        (false, true) => v.min(u - k1 * u.abs().max(1.0)),
        (false, false) => v,
    }
}

/// Scaled objective and constraints at `x`; `None` if a callback fails or a value is not finite.
pub(crate) fn eval_fg(
    nlp: &dyn Nlp,
    p: &[f64],
    x: &[f64],
    df: f64,
    dc: &[f64],
    g: &mut [f64],
) -> Option<f64> {
    let f = nlp.eval_f(x, p).ok()?;
    nlp.eval_g(x, p, g).ok()?;
    let mut ok = f.is_finite();
    for (gi, &c) in g.iter_mut().zip(dc) {
        *gi *= c;
        ok &= gi.is_finite();
    }
    if ok {
        Some(df * f)
    } else {
        None
    }
}

impl Ipm {
    pub(super) fn initialize(
        &mut self,
        nlp: &dyn Nlp,
        p: &[f64],
        start: IpmStart<'_>,
    ) -> Result<(), Status> {
        let (n, m) = (self.n, self.m);
        let st = &self.settings;
        nlp.bounds(&mut self.xl, &mut self.xu, &mut self.gl, &mut self.gu);
        match start {
            IpmStart::Initial => nlp.initial_point(&mut self.x),
            IpmStart::Primal(x) | IpmStart::Warm { x, .. } => self.x.copy_from_slice(x),
        }
        let warm = matches!(start, IpmStart::Warm { .. });
        let (k1, k2) = if warm {
            (st.warm_start_bound_push, st.warm_start_bound_push)
        } else {
            (st.bound_push, st.bound_frac)
        };
        let (ks1, ks2) = if warm {
            (
                st.warm_start_slack_bound_push,
                st.warm_start_slack_bound_push,
            )
        } else {
            (k1, k2)
        };
        for j in 0..n {
            let (l, u) = (self.xl[j], self.xu[j]);
            let hl = l > -INF_BOUND;
            let hu = u < INF_BOUND;
            let fixed = hl && hu && u - l <= 0.0;
            self.fixed[j] = fixed;
            self.has_xl[j] = hl && !fixed;
            self.has_xu[j] = hu && !fixed;
            if fixed {
                self.x[j] = 0.5 * (l + u);
            } else {
                self.x[j] = push_into(self.x[j], l, u, hl, hu, k1, k2);
            }
            if !self.x[j].is_finite() {
                return Err(Status::EvaluationError);
            }
        }
        // unscaled evaluation for the scaling factors
        let t = Instant::now();
        self.obj_scale = 1.0;
        self.con_scale.fill(1.0);
        let f = eval_fg(nlp, p, &self.x, 1.0, &self.con_scale, &mut self.g);
        let ok = f.is_some()
            && nlp.eval_grad_f(&self.x, p, &mut self.grad).is_ok()
            && nlp.eval_jac_g(&self.x, p, &mut self.jac).is_ok();
        self.info.evaluations += 1;
        self.info.timers.evaluation += t.elapsed().as_secs_f64();
        let Some(f) = f else {
            return Err(Status::EvaluationError);
        };
        if !ok {
            return Err(Status::EvaluationError);
        }
        if self.settings.scaling {
            let gmax = self.settings.nlp_scaling_max_gradient;
            let gn = inf_norm(&self.grad);
            self.obj_scale = if gn > gmax { gmax / gn } else { 1.0 };
            // row norms of the Jacobian, accumulated in con_scale
            self.con_scale.fill(0.0);
            for (k, &v) in self.jac.iter().enumerate() {
                let r = self.jac_row[k] as usize;
                self.con_scale[r] = self.con_scale[r].max(v.abs());
            }
            for c in self.con_scale.iter_mut() {
                *c = if *c > gmax && c.is_finite() {
                    gmax / *c
                } else {
                    1.0
                };
            }
        }
        let df = self.obj_scale;
        self.f = df * f;
        for i in 0..m {
            let c = self.con_scale[i];
            self.g[i] *= c;
            let (l, u) = (self.gl[i], self.gu[i]);
            let hl = l > -INF_BOUND;
            let hu = u < INF_BOUND;
            self.is_eq[i] = hl && hu && u - l <= 0.0;
            self.has_sl[i] = hl && !self.is_eq[i];
            self.has_su[i] = hu && !self.is_eq[i];
            self.gl[i] = if hl { l * c } else { f64::NEG_INFINITY };
            self.gu[i] = if hu { u * c } else { f64::INFINITY };
            self.s[i] = if self.is_eq[i] {
                self.gl[i]
            } else {
                push_into(
                    self.g[i],
                    self.gl[i],
                    self.gu[i],
                    self.has_sl[i],
                    self.has_su[i],
                    ks1,
                    ks2,
                )
            };
        }
        // multipliers
        let st = &self.settings;
        match start {
            IpmStart::Warm {
                lambda, z_l, z_u, ..
            } => {
                let mb = st.warm_start_mult_bound_push;
                for j in 0..n {
                    self.zl[j] = if self.has_xl[j] {
                        (z_l[j] * df).max(mb)
                    } else {
                        0.0
                    };
                    self.zu[j] = if self.has_xu[j] {
                        (z_u[j] * df).max(mb)
                    } else {
                        0.0
                    };
                }
                for i in 0..m {
                    let y = lambda[i] * df / self.con_scale[i];
                    self.y[i] = if y.is_finite() { y } else { 0.0 };
                    // stationarity in s: -y - v_l + v_u = 0
                    self.vl[i] = if self.has_sl[i] {
                        (-self.y[i]).max(mb)
                    } else {
                        0.0
                    };
                    self.vu[i] = if self.has_su[i] {
                        self.y[i].max(mb)
                    } else {
                        0.0
                    };
                }
                // A bounded variable without a bound multiplier in the warm start (exactly 0:
                // it was fixed, e.g. by an imposed contact schedule, in the solve the start
                // comes from) takes the one that stationarity asks for at the start,
                // ∇f + Jᵀy = z_L − z_U, instead of the push value: a force freed at its bound
                // otherwise starts with a dual infeasibility of its whole reduced gradient.
                if (0..n)
                    .any(|j| (self.has_xl[j] && z_l[j] == 0.0) || (self.has_xu[j] && z_u[j] == 0.0))
                {
                    let r = &mut self.rhs[..n];
                    for (rj, &gj) in r.iter_mut().zip(&self.grad) {
                        *rj = df * gj;
                    }
                    for (k, &v) in self.jac.iter().enumerate() {
                        let i = self.jac_row[k] as usize;
                        r[self.jac_col[k] as usize] += v * self.con_scale[i] * self.y[i];
                    }
                    for j in 0..n {
                        if self.has_xl[j] && z_l[j] == 0.0 {
                            self.zl[j] = r[j].max(mb);
                        }
                        if self.has_xu[j] && z_u[j] == 0.0 {
                            self.zu[j] = (-r[j]).max(mb);
                        }
                    }
                }
            }
            _ => {
                let z0 = st.bound_mult_init_val;
                for j in 0..n {
                    self.zl[j] = if self.has_xl[j] { z0 } else { 0.0 };
                    self.zu[j] = if self.has_xu[j] { z0 } else { 0.0 };
                }
                for i in 0..m {
                    self.vl[i] = if self.has_sl[i] { z0 } else { 0.0 };
                    self.vu[i] = if self.has_su[i] { z0 } else { 0.0 };
                }
                for v in self.grad.iter_mut() {
                    *v *= df;
                }
                for (k, v) in self.jac.iter_mut().enumerate() {
                    *v *= self.con_scale[self.jac_row[k] as usize];
                }
                self.least_squares_multipliers();
            }
        }
        self.mu = self.settings.mu_init;
        self.filter.clear();
        self.filter_rejections = 0;
        self.filter_resets = 0;
        self.delta_w = 0.0;
        self.last_delta_w = 0.0;
        self.reg_c = self.settings.dual_regularization;
        let theta = self.theta_of(false);
        self.theta_max = 1e4 * theta.max(1.0);
        self.theta_min = 1e-4 * theta.max(1.0);
        Ok(())
    }

    /// Least-squares estimate of `y` (needs scaled `grad`, `jac` and bound multipliers):
    /// `[I Jᵀ; J 0] [w; y] = [-(∇f − z_L + z_U); 0]`, discarded if too large.
    pub(crate) fn least_squares_multipliers(&mut self) {
        let (n, m) = (self.n, self.m);
        self.y.fill(0.0);
        if m == 0 {
            return;
        }
        self.diag_x.fill(1.0);
        self.diag_c.fill(0.0);
        self.kkt.assemble(
            None,
            &self.jac,
            &self.diag_x,
            &self.diag_c,
            self.settings.dual_regularization.max(1e-8),
            &self.fixed,
        );
        let f = self.kkt.factor();
        if !matches!(f, Factor::Ok { zero: 0, .. }) {
            return;
        }
        for j in 0..n {
            self.rhs[j] = if self.fixed[j] {
                0.0
            } else {
                -(self.grad[j] - self.zl[j] + self.zu[j])
            };
        }
        // inequality rows: stationarity in s gives y = -v_l + v_u
        for i in 0..m {
            self.rhs[n + i] = 0.0;
        }
        let ok = self
            .kkt
            .solve(&self.rhs, &mut self.sol, self.settings.max_refinement_steps);
        if ok.is_none() {
            return;
        }
        let ymax = inf_norm(&self.sol[n..]);
        if ymax <= self.settings.constr_mult_init_max {
            self.y.copy_from_slice(&self.sol[n..]);
        }
    }

    /// Scaled gradient, Jacobian and Hessian at the current point.
    pub(super) fn eval_derivatives(&mut self, nlp: &dyn Nlp, p: &[f64]) -> bool {
        let t = Instant::now();
        let df = self.obj_scale;
        for i in 0..self.m {
            self.lam_cb[i] = self.y[i] * self.con_scale[i];
        }
        let ok = nlp.eval_grad_f(&self.x, p, &mut self.grad).is_ok()
            && nlp.eval_jac_g(&self.x, p, &mut self.jac).is_ok()
            && nlp
                .eval_hess_l(&self.x, p, df, &self.lam_cb, &mut self.hess)
                .is_ok();
        self.info.timers.evaluation += t.elapsed().as_secs_f64();
        if !ok {
            return false;
        }
        let mut fin = true;
        for v in self.grad.iter_mut() {
            *v *= df;
            fin &= v.is_finite();
        }
        for (k, v) in self.jac.iter_mut().enumerate() {
            *v *= self.con_scale[self.jac_row[k] as usize];
            fin &= v.is_finite();
        }
        fin && self.hess.iter().all(|v| v.is_finite())
    }

    /// `rx = ∇f + Jᵀy − z_L + z_U` and `rc = g − s`.
    pub(super) fn compute_residuals(&mut self) {
        for j in 0..self.n {
            self.rx[j] = self.grad[j] - self.zl[j] + self.zu[j];
        }
        for (k, &v) in self.jac.iter().enumerate() {
            let j = self.jac_col[k] as usize;
            self.rx[j] += v * self.y[self.jac_row[k] as usize];
        }
        for j in 0..self.n {
            if self.fixed[j] {
                self.rx[j] = 0.0;
            }
        }
        for i in 0..self.m {
            self.rc[i] = self.g[i] - self.s[i];
        }
    }

    /// Scaled optimality error of the barrier problem with parameter `mu` (IPOPT's E_μ).
    pub(super) fn kkt_error(&self, mu: f64) -> f64 {
        let (dual, comp, sum_mult, n_mult, sum_z, n_z) = self.error_parts(mu);
        let sd = (S_MAX.max(sum_mult / (n_mult.max(1) as f64))) / S_MAX;
        let sc = (S_MAX.max(sum_z / (n_z.max(1) as f64))) / S_MAX;
        (dual / sd).max(inf_norm(&self.rc)).max(comp / sc)
    }

    fn error_parts(&self, mu: f64) -> (f64, f64, f64, usize, f64, usize) {
        let mut dual = inf_norm(&self.rx);
        let mut comp = 0.0f64;
        let mut sum_z = 0.0;
        let mut n_z = 0usize;
        for j in 0..self.n {
            if self.has_xl[j] {
                comp = comp.max((self.zl[j] * (self.x[j] - self.xl[j]) - mu).abs());
                sum_z += self.zl[j].abs();
                n_z += 1;
            }
            if self.has_xu[j] {
                comp = comp.max((self.zu[j] * (self.xu[j] - self.x[j]) - mu).abs());
                sum_z += self.zu[j].abs();
                n_z += 1;
            }
        }
        let mut sum_y = 0.0;
        for i in 0..self.m {
            sum_y += self.y[i].abs();
            if self.is_eq[i] {
                continue;
            }
            dual = dual.max((-self.y[i] - self.vl[i] + self.vu[i]).abs());
            if self.has_sl[i] {
                comp = comp.max((self.vl[i] * (self.s[i] - self.gl[i]) - mu).abs());
                sum_z += self.vl[i].abs();
                n_z += 1;
            }
            if self.has_su[i] {
                comp = comp.max((self.vu[i] * (self.gu[i] - self.s[i]) - mu).abs());
                sum_z += self.vu[i].abs();
                n_z += 1;
            }
        }
        (dual, comp, sum_y + sum_z, self.m + n_z, sum_z, n_z)
    }

    /// Unscaled (dual infeasibility, constraint violation, complementarity).
    pub(super) fn unscaled_errors(&self) -> (f64, f64, f64) {
        let df = self.obj_scale;
        let mut du = inf_norm(&self.rx) / df;
        let mut pr = 0.0f64;
        for i in 0..self.m {
            let c = self.con_scale[i];
            pr = pr.max(self.rc[i].abs() / c);
            if !self.is_eq[i] {
                du = du.max((-self.y[i] - self.vl[i] + self.vu[i]).abs() * c / df);
            }
        }
        let (_, comp, ..) = self.error_parts(0.0);
        (du, pr, comp / df)
    }

    /// ‖g − s‖₁ at the current point (`trial = false`) or the trial point.
    pub(super) fn theta_of(&self, trial: bool) -> f64 {
        let (g, s) = if trial {
            (&self.gt, &self.st)
        } else {
            (&self.g, &self.s)
        };
        g.iter().zip(s.iter()).map(|(a, b)| (a - b).abs()).sum()
    }

    /// Barrier objective at the current (`trial = false`) or trial point; +∞ outside the
    /// interior.
    pub(super) fn barrier_of(&self, trial: bool) -> f64 {
        let (x, s, f) = if trial {
            (&self.xt, &self.st, self.ft)
        } else {
            (&self.x, &self.s, self.f)
        };
        let mu = self.mu;
        let mut phi = f;
        for j in 0..self.n {
            let (hl, hu) = (self.has_xl[j], self.has_xu[j]);
            if hl {
                let d = x[j] - self.xl[j];
                if !(d > 0.0) {
                    return f64::INFINITY;
                }
                phi -= mu * d.ln();
                if !hu {
                    phi += KAPPA_D * mu * d;
                }
            }
            if hu {
                let d = self.xu[j] - x[j];
                if !(d > 0.0) {
                    return f64::INFINITY;
                }
                phi -= mu * d.ln();
                if !hl {
                    phi += KAPPA_D * mu * d;
                }
            }
        }
        for i in 0..self.m {
            let (hl, hu) = (self.has_sl[i], self.has_su[i]);
            if hl {
                let d = s[i] - self.gl[i];
                if !(d > 0.0) {
                    return f64::INFINITY;
                }
                phi -= mu * d.ln();
                if !hu {
                    phi += KAPPA_D * mu * d;
                }
            }
            if hu {
                let d = self.gu[i] - s[i];
                if !(d > 0.0) {
                    return f64::INFINITY;
                }
                phi -= mu * d.ln();
                if !hl {
                    phi += KAPPA_D * mu * d;
                }
            }
        }
        phi
    }

    fn mu_floor(&self) -> f64 {
        self.settings
            .mu_min
            .max(0.1 * self.settings.tol.min(self.settings.compl_inf_tol))
            .min(self.settings.mu_init)
    }

    /// Average and minimum complementarity products.
    fn complementarity_stats(&self) -> (f64, f64) {
        let (mut sum, mut cnt, mut min) = (0.0, 0usize, f64::INFINITY);
        let mut add = |v: f64| {
            sum += v;
            cnt += 1;
            min = min.min(v);
        };
        for j in 0..self.n {
            if self.has_xl[j] {
                add(self.zl[j] * (self.x[j] - self.xl[j]));
            }
            if self.has_xu[j] {
                add(self.zu[j] * (self.xu[j] - self.x[j]));
            }
        }
        for i in 0..self.m {
            if self.has_sl[i] {
                add(self.vl[i] * (self.s[i] - self.gl[i]));
            }
            if self.has_su[i] {
                add(self.vu[i] * (self.gu[i] - self.s[i]));
            }
        }
        if cnt == 0 {
            (0.0, 0.0)
        } else {
            (sum / cnt as f64, min)
        }
    }

    /// Barrier parameter update before the step computation.
    pub(super) fn update_barrier(&mut self, e0: f64, ad: &mut AdaptiveState) {
        let floor = self.mu_floor();
        let adaptive = self.settings.mu_strategy == MuStrategy::Adaptive;
        if adaptive && !ad.fixed_mode {
            let best = ad
                .recent
                .iter()
                .take(ad.count.min(4))
                .fold(f64::INFINITY, |a, &b| a.min(b));
            if ad.count >= 4 && e0 > 0.999 * best {
                ad.fixed_mode = true;
                ad.switch_error = e0;
                let (avg, _) = self.complementarity_stats();
                self.mu = (0.8 * avg).max(floor).min(self.mu.max(floor));
                self.filter.clear();
            } else {
                ad.recent[ad.count % 4] = e0;
                ad.count += 1;
                let (avg, min) = self.complementarity_stats();
                if avg > 0.0 {
                    let xi = (min / avg).clamp(1e-12, 1.0);
                    let sig = 0.1 * (0.05 * (1.0 - xi) / xi).min(2.0).powi(3);
                    let new_mu = (sig * avg).clamp(floor, 1e5);
                    if new_mu != self.mu {
                        self.mu = new_mu;
                        self.filter.clear();
                    }
                }
                return;
            }
        }
        if adaptive && ad.fixed_mode && e0 <= 0.1 * ad.switch_error {
            ad.fixed_mode = false;
            ad.count = 0;
        }
        let s = &self.settings;
        loop {
            let e = self.kkt_error(self.mu);
            if e <= s.kappa_eps * self.mu && self.mu > floor {
                self.mu = floor.max((s.kappa_mu * self.mu).min(self.mu.powf(s.theta_mu)));
                self.filter.clear();
            } else {
                break;
            }
        }
    }

    /// Keep bound multipliers within `[μ/(κ_Σ d), κ_Σ μ/d]` of their slacks.
    pub(super) fn safeguard_multipliers(&mut self) {
        let k = self.settings.kappa_sigma;
        let mu = self.mu;
        let clamp = |z: &mut f64, d: f64| {
            *z = z.max(mu / (k * d)).min(k * mu / d);
        };
        for j in 0..self.n {
            if self.has_xl[j] {
                clamp(&mut self.zl[j], self.x[j] - self.xl[j]);
            }
            if self.has_xu[j] {
                clamp(&mut self.zu[j], self.xu[j] - self.x[j]);
            }
        }
        for i in 0..self.m {
            if self.has_sl[i] {
                clamp(&mut self.vl[i], self.s[i] - self.gl[i]);
            }
            if self.has_su[i] {
                clamp(&mut self.vu[i], self.gu[i] - self.s[i]);
            }
        }
    }

    /// Unscaled outputs and final statistics.
    pub(super) fn finish(&mut self) {
        let df = self.obj_scale;
        let mut viol = 0.0f64;
        for i in 0..self.m {
            let c = self.con_scale[i];
            let g = self.g[i] / c;
            self.out_g[i] = g;
            self.out_lambda[i] = self.y[i] * c / df;
            let (l, u) = (self.gl[i] / c, self.gu[i] / c);
            viol = viol.max(l - g).max(g - u);
        }
        for j in 0..self.n {
            self.out_zl[j] = self.zl[j] / df;
            self.out_zu[j] = self.zu[j] / df;
        }
        self.compute_residuals();
        let (du, _, co) = self.unscaled_errors();
        self.info.objective = self.f / df;
        self.info.constr_violation = viol.max(0.0);
        self.info.dual_infeasibility = du;
        self.info.complementarity = co;
        self.info.mu = self.mu;
        self.info.factorizations = self.kkt.factorizations - self.fact_start;
    }
}
