//! The counting global allocator of the `*_no_alloc` tests: every `alloc` and `realloc` is
//! counted per thread, and a test reads its own thread's counter before and after the code it
//! checks. The checked code runs on the calling thread (faer with `Par::Seq`, no spawned work);
//! counting per thread keeps the test harness's own thread out of it — its main thread
//! allocates when it blocks waiting for a slow test (seen under load: 4 allocations in
//! `ros_no_alloc` that the checked code never made).
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations (and reallocations) so far on this thread.
pub fn allocations() -> usize {
    ALLOCS.with(|c| c.get())
}

/// Allocations performed on this thread while `f` runs.
pub fn allocations_during(f: impl FnOnce()) -> usize {
    let before = allocations();
    f();
    allocations() - before
}
