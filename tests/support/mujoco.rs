//! Helpers shared by the MuJoCo tests (`tests/scenario/`: `mujoco_bridge.rs`,
//! `scenario_*.rs`): paths, the Python interpreter, the one-at-a-time lock, the module check,
//! temporary folders and a child process that is killed if the test panics.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Child, Command};
use std::sync::{Mutex, MutexGuard};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn python() -> String {
    std::env::var("FESDJ_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// One test at a time in the whole binary (every test of `tests/scenario/` takes it, the MuJoCo
/// model checks too): the bridge paces itself to the wall clock (and the node plans in real
/// time), so parallel runs on a 2-core machine would make each other late.
static SERIAL: Mutex<()> = Mutex::new(());

pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The start of a MuJoCo test over DDS: the one-at-a-time lock, then the test re-run inside
/// a private network namespace (`netns::enter`), then the module check. `None` in the outer
/// process once the re-run has finished (the test then returns); in the namespace the lock's
/// guard, to hold for the test.
pub fn enter_dds_test(module: &str, test: &str) -> Option<MutexGuard<'static, ()>> {
    let turn = serial();
    if !super::netns::enter(module, test) {
        return None;
    }
    require_python_modules();
    Some(turn)
}

/// The Python modules of the bridge and its peers, or a message saying how to get them.
pub fn require_python_modules() {
    let out = Command::new(python())
        .args(["-c", "import mujoco, cyclonedds, yaml, numpy"])
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "the MuJoCo tests need PyPI mujoco, cyclonedds, pyyaml and numpy: \
         python3 -m pip install -r tools/requirements.txt\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn tool(name: &str) -> PathBuf {
    root().join("tools").join(name)
}

pub fn scenario(name: &str) -> PathBuf {
    root()
        .join("tools")
        .join("scenarios")
        .join(format!("{name}.yaml"))
}

pub fn tmp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fesdj_mujoco_{tag}_{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("create a temporary folder");
    d
}

/// A child process killed (and reaped) when dropped, e.g. when the test panics.
pub struct Killer(pub Option<Child>);

impl Drop for Killer {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
