//! One former test file at a time.
//!
//! Each former test file (`tests/<file>.rs`, now the module `<file>` of its layer's binary) was
//! its own binary: its tests ran in parallel with each other, never with another file's. In a
//! layer whose tests are timing-sensitive (wall-clock deadlines, rates, real-time peers) every
//! test first takes [`file`] with its own `module_path!()`: tests of the same former file still
//! overlap as before, tests of different files never do, so no test sees more concurrent load
//! than it did in its own binary. A failing test releases its turn as it unwinds.

use std::sync::{Condvar, Mutex};

/// The module (former file) whose tests run now, and how many of them.
static TURN: Mutex<(Option<&'static str>, usize)> = Mutex::new((None, 0));
static CHANGED: Condvar = Condvar::new();

/// The running test's turn; dropping it lets other files' tests start once the last test of
/// this module ends.
pub struct FileTurn {
    module: &'static str,
}

/// Waits until no test of another module runs, then holds a turn for `module` (pass
/// `module_path!()` of the test's own module).
pub fn file(module: &'static str) -> FileTurn {
    let mut turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    while turn.0.is_some_and(|m| m != module) {
        turn = CHANGED.wait(turn).unwrap_or_else(|e| e.into_inner());
    }
    turn.0 = Some(module);
    turn.1 += 1;
    FileTurn { module }
}

impl Drop for FileTurn {
    fn drop(&mut self) {
        let mut turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        debug_assert_eq!(turn.0, Some(self.module));
        turn.1 -= 1;
        if turn.1 == 0 {
            turn.0 = None;
            CHANGED.notify_all();
        }
    }
}
