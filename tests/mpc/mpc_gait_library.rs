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
    let m = phase_samples(g);
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

/// Phase shift (samples) of a gait: its first contact's stance centred at phase 0.
fn phase_samples(g: &Value) -> usize {
    let period = g["period"].as_f64().unwrap();
    let n = g["x"].as_array().unwrap().len() - 1;
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
    ((frac * n as f64).round() as usize) % n
}

/// Whether gait `g` has contact `l` loaded at controller time `s`: its force sample (at
/// `t_force`) nearest to `s` moved by the gait's phase shift, on the periodic clock.
fn stance_at(g: &Value, s: f64, l: usize) -> bool {
    let period = g["period"].as_f64().unwrap();
    let n = g["x"].as_array().unwrap().len() - 1;
    let u = (s + phase_samples(g) as f64 * period / n as f64).rem_euclid(period);
    let dist = |t: f64| {
        let d = (t - u).rem_euclid(period);
        d.min(period - d)
    };
    let tf = floats(&g["t_force"]);
    let j = (0..tf.len())
        .min_by(|&a, &b| dist(tf[a]).total_cmp(&dist(tf[b])))
        .unwrap();
    g["stance"][j][l].as_bool().unwrap()
}

/// `mpc.gait_schedule_from`: from that control interval on, the plan's feet follow the stance
/// pattern of the library gait the command steps with (for 0.15 m/s, the 0.2 m/s trot: the
/// faster of the bracketing pair), taken here from the file's force samples: a swinging foot
/// carries exactly no force. The first interval stays the optimiser's choice; without the
/// setting the same solve loads feet the gait swings.
#[test]
fn the_gait_schedule_fixes_the_swing_phases_of_the_later_intervals() {
    let lib: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("config/quadruped_gaits.json")).unwrap(),
    )
    .unwrap();
    let gait = lib["gaits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| floats(&g["command"]) == [0.2, 0.0, 0.0])
        .unwrap()
        .clone();
    let t0 = 0.35;
    let plan_of = |schedule: bool| {
        let mut sets: Vec<String> = vec!["mpc.base_velocity=[0.15, 0, 0]".into()];
        if schedule {
            sets.push("mpc.gait_schedule_from=1".into());
        } else {
            sets.push("mpc.gait_schedule_from=null".into());
        }
        let problem = Problem::load(&root().join("config/quadruped_mpc.yaml"), &sets).unwrap();
        let x0 = problem.x0();
        let mut cl = build_closed_loop(problem).unwrap();
        let n_q = x0.len() / 2;
        cl.controller.set_state(t0, &x0[..n_q], &x0[n_q..]).unwrap();
        let plan = cl
            .controller
            .solve(Duration::from_secs(60))
            .unwrap()
            .clone();
        assert!(plan.status.is_success(), "{:?}", plan.status);
        plan
    };
    let (with, without) = (plan_of(true), plan_of(false));
    let n_c = with.n_c;
    let n_int = with.t_u.len() - 1;
    let (mut swing, mut loaded_swing) = (0, 0);
    for k in 1..n_int {
        let s = t0 + (k + 1) as f64 * 0.05;
        for l in 0..n_c {
            if stance_at(&gait, s, l) {
                continue;
            }
            swing += 1;
            assert_eq!(with.lambda_n[k * n_c + l], 0.0, "interval {k}, contact {l}");
            if without.lambda_n[k * n_c + l] > 1e-3 {
                loaded_swing += 1;
            }
        }
    }
    // Two feet swing at a time in a trot: about half the foot-intervals.
    assert!(swing >= n_int - 1, "{swing} swinging foot-intervals");
    assert!(
        loaded_swing > 0,
        "the unscheduled plan follows the gait's swings already"
    );
}

/// `mpc.contact_penalty_weight`: the controller's ℓ1 penalty weighs every normal-contact pair
/// (time stepping's stage-wise λ_n ⊥ gap, one per contact and interval) by the setting and
/// every friction pair by 1; the default weighs all by 1, and a bad weight is refused by name.
#[test]
fn the_contact_penalty_weight_lands_on_the_normal_contact_pairs() {
    use fesdj_mpc::fesdj::PairKind;
    let weights_of = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let problem = Problem::load(&root().join("config/quadruped_mpc.yaml"), &sets).unwrap();
        let cl = build_closed_loop(problem).unwrap();
        let p = cl.controller.problem();
        let kinds: Vec<PairKind> = p.pair_info().iter().map(|c| c.kind).collect();
        (p.penalty_weights().to_vec(), kinds)
    };
    let (w, kinds) = weights_of(&["mpc.contact_penalty_weight=7"]);
    assert_eq!(w.len(), kinds.len());
    let contact = kinds
        .iter()
        .filter(|&&k| k == PairKind::StageContact)
        .count();
    assert_eq!(contact, 8 * 4, "N = 8 intervals, four feet");
    for (i, (&wi, &k)) in w.iter().zip(&kinds).enumerate() {
        let want = if k == PairKind::StageContact {
            7.0
        } else {
            1.0
        };
        assert_eq!(wi, want, "pair {i} ({k:?})");
    }
    let (w, _) = weights_of(&["mpc.contact_penalty_weight=null"]);
    assert!(w.iter().all(|&x| x == 1.0));
    let sets = vec!["mpc.contact_penalty_weight=0".to_string()];
    let e = Problem::load(&root().join("config/quadruped_mpc.yaml"), &sets)
        .and_then(|p| p.mpc_setup().map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("mpc.contact_penalty_weight"), "{e}");
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
    let e = load(&["mpc.gait_library=null", "mpc.gait_schedule_from=1"]).unwrap();
    assert!(
        e.contains("mpc.gait_schedule_from") && e.contains("gait_library"),
        "{e}"
    );
    let e = load(&[
        "mpc.gait_schedule_from=1",
        "mpc.contact_schedule={period: 0.6, swing: {FL_foot: [0, 0.5]}}",
    ])
    .unwrap();
    assert!(
        e.contains("mpc.gait_schedule_from") && e.contains("contact_schedule"),
        "{e}"
    );
    // Beyond the horizon (N = 8): refused when the controller is built.
    let problem = Problem::load(
        &root().join("config/quadruped_mpc.yaml"),
        &["mpc.gait_schedule_from=8".to_string()],
    )
    .unwrap();
    let e = build_closed_loop(problem).err().unwrap().to_string();
    assert!(e.contains("gait_schedule_from"), "{e}");
    // A library of another robot: the hopper has no floating base.
    let hop = Problem::load(
        &root().join("config/hopper_mpc.yaml"),
        &["mpc.gait_library=quadruped_gaits.json".to_string()],
    )
    .unwrap();
    let e = hop.mpc_setup().err().unwrap().to_string();
    assert!(e.contains("mpc.gait_library"), "{e}");
}
