//! Test ladder item 3 (spec §9): the impulse block of §2.5 alone, and the sign of the
//! polyhedral friction law (§7 item 2, ladder item 8's "a sliding particle must decelerate").
//!
//! The block is taken from a transcription (element 1 of a two-element interval): only its own
//! rows and pairs, plus (18) where stated, are checked at the spec's listed points.

use crate::support::fesdj_common as common;

use common::{ball_1d, ball_2d, G};
use fesdj_mpc::fesdj::layout::FrictionIndex;
use fesdj_mpc::fesdj::{
    transcribe, CrossCompMode, FesdjOptions, Ocp, PairKind, RkScheme, RowKind, Transcription,
};

const TOL: f64 = 1e-12;

fn options() -> FesdjOptions {
    FesdjOptions {
        scheme: RkScheme::RadauIia,
        n_s: 1,
        n_fe: 2,
        t_final: 0.5,
        cross_comp_mode: CrossCompMode::FeStage,
        ..FesdjOptions::default()
    }
}

const BLOCK_ROWS: [RowKind; 6] = [
    RowKind::ImpulseVelocity,
    RowKind::ImpulseGap,
    RowKind::NormalVelocityA2,
    RowKind::ImpulseFrictionBeta,
    RowKind::ImpulseFrictionDirection,
    RowKind::ImpulseTangentialVelocity,
];
const BLOCK_PAIRS: [PairKind; 5] = [
    PairKind::ImpulseNormal,
    PairKind::ImpulseNormalVelocity,
    PairKind::ImpulseFrictionEdge,
    PairKind::ImpulseFrictionCone,
    PairKind::ImpulseTangentialVelocity,
];

/// True if the impulse block of element `n` (and (18) there if `with_gap`) holds at `w`, and
/// every variable set in `w` (non-NaN) respects its bounds.
fn block_holds(m: &Transcription, w: &[f64], n: usize, with_gap: bool) -> bool {
    let vals = m.evaluate(w, &[]).unwrap();
    let rows_ok = m.g_info.iter().enumerate().all(|(i, r)| {
        if r.element != Some(n) {
            return true;
        }
        if BLOCK_ROWS.contains(&r.kind) {
            vals.g[i].abs() <= TOL
        } else if r.kind == RowKind::ExtraGap && with_gap {
            vals.g[i] >= -TOL
        } else {
            true
        }
    });
    let pairs_ok = m.comp_info.iter().enumerate().all(|(i, p)| {
        p.element != n
            || !BLOCK_PAIRS.contains(&p.kind)
            || (vals.comp_g[i] * vals.comp_h[i]).abs() <= TOL
    });
    let bounds_ok = w
        .iter()
        .enumerate()
        .all(|(i, &x)| x.is_nan() || (x >= m.lbw[i] && x <= m.ubw[i]));
    rows_ok && pairs_ok && bounds_ok
}

/// Point of the 1D block: position q at t_1, pre-impact v⁻ = −2, unknowns (v⁺, Λ, Υ+, Υ−);
/// Y = f_c(q) = q. Unused variables are NaN (they do not enter the block's rows).
fn point_1d(m: &Transcription, q: f64, vplus: f64, lam: f64, up: f64, um: f64) -> Vec<f64> {
    let l = &m.layout;
    let mut w = vec![f64::NAN; m.n_w()];
    let (_, vm) = l.pre_impact(0, 1);
    w[vm[0]] = -2.0;
    w[l.q(0, 1, 0).unwrap()[0]] = q;
    w[l.v(0, 1, 0).unwrap()[0]] = vplus;
    w[l.h(0, 1).unwrap()] = 0.25;
    let imp = l.impulse(0, 1).unwrap();
    w[imp.lambda_n[0]] = lam;
    w[imp.y_gap[0]] = q;
    w[imp.p_vn[0]] = up;
    w[imp.n_vn[0]] = um;
    w
}

#[test]
fn one_dimensional_block() {
    let m = transcribe(&Ocp::new(ball_1d(0.5, G), vec![1.0, 0.0]), &options()).unwrap();
    // q = 0.1: the only solution is no impulse, v⁺ = v⁻, Υ− = (1 + e)·2 = 3.
    assert!(block_holds(
        &m,
        &point_1d(&m, 0.1, -2.0, 0.0, 0.0, 3.0),
        1,
        false
    ));
    assert!(block_holds(
        &m,
        &point_1d(&m, 0.1, -2.0, 0.0, 0.0, 3.0),
        1,
        true
    ));
    // ... the impact is not a solution there (Λ ⊥ Y + Υ+ + Υ− fails), nor is a non-unique Υ.
    assert!(!block_holds(
        &m,
        &point_1d(&m, 0.1, 1.0, 3.0, 0.0, 0.0),
        1,
        false
    ));
    assert!(!block_holds(
        &m,
        &point_1d(&m, 0.1, -2.0, 0.0, 1.0, 4.0),
        1,
        false
    ));
    // q = 0: two solutions of the block alone ...
    let impact = point_1d(&m, 0.0, 1.0, 3.0, 0.0, 0.0);
    let spurious = point_1d(&m, 0.0, -2.0, 0.0, 0.0, 3.0);
    assert!(block_holds(&m, &impact, 1, false));
    assert!(block_holds(&m, &spurious, 1, false));
    // ... and (18) with h > 0 (ε_c h v⁺ ≥ 0) leaves only the impact.
    assert!(block_holds(&m, &impact, 1, true));
    assert!(!block_holds(&m, &spurious, 1, true));
}

/// Polyhedral frictional impulse of the 2D ball (§6.4 item 2 at q_y = 0, v⁻ = (4, −√20),
/// μ = 0.3, ε_r = 0, with (18)).
#[test]
fn polyhedral_frictional_impulse() {
    let m = transcribe(
        &Ocp::new(ball_2d(0.3, 0.0, 10.0), vec![0.0, 1.0, 4.0, 0.0]),
        &options(),
    )
    .unwrap();
    let l = &m.layout;
    let imp = l.impulse(0, 1).unwrap().clone();
    let FrictionIndex::Polyhedral {
        lambda_d,
        gamma_d,
        beta_d,
        delta_d,
    } = imp.friction[0].clone()
    else {
        panic!("polyhedral friction expected by default");
    };
    let point = |lam_n: f64, lam_d: [f64; 2], vplus: [f64; 2], gd: f64| {
        let mut w = vec![f64::NAN; m.n_w()];
        let (_, vm) = l.pre_impact(0, 1);
        w[vm[0]] = 4.0;
        w[vm[1]] = -(20f64.sqrt());
        let q = l.q(0, 1, 0).unwrap();
        w[q[0]] = 1.0;
        w[q[1]] = 0.0;
        let v = l.v(0, 1, 0).unwrap();
        w[v[0]] = vplus[0];
        w[v[1]] = vplus[1];
        w[l.h(0, 1).unwrap()] = 0.25;
        w[imp.lambda_n[0]] = lam_n;
        w[imp.y_gap[0]] = 0.0;
        // Υ+ − Υ− = J_nᵀ v⁺ (ε_r = 0).
        w[imp.p_vn[0]] = vplus[1].max(0.0);
        w[imp.n_vn[0]] = (-vplus[1]).max(0.0);
        w[lambda_d[0]] = lam_d[0];
        w[lambda_d[1]] = lam_d[1];
        w[gamma_d] = gd;
        w[beta_d] = 0.3 * lam_n - lam_d[0] - lam_d[1];
        w[delta_d[0]] = vplus[0] + gd;
        w[delta_d[1]] = -vplus[0] + gd;
        w
    };
    let (lam_n, lam_t, vx) = (4.47213595499958, 1.34164078649987, 2.65835921350013);
    let sol = point(lam_n, [0.0, lam_t], [vx, 0.0], vx);
    assert!(block_holds(&m, &sol, 1, true));
    // Λ_t = D·Λ_d = −1.3416 opposes the slip; the frictionless impact is not a solution
    // (it needs Γ_d = −4 < 0 or violates Γ_d ⊥ B_d); nor is friction pushing forward.
    assert!(!block_holds(
        &m,
        &point(lam_n, [0.0, 0.0], [4.0, 0.0], 4.0),
        1,
        true
    ));
    assert!(!block_holds(
        &m,
        &point(lam_n, [0.0, 0.0], [4.0, 0.0], 0.0),
        1,
        true
    ));
    assert!(!block_holds(
        &m,
        &point(lam_n, [lam_t, 0.0], [4.0 + lam_t, 0.0], -5.0),
        1,
        true
    ));
}

/// A particle sliding with v_x = 1 on the ground under λ_n = g: the stage friction rows of
/// (8) admit the decelerating force λ_d = (0, μλ_n) (D λ_d = −μλ_n) and not the accelerating
/// one, and the stage equation (12b) then reduces v_x by h μ g.
#[test]
fn sliding_particle_decelerates() {
    let (mu, g) = (0.3, 10.0);
    let m = transcribe(
        &Ocp::new(ball_2d(mu, 0.0, g), vec![0.0, 0.0, 1.0, 0.0]),
        &options(),
    )
    .unwrap();
    let l = &m.layout;
    let st = l.stage(0, 0, 1).clone();
    let FrictionIndex::Polyhedral {
        lambda_d,
        gamma_d,
        beta_d,
        delta_d,
    } = st.friction[0].clone()
    else {
        panic!("polyhedral friction expected");
    };
    let h = 0.25;
    let rows_at = |lam_d: [f64; 2], gd: f64, vx_end: f64| {
        let mut w = vec![0.0; m.n_w()];
        w[l.x0_v[0]] = 1.0;
        w[l.h(0, 0).unwrap()] = h;
        w[l.v(0, 0, 0).unwrap()[0]] = 1.0;
        w[st.q[0]] = h * vx_end;
        w[st.v[0]] = vx_end;
        w[st.lambda_n[0]] = g;
        w[lambda_d[0]] = lam_d[0];
        w[lambda_d[1]] = lam_d[1];
        w[gamma_d] = gd;
        w[beta_d] = mu * g - lam_d[0] - lam_d[1];
        w[delta_d[0]] = vx_end + gd;
        w[delta_d[1]] = -vx_end + gd;
        let vals = m.evaluate(&w, &[]).unwrap();
        let rows_ok = m.g_info.iter().enumerate().all(|(i, r)| {
            r.element != Some(0)
                || r.point != Some(1)
                || !matches!(
                    r.kind,
                    RowKind::StageVelocity
                        | RowKind::StageFrictionBeta
                        | RowKind::StageFrictionDirection
                )
                || vals.g[i].abs() <= TOL
        });
        let pairs_ok = m.comp_info.iter().enumerate().all(|(i, p)| {
            p.element != 0
                || !matches!(
                    p.kind,
                    PairKind::PolyhedralEdgeCross | PairKind::PolyhedralConeCross
                )
                || p.j2 != Some(1)
                || (vals.comp_g[i] * vals.comp_h[i]).abs() <= TOL
        });
        let bounds_ok = w
            .iter()
            .enumerate()
            .all(|(i, &x)| x >= m.lbw[i] && x <= m.ubw[i]);
        rows_ok && pairs_ok && bounds_ok
    };
    let vx_dec = 1.0 - h * mu * g;
    assert!(rows_at([0.0, mu * g], vx_dec, vx_dec));
    let vx_acc = 1.0 + h * mu * g;
    assert!(!rows_at([mu * g, 0.0], -vx_acc, vx_acc));
    assert!(!rows_at([mu * g, 0.0], vx_acc, vx_acc));
}

/// `no_initial_impacts` removes the impulse block at n = 0 of **every** control interval
/// (§3.6, §7 item 6), replacing (17) by v_{n,0} = v_n. (The spec's structure, i.e. without our
/// `initial_element_gap`, which is checked at the end.)
#[test]
fn no_initial_impacts_in_every_interval() {
    let o = FesdjOptions {
        n_intervals: 3,
        n_fe: 2,
        t_final: 1.5,
        no_initial_impacts: true,
        initial_element_gap: false,
        ..options()
    };
    let m = transcribe(&Ocp::new(ball_1d(0.5, G), vec![1.0, 0.0]), &o).unwrap();
    for k in 0..3 {
        assert!(m.layout.impulse(k, 0).is_none(), "interval {k}");
        assert!(m.layout.impulse(k, 1).is_some(), "interval {k}");
        let cont = m
            .g_info
            .iter()
            .filter(|r| r.kind == RowKind::VelocityContinuity && r.interval == Some(k))
            .count();
        assert_eq!(cont, 1);
        let imp = m
            .g_info
            .iter()
            .filter(|r| r.kind == RowKind::ImpulseVelocity && r.interval == Some(k))
            .collect::<Vec<_>>();
        assert_eq!(imp.len(), 1);
        assert_eq!(imp[0].element, Some(1));
        // No pair has a boundary member at n = 0.
        assert!(m
            .comp_info
            .iter()
            .filter(|p| p.interval == k && p.element == 0)
            .all(|p| p.j2 != Some(0) && p.kind == PairKind::ContactCross));
    }
    // Per interval: 11 variables per element minus 4 impulse variables at n = 0, plus h.
    assert_eq!(m.n_w(), 2 + 3 * (11 + 7));
    // With `initial_element_gap` (the default): one lifted gap Y_0 = f_c(q_{0,0}) per interval,
    // its row, and the contact pair with j' = 0 at n = 0 (FE_STAGE: one pair).
    let ball = |o: &FesdjOptions| transcribe(&Ocp::new(ball_1d(0.5, G), vec![1.0, 0.0]), o);
    let og = FesdjOptions {
        initial_element_gap: true,
        ..o.clone()
    };
    let mg = ball(&og).unwrap();
    assert_eq!(mg.n_w(), m.n_w() + 3);
    assert_eq!(mg.n_g(), m.n_g() + 3);
    // With `share_left_gap` only the first interval lifts its own; the others take the
    // previous element's end-point gap, f_c of the same position (the last stage of Radau IIA
    // is at c = 1), and the interval variable lists keep one structure.
    let os = FesdjOptions {
        share_left_gap: true,
        ..og.clone()
    };
    let ms = ball(&os).unwrap();
    assert_eq!(ms.n_w(), m.n_w() + 1);
    assert_eq!(ms.n_g(), m.n_g() + 1);
    for k in 0..3 {
        assert_eq!(mg.layout.element(k, 0).left_gap.len(), 1);
        assert!(mg.layout.element(k, 0).left_gap_own);
        assert!(mg.layout.element(k, 1).left_gap.is_empty());
        let e = ms.layout.element(k, 0);
        assert_eq!(e.left_gap_own, k == 0);
        if k > 0 {
            let prev = ms.layout.element(k - 1, 1);
            assert_eq!(e.left_gap, prev.stages.last().unwrap().y_gap);
        }
        assert_eq!(
            ms.layout.interval_variables(k).len(),
            ms.layout.interval_variables(0).len()
        );
        for (model, own) in [(&mg, 1), (&ms, usize::from(k == 0))] {
            let rows = model
                .g_info
                .iter()
                .filter(|r| r.kind == RowKind::LeftGap && r.interval == Some(k))
                .count();
            assert_eq!(rows, own);
            let boundary = model
                .comp_info
                .iter()
                .filter(|p| p.interval == k && p.element == 0 && p.j2 == Some(0))
                .count();
            assert_eq!(boundary, 1);
        }
    }
    // Without the option: impulse blocks everywhere but never at T.
    let o = FesdjOptions {
        no_initial_impacts: false,
        ..o
    };
    let m = transcribe(&Ocp::new(ball_1d(0.5, G), vec![1.0, 0.0]), &o).unwrap();
    let n_blocks = m
        .g_info
        .iter()
        .filter(|r| r.kind == RowKind::ImpulseVelocity)
        .count();
    assert_eq!(n_blocks, 6);
}
