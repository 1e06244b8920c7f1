//! `fesdj mpcc bench` on the small problem folders of `tests/data/bench` (fesdj-mpcc files:
//! two kth3 variants with known optima, one infeasible variant, one non-problem JSON) and
//! `tests/data/bench_casadi` (a NOSBENCH-style CasADi problem, only where python3 has casadi).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_bench")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn bench(dir: &str, out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args(["mpcc", "bench", dir, "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn table(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("table.json")).unwrap()).unwrap()
}

fn lines(out: &Path) -> Vec<String> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bench_table_and_resume() {
    let out = out_dir("native");
    let o = bench("tests/data/bench", &out, &["--time-limit", "30"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let t = table(&out);
    let fams = t["families"].as_array().unwrap();
    let names: Vec<&str> = fams.iter().map(|r| r["family"].as_str().unwrap()).collect();
    assert_eq!(names, ["BAD", "KTH"], "notes.json is not a problem");
    assert_eq!(fams[0]["problems"], 1);
    assert_eq!(
        fams[0]["ours_solved"], 0,
        "the infeasible variant is not solved"
    );
    assert_eq!(fams[1]["problems"], 2);
    assert_eq!(fams[1]["ours_solved"], 2);
    assert_eq!(t["total"]["problems"], 3);
    assert_eq!(t["total"]["ours_solved"], 2);
    // IPOPT was not asked for: its columns are empty
    assert!(t["total"]["ipopt_brf0_solved"].is_null());
    // both kth3 variants end at a one-sided corner: strongly stationary, certified B
    assert_eq!(fams[1]["ours_b_certified"], 2);
    assert_eq!(fams[1]["ours_verdicts"], serde_json::json!({"S": 2}));
    assert_eq!(fams[1]["ours_descent_kept"], 0);
    let md = std::fs::read_to_string(out.join("table.md")).unwrap();
    assert!(md.contains("| KTH | 2 | 2 (100 %) |"), "{md}");
    assert!(md.contains("| 2 (100 %) | S 2 | 0 |"), "{md}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("| KTH |"));
    let recs: Vec<serde_json::Value> = lines(&out)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs.len(), 3);
    for r in &recs {
        let want = if r["solved"] == true { "S" } else { "unknown" };
        assert_eq!(r["stationarity"], want, "{r}");
    }
    let obj = |name: &str| {
        recs.iter()
            .find(|r| r["problem"] == name)
            .and_then(|r| r["objective"].as_f64())
            .unwrap()
    };
    assert!((obj("KTH_001_p1") - 0.5).abs() < 1e-6);
    assert!((obj("KTH_002_p05") - 0.25).abs() < 1e-6);

    // Resume: a rerun solves only what is missing and keeps the other lines as they are (their
    // times would differ if they were solved again).
    let before = lines(&out);
    let kept: Vec<String> = before
        .iter()
        .filter(|l| !l.contains("KTH_002_p05"))
        .cloned()
        .collect();
    std::fs::write(out.join("results.jsonl"), kept.join("\n") + "\n").unwrap();
    let o = bench("tests/data/bench", &out, &["--time-limit", "30"]);
    assert_eq!(o.status.code(), Some(0));
    let after = lines(&out);
    assert_eq!(after.len(), 3);
    assert_eq!(after[..2], kept[..]);
    assert!(after[2].contains("KTH_002_p05"));
    assert_eq!(table(&out)["total"]["ours_solved"], 2);

    // Other settings in the same folder are refused; --fresh starts over.
    let o = bench("tests/data/bench", &out, &["--time-limit", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("other settings"));
    let o = bench(
        "tests/data/bench",
        &out,
        &["--time-limit", "5", "--fresh", "--filter", "KTH_001"],
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(lines(&out).len(), 1);
    assert_eq!(table(&out)["total"]["problems"], 1);
}

#[test]
fn bench_reports_a_corrupt_results_file() {
    let out = out_dir("corrupt");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("results.jsonl"), "{\"problem\": 1}\n{}\n").unwrap();
    let o = bench("tests/data/bench", &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("results.jsonl, line 1"),
        "names the file and line: {stderr}"
    );
    let o = bench("tests/data/no_such_folder", &out_dir("missing"), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no_such_folder"));
}

#[test]
fn bench_exports_and_runs_ipopt() {
    let casadi = Command::new("python3")
        .args(["-c", "import casadi"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !casadi {
        eprintln!("skipped: python3 with casadi is not available");
        return;
    }
    let out = out_dir("casadi");
    let o = bench("tests/data/bench_casadi", &out, &["--ipopt"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(
        out.join("exported/TOY_001_kth.json").is_file(),
        "cached export"
    );
    let recs: Vec<serde_json::Value> = lines(&out)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let solvers: Vec<&str> = recs.iter().map(|r| r["solver"].as_str().unwrap()).collect();
    assert_eq!(solvers, ["ours", "ipopt_brf0", "ipopt_default"]);
    for r in &recs[..2] {
        assert_eq!(r["solved"], true, "{r}");
        assert!(
            (r["objective"].as_f64().unwrap() - 0.25).abs() < 1e-6,
            "{r}"
        );
    }
    let t = table(&out);
    assert_eq!(t["total"]["both_solved"], 1);
    assert_eq!(t["total"]["objective_agree"], 1);
    assert!(t["total"]["median_time_ratio"].as_f64().unwrap() > 0.0);
}
