//! Shared helpers of the model tests: locating (or generating) the Pinocchio reference data.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The robots of the reference set: example-robot-data's and our scenario robots (urdf/).
pub const ROBOTS: [&str; 7] = [
    "double_pendulum",
    "double_pendulum_continuous",
    "ur5",
    "panda",
    "solo12",
    "quadruped",
    "pusher_arm",
];

/// The robots whose reference also has a floating-base (free-flyer) variant.
pub const FLOATING: [&str; 2] = ["solo12", "quadruped"];

/// The four robots of the shared reference folder.
pub const SHARED_ROBOTS: [&str; 4] = ["double_pendulum", "ur5", "panda", "solo12"];

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

static GENERATED: OnceLock<Result<PathBuf, String>> = OnceLock::new();

/// `target/reference` (relative to the package root), generated with
/// `tools/pinocchio_reference.py` if it is not there yet. Panics with a clear message if it
/// cannot be generated.
pub fn reference_dir() -> PathBuf {
    let r = GENERATED.get_or_init(|| {
        let dir = manifest_dir().join("target").join("reference");
        let complete = ROBOTS.iter().all(|r| {
            dir.join("dynamics").join(format!("{r}.json")).exists()
                && dir.join("urdf").join(format!("{r}.urdf")).exists()
        });
        if complete {
            return Ok(dir);
        }
        // Generate into a private folder, then move it in place (other test binaries may race).
        let tmp = manifest_dir()
            .join("target")
            .join(format!("reference.tmp-{}", std::process::id()));
        let script = manifest_dir().join("tools").join("pinocchio_reference.py");
        let out = Command::new("python3").arg(&script).arg(&tmp).output();
        match out {
            Ok(o) if o.status.success() => {
                let _ = std::fs::remove_dir_all(&dir);
                if std::fs::rename(&tmp, &dir).is_err() && !dir.exists() {
                    return Err(format!(
                        "cannot move {} to {}",
                        tmp.display(),
                        dir.display()
                    ));
                }
                let _ = std::fs::remove_dir_all(&tmp);
                Ok(dir)
            }
            Ok(o) => Err(format!(
                "{} failed (needs `pip install pin example-robot-data`):\n{}",
                script.display(),
                String::from_utf8_lossy(&o.stderr)
            )),
            Err(e) => Err(format!("cannot run python3 {}: {e}", script.display())),
        }
    });
    match r {
        Ok(p) => p.clone(),
        Err(e) => panic!("Pinocchio reference data missing in target/reference: {e}"),
    }
}

/// URDF file of a reference robot.
pub fn urdf(robot: &str) -> PathBuf {
    reference_dir().join("urdf").join(format!("{robot}.urdf"))
}

/// Reference JSON of a robot.
pub fn reference_json(robot: &str) -> PathBuf {
    reference_dir()
        .join("dynamics")
        .join(format!("{robot}.json"))
}

/// `../shared/reference` next to the repository, if present.
pub fn shared_reference() -> Option<PathBuf> {
    let p = manifest_dir().join("..").join("shared").join("reference");
    p.join("dynamics").is_dir().then_some(p)
}

/// Read a JSON file.
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A vector of numbers from JSON.
pub fn vecf(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

/// A matrix (list of rows) from JSON.
pub fn matf(v: &serde_json::Value) -> Vec<Vec<f64>> {
    v.as_array().expect("rows").iter().map(vecf).collect()
}
