//! Flow-cache simulation (paper 000) on traces handed over from Python: NumPy arrays of flow
//! keys become a [`MemoryTrace`] that `pktlab_lab::cache::{sim, sweep}` stream like a capture.

use crate::{config, run_interruptible, to_py};
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pktlab::flowcache::source::MemoryTrace;
use pktlab::net::FlowKey;
use pktlab_lab::cache::{sim, sweep, CacheSimConfig, CacheSweepConfig, TraceSpec};
use pktlab_lab::Progress;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

/// The 5-tuple standing for an opaque 64-bit flow key: the IPv4 pair (low 32 bits, high 32
/// bits) with ports and protocol 0, so that the set-index hashes mix every bit of the key.
fn opaque(k: u64) -> FlowKey {
    FlowKey::v4(
        (k as u32).to_be_bytes(),
        ((k >> 32) as u32).to_be_bytes(),
        0,
        0,
        0,
    )
}

/// Builds the in-memory trace: `keys` is a 1-D `uint64` array of opaque flow keys or a
/// `uint64` array of shape (n, 5) of IPv4 5-tuples (src, dst, sport, dport, proto).
fn memory_trace(
    py: Python<'_>,
    keys: &Bound<'_, PyAny>,
    ts_ns: Option<PyReadonlyArray1<'_, u64>>,
    interval_ns: u64,
) -> PyResult<Arc<MemoryTrace>> {
    let bad = |m: String| PyValueError::new_err(m);
    let bad_trace = |e: pktlab::flowcache::FlowcacheError| PyValueError::new_err(e.to_string());
    let contiguous = || bad("trace: the key array must be contiguous".into());
    let ts = match ts_ns {
        Some(t) => Some(t.as_slice().map_err(|_| contiguous())?.to_vec()),
        None => None,
    };
    let r = if let Ok(a) = keys.extract::<PyReadonlyArray1<u64>>() {
        let s = a.as_slice().map_err(|_| contiguous())?;
        let name = format!("memory:{}", s.len());
        py.detach(|| MemoryTrace::new(&name, s.iter().map(|&k| opaque(k)), ts, interval_ns))
    } else if let Ok(a) = keys.extract::<PyReadonlyArray2<u64>>() {
        if a.shape()[1] != 5 {
            return Err(bad(format!(
                "trace: 5-tuples must have shape (n, 5) (src, dst, sport, dport, proto), got {:?}",
                a.shape()
            )));
        }
        let s = a.as_slice().map_err(|_| contiguous())?;
        let name = format!("memory:{}", s.len() / 5);
        for (i, r) in s.chunks(5).enumerate() {
            if r[0] > u32::MAX as u64
                || r[1] > u32::MAX as u64
                || r[2] > 65535
                || r[3] > 65535
                || r[4] > 255
            {
                return Err(bad(format!(
                    "trace: packet {i}: 5-tuple {r:?} out of range (addresses < 2^32, ports < 2^16, proto < 256)"
                )));
            }
        }
        py.detach(|| {
            MemoryTrace::new(
                &name,
                s.chunks(5).map(|r| {
                    FlowKey::v4(
                        (r[0] as u32).to_be_bytes(),
                        (r[1] as u32).to_be_bytes(),
                        r[2] as u16,
                        r[3] as u16,
                        r[4] as u8,
                    )
                }),
                ts,
                interval_ns,
            )
        })
    } else {
        return Err(bad(
            "trace: expected a path, a uint64 array of flow keys or a uint64 (n, 5) array of 5-tuples"
                .into(),
        ));
    };
    r.map(Arc::new).map_err(bad_trace)
}

/// Runs a cache experiment whose config (from `config`) has the trace spec `spec(c)`, on
/// the in-memory trace `keys` if given.
fn run_on<C, R>(
    py: Python<'_>,
    config: &Bound<'_, PyAny>,
    keys: Option<&Bound<'_, PyAny>>,
    ts_ns: Option<PyReadonlyArray1<'_, u64>>,
    interval_ns: u64,
    spec: fn(&mut C) -> &mut TraceSpec,
    f: fn(&C, &dyn Progress) -> pktlab_lab::Result<R>,
) -> PyResult<Py<PyAny>>
where
    C: serde::de::DeserializeOwned + Default + Sync,
    R: serde::Serialize + Send,
{
    let mut c: C = self::config(Some(config))?;
    if let Some(k) = keys {
        spec(&mut c).memory = Some(memory_trace(py, k, ts_ns, interval_ns)?);
    }
    let r = run_interruptible(py, |p| f(&c, p))?;
    to_py(py, &r)
}

/// cache_run(name, config, keys=None, ts_ns=None, interval_ns=100) -> dict
/// --
///
/// `pktlab cache sim` (`name="sim"`, see `defaults("cache.sim")`) or `pktlab cache sweep`
/// (`name="sweep"`), on the in-memory trace `keys` if given.
#[pyfunction]
#[pyo3(signature = (name, config, keys=None, ts_ns=None, interval_ns=100))]
fn cache_run(
    py: Python<'_>,
    name: &str,
    config: &Bound<'_, PyAny>,
    keys: Option<&Bound<'_, PyAny>>,
    ts_ns: Option<PyReadonlyArray1<'_, u64>>,
    interval_ns: u64,
) -> PyResult<Py<PyAny>> {
    fn sim_trace(c: &mut CacheSimConfig) -> &mut TraceSpec {
        &mut c.trace
    }
    fn sweep_trace(c: &mut CacheSweepConfig) -> &mut TraceSpec {
        &mut c.trace
    }
    match name {
        "sim" => run_on(py, config, keys, ts_ns, interval_ns, sim_trace, sim),
        "sweep" => run_on(py, config, keys, ts_ns, interval_ns, sweep_trace, sweep),
        o => Err(PyValueError::new_err(format!(
            "cache_run: unknown experiment {o:?} (sim or sweep)"
        ))),
    }
}

/// Adds the functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cache_run, m)?)
}
