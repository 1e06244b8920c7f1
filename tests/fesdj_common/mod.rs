//! Shared models of the FESD-J tests: the spec's own examples.
#![allow(dead_code)]

use fesdj_mpc::ad::Sx;
use fesdj_mpc::fesdj::cls::identity;
use fesdj_mpc::fesdj::{
    ClosureFunctions, ClsModel, Contact, CrossCompMode, FesdjOptions, Mpcc, Ocp, RkScheme,
};

pub const G: f64 = 9.81;

/// §8.1: 1D ball, M = 1, f_v = −g, f_c = q, restitution e, μ = 0.
pub fn ball_1d(e: f64, g: f64) -> ClsModel {
    ClsModel::new(
        1,
        0,
        vec![Contact::frictionless(e)],
        Box::new(ClosureFunctions {
            mass: Box::new(|_| identity(1)),
            forces: Box::new(move |_, _| vec![Sx::constant(-g)]),
            input: None,
            gaps: Box::new(|q| vec![q[0]]),
            normals: None,
            tangents: None,
        }),
    )
    .expect("1D ball model")
}

/// §6.4 item 2: 2D ball with friction, g = 10, M = I, f_c = q_y, J_t = (1, 0).
pub fn ball_2d(mu: f64, e: f64, g: f64) -> ClsModel {
    ClsModel::new(
        2,
        0,
        vec![Contact {
            n_t: 1,
            mu,
            restitution: e,
        }],
        Box::new(ClosureFunctions {
            mass: Box::new(|_| identity(2)),
            forces: Box::new(move |_, _| vec![Sx::constant(0.0), Sx::constant(-g)]),
            input: None,
            gaps: Box::new(|q| vec![q[1]]),
            normals: None,
            tangents: Some(Box::new(|_, _| vec![Sx::constant(1.0), Sx::constant(0.0)])),
        }),
    )
    .expect("2D ball model")
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
pub fn instance_s8(q0: f64, o: &FesdjOptions) -> Mpcc {
    let ocp = Ocp::new(ball_1d(0.5, G), vec![q0, 0.0]);
    fesdj_mpc::fesdj::transcribe(&ocp, o).expect("transcription")
}

pub const MODES: [CrossCompMode; 4] = [
    CrossCompMode::StageStage,
    CrossCompMode::FeStage,
    CrossCompMode::StageFe,
    CrossCompMode::FeFe,
];
