//! Benchmarks of FESD-J solves and simulations (`src/fesdj`).
//!
//! * Simulation cost per simulated second (§4.6) for the balls of §6.4 and the two balls of
//!   §6.1: each benchmark simulates the spec's horizon; its throughput is reported in simulated
//!   milliseconds per wall-clock second (criterion "elements" = simulated ms).
//! * OCPs (§6.2, §6.3): the homotopy does not converge yet with our interior-point method (see
//!   `tests/fesdj/fesdj_solve_ocp.rs`), so only the build (transcription, derivatives, solver set-up)
//!   and the first relaxed NLPs of the two discs are timed. The comparison with IPOPT on the
//!   identical NLP (`ipopt-baseline` feature of the solver branch) is left until that feature
//!   is on main.

#[path = "../tests/support/fesdj_models.rs"]
mod fesdj_models;
#[path = "../tests/support/fesdj_ocp_models.rs"]
mod ocps;

use ocps::models;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fesdj_mpc::fesdj::{
    simulate, Controls, CrossCompMode, FesdjOptions, FesdjProblem, FrictionModel, InitialGuess,
    SimulationOptions, Start,
};
use fesdj_mpc::solver::Polish;
use std::hint::black_box;

fn sim_options(t_sim: f64, n_sim: usize, fesdj: FesdjOptions) -> SimulationOptions {
    SimulationOptions {
        t_sim,
        n_sim,
        fesdj,
        ..SimulationOptions::default()
    }
}

fn bench_simulations(c: &mut Criterion) {
    let mut g = c.benchmark_group("simulate");
    g.sample_size(10);
    let nii = FesdjOptions {
        n_fe: 2,
        no_initial_impacts: true,
        ..FesdjOptions::default()
    };
    // (name, model builder, x0, T_sim, N_sim, options)
    type Case = (
        &'static str,
        fn() -> fesdj_mpc::fesdj::ClsModel,
        Vec<f64>,
        f64,
        usize,
        FesdjOptions,
    );
    let cases: Vec<Case> = vec![
        (
            "ball_1d_elastic",
            || models::ball_1d(1.0, 9.81),
            vec![0.8, 0.0],
            3.0,
            20,
            FesdjOptions {
                initial_guess: InitialGuess {
                    lambda_normal: 0.0.into(),
                    ..InitialGuess::default()
                },
                ..nii.clone()
            },
        ),
        (
            "ball_2d_friction",
            || models::ball_2d(0.3, 0.0, 10.0),
            vec![0.0, 1.0, 4.0, 0.0],
            3.0,
            40,
            nii.clone(),
        ),
        (
            "ball_3d_friction_polyhedral",
            || models::ball_3d(0.2, 0.0, 10.0, 0.5f64.atan()),
            vec![0.0, 0.0, 1.0, 2.0, 1.0, 0.0],
            2.0,
            21,
            FesdjOptions {
                gamma_h: 0.9,
                friction_model: FrictionModel::Polyhedral,
                ..nii.clone()
            },
        ),
        (
            "two_balls_spring_radau3",
            models::two_balls_spring,
            vec![1.0, 2.0, 0.0, 0.0],
            1.0,
            100,
            FesdjOptions {
                n_s: 3,
                cross_comp_mode: CrossCompMode::StageStage,
                ..nii.clone()
            },
        ),
    ];
    for (name, model, x0, t_sim, n_sim, o) in cases {
        let opts = sim_options(t_sim, n_sim, o);
        g.throughput(Throughput::Elements((t_sim * 1000.0) as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                let tr = simulate(model(), &x0, &Controls::Constant(vec![]), &opts).unwrap();
                black_box(tr.final_state.q[0])
            })
        });
    }
    g.finish();
}

fn bench_ocps(c: &mut Criterion) {
    let mut g = c.benchmark_group("ocp");
    g.sample_size(10);
    g.bench_function("two_discs_build", |b| {
        b.iter(|| {
            let (ocp, o, s) = ocps::two_discs();
            black_box(FesdjProblem::new(&ocp, &o, s).unwrap().n_w())
        })
    });
    g.bench_function("three_boxes_build", |b| {
        b.iter(|| {
            let (ocp, o, s) = ocps::three_boxes();
            black_box(FesdjProblem::new(&ocp, &o, s).unwrap().n_w())
        })
    });
    let (ocp, o, mut s) = ocps::two_discs();
    s.solver.max_homotopy_steps = 2;
    s.solver.polish = Polish::Never;
    let mut p = FesdjProblem::new(&ocp, &o, s).unwrap();
    g.bench_function("two_discs_first_two_relaxed_nlps", |b| {
        b.iter(|| black_box(p.solve(Start::Guess).unwrap().objective))
    });
    g.finish();
}

criterion_group!(benches, bench_simulations, bench_ocps);
criterion_main!(benches);
