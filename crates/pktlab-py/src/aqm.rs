//! AQM experiments (paper 002): the dumbbell with its queue and cwnd time series as NumPy
//! arrays, and the figure studies split into jobs ([`StudyPlan`]) so that a distributed
//! runner (the package's Ray backend) can run one job per task and collect exactly the
//! result of the threaded `pktlab aqm study`.

use crate::{config, py_err, run_interruptible, to_py};
use numpy::{IntoPyArray, PyArrayMethods};
use pktlab_lab::aqm::{sim, write_study, AqmSimConfig, Study, StudyConfig, StudyPlan, StudyRun};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pythonize::depythonize;

/// aqm_sim(config, series=True) -> dict
/// --
///
/// `pktlab aqm sim` (see `defaults("aqm.sim")`). With `series`, every run also has
/// `series`: NumPy arrays `t_s`, `queue_pkts`, `avg_pkts` (one value per sample) and `cwnd`
/// (samples × TCP flows), sampled every `sample_ms`.
#[pyfunction]
#[pyo3(signature = (config, series=true))]
fn aqm_sim(py: Python<'_>, config: &Bound<'_, PyAny>, series: bool) -> PyResult<Py<PyAny>> {
    let mut c: AqmSimConfig = self::config(Some(config))?;
    c.keep_series = series;
    let mut r = run_interruptible(py, |p| sim(&c, p))?;
    let out = to_py(py, &r)?;
    let runs = out.bind(py).get_item("runs")?;
    for (i, run) in r.runs.iter_mut().enumerate() {
        let Some(s) = run.series.take() else { continue };
        let d = PyDict::new(py);
        let n = s.t.len();
        d.set_item("t_s", s.t.into_pyarray(py))?;
        d.set_item("queue_pkts", s.queue.into_pyarray(py))?;
        d.set_item("avg_pkts", s.avg.into_pyarray(py))?;
        d.set_item("cwnd", s.cwnd.into_pyarray(py).reshape([n, s.tcp_flows])?)?;
        runs.get_item(i)?.set_item("series", d)?;
    }
    Ok(out)
}

fn plan(py: Python<'_>, config: &Bound<'_, PyAny>) -> PyResult<StudyPlan> {
    let c: StudyConfig = self::config(Some(config))?;
    py.detach(|| StudyPlan::new(&c)).map_err(py_err)
}

/// aqm_study_jobs(config) -> int
/// --
///
/// Number of runs (points × seeds) of the study `config` (see `defaults("aqm.study")`).
#[pyfunction]
fn aqm_study_jobs(py: Python<'_>, config: &Bound<'_, PyAny>) -> PyResult<usize> {
    Ok(plan(py, config)?.len())
}

/// aqm_study_run(config, k) -> dict
/// --
///
/// Runs job `k` of the study `config` (GIL released); returns the run (point, seed,
/// summary, wall_s) for `aqm_study_collect`.
#[pyfunction]
fn aqm_study_run(py: Python<'_>, config: &Bound<'_, PyAny>, k: usize) -> PyResult<Py<PyAny>> {
    let p = plan(py, config)?;
    let r = crate::interruptible(py, |s| p.run_until_stopped(k, &s.stop))?.map_err(py_err)?;
    to_py(py, &r)
}

/// aqm_study_collect(config, runs, threads, wall_s, out=None) -> dict
/// --
///
/// The study's result from the runs of all its jobs in job order (as `aqm_study_run`
/// returned them), exactly what `run("aqm.study", config)` gives but for wall times; with
/// `out`, also writes `out/figN.json` and `out/figN.csv` as `pktlab aqm study --out` does.
#[pyfunction]
#[pyo3(signature = (config, runs, threads, wall_s, out=None))]
fn aqm_study_collect(
    py: Python<'_>,
    config: &Bound<'_, PyAny>,
    runs: &Bound<'_, PyList>,
    threads: usize,
    wall_s: f64,
    out: Option<std::path::PathBuf>,
) -> PyResult<Py<PyAny>> {
    let p = plan(py, config)?;
    let runs: Vec<StudyRun> = depythonize(runs.as_any())
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("runs: {e}")))?;
    let r = p.collect(runs, threads, wall_s).map_err(py_err)?;
    if let Some(dir) = out {
        write_study(&r, &dir).map_err(py_err)?;
    }
    to_py(py, &r)
}

/// Adds the functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(aqm_sim, m)?)?;
    m.add_function(wrap_pyfunction!(aqm_study_jobs, m)?)?;
    m.add_function(wrap_pyfunction!(aqm_study_run, m)?)?;
    m.add_function(wrap_pyfunction!(aqm_study_collect, m)?)
}
