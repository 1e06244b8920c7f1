//! Helpers shared by the DDS integration tests.
#![allow(dead_code)]

pub mod analytic;
pub mod netns;
pub mod process;
