//! Subcommands of the `fesdj` command-line tool (one module per subcommand; the binary in
//! `src/bin/fesdj.rs` only dispatches).

pub mod eval;
pub mod mpcc;
