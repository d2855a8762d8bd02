//! The one error type of the core crate; every message is a single line naming the
//! field, the bad value and what is allowed.

/// Errors raised by the core crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A user-supplied value (spec parameter, config field, file content) is invalid.
    #[error("{context}: {field} = {value} is invalid: {allowed}")]
    Invalid {
        /// Where the value came from (for example the spec string).
        context: String,
        /// Name of the parameter or field.
        field: String,
        /// The offending value, as the user wrote it.
        value: String,
        /// What would have been accepted.
        allowed: String,
    },
    /// A request that is well formed but not supported for this object.
    #[error("{0}")]
    Unsupported(String),
    /// The run was cancelled from outside (Ctrl-C) before it finished.
    #[error("interrupted")]
    Interrupted,
}

/// Result type of the core crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Builds an [`Error::Invalid`] from its four parts.
    pub fn invalid(
        context: impl Into<String>,
        field: impl Into<String>,
        value: impl std::fmt::Display,
        allowed: impl Into<String>,
    ) -> Self {
        Error::Invalid {
            context: context.into(),
            field: field.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }
}
