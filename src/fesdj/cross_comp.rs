//! Cross complementarity (§3.7): in every family the discontinuous members `a_j` at the stage
//! points of element `n` are complementary to the continuous members `b_{j'}` at every point of
//! the same element, including the left boundary `j' = 0` (impulse-level values) and, for
//! Gauss–Legendre, the right boundary `j' = n_s + 1` (§3.7.4 [spec]).
//!
//! | family | `a_j` | `b_{j'}` |
//! |---|---|---|
//! | contact (20) | `λ_{n,n,j}` | `Y_n`, `y_{n,j'}`, `y_{n,n_s+1}` |
//! | polyhedral edges | `λ_{d,n,j}` (componentwise) | `Δ_{d,n}`, `δ_{d,n,j'}` |
//! | polyhedral cone | `β_{d,n,j}` | `Γ_{d,n}`, `γ_{d,n,j'}` |
//! | conic (21) | `β_{n,j}` | `Γ_n` (KKT) or `ϑ_{n,0} = eᵀ(P_vt + N_vt)` (slip rate), `γ_{n,j'}` |
//! | Abs (22) | `ξ_{+,n,j}`, `j = 0..` | `ξ_{−,n,j'}`, `j' = 0..` (symmetric; `(0, 0)` is the impulse pair) |
//! | Lp | `α_{n,j}` / `1 − α_{n,j}` | `ξ_{+,n,j'}` / `ξ_{−,n,j'}` |
//!
//! aggregated per `cross_comp_mode` (§3.7.5, the HEAD scheme: sum the variables, then one
//! product). The standard complementarities are the diagonal members and are not added again
//! (§7 item 4). Where an impulse block does not exist, the boundary members are omitted, except
//! the left-boundary gap with `initial_element_gap` ([`ElementIndex::left_gap`]).

use crate::ad::Sx;

use super::layout::{ElementIndex, FrictionIndex};
use super::mpcc::PairKind;
use super::options::{ConicFormulation, CrossCompMode};
use super::transcription::{sum, At, Builder};

/// A member with the point it belongs to.
type Member = (usize, Sx);

impl Builder<'_> {
    /// Emit the pairs of one family for the configured mode; `skip` drops one (j, j') pair of
    /// `STAGE_STAGE` (the Abs impulse pair, imposed in the impulse block).
    #[allow(clippy::too_many_arguments)]
    fn family(
        &mut self,
        a: &[Member],
        b: &[Member],
        skip: Option<(usize, usize)>,
        kind: PairKind,
        at: At,
        component: usize,
    ) {
        if a.is_empty() || b.is_empty() {
            return;
        }
        let sa = || sum(&a.iter().map(|m| m.1).collect::<Vec<_>>());
        let sb = || sum(&b.iter().map(|m| m.1).collect::<Vec<_>>());
        match self.o.cross_comp_mode {
            CrossCompMode::StageStage => {
                for &(j, x) in a {
                    for &(j2, y) in b {
                        if skip == Some((j, j2)) {
                            continue;
                        }
                        self.pair(x, y, kind, at, Some(j), Some(j2), component);
                    }
                }
            }
            CrossCompMode::FeStage => {
                let s = sa();
                for &(j2, y) in b {
                    self.pair(s, y, kind, at, None, Some(j2), component);
                }
            }
            CrossCompMode::StageFe => {
                let s = sb();
                for &(j, x) in a {
                    self.pair(x, s, kind, at, Some(j), None, component);
                }
            }
            CrossCompMode::FeFe => {
                let (x, y) = (sa(), sb());
                self.pair(x, y, kind, at, None, None, component);
            }
        }
    }

    /// All cross-complementarity families of element `(k, n)` (§3.7.5).
    pub(crate) fn cross_complementarity(&mut self, k: usize, n: usize, e: &ElementIndex) {
        let rbj = self.n_s + 1;
        for l in 0..self.model.n_c() {
            let at = At {
                k,
                n,
                j: None,
                contact: Some(l),
            };
            // Contact (20).
            let a: Vec<Member> = e
                .stages
                .iter()
                .enumerate()
                .map(|(j, s)| (j + 1, self.xi(s.lambda_n[l])))
                .collect();
            let mut b: Vec<Member> = Vec::new();
            if let Some(imp) = &e.impulse {
                b.push((0, self.xi(imp.y_gap[l])));
            } else if let Some(&y) = e.left_gap.get(l) {
                b.push((0, self.xi(y)));
            }
            for (j, s) in e.stages.iter().enumerate() {
                b.push((j + 1, self.xi(s.y_gap[l])));
            }
            if let Some(rb) = &e.right {
                b.push((rbj, self.xi(rb.y_gap[l])));
            }
            self.family(&a, &b, None, PairKind::ContactCross, at, 0);

            let imp_fr = e.impulse.as_ref().map(|i| i.friction[l].clone());
            let stage_fr: Vec<FrictionIndex> =
                e.stages.iter().map(|s| s.friction[l].clone()).collect();
            match &stage_fr.first() {
                None | Some(FrictionIndex::None) => {}
                Some(FrictionIndex::Polyhedral { lambda_d, .. }) => {
                    let n_d = lambda_d.len();
                    for i in 0..n_d {
                        let mut a = Vec::new();
                        let mut b = Vec::new();
                        if let Some(FrictionIndex::Polyhedral { delta_d, .. }) = &imp_fr {
                            b.push((0, self.xi(delta_d[i])));
                        }
                        for (j, f) in stage_fr.iter().enumerate() {
                            if let FrictionIndex::Polyhedral {
                                lambda_d, delta_d, ..
                            } = f
                            {
                                a.push((j + 1, self.xi(lambda_d[i])));
                                b.push((j + 1, self.xi(delta_d[i])));
                            }
                        }
                        self.family(&a, &b, None, PairKind::PolyhedralEdgeCross, at, i);
                    }
                    let mut a = Vec::new();
                    let mut b = Vec::new();
                    if let Some(FrictionIndex::Polyhedral { gamma_d, .. }) = &imp_fr {
                        b.push((0, self.xi(*gamma_d)));
                    }
                    for (j, f) in stage_fr.iter().enumerate() {
                        if let FrictionIndex::Polyhedral {
                            gamma_d, beta_d, ..
                        } = f
                        {
                            a.push((j + 1, self.xi(*beta_d)));
                            b.push((j + 1, self.xi(*gamma_d)));
                        }
                    }
                    self.family(&a, &b, None, PairKind::PolyhedralConeCross, at, 0);
                }
                Some(FrictionIndex::Conic { lambda_t, .. }) => {
                    let n_t = lambda_t.len();
                    // (21): β_j ⊥ Γ / ϑ_{n,0}, γ_{j'}.
                    let mut a = Vec::new();
                    let mut b = Vec::new();
                    if let Some(FrictionIndex::Conic {
                        gamma, p_vt, n_vt, ..
                    }) = &imp_fr
                    {
                        match self.o.conic_formulation {
                            ConicFormulation::Kkt => b.push((0, self.xi(*gamma))),
                            ConicFormulation::SlipRate => {
                                // ϑ_{n,0} := eᵀ(ξ_{+,n,0} + ξ_{−,n,0}) (§1.5); omitted for
                                // `plain`, which has no ξ±.
                                if !p_vt.is_empty() {
                                    let m: Vec<Sx> =
                                        p_vt.iter().chain(n_vt).map(|&i| self.xi(i)).collect();
                                    b.push((0, sum(&m)));
                                }
                            }
                        }
                    }
                    for (j, f) in stage_fr.iter().enumerate() {
                        if let FrictionIndex::Conic { gamma, beta, .. } = f {
                            a.push((j + 1, self.xi(*beta)));
                            b.push((j + 1, self.xi(*gamma)));
                        }
                    }
                    self.family(&a, &b, None, PairKind::ConicCross, at, 0);
                    // (22) Abs / Lp.
                    for i in 0..n_t {
                        let mut plus: Vec<Member> = Vec::new();
                        let mut minus: Vec<Member> = Vec::new();
                        let mut alpha: Vec<Member> = Vec::new();
                        if let Some(FrictionIndex::Conic { p_vt, n_vt, .. }) = &imp_fr {
                            if !p_vt.is_empty() {
                                plus.push((0, self.xi(p_vt[i])));
                                minus.push((0, self.xi(n_vt[i])));
                            }
                        }
                        for (j, f) in stage_fr.iter().enumerate() {
                            if let FrictionIndex::Conic {
                                p_vt,
                                n_vt,
                                alpha_vt,
                                ..
                            } = f
                            {
                                if !p_vt.is_empty() {
                                    plus.push((j + 1, self.xi(p_vt[i])));
                                    minus.push((j + 1, self.xi(n_vt[i])));
                                }
                                if !alpha_vt.is_empty() {
                                    alpha.push((j + 1, self.xi(alpha_vt[i])));
                                }
                            }
                        }
                        if let Some(rb) = &e.right {
                            if !rb.p_vt[l].is_empty() {
                                plus.push((rbj, self.xi(rb.p_vt[l][i])));
                                minus.push((rbj, self.xi(rb.n_vt[l][i])));
                            }
                        }
                        let kind = PairKind::TangentialVelocityCross;
                        if alpha.is_empty() {
                            let skip = e.impulse.as_ref().map(|_| (0, 0));
                            self.family(&plus, &minus, skip, kind, at, i);
                        } else {
                            let one_minus: Vec<Member> = alpha
                                .iter()
                                .map(|&(j, a)| (j, Sx::constant(1.0) - a))
                                .collect();
                            self.family(&alpha, &plus, None, kind, at, i);
                            self.family(&one_minus, &minus, None, kind, at, i);
                        }
                    }
                }
            }
        }
    }
}
