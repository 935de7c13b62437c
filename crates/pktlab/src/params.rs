//! Parameter checks shared by every configuration's `validate()` (the experiments in
//! `pktlab-lab`, the live CCN faces in [`crate::ccn::live`]): each refuses a value with a
//! one-line [`ParamError`] that names the CLI flag and the accepted range, e.g.
//! `--entries: must be in 1..=67108864 (got 0)`, so the CLI, the report and Python callers all
//! get the same message before any work starts.

/// A parameter out of range or unknown; the message names it as the CLI flag.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParamError(pub String);

impl ParamError {
    /// A bad-parameter error with this message.
    pub fn new(msg: impl Into<String>) -> Self {
        ParamError(msg.into())
    }
}

/// `Result` with [`ParamError`].
pub type Result<T, E = ParamError> = std::result::Result<T, E>;

/// `v` must lie in `lo..=hi`.
pub fn int_range(flag: &str, v: u64, lo: u64, hi: u64) -> Result<()> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(ParamError::new(format!(
            "{flag}: must be in {lo}..={hi} (got {v})"
        )))
    }
}

/// `v` must be at least `lo`.
pub fn at_least(flag: &str, v: u64, lo: u64) -> Result<()> {
    if v >= lo {
        Ok(())
    } else {
        Err(ParamError::new(format!(
            "{flag}: must be at least {lo} (got {v})"
        )))
    }
}

/// `v` must be a finite number greater than zero.
pub fn positive(flag: &str, v: f64) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(ParamError::new(format!(
            "{flag}: must be a finite number > 0 (got {v})"
        )))
    }
}

/// `v` must be a finite number, zero or more.
pub fn non_negative(flag: &str, v: f64) -> Result<()> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(ParamError::new(format!(
            "{flag}: must be a finite number ≥ 0 (got {v})"
        )))
    }
}

/// `v` must lie in the closed interval `[lo, hi]`.
pub fn real_range(flag: &str, v: f64, lo: f64, hi: f64) -> Result<()> {
    if v.is_finite() && (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(ParamError::new(format!(
            "{flag}: must be in [{lo}, {hi}] (got {v})"
        )))
    }
}

/// Refuses a relation between two flags that cannot hold, e.g. `--warmup` not below
/// `--duration`: `msg` says which values are accepted.
pub fn require(ok: bool, flag: &str, msg: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(ParamError::new(format!("{flag}: {}", msg())))
    }
}

/// A run of `duration` seconds (finite, > 0) whose first `warmup` seconds (finite, ≥ 0, below
/// `duration`) are not measured: `--duration` and `--warmup` of the simulators and the consumer.
pub fn warmup_duration(warmup: f64, duration: f64) -> Result<()> {
    positive("--duration", duration)?;
    non_negative("--warmup", warmup)?;
    require(warmup < duration, "--warmup", || {
        format!("must be below --duration {duration} s (got {warmup} s)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_flag_and_range() {
        let e = int_range("--entries", 0, 1, 1 << 26)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "--entries: must be in 1..=67108864 (got 0)");
        assert!(int_range("--entries", 1, 1, 1 << 26).is_ok());
        assert_eq!(
            at_least("--runs", 0, 1).unwrap_err().to_string(),
            "--runs: must be at least 1 (got 0)"
        );
        assert!(positive("--alpha", 0.0).is_err());
        assert!(positive("--alpha", f64::NAN).is_err());
        assert!(positive("--alpha", 0.5).is_ok());
        assert!(non_negative("--warmup", -1.0).is_err());
        assert!(non_negative("--warmup", 0.0).is_ok());
        assert!(real_range("--p-max", 1.5, 0.0, 1.0).is_err());
        assert!(real_range("--p-max", 1.0, 0.0, 1.0).is_ok());
        let e = require(false, "--warmup", || "must be below --duration".into());
        assert_eq!(
            e.unwrap_err().to_string(),
            "--warmup: must be below --duration"
        );
    }
}
