//! Step equilibration (§3.8): the switch indicator `η_n` at the interior grid point between
//! elements `n − 1` and `n` of one control interval, and the `direct` constraint (26).
//!
//! Per contact `ℓ` (§3.8.1, with the left-boundary gap `f_c(q_{n,0}) ≡ Y_n` and the
//! right-boundary gap of Gauss–Legendre included in the sums):
//! `κ = f_c(q_{n,0}) σ^{f,B} σ^{f,F} + σ^{λ,B} σ^{λ,F}` — with the `f_c(q_{n,0})` factor that
//! nosnoc omits (§7 item 11), so elastic impacts are flagged.
//!
//! Friction (§3.8.2), only for contacts with friction:
//! `ζ = (σ^{f,B} + σ^{f,F}) + Σ_k (π^{ξ+}_k + π^{ξ−}_k) + π^β` for the conic model (the `ξ`
//! terms only with Abs/Lp), and — our polyhedral analogue, not in [P] or nosnoc —
//! `ζ = (σ^{f,B} + σ^{f,F}) + Σ_i π^{δ_i} + π^{β_d}`, because with `D = [J_t, −J_t]` the two
//! halves of `δ_d` behave like `2ξ_+`, `2ξ_−` in slip and vanish in stick, and `β_d` like `β`
//! (the five cases of Table 2 give the same zeros). `ν = κ ζ` (or `κ`), `η = Π_ℓ ν` (P-30).

use crate::ad::{Scalar, Sx};

use super::error::FesdjError;
use super::layout::{ElementIndex, FrictionIndex};
use super::mpcc::{RowKind, SwitchIndicator};
use super::options::StepEquilibration;
use super::transcription::{sum, At, Builder};

impl Builder<'_> {
    /// Gap values at all points `j = 0..` of an element (left boundary: `Y`, or `f_c(q_{n,0})`
    /// where no impulse block exists).
    fn gap_members(&self, e: &ElementIndex, l: usize) -> Result<Vec<Sx>, FesdjError> {
        let mut m = Vec::new();
        match &e.impulse {
            Some(imp) => m.push(self.xi(imp.y_gap[l])),
            None => m.push(self.model.gaps(&self.x(&e.q0))?[l]),
        }
        for s in &e.stages {
            m.push(self.xi(s.y_gap[l]));
        }
        if let Some(rb) = &e.right {
            m.push(self.xi(rb.y_gap[l]));
        }
        Ok(m)
    }

    /// Continuous "velocity-part" members per component (Abs/Lp `ξ±`, polyhedral `δ_d`) and the
    /// discontinuous cone members (`β`, `β_d`) of contact `l` in element `e`.
    fn friction_members(&self, e: &ElementIndex, l: usize) -> (Vec<Vec<Sx>>, Vec<Sx>) {
        let mut comps: Vec<Vec<Sx>> = Vec::new();
        let mut betas = Vec::new();
        let add = |comps: &mut Vec<Vec<Sx>>, vals: Vec<Sx>| {
            if comps.len() < vals.len() {
                comps.resize(vals.len(), Vec::new());
            }
            for (c, v) in comps.iter_mut().zip(vals) {
                c.push(v);
            }
        };
        let point = |f: &FrictionIndex| -> Vec<Sx> {
            match f {
                FrictionIndex::None => Vec::new(),
                FrictionIndex::Polyhedral { delta_d, .. } => self.x(delta_d),
                FrictionIndex::Conic { p_vt, n_vt, .. } => {
                    p_vt.iter().chain(n_vt).map(|&i| self.xi(i)).collect()
                }
            }
        };
        if let Some(imp) = &e.impulse {
            add(&mut comps, point(&imp.friction[l]));
        }
        for s in &e.stages {
            add(&mut comps, point(&s.friction[l]));
            match &s.friction[l] {
                FrictionIndex::Polyhedral { beta_d, .. } => betas.push(self.xi(*beta_d)),
                FrictionIndex::Conic { beta, .. } => betas.push(self.xi(*beta)),
                FrictionIndex::None => {}
            }
        }
        if let Some(rb) = &e.right {
            let vals: Vec<Sx> = rb.p_vt[l]
                .iter()
                .chain(&rb.n_vt[l])
                .map(|&i| self.xi(i))
                .collect();
            add(&mut comps, vals);
        }
        (comps, betas)
    }

    /// `η_n` (P-30) at the grid point between elements `n − 1` and `n` of interval `k`.
    pub(crate) fn switch_indicator(&self, k: usize, n: usize) -> Result<Sx, FesdjError> {
        let eb = self.layout.element(k, n - 1);
        let ef = self.layout.element(k, n);
        let mut nus = Vec::new();
        for l in 0..self.model.n_c() {
            let gb = self.gap_members(eb, l)?;
            let gf = self.gap_members(ef, l)?;
            let fc_n0 = gf[0];
            let (sfb, sff) = (sum(&gb), sum(&gf));
            let lb: Vec<Sx> = eb.stages.iter().map(|s| self.xi(s.lambda_n[l])).collect();
            let lf: Vec<Sx> = ef.stages.iter().map(|s| self.xi(s.lambda_n[l])).collect();
            let kappa = fc_n0 * sfb * sff + sum(&lb) * sum(&lf);
            let nu = if self.model.contacts()[l].has_friction() {
                let (cb, bb) = self.friction_members(eb, l);
                let (cf, bf) = self.friction_members(ef, l);
                let mut zeta_terms = vec![sfb + sff];
                for (b, f) in cb.iter().zip(&cf) {
                    zeta_terms.push(sum(b) * sum(f));
                }
                zeta_terms.push(sum(&bb) * sum(&bf));
                kappa * sum(&zeta_terms)
            } else {
                kappa
            };
            nus.push(nu);
        }
        let mut eta = Sx::one();
        for nu in nus {
            eta *= nu;
        }
        Ok(eta)
    }

    /// Record `η_n` and, for `direct`, add (26) `tanh(η_n/ε_η)(h_n − h_{n−1}) = 0`.
    pub(crate) fn step_equilibration(&mut self, k: usize, n: usize) -> Result<(), FesdjError> {
        let eta = self.switch_indicator(k, n)?;
        self.indicators.push(SwitchIndicator {
            interval: k,
            element: n,
            eta,
        });
        if self.o.step_equilibration == StepEquilibration::Direct && self.o.variable_steps() {
            let hb = self.h_sx(self.layout.element(k, n - 1));
            let hf = self.h_sx(self.layout.element(k, n));
            let r = (eta / self.o.step_equilibration_sigma).tanh() * (hf - hb);
            let at = At {
                k,
                n,
                j: Some(0),
                contact: None,
            };
            self.eqs(&[r], RowKind::StepEquilibration, at);
        }
        Ok(())
    }
}
