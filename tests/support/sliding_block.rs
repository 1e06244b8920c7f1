//! A block on frictional ground pushed horizontally: the MPC test model.
#![allow(dead_code)]

use fesdj_mpc::ad::Sx;
use fesdj_mpc::fesdj::{
    cls::identity, Bounds, ClosureFunctions, ClsModel, ContactLaw, FesdjOptions, FesdjProblem,
    LsqTracking, Ocp, SolveOptions,
};
use fesdj_mpc::mpc::{Controller, ControllerSettings};

pub const G: f64 = 9.81;
pub const MU: f64 = 0.3;
pub const U_MAX: f64 = 20.0;
pub const TARGET: f64 = 0.5;

/// q = (x, y) of a unit point mass, gap y, horizontal force u, Coulomb friction μ.
pub fn block() -> ClsModel {
    ClsModel::new(
        2,
        1,
        vec![ContactLaw {
            n_t: 1,
            mu: MU,
            restitution: 0.0,
        }],
        Box::new(ClosureFunctions {
            mass: Box::new(|_| identity(2)),
            forces: Box::new(|_, _| vec![Sx::constant(0.0), Sx::constant(-G)]),
            input: Some(Box::new(|_| vec![Sx::constant(1.0), Sx::constant(0.0)])),
            gaps: Box::new(|q| vec![q[1]]),
            normals: None,
            tangents: Some(Box::new(|_, _| vec![Sx::constant(1.0), Sx::constant(0.0)])),
        }),
    )
    .expect("block model")
}

/// FESD-J options of the MPC and the plant. With the defaults (γ_h = 1, impulse blocks at every
/// element) the homotopy on this sliding block ends in a failed restoration; impacts only at
/// interior element boundaries (`no_initial_impacts`) and γ_h = 0.5 (§7 item 17) solve it.
pub fn fesdj_options(n_intervals: usize, t_final: f64) -> FesdjOptions {
    FesdjOptions {
        n_intervals,
        t_final,
        n_fe: 2,
        no_initial_impacts: true,
        gamma_h: 0.5,
        ..FesdjOptions::default()
    }
}

/// The MPC problem: track x = TARGET at rest over N = 5 intervals of 0.1 s.
pub fn controller(settings: ControllerSettings) -> Controller {
    Controller::new(mpc_problem(), 1, 1, settings).expect("controller")
}

/// The controller's FESD-J problem: [`problem`] with early polishing
/// (`early_polish_residual = 1e-4`). With the offline defaults alone, the warm tick at
/// t = 0.6 s of the start-up closed loop (the block settling at the target) walks the σ ladder
/// down to 1e-17 through six restoration failures from the same point (5260 IPM iterations,
/// 3.5–5 s of the 5 s budget on a 2-core machine: a deadline miss under load); polished at the
/// first failure below `min(G, H)` = 1e-4 it takes 615 iterations (0.4 s), and no tick of that
/// run more.
pub fn mpc_problem() -> FesdjProblem {
    let mut p = problem();
    let mut s = p.solver_settings().clone();
    s.early_polish_residual = 1e-4;
    p.set_solver_settings(s).expect("early polishing");
    p
}

/// The tracking problem with the solver's offline defaults.
pub fn problem() -> FesdjProblem {
    let mut ocp = Ocp::new(block(), vec![0.0; 4]);
    ocp.lsq = Some(LsqTracking {
        q_weight: vec![100.0, 0.0, 1.0, 0.0],
        r_weight: vec![1e-3],
        q_terminal: vec![1000.0, 0.0, 10.0, 0.0],
        x_ref: vec![TARGET, 0.0, 0.0, 0.0],
        u_ref: vec![0.0],
        x_ref_terminal: vec![TARGET, 0.0, 0.0, 0.0],
    });
    ocp.u_bounds = Some(Bounds::new(vec![-U_MAX], vec![U_MAX]));
    FesdjProblem::new(&ocp, &fesdj_options(5, 0.5), SolveOptions::default()).expect("MPC problem")
}

pub fn settings() -> ControllerSettings {
    ControllerSettings {
        actuated: vec![0],
        effort_limit: vec![U_MAX],
        ..ControllerSettings::default()
    }
}
