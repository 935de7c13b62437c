//! Flag parsers and signal handling shared by the commands that run on live interfaces or
//! sockets until stopped (`ccn router|consumer|producer`, `forward` with afpacket ports,
//! `gen … --tx`, `sink`).

use crate::size::parse_size;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

/// `--duration`-style seconds (`2`, `0.5`, `3s`).
pub fn secs(s: &str) -> Result<Duration, String> {
    let v: f64 = s
        .trim_end_matches('s')
        .parse()
        .map_err(|_| format!("{s:?}: expected seconds"))?;
    if !(v >= 0.0 && v.is_finite()) {
        return Err(format!("{s:?}: expected seconds ≥ 0"));
    }
    Ok(Duration::from_secs_f64(v))
}

/// `--rate`: packets per second (`50K`, `1M`), or `max` (`None`).
#[derive(Clone, Copy, Debug)]
pub struct Rate(pub Option<f64>);

/// Parses a [`Rate`].
pub fn rate(s: &str) -> Result<Rate, String> {
    if s == "max" {
        return Ok(Rate(None));
    }
    let v = parse_size(s)? as f64;
    if v <= 0.0 {
        return Err(format!("{s:?}: rate must be > 0 or max"));
    }
    Ok(Rate(Some(v)))
}

/// Installs `handler` for SIGINT and SIGTERM. The handler must be async-signal-safe (an
/// atomic store).
pub fn on_signal(handler: extern "C" fn(libc::c_int)) {
    // SAFETY: installs a handler that only performs an atomic store.
    unsafe {
        libc::signal(libc::SIGINT, handler as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, handler as *const () as libc::sighandler_t);
    }
}

/// Set by SIGINT / SIGTERM once [`stop_flag`] was called.
static STOP: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));

extern "C" fn set_stop(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// A flag that SIGINT / SIGTERM set from now on.
pub fn stop_flag() -> Arc<AtomicBool> {
    let f = LazyLock::force(&STOP).clone();
    on_signal(set_stop);
    f
}
