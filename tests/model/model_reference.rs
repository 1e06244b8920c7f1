//! Our dynamics against Pinocchio on real URDFs, through the `fesdj dynamics` comparison:
//! M, nle, gravity, rnea, aba, com, frame placements and LOCAL_WORLD_ALIGNED Jacobians.
#![allow(clippy::needless_range_loop)]

use crate::support::reference as common;

use fesdj_mpc::cli::dynamics::{compare, run, DynamicsArgs};

const TOL: f64 = 1e-9;

fn check(urdf: std::path::PathBuf, reference: std::path::PathBuf, variants: usize) {
    let args = DynamicsArgs {
        urdf,
        reference: reference.clone(),
        output: None,
        tolerance: Some(TOL),
    };
    let report = compare(&args).unwrap_or_else(|e| panic!("{}: {e}", reference.display()));
    print!("{}", report.table());
    // Every quantity of every variant was compared.
    assert_eq!(report.stats.len(), 9 * variants, "{}", reference.display());
    for s in &report.stats {
        assert!(s.count > 0);
        assert!(
            s.check <= TOL,
            "{}: {} {} error {:e}",
            reference.display(),
            s.variant,
            s.quantity,
            s.check
        );
    }
}

#[test]
fn generated_reference_matches() {
    for robot in common::ROBOTS {
        let variants = if common::FLOATING.contains(&robot) {
            2
        } else {
            1
        };
        check(common::urdf(robot), common::reference_json(robot), variants);
    }
}

#[test]
fn shared_reference_matches_when_present() {
    let Some(shared) = common::shared_reference() else {
        eprintln!("../shared/reference not present: skipped");
        return;
    };
    for robot in common::SHARED_ROBOTS {
        let variants = if robot == "solo12" { 2 } else { 1 };
        check(
            shared.join("urdf").join(format!("{robot}.urdf")),
            shared.join("dynamics").join(format!("{robot}.json")),
            variants,
        );
    }
}

#[test]
fn command_exit_codes_and_output() {
    let dir = std::env::temp_dir().join(format!("fesdj_dyn_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.json");
    let mut args = DynamicsArgs {
        urdf: common::urdf("panda"),
        reference: common::reference_json("panda"),
        output: Some(out.clone()),
        tolerance: Some(1e-8),
    };
    assert_eq!(run(&args), 0);
    // Our output is in the reference layout: comparing the reference against it passes too.
    let ours = common::read_json(&out);
    assert!(ours["variants"]["fixed_base"]["samples"][0]["M"].is_array());
    args.reference = out.clone();
    args.output = None;
    assert_eq!(run(&args), 0);
    // An impossible tolerance fails with 1.
    args.tolerance = Some(0.0);
    args.reference = common::reference_json("panda");
    assert_eq!(run(&args), 1);
    // A missing joint is a data error: 2.
    args.urdf = common::urdf("ur5");
    assert_eq!(run(&args), 2);
    args.urdf = dir.join("missing.urdf");
    assert_eq!(run(&args), 2);
    let _ = std::fs::remove_dir_all(&dir);
}
