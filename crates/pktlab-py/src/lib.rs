//! Python bindings of pktlab (issue 16): the `pktlab._pktlab` extension module behind the
//! `pktlab` Python package (`python/pktlab`).
//!
//! A thin layer: every experiment is the `pktlab_lab` function the CLI calls, run with the
//! GIL released; configurations come in as dicts (deserialised into the lab's config structs
//! with `pythonize`, missing keys taking the CLI's defaults) and results go out as the dicts
//! of the lab's result structs (the CLI's `--json`), with bulk data as NumPy arrays. Errors
//! are the lab's one-line messages, raised as `ValueError` (bad parameter or input) or
//! `OSError` (a file that cannot be opened or written).
//!
//! Modules: [`lpm`] (the `Lpm` class: NumPy lookups on any algorithm), [`cache`] (flow
//! caches on in-memory traces), [`aqm`] (dumbbell with NumPy time series, figure studies
//! split into jobs for distributed runners), [`traffic`] (the `Zipf` class).

use pktlab::io::IoError;
use pktlab_lab::{self as lab, Error, Silent};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pythonize::{depythonize, pythonize};
use serde::de::DeserializeOwned;
use serde::Serialize;

mod aqm;
mod cache;
mod lpm;
mod traffic;

/// A lab error as a Python exception with the CLI's message.
pub(crate) fn py_err(e: Error) -> PyErr {
    match &e {
        Error::Output { .. } | Error::Io(IoError::Open { .. }) => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
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
    let r = py.detach(|| f(&c, &Silent)).map_err(py_err)?;
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
