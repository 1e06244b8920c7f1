//! `fesdj mpcc solve` on the bundled kth3 example (f* = 0.5 at (0, 1)).

use std::process::Command;

#[test]
fn mpcc_solve_json() {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let settings = std::path::Path::new(dir).join("mpcc_settings.yaml");
    std::fs::write(&settings, "kappa: 0.2\nipm:\n  print: true\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args([
            "mpcc",
            "solve",
            "examples/mpcc/kth3.json",
            "--json",
            "--settings",
        ])
        .arg(&settings)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("iter"), "no iteration log: {stderr}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["status"], "Solved");
    assert!((doc["objective"].as_f64().unwrap() - 0.5).abs() < 1e-6);
    assert!(doc["comp_residual"].as_f64().unwrap() <= 1e-9);
    let x = doc["x"].as_array().unwrap();
    assert!(x[0].as_f64().unwrap().abs() < 1e-6 && (x[1].as_f64().unwrap() - 1.0).abs() < 1e-6);
    for key in [
        "max_constraint_violation",
        "nlp_iterations",
        "homotopy_steps",
        "time_s",
    ] {
        assert!(doc.get(key).is_some(), "missing {key}");
    }
    // the certificate: (0, 1) has G = x = 0 < H = y = 1, no biactive pair; ∇f = (-1, 0) =
    // ν_G e_x with ν_G free: strongly stationary
    assert_eq!(doc["stationarity"], "S");
    assert_eq!(doc["certificate"]["biactive"], 0);
    assert_eq!(doc["certificate"]["b_stationary"], true);
    assert!(doc["certificate"]["descent"].is_null());
    assert!(stderr.contains("stationarity S"), "{stderr}");
}

#[test]
fn mpcc_solve_reports_bad_settings() {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let settings = std::path::Path::new(dir).join("bad_settings.yaml");
    std::fs::write(&settings, "kappa: 3.0\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args(["mpcc", "solve", "examples/mpcc/kth3.json", "--settings"])
        .arg(&settings)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("kappa"));
}

/// `fesdj mpcc solve` runs the second homotopy path from σ₀/√κ = 1/√0.1 by default, also when a
/// settings file does not name it, and not when the file sets `second_path_sigma0: 0`.
#[test]
fn mpcc_solve_runs_a_second_path_unless_told_not_to() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let run = |settings: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fesdj"));
        cmd.args([
            "mpcc",
            "solve",
            "examples/mpcc/kth3.json",
            "--json",
            "--quiet",
        ]);
        if let Some(text) = settings {
            let path = dir.join(format!("second_path_{}.yaml", text.len()));
            std::fs::write(&path, text).unwrap();
            cmd.arg("--settings").arg(path);
        }
        let out = cmd
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (doc, stderr)
    };
    for settings in [None, Some("kappa: 0.1\n")] {
        let (doc, stderr) = run(settings);
        let s = &doc["second_path"];
        let sigma0 = s["sigma0"].as_f64().unwrap_or(f64::NAN);
        assert!(
            (sigma0 - 0.1f64.sqrt().recip()).abs() < 1e-12,
            "{settings:?}: {doc}"
        );
        assert_eq!(s["status"], "Solved");
        // kth3 has one solution (0, 1): both paths end there, the first is kept
        assert_eq!(s["kept"], false);
        assert!((s["objective"].as_f64().unwrap() - 0.5).abs() < 1e-6);
        assert!(stderr.contains("second path (σ₀ = 3.1623)"), "{stderr}");
    }
    let (doc, stderr) = run(Some("second_path_sigma0: 0\n"));
    assert!(doc["second_path"].is_null(), "{doc}");
    assert!(!stderr.contains("second path"), "{stderr}");
}
