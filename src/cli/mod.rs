//! Subcommands of the `fesdj` command-line tool (one module per subcommand, each a `clap::Args`
//! struct and a `run`; the binary in `src/bin/fesdj.rs` only dispatches).

pub mod bench;
pub mod check;
pub mod dynamics;
pub mod eval;
pub mod gaits;
pub mod mpc;
pub mod mpc_compare;
pub mod mpcc;
pub mod plot;
pub mod run;
pub mod simulate;
pub mod solve;
