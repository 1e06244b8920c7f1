//! Test ladder items 4 (structural part), 5 and 6 (spec §9): the worked instance of §8.
//!
//! All expected numbers are the spec's (§8.2–§8.5, §9); the library computes nothing from them.
// The spec's numbers are kept digit for digit as printed.
#![allow(clippy::excessive_precision)]

use crate::support::fesdj_common as common;

use common::{instance_s8, options_s8, G, MODES};
use fesdj_mpc::ad::{gradient_sx, Function};
use fesdj_mpc::fesdj::{
    CrossCompMode, FesdjOptions, PairKind, RowKind, StepEquilibration, Transcription,
};

/// §8.5 solution in the order of the §8.2 table (variables 1..24).
fn solution_s8() -> Vec<f64> {
    let h0 = 0.2257618204928655;
    let h1 = 0.2742381795071345;
    let v01 = -2.214723459035010;
    let big_l1 = 3.322085188552515;
    let v10 = 1.107361729517505;
    let l11 = 5.772043901007241;
    vec![
        0.5, 0.0, // q0, v0
        h0, 0.0, 0.5, 0.0, 0.0, // h0, Λ0, Y0, Υ+0, Υ−0
        0.5, 0.0, // q00, v00
        0.0, v01, 0.0, 0.0, // q01, v01, λ01, y01
        h1, big_l1, 0.0, 0.0, 0.0, // h1, Λ1, Y1, Υ+1, Υ−1
        0.0, v10, // q10, v10
        0.0, 0.0, l11, 0.0, // q11, v11, λ11, y11
    ]
}

/// Indices (0-based) of the §8.2 table in our layout, read through the layout queries.
fn table_indices(m: &Transcription) -> Vec<usize> {
    let l = &m.layout;
    let mut idx = vec![l.x0_q[0], l.x0_v[0]];
    for n in 0..2 {
        let imp = l.impulse(0, n).expect("impulse block");
        let st = l.stage(0, n, 1);
        idx.extend([
            l.h(0, n).expect("h"),
            imp.lambda_n[0],
            imp.y_gap[0],
            imp.p_vn[0],
            imp.n_vn[0],
            l.q(0, n, 0).unwrap()[0],
            l.v(0, n, 0).unwrap()[0],
            st.q[0],
            st.v[0],
            st.lambda_n[0],
            st.y_gap[0],
        ]);
    }
    idx
}

fn to_w(m: &Transcription, table: &[f64]) -> Vec<f64> {
    let mut w = vec![f64::NAN; m.n_w()];
    for (&i, &x) in table_indices(m).iter().zip(table) {
        w[i] = x;
    }
    w
}

/// The variables are ordered exactly as the §8.2 table (variables ordered by element).
#[test]
fn layout_matches_the_table() {
    for mode in MODES {
        let m = instance_s8(0.5, &options_s8(mode));
        assert_eq!(m.n_w(), 24, "{mode:?}");
        assert_eq!(table_indices(&m), (0..24).collect::<Vec<_>>(), "{mode:?}");
        // Bounds and initial guess of §8.2.
        let inf = f64::INFINITY;
        let b = |i: usize| (m.lbw[i], m.ubw[i], m.w0[i]);
        assert_eq!(b(0), (0.5, 0.5, 0.5));
        assert_eq!(b(1), (0.0, 0.0, 0.0));
        for base in [2, 13] {
            assert_eq!(b(base), (0.0, 0.5, 0.25), "h");
            assert_eq!(b(base + 1), (0.0, inf, 0.0), "Λ");
            for off in 2..=4 {
                assert_eq!(b(base + off), (0.0, inf, 1.0), "Y, Υ±");
            }
            assert_eq!(b(base + 5), (-inf, inf, 0.5), "q_n0");
            assert_eq!(b(base + 6), (-inf, inf, 0.0), "v_n0");
            assert_eq!(b(base + 7), (-inf, inf, 0.5), "q_n1");
            assert_eq!(b(base + 8), (-inf, inf, 0.0), "v_n1");
            assert_eq!(b(base + 9), (0.0, inf, 1.0), "λ");
            assert_eq!(b(base + 10), (0.0, inf, 1.0), "y");
        }
        assert!(m.p.is_empty());
    }
}

/// §8.3: 17 rows in the table's order, 15 equalities and 2 inequalities, and each row is the
/// table's formula (checked at a random point; signs of whole rows are immaterial, ours agree).
#[test]
fn rows_match_the_table() {
    use RowKind::*;
    let kinds = [
        PositionJunction,
        ImpulseVelocity,
        ImpulseGap,
        NormalVelocityA2,
        StagePosition,
        StageVelocity,
        StageGap,
        ExtraGap,
    ];
    for mode in MODES {
        let m = instance_s8(0.5, &options_s8(mode));
        assert_eq!(m.n_g(), 17, "{mode:?}");
        let got: Vec<RowKind> = m.g_info.iter().map(|r| r.kind).collect();
        let mut want: Vec<RowKind> = kinds.iter().chain(&kinds).copied().collect();
        want.push(ClockSum);
        assert_eq!(got, want, "{mode:?}");
        for (i, (&lb, &ub)) in m.lbg.iter().zip(&m.ubg).enumerate() {
            if i == 7 || i == 15 {
                assert_eq!((lb, ub), (0.0, f64::INFINITY), "row {}", i + 1);
            } else {
                assert_eq!((lb, ub), (0.0, 0.0), "row {}", i + 1);
            }
        }
        // Random point in table order x[0..24].
        let x: Vec<f64> = (0..24)
            .map(|i| ((i * 7919 + 13) % 97) as f64 / 17.0 - 2.0)
            .collect();
        let vals = m.evaluate(&to_w(&m, &x), &[]).unwrap();
        let (e, eps, t) = (0.5, 1e-3, 0.5);
        let v = |i: usize| x[i - 1];
        // (q0, v0) = 1, 2; element 0: 3..13; element 1: 14..24.
        let want = [
            v(8) - v(1),
            v(9) - v(2) - v(4),
            v(5) - v(8),
            v(6) - v(7) - (v(9) + e * v(2)),
            v(10) - v(8) - v(3) * v(11),
            v(11) - v(9) - v(3) * (-G + v(12)),
            v(13) - v(10),
            v(8) + eps * v(3) * v(9),
            v(19) - v(10),
            v(20) - v(11) - v(15),
            v(16) - v(19),
            v(17) - v(18) - (v(20) + e * v(11)),
            v(21) - v(19) - v(14) * v(22),
            v(22) - v(20) - v(14) * (-G + v(23)),
            v(24) - v(21),
            v(19) + eps * v(14) * v(20),
            v(3) + v(14) - t,
        ];
        for (i, (g, w)) in vals.g.iter().zip(&want).enumerate() {
            assert!((g - w).abs() < 1e-12, "{mode:?} g_{}: {g} vs {w}", i + 1);
        }
    }
}

/// §8.4: 8 pairs (6 for STAGE_FE / FE_FE) with the table's members.
#[test]
fn pairs_match_the_table() {
    for mode in MODES {
        let m = instance_s8(0.5, &options_s8(mode));
        let x: Vec<f64> = (0..24).map(|i| 0.1 + i as f64 * 0.37).collect();
        let vals = m.evaluate(&to_w(&m, &x), &[]).unwrap();
        let v = |i: usize| x[i - 1];
        let (want_g, want_h, kinds): (Vec<f64>, Vec<f64>, Vec<PairKind>) = {
            use PairKind::*;
            let mut g = Vec::new();
            let mut h = Vec::new();
            let mut k = Vec::new();
            for base in [2usize, 13] {
                // Variables of element n: h=base+1, Λ=+2, Y=+3, Υ+=+4, Υ−=+5, q0=+6, v0=+7,
                // q1=+8, v1=+9, λ=+10, y=+11 (1-based).
                let (lam_imp, y0, up, um) = (v(base + 2), v(base + 3), v(base + 4), v(base + 5));
                let (lam, y1) = (v(base + 10), v(base + 11));
                g.extend([lam_imp, up]);
                h.extend([y0 + up + um, um]);
                k.extend([ImpulseNormal, ImpulseNormalVelocity]);
                match mode {
                    CrossCompMode::StageStage | CrossCompMode::FeStage => {
                        g.extend([lam, lam]);
                        h.extend([y0, y1]);
                        k.extend([ContactCross, ContactCross]);
                    }
                    CrossCompMode::StageFe | CrossCompMode::FeFe => {
                        g.push(lam);
                        h.push(y0 + y1);
                        k.push(ContactCross);
                    }
                }
            }
            (g, h, k)
        };
        let n_comp = match mode {
            CrossCompMode::StageFe | CrossCompMode::FeFe => 6,
            _ => 8,
        };
        assert_eq!(m.n_comp(), n_comp, "{mode:?}");
        assert_eq!(
            m.comp_info.iter().map(|p| p.kind).collect::<Vec<_>>(),
            kinds,
            "{mode:?}"
        );
        for i in 0..n_comp {
            assert!((vals.comp_g[i] - want_g[i]).abs() < 1e-12, "{mode:?} G_{i}");
            assert!((vals.comp_h[i] - want_h[i]).abs() < 1e-12, "{mode:?} H_{i}");
        }
    }
}

/// §8.5: the exact solution satisfies every row, bound and pair, with the listed objective
/// and inequality values (ladder item 5).
#[test]
fn exact_solution_is_feasible() {
    for mode in MODES {
        let m = instance_s8(0.5, &options_s8(mode));
        let w = to_w(&m, &solution_s8());
        let vals = m.evaluate(&w, &[]).unwrap();
        for (i, g) in vals.g.iter().enumerate() {
            if m.lbg[i] == m.ubg[i] {
                assert!(g.abs() <= 1e-12, "{mode:?} g_{} = {g:e}", i + 1);
            }
        }
        assert!((vals.g[7] - 0.5).abs() <= 1e-15, "g_8 = {}", vals.g[7]);
        assert!(
            (vals.g[15] - 3.036808647587525e-4).abs() <= 1e-15,
            "g_16 = {:e}",
            vals.g[15]
        );
        for (i, &x) in w.iter().enumerate() {
            assert!(x >= m.lbw[i] && x <= m.ubw[i], "bound of w_{i}");
        }
        for i in 0..m.n_comp() {
            assert!(vals.comp_g[i] >= 0.0 && vals.comp_h[i] >= 0.0);
            assert_eq!(vals.comp_g[i] * vals.comp_h[i], 0.0, "{mode:?} pair {i}");
        }
        assert_eq!(vals.comp_residual(), 0.0);
        assert!(
            (vals.f - 1.174978691640154e-3).abs() <= 1e-15,
            "f = {:.16e}",
            vals.f
        );
    }
}

/// The contact indicator at the interior grid point is κ_1 = 0 at the solution (§8.5), so
/// `direct` step equilibration adds one row that the solution satisfies.
#[test]
fn exact_solution_is_a_switch() {
    let o = FesdjOptions {
        step_equilibration: StepEquilibration::Direct,
        ..options_s8(CrossCompMode::FeStage)
    };
    let m = instance_s8(0.5, &o);
    assert_eq!(m.n_g(), 18);
    assert_eq!(m.g_info[16].kind, RowKind::StepEquilibration);
    let w = to_w(&m, &solution_s8());
    let vals = m.evaluate(&w, &[]).unwrap();
    assert_eq!(vals.g[16], 0.0);
    let eta = eval_scalar(&m, m.switch_indicators[0].eta, &w);
    assert_eq!(eta, 0.0);
    // direct mode has no penalty in the cost.
    assert_eq!(vals.f, 0.0);
}

fn eval_scalar(m: &Transcription, e: fesdj_mpc::ad::Sx, w: &[f64]) -> f64 {
    let f = Function::new("s", &[&m.w, &m.p], &[&[e]]).unwrap();
    let mut out = [0.0];
    f.eval(&[w, &[]], &mut [&mut out], &mut f.workspace())
        .unwrap();
    out[0]
}

/// The spurious point of §8.5 (Λ_1 = 0, λ_11 = 17.886): feasible without (18), and it
/// violates (18) by −6.0736e-4 with ε_c = 1e-3 (ladder item 6).
#[test]
fn gap_constraint_removes_the_spurious_solution() {
    let mut spurious = solution_s8();
    // 1-based table entries: Λ1 = 15, Υ+1 = 17, Υ−1 = 18, v10 = 20, λ11 = 23.
    spurious[14] = 0.0;
    spurious[16] = 0.0;
    spurious[17] = 3.322085188552515;
    spurious[19] = -2.214723459035010;
    spurious[22] = 17.88591219798552;
    for mode in MODES {
        let o = FesdjOptions {
            eps_cls: 0.0,
            ..options_s8(mode)
        };
        let m = instance_s8(0.5, &o);
        assert_eq!(m.n_g(), 15, "{mode:?}");
        assert!(m.g_info.iter().all(|r| r.kind != RowKind::ExtraGap));
        let vals = m.evaluate(&to_w(&m, &spurious), &[]).unwrap();
        for (i, g) in vals.g.iter().enumerate() {
            assert!(g.abs() <= 1e-12, "{mode:?} g_{} = {g:e}", i + 1);
        }
        assert_eq!(vals.comp_residual(), 0.0);
        // The physical solution is feasible too.
        let vals = m.evaluate(&to_w(&m, &solution_s8()), &[]).unwrap();
        assert!(vals.g.iter().all(|g| g.abs() <= 1e-12));

        let m = instance_s8(0.5, &options_s8(mode));
        let vals = m.evaluate(&to_w(&m, &spurious), &[]).unwrap();
        let g16 = vals.g[15];
        assert!(
            (g16 - -6.073617295175052e-4).abs() <= 1e-15,
            "g_16 = {g16:e}"
        );
        assert!(g16 < m.lbg[15]);
        // Everything else is still satisfied: (18) alone removes it.
        for (i, g) in vals.g.iter().enumerate() {
            if i != 15 && m.lbg[i] == m.ubg[i] {
                assert!(g.abs() <= 1e-12);
            }
        }
    }
}

/// `fixed_eps_cls`: (18) without the h factor, `f_c(q_{n,0} + ε_c v_{n,0})`.
#[test]
fn fixed_eps_cls_drops_the_step() {
    let o = FesdjOptions {
        fixed_eps_cls: true,
        ..options_s8(CrossCompMode::FeStage)
    };
    let m = instance_s8(0.5, &o);
    let vals = m.evaluate(&to_w(&m, &solution_s8()), &[]).unwrap();
    let want = 1e-3 * 1.107361729517505;
    assert!((vals.g[15] - want).abs() < 1e-15);
}

/// Free flight from q_0 = 5 (ladder item 4): the listed point is feasible; with
/// `heuristic_mean` the cost is stationary in h there; its indicator is κ_1 = η_1 = 310.7989;
/// without step equilibration a whole family of points with h_0 ≠ h_1 is feasible.
#[test]
fn free_flight_and_step_equilibration() {
    let point = |h0: f64| -> Vec<f64> {
        let h1 = 0.5 - h0;
        let q0 = 5.0;
        let v01 = -G * h0;
        let q01 = q0 + h0 * v01;
        let v11 = v01 - G * h1;
        let q11 = q01 + h1 * v11;
        let e = 0.5;
        // Υ+ − Υ− = v⁺ + e v⁻ with v⁺ = v⁻.
        let s0: f64 = 0.0;
        let s1 = (1.0 + e) * v01;
        vec![
            q0,
            0.0,
            h0,
            0.0,
            q0,
            s0.max(0.0),
            (-s0).max(0.0),
            q0,
            0.0,
            q01,
            v01,
            0.0,
            q01,
            h1,
            0.0,
            q01,
            s1.max(0.0),
            (-s1).max(0.0),
            q01,
            v01,
            q11,
            v11,
            0.0,
            q11,
        ]
    };
    let p = point(0.25);
    assert!((p[9] - 4.386875).abs() < 1e-12);
    assert!((p[10] - -2.4525).abs() < 1e-12);
    assert!((p[20] - 3.160625).abs() < 1e-12 && (p[21] - -4.905).abs() < 1e-12);
    assert!((p[17] - 3.67875).abs() < 1e-12 && p[16] == 0.0);

    for se in [StepEquilibration::HeuristicMean, StepEquilibration::Direct] {
        let o = FesdjOptions {
            step_equilibration: se,
            ..options_s8(CrossCompMode::FeStage)
        };
        let m = instance_s8(5.0, &o);
        let w = to_w(&m, &p);
        let vals = m.evaluate(&w, &[]).unwrap();
        for (i, g) in vals.g.iter().enumerate() {
            if m.lbg[i] == m.ubg[i] {
                assert!(g.abs() <= 1e-12, "{se:?} g_{} = {g:e}", i + 1);
            } else {
                assert!(*g >= m.lbg[i]);
            }
        }
        assert_eq!(vals.comp_residual(), 0.0);
        let eta = eval_scalar(&m, m.switch_indicators[0].eta, &w);
        assert!((eta - 310.7989).abs() < 1e-4, "η_1 = {eta}");
        assert_eq!((eta / 0.1).tanh(), 1.0);
        // ∂f/∂h = 0 at h_0 = h_1 = h̄ (heuristic mean), and ∂f/∂h ≠ 0 elsewhere.
        let (h0, h1) = (m.layout.h(0, 0).unwrap(), m.layout.h(0, 1).unwrap());
        let grad = gradient_sx(m.f, &[m.w[h0], m.w[h1]]);
        let gf = Function::new("grad", &[&m.w, &m.p], &[&grad]).unwrap();
        let mut out = [0.0; 2];
        gf.eval(&[&w, &[]], &mut [&mut out], &mut gf.workspace())
            .unwrap();
        assert_eq!(out, [0.0, 0.0]);
        if se == StepEquilibration::HeuristicMean {
            let w2 = to_w(&m, &point(0.2));
            gf.eval(&[&w2, &[]], &mut [&mut out], &mut gf.workspace())
                .unwrap();
            assert!(out[0] < 0.0 && out[1] > 0.0, "pulls toward h̄: {out:?}");
        } else {
            // direct: the h_0 ≠ h_1 points violate (26).
            let w2 = to_w(&m, &point(0.2));
            let vals = m.evaluate(&w2, &[]).unwrap();
            assert!((vals.g[16] - 0.1).abs() < 1e-12, "(26) = {}", vals.g[16]);
        }
    }
    // Without step equilibration h_0 is undetermined: every split is feasible.
    let o = FesdjOptions {
        step_equilibration: StepEquilibration::None,
        ..options_s8(CrossCompMode::FeStage)
    };
    let m = instance_s8(5.0, &o);
    assert_eq!(m.n_g(), 17);
    for h0 in [0.1, 0.25, 0.4] {
        let vals = m.evaluate(&to_w(&m, &point(h0)), &[]).unwrap();
        assert!(vals
            .g
            .iter()
            .enumerate()
            .all(|(i, g)| m.lbg[i] == m.ubg[i] && g.abs() <= 1e-12 || *g >= m.lbg[i]));
        assert_eq!(vals.comp_residual(), 0.0);
        assert_eq!(vals.f, 0.0);
    }
}

/// `set_initial_state` moves the bounds of the initial-state variables (§4.2, MPC use).
#[test]
fn initial_state_is_fixed_by_bounds() {
    let mut m = instance_s8(0.5, &options_s8(CrossCompMode::FeStage));
    m.set_initial_state(&[0.7, -1.0]).unwrap();
    assert_eq!(
        (m.lbw[0], m.ubw[0], m.lbw[1], m.ubw[1]),
        (0.7, 0.7, -1.0, -1.0)
    );
    assert!(m.set_initial_state(&[1.0]).is_err());
}
