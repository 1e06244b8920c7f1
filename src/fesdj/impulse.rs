//! The impulse block of §2.5 (nosnoc HEAD form, (A.2) with lifted gaps), imposed at the left
//! boundary `t_n` of every finite element except where `no_initial_impacts` removes it (§3.6).
//!
//! With `q = q_{n,0}`, `v⁺ = v_{n,0}`, `v⁻ = v_n`:
//! * (17a) `M(q)(v⁺ − v⁻) − Σ_ℓ J_n^ℓ Λ_n^ℓ − J_t^ℓ Λ_t^ℓ (or D^ℓ Λ_d^ℓ) = 0`;
//! * `Y − f_c(q) = 0`, `Υ_+ − Υ_− − J_n^{ℓ⊤}(v⁺ + ε_r^ℓ v⁻) = 0` (A.2);
//! * friction, per contact: polyhedral (11-poly) `B_d − (μΛ_n − eᵀΛ_d) = 0`,
//!   `Δ_d − (Dᵀv⁺ + Γ_d e) = 0`; conic (11d)/(11') and (11e), and with Abs/Lp
//!   `J_tᵀv⁺ − (P_vt − N_vt) = 0`;
//! * pairs: `Λ_n ⊥ Y + Υ_+ + Υ_−`, `Υ_+ ⊥ Υ_−`; polyhedral `Δ_d ⊥ Λ_d`, `Γ_d ⊥ B_d`; conic
//!   `Γ ⊥ B` (or `Θ ⊥ B`); Abs `P_vt ⊥ N_vt`; Lp `A_vt ⊥ P_vt`, `1 − A_vt ⊥ N_vt`.
//!
//! The friction rows are shared with the stage level ([`friction`](super::friction)) because
//! they are the same equations in upper-case variables at `(q_{n,0}, v_{n,0})`.

use crate::ad::Sx;

use super::error::FesdjError;
use super::layout::{ElementIndex, FrictionIndex, ImpulseIndex};
use super::linalg::{mat_t_vec, mat_vec};
use super::mpcc::{PairKind, RowKind};
use super::transcription::{At, Builder};

impl Builder<'_> {
    /// Rows of the impulse block at `t_{k,n}` (pre-impact velocity indices `vp`).
    pub(crate) fn impulse_rows(
        &mut self,
        k: usize,
        n: usize,
        e: &ElementIndex,
        imp: &ImpulseIndex,
        vp: &[usize],
    ) -> Result<(), FesdjError> {
        let n_q = self.model.n_q();
        let at = At {
            k,
            n,
            j: Some(0),
            contact: None,
        };
        let q = self.x(&e.q0);
        let vplus = self.x(&e.v0);
        let vminus = self.x(vp);
        let geo = self.geom(&q)?;
        // (17a)
        let m = self.model.mass_matrix(&q)?;
        let dv: Vec<Sx> = vplus.iter().zip(&vminus).map(|(&a, &b)| a - b).collect();
        let mdv = mat_vec(&m, n_q, &dv);
        let force = self.contact_force(&geo, &imp.lambda_n, &imp.friction);
        let r: Vec<Sx> = mdv.iter().zip(&force).map(|(&a, &b)| a - b).collect();
        self.eqs(&r, RowKind::ImpulseVelocity, at);
        // Gap lifting Y − f_c(q) = 0.
        let y = self.x(&imp.y_gap);
        let r: Vec<Sx> = y.iter().zip(&geo.fc).map(|(&a, &b)| a - b).collect();
        self.eqs(&r, RowKind::ImpulseGap, at);
        // (A.2) Υ_+ − Υ_− − J_nᵀ(v⁺ + ε_r v⁻) = 0, per contact.
        let n_c = self.model.n_c();
        let mut r = Vec::with_capacity(n_c);
        for l in 0..n_c {
            let e_r = self.model.contacts()[l].restitution;
            let w: Vec<Sx> = vplus
                .iter()
                .zip(&vminus)
                .map(|(&a, &b)| if e_r == 0.0 { a } else { a + b * e_r })
                .collect();
            let jn_l = &geo.jn[n_q * l..n_q * (l + 1)];
            let vn = mat_t_vec(jn_l, 1, &w)[0];
            r.push(self.xi(imp.p_vn[l]) - self.xi(imp.n_vn[l]) - vn);
        }
        self.eqs(&r, RowKind::NormalVelocityA2, at);
        // Friction impulse rows, per contact.
        for l in 0..n_c {
            let at_l = At {
                contact: Some(l),
                ..at
            };
            let fr = imp.friction[l].clone();
            self.friction_rows(at_l, true, &geo, &vplus, imp.lambda_n[l], l, &fr)?;
        }
        Ok(())
    }

    /// The complementarity pairs of the impulse block (always imposed individually, §3.7.5).
    pub(crate) fn impulse_pairs(&mut self, k: usize, n: usize, imp: &ImpulseIndex) {
        for l in 0..self.model.n_c() {
            let at = At {
                k,
                n,
                j: Some(0),
                contact: Some(l),
            };
            let lam = self.xi(imp.lambda_n[l]);
            let (y, p, m) = (
                self.xi(imp.y_gap[l]),
                self.xi(imp.p_vn[l]),
                self.xi(imp.n_vn[l]),
            );
            let j0 = Some(0);
            self.pair(lam, y + p + m, PairKind::ImpulseNormal, at, j0, j0, 0);
            self.pair(p, m, PairKind::ImpulseNormalVelocity, at, j0, j0, 0);
            match imp.friction[l].clone() {
                FrictionIndex::None => {}
                FrictionIndex::Polyhedral {
                    lambda_d,
                    gamma_d,
                    beta_d,
                    delta_d,
                } => {
                    for (i, (&dd, &ld)) in delta_d.iter().zip(&lambda_d).enumerate() {
                        let (a, b) = (self.xi(dd), self.xi(ld));
                        self.pair(a, b, PairKind::ImpulseFrictionEdge, at, j0, j0, i);
                    }
                    let (a, b) = (self.xi(gamma_d), self.xi(beta_d));
                    self.pair(a, b, PairKind::ImpulseFrictionCone, at, j0, j0, 0);
                }
                FrictionIndex::Conic {
                    gamma,
                    beta,
                    p_vt,
                    n_vt,
                    alpha_vt,
                    ..
                } => {
                    let (a, b) = (self.xi(gamma), self.xi(beta));
                    self.pair(a, b, PairKind::ImpulseFrictionCone, at, j0, j0, 0);
                    self.tangential_pairs(at, &p_vt, &n_vt, &alpha_vt, true);
                }
            }
        }
    }

    /// Abs `P ⊥ N` or Lp `A ⊥ P`, `1 − A ⊥ N` componentwise (impulse level when `impulse`,
    /// else stage level for time stepping).
    pub(crate) fn tangential_pairs(
        &mut self,
        at: At,
        p_vt: &[usize],
        n_vt: &[usize],
        alpha_vt: &[usize],
        impulse: bool,
    ) {
        let kind = if impulse {
            PairKind::ImpulseTangentialVelocity
        } else {
            PairKind::StageFriction
        };
        for i in 0..p_vt.len() {
            let (p, m) = (self.xi(p_vt[i]), self.xi(n_vt[i]));
            if alpha_vt.is_empty() {
                self.pair(p, m, kind, at, at.j, at.j, i);
            } else {
                let a = self.xi(alpha_vt[i]);
                self.pair(a, p, kind, at, at.j, at.j, i);
                self.pair(Sx::constant(1.0) - a, m, kind, at, at.j, at.j, i);
            }
        }
    }
}
