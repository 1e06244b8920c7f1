//! Runs a DDS test inside a private network namespace, never on the host network.
//!
//! A test calls `if !netns::enter(module_path!(), "test_name") { return; }` first. Outside a
//! namespace this re-executes the test binary for that one test (its full libtest name, e.g.
//! `ros_node::test_name`, see [`super::reexec`], checked to be exactly one test) under
//! `unshare -n bash -c 'ip link set lo up; ip link set lo multicast on; ip route add 224.0.0.0/4 dev lo; exec …'`
//! with `FESDJ_TEST_NETNS=1` set, asserts that it passed and returns `false`; inside (the
//! variable set) it returns `true` and the test body runs. The namespace has only a loopback
//! interface with a multicast route, so RustDDS/Cyclone discovery and traffic stay in it.

use std::process::Command;

/// Set in the re-executed child.
pub const ENV: &str = "FESDJ_TEST_NETNS";

const SETUP: &str =
    "set -e; ip link set lo up; ip link set lo multicast on; ip route add 224.0.0.0/4 dev lo; exec \"$0\" \"$@\"";

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|euid| euid == "0"))
        })
        .unwrap_or(false)
}

/// `true`: run the test body now (inside the namespace). `false`: the test already ran in a
/// child inside a namespace and passed; return. `module` is `module_path!()` of the test's
/// module, `test` the test function's name.
pub fn enter(module: &str, test: &str) -> bool {
    if std::env::var_os(ENV).is_some() {
        return true;
    }
    let test_name = super::reexec::own_test(module, test, false);
    let test_name = test_name.as_str();
    let exe = std::env::current_exe().expect("path of the test binary");
    // As root, a plain network namespace; otherwise also a user namespace mapping us to root.
    let unshare_flags: &[&str] = if is_root() { &["-n"] } else { &["-r", "-n"] };
    let output = Command::new("unshare")
        .args(unshare_flags)
        .args(["bash", "-c", SETUP])
        .arg(&exe)
        .args([test_name, "--exact", "--nocapture", "--test-threads=1"])
        .env(ENV, "1")
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "DDS tests run in a private network namespace and need `unshare` (util-linux), \
                 `ip` (iproute2) and bash: cannot run unshare: {e}"
            )
        });
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!(
        "--- {test_name} in a private network namespace: {}\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
    let ran = stdout.contains("1 passed");
    assert!(
        output.status.success() && ran,
        "{test_name} failed inside the private network namespace ({}); if unshare itself failed, the \
         DDS tests need permission to create network namespaces (root or user namespaces)",
        output.status
    );
    false
}
