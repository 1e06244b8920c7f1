//! Spec §6.2 (two discs around an obstacle, [P] §5.2, Figs. 7–8): `config/two_discs.yaml`
//! solved as `fesdj solve` solves it (the ℓ1-penalty homotopy, see the config), checked
//! against the spec's acceptance item 11 from the trajectory itself:
//!
//! * the homotopy converges from the trivial initial guess (status Solved) to the spec's
//!   `r_⊥ = max G H ≤ 1e-9`;
//! * impulses recomputed from the velocity jumps (not read from the impulse variables):
//!   `J_n = ∇f_c = 2 (d, −d)` with `d = q₁ − q₂`, so disc 2's velocity jumps by
//!   `−2 d Λ / m₂` and disc 1's by `2 d Λ / m₁` — both give Λ, and momentum is conserved;
//!   exactly two significant impulses (Λ > 0.5), ≈ 1.0 at t ≈ 1.4 and ≈ 1.8 at t ≈ 2.9 within
//!   the spec's ±20 %, every impulse at contact (zero gap) with the discs approaching;
//! * disc 2 at rest at its start until the first impulse;
//! * no overlap and the obstacle kept at the interval ends (the path constraint's points);
//! * the controls saturate at ±30 late in the manoeuvre ([P]: around t ≈ 3.1–3.4);
//! * final positions swapped.

use fesdj_mpc::app::build_ocp;
use fesdj_mpc::config::Problem;
use fesdj_mpc::fesdj::{Start, Trajectory};
use fesdj_mpc::solver::Status;
use std::path::Path;

const M1: f64 = 2.0;
const M2: f64 = 1.0;
const R1: f64 = 0.3;
const R2: f64 = 0.2;
const R_OBSTACLE: f64 = 1.0;
const U_MAX: f64 = 30.0;

fn solve() -> (Trajectory, Vec<Vec<f64>>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/two_discs.yaml");
    let problem = Problem::load(&path, &[]).expect("shipped config loads");
    let mut fp = build_ocp(&problem).expect("transcription");
    let tr = fp.solve(Start::Guess).expect("solve runs");
    eprintln!(
        "two discs: {:?} f {:.6} comp {:.2e} nlp {} hom {} {:.1} s",
        tr.status,
        tr.objective,
        tr.comp_residual,
        tr.nlp_iterations,
        tr.homotopy_steps,
        tr.solve_time_s
    );
    for h in fp.last_homotopy() {
        eprintln!(
            "  σ {:.2e}: {:?}, {} it, r {:.1e}, f {:.4}",
            h.sigma, h.status, h.iterations, h.comp_residual, h.objective
        );
    }
    let w = fp.solution().expect("a solution");
    let layout = fp.layout();
    let u = (0..layout.n_intervals())
        .map(|k| layout.u(k).iter().map(|&i| w[i]).collect())
        .collect();
    (tr, u)
}

fn gap(q: &[f64]) -> f64 {
    (q[0] - q[2]).powi(2) + (q[1] - q[3]).powi(2) - (R1 + R2).powi(2)
}

#[test]
fn two_discs_solves_and_reproduces_section_6_2() {
    let (tr, u) = solve();
    assert_eq!(tr.status, Status::Solved, "homotopy did not converge");
    assert!(tr.comp_residual <= 1e-9, "r_⊥ = {:e}", tr.comp_residual);

    // --- impulses from the velocity jumps (a jump: two samples at one time) -----------------
    let mut impulses = Vec::new();
    for i in 0..tr.t.len() - 1 {
        if tr.t[i + 1] != tr.t[i] {
            continue;
        }
        let (pre, post, q) = (&tr.v[i], &tr.v[i + 1], &tr.q[i]);
        let d = [q[0] - q[2], q[1] - q[3]];
        let dd = d[0] * d[0] + d[1] * d[1];
        // Λ from disc 2: Δv₂ = −2 d Λ / m₂ (least squares over both components), and disc 1.
        let lam2 = -M2 * ((post[2] - pre[2]) * d[0] + (post[3] - pre[3]) * d[1]) / (2.0 * dd);
        let lam1 = M1 * ((post[0] - pre[0]) * d[0] + (post[1] - pre[1]) * d[1]) / (2.0 * dd);
        if lam2.abs() < 1e-3 {
            continue;
        }
        eprintln!(
            "impulse at t = {:.4}: Λ {lam2:.4} (from disc 1: {lam1:.4}), gap {:.1e}",
            tr.t[i],
            gap(q)
        );
        assert!(lam2 > 0.0, "an impulse pushes the discs apart: Λ = {lam2}");
        assert!((lam1 - lam2).abs() <= 1e-6 * lam2.max(1.0), "momentum");
        for k in 0..2 {
            let p = M1 * (post[k] - pre[k]) + M2 * (post[k + 2] - pre[k + 2]);
            assert!(p.abs() <= 1e-6, "momentum change {p} at t = {}", tr.t[i]);
        }
        assert!(
            gap(q).abs() <= 1e-6,
            "impulse at gap {} (t = {})",
            gap(q),
            tr.t[i]
        );
        // The normal velocity d·(v₁ − v₂) is negative before (approach) and ≥ 0 after.
        let vn = |v: &[f64]| d[0] * (v[0] - v[2]) + d[1] * (v[1] - v[3]);
        assert!(
            vn(pre) < 0.0,
            "approaching before the impulse at t = {}",
            tr.t[i]
        );
        assert!(
            vn(post) >= -1e-6,
            "inelastic: separating or sliding after it"
        );
        impulses.push((tr.t[i], lam2));
    }
    let big: Vec<(f64, f64)> = impulses.iter().copied().filter(|&(_, l)| l > 0.5).collect();
    assert_eq!(big.len(), 2, "two significant impulses, got {impulses:?}");
    for (&(t, lam), (t_ref, lam_ref)) in big.iter().zip([(1.4, 1.0), (2.9, 1.8)]) {
        assert!(
            (t - t_ref).abs() <= 0.2 * t_ref && (lam - lam_ref).abs() <= 0.2 * lam_ref,
            "impulse Λ = {lam:.3} at t = {t:.3}, spec ≈ {lam_ref} at ≈ {t_ref} (±20 %)"
        );
    }
    assert!(
        impulses.iter().all(|&(_, l)| !(0.1..=0.5).contains(&l)),
        "the other impulses are small (≲ 0.1): {impulses:?}"
    );

    // --- disc 2 at rest until it is hit --------------------------------------------------------
    let t_hit = impulses[0].0;
    for (i, &t) in tr.t.iter().enumerate() {
        if t >= t_hit {
            break;
        }
        let (q, v) = (&tr.q[i], &tr.v[i]);
        assert!(
            (q[2] - 2.0).abs() <= 1e-6 && q[3].abs() <= 1e-6,
            "disc 2 moved before the impact: {q:?} at t = {t}"
        );
        assert!(v[2].abs() <= 1e-6 && v[3].abs() <= 1e-6, "disc 2 at rest");
    }

    // --- no overlap; the obstacle at the interval ends -------------------------------------------
    for (q, &t) in tr.q.iter().zip(&tr.t) {
        assert!(gap(q) >= -1e-6, "overlap {} at t = {t}", gap(q));
    }
    let t_end = *tr.t.last().expect("samples");
    let n = u.len();
    for k in 1..=n {
        let tk = t_end * k as f64 / n as f64;
        let i =
            tr.t.iter()
                .rposition(|&t| (t - tk).abs() <= 1e-9)
                .expect("interval end on the grid");
        let q = &tr.q[i];
        for (x, y, r) in [(q[0], q[1], R1), (q[2], q[3], R2)] {
            let s = x * x + y * y - (R_OBSTACLE + r).powi(2);
            assert!(s >= -1e-6, "inside the obstacle at t = {tk}: {s}");
        }
    }

    // --- controls: within the box, saturating late -------------------------------------------------
    let dt = t_end / n as f64;
    let mut saturated = Vec::new();
    for (k, uk) in u.iter().enumerate() {
        let m = uk.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        assert!(m <= U_MAX * (1.0 + 1e-9), "|u| = {m} over the bound");
        if m >= U_MAX * 0.999 {
            saturated.push(k as f64 * dt);
        }
    }
    assert!(
        saturated.iter().any(|&t| (2.5..=3.5).contains(&t)),
        "controls saturate late in the manoeuvre (intervals starting at {saturated:?})"
    );

    // --- positions swapped -------------------------------------------------------------------------
    let q = &tr.final_state.q;
    let e1 = ((q[0] - 2.0).powi(2) + q[1].powi(2)).sqrt();
    let e2 = ((q[2] + 2.0).powi(2) + q[3].powi(2)).sqrt();
    assert!(e1 <= 0.05 && e2 <= 0.05, "final positions {q:?}");
}
