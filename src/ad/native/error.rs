//! Why a tape has no native code.

use thiserror::Error;

/// Why a tape has no native code.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum NativeError {
    /// Cranelift does not support this machine.
    #[error("unsupported host: {0}")]
    Host(String),
    /// Cranelift failed to compile or link the code.
    #[error("code generation failed: {0}")]
    Codegen(String),
    /// More inputs or outputs than the native calling sequence supports.
    #[error("{inputs} inputs and {outputs} outputs: native code supports at most {max} of each")]
    TooManyArguments {
        /// Number of inputs.
        inputs: usize,
        /// Number of outputs.
        outputs: usize,
        /// The limit.
        max: usize,
    },
    /// A tape index out of range (a bug: `compile.rs` validates every tape).
    #[error("the tape failed the native compiler's index checks")]
    BadTape,
    /// Cranelift panicked (caught; a bug in Cranelift or in our lowering).
    #[error("the code generator panicked: {0}")]
    Panicked(String),
}
