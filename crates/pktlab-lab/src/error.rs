//! The error type of the experiments: one line, naming the file and position or the parameter.

use pktlab::aqm::AqmError;
use pktlab::io::IoError;
use pktlab::netsim::NetsimError;
use pktlab::params::ParamError;
use pktlab::traffic::ZipfError;

/// Why an experiment could not run. `Display` is one line; the CLI prints it after
/// `pktlab: error: `.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading an input failed (file and position in the message).
    #[error(transparent)]
    Io(#[from] IoError),
    /// The Zipf parameters were rejected.
    #[error(transparent)]
    Zipf(#[from] ZipfError),
    /// A parameter is out of range or unknown; the message names it as the CLI flag.
    #[error("{0}")]
    Param(String),
    /// The experiment could not run to the end (an input that cannot be read, a worker that
    /// failed); the message names the file or the part.
    #[error("{0}")]
    Run(String),
    /// Creating or writing an output file failed.
    #[error("{path}: {what}: {error}")]
    Output {
        /// The file.
        path: String,
        /// What was being done (`cannot create`, `write failed`, `packet 12`, …).
        what: String,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// An input holds no record the command can use (the rule for every command: an empty
    /// input is an error, not an empty result).
    #[error("no {what} in {path}{detail}")]
    Empty {
        /// What was expected: `packets`, `update events`, …
        what: String,
        /// The file.
        path: String,
        /// What was found instead (records skipped), with a leading space; may be empty.
        detail: String,
    },
    /// The caller asked the experiment to end early ([`Progress::stop_flag`](crate::Progress::stop_flag)).
    #[error("interrupted")]
    Interrupted,
}

impl From<AqmError> for Error {
    fn from(e: AqmError) -> Self {
        Error::Param(e.to_string())
    }
}

impl From<NetsimError> for Error {
    fn from(e: NetsimError) -> Self {
        match e {
            NetsimError::Stopped => Error::Interrupted,
            e => Error::Param(e.to_string()),
        }
    }
}

impl From<pktlab::io::OutputError> for Error {
    fn from(e: pktlab::io::OutputError) -> Self {
        Error::Output {
            path: e.path,
            what: e.what.into(),
            error: e.error,
        }
    }
}

impl From<ParamError> for Error {
    fn from(e: ParamError) -> Self {
        Error::Param(e.0)
    }
}

/// `Result` with the experiments' [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A bad-parameter error.
    pub fn param(msg: impl Into<String>) -> Self {
        Error::Param(msg.into())
    }

    /// An output error on `path`.
    pub fn output(
        path: impl std::fmt::Display,
        what: impl Into<String>,
        error: std::io::Error,
    ) -> Self {
        Error::Output {
            path: path.to_string(),
            what: what.into(),
            error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_line() {
        let e = Error::output("x.pcap", "cannot create", std::io::Error::other("denied"));
        assert_eq!(e.to_string(), "x.pcap: cannot create: denied");
        assert_eq!(
            Error::param("--runs must be at least 1").to_string(),
            "--runs must be at least 1"
        );
    }
}
