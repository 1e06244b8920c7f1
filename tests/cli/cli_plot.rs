//! The SVG plot and the trajectory outputs of `fesdj simulate` / `fesdj solve`, on a synthetic
//! trajectory in the OUT.json contract (the exact 1D bouncing ball of spec §6.4 with a control
//! column and stage forces), and the commands' argument handling.

use std::path::PathBuf;
use std::process::Command;

use fesdj_mpc::cli::plot::{plot_svg, PlotData, PlotLabels};
use fesdj_mpc::cli::run::{labels, write_outputs, RunArgs};
use fesdj_mpc::config::Problem;
use serde_json::json;

const G: f64 = 9.81;

/// The exact 1D ball from q0 = 0.8 (restitution 1) on a grid of `n` steps over [0, 3], with
/// pre/post samples at the impacts.
fn ball_doc() -> serde_json::Value {
    let q0: f64 = 0.8;
    let t_hit = (2.0 * q0 / G).sqrt();
    let period = 2.0 * t_hit;
    let v_hit = G * t_hit;
    let state = |t: f64| -> (f64, f64) {
        if t < t_hit {
            return (q0 - 0.5 * G * t * t, -G * t);
        }
        let s = (t - t_hit) % period;
        (v_hit * s - 0.5 * G * s * s, v_hit - G * s)
    };
    let (mut t, mut q, mut v) = (Vec::new(), Vec::new(), Vec::new());
    let mut impacts = Vec::new();
    for k in 0..=300 {
        let tk = 3.0 * k as f64 / 300.0;
        let (a, b) = state(tk);
        t.push(tk);
        q.push(vec![a]);
        v.push(vec![b]);
    }
    let mut hits = Vec::new();
    let mut th = t_hit;
    while th < 3.0 {
        hits.push(th);
        t.push(th);
        q.push(vec![0.0]);
        v.push(vec![-v_hit]);
        t.push(th);
        q.push(vec![0.0]);
        v.push(vec![v_hit]);
        impacts.push(json!({"t": th, "contact": 0, "Lambda_n": 2.0 * v_hit}));
        th += period;
    }
    let mut idx: Vec<usize> = (0..t.len()).collect();
    idx.sort_by(|&a, &b| t[a].total_cmp(&t[b]));
    let t: Vec<f64> = idx.iter().map(|&i| t[i]).collect();
    let q: Vec<Vec<f64>> = idx.iter().map(|&i| q[i].clone()).collect();
    let v: Vec<Vec<f64>> = idx.iter().map(|&i| v[i].clone()).collect();
    let t_u: Vec<f64> = (0..20).map(|k| 0.15 * k as f64).collect();
    let u: Vec<Vec<f64>> = (0..20).map(|k| vec![(k as f64 * 0.3).sin()]).collect();
    let (fq, fl): (Vec<f64>, Vec<Vec<f64>>) = (0..60).map(|k| (0.05 * k as f64, vec![0.0])).unzip();
    json!({
        "status": "Solved", "objective": 0.0, "comp_residual": 1e-12, "solve_time_s": 0.1,
        "t": t, "q": q, "v": v, "t_u": t_u, "u": u,
        "stage_forces": {"t": fq, "lambda_n": fl, "lambda_t": []},
        "impacts": impacts, "switch_times": hits,
        "final": {"q": [0.5386], "v": [2.2645]},
    })
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_plot");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn plot_has_every_panel_and_the_switch_lines() {
    let doc = ball_doc();
    let data = PlotData::from_json(&doc).unwrap();
    assert_eq!(data.impacts.len(), 4);
    assert_eq!(data.switch_times.len(), 4);
    let l = PlotLabels {
        title: "ball".into(),
        q: vec!["q".into()],
        v: vec!["v_q".into()],
        u: vec!["push".into()],
        contacts: vec!["ground".into()],
    };
    let out = tmp("ball.svg");
    plot_svg(&data, &l, &out).unwrap();
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.starts_with("<svg") || svg.contains("<svg"));
    for text in [
        "positions q",
        "velocities v",
        "controls u",
        "contact forces",
        "normal impulses",
        "Λn ground",
        "push",
        "v_q",
    ] {
        assert!(svg.contains(text), "missing `{text}` in the SVG");
    }
    // Impulse markers: one circle per impact (+ one in the legend).
    assert!(svg.matches("<circle").count() >= 5);
}

#[test]
fn plot_without_controls_or_contacts() {
    let mut doc = ball_doc();
    let o = doc.as_object_mut().unwrap();
    for k in ["u", "t_u", "stage_forces", "impacts", "switch_times"] {
        o.remove(k);
    }
    let data = PlotData::from_json(&doc).unwrap();
    let out = tmp("plain.svg");
    plot_svg(&data, &PlotLabels::default(), &out).unwrap();
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.contains("positions q") && !svg.contains("controls u"));
}

#[test]
fn malformed_trajectory_names_the_field() {
    let mut doc = ball_doc();
    doc["q"] = json!([[1.0]]);
    let e = PlotData::from_json(&doc).unwrap_err().to_string();
    assert!(e.contains("q/v"), "{e}");
    doc["t"] = json!("no");
    let e = PlotData::from_json(&doc).unwrap_err().to_string();
    assert!(e.contains("`t`"), "{e}");
}

#[test]
fn outputs_are_written_with_the_problem_labels() {
    let cfg = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/bouncing_ball_1d.yaml");
    let p = Problem::load(&cfg, &[]).unwrap();
    let l = labels(&p, "simulate");
    assert_eq!(l.title, "bouncing_ball_1d (simulate)");
    assert_eq!(l.contacts, ["ground"]);
    let args = RunArgs {
        config: cfg,
        set: Vec::new(),
        output: Some(tmp("out.json")),
        plot: Some(tmp("out.svg")),
        dry_run: false,
        quiet: true,
    };
    let doc = ball_doc();
    write_outputs(&doc, &l, &args).unwrap();
    let back: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp("out.json")).unwrap()).unwrap();
    assert_eq!(back, doc);
    assert!(std::fs::read_to_string(tmp("out.svg"))
        .unwrap()
        .contains("ground"));
}

fn fesdj(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn dry_run_prints_the_transcription_sizes() {
    let (code, out, err) = fesdj(&["simulate", "config/bouncing_ball_1d.yaml", "--dry-run"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("simulation step: n_w = ") && out.contains("n_comp = "),
        "{out}"
    );
    let (code, out, err) = fesdj(&[
        "solve",
        "config/hopper_ocp.yaml",
        "--dry-run",
        "--set",
        "horizon.N=4",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("ocp: n_w = ") && out.contains("N = 4"),
        "{out}"
    );
}

#[test]
fn configuration_errors_exit_2_with_the_field() {
    let (code, _, err) = fesdj(&[
        "simulate",
        "config/bouncing_ball_1d.yaml",
        "--set",
        "initial.q=[1, 2]",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("initial.q: expected 1 entries"), "{err}");
    let (code, _, err) = fesdj(&["solve", "config/bouncing_ball_1d.yaml"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("horizon: missing"), "{err}");
}

#[test]
fn solve_lists_the_homotopy_in_the_output() {
    let out = tmp("hopper_solve.json");
    let out_s = out.to_string_lossy().into_owned();
    let (code, _, err) = fesdj(&["solve", "config/hopper_ocp.yaml", "--output", &out_s]);
    assert_eq!(code, Some(0), "{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(doc["status"], "Solved");
    let steps = doc["homotopy"].as_array().expect("homotopy is a list");
    assert!(!steps.is_empty());
    // every relaxed NLP's iterations, polishing included, add up to the solve's total
    let total: u64 = steps
        .iter()
        .map(|s| s["iterations"].as_u64().expect("iterations"))
        .sum();
    assert_eq!(Some(total), doc["nlp_iterations"].as_u64());
    // σ decreases along the homotopy (0 marks the polishing step, last)
    let sigmas: Vec<f64> = steps.iter().map(|s| s["sigma"].as_f64().unwrap()).collect();
    let relaxed: Vec<f64> = sigmas.iter().copied().filter(|&s| s > 0.0).collect();
    assert_eq!(relaxed[0], 1.0, "{sigmas:?}");
    assert!(relaxed.windows(2).all(|w| w[1] < w[0]), "{sigmas:?}");
    for s in steps {
        for key in ["status", "objective", "comp_residual", "time_s"] {
            assert!(!s[key].is_null(), "{key} missing in {s}");
        }
    }
}
