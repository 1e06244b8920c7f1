//! Subcommands of the `fesdj` command-line tool (each one a `clap::Args` struct and a `run`).

pub mod dynamics;
