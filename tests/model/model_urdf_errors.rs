//! Every URDF validation error, each with a malformed URDF string.
#![allow(clippy::needless_range_loop)]

use fesdj_mpc::model::{Model, ModelError, ModelOptions, RootJoint};

const INERTIAL: &str = r#"<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>"#;

fn link(name: &str) -> String {
    format!(r#"<link name="{name}">{INERTIAL}</link>"#)
}

fn joint(name: &str, ty: &str, parent: &str, child: &str, extra: &str) -> String {
    format!(
        r#"<joint name="{name}" type="{ty}"><parent link="{parent}"/><child link="{child}"/>{extra}<limit lower="-1" upper="1" effort="10" velocity="2"/></joint>"#
    )
}

fn robot(body: &str) -> String {
    format!(r#"<?xml version="1.0"?><robot name="test">{body}</robot>"#)
}

fn load(text: &str) -> Result<Model, ModelError> {
    Model::from_urdf_str(text, &ModelOptions::default())
}

fn err(body: &str) -> ModelError {
    match load(&robot(body)) {
        Ok(_) => panic!("expected an error for {body}"),
        Err(e) => e,
    }
}

#[test]
fn valid_chain_loads() {
    let text = robot(&format!(
        "{}{}{}",
        link("a"),
        link("b"),
        joint("j", "revolute", "a", "b", r#"<axis xyz="0 0 1"/>"#)
    ));
    let m = load(&text).unwrap();
    assert_eq!((m.nq, m.nv), (1, 1));
    assert!(m.warnings.is_empty());
    let mf = Model::from_urdf_str(
        &text,
        &ModelOptions {
            root: RootJoint::Floating,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!((mf.nq, mf.nv), (8, 7));
}

#[test]
fn unknown_parent_link() {
    let e = err(&format!(
        "{}{}",
        link("a"),
        joint("j", "revolute", "zz", "a", "")
    ));
    assert!(
        matches!(&e, ModelError::UnknownParentLink { joint, link } if joint == "j" && link == "zz"),
        "{e}"
    );
    assert!(e.to_string().contains("`zz`"));
}

#[test]
fn unknown_child_link() {
    let e = err(&format!(
        "{}{}",
        link("a"),
        joint("j", "revolute", "a", "zz", "")
    ));
    assert!(
        matches!(&e, ModelError::UnknownChildLink { joint, link } if joint == "j" && link == "zz"),
        "{e}"
    );
}

#[test]
fn link_with_two_parents() {
    let e = err(&format!(
        "{}{}{}{}{}",
        link("a"),
        link("b"),
        link("c"),
        joint("j1", "revolute", "a", "c", ""),
        joint("j2", "revolute", "b", "c", "")
    ));
    assert!(
        matches!(&e, ModelError::TwoParents { link, first, second } if link == "c" && first == "j1" && second == "j2"),
        "{e}"
    );
}

#[test]
fn cycle() {
    // `root` is the only link without a parent; `a` and `b` are each other's parents.
    let e = err(&format!(
        "{}{}{}{}{}",
        link("root"),
        link("a"),
        link("b"),
        joint("j1", "revolute", "a", "b", ""),
        joint("j2", "revolute", "b", "a", "")
    ));
    assert!(matches!(&e, ModelError::Cycle { .. }), "{e}");
    assert!(e.to_string().contains("cycle"));
}

#[test]
fn several_roots() {
    let e = err(&format!("{}{}", link("a"), link("b")));
    assert!(
        matches!(&e, ModelError::Roots { roots } if roots == &["a".to_string(), "b".to_string()]),
        "{e}"
    );
}

#[test]
fn negative_mass() {
    let bad = r#"<link name="heavy"><inertial><mass value="-2"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>"#;
    let e = err(&format!(
        "{}{bad}{}",
        link("a"),
        joint("j", "revolute", "a", "heavy", "")
    ));
    assert!(
        matches!(&e, ModelError::NegativeMass { link, .. } if link == "heavy"),
        "{e}"
    );
}

#[test]
fn inertia_not_psd() {
    for inertia in [
        r#"ixx="-0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1""#,
        r#"ixx="0.1" ixy="0.5" ixz="0" iyy="0.1" iyz="0" izz="0.1""#,
        r#"ixx="1" ixy="0.9" ixz="0.9" iyy="1" iyz="-0.9" izz="1""#,
    ] {
        let bad = format!(
            r#"<link name="odd"><inertial><mass value="1"/><inertia {inertia}/></inertial></link>"#
        );
        let e = err(&format!(
            "{}{bad}{}",
            link("a"),
            joint("j", "revolute", "a", "odd", "")
        ));
        assert!(
            matches!(&e, ModelError::InertiaNotPsd { link, .. } if link == "odd"),
            "{e}"
        );
    }
}

#[test]
fn zero_length_axis() {
    let e = err(&format!(
        "{}{}{}",
        link("a"),
        link("b"),
        joint("j", "prismatic", "a", "b", r#"<axis xyz="0 0 0"/>"#)
    ));
    assert!(
        matches!(&e, ModelError::ZeroAxis { joint } if joint == "j"),
        "{e}"
    );
}

#[test]
fn unknown_joint_type() {
    let e = err(&format!(
        "{}{}{}",
        link("a"),
        link("b"),
        joint("jw", "wobbly", "a", "b", "")
    ));
    assert!(
        matches!(&e, ModelError::UnknownJointType { joint, joint_type } if joint == "jw" && joint_type == "wobbly"),
        "{e}"
    );
}

#[test]
fn unsupported_joint_type() {
    for ty in ["floating", "planar", "spherical"] {
        let e = err(&format!(
            "{}{}{}",
            link("a"),
            link("b"),
            joint("js", ty, "a", "b", "")
        ));
        assert!(
            matches!(&e, ModelError::UnsupportedJointType { joint, .. } if joint == "js"),
            "{e}"
        );
    }
}

#[test]
fn non_finite_numbers() {
    let bad_joint = joint(
        "jn",
        "revolute",
        "a",
        "b",
        r#"<origin xyz="0 nan 0" rpy="0 0 0"/>"#,
    );
    let e = err(&format!("{}{}{bad_joint}", link("a"), link("b")));
    assert!(
        matches!(&e, ModelError::NonFinite { element, field } if element.contains("jn") && field == "origin"),
        "{e}"
    );
    let bad_axis = joint("ja", "revolute", "a", "b", r#"<axis xyz="inf 0 0"/>"#);
    let e = err(&format!("{}{}{bad_axis}", link("a"), link("b")));
    assert!(
        matches!(&e, ModelError::NonFinite { field, .. } if field == "axis"),
        "{e}"
    );
    let bad_link = r#"<link name="ln"><inertial><mass value="inf"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>"#;
    let e = err(&format!(
        "{}{bad_link}{}",
        link("a"),
        joint("j", "revolute", "a", "ln", "")
    ));
    assert!(
        matches!(&e, ModelError::NonFinite { element, .. } if element.contains("ln")),
        "{e}"
    );
}

#[test]
fn duplicate_names_and_bad_xml() {
    let e = err(&format!("{}{}", link("a"), link("a")));
    assert!(
        matches!(&e, ModelError::DuplicateName { kind: "link", .. }),
        "{e}"
    );
    assert!(matches!(
        load("<robot name='x'><link"),
        Err(ModelError::Parse(_))
    ));
    let e = Model::from_urdf_file("/nonexistent/robot.urdf", &ModelOptions::default()).unwrap_err();
    assert!(matches!(e, ModelError::Io { .. }), "{e}");
}

#[test]
fn massless_child_and_mimic_warn_once() {
    let text = robot(&format!(
        r#"{}<link name="ghost"/>{}{}{}"#,
        link("a"),
        link("c"),
        joint("j1", "revolute", "a", "ghost", ""),
        joint("j2", "revolute", "ghost", "c", r#"<mimic joint="j1"/>"#)
    ));
    let m = load(&text).unwrap();
    let massless: Vec<_> = m
        .warnings
        .iter()
        .filter(|w| w.contains("massless"))
        .collect();
    assert_eq!(massless.len(), 1, "{:?}", m.warnings);
    assert!(massless[0].contains("j1"));
    assert!(m
        .warnings
        .iter()
        .any(|w| w.contains("j2") && w.contains("mimics")));
    assert_eq!(m.joints[1].mimic.as_deref(), Some("j1"));
}
