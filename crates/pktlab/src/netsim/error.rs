//! The error type of the simulator: a parameter out of range (the message names it), or a
//! queueing discipline the AQM module refused.

use crate::aqm::AqmError;

/// Why a simulation could not be set up or did not finish. `Display` is one line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NetsimError {
    /// A parameter out of range; the message names the component and the parameter.
    #[error("{0}")]
    Param(String),
    /// The bottleneck's queueing discipline was refused.
    #[error(transparent)]
    Aqm(#[from] AqmError),
    /// The caller's stop flag ended the run early (`run_until_stopped`).
    #[error("interrupted")]
    Stopped,
}

impl From<String> for NetsimError {
    fn from(msg: String) -> Self {
        NetsimError::Param(msg)
    }
}

impl From<&str> for NetsimError {
    fn from(msg: &str) -> Self {
        NetsimError::Param(msg.to_string())
    }
}
