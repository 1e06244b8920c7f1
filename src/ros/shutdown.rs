//! SIGINT/SIGTERM handling for a clean shutdown with exit code 0.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use signal_hook::consts::{SIGINT, SIGTERM};

/// A flag that becomes `true` on the first SIGINT or SIGTERM; pass it to
/// [`super::node::NodeRuntime::run`], which then returns so that `main` can exit with 0. A second
/// signal while the flag is already set terminates the process at once (exit code 1), for a loop
/// that does not come back.
pub fn flag_on_signals() -> std::io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        // Order matters: the conditional shutdown sees the flag before this signal sets it.
        signal_hook::flag::register_conditional_shutdown(signal, 1, Arc::clone(&flag))?;
        signal_hook::flag::register(signal, Arc::clone(&flag))?;
    }
    Ok(flag)
}
