//! Child processes of the node tests: wait with a time limit, signal and collect stderr.

use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Wait for `child` to exit, killing it after `limit`; its exit code and stderr.
pub fn wait_with_limit(child: &mut Child, limit: Duration) -> (Option<i32>, String) {
    let end = Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > end {
            let _ = child.kill();
            break child.wait().expect("wait");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    (status.code(), err)
}

/// Send `signal` (e.g. `-INT`) with `kill(1)` and wait up to 20 s; exit code and stderr.
pub fn signal_and_wait(child: &mut Child, signal: &str) -> (Option<i32>, String) {
    let pid = child.id().to_string();
    let _ = Command::new("kill").args([signal, &pid]).status();
    wait_with_limit(child, Duration::from_secs(20))
}
