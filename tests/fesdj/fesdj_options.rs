//! Breadth of the options (spec Appendix A): serde, validation, and structural invariants of
//! the transcription for every combination of scheme, friction model, cross-complementarity
//! mode, step equilibration, lifting and time stepping.

use crate::support::fesdj_common as common;

use common::{ball_1d, ball_2d, G};
use fesdj_mpc::ad::{jacobian_sx, Scalar, Sx};
use fesdj_mpc::fesdj::cls::identity;
use fesdj_mpc::fesdj::layout::FrictionIndex;
use fesdj_mpc::fesdj::{
    transcribe, Bounds, ClosureFunctions, ClsModel, ConicFormulation, ConicSwitchHandling,
    ContactLaw, CrossCompMode, FesdjError, FesdjOptions, FrictionModel, LsqTracking, Ocp, PairKind,
    RkRepresentation, RkScheme, RowKind, StepEquilibration, Transcription,
};

#[test]
fn serde_defaults_and_unknown_fields() {
    let o: FesdjOptions = serde_json::from_str("{}").unwrap();
    assert_eq!(o, FesdjOptions::default());
    assert_eq!(o.friction_model, FrictionModel::Polyhedral);
    assert_eq!(o.cross_comp_mode, CrossCompMode::FeStage);
    assert_eq!(o.step_equilibration, StepEquilibration::HeuristicMean);
    assert_eq!((o.n_s, o.n_fe, o.eps_cls, o.gamma_h), (2, 2, 1e-3, 1.0));
    let o: FesdjOptions = serde_json::from_str(
        r#"{"scheme": "gauss_legendre", "n_s": 3, "cross_comp_mode": "FE_FE",
            "step_equilibration": "l2_relaxed_scaled", "friction_model": "conic",
            "conic_model_switch_handling": "lp", "T": 2.0,
            "initial_guess": {"lambda_normal": 9.81}}"#,
    )
    .unwrap();
    assert_eq!(o.scheme, RkScheme::GaussLegendre);
    assert_eq!(o.cross_comp_mode, CrossCompMode::FeFe);
    assert_eq!(o.t_final, 2.0);
    assert_eq!(o.initial_guess.lambda_normal, 9.81);
    assert_eq!(o.initial_guess.y_gap, 1.0);
    let o: FesdjOptions = serde_json::from_str(r#"{"cross_comp_mode": "stage_fe"}"#).unwrap();
    assert_eq!(o.cross_comp_mode, CrossCompMode::StageFe);
    let e = serde_json::from_str::<FesdjOptions>(r#"{"n_ss": 2}"#).unwrap_err();
    assert!(e.to_string().contains("n_ss"), "{e}");
    let e = serde_json::from_str::<FesdjOptions>(r#"{"initial_guess": {"foo": 1}}"#).unwrap_err();
    assert!(e.to_string().contains("foo"), "{e}");
}

#[test]
fn validation_names_the_field() {
    let cases: Vec<(FesdjOptions, &str)> = vec![
        (
            FesdjOptions {
                n_s: 0,
                ..Default::default()
            },
            "n_s",
        ),
        (
            FesdjOptions {
                n_s: 10,
                ..Default::default()
            },
            "n_s",
        ),
        (
            FesdjOptions {
                scheme: RkScheme::ImplicitEuler,
                ..Default::default()
            },
            "n_s",
        ),
        (
            FesdjOptions {
                n_fe: 0,
                ..Default::default()
            },
            "n_fe",
        ),
        (
            FesdjOptions {
                n_intervals: 0,
                ..Default::default()
            },
            "n_intervals",
        ),
        (
            FesdjOptions {
                t_final: -1.0,
                ..Default::default()
            },
            "t_final",
        ),
        (
            FesdjOptions {
                gamma_h: 1.5,
                ..Default::default()
            },
            "gamma_h",
        ),
        (
            FesdjOptions {
                eps_cls: -1e-3,
                ..Default::default()
            },
            "eps_cls",
        ),
        (
            FesdjOptions {
                rho_h: f64::NAN,
                ..Default::default()
            },
            "rho_h",
        ),
        (
            FesdjOptions {
                step_equilibration_sigma: 0.0,
                ..Default::default()
            },
            "step_equilibration_sigma",
        ),
        (
            FesdjOptions {
                rk_representation: RkRepresentation::Differential,
                ..Default::default()
            },
            "rk_representation",
        ),
    ];
    for (o, field) in cases {
        match o.validate() {
            Err(FesdjError::InvalidOption { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{field}: expected InvalidOption, got {other:?}"),
        }
    }
    // Time stepping forces implicit Euler whatever n_s says (§4.7).
    let o = FesdjOptions {
        use_fesd: false,
        n_s: 3,
        scheme: RkScheme::GaussLegendre,
        ..Default::default()
    };
    o.validate().unwrap();
    assert_eq!(o.effective_scheme(), (RkScheme::RadauIia, 1));
}

#[test]
fn problem_errors_name_the_field() {
    let bad_x0 = Ocp::new(ball_1d(0.5, G), vec![1.0]);
    assert!(matches!(
        transcribe(&bad_x0, &FesdjOptions::default()),
        Err(FesdjError::Dimension { .. })
    ));
    let mut ocp = Ocp::new(ball_1d(0.5, G), vec![1.0, 0.0]);
    ocp.q_bounds = Some(Bounds::new(vec![1.0], vec![0.0]));
    match transcribe(&ocp, &FesdjOptions::default()) {
        Err(FesdjError::Problem { field, .. }) => assert_eq!(field, "q_bounds[0]"),
        other => panic!("{:?}", other.err()),
    }
    // A model whose mass matrix has the wrong size.
    let r = ClsModel::new(
        2,
        0,
        vec![ContactLaw::frictionless(0.0)],
        Box::new(ClosureFunctions {
            mass: Box::new(|_| identity(1)),
            forces: Box::new(|_, _| vec![Sx::constant(0.0); 2]),
            input: None,
            gaps: Box::new(|q| vec![q[1]]),
            normals: None,
            tangents: None,
        }),
    );
    match r {
        Err(FesdjError::Model { field, .. }) => assert_eq!(field, "mass_matrix"),
        other => panic!("{other:?}"),
    }
}

/// Every complementarity member is a variable with lower bound 0, a sum of such (coefficients
/// +1), or (Lp) `1 − α` sums with `α ∈ [0, 1]` (§5.1, §7 item 5); the functions compile (no free
/// symbols) and the sizes agree.
fn check_structure(m: &Transcription, what: &str) {
    assert_eq!(m.lbw.len(), m.n_w(), "{what}");
    assert_eq!(m.ubw.len(), m.n_w(), "{what}");
    assert_eq!(m.w0.len(), m.n_w(), "{what}");
    assert_eq!(m.lbg.len(), m.n_g(), "{what}");
    assert_eq!(m.g_info.len(), m.n_g(), "{what}");
    assert_eq!(m.comp_h.len(), m.n_comp(), "{what}");
    assert_eq!(m.comp_info.len(), m.n_comp(), "{what}");
    assert_eq!(m.layout.n_w, m.n_w());
    for (i, (&l, &u)) in m.lbw.iter().zip(&m.ubw).enumerate() {
        assert!(l <= u, "{what}: bounds of w_{i}");
        assert!(
            m.w0[i] >= l && m.w0[i] <= u,
            "{what}: w0_{i} within its bounds"
        );
    }
    for members in [&m.comp_g, &m.comp_h] {
        let (pat, vals) = jacobian_sx(members, &m.w);
        let mut per_row = vec![Vec::new(); members.len()];
        for (k, (row, col)) in pat.entries().enumerate() {
            let v = vals[k].constant_value().unwrap_or(f64::NAN);
            per_row[row].push((col, v));
        }
        for (i, entries) in per_row.iter().enumerate() {
            assert!(!entries.is_empty(), "{what}: member {i} is constant");
            for &(col, c) in entries {
                let (lb, ub) = (m.lbw[col], m.ubw[col]);
                if c == 1.0 {
                    assert_eq!(lb, 0.0, "{what}: member {i} uses w_{col} without lb 0");
                } else {
                    assert_eq!(c, -1.0, "{what}: member {i} coefficient {c}");
                    assert_eq!((lb, ub), (0.0, 1.0), "{what}: 1 − α needs α ∈ [0, 1]");
                }
            }
        }
    }
    let f = m.compile().expect("compiles");
    let vals = f.evaluate(&m.w0, &m.p0).unwrap();
    assert!(vals.f.is_finite(), "{what}");
    assert!(vals.g.iter().all(|x| x.is_finite()), "{what}");
}

fn friction_variants() -> Vec<(FrictionModel, ConicFormulation, ConicSwitchHandling)> {
    let mut v = vec![(
        FrictionModel::Polyhedral,
        ConicFormulation::SlipRate,
        ConicSwitchHandling::Abs,
    )];
    for f in [ConicFormulation::Kkt, ConicFormulation::SlipRate] {
        for h in [
            ConicSwitchHandling::Plain,
            ConicSwitchHandling::Abs,
            ConicSwitchHandling::Lp,
        ] {
            v.push((FrictionModel::Conic, f, h));
        }
    }
    v
}

/// Structure for all combinations on the 2D frictional ball with two intervals.
#[test]
fn all_combinations_are_well_formed() {
    let mut count = 0;
    for (scheme, n_s) in [
        (RkScheme::RadauIia, 1),
        (RkScheme::RadauIia, 2),
        (RkScheme::GaussLegendre, 1),
        (RkScheme::GaussLegendre, 2),
    ] {
        for (fm, cf, sh) in friction_variants() {
            for mode in [
                CrossCompMode::StageStage,
                CrossCompMode::FeStage,
                CrossCompMode::StageFe,
                CrossCompMode::FeFe,
            ] {
                for (se, lift, nii) in [
                    (StepEquilibration::HeuristicMean, false, false),
                    (StepEquilibration::Direct, true, true),
                    (StepEquilibration::L2RelaxedScaled, false, true),
                ] {
                    let o = FesdjOptions {
                        scheme,
                        n_s,
                        n_intervals: 2,
                        n_fe: 3,
                        t_final: 1.0,
                        friction_model: fm,
                        conic_formulation: cf,
                        conic_model_switch_handling: sh,
                        cross_comp_mode: mode,
                        step_equilibration: se,
                        lift_velocity_state: lift,
                        no_initial_impacts: nii,
                        ..Default::default()
                    };
                    let ocp = Ocp::new(ball_2d(0.3, 0.5, 10.0), vec![0.0, 1.0, 1.0, 0.0]);
                    let m = transcribe(&ocp, &o).unwrap();
                    let what = format!("{scheme:?} {n_s} {fm:?} {cf:?} {sh:?} {mode:?} {se:?}");
                    check_structure(&m, &what);
                    assert_eq!(
                        m.layout.element(0, 0).right.is_some(),
                        scheme == RkScheme::GaussLegendre,
                        "{what}"
                    );
                    let n_direct = m
                        .g_info
                        .iter()
                        .filter(|r| r.kind == RowKind::StepEquilibration)
                        .count();
                    let want = if se == StepEquilibration::Direct {
                        4
                    } else {
                        0
                    };
                    assert_eq!(n_direct, want, "{what}");
                    assert_eq!(m.switch_indicators.len(), 4, "{what}");
                    count += 1;
                }
            }
        }
    }
    assert_eq!(count, 4 * 7 * 4 * 3);
}

/// Pair counts of §7 item 28 for `STAGE_STAGE` (contact family n_s(n_s+1) per element with an
/// impulse block, Abs (n_s+1)² − 1 off the impulse pair) and `FE_FE` (one per family).
#[test]
fn pair_counts() {
    let count = |m: &Transcription, kind: PairKind, k: usize, n: usize| {
        m.comp_info
            .iter()
            .filter(|p| p.kind == kind && p.interval == k && p.element == n)
            .count()
    };
    for n_s in 1..=3 {
        let o = FesdjOptions {
            n_s,
            cross_comp_mode: CrossCompMode::StageStage,
            friction_model: FrictionModel::Conic,
            ..Default::default()
        };
        let m = transcribe(
            &Ocp::new(ball_2d(0.3, 0.0, 10.0), vec![0.0, 1.0, 1.0, 0.0]),
            &o,
        )
        .unwrap();
        check_structure(&m, "counts");
        assert_eq!(count(&m, PairKind::ContactCross, 0, 1), n_s * (n_s + 1));
        assert_eq!(count(&m, PairKind::ConicCross, 0, 1), n_s * (n_s + 1));
        assert_eq!(
            count(&m, PairKind::TangentialVelocityCross, 0, 1),
            (n_s + 1) * (n_s + 1) - 1
        );
        assert_eq!(count(&m, PairKind::ImpulseNormal, 0, 1), 1);
        assert_eq!(count(&m, PairKind::ImpulseTangentialVelocity, 0, 1), 1);
        let o = FesdjOptions {
            cross_comp_mode: CrossCompMode::FeFe,
            ..o
        };
        let m = transcribe(
            &Ocp::new(ball_2d(0.3, 0.0, 10.0), vec![0.0, 1.0, 1.0, 0.0]),
            &o,
        )
        .unwrap();
        for kind in [
            PairKind::ContactCross,
            PairKind::ConicCross,
            PairKind::TangentialVelocityCross,
        ] {
            assert_eq!(count(&m, kind, 0, 1), 1, "{kind:?}");
        }
    }
}

/// Gauss–Legendre right boundary (§3.7.4 [spec]): variables x_{n+1}, y_{n,n_s+1} and ξ±_{n+1}
/// with their rows, and y_{n,n_s+1} joins the contact cross complementarity as j' = n_s + 1.
#[test]
fn gauss_right_boundary() {
    let o = FesdjOptions {
        scheme: RkScheme::GaussLegendre,
        n_s: 2,
        friction_model: FrictionModel::Conic,
        cross_comp_mode: CrossCompMode::StageStage,
        ..Default::default()
    };
    let m = transcribe(
        &Ocp::new(ball_2d(0.3, 0.0, 10.0), vec![0.0, 1.0, 1.0, 0.0]),
        &o,
    )
    .unwrap();
    let rb = m.layout.element(0, 0).right.clone().unwrap();
    assert_eq!((rb.q.len(), rb.v.len(), rb.y_gap.len()), (2, 2, 1));
    assert_eq!((rb.p_vt[0].len(), rb.n_vt[0].len()), (1, 1));
    for kind in [
        RowKind::RightBoundaryPosition,
        RowKind::RightBoundaryVelocity,
        RowKind::RightBoundaryGap,
        RowKind::RightBoundaryTangentialVelocity,
    ] {
        assert!(m.g_info.iter().any(|r| r.kind == kind), "{kind:?}");
    }
    assert!(m
        .comp_info
        .iter()
        .any(|p| p.kind == PairKind::ContactCross && p.j2 == Some(3)));
    // The next element starts from the right boundary state.
    assert_eq!(m.layout.pre_impact(0, 1), (&rb.q[..], &rb.v[..]));
    // Polyhedral: only the right-boundary gap (no ξ±).
    let o = FesdjOptions {
        friction_model: FrictionModel::Polyhedral,
        ..o
    };
    let m = transcribe(
        &Ocp::new(ball_2d(0.3, 0.0, 10.0), vec![0.0, 1.0, 1.0, 0.0]),
        &o,
    )
    .unwrap();
    let rb = m.layout.element(0, 0).right.clone().unwrap();
    assert!(rb.p_vt[0].is_empty());
}

/// Time stepping (§4.7): implicit Euler on a fixed grid, no impulse variables, velocity
/// continuity, stage-wise pairs only, stage forces as impulses (λ/h̄ in the dynamics), no (18)
/// and no step equilibration.
#[test]
fn time_stepping_baseline() {
    let o = FesdjOptions {
        use_fesd: false,
        n_fe: 4,
        t_final: 1.0,
        ..Default::default()
    };
    let m = transcribe(
        &Ocp::new(ball_2d(0.3, 0.0, 10.0), vec![0.0, 1.0, 1.0, 0.0]),
        &o,
    )
    .unwrap();
    check_structure(&m, "time stepping");
    for n in 0..4 {
        let e = m.layout.element(0, n);
        assert!(e.h.is_none() && e.impulse.is_none() && e.stages.len() == 1);
    }
    assert!(m.switch_indicators.is_empty());
    assert!(m.g_info.iter().all(|r| !matches!(
        r.kind,
        RowKind::ExtraGap | RowKind::ClockSum | RowKind::ImpulseVelocity
    )));
    // Per element: λ_n ⊥ y, λ_d ∘ δ_d (2), γ_d ⊥ β_d.
    assert_eq!(m.n_comp(), 4 * 4);
    assert!(m
        .comp_info
        .iter()
        .all(|p| matches!(p.kind, PairKind::StageContact | PairKind::StageFriction)));
    // A ball resting on the ground: λ_n = g h̄ (an impulse over the step) balances gravity.
    let m = transcribe(&Ocp::new(ball_1d(0.0, G), vec![0.0, 0.0]), &o).unwrap();
    let h = 0.25;
    let mut w = m.w0.clone();
    for n in 0..4 {
        let st = m.layout.stage(0, n, 1);
        w[st.q[0]] = 0.0;
        w[st.v[0]] = 0.0;
        w[st.lambda_n[0]] = G * h;
        w[st.y_gap[0]] = 0.0;
        w[m.layout.q(0, n, 0).unwrap()[0]] = 0.0;
        w[m.layout.v(0, n, 0).unwrap()[0]] = 0.0;
    }
    let vals = m.evaluate(&w, &[]).unwrap();
    assert!(vals.g.iter().all(|g| g.abs() < 1e-12), "{:?}", vals.g);
    assert_eq!(vals.comp_residual(), 0.0);
}

/// OCP pieces (§4.3–4.4): Lagrange quadrature with b_j (∫1 dt = T also for Radau IIA n_s = 1,
/// where the integral-form B would halve it), LSQ tracking with references as parameters,
/// bounds on u, q, v, path and terminal constraints, γ_h bounds.
#[test]
fn ocp_costs_and_constraints() {
    let cart = || {
        ClsModel::new(
            1,
            1,
            vec![ContactLaw::frictionless(0.0)],
            Box::new(ClosureFunctions {
                mass: Box::new(|_| identity(1)),
                forces: Box::new(|_, _| vec![Sx::constant(0.0)]),
                input: Some(Box::new(|_| vec![Sx::constant(1.0)])),
                gaps: Box::new(|q| vec![q[0] + 10.0]),
                normals: None,
                tangents: None,
            }),
        )
        .unwrap()
    };
    for n_s in 1..=3 {
        let o = FesdjOptions {
            n_s,
            n_intervals: 3,
            n_fe: 2,
            t_final: 1.5,
            gamma_h: 0.5,
            ..Default::default()
        };
        let mut ocp = Ocp::new(cart(), vec![0.0, 0.0]);
        ocp.lagrange = Some(Box::new(|_, _, _| Sx::constant(1.0)));
        let m = transcribe(&ocp, &o).unwrap();
        let vals = m.evaluate(&m.w0, &m.p0).unwrap();
        assert!((vals.f - 1.5).abs() < 1e-14, "n_s = {n_s}: ∫1 = {}", vals.f);
        let hb = 1.5 / 6.0;
        let h = m.layout.h(1, 1).unwrap();
        assert_eq!((m.lbw[h], m.ubw[h]), (0.5 * hb, 1.5 * hb));
        assert_eq!(
            m.g_info
                .iter()
                .filter(|r| r.kind == RowKind::ClockSum)
                .count(),
            3
        );
    }
    let o = FesdjOptions {
        n_s: 2,
        n_intervals: 3,
        n_fe: 2,
        t_final: 1.5,
        rho_h: 0.0,
        ..Default::default()
    };
    let mut ocp = Ocp::new(cart(), vec![0.0, 0.0]);
    ocp.lsq = Some(LsqTracking {
        q_weight: vec![2.0, 0.0],
        r_weight: vec![0.5],
        q_terminal: vec![10.0, 1.0],
        x_ref: vec![1.0, 0.0],
        u_ref: vec![0.0],
        x_ref_terminal: vec![1.0, 0.0],
    });
    ocp.u_bounds = Some(Bounds::symmetric(&[30.0]));
    ocp.q_bounds = Some(Bounds::symmetric(&[10.0]));
    ocp.v_bounds = Some(Bounds::symmetric(&[5.0]));
    ocp.path = Some(fesdj_mpc::fesdj::ocp::Constraint {
        fun: Box::new(|q, _v, u| vec![q[0] + u[0]]),
        bounds: Bounds::new(vec![f64::NEG_INFINITY], vec![0.0]),
    });
    ocp.terminal = Some(fesdj_mpc::fesdj::ocp::Constraint {
        fun: Box::new(|q, v| vec![q[0] - 1.0, v[0]]),
        bounds: Bounds::zero(2),
    });
    let m = transcribe(&ocp, &o).unwrap();
    check_structure(&m, "ocp");
    assert_eq!(m.p.len(), 3 * (2 + 1) + 2);
    assert_eq!(m.layout.params.x_ref.len(), 3);
    let u1 = m.layout.u(1)[0];
    assert_eq!((m.lbw[u1], m.ubw[u1]), (-30.0, 30.0));
    let st = m.layout.stage(2, 1, 1);
    assert_eq!((m.lbw[st.q[0]], m.ubw[st.v[0]]), (-10.0, 5.0));
    assert_eq!(
        m.g_info.iter().filter(|r| r.kind == RowKind::Path).count(),
        3
    );
    assert_eq!(
        m.g_info
            .iter()
            .filter(|r| r.kind == RowKind::Terminal)
            .count(),
        2
    );
    assert_eq!(m.g_info.last().unwrap().kind, RowKind::Terminal);
    // Cost at w0 (x = 0, u = 0 everywhere; h = h̄): Σ_k (T/N) 2·1² + (T/N)·10·1².
    let vals = m.evaluate(&m.w0, &m.p0).unwrap();
    assert!(
        (vals.f - (3.0 * 0.5 * 2.0 + 0.5 * 10.0)).abs() < 1e-12,
        "f = {}",
        vals.f
    );
    // References are parameters: changing them changes the cost without rebuilding.
    let mut p = m.p0.clone();
    for k in 0..3 {
        p[m.layout.params.x_ref[k][0]] = 0.0;
    }
    p[m.layout.params.x_ref_terminal[0]] = 0.0;
    let vals = m.evaluate(&m.w0, &p).unwrap();
    assert!(vals.f.abs() < 1e-14);
    // The control enters the cost and the dynamics.
    let mut w = m.w0.clone();
    w[m.layout.u(0)[0]] = 2.0;
    let vals2 = m.evaluate(&w, &p).unwrap();
    assert!((vals2.f - 0.5 * 0.5 * 4.0).abs() < 1e-12);
}

/// `lift_velocity_state` (3): z_v variables at every stage with the row M z_v − rhs = 0, and
/// (12b) uses z_v; the free-fall point satisfies both forms.
#[test]
fn lifted_velocity_state() {
    for lift in [false, true] {
        let o = FesdjOptions {
            lift_velocity_state: lift,
            n_s: 2,
            ..common::options_s8(CrossCompMode::FeStage)
        };
        let m = common::instance_s8(5.0, &o);
        let st = m.layout.stage(0, 0, 1);
        assert_eq!(st.z_v.len(), usize::from(lift));
        let n_lift = m
            .g_info
            .iter()
            .filter(|r| r.kind == RowKind::LiftedDynamics)
            .count();
        assert_eq!(n_lift, if lift { 4 } else { 0 });
        check_structure(&m, "lifted");
    }
}

/// Conic friction variables have the spec's bounds: λ_t free, γ/ϑ, β, ξ± ≥ 0, α ∈ [0, 1].
#[test]
fn conic_variable_bounds() {
    let o = FesdjOptions {
        friction_model: FrictionModel::Conic,
        conic_model_switch_handling: ConicSwitchHandling::Lp,
        ..Default::default()
    };
    let m = transcribe(
        &Ocp::new(ball_2d(0.3, 0.0, 10.0), vec![0.0, 1.0, 1.0, 0.0]),
        &o,
    )
    .unwrap();
    let FrictionIndex::Conic {
        lambda_t,
        gamma,
        beta,
        p_vt,
        n_vt,
        alpha_vt,
    } = m.layout.stage(0, 0, 1).friction[0].clone()
    else {
        panic!()
    };
    assert_eq!(m.lbw[lambda_t[0]], f64::NEG_INFINITY);
    for i in [gamma, beta, p_vt[0], n_vt[0]] {
        assert_eq!((m.lbw[i], m.ubw[i]), (0.0, f64::INFINITY));
    }
    assert_eq!((m.lbw[alpha_vt[0]], m.ubw[alpha_vt[0]]), (0.0, 1.0));
}
