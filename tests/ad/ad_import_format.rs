//! Hand-written import documents: validation errors name the field or instruction, unknown op
//! codes are rejected by name, small problems parse and compile.

use fesdj_mpc::ad::import::{problem_from_str, read_function, FunctionDoc, ProblemDoc};
use fesdj_mpc::ad::AdError;
use serde_json::Value;

fn doc(instructions: &str, inputs: &str, outputs: &str, n_work: usize) -> String {
    format!(
        r#"{{"format":"fesdj-function","version":1,"name":"t","inputs":{inputs},
        "outputs":{outputs},"n_work":{n_work},"instructions":{instructions}}}"#
    )
}

fn why(e: AdError) -> String {
    match e {
        AdError::Import { why, .. } => why,
        other => panic!("expected an Import error, got {other:?}"),
    }
}

#[test]
fn malformed_documents() {
    let io = r#"[{"name":"x","size":1}]"#;
    let oo = r#"[{"name":"y","size":1}]"#;
    let ok = r#"[["input",0,0,0],["output",0,0,0]]"#;
    let cases: Vec<(String, &str)> = vec![
        ("{".into(), "malformed JSON"),
        ("[1]".into(), "expected a JSON object"),
        (
            doc(ok, io, oo, 1).replace("fesdj-function", "fesdj-mpcc"),
            "field `format`",
        ),
        (
            doc(ok, io, oo, 1).replace("\"version\":1", "\"version\":2"),
            "unsupported version 2",
        ),
        (
            doc(ok, io, oo, 1).replace("\"version\":1", "\"version\":\"1\""),
            "field `version`",
        ),
        (
            doc(ok, io, oo, 1).replace("\"name\":\"t\",", ""),
            "missing field `name`",
        ),
        (
            doc(ok, r#"[{"name":"x","size":-1}]"#, oo, 1),
            "field `inputs[0].size`",
        ),
        (
            doc(ok, r#"[{"size":1}]"#, oo, 1),
            "inputs[0]`: missing `name`",
        ),
        (doc(ok, io, oo, 3), "field `n_work`"),
        (
            doc(r#"[["input",1,0,0],["output",0,0,0]]"#, io, oo, 1),
            "instructions[0] (`input`): register 1 out of range",
        ),
        (
            doc(r#"[["input",0,1,0],["output",0,0,0]]"#, io, oo, 1),
            "input 1 out of range",
        ),
        (
            doc(r#"[["input",0,0,1],["output",0,0,0]]"#, io, oo, 1),
            "element 1 out of range",
        ),
        (
            doc(r#"[["input",0,0],["output",0,0,0]]"#, io, oo, 1),
            "instructions[0] (`input`): expected 3 operands",
        ),
        (
            doc(r#"[["input",0,0,0],["sin",0,0,0]]"#, io, oo, 1),
            "instructions[1] (`sin`): expected 2 operands",
        ),
        (
            doc(r#"[["input",0,0,0],["add",0,0]]"#, io, oo, 1),
            "instructions[1] (`add`): expected 3 operands",
        ),
        (
            doc(r#"[["input",0,0,0],["output",0,0,1]]"#, io, oo, 1),
            "element 1 out of range (output 0",
        ),
        (
            doc(r#"[["input",0,0,0],["output",0,1,0]]"#, io, oo, 1),
            "output 1 out of range",
        ),
        (
            doc(r#"[["input",0,0,0],["input",1,0,0]]"#, io, oo, 2),
            "element 0 is never written",
        ),
        (
            doc(
                r#"[["input",0,0,0],["output",0,0,0],["output",0,0,0]]"#,
                io,
                oo,
                1,
            ),
            "written twice",
        ),
        (
            doc(r#"[["sin",1,0],["output",1,0,0]]"#, io, oo, 2),
            "register 0 is read before it is written",
        ),
        (
            doc(r#"[["const",0,"big"],["output",0,0,0]]"#, io, oo, 1),
            "operand 2 (value)",
        ),
        (
            doc(r#"[["input",0.5,0,0],["output",0,0,0]]"#, io, oo, 1),
            "operand 1 (register)",
        ),
        (
            doc(r#"[[],["output",0,0,0]]"#, io, oo, 1),
            "instructions[0]: empty instruction",
        ),
        (
            doc(r#"[[3,0],["output",0,0,0]]"#, io, oo, 1),
            "op code must be a string",
        ),
        (
            doc(r#"{"a":1}"#, io, oo, 0),
            "field `instructions`: expected an array",
        ),
    ];
    for (text, needle) in cases {
        let msg = why(FunctionDoc::parse(&text, "<s>").unwrap_err());
        assert!(msg.contains(needle), "`{msg}` does not contain `{needle}`");
    }
}

#[test]
fn unknown_op_codes_are_named() {
    for (name, k) in [
        ("lt", 1usize),
        ("if_else_zero", 1),
        ("symbol", 1),
        ("call", 1),
    ] {
        let text = doc(
            &format!(r#"[["input",0,0,0],["{name}",0,0,0],["output",0,0,0]]"#),
            r#"[{"name":"x","size":1}]"#,
            r#"[{"name":"y","size":1}]"#,
            1,
        );
        match FunctionDoc::parse(&text, "f.json").unwrap_err() {
            AdError::UnsupportedOp {
                file,
                op,
                instruction,
            } => {
                assert_eq!(
                    (file.as_str(), op.as_str(), instruction),
                    ("f.json", name, k)
                );
            }
            other => panic!("expected UnsupportedOp, got {other:?}"),
        }
    }
}

fn problem(patch: impl Fn(&mut Value)) -> String {
    let fun = |name: &str, body: &str, n_out: usize, n_work: usize| -> Value {
        let text = doc(
            body,
            r#"[{"name":"w","size":2},{"name":"p","size":1}]"#,
            &format!(r#"[{{"name":"o","size":{n_out}}}]"#),
            n_work,
        )
        .replace("\"name\":\"t\"", &format!("\"name\":\"{name}\""));
        serde_json::from_str(&text).unwrap()
    };
    // f = w0^2 * p, g = [w0 + w1, w1 - p], G = [w0], H = [w1]
    let mut v = serde_json::json!({
        "format": "fesdj-mpcc", "version": 1, "name": "tiny", "n_w": 2, "n_p": 1,
        "w0": [1.0, 2.0], "lbw": ["-inf", 0], "ubw": ["inf", 5.5], "p0": [3.0],
        "lbg": [0, "-inf"], "ubg": [0, 1],
        "functions": {
            "f": fun("f", r#"[["input",0,0,0],["input",1,1,0],["sq",2,0],["mul",2,2,1],["output",2,0,0]]"#, 1, 3),
            "g": fun("g", r#"[["input",0,0,0],["input",1,0,1],["add",2,0,1],["output",2,0,0],["input",0,1,0],["sub",2,1,0],["output",2,0,1]]"#, 2, 3),
            "G": fun("G", r#"[["input",0,0,0],["output",0,0,0]]"#, 1, 1),
            "H": fun("H", r#"[["input",0,0,1],["output",0,0,0]]"#, 1, 1)
        }
    });
    patch(&mut v);
    v.to_string()
}

#[test]
fn problem_parses_and_compiles() {
    let p = problem_from_str(&problem(|_| {}), "<p>").unwrap();
    assert_eq!((p.n_w(), p.n_p(), p.n_g(), p.n_comp()), (2, 1, 2, 1));
    assert_eq!(p.lbw, [f64::NEG_INFINITY, 0.0]);
    assert_eq!(p.ubw, [f64::INFINITY, 5.5]);
    assert_eq!(p.lbg, [0.0, f64::NEG_INFINITY]);
    assert_eq!(p.w_names, ["w_0", "w_1"]);
    let mut ws = p.g.workspace();
    let mut g = [0.0; 2];
    p.g.eval(&[&p.w0, &p.p0], &mut [&mut g], &mut ws).unwrap();
    assert_eq!(g, [3.0, -1.0]);
    let mut ws = p.f.workspace();
    let mut f = [0.0];
    p.f.eval(&[&p.w0, &p.p0], &mut [&mut f], &mut ws).unwrap();
    assert_eq!(f, [3.0]);
}

/// An edit of a problem document.
type Patch = Box<dyn Fn(&mut Value)>;

#[test]
fn problem_errors_name_the_field() {
    let cases: Vec<(Patch, &str)> = vec![
        (
            Box::new(|v| v["lbw"][1] = Value::Bool(true)),
            "field `lbw[1]`",
        ),
        (
            Box::new(|v| v["ubg"][0] = "infinity".into()),
            "field `ubg[0]`",
        ),
        (
            Box::new(|v| v["w0"][0] = "inf".into()),
            "field `w0[0]`: expected a finite number",
        ),
        (
            Box::new(|v| v["p0"] = serde_json::json!([1, 2])),
            "field `p0`: 2 entries, expected 1",
        ),
        (
            Box::new(|v| v["lbg"] = serde_json::json!([0])),
            "field `lbg`: 1 entries, expected 2",
        ),
        (
            Box::new(|v| v["n_w"] = 3.into()),
            "functions.f: inputs have sizes [2, 1]",
        ),
        (
            Box::new(|v| v["version"] = 7.into()),
            "unsupported version 7",
        ),
        (
            Box::new(|v| v["format"] = "fesdj-function".into()),
            "field `format`",
        ),
        (
            Box::new(|v| {
                v["functions"].as_object_mut().unwrap().remove("H");
            }),
            "missing field `functions.H`",
        ),
        (
            Box::new(|v| {
                v["functions"]["G"]["outputs"][0]["size"] = 2.into();
                let extra = serde_json::json!(["output", 0, 0, 1]);
                v["functions"]["G"]["instructions"]
                    .as_array_mut()
                    .unwrap()
                    .push(extra);
            }),
            "functions.G has 2 elements but functions.H has 1",
        ),
        (
            Box::new(|v| v["w_names"] = serde_json::json!(["a"])),
            "field `w_names`",
        ),
    ];
    for (patch, needle) in cases {
        let msg = why(ProblemDoc::parse(&problem(patch), "<p>").unwrap_err());
        assert!(msg.contains(needle), "`{msg}` does not contain `{needle}`");
    }
    match ProblemDoc::parse(
        &problem(|v| v["functions"]["g"]["instructions"][2][0] = "le".into()),
        "p.json",
    )
    .unwrap_err()
    {
        AdError::UnsupportedOp {
            file,
            op,
            instruction,
        } => assert_eq!(
            (file.as_str(), op.as_str(), instruction),
            ("p.json (functions.g)", "le", 2)
        ),
        other => panic!("expected UnsupportedOp, got {other:?}"),
    }
}

#[test]
fn io_error_names_the_file() {
    let e = read_function("/nonexistent/dir/f.json").unwrap_err();
    assert!(
        matches!(e, AdError::Io { ref file, .. } if file.contains("f.json")),
        "{e}"
    );
}
