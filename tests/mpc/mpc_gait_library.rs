//! A gait library as the controller's reference (`mpc.gait_library`, `mpc.base_velocity`;
//! issue 27): before a solve the LSQ references hold, for every entry but the base's x, y, yaw
//! and their rates, the blend of the two library gaits that bracket the command, each shifted
//! in phase to centre its first contact's stance at phase 0. Checked against the same blend
//! computed here from the library file, independently of `GaitBlend`.

use std::path::Path;
use std::time::Duration;

use fesdj_mpc::app::build_closed_loop;
use fesdj_mpc::config::Problem;
use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Entry `j` of gait `g` at time `s`: samples `x[0..n]` at `k T / n`, rotated by the phase of
/// the first contact's stance centre, linear in between, periodic.
fn gait_at(g: &Value, s: f64, j: usize) -> f64 {
    let period = g["period"].as_f64().unwrap();
    let x: Vec<Vec<f64>> = g["x"].as_array().unwrap().iter().map(floats).collect();
    let n = x.len() - 1;
    let (mut c, mut si) = (0.0, 0.0);
    for (t, l) in floats(&g["t_force"])
        .iter()
        .zip(g["lambda_n"].as_array().unwrap())
    {
        let a = 2.0 * std::f64::consts::PI * t / period;
        c += floats(l)[0] * a.cos();
        si += floats(l)[0] * a.sin();
    }
    let frac = si.atan2(c).rem_euclid(2.0 * std::f64::consts::PI) / (2.0 * std::f64::consts::PI);
    let m = ((frac * n as f64).round() as usize) % n;
    let u = s.rem_euclid(period) / period * n as f64;
    let k = (u.floor() as usize).min(n - 1);
    let w = u - k as f64;
    let a = x[(k + m) % n][j];
    let b = x[(k + 1 + m) % n][j];
    (1.0 - w) * a + w * b
}

#[test]
fn the_references_blend_the_bracketing_gaits() {
    let sets: Vec<String> = [
        "mpc.gait_library=quadruped_gaits.json",
        "mpc.base_velocity=[0.15, 0, 0]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let problem = Problem::load(&root().join("config/quadruped_mpc.yaml"), &sets).unwrap();
    let x0 = problem.x0();
    let mut cl = build_closed_loop(problem).unwrap();
    let n_q = x0.len() / 2;
    let t0 = 0.35;
    cl.controller.set_state(t0, &x0[..n_q], &x0[n_q..]).unwrap();
    cl.controller.solve(Duration::from_secs(30)).unwrap();

    let lib: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("config/quadruped_gaits.json")).unwrap(),
    )
    .unwrap();
    let gaits = lib["gaits"].as_array().unwrap();
    let find = |vx: f64| {
        gaits
            .iter()
            .find(|g| floats(&g["command"]) == [vx, 0.0, 0.0])
            .unwrap()
    };
    let (ga, gb) = (find(0.1), find(0.2));
    let fp = cl.controller.problem();
    let p = fp.parameters();
    let refs = &fp.layout().params.x_ref;
    let dt = 0.4 / refs.len() as f64;
    // Base x, y, yaw (0, 1, 3) and their rates follow the command, not the gaits.
    let base = [0, 1, 3, n_q, n_q + 1, n_q + 3];
    let mut checked = 0;
    for (k, slots) in refs.iter().enumerate() {
        let s = t0 + (k + 1) as f64 * dt;
        for (j, &slot) in slots.iter().enumerate() {
            if base.contains(&j) {
                continue;
            }
            let want = 0.5 * gait_at(ga, s, j) + 0.5 * gait_at(gb, s, j);
            assert!(
                (p[slot] - want).abs() < 1e-9,
                "interval {k}, entry {j}: {} vs {want}",
                p[slot]
            );
            checked += 1;
        }
        // The forward speed reference is the command (yaw 0).
        assert!((p[slots[n_q]] - 0.15).abs() < 1e-12);
    }
    assert_eq!(checked, refs.len() * (2 * n_q - 6));
}

#[test]
fn a_bad_library_is_refused_by_name() {
    let load = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        match Problem::load(&root().join("config/quadruped_mpc.yaml"), &sets) {
            Ok(p) => p.mpc_setup().err().map(|e| e.to_string()),
            Err(e) => Some(e.to_string()),
        }
    };
    let e = load(&["mpc.gait_library=no_such_file.json"]).unwrap();
    assert!(
        e.contains("mpc.gait_library") && e.contains("no_such_file.json"),
        "{e}"
    );
    let e = load(&["mpc.gait_library=quadruped_gait.yaml"]).unwrap();
    assert!(
        e.contains("mpc.gait_library") && e.contains("not a gait library"),
        "{e}"
    );
    let e = load(&["mpc.base_velocity=[.nan, 0, 0]"]).unwrap();
    assert!(e.contains("mpc.base_velocity[0]"), "{e}");
    // A library of another robot: the hopper has no floating base.
    let hop = Problem::load(
        &root().join("config/hopper_mpc.yaml"),
        &["mpc.gait_library=quadruped_gaits.json".to_string()],
    )
    .unwrap();
    let e = hop.mpc_setup().err().unwrap().to_string();
    assert!(e.contains("mpc.gait_library"), "{e}");
}
