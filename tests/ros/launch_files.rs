//! The launch files and the params file pass exactly parameters the node accepts:
//! `launch/fesdj_mpc.launch.xml` is parsed (elements and attributes), its `<param>` values
//! with the `<arg>` defaults substituted and its params file go through the node's own
//! `--ros-args` and parameter parsing (`-p` names the node does not know are errors there);
//! `launch/fesdj_mpc.launch.py` (launch_ros is not on PyPI, so it cannot run here) must name
//! the same package, executable, arguments and parameters.

use std::collections::BTreeMap;
use std::path::PathBuf;

use fesdj_mpc::ros::args::RosArgs;
use fesdj_mpc::ros::params::{NodeParams, PARAMETER_NAMES};
use fesdj_mpc::ros::NodeConfig;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `(element name, attributes)` of every start tag (comments skipped).
fn elements(xml: &str) -> Vec<(String, BTreeMap<String, String>)> {
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix("!--") {
            let end = r.find("-->").expect("comment closed");
            rest = &r[end + 3..];
            continue;
        }
        let end = rest.find('>').expect("tag closed");
        let tag = rest[..end].trim_end_matches('/').trim();
        rest = &rest[end + 1..];
        if tag.starts_with('/') || tag.starts_with('?') {
            continue;
        }
        let (name, mut attrs_text) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
        let mut attrs = BTreeMap::new();
        loop {
            attrs_text = attrs_text.trim_start();
            let Some(eq) = attrs_text.find('=') else {
                break;
            };
            let key = attrs_text[..eq].trim().to_string();
            let v = attrs_text[eq + 1..].trim_start();
            assert!(v.starts_with('"'), "attribute {key} quoted");
            let close = v[1..].find('"').expect("attribute closed") + 1;
            attrs.insert(key, v[1..close].to_string());
            attrs_text = &v[close + 1..];
        }
        out.push((name.to_string(), attrs));
    }
    out
}

#[test]
fn xml_launch_passes_parameters_the_node_accepts() {
    let _turn = crate::support::serial::file(module_path!());
    let xml = std::fs::read_to_string(root().join("launch/fesdj_mpc.launch.xml")).unwrap();
    let els = elements(&xml);
    assert_eq!(els.first().map(|e| e.0.as_str()), Some("launch"));
    let args: BTreeMap<String, String> = els
        .iter()
        .filter(|(n, _)| n == "arg")
        .map(|(_, a)| {
            (
                a["name"].clone(),
                a.get("default").cloned().unwrap_or_default(),
            )
        })
        .collect();
    for a in [
        "config_file",
        "robot_description_path",
        "sim",
        "params_file",
    ] {
        assert!(args.contains_key(a), "launch argument {a}");
    }
    let nodes: Vec<_> = els.iter().filter(|(n, _)| n == "node").collect();
    assert_eq!(nodes.len(), 2);
    let node = &nodes[0].1;
    // rviz:=true: rviz2 with the shipped config.
    let rviz = &nodes[1].1;
    assert_eq!(
        (rviz["pkg"].as_str(), rviz["exec"].as_str()),
        ("rviz2", "rviz2")
    );
    assert_eq!(rviz["if"], "$(var rviz)");
    assert_eq!(rviz["args"], "-d $(var rviz_config)");
    assert_eq!(args["rviz"], "false");
    assert!(args["rviz_config"].ends_with("/config/rviz/fesdj.rviz"));
    assert_eq!(node["pkg"], "fesdj_mpc");
    assert_eq!(node["exec"], "fesdj_node");
    assert_eq!(node["name"], "fesdj_mpc");
    let package = std::fs::read_to_string(root().join("package.xml")).unwrap();
    assert!(package.contains("<name>fesdj_mpc</name>"));
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(cargo.contains("name = \"fesdj_node\""));

    let subst = |v: &str| -> String {
        let mut s = v.to_string();
        for (k, d) in &args {
            s = s.replace(&format!("$(var {k})"), d);
        }
        s
    };
    let mut ros_args = vec!["--ros-args".to_string()];
    let mut names = Vec::new();
    for (_, a) in els.iter().filter(|(n, _)| n == "param") {
        if let Some(from) = a.get("from") {
            let path =
                subst(from).replace("$(find-pkg-share fesdj_mpc)", &root().display().to_string());
            ros_args.push("--params-file".into());
            ros_args.push(path);
            continue;
        }
        let name = a["name"].clone();
        let value = subst(&a["value"]);
        let value = if value.is_empty() { "''".into() } else { value };
        assert!(PARAMETER_NAMES.contains(&name.as_str()), "declared: {name}");
        ros_args.push("-p".into());
        ros_args.push(format!("{name}:={value}"));
        names.push(name);
    }
    assert!(names.len() >= 4, "{names:?}");
    let parsed = RosArgs::parse(ros_args.clone()).expect("--ros-args of the launch file");
    let (config, warnings) = NodeConfig::from_args(&parsed, 0).expect("parameters accepted");
    assert!(
        warnings.is_empty(),
        "the params file has only parameters of the node: {warnings:?}"
    );
    let p: &NodeParams = &config.params;
    assert!(p.sim && p.start_enabled);
    assert_eq!(p.config_path, "");
    assert_eq!(p.stale_state_timeout, 0.5);

    // The Python launch file: same package, executable, node name, arguments, parameters.
    let py = std::fs::read_to_string(root().join("launch/fesdj_mpc.launch.py")).unwrap();
    for s in [
        "package=\"fesdj_mpc\"",
        "executable=\"fesdj_node\"",
        "name=\"fesdj_mpc\"",
        "generate_launch_description",
        "fesdj_mpc.params.yaml",
    ] {
        assert!(py.contains(s), "launch.py: {s}");
    }
    for a in args.keys() {
        assert!(
            py.contains(&format!("DeclareLaunchArgument(\"{a}\""))
                || py.contains(&format!("\"{a}\",")),
            "launch.py declares {a}"
        );
    }
    for n in &names {
        assert!(py.contains(&format!("\"{n}\":")), "launch.py passes {n}");
    }
    for s in ["package=\"rviz2\"", "\"config\", \"rviz\", \"fesdj.rviz\""] {
        assert!(py.contains(s), "launch.py: {s}");
    }
    // Valid Python (launch_ros cannot be imported here, so it is parsed, not run).
    let parsed = std::process::Command::new("python3")
        .args(["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())"])
        .arg(root().join("launch/fesdj_mpc.launch.py"))
        .status()
        .expect("python3 runs");
    assert!(
        parsed.success(),
        "launch/fesdj_mpc.launch.py is not valid Python"
    );
}

/// The shipped RViz config shows the node's plan topics (default names) in the node's default
/// frame.
#[test]
fn rviz_config_shows_the_plan_topics() {
    let _turn = crate::support::serial::file(module_path!());
    let text = std::fs::read_to_string(root().join("config/rviz/fesdj.rviz")).unwrap();
    let doc: serde_json::Value = serde_saphyr::from_str(&text).expect("YAML");
    let vm = &doc["Visualization Manager"];
    let topics = NodeConfig::with_params(NodeParams {
        floating_base: true,
        ..NodeParams::default()
    })
    .topics()
    .unwrap();
    assert_eq!(
        vm["Global Options"]["Fixed Frame"],
        NodeParams::default().visualization_frame.as_str()
    );
    let displays = vm["Displays"].as_array().expect("displays");
    let topic_of = |class: &str| {
        displays
            .iter()
            .find(|d| d["Class"] == class)
            .map(|d| d["Topic"]["Value"].as_str().unwrap_or_default().to_string())
    };
    assert_eq!(
        topic_of("rviz_default_plugins/Path").as_deref(),
        Some(topics.planned_path.as_str())
    );
    assert_eq!(
        topic_of("rviz_default_plugins/MarkerArray").as_deref(),
        Some(topics.planned_markers.as_str())
    );
    assert_eq!(
        topic_of("rviz_default_plugins/Odometry").as_deref(),
        topics.odom.as_deref()
    );
}

#[test]
fn unknown_parameter_from_a_launch_is_rejected() {
    let _turn = crate::support::serial::file(module_path!());
    // What the check above relies on: a -p name the node does not declare is an error.
    let parsed = RosArgs::parse(["--ros-args", "-p", "config_fil:=x.yaml"]).unwrap();
    let e = NodeConfig::from_args(&parsed, 0).unwrap_err();
    assert!(e.to_string().contains("config_fil"), "{e}");
}
