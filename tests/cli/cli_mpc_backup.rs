//! `fesdj mpc` with a backup controller (`mpc.backup`, `Controller::set_backup`, issue 25): the
//! shipped hopper's time-stepping controller as the backup of a FESD-J controller. Asserted
//! from the logs, counts and states only (a 30 s budget that never binds):
//!
//! * a primary whose solves always fail (two IPM iterations per relaxed NLP) leaves the backup
//!   in charge on every tick, and the closed loop is then exactly the time-stepping
//!   controller's run on its own (same plans, same plant states);
//! * a FESD-J primary without a warm start of its own starts from the backup's plan (a seeded
//!   start) and then plans itself, every plan verified;
//! * `fesdj mpc-compare` reports the ticks the backup planned (and runs the start-up solve).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// The backup: the file's own time-stepping controller and solver settings, restored under
/// the FESD-J settings of the primary.
const BACKUP: &[&str] = &[
    "--set",
    "mpc.backup.fesdj={use_fesd: false, n_fe: 1}",
    "--set",
    "mpc.backup.solver={relaxation: l1_penalty, stop_measure: product, warm_fallback_sigma0: 0, \
     warm_first_max_iter: 0}",
    "--set",
    "mpc.backup.solver.ipm={max_iter: 3000, warm_start_bound_push: 1.0e-3, \
     warm_start_mult_bound_push: 1.0e-3}",
    "--set",
    "mpc.backup.mpc={warm_sigma0: 1.0e-2, warm_retries: 4}",
];

/// The primary: FESD-J with N_FE = 2 and the fast path of docs/fesdj-in-the-loop.md.
const FESD: &[&str] = &[
    "--set",
    "fesdj.use_fesd=true",
    "--set",
    "fesdj.n_fe=2",
    "--set",
    "solver.relaxation=scholtes",
    "--set",
    "solver.stop_measure=product",
    "--set",
    "solver.ipm.warm_start_bound_push=1e-9",
    "--set",
    "solver.ipm.warm_start_mult_bound_push=1e-9",
    "--set",
    "mpc.warm_retries=10",
    "--set",
    "mpc.warm_sigma0=1e-6",
    "--set",
    "solver.warm_fallback_sigma0=1e-2",
    "--set",
    "solver.warm_first_max_iter=60",
];

/// The log of `fesdj mpc config/hopper_mpc.yaml` with `args`, a 30 s budget and `steps` ticks.
fn run(name: &str, args: &[&str], steps: usize) -> Value {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_mpc_backup");
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join(format!("{name}.json"));
    let (j, n) = (json.display().to_string(), steps.to_string());
    let mut a = vec![
        "mpc",
        "config/hopper_mpc.yaml",
        "--set",
        "mpc.deadline_s=30",
    ];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--steps", &n, "--output", &j]);
    let o = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args(&a)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{name}: {err}");
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

fn ticks(doc: &Value) -> &Vec<Value> {
    doc["ticks"].as_array().unwrap()
}

fn counter(doc: &Value, name: &str) -> u64 {
    doc["summary"]["counters"][name].as_u64().unwrap()
}

#[test]
fn a_primary_that_never_converges_leaves_the_backup_in_charge_and_the_loop_is_the_backups() {
    let (with_backup, alone) = std::thread::scope(|s| {
        let alone = s.spawn(|| run("alone", &[], 20));
        let mut args = FESD.to_vec();
        args.extend_from_slice(BACKUP);
        // The plant's build inherits the file's solver settings: restore its limit.
        args.extend_from_slice(&[
            "--set",
            "solver.ipm.max_iter=2",
            "--set",
            "mpc.plant.solver.ipm.max_iter=3000",
        ]);
        (run("failing_primary", &args, 20), alone.join().unwrap())
    });
    let (t, a) = (ticks(&with_backup), ticks(&alone));
    assert_eq!((t.len(), a.len()), (20, 20));
    for (k, (t, a)) in t.iter().zip(a).enumerate() {
        assert_eq!(t["source"], "fresh", "tick {k}");
        assert_eq!(t["planner"], "backup", "tick {k}");
        assert_eq!(a["planner"], "primary", "tick {k}");
        // The backup ran, and the primary's iterations are on top of its own.
        let n = t["nlp_iterations"].as_u64().unwrap();
        let nb = t["backup_nlp_iterations"].as_u64().unwrap();
        assert_eq!(Some(nb), a["nlp_iterations"].as_u64(), "tick {k}");
        assert!(n > nb, "tick {k}");
        // The same plant states and applied controls as the time-stepping controller alone.
        for key in ["q", "v", "u"] {
            assert_eq!(t[key], a[key], "tick {k}: {key}");
        }
    }
    assert_eq!(with_backup["final_state"], alone["final_state"]);
    assert_eq!(
        with_backup["summary"]["verified_fraction"].as_f64(),
        Some(1.0)
    );
    assert_eq!(
        with_backup["summary"]["backup_fraction"].as_f64(),
        Some(1.0)
    );
    assert_eq!(alone["summary"]["backup_fraction"].as_f64(), Some(0.0));
    assert_eq!(counter(&with_backup, "backup_plans"), 20);
    assert_eq!(counter(&with_backup, "verified"), 0);
    assert_eq!(counter(&with_backup, "deadline_misses"), 0);
    assert_eq!(counter(&with_backup, "fallbacks"), 0);
}

#[test]
fn a_fesdj_primary_starts_from_the_backups_plan_and_then_plans_itself() {
    let mut args = FESD.to_vec();
    args.extend_from_slice(BACKUP);
    let doc = run("fesdj_primary", &args, 8);
    let t = ticks(&doc);
    assert_eq!(t.len(), 8);
    assert!(
        t.iter().all(|t| t["source"] == "fresh"),
        "every plan verified"
    );
    // Tick 0 has no warm start of its own: it starts from the backup's plan of that tick,
    // and the primary's FESD-J plan is in charge.
    assert_eq!(t[0]["planner"], "primary");
    assert!(counter(&doc, "seeded_starts") >= 1);
    assert_eq!(counter(&doc, "cold_starts"), 0);
    // Then warm starts of its own; the backup ran on every tick.
    assert!(counter(&doc, "shifted_starts") >= 6);
    let primary = t.iter().filter(|t| t["planner"] == "primary").count();
    assert!(primary >= 6, "{primary} of 8 ticks planned by the primary");
    assert_eq!(
        counter(&doc, "backup_plans") as usize,
        t.len() - primary,
        "the counter and the log agree"
    );
    assert!(t
        .iter()
        .all(|t| t["backup_nlp_iterations"].as_u64() > Some(0)));
    assert_eq!(counter(&doc, "deadline_misses"), 0);
}

#[test]
fn mpc_compare_reports_the_ticks_the_backup_planned() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_mpc_backup");
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("compare.json");
    let md = dir.join("compare.md");
    let (j, m) = (json.display().to_string(), md.display().to_string());
    // The FESD-J controller of the first test (every solve fails) with its backup, after a
    // start-up solve; the baseline alone.
    let mut fesd: Vec<&str> = FESD.iter().chain(BACKUP).copied().collect();
    fesd.extend_from_slice(&[
        "--set",
        "solver.ipm.max_iter=2",
        "--set",
        "mpc.startup_deadline_s=30",
    ]);
    let mut args = vec![
        "mpc-compare",
        "config/hopper_mpc.yaml",
        "--set",
        "mpc.deadline_s=30",
        "--set",
        "mpc.plant.solver.ipm.max_iter=3000",
        "--steps",
        "6",
        "--output",
        &j,
        "--markdown",
        &m,
    ];
    for a in fesd.iter().filter(|a| **a != "--set") {
        args.extend_from_slice(&["--fesd-set", a]);
    }
    let o = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let reports = doc.as_array().unwrap();
    let fraction = |i: usize, key: &str| reports[i][key].as_f64().unwrap();
    assert_eq!(reports[0]["name"], "FESD-J");
    assert_eq!(
        (
            fraction(0, "verified_fraction"),
            fraction(0, "backup_fraction")
        ),
        (1.0, 1.0)
    );
    assert_eq!(
        (
            fraction(1, "verified_fraction"),
            fraction(1, "backup_fraction")
        ),
        (1.0, 0.0)
    );
    let table = std::fs::read_to_string(&md).unwrap();
    assert!(
        table.contains("| … planned by the backup controller | 100.0 % | 0.0 % |"),
        "{table}"
    );
}
