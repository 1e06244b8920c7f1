//! `fesdj mpc` on the shipped hopper with FESD-J as the controller's transcription (issue 25,
//! docs/fesdj-in-the-loop.md "A fast path with a fallback"): the warm-started ticks solve one
//! relaxed NLP at the target σ = 10⁻⁶ and run the homotopy from 10⁻² only when that fails
//! (`solver.warm_fallback_sigma0`). Asserted from the logs of 20 ticks, against the same
//! controller with the homotopy from 10⁻² on every tick: every plan verified in both, and the
//! fast path needs a fraction of the IPM iterations. Counts only: the 30 s budget never binds
//! (the slowest tick, of the homotopy run, takes about 1.3 s on the 2-core machine).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// FESD-J with N_FE = 2, the Scholtes relaxation with the product stop test, warm starts
/// pushed 1e-9 off the bounds, a 30 s budget per solve.
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
    "mpc.startup_deadline_s=30",
    "--set",
    "mpc.deadline_s=30",
    "--steps",
    "20",
];

/// The log of one run with `extra` on top of [`FESD`].
fn run(name: &str, extra: &[&str]) -> Value {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_mpc_fesd");
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join(format!("{name}.json"));
    let j = json.display().to_string();
    let mut args = vec!["mpc", "config/hopper_mpc.yaml"];
    args.extend_from_slice(FESD);
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--output", &j]);
    let o = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{name}: {err}");
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

/// Per tick: (verified, IPM iterations, σ of every relaxed NLP).
fn ticks(doc: &Value) -> Vec<(bool, u64, Vec<f64>)> {
    doc["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let status = t["status"].as_str().unwrap();
            let sigmas = t["homotopy"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h["sigma"].as_f64().unwrap())
                .collect();
            (
                matches!(status, "Solved" | "Acceptable"),
                t["nlp_iterations"].as_u64().unwrap(),
                sigmas,
            )
        })
        .collect()
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v[v.len() / 2]
}

#[test]
fn the_fast_path_with_a_fallback_verifies_every_tick_in_a_fraction_of_the_iterations() {
    // The two runs side by side (each a process of its own).
    let (fast, plain) = std::thread::scope(|s| {
        let fast = s.spawn(|| {
            run(
                "fast",
                &[
                    "--set",
                    "mpc.warm_sigma0=1e-6",
                    "--set",
                    "solver.warm_active_set=false",
                    "--set",
                    "solver.warm_fallback_sigma0=1e-2",
                    "--set",
                    "solver.warm_first_max_iter=60",
                ],
            )
        });
        let plain = run(
            "homotopy",
            &[
                "--set",
                "solver.warm_active_set=true",
                "--set",
                "mpc.active_set_free_last_intervals=0",
            ],
        );
        (fast.join().unwrap(), plain)
    });
    let (f, p) = (ticks(&fast), ticks(&plain));
    assert_eq!(f.len(), 20);
    assert_eq!(p.len(), 20);
    for (name, doc) in [("fast", &fast), ("homotopy", &plain)] {
        assert_eq!(
            doc["summary"]["deadline_misses"].as_u64(),
            Some(0),
            "{name}"
        );
    }
    assert!(f.iter().all(|t| t.0), "fast path: every plan verified");
    assert!(p.iter().all(|t| t.0), "homotopy: every plan verified");
    // Every warm tick of the fast path starts at σ = 1e-6; a tick that falls back has a step at
    // 1e-2 after it. Most ticks need no fallback.
    let warm = &f[1..];
    assert!(warm.iter().all(|t| t.2.first() == Some(&1e-6)), "{warm:?}");
    let fell_back = warm.iter().filter(|t| t.2.contains(&1e-2)).count();
    assert!(
        fell_back * 4 <= warm.len(),
        "{fell_back} of {} ticks fell back",
        warm.len()
    );
    // IPM iterations per warm tick: the fast path's median is a small fraction of the
    // homotopy's (measured 10 against 285 over four scenarios).
    let (mf, mp) = (
        median(warm.iter().map(|t| t.1).collect()),
        median(p[1..].iter().map(|t| t.1).collect()),
    );
    assert!(
        mf * 5 <= mp,
        "median IPM iterations: fast path {mf}, homotopy {mp}"
    );
}
