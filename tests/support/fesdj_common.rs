//! Shared models and checks of the FESD-J tests: the spec's own examples and the experiments
//! that more than one test file runs (the §6.1 integration order, the §6.4 1D ball).
#![allow(dead_code)]
#![allow(clippy::excessive_precision)]

/// The paper's models (spec §6) as Rust `ClsModel`s.
pub(crate) use super::fesdj_models as models;

/// The balls of §6.4 / §8.1 (each test file uses some of them).
#[allow(unused_imports)]
pub use models::{ball_1d, ball_2d};

use fesdj_mpc::fesdj::{
    simulate, Controls, CrossCompMode, FesdjOptions, InitialGuess, Ocp, RkScheme,
    SimulationOptions, Trajectory, Transcription,
};

pub const G: f64 = 9.81;

// ------------------------------------------------------------- §6.4 item 1: the 1D ball

/// One line per run: status, residual, counts, time, final state and impacts.
pub fn report(name: &str, tr: &Trajectory) {
    eprintln!(
        "{name}: {:?} comp {:.1e} nlp {} hom {} retried {} failed {} {:.1} ms final {:?} impacts {:?}",
        tr.status,
        tr.comp_residual,
        tr.nlp_iterations,
        tr.homotopy_steps,
        tr.retried_steps,
        tr.failed_steps,
        1e3 * tr.solve_time_s,
        tr.final_state,
        tr.impacts
            .iter()
            .map(|i| (i.t, i.lambda_n))
            .collect::<Vec<_>>()
    );
}

/// The FESD-J options of the elastic 1D ball runs (§6.4 item 1): Radau IIA n_s = 2,
/// `n_fe` elements, `no_initial_impacts`, initial guess 0 for the normal forces and impulses,
/// the default cross-comp mode.
pub fn ball_1d_options(n_fe: usize, t_final: f64) -> FesdjOptions {
    FesdjOptions {
        scheme: RkScheme::RadauIia,
        n_s: 2,
        n_fe,
        t_final,
        no_initial_impacts: true,
        initial_guess: InitialGuess {
            lambda_normal: 0.0.into(),
            big_lambda_normal: 0.0.into(),
            ..InitialGuess::default()
        },
        ..FesdjOptions::default()
    }
}

/// Spec §6.4 item 1: the elastic 1D ball (g = 9.81) from x(0) = (0.8, 0) simulated with
/// N_sim = 20 steps over 3 s with the step options `fesdj`; reported as `name`.
pub fn simulate_ball_1d(name: &str, fesdj: FesdjOptions) -> Trajectory {
    let o = SimulationOptions {
        t_sim: 3.0,
        n_sim: 20,
        fesdj,
        ..SimulationOptions::default()
    };
    let tr = simulate(
        ball_1d(1.0, G),
        &[0.8, 0.0],
        &Controls::Constant(vec![]),
        &o,
    )
    .expect("simulation of the 1D ball");
    report(name, &tr);
    tr
}

/// The anchors of spec §6.4 item 1 for a run of [`simulate_ball_1d`]: no failed step, four
/// impacts at 0.403855021876922 + 0.807710043753844 k (to 1e-3) with Λ_n = 7.92363552922521
/// (to 1e-3), and ‖x(3) − (0.538626350702464, 2.26454211690082)‖ < 1e-3.
pub fn check_ball_1d(name: &str, tr: &Trajectory) {
    assert_eq!(tr.failed_steps, 0, "{name}");
    let x = [tr.final_state.q[0], tr.final_state.v[0]];
    let err = ((x[0] - 0.538626350702464).powi(2) + (x[1] - 2.26454211690082).powi(2)).sqrt();
    assert!(err < 1e-3, "{name}: x(3) = {x:?}, error {err:.3e}");
    assert_eq!(tr.impacts.len(), 4, "{name}: {:?}", tr.impacts);
    for (k, imp) in tr.impacts.iter().enumerate() {
        let t = 0.403855021876922 + 0.807710043753844 * k as f64;
        assert!((imp.t - t).abs() < 1e-3, "{name} impact {k} at {}", imp.t);
        assert!(
            (imp.lambda_n - 7.92363552922521).abs() < 1e-3,
            "{name} impact {k}: {}",
            imp.lambda_n
        );
    }
}

// ------------------------------------------- §6.1: integration order, two balls with a spring

/// §6.1 [spec-computed]: x(1) = (q_1, q_2, v_1, v_2) of the two balls with a spring.
pub const SPRING_X_REF: [f64; 4] = [
    0.246841886728835,
    1.228210312008501,
    -2.379839521466434,
    -3.114092393623756,
];

/// One run of the integration-order experiment of §6.1 (two balls with a spring, x(0) =
/// (1, 2, 0, 0), T = 1, N_sim steps of `n_fe` elements, h̄ = 1/(N_sim N_FE)) with [P]'s
/// settings where our solver has them: `STAGE_STAGE`, `no_initial_impacts`, Scholtes
/// homotopy stopped at 1e-13 within 20 steps. Returns the error max_i |x_i(1) − x_i^ref(1)|;
/// every step must succeed.
pub fn spring_error(
    scheme: RkScheme,
    n_s: usize,
    n_fe: usize,
    use_fesd: bool,
    n_sim: usize,
) -> f64 {
    let mut o = SimulationOptions {
        t_sim: 1.0,
        n_sim,
        fesdj: FesdjOptions {
            scheme,
            n_s,
            n_fe,
            use_fesd,
            no_initial_impacts: true,
            cross_comp_mode: CrossCompMode::StageStage,
            ..FesdjOptions::default()
        },
        ..SimulationOptions::default()
    };
    o.solve.solver.comp_tol = 1e-13;
    o.solve.solver.max_homotopy_steps = 20;
    let tr = simulate(
        models::two_balls_spring(),
        &[1.0, 2.0, 0.0, 0.0],
        &Controls::Constant(vec![]),
        &o,
    )
    .expect("simulation");
    let x = [
        tr.final_state.q[0],
        tr.final_state.q[1],
        tr.final_state.v[0],
        tr.final_state.v[1],
    ];
    let e = x
        .iter()
        .zip(SPRING_X_REF)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    eprintln!(
        "{scheme:?} n_s {n_s} n_fe {n_fe} fesd {use_fesd} N_sim {n_sim} h {:.3e}: E {e:.3e}, {} \
         failed, {} retried, {} NLP iterations, {:.2} s",
        1.0 / (n_sim * n_fe) as f64,
        tr.failed_steps,
        tr.retried_steps,
        tr.nlp_iterations,
        tr.solve_time_s
    );
    assert_eq!(
        tr.failed_steps, 0,
        "{scheme:?} {n_s} n_fe {n_fe} N_sim {n_sim}"
    );
    e
}

/// Least-squares slope of ln E over ln h̄ (h̄ ∝ 1/N_sim).
pub fn spring_slope(n_sims: &[usize], errors: &[f64]) -> f64 {
    let xs: Vec<f64> = n_sims.iter().map(|&n| -(n as f64).ln()).collect();
    let ys: Vec<f64> = errors.iter().map(|e| e.ln()).collect();
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    sxy / sxx
}

/// The FESD-J runs of [`spring_error`] at `n_sims` must show the order `order` within 0.5
/// (the fitted slope of [`spring_slope`]).
pub fn check_spring_order(scheme: RkScheme, n_s: usize, n_fe: usize, n_sims: &[usize], order: f64) {
    let errors: Vec<f64> = n_sims
        .iter()
        .map(|&n| spring_error(scheme, n_s, n_fe, true, n))
        .collect();
    let p = spring_slope(n_sims, &errors);
    eprintln!("{scheme:?} n_s = {n_s}, N_FE = {n_fe}: fitted slope {p:.3} (expected {order})");
    assert!(
        (p - order).abs() <= 0.5,
        "{scheme:?} n_s = {n_s}, N_FE = {n_fe}: slope {p:.3}, expected {order}"
    );
}

/// The options of §8.1.
pub fn options_s8(mode: CrossCompMode) -> FesdjOptions {
    FesdjOptions {
        scheme: RkScheme::RadauIia,
        n_s: 1,
        n_intervals: 1,
        n_fe: 2,
        t_final: 0.5,
        cross_comp_mode: mode,
        ..FesdjOptions::default()
    }
}

/// The §8 instance with initial height `q0` and options `o`.
pub fn instance_s8(q0: f64, o: &FesdjOptions) -> Transcription {
    let ocp = Ocp::new(ball_1d(0.5, G), vec![q0, 0.0]);
    fesdj_mpc::fesdj::transcribe(&ocp, o).expect("transcription")
}

pub const MODES: [CrossCompMode; 4] = [
    CrossCompMode::StageStage,
    CrossCompMode::FeStage,
    CrossCompMode::StageFe,
    CrossCompMode::FeFe,
];
