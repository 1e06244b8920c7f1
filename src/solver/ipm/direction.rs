//! Search direction: the reduced primal-dual system with inertia correction.

use super::init::KAPPA_D;
use super::state::Ipm;
use crate::solver::kkt::Factor;
use std::time::Instant;

impl Ipm {
    /// Factorise with inertia correction and compute the full primal-dual direction.
    pub(super) fn compute_direction(&mut self) -> bool {
        let (n, m, mu) = (self.n, self.m, self.mu);
        // barrier Hessian terms and right-hand sides
        for j in 0..n {
            let mut sig = 0.0;
            let mut b = -self.rx[j];
            if self.has_xl[j] {
                let d = self.x[j] - self.xl[j];
                sig += self.zl[j] / d;
                b -= self.zl[j] - mu / d;
                if !self.has_xu[j] {
                    b -= KAPPA_D * mu;
                }
            }
            if self.has_xu[j] {
                let d = self.xu[j] - self.x[j];
                sig += self.zu[j] / d;
                b -= -self.zu[j] + mu / d;
                if !self.has_xl[j] {
                    b += KAPPA_D * mu;
                }
            }
            self.diag_x[j] = sig;
            self.rhs[j] = if self.fixed[j] { 0.0 } else { b };
        }
        for i in 0..m {
            let mut sig = 0.0;
            let mut b = self.y[i];
            if self.has_sl[i] {
                let d = self.s[i] - self.gl[i];
                sig += self.vl[i] / d;
                b += mu / d;
                if !self.has_su[i] {
                    b -= KAPPA_D * mu;
                }
            }
            if self.has_su[i] {
                let d = self.gu[i] - self.s[i];
                sig += self.vu[i] / d;
                b -= mu / d;
                if !self.has_sl[i] {
                    b += KAPPA_D * mu;
                }
            }
            self.sig_s[i] = sig;
            self.bs[i] = if self.is_eq[i] { 0.0 } else { b };
        }
        let t = Instant::now();
        let factored = self.factor_with_inertia_correction();
        self.info.timers.factorization += t.elapsed().as_secs_f64();
        if !factored {
            return false;
        }
        self.fill_constraint_rhs(false);
        let t = Instant::now();
        let solved = self.solve_and_expand();
        self.info.timers.kkt_solve += t.elapsed().as_secs_f64();
        solved
    }

    /// Constraint part of the right-hand side: `-c + b_s/(Σ_s + δ_w)` with `c = g − s`
    /// (or the second-order-correction residual when `soc`).
    pub(super) fn fill_constraint_rhs(&mut self, soc: bool) {
        let n = self.n;
        for i in 0..self.m {
            let c = if soc { self.csoc[i] } else { self.rc[i] };
            let mut r = -c;
            if !self.is_eq[i] {
                r += self.bs[i] / self.slack_pivot(i);
            }
            self.rhs[n + i] = r;
        }
    }

    fn slack_pivot(&self, i: usize) -> f64 {
        (self.sig_s[i] + self.delta_w).max(1e-30)
    }

    /// Solve for (Δx, Δy) with the current factor and expand to Δs and the bound multipliers.
    pub(super) fn solve_and_expand(&mut self) -> bool {
        match self
            .kkt
            .solve(&self.rhs, &mut self.sol, self.settings.max_refinement_steps)
        {
            Some(r) => self.kkt_residual = r,
            None => return false,
        }
        self.expand_direction()
    }

    /// Split the KKT solution into (Δx, Δy) and recover Δs and the bound-multiplier steps.
    pub(super) fn expand_direction(&mut self) -> bool {
        let (n, m, mu) = (self.n, self.m, self.mu);
        self.dx.copy_from_slice(&self.sol[..n]);
        self.dy.copy_from_slice(&self.sol[n..]);
        for i in 0..m {
            self.ds[i] = if self.is_eq[i] {
                0.0
            } else {
                (self.bs[i] + self.dy[i]) / self.slack_pivot(i)
            };
        }
        for j in 0..n {
            if self.fixed[j] {
                self.dx[j] = 0.0;
            }
            self.dzl[j] = if self.has_xl[j] {
                let d = self.x[j] - self.xl[j];
                mu / d - self.zl[j] - self.zl[j] / d * self.dx[j]
            } else {
                0.0
            };
            self.dzu[j] = if self.has_xu[j] {
                let d = self.xu[j] - self.x[j];
                mu / d - self.zu[j] + self.zu[j] / d * self.dx[j]
            } else {
                0.0
            };
        }
        for i in 0..m {
            self.dvl[i] = if self.has_sl[i] {
                let d = self.s[i] - self.gl[i];
                mu / d - self.vl[i] - self.vl[i] / d * self.ds[i]
            } else {
                0.0
            };
            self.dvu[i] = if self.has_su[i] {
                let d = self.gu[i] - self.s[i];
                mu / d - self.vu[i] + self.vu[i] / d * self.ds[i]
            } else {
                0.0
            };
        }
        self.dx.iter().all(|v| v.is_finite()) && self.ds.iter().all(|v| v.is_finite())
    }

    /// Algorithm IC of Wächter & Biegler: increase δ_w until the inertia is (n, m, 0).
    fn factor_with_inertia_correction(&mut self) -> bool {
        let s = &self.settings;
        let (max_pert, first) = (s.max_hessian_perturbation, s.first_hessian_perturbation);
        let base_reg = s.dual_regularization;
        self.reg_c = base_reg;
        let mut dw = if s.hessian_perturbation_memory && self.delta_w > 0.0 {
            (self.last_delta_w / 3.0).max(1e-20)
        } else {
            0.0f64
        };
        let mut tries = 0;
        loop {
            tries += 1;
            for j in 0..self.n {
                self.diag_x[j] += dw - if tries > 1 { self.delta_w } else { 0.0 };
            }
            self.delta_w = dw;
            for i in 0..self.m {
                self.diag_c[i] = if self.is_eq[i] {
                    0.0
                } else {
                    1.0 / self.slack_pivot(i)
                };
            }
            self.kkt.assemble(
                Some(&self.hess),
                &self.jac,
                &self.diag_x,
                &self.diag_c,
                self.reg_c,
                &self.fixed,
            );
            let f = self.kkt.factor();
            if self.kkt.inertia_ok(f) {
                break;
            }
            if matches!(f, Factor::ZeroPivot | Factor::Ok { zero: 1.., .. }) {
                // singular: strengthen the dual regularisation as well
                self.reg_c = self
                    .reg_c
                    .max(1e-8 * self.mu.powf(0.25))
                    .max(base_reg * 10.0);
            }
            dw = if dw == 0.0 {
                if self.last_delta_w == 0.0 {
                    first
                } else {
                    (self.last_delta_w / 3.0).max(1e-20)
                }
            } else if self.last_delta_w == 0.0 {
                100.0 * dw
            } else {
                8.0 * dw
            };
            if dw > max_pert || tries > 60 {
                return false;
            }
        }
        if self.delta_w > 0.0 {
            self.last_delta_w = self.delta_w;
        }
        true
    }
}
