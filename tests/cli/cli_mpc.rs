//! `fesdj mpc` on the shipped sliding block: the closed loop reaches the analytic steady state
//! (at rest at the target x = 0.5: once |u| ≤ μ m g the block sticks, so the tracking optimum is
//! exactly the target), every tick is verified, LOG.json has its fields; a plant mismatch
//! (`mpc.plant`) and bad inputs name their field.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

const CONFIG: &str = "config/sliding_block_mpc.yaml";
const TARGET: f64 = 0.5;
const MU: f64 = 0.3;
const G: f64 = 9.81;

fn fesdj(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn run_log(name: &str, extra: &[&str]) -> (Value, String, PathBuf) {
    run_log_codes(name, extra, &[0])
}

fn run_log_codes(name: &str, extra: &[&str], codes: &[i32]) -> (Value, String, PathBuf) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_mpc");
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join(format!("{name}.json"));
    let svg = dir.join(format!("{name}.svg"));
    let mut args = vec!["mpc", CONFIG];
    args.extend_from_slice(extra);
    let (j, s) = (json.display().to_string(), svg.display().to_string());
    args.extend_from_slice(&["--output", &j, "--plot", &s]);
    let o = fesdj(&args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(codes.contains(&o.status.code().unwrap_or(-1)), "{err}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (doc, err, svg)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

#[test]
fn sliding_block_reaches_the_target_at_rest() {
    // A generous deadline: timing is not what this test checks (one warm solve near the
    // stick transition takes seconds; see the report in the summary).
    let (doc, err, svg) = run_log("block", &["--set", "mpc.deadline_s=60", "--steps", "30"]);
    eprintln!("{err}");
    assert!(err.contains("fesdj mpc: 30 ticks"), "{err}");
    let x = doc["final_state"].as_array().unwrap();
    let x: Vec<f64> = x.iter().map(f).collect();
    assert!((x[0] - TARGET).abs() < 0.01, "x = {}", x[0]);
    assert!(x[2].abs() < 0.01, "at rest: vx = {}", x[2]);
    assert!(x[1].abs() < 1e-6, "on the ground: y = {}", x[1]);
    let ticks = doc["ticks"].as_array().unwrap();
    assert_eq!(ticks.len(), 30);
    for (k, t) in ticks.iter().enumerate() {
        for key in [
            "t",
            "q",
            "v",
            "u",
            "status",
            "solve_time_s",
            "homotopy_steps",
            "source",
            "plant_failed",
            "plant_nlp_iterations",
        ] {
            assert!(t.get(key).is_some(), "tick {k}: missing {key}");
        }
        // Every plant step converged, so it ran at least one IPM iteration.
        assert!(
            t["plant_nlp_iterations"].as_u64().unwrap_or(0) >= 1,
            "tick {k}: {t}"
        );
        assert_eq!(t["source"], "fresh", "tick {k} not verified: {t}");
        assert!((f(&t["t"]) - 0.1 * k as f64).abs() < 1e-12);
        let u = f(&t["u"][0]);
        assert!(u.is_finite() && u.abs() <= 20.0 + 1e-9, "tick {k}: u = {u}");
        assert!(f(&t["solve_time_s"]) > 0.0);
        // The tick's homotopy: as many relaxed NLPs as homotopy steps (a polishing step
        // counts in neither), their iterations adding up to the tick's, each NLP's phase
        // times within its wall time.
        let hom = t["homotopy"].as_array().unwrap();
        assert!(
            hom.len() >= t["homotopy_steps"].as_u64().unwrap() as usize,
            "tick {k}: {t}"
        );
        let its: u64 = hom.iter().map(|h| h["iterations"].as_u64().unwrap()).sum();
        assert_eq!(its, t["nlp_iterations"].as_u64().unwrap(), "tick {k}: {t}");
        for h in hom {
            let tm = &h["timers"];
            let parts = f(&tm["evaluation"]) + f(&tm["linear_algebra"]) + f(&tm["line_search"]);
            assert!(
                parts > 0.0 && parts <= f(&h["time_s"]) * (1.0 + 1e-9),
                "tick {k}: {h}"
            );
            // The factorisations and the direction's solves are parts of the linear algebra.
            let (fa, so) = (f(&tm["factorization"]), f(&tm["kkt_solve"]));
            assert!(
                fa > 0.0 && so > 0.0 && fa + so <= f(&tm["linear_algebra"]) * (1.0 + 1e-9),
                "tick {k}: {h}"
            );
        }
    }
    // While it accelerates, the force exceeds the friction bound μ m g.
    assert!(ticks.iter().any(|t| f(&t["u"][0]).abs() > MU * G));
    // In the last ticks, at rest, the force the plan applies is within the stick region.
    assert!(f(&ticks[29]["u"][0]).abs() <= MU * G + 1e-6);
    let s = &doc["summary"];
    assert_eq!(f(&s["verified_fraction"]), 1.0);
    assert_eq!(s["deadline_misses"], 0);
    assert_eq!(s["plant_failures"], 0);
    assert!(f(&s["solve_time_p50_s"]) > 0.0);
    assert!(f(&s["solve_time_p99_s"]) >= f(&s["solve_time_p50_s"]));
    let split = &s["time_split_s"];
    let solves: f64 = ticks.iter().map(|t| f(&t["solve_time_s"])).sum();
    let parts: f64 = ["evaluation", "linear_algebra", "line_search", "other"]
        .iter()
        .map(|k| f(&split[*k]))
        .sum();
    assert!(f(&split["evaluation"]) > 0.0 && f(&split["linear_algebra"]) > 0.0);
    assert!(parts <= solves * (1.0 + 1e-9), "{split} vs {solves}");
    let (fa, so) = (
        f(&split["linear_algebra_factorization"]),
        f(&split["linear_algebra_kkt_solve"]),
    );
    assert!(
        fa > 0.0 && so > 0.0 && fa + so <= f(&split["linear_algebra"]) * (1.0 + 1e-9),
        "{split}"
    );
    assert_eq!(doc["rate_hz"], 10.0);
    assert_eq!(doc["names"]["q"][0], "x");
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.contains("solve time") && svg.contains("controls u"));
}

#[test]
fn plant_mismatch_changes_the_plant_only() {
    // Friction of the plant 0.25 instead of 0.3: the same controller, a different plant. (With
    // this mismatch some later MPC solves and plant steps do not converge — exit code 1 —,
    // a solver robustness issue reported separately; this test checks the plant only.)
    let (nominal, _, _) = run_log("nominal", &["--set", "mpc.deadline_s=60", "--steps", "12"]);
    let (mismatch, err, _) = run_log_codes(
        "mismatch",
        &[
            "--set",
            "mpc.deadline_s=60",
            "--set",
            "mpc.plant={model: {mu: 0.25}}",
            "--steps",
            "12",
        ],
        &[0, 1],
    );
    let x = |d: &Value, k: usize| f(&d["ticks"][k]["q"][0]);
    // Same first command (same controller, same initial state) ...
    assert_eq!(
        f(&nominal["ticks"][0]["u"][0]),
        f(&mismatch["ticks"][0]["u"][0])
    );
    // ... but the slipperier plant slides further under it: v after one period of
    // (u - μ g) differs by Δμ g dt = 0.05 · 9.81 · 0.1.
    let v1 = |d: &Value| f(&d["ticks"][1]["v"][0]);
    let u0 = f(&nominal["ticks"][0]["u"][0]);
    assert!(u0.abs() > MU * G, "the first push slides the block: {u0}");
    {
        assert!(
            (v1(&mismatch) - v1(&nominal) - 0.05 * G * 0.1).abs() < 1e-4,
            "{} vs {}",
            v1(&mismatch),
            v1(&nominal)
        );
    }
    // A failed plant step ends the run (it no longer continues from the failed solve's end
    // state): either all 12 ticks, or the ticks before the failure and the failure's tick.
    let n = mismatch["ticks"].as_array().map_or(0, |t| t.len());
    match mismatch.get("plant_failure") {
        None => assert!(n == 12 && x(&mismatch, 11).is_finite(), "{err}"),
        Some(fail) => assert_eq!(fail["tick"].as_u64(), Some(n as u64), "{err}"),
    }
}

#[test]
fn bad_inputs_name_the_field() {
    let cases: [(&[&str], &str); 9] = [
        (&["--set", "mpc.rate_hzz=5"], "mpc.rate_hzz"),
        (&["--set", "mpc.rate_hz=-1"], "mpc.rate_hz"),
        (&["--set", "mpc.deadline_s=fast"], "mpc.deadline_s"),
        (&["--set", "mpc.actuated=[z]"], "mpc.actuated[0]"),
        (
            &["--set", "mpc.plant={model: {muu: 0.2}}"],
            "mpc.plant.model.muu",
        ),
        (&["--set", "mpc.noise={std: [1, 2]}"], "mpc.noise.std"),
        (
            &["--set", "mpc.backup={model: {mu: 0.2}}"],
            "mpc.backup.model",
        ),
        (
            &["--set", "mpc.backup={solver: {kapa: 0.2}}"],
            "mpc.backup.solver.kapa",
        ),
        (&["--set", "mpc.backup=3"], "mpc.backup"),
    ];
    for (args, field) in cases {
        let mut a = vec!["mpc", CONFIG];
        a.extend_from_slice(args);
        let o = fesdj(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(field), "{args:?}: `{field}` not in: {err}");
    }
}

#[test]
fn two_evaluation_threads_give_the_same_closed_loop_bit_for_bit() {
    // `solver.eval_threads: 2` cuts the controller's constraint Jacobian into two parts, one
    // evaluated by a worker thread (ad::SplitFunction): the same expressions, so every
    // command and state of the run equals the one-thread run's exactly.
    let (one, _, _) = run_log("threads1", &["--set", "mpc.deadline_s=60", "--steps", "8"]);
    let (two, _, _) = run_log(
        "threads2",
        &[
            "--set",
            "mpc.deadline_s=60",
            "--set",
            "solver.eval_threads=2",
            "--steps",
            "8",
        ],
    );
    let ticks = |d: &Value| d["ticks"].as_array().cloned().unwrap_or_default();
    let (a, b) = (ticks(&one), ticks(&two));
    assert_eq!(a.len(), 8);
    assert_eq!(a.len(), b.len());
    for (k, (ta, tb)) in a.iter().zip(&b).enumerate() {
        for key in ["u", "q", "v"] {
            assert_eq!(ta[key], tb[key], "tick {k}: {key}");
        }
        assert_eq!(ta["nlp_iterations"], tb["nlp_iterations"], "tick {k}");
    }
    // A thread count out of range is refused by name.
    let o = fesdj(&[
        "mpc",
        CONFIG,
        "--set",
        "solver.eval_threads=0",
        "--steps",
        "1",
    ]);
    assert_ne!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("eval_threads"), "{err}");
}
