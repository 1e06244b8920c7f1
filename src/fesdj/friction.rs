//! Friction rows at one point, shared by the stage level (8), (5)/(5'), (14) and the impulse
//! level (11-poly), (11d)–(11e)/(11'), §2.5 (same equations, upper-case variables, `v = v⁺`).
//!
//! Polyhedral (default, `D = [J_t, −J_t]`, §1.4): `β_d − (μλ_n − eᵀλ_d) = 0` and
//! `δ_d − (Dᵀv + γ_d e) = 0` with the sign of the errata (§0.3: `+Dᵀv`).
//! Conic KKT (5a)/(11d): `−J_tᵀv − 2γλ_t = 0` (errata sign); slip-rate (5')/(11'):
//! `μλ_n J_tᵀv + ϑλ_t = 0`; cone (5b)/(11e): `β − ((μλ_n)² − ‖λ_t‖²) = 0`; Abs/Lp (6)/(14):
//! `J_tᵀv − ξ_+ + ξ_− = 0`.

use crate::ad::{Scalar, Sx};

use super::error::FesdjError;
use super::layout::{ElementIndex, FrictionIndex, StageIndex};
use super::linalg::mat_t_vec;
use super::mpcc::{PairKind, RowKind};
use super::options::ConicFormulation;
use super::transcription::{At, Builder, Geom};

impl Builder<'_> {
    /// Friction rows of contact `l` at one point with velocity `v`, normal force (or impulse)
    /// variable `lambda_n` and friction variables `fr`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn friction_rows(
        &mut self,
        at: At,
        impulse: bool,
        geo: &Geom,
        v: &[Sx],
        lambda_n: usize,
        l: usize,
        fr: &FrictionIndex,
    ) -> Result<(), FesdjError> {
        let mu = self.model.contacts()[l].mu;
        let ln = self.xi(lambda_n);
        match fr {
            FrictionIndex::None => {}
            FrictionIndex::Polyhedral {
                lambda_d,
                gamma_d,
                beta_d,
                delta_d,
            } => {
                let n_t = lambda_d.len() / 2;
                let vt = mat_t_vec(&geo.jt[l], n_t, v);
                let sum_ld = super::transcription::sum(&self.x(lambda_d));
                let r = self.xi(*beta_d) - (ln * mu - sum_ld);
                let kind = if impulse {
                    RowKind::ImpulseFrictionBeta
                } else {
                    RowKind::StageFrictionBeta
                };
                self.eqs(&[r], kind, at);
                let gd = self.xi(*gamma_d);
                let dd = self.x(delta_d);
                let r: Vec<Sx> = (0..2 * n_t)
                    .map(|i| {
                        let dtv = if i < n_t { vt[i] } else { -vt[i - n_t] };
                        dd[i] - (dtv + gd)
                    })
                    .collect();
                let kind = if impulse {
                    RowKind::ImpulseFrictionDirection
                } else {
                    RowKind::StageFrictionDirection
                };
                self.eqs(&r, kind, at);
            }
            FrictionIndex::Conic {
                lambda_t,
                gamma,
                beta,
                p_vt,
                n_vt,
                ..
            } => {
                let n_t = lambda_t.len();
                let vt = mat_t_vec(&geo.jt[l], n_t, v);
                let lt = self.x(lambda_t);
                let g = self.xi(*gamma);
                let r: Vec<Sx> = match self.o.conic_formulation {
                    ConicFormulation::Kkt => (0..n_t).map(|i| -vt[i] - g * lt[i] * 2.0).collect(),
                    ConicFormulation::SlipRate => {
                        (0..n_t).map(|i| ln * vt[i] * mu + g * lt[i]).collect()
                    }
                };
                let kind = if impulse {
                    RowKind::ImpulseFrictionDirection
                } else {
                    RowKind::StageFrictionDirection
                };
                self.eqs(&r, kind, at);
                let norm2 =
                    super::transcription::sum(&lt.iter().map(|x| x.sq()).collect::<Vec<_>>());
                let r = self.xi(*beta) - ((ln * mu).sq() - norm2);
                let kind = if impulse {
                    RowKind::ImpulseFrictionCone
                } else {
                    RowKind::StageFrictionCone
                };
                self.eqs(&[r], kind, at);
                if !p_vt.is_empty() {
                    let p = self.x(p_vt);
                    let m = self.x(n_vt);
                    let r: Vec<Sx> = (0..n_t).map(|i| vt[i] - p[i] + m[i]).collect();
                    let kind = if impulse {
                        RowKind::ImpulseTangentialVelocity
                    } else {
                        RowKind::StageTangentialVelocity
                    };
                    self.eqs(&r, kind, at);
                }
            }
        }
        Ok(())
    }

    /// Friction rows of every contact at stage `s` (position geometry `geo`, velocity `v`).
    pub(crate) fn stage_friction_rows(
        &mut self,
        at: At,
        geo: &Geom,
        v: &[Sx],
        s: &StageIndex,
    ) -> Result<(), FesdjError> {
        for l in 0..self.model.n_c() {
            let fr = s.friction[l].clone();
            let at_l = At {
                contact: Some(l),
                ..at
            };
            self.friction_rows(at_l, false, geo, v, s.lambda_n[l], l, &fr)?;
        }
        Ok(())
    }

    /// Time stepping (§4.7): only the stage-wise complementarities (13a), (13d)/(5'), (14),
    /// (8) at every stage point.
    pub(crate) fn stage_pairs(&mut self, k: usize, n: usize, e: &ElementIndex) {
        for (jm1, s) in e.stages.iter().enumerate() {
            let j = jm1 + 1;
            for l in 0..self.model.n_c() {
                let at = At {
                    k,
                    n,
                    j: Some(j),
                    contact: Some(l),
                };
                let (a, b) = (self.xi(s.lambda_n[l]), self.xi(s.y_gap[l]));
                self.pair(a, b, PairKind::StageContact, at, Some(j), Some(j), 0);
                match s.friction[l].clone() {
                    FrictionIndex::None => {}
                    FrictionIndex::Polyhedral {
                        lambda_d,
                        gamma_d,
                        beta_d,
                        delta_d,
                    } => {
                        for (i, (&ld, &dd)) in lambda_d.iter().zip(&delta_d).enumerate() {
                            let (a, b) = (self.xi(ld), self.xi(dd));
                            self.pair(a, b, PairKind::StageFriction, at, Some(j), Some(j), i);
                        }
                        let (a, b) = (self.xi(gamma_d), self.xi(beta_d));
                        self.pair(a, b, PairKind::StageFriction, at, Some(j), Some(j), 0);
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
                        self.pair(a, b, PairKind::StageFriction, at, Some(j), Some(j), 0);
                        self.tangential_pairs(at, &p_vt, &n_vt, &alpha_vt, false);
                    }
                }
            }
        }
    }
}
