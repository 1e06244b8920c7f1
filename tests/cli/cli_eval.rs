//! `fesdj eval` on the bundled example function, against the analytic Rosenbrock derivatives.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the fesdj binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn eval_rosenbrock_value_jacobian_hessian() {
    let (code, stdout, stderr) = run(&[
        "eval",
        "examples/functions/rosenbrock.json",
        "--input",
        "1.2,1.0",
        "--jacobian",
        "--hessian",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let (x, y) = (1.2f64, 1.0f64);
    let f = 100.0 * (y - x * x).powi(2) + (1.0 - x).powi(2);
    let gx = -400.0 * x * (y - x * x) - 2.0 * (1.0 - x);
    let gy = 200.0 * (y - x * x);
    let hxx = 1200.0 * x * x - 400.0 * y + 2.0;
    let hxy = -400.0 * x;
    let close =
        |a: &serde_json::Value, b: f64| (a.as_f64().unwrap() - b).abs() < 1e-10 * (1.0 + b.abs());
    assert!(close(&doc["outputs"][0][0], f));
    let jv = &doc["jacobians"][0]["values"];
    assert!(close(&jv[0], gx) && close(&jv[1], gy), "{jv}");
    let hv = &doc["hessian"]["values"];
    assert!(
        close(&hv[0], hxx) && close(&hv[1], hxy) && close(&hv[2], 200.0),
        "{hv}"
    );
}

#[test]
fn eval_reports_bad_input() {
    let (code, _, stderr) = run(&[
        "eval",
        "examples/functions/rosenbrock.json",
        "--input",
        "1.2,abc",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("abc"), "{stderr}");
    let (code, _, stderr) = run(&[
        "eval",
        "examples/functions/rosenbrock.json",
        "--input",
        "1.2",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("length of input 0"), "{stderr}");
    let (code, _, stderr) = run(&["eval", "no/such/file.json", "--input", "1,2"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no/such/file.json"), "{stderr}");
}
