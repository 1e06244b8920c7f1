//! FESD-J with N_FE ≥ 3 finite elements per control interval (issue 5).
//!
//! 1. The exact solution of one step of the elastic 1D ball (free fall, impact at the exact
//!    time placed on an interior grid point, restitution 1) is written into the NLP's variable
//!    vector through the layout's index queries; every constraint, bound and complementarity
//!    product must vanish there (Radau IIA n_s = 2 integrates the piecewise quadratic exactly).
//! 2. The 1D ball of spec §6.4 item 1 simulated with N_FE = 3 and 4 reaches the exact state,
//!    and the repro step of issue 5 (impact on grid point 2 of 3) solves.
//! 3. The integration-order experiment of §6.1 (two balls with a spring) with N_FE = 3.
#![allow(clippy::excessive_precision)]

use crate::support::fesdj_common as common;

use common::{ball_1d_options, check_spring_order, models, report, G};
use fesdj_mpc::fesdj::{
    simulate, transcribe, Controls, FesdjOptions, Ocp, RkScheme, SimulationOptions, Transcription,
};

/// Exact state of the elastic ball at time `t` of a step starting at `(q0, v0)` with impact
/// at `ts` (`t = ts` gives the pre-impact state when `pre`).
fn exact(q0: f64, v0: f64, ts: f64, t: f64, pre: bool) -> (f64, f64) {
    if t < ts || (t == ts && pre) {
        (q0 + v0 * t - 0.5 * G * t * t, v0 - G * t)
    } else {
        let w = -(v0 - G * ts);
        let s = t - ts;
        (w * s - 0.5 * G * s * s, w - G * s)
    }
}

/// The worst violation of the constraints, bounds and complementarity products of `m` at the
/// exact solution of one step of length `t_final` from `(q0, v0)` with the impact at grid
/// point `m_imp` (the elements before it share `t*` equally, the ones after share the rest).
fn exact_residual(n_fe: usize, m_imp: usize, q0: f64, v0: f64, t_final: f64) -> (f64, String) {
    let (mpcc, w) = exact_point(n_fe, m_imp, q0, v0, t_final);
    residual(&mpcc, &w)
}

/// The transcription of one step and its exact solution with the impact at grid point `m_imp`.
fn exact_point(
    n_fe: usize,
    m_imp: usize,
    q0: f64,
    v0: f64,
    t_final: f64,
) -> (Transcription, Vec<f64>) {
    let o = ball_1d_options(n_fe, t_final);
    let ocp = Ocp::new(models::ball_1d(1.0, G), vec![q0, v0]);
    let mpcc: Transcription = transcribe(&ocp, &o).expect("transcription");
    let l = &mpcc.layout;
    // Impact time: q0 + v0 t − g t²/2 = 0.
    let ts = (v0 + (v0 * v0 + 2.0 * G * q0).sqrt()) / G;
    assert!(ts > 0.0 && ts < t_final);
    // Uneven splits (weights 1, 2, 3, … on either side of the impact), so that a row reading
    // the step size or the states of the wrong element cannot pass by symmetry.
    let tri = |m: usize| (m * (m + 1) / 2) as f64;
    let h: Vec<f64> = (0..n_fe)
        .map(|n| {
            if n < m_imp {
                ts * (n + 1) as f64 / tri(m_imp)
            } else {
                (t_final - ts) * (n - m_imp + 1) as f64 / tri(n_fe - m_imp)
            }
        })
        .collect();
    let mut w = vec![f64::NAN; mpcc.n_w()];
    w[l.x0_q[0]] = q0;
    w[l.x0_v[0]] = v0;
    let mut t = 0.0;
    for (n, &hn) in h.iter().enumerate() {
        let e = l.element(0, n);
        w[e.h.expect("variable h")] = hn;
        let tn = if n == m_imp { ts } else { t };
        let (_, vm) = exact(q0, v0, ts, tn, true);
        let (qp, vp) = exact(q0, v0, ts, tn, false);
        if let Some(imp) = &e.impulse {
            w[imp.lambda_n[0]] = vp - vm;
            w[imp.y_gap[0]] = qp;
            let a2 = vp + vm; // J_nᵀ(v⁺ + ε_r v⁻), ε_r = 1
            w[imp.p_vn[0]] = a2.max(0.0);
            w[imp.n_vn[0]] = (-a2).max(0.0);
        } else {
            assert_eq!(vp, vm, "no impulse block at the impact");
        }
        for &i in &e.left_gap {
            w[i] = qp;
        }
        w[e.q0[0]] = qp;
        w[e.v0[0]] = vp;
        for (j, s) in e.stages.iter().enumerate() {
            let (q, v) = exact(q0, v0, ts, tn + l.c[j] * hn, n < m_imp);
            w[s.q[0]] = q;
            w[s.v[0]] = v;
            w[s.lambda_n[0]] = 0.0;
            w[s.y_gap[0]] = q;
        }
        t = tn + hn;
    }
    if let Some(i) = w.iter().position(|x| x.is_nan()) {
        panic!("variable {i} not set by the exact solution");
    }
    (mpcc, w)
}

/// Worst violation of rows, bounds and pairs of `mpcc` at `w`, and where.
fn residual(mpcc: &Transcription, w: &[f64]) -> (f64, String) {
    let val = mpcc.evaluate(w, &mpcc.p0).expect("evaluation");
    let mut worst = (0.0f64, String::from("none"));
    let mut note = |r: f64, what: String| {
        if r > worst.0 {
            worst = (r, what);
        }
    };
    for (i, g) in val.g.iter().enumerate() {
        let r = (mpcc.lbg[i] - g).max(g - mpcc.ubg[i]).max(0.0);
        note(r, format!("row {i} {:?} = {g:e}", mpcc.g_info[i]));
    }
    for (i, x) in w.iter().enumerate() {
        let r = (mpcc.lbw[i] - x).max(x - mpcc.ubw[i]).max(0.0);
        note(r, format!("bound of w[{i}] = {x:e}"));
    }
    for (i, (a, b)) in val.comp_g.iter().zip(&val.comp_h).enumerate() {
        note(
            (a * b).abs().max(-a).max(-b),
            format!("pair {i} {:?}: {a:e}·{b:e}", mpcc.comp_info[i]),
        );
    }
    worst
}

/// The exact solution satisfies every constraint of the transcription, wherever the impact
/// sits (the bug of issue 5 broke grid points n ≥ 2 of an interval).
#[test]
fn exact_solution_is_feasible() {
    // The repro step: from (0.35855, −2.943) the ball hits the ground at t* ≈ 0.1039 s.
    let (q0, v0, t_final) = (0.35855, -2.943, 0.15);
    for n_fe in 2..=4 {
        let h_max = 2.0 * t_final / n_fe as f64; // (1 + γ_h) h̄, γ_h = 1
        let ts = (v0 + (v0 * v0 + 2.0 * G * q0).sqrt()) / G;
        // Grid points the impact can sit on within the step-size bounds.
        for m_imp in (1..n_fe).filter(|&m| ts * 2.0 / (m + 1) as f64 <= h_max) {
            let (r, what) = exact_residual(n_fe, m_imp, q0, v0, t_final);
            eprintln!("n_fe {n_fe}, impact at grid point {m_imp}: residual {r:.2e} ({what})");
            assert!(
                r <= 1e-10,
                "n_fe {n_fe}, impact at {m_imp}: worst residual {r:e} at {what}"
            );
        }
    }
}

/// Spec §6.4 item 1 (as `fesdj_solve_balls::bouncing_ball_1d`, same tolerances) with
/// N_FE = 3 and 4: four impacts at 0.403855021876922 + 0.807710043753844 k with
/// Λ_n = 7.92363552922521 and ‖x(3) − (0.538626350702464, 2.26454211690082)‖ < 1e-3.
/// With h̄ = 0.05 (0.0375) the impacts of steps 3, 8, 13 and 18 must sit on grid point 2
/// (or 3): before the fix of issue 5 these steps failed.
#[test]
fn bouncing_ball_1d_more_elements() {
    for n_fe in [3, 4] {
        let name = format!("n_fe {n_fe}");
        let tr = common::simulate_ball_1d(&name, ball_1d_options(n_fe, 1.0));
        common::check_ball_1d(&name, &tr);
    }
}

/// The repro step of issue 5 (impact at t* ≈ 0.1039 s > 2h̄ = 0.1 s, so on grid point 2 of
/// N_FE = 3) solves, with the exact end state.
#[test]
fn issue5_step() {
    let (q0, v0, t_final) = (0.35855, -2.943, 0.15);
    let ts = (v0 + (v0 * v0 + 2.0 * G * q0).sqrt()) / G;
    let want = exact(q0, v0, ts, t_final, false);
    for n_fe in [3, 4] {
        let o = SimulationOptions {
            t_sim: t_final,
            n_sim: 1,
            fesdj: ball_1d_options(n_fe, 1.0),
            ..SimulationOptions::default()
        };
        let tr = simulate(
            models::ball_1d(1.0, G),
            &[q0, v0],
            &Controls::Constant(vec![]),
            &o,
        )
        .unwrap();
        report(&format!("issue 5 step, n_fe {n_fe}"), &tr);
        assert_eq!(tr.failed_steps, 0, "n_fe {n_fe}");
        assert_eq!(tr.impacts.len(), 1, "n_fe {n_fe}: {:?}", tr.impacts);
        assert!((tr.impacts[0].t - ts).abs() < 1e-6, "n_fe {n_fe}");
        let (q, v) = (tr.final_state.q[0], tr.final_state.v[0]);
        assert!(
            (q - want.0).abs() < 1e-6 && (v - want.1).abs() < 1e-6,
            "n_fe {n_fe}: x = ({q}, {v}), exact {want:?}"
        );
    }
}

/// The same check for the 2D ball with polyhedral friction (spec §6.4 item 2, g = 10, μ = 0.3,
/// ε_r = 0): the step of length 0.075 starting at t = 0.375 of the N_sim = 40 simulation, with
/// its inelastic impact at 1/√5 on grid point 1 (N_FE = 2) or 2 (N_FE = 3), then sliding with
/// deceleration μg (stage forces λ_n = g, λ_d = (0, μg)).
#[test]
fn exact_solution_is_feasible_2d_friction() {
    use fesdj_mpc::fesdj::layout::FrictionIndex;
    let t0: f64 = 0.375;
    let (mu, g) = (0.3, 10.0);
    let x0 = [4.0 * t0, 1.0 - 5.0 * t0 * t0, 4.0, -10.0 * t0];
    let t_final = 0.075;
    // y0 + vy0 ts − 5 ts² = 0
    let ts = (x0[3] + (x0[3] * x0[3] + 2.0 * g * x0[1]).sqrt()) / g;
    // Post-impact slip: v_x⁺ = v_x⁻ − μΛ_n with Λ_n = −v_y⁻.
    let vxp = x0[2] - mu * (-(x0[3] - g * ts));
    let st = |tau: f64, pre: bool| -> [f64; 4] {
        if tau < ts || (tau == ts && pre) {
            [
                x0[0] + x0[2] * tau,
                x0[1] + x0[3] * tau - 0.5 * g * tau * tau,
                x0[2],
                x0[3] - g * tau,
            ]
        } else {
            let s = tau - ts;
            [
                x0[0] + x0[2] * ts + vxp * s - 0.5 * mu * g * s * s,
                0.0,
                vxp - mu * g * s,
                0.0,
            ]
        }
    };
    for (n_fe, m_imp) in [(2usize, 1usize), (3, 2)] {
        let o = FesdjOptions {
            n_fe,
            t_final,
            no_initial_impacts: true,
            ..FesdjOptions::default()
        };
        let ocp = Ocp::new(models::ball_2d(mu, 0.0, g), x0.to_vec());
        let mpcc = transcribe(&ocp, &o).unwrap();
        let l = &mpcc.layout;
        let h: Vec<f64> = (0..n_fe)
            .map(|n| {
                if n < m_imp {
                    ts / m_imp as f64
                } else {
                    (t_final - ts) / (n_fe - m_imp) as f64
                }
            })
            .collect();
        let mut w = vec![f64::NAN; mpcc.n_w()];
        for i in 0..2 {
            w[l.x0_q[i]] = x0[i];
            w[l.x0_v[i]] = x0[2 + i];
        }
        let set_fr = |w: &mut Vec<f64>, f: &FrictionIndex, lam_n: f64, vx: f64, contact: bool| {
            if let FrictionIndex::Polyhedral {
                lambda_d,
                gamma_d,
                beta_d,
                delta_d,
            } = f
            {
                let ld = if contact {
                    [0.0, mu * lam_n]
                } else {
                    [0.0, 0.0]
                };
                let gam = vx.abs();
                w[lambda_d[0]] = ld[0];
                w[lambda_d[1]] = ld[1];
                w[*gamma_d] = gam;
                w[*beta_d] = mu * lam_n - ld[0] - ld[1];
                w[delta_d[0]] = vx + gam;
                w[delta_d[1]] = -vx + gam;
            } else {
                panic!("polyhedral friction expected")
            }
        };
        let mut t = 0.0;
        for (n, &hn) in h.iter().enumerate() {
            let e = l.element(0, n);
            w[e.h.unwrap()] = hn;
            let tn = if n == m_imp { ts } else { t };
            let xm = st(tn, true);
            let xp = st(tn, false);
            if let Some(imp) = &e.impulse {
                let lam = xp[3] - xm[3];
                w[imp.lambda_n[0]] = lam;
                w[imp.y_gap[0]] = xp[1];
                w[imp.p_vn[0]] = xp[3].max(0.0);
                w[imp.n_vn[0]] = (-xp[3]).max(0.0);
                set_fr(&mut w, &imp.friction[0], lam, xp[2], lam > 0.0);
            }
            for &i in &e.left_gap {
                w[i] = xp[1];
            }
            for i in 0..2 {
                w[e.q0[i]] = xp[i];
                w[e.v0[i]] = xp[2 + i];
            }
            for (j, s) in e.stages.iter().enumerate() {
                let x = st(tn + l.c[j] * hn, n < m_imp);
                for i in 0..2 {
                    w[s.q[i]] = x[i];
                    w[s.v[i]] = x[2 + i];
                }
                let contact = n >= m_imp;
                let lam = if contact { g } else { 0.0 };
                w[s.lambda_n[0]] = lam;
                w[s.y_gap[0]] = x[1];
                set_fr(&mut w, &s.friction[0], lam, x[2], contact);
            }
            t = tn + hn;
        }
        if let Some(i) = w.iter().position(|x| x.is_nan()) {
            panic!("w[{i}] unset");
        }
        let (r, what) = residual(&mpcc, &w);
        eprintln!("2D n_fe {n_fe} impact at {m_imp}: h {h:?} residual {r:.2e} at {what}");
        assert!(r <= 1e-10, "2D n_fe {n_fe}: worst residual {r:e} at {what}");
    }
}

// ------------------------------------------------- integration order with N_FE = 3 (§6.1)

/// The §6.1 experiment of tests/fesdj_solve_order.rs with N_FE = 3 (h̄ = 1/(3 N_sim)).
const SPRING_N_FE: usize = 3;

/// h̄ = 2.5e-3 … 1.25e-3 (the N_FE = 2 range of tests/fesdj_solve_order.rs).
#[test]
fn spring_radau_iia_2_n_fe_3() {
    check_spring_order(RkScheme::RadauIia, 2, SPRING_N_FE, &[133, 187, 267], 3.0);
}

/// h̄ = 3.6e-3 … 1.25e-3.
#[test]
fn spring_radau_iia_3_n_fe_3() {
    check_spring_order(RkScheme::RadauIia, 3, SPRING_N_FE, &[93, 133, 267], 5.0);
}

/// h̄ = 3.6e-3 … 1.8e-3 (at h̄ = 5e-3 Radau IIA 4 is not yet asymptotic with N_FE = 3).
#[test]
fn spring_radau_iia_4_n_fe_3() {
    check_spring_order(RkScheme::RadauIia, 4, SPRING_N_FE, &[93, 133, 187], 7.0);
}

/// h̄ = 1.25e-3 … 6.25e-4.
#[test]
fn spring_gauss_legendre_1_n_fe_3() {
    check_spring_order(
        RkScheme::GaussLegendre,
        1,
        SPRING_N_FE,
        &[267, 373, 533],
        2.0,
    );
}

/// h̄ = 2.5e-3 … 1.25e-3.
#[test]
fn spring_gauss_legendre_2_n_fe_3() {
    check_spring_order(
        RkScheme::GaussLegendre,
        2,
        SPRING_N_FE,
        &[133, 187, 267],
        4.0,
    );
}

/// h̄ = 5e-3 … 2.5e-3.
#[test]
fn spring_gauss_legendre_3_n_fe_3() {
    check_spring_order(RkScheme::GaussLegendre, 3, SPRING_N_FE, &[67, 93, 133], 6.0);
}
