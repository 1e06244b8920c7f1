//! `fesdj simulate` on the shipped balls: the exact anchors of spec §6.4 and §6.1 through the
//! command line, with the OUT.json contract and the plot.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn run(args: &[&str], out: &str) -> (Value, String) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_simulate");
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join(format!("{out}.json"));
    let svg = dir.join(format!("{out}.svg"));
    let o = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args(args)
        .arg("--output")
        .arg(&json)
        .arg("--plot")
        .arg(&svg)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(std::fs::read_to_string(&svg)
        .unwrap()
        .contains("normal impulses"));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for key in [
        "status",
        "objective",
        "comp_residual",
        "solve_time_s",
        "t",
        "q",
        "v",
        "u",
    ] {
        assert!(doc.get(key).is_some(), "missing {key}");
    }
    (doc, err)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// The document's final positions (`final.q`).
fn final_q(doc: &Value) -> Vec<f64> {
    doc["final"]["q"]
        .as_array()
        .unwrap()
        .iter()
        .map(f)
        .collect()
}

/// Times of the document's slip-to-stick switches.
fn stick_times(doc: &Value) -> Vec<f64> {
    doc["switches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "slip_to_stick")
        .map(|s| f(&s["t"]))
        .collect()
}

#[test]
fn ball_1d_bounces_exactly() {
    let (doc, _) = run(&["simulate", "config/bouncing_ball_1d.yaml"], "ball1d");
    assert_eq!(doc["status"], "Solved");
    let q = f(&doc["final"]["q"][0]);
    let v = f(&doc["final"]["v"][0]);
    // The nosnoc test's tolerance is 1e-3; we are far inside it.
    assert!((q - 0.538626350702464).abs() < 1e-6, "q(3) = {q}");
    assert!((v - 2.26454211690082).abs() < 1e-6, "v(3) = {v}");
    let impacts = doc["impacts"].as_array().unwrap();
    assert_eq!(impacts.len(), 4);
    for (k, i) in impacts.iter().enumerate() {
        let t = 0.403855021876922 + 0.807710043753844 * k as f64;
        assert!((f(&i["t"]) - t).abs() < 1e-6, "impact {k} at {}", i["t"]);
        assert!((f(&i["Lambda_n"]) - 7.92363552922521).abs() < 1e-5);
        assert_eq!(i["contact"], 0);
    }
}

#[test]
fn ball_2d_slips_then_sticks_exactly() {
    let (doc, _) = run(&["simulate", "config/bouncing_ball_2d.yaml"], "ball2d");
    assert_eq!(doc["status"], "Solved");
    let impacts = doc["impacts"].as_array().unwrap();
    assert_eq!(impacts.len(), 1);
    assert!((f(&impacts[0]["t"]) - 0.447213595499958).abs() < 1e-6);
    assert!((f(&impacts[0]["Lambda_n"]) - 4.47213595499958).abs() < 1e-5);
    let stick = stick_times(&doc);
    assert_eq!(stick.len(), 1, "{stick:?}");
    assert!((stick[0] - 4.0 / 3.0).abs() < 1e-6, "stick at {}", stick[0]);
    assert!((f(&doc["final"]["q"][0]) - 2.96666666666667).abs() < 1e-6);
    assert!(f(&doc["final"]["v"][0]).abs() < 1e-6);
}

/// Spec §6.4 item 3 through the command line: the shipped 3D ball (slip-rate conic friction)
/// has the exact impact, stick time and final state.
#[test]
fn ball_3d_slips_then_sticks_exactly() {
    let (doc, _) = run(&["simulate", "config/bouncing_ball_3d.yaml"], "ball3d");
    assert_eq!(doc["status"], "Solved");
    let impacts = doc["impacts"].as_array().unwrap();
    assert_eq!(impacts.len(), 1, "{impacts:?}");
    assert!((f(&impacts[0]["t"]) - 0.447213595499958).abs() < 1e-6);
    assert!((f(&impacts[0]["Lambda_n"]) - 4.47213595499958).abs() < 1e-5);
    let lt: Vec<f64> = impacts[0]["Lambda_t"]
        .as_array()
        .unwrap()
        .iter()
        .map(f)
        .collect();
    // ‖Λ_t‖ = μ Λ_n, opposite to the slip direction (2, 1).
    assert!(((lt[0] * lt[0] + lt[1] * lt[1]).sqrt() - 0.894427190999916).abs() < 1e-5);
    assert!(lt[0] < 0.0 && (lt[0] - 2.0 * lt[1]).abs() < 1e-6, "{lt:?}");
    let stick = stick_times(&doc);
    assert_eq!(stick.len(), 1, "{stick:?}");
    assert!(
        (stick[0] - 1.11803398874989).abs() < 1e-6,
        "stick at {}",
        stick[0]
    );
    let want = [1.29691942694988, 0.648459713474939, 0.0];
    for (k, w) in want.iter().enumerate() {
        assert!(
            (f(&doc["final"]["q"][k]) - w).abs() < 1e-6,
            "{}",
            doc["final"]
        );
        assert!(f(&doc["final"]["v"][k]).abs() < 1e-6, "{}", doc["final"]);
    }
}

#[test]
fn two_balls_final_state_and_impacts() {
    let (doc, _) = run(&["simulate", "config/two_balls_spring.yaml"], "two_balls");
    assert_eq!(doc["status"], "Solved");
    let want = [
        0.246841886728835,
        1.228210312008501,
        -2.379839521466434,
        -3.114092393623756,
    ];
    let fin: Vec<f64> = doc["final"]["q"]
        .as_array()
        .unwrap()
        .iter()
        .chain(doc["final"]["v"].as_array().unwrap())
        .map(f)
        .collect();
    for (a, b) in fin.iter().zip(want) {
        assert!((a - b).abs() < 2e-3, "{fin:?}");
    }
    let impacts = doc["impacts"].as_array().unwrap();
    assert_eq!(impacts.len(), 2);
    assert!((f(&impacts[0]["t"]) - 0.403855021876922).abs() < 1e-5);
    assert!((f(&impacts[1]["t"]) - 0.423316968814707).abs() < 1e-4);
}

/// `simulation.max_speed`: one implicit Euler step of 0.1 s of the pushing arm (the elbow
/// driving the plate into the box) lands, without the bound, on a spurious fast root of the
/// step equations; with `max_speed` (10× the OCP's velocity bounds) it agrees with 16 steps of
/// 6.25 ms to the first-order error of the long step. A bound ≤ 0 is an error naming the field.
#[test]
fn max_speed_keeps_a_long_step_on_the_physical_root() {
    let common = [
        "--set",
        "fesdj.n_fe=1",
        "--set",
        "solver.relaxation=scholtes",
        "--set",
        "solver.comp_tol=1e-9",
    ];
    let sim = |sim: &str, out: &str| {
        let mut args = vec!["simulate", "config/pusher_mpc.yaml", "--set"];
        args.push(sim);
        args.extend(common);
        final_q(&run(&args, out).0)
    };
    let u = "u: [-0.82, 2.23, 0.04]";
    let fine = sim(
        &format!("simulation={{T_sim: 0.1, N_sim: 16, {u}}}"),
        "pusher_fine",
    );
    let limits = "max_speed: [30, 30, 30, 1.5, 1.5, 20, 10]";
    let one = sim(
        &format!("simulation={{T_sim: 0.1, N_sim: 1, {u}, {limits}}}"),
        "pusher_limited",
    );
    let free = sim(
        &format!("simulation={{T_sim: 0.1, N_sim: 1, {u}}}"),
        "pusher_free",
    );
    eprintln!("16 steps {fine:?}\nlimited {one:?}\nunlimited {free:?}");
    for i in 0..7 {
        assert!(
            (one[i] - fine[i]).abs() < 0.2,
            "q[{i}]: {} vs {}",
            one[i],
            fine[i]
        );
    }
    // The unbounded step is the spurious root (shoulder 0.34 against 0.84).
    assert!((free[0] - fine[0]).abs() > 0.3, "{free:?}");
    let o = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args(["simulate", "config/pusher_mpc.yaml", "--set"])
        .arg(format!(
            "simulation={{T_sim: 0.1, N_sim: 1, {u}, max_speed: 0}}"
        ))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("simulation.max_speed"), "{err}");
}

/// The quadruped step of `tests/data/quadruped_step.yaml` (recorded from a draft MPC's closed
/// loop): with `simulation.max_speed` one implicit Euler step of 0.05 s agrees with 8 steps of
/// 6.25 ms to the long step's first-order error (body position to 2 mm, orientation to 5 mrad,
/// joints to 0.03 rad); without it the step "solves" to a
/// spurious root that throws the body 28 m (printed, not asserted).
#[test]
fn max_speed_keeps_the_quadruped_step_physical() {
    let cfg = "tests/data/quadruped_step.yaml";
    let (fine, _) = run(
        &["simulate", cfg, "--set", "simulation.N_sim=8"],
        "quad_fine",
    );
    let limits =
        "simulation.max_speed=[2, 2, 2, 3, 3, 3, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20]";
    let (one, _) = run(&["simulate", cfg, "--set", limits], "quad_limited");
    let (free, _) = run(&["simulate", cfg], "quad_free");
    let (fine, one, free) = (final_q(&fine), final_q(&one), final_q(&free));
    eprintln!(
        "8 steps {:?}\nlimited {:?}\nunlimited {:?}",
        &fine[..6],
        &one[..6],
        &free[..6]
    );
    for i in 0..3 {
        assert!(
            (one[i] - fine[i]).abs() < 2e-3,
            "q[{i}]: {} vs {}",
            one[i],
            fine[i]
        );
    }
    for i in 3..18 {
        // Orientation to 5 mrad, joints to 0.03 rad.
        let tol = if i < 6 { 5e-3 } else { 0.03 };
        assert!(
            (one[i] - fine[i]).abs() < tol,
            "q[{i}]: {} vs {}",
            one[i],
            fine[i]
        );
    }
}

/// A step whose impact comes a hair after its start: the 1D ball (restitution 1) 1e-4 above the
/// ground at −5 m/s hits it 2e-5 s into a 0.15 s step. With γ_h = 0.5 the first element is at
/// least 0.0375 s long and the step problem is infeasible with the bounds of (15); the
/// simulator's last attempt frees the step sizes (γ_h = 1) and finds the exact bounce
/// (analytic: t* from q₀ + v₀t − g t²/2 = 0, v⁺ = −v⁻, free flight after).
#[test]
fn an_impact_right_after_the_step_start_is_found_with_free_step_sizes() {
    let (q0, v0, g, t_end) = (1e-4f64, -5.0f64, 9.81f64, 0.15f64);
    let t_hit = (v0 + (v0 * v0 + 2.0 * g * q0).sqrt()) / g;
    let v_plus = -(v0 - g * t_hit);
    let dt = t_end - t_hit;
    let (q_end, v_end) = (v_plus * dt - 0.5 * g * dt * dt, v_plus - g * dt);
    for gamma in ["0.5", "0.9"] {
        let (doc, _) = run(
            &[
                "simulate",
                "config/bouncing_ball_1d.yaml",
                "--set",
                &format!("fesdj.gamma_h={gamma}"),
                "--set",
                &format!("initial.q=[{q0}]"),
                "--set",
                &format!("initial.v=[{v0}]"),
                "--set",
                &format!("simulation={{T_sim: {t_end}, N_sim: 1}}"),
            ],
            &format!("hair_{gamma}"),
        );
        assert_eq!(doc["status"], "Solved");
        let imp = doc["impacts"].as_array().unwrap();
        assert_eq!(imp.len(), 1, "{imp:?}");
        assert!(
            (f(&imp[0]["t"]) - t_hit).abs() <= 1e-9,
            "t* {imp:?} vs {t_hit}"
        );
        assert!((f(&imp[0]["Lambda_n"]) - 2.0 * v_plus).abs() <= 1e-7);
        assert!((final_q(&doc)[0] - q_end).abs() <= 1e-6, "{q_end}");
        let v = f(&doc["final"]["v"][0]);
        assert!((v - v_end).abs() <= 1e-6, "{v} vs {v_end}");
    }
}

/// `simulation.fallback_substeps`: the 2D ball of §6.4 (impact at 1/√5 s, slip decelerating at
/// μ g = 3, stick at 4/3 s, x = 2.966667) in ONE 1.5 s step holds two switches, more than
/// N_FE = 2 elements resolve, and the step fails; with 4 FESD-J sub-steps on failure it is
/// exact, and the trajectory holds the sub-steps' samples (the switch times of §6.4).
#[test]
fn fallback_substeps_integrate_a_step_with_two_switches_exactly() {
    let one_step = "simulation={T_sim: 1.5, N_sim: 1, fallback_substeps: 4}";
    let (doc, _) = run(
        &[
            "simulate",
            "config/bouncing_ball_2d.yaml",
            "--set",
            one_step,
        ],
        "fallback_2d",
    );
    assert_eq!(doc["status"], "Solved");
    let q = final_q(&doc);
    assert!((q[0] - 2.966666666666667).abs() <= 1e-6, "{q:?}");
    assert!(q[1].abs() <= 1e-9);
    let imp = doc["impacts"].as_array().unwrap();
    assert_eq!(imp.len(), 1);
    let t_hit = 1.0 / 5f64.sqrt();
    assert!((f(&imp[0]["t"]) - t_hit).abs() <= 1e-9);
    assert!((f(&imp[0]["Lambda_n"]) - 10.0 * t_hit).abs() <= 1e-7);
    let stick = stick_times(&doc);
    assert!(
        stick.iter().any(|t| (t - 4.0 / 3.0).abs() <= 1e-9),
        "{stick:?}"
    );
    // samples of the 4 sub-steps, not of the failed 1.5 s step
    let t: Vec<f64> = doc["t"].as_array().unwrap().iter().map(f).collect();
    for tb in [0.375, 0.75, 1.125] {
        assert!(t.iter().any(|x| (x - tb).abs() <= 1e-12), "{tb} in {t:?}");
    }
    assert!((t[t.len() - 1] - 1.5).abs() <= 1e-12);

    // without the fallback the same step fails; fewer than 2 sub-steps is an error naming the key
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_simulate");
    let o = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args(["simulate", "config/bouncing_ball_2d.yaml", "--set"])
        .arg("simulation={T_sim: 1.5, N_sim: 1}")
        .arg("--output")
        .arg(dir.join("no_fallback.json"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "a failed step exits 1");
    let o = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args(["simulate", "config/bouncing_ball_2d.yaml", "--set"])
        .arg("simulation={T_sim: 1.5, N_sim: 1, fallback_substeps: 1}")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("simulation.fallback_substeps"), "{err}");
}
