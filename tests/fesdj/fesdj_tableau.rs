//! Test ladder item 1 (spec §9): the Butcher tableaus of §3.2 and their integral form.

use fesdj_mpc::fesdj::{ButcherTableau, RkScheme};

const TOL: f64 = 1e-13;

fn assert_close(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() <= TOL,
        "{what}: got {got:.17}, want {want:.17} (diff {:e})",
        got - want
    );
}

fn assert_vec(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_close(&format!("{what}[{i}]"), *g, *w);
    }
}

fn assert_mat(what: &str, got: &[Vec<f64>], want: &[&[f64]]) {
    assert_eq!(got.len(), want.len(), "{what}: rows");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_vec(&format!("{what}[{i}]"), g, w);
    }
}

#[test]
fn radau_iia_matches_the_spec_table() {
    let t = ButcherTableau::new(RkScheme::RadauIia, 1).unwrap();
    assert_vec("c", &t.c, &[1.0]);
    assert_mat("A", &t.a, &[&[1.0]]);
    assert_vec("b", &t.b, &[1.0]);

    let t = ButcherTableau::new(RkScheme::RadauIia, 2).unwrap();
    assert_vec("c", &t.c, &[1.0 / 3.0, 1.0]);
    assert_mat(
        "A",
        &t.a,
        &[&[5.0 / 12.0, -1.0 / 12.0], &[3.0 / 4.0, 1.0 / 4.0]],
    );
    assert_vec("b", &t.b, &[0.75, 0.25]);

    let s6 = 6f64.sqrt();
    let t = ButcherTableau::new(RkScheme::RadauIia, 3).unwrap();
    assert_vec("c", &t.c, &[(4.0 - s6) / 10.0, (4.0 + s6) / 10.0, 1.0]);
    let a: [&[f64]; 3] = [
        &[
            (88.0 - 7.0 * s6) / 360.0,
            (296.0 - 169.0 * s6) / 1800.0,
            (-2.0 + 3.0 * s6) / 225.0,
        ],
        &[
            (296.0 + 169.0 * s6) / 1800.0,
            (88.0 + 7.0 * s6) / 360.0,
            (-2.0 - 3.0 * s6) / 225.0,
        ],
        &[(16.0 - s6) / 36.0, (16.0 + s6) / 36.0, 1.0 / 9.0],
    ];
    assert_mat("A", &t.a, &a);
    assert_vec("b", &t.b, a[2]);

    let t = ButcherTableau::new(RkScheme::RadauIia, 4).unwrap();
    assert_vec(
        "c",
        &t.c,
        &[
            0.08858795951270395,
            0.4094668644407347,
            0.7876594617608471,
            1.0,
        ],
    );
    assert_vec(
        "b",
        &t.b,
        &[
            0.2204622111767684,
            0.3881934688431719,
            0.3288443199800597,
            0.0625,
        ],
    );
}

#[test]
fn gauss_legendre_matches_the_spec_table() {
    let t = ButcherTableau::new(RkScheme::GaussLegendre, 1).unwrap();
    assert_vec("c", &t.c, &[0.5]);
    assert_mat("A", &t.a, &[&[0.5]]);
    assert_vec("b", &t.b, &[1.0]);

    let s3 = 3f64.sqrt();
    let t = ButcherTableau::new(RkScheme::GaussLegendre, 2).unwrap();
    assert_vec("c", &t.c, &[0.5 - s3 / 6.0, 0.5 + s3 / 6.0]);
    assert_mat(
        "A",
        &t.a,
        &[&[0.25, 0.25 - s3 / 6.0], &[0.25 + s3 / 6.0, 0.25]],
    );
    assert_vec("b", &t.b, &[0.5, 0.5]);

    let s15 = 15f64.sqrt();
    let t = ButcherTableau::new(RkScheme::GaussLegendre, 3).unwrap();
    assert_vec("c", &t.c, &[0.5 - s15 / 10.0, 0.5, 0.5 + s15 / 10.0]);
    assert_mat(
        "A",
        &t.a,
        &[
            &[5.0 / 36.0, 2.0 / 9.0 - s15 / 15.0, 5.0 / 36.0 - s15 / 30.0],
            &[5.0 / 36.0 + s15 / 24.0, 2.0 / 9.0, 5.0 / 36.0 - s15 / 24.0],
            &[5.0 / 36.0 + s15 / 30.0, 2.0 / 9.0 + s15 / 15.0, 5.0 / 36.0],
        ],
    );
    assert_vec("b", &t.b, &[5.0 / 18.0, 4.0 / 9.0, 5.0 / 18.0]);

    let t = ButcherTableau::new(RkScheme::GaussLegendre, 4).unwrap();
    let r = (6.0f64 / 5.0).sqrt();
    let outer = 0.5 * (3.0 / 7.0 + 2.0 / 7.0 * r).sqrt();
    let inner = 0.5 * (3.0 / 7.0 - 2.0 / 7.0 * r).sqrt();
    let c_closed = [0.5 - outer, 0.5 - inner, 0.5 + inner, 0.5 + outer];
    assert_vec("c", &t.c, &c_closed);
    assert_vec(
        "c (decimal)",
        &t.c,
        &[
            0.06943184420297371,
            0.3300094782075719,
            0.6699905217924281,
            0.9305681557970263,
        ],
    );
    let s30 = 30f64.sqrt();
    let bo = (18.0 - s30) / 72.0;
    let bi = (18.0 + s30) / 72.0;
    assert_vec("b", &t.b, &[bo, bi, bi, bo]);
    assert_vec(
        "b (decimal)",
        &t.b,
        &[
            0.1739274225687269,
            0.3260725774312731,
            0.3260725774312731,
            0.1739274225687269,
        ],
    );
}

#[test]
fn implicit_euler_is_radau_one_stage() {
    let e = ButcherTableau::new(RkScheme::ImplicitEuler, 1).unwrap();
    let r = ButcherTableau::new(RkScheme::RadauIia, 1).unwrap();
    assert_eq!(e.a, r.a);
    assert_eq!(e.b, r.b);
    assert_eq!(e.c, r.c);
    assert_eq!(e.order, 1);
}

/// Σb = 1, Ae = c, Σ_j b_j c_j^{k−1} = 1/k for k ≤ order, stage order n_s, for n_s = 1..9.
#[test]
fn order_conditions_up_to_nine_stages() {
    for scheme in [RkScheme::RadauIia, RkScheme::GaussLegendre] {
        for n_s in 1..=9 {
            let t = ButcherTableau::new(scheme, n_s).unwrap();
            let name = format!("{scheme:?} n_s={n_s}");
            let want_order = if scheme == RkScheme::RadauIia {
                2 * n_s - 1
            } else {
                2 * n_s
            };
            assert_eq!(t.order, want_order, "{name}");
            assert_eq!(t.stage_order, n_s, "{name}");
            assert_close(&format!("{name}: Σb"), t.b.iter().sum(), 1.0);
            for i in 0..n_s {
                assert_close(&format!("{name}: (Ae)_{i}"), t.a[i].iter().sum(), t.c[i]);
            }
            for w in t.c.windows(2) {
                assert!(w[0] < w[1], "{name}: nodes increasing");
            }
            assert!(
                t.c[0] > 0.0 && t.c[n_s - 1] <= 1.0,
                "{name}: nodes in (0, 1]"
            );
            assert_eq!(t.ends_at_one(), scheme == RkScheme::RadauIia, "{name}");
            for k in 1..=t.order {
                let s: f64 =
                    t.b.iter()
                        .zip(&t.c)
                        .map(|(b, c)| b * c.powi(k as i32 - 1))
                        .sum();
                assert_close(
                    &format!("{name}: quadrature order k={k}"),
                    s,
                    1.0 / k as f64,
                );
            }
            // The order is sharp: the next condition fails (its defect shrinks like
            // (n_s!)^4 / (2 n_s)!^2, so this is only measurable for small n_s).
            if n_s > 5 {
                continue;
            }
            let k = t.order + 1;
            let s: f64 =
                t.b.iter()
                    .zip(&t.c)
                    .map(|(b, c)| b * c.powi(k as i32 - 1))
                    .sum();
            assert!((s - 1.0 / k as f64).abs() > 1e-10, "{name}: order sharp");
        }
        for n_s in 1..=9 {
            let t = ButcherTableau::new(scheme, n_s).unwrap();
            let name = format!("{scheme:?} n_s={n_s}");
            for q in 1..=n_s {
                for i in 0..n_s {
                    let s: f64 = t.a[i]
                        .iter()
                        .zip(&t.c)
                        .map(|(a, c)| a * c.powi(q as i32 - 1))
                        .sum();
                    assert_close(
                        &format!("{name}: stage order q={q} i={i}"),
                        s,
                        t.c[i].powi(q as i32) / q as f64,
                    );
                }
            }
        }
    }
}

#[test]
fn integral_form_radau() {
    let f = ButcherTableau::new(RkScheme::RadauIia, 1)
        .unwrap()
        .integral_form();
    assert_mat("C", &f.c_mat, &[&[-1.0], &[1.0]]);
    assert_vec("D", &f.d, &[0.0, 1.0]);
    assert_vec("B", &f.b, &[0.5, 0.5]);

    let f = ButcherTableau::new(RkScheme::RadauIia, 2)
        .unwrap()
        .integral_form();
    assert_vec("B", &f.b, &[0.0, 0.75, 0.25]);
    assert_vec("D", &f.d, &[0.0, 0.0, 1.0]);
}

/// The integral form is equivalent to (12): for x linear or quadratic in τ it reproduces the
/// derivative at the stages (Σ_r C_{r,j} x(τ_r) = x'(τ_j)), D interpolates to τ = 1, and for
/// Gauss–Legendre B_0 = 0, Σ B = 1.
#[test]
fn integral_form_is_consistent() {
    for scheme in [RkScheme::RadauIia, RkScheme::GaussLegendre] {
        for n_s in 1..=9 {
            let t = ButcherTableau::new(scheme, n_s).unwrap();
            let f = t.integral_form();
            let mut nodes = vec![0.0];
            nodes.extend_from_slice(&t.c);
            for deg in 0..=n_s {
                let x = |tau: f64| tau.powi(deg as i32);
                let dx = |tau: f64| {
                    if deg == 0 {
                        0.0
                    } else {
                        deg as f64 * tau.powi(deg as i32 - 1)
                    }
                };
                for j in 1..=n_s {
                    let s: f64 = (0..=n_s).map(|r| f.c_mat[r][j - 1] * x(nodes[r])).sum();
                    assert!(
                        (s - dx(nodes[j])).abs() < 1e-9,
                        "{scheme:?} {n_s} C deg {deg}"
                    );
                }
                let s: f64 = (0..=n_s).map(|r| f.d[r] * x(nodes[r])).sum();
                assert!((s - 1.0).abs() < 1e-10, "{scheme:?} {n_s} D deg {deg}");
            }
            assert!((f.b.iter().sum::<f64>() - 1.0).abs() < 1e-13);
            if scheme == RkScheme::GaussLegendre || n_s >= 2 {
                assert!(f.b[0].abs() < 1e-13, "{scheme:?} {n_s}: B_0 = {}", f.b[0]);
                for j in 1..=n_s {
                    assert!((f.b[j] - t.b[j - 1]).abs() < 1e-13);
                }
            }
        }
    }
}
