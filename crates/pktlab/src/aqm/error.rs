//! The error type of the AQM module: a discipline's parameters out of range, or an unknown
//! discipline name. The messages are one line and name the discipline.

/// Why a discipline (or its parameters, or its name) was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AqmError {
    /// A buffer of zero packets.
    #[error("{0}: buffer must be at least 1 packet")]
    EmptyBuffer(&'static str),
    /// A parameter outside its range: `rule` says what it must be, `got` what it was.
    #[error("{disc}: {rule} (got {got})")]
    Range {
        /// Discipline name (`red`, `sred`, ...).
        disc: &'static str,
        /// The rule, e.g. "max_p must be in (0, 1]".
        rule: &'static str,
        /// The value(s) given.
        got: String,
    },
    /// A rule that involves no single value (e.g. a zero quantum).
    #[error("{disc}: {rule}")]
    Rule {
        /// Discipline name.
        disc: &'static str,
        /// The rule broken.
        rule: &'static str,
    },
    /// A discipline name that is not known.
    #[error("unknown AQM discipline '{name}' (known: {known})")]
    UnknownDiscipline {
        /// The name given.
        name: String,
        /// The names known.
        known: &'static str,
    },
}

impl AqmError {
    /// A [`AqmError::Range`] error.
    pub(crate) fn range(disc: &'static str, rule: &'static str, got: impl ToString) -> Self {
        AqmError::Range {
            disc,
            rule,
            got: got.to_string(),
        }
    }

    /// The same error attributed to discipline `disc` (e.g. ZL-RED reporting its SRED part).
    pub(crate) fn within(self, outer: &'static str) -> Self {
        match self {
            AqmError::EmptyBuffer(_) => AqmError::EmptyBuffer(outer),
            AqmError::Range { rule, got, .. } => AqmError::Range {
                disc: outer,
                rule,
                got,
            },
            AqmError::Rule { rule, .. } => AqmError::Rule { disc: outer, rule },
            e @ AqmError::UnknownDiscipline { .. } => e,
        }
    }
}

impl From<AqmError> for String {
    /// The one-line message (for callers that report errors as text).
    fn from(e: AqmError) -> String {
        e.to_string()
    }
}
