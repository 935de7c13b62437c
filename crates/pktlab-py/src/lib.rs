//! Python bindings of pktlab (issue 16): the `pktlab._pktlab` extension module behind the
//! `pktlab` Python package (`python/pktlab`).
//!
//! A thin layer: every experiment is the `pktlab_lab` function the CLI calls, run with the
//! GIL released and interruptible by Ctrl-C ([`interruptible`]); configurations come in as dicts (deserialised into the lab's config structs
//! with `pythonize`, missing keys taking the CLI's defaults) and results go out as the dicts
//! of the lab's result structs (the CLI's `--json`), with bulk data as NumPy arrays. Errors
//! are the lab's one-line messages, raised as `ValueError` (bad parameter or input) or
//! `OSError` (a file that cannot be opened or written).
//!
//! Modules: [`lpm`] (the `Lpm` class: NumPy lookups on any algorithm), [`cache`] (flow
//! caches on in-memory traces), [`aqm`] (dumbbell with NumPy time series, figure studies
//! split into jobs for distributed runners), [`traffic`] (the `Zipf` class).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

use pktlab::io::IoError;
use pktlab_lab::{self as lab, Error, Progress, Stoppable};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyValueError};
use pyo3::prelude::*;
use pythonize::{depythonize, pythonize};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::sync::atomic::Ordering;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

mod aqm;
mod cache;
mod lpm;
mod traffic;

/// A lab error as a Python exception with the CLI's message.
pub(crate) fn py_err(e: Error) -> PyErr {
    match &e {
        Error::Output { .. } | Error::Io(IoError::Open { .. }) => PyOSError::new_err(e.to_string()),
        Error::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// How often [`interruptible`] runs Python's signal handlers while the work runs.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// "The work is over" (set by the worker thread, even when it panics), with a condition
/// variable so that the waiting thread wakes at once.
#[derive(Default)]
struct Done {
    flag: Mutex<bool>,
    cv: Condvar,
}

impl Done {
    /// Waits up to `t`; true once the work is over.
    fn wait(&self, t: Duration) -> bool {
        let g = self.flag.lock().unwrap_or_else(|e| e.into_inner());
        let (g, _) = self
            .cv
            .wait_timeout_while(g, t, |over| !*over)
            .unwrap_or_else(|e| e.into_inner());
        *g
    }
}

/// Sets [`Done`] when dropped: at the end of the work or while a panic unwinds it.
struct SetOnDrop<'a>(&'a Done);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        *self.0.flag.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.0.cv.notify_all();
    }
}

/// Runs `f` with the GIL released on a scoped thread while the calling thread runs Python's
/// signal handlers every [`SIGNAL_POLL`]. When a handler raises (`KeyboardInterrupt` on
/// Ctrl-C), the stop flag of the [`Stoppable`] that `f` receives is set — the experiments'
/// long loops read it between chunks of work (a few milliseconds apart) and return
/// [`Error::Interrupted`] — and, once `f` has returned, the handler's exception is raised
/// instead of `f`'s result. Work that does not read the flag (a table being loaded) runs to
/// its end first.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    f: impl FnOnce(&Stoppable) -> T + Send,
) -> PyResult<T> {
    let stop = Stoppable::default();
    let done = Done::default();
    let (r, raised) = std::thread::scope(|sc| {
        let (stop, done) = (&stop, &done);
        let h = sc.spawn(move || {
            let _over = SetOnDrop(done);
            f(stop)
        });
        let mut raised = None;
        while !py.detach(|| done.wait(SIGNAL_POLL)) {
            if raised.is_none() {
                if let Err(e) = py.check_signals() {
                    stop.stop.store(true, Ordering::Relaxed);
                    raised = Some(e);
                }
            }
        }
        (h.join(), raised)
    });
    let r = r.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    match raised {
        Some(e) => Err(e),
        None => Ok(r),
    }
}

/// [`interruptible`] for a lab experiment: `f` receives the progress sink that carries the
/// stop flag; the lab's errors become Python exceptions.
pub(crate) fn run_interruptible<T: Send>(
    py: Python<'_>,
    f: impl FnOnce(&dyn Progress) -> lab::Result<T> + Send,
) -> PyResult<T> {
    interruptible(py, |s| f(s))?.map_err(py_err)
}

/// Deserialises a configuration dict (or `None`: all defaults) into a lab config struct.
pub(crate) fn config<C: DeserializeOwned + Default>(obj: Option<&Bound<'_, PyAny>>) -> PyResult<C> {
    match obj {
        None => Ok(C::default()),
        Some(o) if o.is_none() => Ok(C::default()),
        Some(o) => depythonize(o).map_err(|e| PyValueError::new_err(format!("configuration: {e}"))),
    }
}

/// A result struct as Python objects (dicts, lists, floats, ints).
pub(crate) fn to_py<R: Serialize>(py: Python<'_>, r: &R) -> PyResult<Py<PyAny>> {
    Ok(pythonize(py, r)?.unbind())
}

/// Runs a lab experiment on a config dict with the GIL released.
fn run_lab<C, R>(
    py: Python<'_>,
    cfg: Option<&Bound<'_, PyAny>>,
    f: fn(&C, &dyn lab::Progress) -> lab::Result<R>,
) -> PyResult<Py<PyAny>>
where
    C: DeserializeOwned + Default + Sync,
    R: Serialize + Send,
{
    let c: C = config(cfg)?;
    let r = run_interruptible(py, |p| f(&c, p))?;
    to_py(py, &r)
}

/// The registry of experiments callable by name: `name => function, config type`.
macro_rules! experiments {
    ($($name:literal => $f:path, $c:ty;)*) => {
        /// Names of the experiments [`run`] knows.
        const EXPERIMENTS: &[&str] = &[$($name),*];

        /// Runs experiment `name` on `config`.
        fn dispatch(py: Python<'_>, name: &str, cfg: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
            match name {
                $($name => run_lab::<$c, _>(py, cfg, $f),)*
                _ => Err(unknown(name)),
            }
        }

        /// The default configuration of experiment `name`.
        fn default_config(py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
            match name {
                $($name => to_py(py, &<$c>::default()),)*
                _ => Err(unknown(name)),
            }
        }
    };
}

experiments! {
    "lpm.bench" => lab::lpm::bench, lab::lpm::BenchConfig;
    "lpm.verify" => lab::lpm::verify, lab::lpm::VerifyConfig;
    "cache.sim" => lab::cache::sim, lab::cache::CacheSimConfig;
    "cache.sweep" => lab::cache::sweep, lab::cache::CacheSweepConfig;
    "cache.trace_stats" => lab::cache::trace_stats, lab::cache::TraceSpec;
    "aqm.sim" => lab::aqm::sim, lab::aqm::AqmSimConfig;
    "aqm.study" => lab::aqm::study, lab::aqm::StudyConfig;
    "aqm.bench" => lab::aqm::bench, lab::aqm::AqmBenchConfig;
    "traffic.zipf" => lab::traffic::zipf, lab::traffic::ZipfConfig;
    "traffic.zipf_error" => lab::traffic::zipf_error_sweep, lab::traffic::ZipfErrorConfig;
    "ccn.sim" => lab::ccn::sim, lab::ccn::CcnSimConfig;
}

fn unknown(name: &str) -> PyErr {
    PyValueError::new_err(format!(
        "unknown experiment {name:?} (known: {})",
        EXPERIMENTS.join(", ")
    ))
}

/// run(name, config=None) -> dict
/// --
///
/// Runs the pktlab experiment `name` (see `experiments()`) on `config` (a dict whose keys
/// are those of `defaults(name)`; missing keys take the CLI's defaults) with the GIL
/// released, and returns its result as the CLI's `--json` would print it.
#[pyfunction]
#[pyo3(signature = (name, config=None))]
fn run(py: Python<'_>, name: &str, config: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    dispatch(py, name, config)
}

/// The default configuration of experiment `name`, as a dict.
#[pyfunction]
fn defaults(py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
    default_config(py, name)
}

/// The names of the experiments `run` knows.
#[pyfunction]
fn experiments() -> Vec<&'static str> {
    EXPERIMENTS.to_vec()
}

/// The extension module.
#[pymodule]
fn _pktlab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(defaults, m)?)?;
    m.add_function(wrap_pyfunction!(experiments, m)?)?;
    lpm::register(m)?;
    cache::register(m)?;
    aqm::register(m)?;
    traffic::register(m)?;
    Ok(())
}
