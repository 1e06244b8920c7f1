//! Re-executing one test of the running test binary (in a child process, e.g. inside a private
//! network namespace): its name as libtest knows it, checked against the binary's own list.
//!
//! A test binary `tests/<layer>/main.rs` holds one module per former test file, so a test `t`
//! of `tests/ros/ros_node.rs` is `ros_node::t` to libtest (`--list`, filters, `--exact`), while
//! `module_path!()` in that file is `ros::ros_node` (with the crate's name first).

use std::process::Command;

/// libtest's name of test function `test` in the module whose `module_path!()` is `module`:
/// the module path without the crate's name, then the function (`ros::ros_node` and `t` give
/// `ros_node::t`; a test at the crate root is just `t`).
pub fn test_name(module: &str, test: &str) -> String {
    match module.split_once("::") {
        Some((_crate, path)) => format!("{path}::{test}"),
        None => test.to_string(),
    }
}

/// [`test_name`], after checking that this binary lists exactly one test of that exact name
/// (among its ignored tests when `ignored`: such a test is run with `--ignored`). Panics
/// otherwise, naming what the binary listed.
pub fn own_test(module: &str, test: &str, ignored: bool) -> String {
    let name = test_name(module, test);
    let exe = std::env::current_exe().expect("path of the test binary");
    let mut cmd = Command::new(&exe);
    cmd.args([name.as_str(), "--exact", "--list", "--format", "terse"]);
    if ignored {
        cmd.arg("--ignored");
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot list the tests of {}: {e}", exe.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let listed: Vec<&str> = stdout.lines().filter(|l| l.ends_with(": test")).collect();
    assert!(
        out.status.success() && listed == [format!("{name}: test")],
        "{} --list{} lists {listed:?} for `{name} --exact`, expected exactly that test ({})",
        exe.display(),
        if ignored { " --ignored" } else { "" },
        out.status
    );
    name
}
