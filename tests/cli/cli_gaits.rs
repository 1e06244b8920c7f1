//! `fesdj gaits` (issue 27): the shipped gait library equals the command's output for its
//! settings, every gait is verified, and each gait travels as commanded (checked here from its
//! trajectory with the closed form of a constant body twist); an interrupted run resumes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_gaits");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn fesdj(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fesdj"));
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Equal up to 1e-6 relative in numbers, exactly elsewhere (the solves are deterministic; the
/// margin covers another CPU's choice of fused multiply-adds).
fn same(a: &Value, b: &Value, at: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-6 * (1.0 + y.abs()), "{at}: {x} vs {y}");
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: lengths");
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                same(p, q, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(
                x.keys().collect::<Vec<_>>(),
                y.keys().collect::<Vec<_>>(),
                "{at}: keys"
            );
            for (k, p) in x {
                same(p, &y[k], &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

/// Pose `(x, y, ψ)` after `t` of the body twist `(vₓ, v_y, ω)` from the origin.
fn pose(cmd: &[f64], t: f64) -> [f64; 3] {
    let (vx, vy, w) = (cmd[0], cmd[1], cmd[2]);
    if w == 0.0 {
        return [vx * t, vy * t, 0.0];
    }
    let p = w * t;
    [
        (vx * p.sin() - vy * (1.0 - p.cos())) / w,
        (vx * (1.0 - p.cos()) + vy * p.sin()) / w,
        p,
    ]
}

#[test]
fn the_shipped_library_is_the_commands_output_and_every_gait_travels_as_commanded() {
    let out = dir().join("library.json");
    let img = dir().join("img");
    let o = fesdj(&[
        "gaits",
        "config/quadruped_gaits.yaml",
        "--output",
        out.to_str().unwrap(),
        "--diagrams",
        img.to_str().unwrap(),
        "--quiet",
    ])
    .output()
    .unwrap();
    let log = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{log}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let made = read(&out);
    let shipped = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("config/quadruped_gaits.json"));
    same(&made, &shipped, "library");

    let gaits = made["gaits"].as_array().unwrap();
    assert_eq!(gaits.len(), 15);
    let names: Vec<&str> = made["state_names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let at = |n: &str| names.iter().position(|m| *m == n).unwrap();
    let n_q = names.len() / 2;
    for (i, g) in gaits.iter().enumerate() {
        assert_eq!(g["verified"], true, "gait {i}");
        assert!(g["comp_residual"].as_f64().unwrap() <= 1e-9, "gait {i}");
        let cmd: Vec<f64> = g["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_f64().unwrap())
            .collect();
        let x = g["x"].as_array().unwrap();
        let row = |k: usize| -> Vec<f64> {
            x[k].as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_f64().unwrap())
                .collect()
        };
        let (first, last) = (row(0), row(x.len() - 1));
        let period = g["period"].as_f64().unwrap();
        let p = pose(&cmd, period);
        for (j, name) in ["root_x", "root_y", "root_yaw"].iter().enumerate() {
            // Fixed at the origin (the first sample is the first interval's start, equal to
            // the fixed initial state up to the solver's tolerance).
            assert!(first[at(name)].abs() < 1e-9, "gait {i}: {name}(0)");
            let e = (last[at(name)] - p[j]).abs();
            assert!(
                e < 1e-8,
                "gait {i}: {name}(T) {} vs {}",
                last[at(name)],
                p[j]
            );
        }
        // Everything else returns to its start (the base velocity turned by the heading).
        let (s, c) = p[2].sin_cos();
        for j in 0..2 * n_q {
            let name = names[j];
            let want = match name {
                "root_x" | "root_y" | "root_yaw" => continue,
                "v_root_x" => c * first[j] - s * first[at("v_root_y")],
                "v_root_y" => s * first[at("v_root_x")] + c * first[j],
                _ => first[j],
            };
            assert!((last[j] - want).abs() < 1e-7, "gait {i}: {name}");
        }
        // The stance pattern is the normal force against the mean per foot.
        let lam = g["lambda_n"].as_array().unwrap();
        let stance = g["stance"].as_array().unwrap();
        for (k, (l, st)) in lam.iter().zip(stance).enumerate() {
            let l: Vec<f64> = l
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            let mean = l.iter().sum::<f64>() / 4.0;
            for (f, s) in l.iter().zip(st.as_array().unwrap()) {
                assert_eq!(
                    s.as_bool().unwrap(),
                    *f > 0.25 * mean,
                    "gait {i} sample {k}"
                );
            }
        }
        let svg = std::fs::read_to_string(img.join(format!("gait_{i:02}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(g["name"].as_str().unwrap()));
    }
    // Standing keeps every foot down; walking forward at 0.2 m/s lifts feet: a trot.
    assert_eq!(gaits[0]["name"], "stand");
    assert_eq!(gaits[4]["command"][0], 0.2);
    assert_eq!(gaits[4]["name"], "trot");
    assert!(log.contains("15 gaits (15 verified, 0 resumed"), "{log}");
}

#[test]
fn an_interrupted_run_resumes_where_it_stopped() {
    let d = dir().join("resume");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = d.join("lib.yaml");
    std::fs::write(
        &lib,
        format!(
            "problem: {}\noutput: out.json\ncommands:\n  - [0.1, 0, 0]\n  - [0, 0, 0.25]\n",
            root.join("config/quadruped_gait.yaml").display()
        ),
    )
    .unwrap();
    let l = lib.to_str().unwrap();
    // One job: the gaits finish one after the other; stop the run once the first is kept.
    let mut child = fesdj(&["gaits", l, "--jobs", "1", "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let first = d.join(".out.parts/gait_000.json");
    let t0 = Instant::now();
    while !first.exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no part after 120 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !d.join("out.json").exists(),
        "the run finished before it was stopped"
    );
    let o = fesdj(&["gaits", l, "--quiet"]).output().unwrap();
    let log = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{log}");
    assert!(log.contains("2 gaits (2 verified, 1 resumed"), "{log}");
    assert!(
        !d.join(".out.parts").exists(),
        "the parts are removed at the end"
    );
    // The same as an uninterrupted run.
    let o = fesdj(&[
        "gaits",
        l,
        "--output",
        d.join("again.json").to_str().unwrap(),
        "--quiet",
    ])
    .output()
    .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("0 resumed"));
    same(
        &read(&d.join("out.json")),
        &read(&d.join("again.json")),
        "library",
    );
}
