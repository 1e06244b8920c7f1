//! The controller and the plant of a problem file: what `fesdj mpc` runs in closed loop and
//! what `fesdj_node` runs (the plant only with `sim: true`), and the simulator of
//! `fesdj simulate`. The plant policy (its speed guard and its sub-stepping fallback) lives
//! here, in one place.

use super::ocp::solve_options;
use super::BuildError;
use crate::config::{MpcSetup, OcpSetup, Problem};
use crate::fesdj::{
    ClsModel, FesdjOptions, FesdjProblem, SimulationOptions, Simulator, SolveOptions,
};
use crate::mpc::{BaseCoordinates, Controller, GaitBlend};

/// The plant's speed limits in multiples of the OCP's velocity bounds (see [`build_plant`]).
pub const PLANT_SPEED_FACTOR: f64 = 10.0;

/// Time-stepping sub-steps of a plant step whose FESD-J attempts all fail (see
/// [`build_plant`]).
pub const PLANT_SUBSTEPS: usize = 16;

/// The built pieces of a closed-loop run.
pub struct ClosedLoop {
    /// The nominal problem file.
    pub problem: Problem,
    /// Its `mpc` section resolved.
    pub setup: MpcSetup,
    /// The controller over the OCP.
    pub controller: Controller,
    /// The plant (the mismatched model when `mpc.plant` is given).
    pub plant: Simulator,
}

/// Build the controller and the plant of a problem file (what `fesdj mpc` and `fesdj_node`
/// with `sim: true` run).
pub fn build_closed_loop(problem: Problem) -> Result<ClosedLoop, BuildError> {
    let setup = problem.mpc_setup()?;
    let ocp = problem.ocp()?;
    let controller = build_controller(&problem, &setup, &ocp)?;
    let plant = build_plant(&problem, &setup, &ocp)?;
    Ok(ClosedLoop {
        problem,
        setup,
        controller,
        plant,
    })
}

/// The MPC controller of a problem file: its OCP (`ocp`, from [`Problem::ocp`]) with the
/// references written, the `mpc` settings, the periodic reference, the gap projection and the
/// tail simulator.
pub fn build_controller(
    problem: &Problem,
    setup: &MpcSetup,
    ocp: &OcpSetup,
) -> Result<Controller, BuildError> {
    let mut fp = FesdjProblem::new(&ocp.ocp, &ocp.options, solve_options(problem))?;
    let mut p = fp.parameters().to_vec();
    ocp.write_references(fp.layout(), &mut p);
    fp.set_parameters(&p)?;
    let n_u = problem.symbols().n_u();
    let n_c = problem.contact_names().len();
    let mut controller = Controller::new(fp, n_u, n_c, setup.settings.clone())?;
    if let Some((r, terminal)) = &ocp.periodic {
        controller.set_periodic_reference(r.clone(), *terminal)?;
    }
    if setup.contact_schedule.is_some() {
        controller.set_contact_schedule(setup.contact_schedule.clone())?;
    }
    // A gait library and a constant base velocity command need the base's x, y, yaw.
    let wants_base = setup.gait_library.is_some() || setup.base_velocity.is_some();
    if let (true, Some([x, y, yaw])) = (wants_base, setup.base_coordinates) {
        controller.set_base_command_coordinates(BaseCoordinates { x, y, yaw })?;
        if let Some(lib) = &setup.gait_library {
            let sym = problem.symbols();
            let names: Vec<String> = sym.q.iter().chain(&sym.v).cloned().collect();
            controller.set_gait_library(GaitBlend::new(lib, &names, [x, y, yaw])?)?;
        }
        if setup.base_velocity.is_some() {
            controller.set_base_velocity(setup.base_velocity)?;
        }
    } else if setup.base_velocity.is_some() {
        return Err(BuildError::Config(crate::config::ConfigError::Invalid {
            field: "mpc.base_velocity".into(),
            why: "needs a `floating_zyx` base (coordinates root_x, root_y, root_yaw)".into(),
        }));
    }
    let model = problem.cls_model()?;
    if model.n_c() > 0 {
        controller.set_gap_projection(&model, setup.max_penetration)?;
    }
    if setup.tail_simulation {
        // The controller's model, transcription and solver on one control interval.
        let tail = FesdjOptions {
            n_intervals: 1,
            ..ocp.options.clone()
        };
        let dt = ocp.options.t_final / ocp.options.n_intervals as f64;
        let sim = Simulator::new(model, dt, &tail, solve_options(problem))?;
        controller.set_tail_simulator(sim)?;
    }
    if let Some(bp) = problem.backup_problem()? {
        let (b_setup, b_ocp) = (bp.mpc_setup()?, bp.ocp()?);
        let backup = build_controller(&bp, &b_setup, &b_ocp)?;
        controller.set_backup(backup)?;
    }
    Ok(controller)
}

/// The plant of a closed-loop run: the FESD-J simulator of `mpc.plant` (the mismatched
/// model, else the nominal one) with one step per control tick; its speed guard comes from the
/// OCP's velocity bounds (`ocp`, from [`Problem::ocp`]).
pub fn build_plant(
    problem: &Problem,
    setup: &MpcSetup,
    ocp: &OcpSetup,
) -> Result<Simulator, BuildError> {
    let plant_problem = problem.plant_problem()?;
    let pp = plant_problem.as_ref().unwrap_or(problem);
    let options = FesdjOptions {
        n_intervals: 1,
        t_final: setup.dt,
        // A plant applies an impulse whenever a state needs one, also at a step start (with
        // the controller's `no_initial_impacts` a landing state makes the step infeasible).
        no_initial_impacts: false,
        ..pp.config.fesdj.clone()
    };
    let solve = solve_options(pp);
    let mut plant = Simulator::new(pp.cls_model()?, setup.dt, &options, solve.clone())?;
    // A plant step whose attempts all fail is integrated in PLANT_SUBSTEPS sub-steps of plain
    // time stepping (a failed plant step ends the run, see `run_closed_loop`). Deviation from
    // an all-FESD plant, on purpose: FESD's switch detection is degenerate where a contact
    // grazes (normal velocity and acceleration near 0, contact making and breaking within a
    // step). A hopper touchdown of this kind (light foot, leg compressing as fast as the body
    // falls) fails every FESD attempt, also in 8, 16 and 32 sub-steps, while 16 sub-steps of
    // time stepping (N_FE implicit Euler steps each) solve it in 0.3 s and agree with the 2-
    // and 4-sub-step FESD solutions to 3e-4 in the state (first order).
    let stepping = FesdjOptions {
        use_fesd: false,
        ..options
    };
    add_fallback(
        &mut plant,
        pp.cls_model()?,
        PLANT_SUBSTEPS,
        &stepping,
        &solve,
        None,
    )?;
    // The plant's speeds are bounded by PLANT_SPEED_FACTOR times the OCP's velocity bounds
    // (where it has them): a guard against the spurious fast roots of implicit steps, see
    // `Simulator::set_speed_limits`.
    if let Some(b) = &ocp.ocp.v_bounds {
        let limits: Vec<f64> =
            b.lb.iter()
                .zip(&b.ub)
                .map(|(l, u)| PLANT_SPEED_FACTOR * l.abs().max(u.abs()))
                .collect();
        plant.set_speed_limits(&limits)?;
    }
    Ok(plant)
}

/// What `fesdj simulate` runs.
pub struct Simulation {
    /// The simulator.
    pub simulator: Simulator,
    /// Its options (`n_sim` steps of `t_sim / n_sim`).
    pub options: SimulationOptions,
    /// The control of every step (`simulation.u`).
    pub controls: Vec<Vec<f64>>,
}

/// The simulator of `fesdj simulate` for a problem file (its `simulation` section) and its
/// options: steps of `horizon.T`, `simulation.fallback_substeps` sub-steps when a step fails.
pub fn build_simulation(problem: &Problem) -> Result<Simulation, BuildError> {
    let setup = problem.simulation()?;
    let options = SimulationOptions {
        t_sim: setup.options.t_final * setup.n_steps as f64,
        n_sim: setup.n_steps,
        fesdj: setup.options.clone(),
        solve: solve_options(problem),
        warm_start: true,
        retry: true,
        speed_limits: setup.speed_limits.clone(),
    };
    let mut sim = Simulator::from_options(problem.cls_model()?, &options)?;
    if let Some(n) = setup.fallback_substeps {
        let strategy = Some((options.warm_start, options.retry));
        add_fallback(
            &mut sim,
            problem.cls_model()?,
            n,
            &options.fesdj,
            &options.solve,
            strategy,
        )?;
    }
    Ok(Simulation {
        simulator: sim,
        options,
        controls: setup.controls,
    })
}

/// Give `sim` a sub-stepping fallback: a simulator of `model` with `options` and steps of
/// `sim`'s step / `n_sub` (with the warm-start/retry `strategy` when given).
fn add_fallback(
    sim: &mut Simulator,
    model: ClsModel,
    n_sub: usize,
    options: &FesdjOptions,
    solve: &SolveOptions,
    strategy: Option<(bool, bool)>,
) -> Result<(), BuildError> {
    let dt = sim.step_time() / n_sub as f64;
    let fine_options = FesdjOptions {
        t_final: dt,
        ..options.clone()
    };
    let mut fine = Simulator::new(model, dt, &fine_options, solve.clone())?;
    if let Some((warm_start, retry)) = strategy {
        fine.set_strategy(warm_start, retry);
    }
    sim.set_fallback(fine)?;
    Ok(())
}
