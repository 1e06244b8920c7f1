//! Ours against Pinocchio C++ at the same state (issue 26): values, not timings. Builds
//! `tools/pinocchio_cpp_bench.cpp` with `tools/build_pinocchio_cpp_bench.sh` (PyPI `pin`'s C++
//! headers and libraries; the first build takes a few minutes, later runs reuse it) and compares
//! rnea τ, crba M, aba q̈, and the RNEA / ABA derivative matrices (ours: the Jacobian tapes of
//! the symbolic rnea/aba, ∂/∂q times the tangent map of `integrate`) for solo12 and the
//! quadruped with a free-flyer root. Skipped, with a message, only when `pin`'s C++ headers are
//! absent. `cargo run --release --example pinocchio_anchor` times the same computations.

use crate::support::pinocchio_cpp::{
    build_program, compare, our_values, run_program, sample_state, write_state, Build, OurTapes,
};
use crate::support::reference as common;

use fesdj_mpc::model::{Model, ModelOptions, RootJoint};
use std::path::PathBuf;

/// `|ours − Pinocchio| / max(1, |Pinocchio|)`, per entry.
const TOL: f64 = 1e-9;

#[test]
fn pinocchio_cpp_values_match_ours() {
    let program = match build_program() {
        Ok(Build::Ready { program, .. }) => program,
        Ok(Build::HeadersAbsent(msg)) => {
            eprintln!("skipped: the C++ headers of PyPI pin are absent ({msg})");
            return;
        }
        Err(e) => panic!("building the Pinocchio C++ program: {e}"),
    };
    let quadruped = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("urdf")
        .join("quadruped.urdf");
    let dir = std::env::temp_dir().join(format!("fesdj_pin_cpp_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a temporary folder");
    for (label, urdf) in [("solo12", common::urdf("solo12")), ("quadruped", quadruped)] {
        let model = Model::from_urdf_file(
            &urdf,
            &ModelOptions {
                root: RootJoint::Floating,
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{}: {e}", urdf.display()));
        let state = sample_state(&model);
        let state_file = dir.join(format!("{label}.state"));
        let order = write_state(&model, &state, &state_file).expect("write the state");
        let pin = run_program(&program, &urdf, true, &state_file, &order, 1, 1)
            .unwrap_or_else(|e| panic!("{e}"));
        let ours = our_values(&model, &OurTapes::new(&model), &state);
        for d in compare(&ours, &pin.values) {
            eprintln!(
                "{label}: {:<9} scale {:.1e} max abs diff {:.1e} check {:.1e}",
                d.quantity, d.scale, d.max_abs, d.check
            );
            assert!(
                d.check <= TOL,
                "{label} ({}): {} differs from Pinocchio C++ by {:.2e} (> {TOL:e})",
                urdf.display(),
                d.quantity,
                d.check
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
