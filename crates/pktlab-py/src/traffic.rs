//! `pktlab.traffic.Zipf`: paper 003's Zipf table sampler, with NumPy samples and the table's
//! error against the exact distribution.

use crate::py_err;
use numpy::{IntoPyArray, PyArray1};
use pktlab::traffic::{SplitMix64, ZipfTable};
use pktlab_lab::traffic::ZipfSpec;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Zipf(alpha, names=2**32, entries=65536, merge="optimal")
/// --
///
/// A Zipf(`alpha`) sampler over ranks 1..=`names` from a table of at most `entries`
/// entries, the tail merged by `merge` (`optimal`, `geometric` or `uniform`).
#[pyclass(module = "pktlab.traffic", frozen)]
pub struct Zipf {
    t: ZipfTable,
    spec: ZipfSpec,
}

#[pymethods]
impl Zipf {
    #[new]
    #[pyo3(signature = (alpha, names=1u64 << 32, entries=1 << 16, merge="optimal"))]
    fn new(py: Python<'_>, alpha: f64, names: u64, entries: u64, merge: &str) -> PyResult<Self> {
        let spec = ZipfSpec {
            alpha,
            names,
            entries,
            merge: merge.to_string(),
            ..ZipfSpec::default()
        };
        let t = py.detach(|| spec.build()).map_err(py_err)?;
        Ok(Zipf { t, spec })
    }

    /// sample(n, seed=1) -> numpy.ndarray
    /// --
    ///
    /// `n` ranks (1 = most popular) drawn with the batched sampler from the SplitMix64
    /// stream `seed`: `uint32` when every rank fits (names < 2^32), else `uint64`.
    #[pyo3(signature = (n, seed=1))]
    fn sample<'py>(&self, py: Python<'py>, n: usize, seed: u64) -> Bound<'py, PyAny> {
        let v = py.detach(|| {
            let mut rng = SplitMix64::new(seed);
            let mut v = vec![0u64; n];
            self.t.fill(&mut rng, &mut v);
            v
        });
        if self.spec.names <= u32::MAX as u64 {
            let v: Vec<u32> = v.into_iter().map(|x| x as u32).collect();
            v.into_pyarray(py).into_any()
        } else {
            PyArray1::from_vec(py, v).into_any()
        }
    }

    /// The table's error against the exact distribution: total variation `tv`, KL
    /// divergence `kl` (nats), `max_rel_err` over the head ranks, Kolmogorov–Smirnov `ks`.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = py.detach(|| self.t.stats());
        let d = PyDict::new(py);
        d.set_item("tv", s.tv)?;
        d.set_item("kl", s.kl)?;
        d.set_item("max_rel_err", s.max_rel_err)?;
        d.set_item("ks", s.ks)?;
        Ok(d)
    }

    /// Table entries.
    #[getter]
    fn entries(&self) -> usize {
        self.t.entries()
    }

    /// Table bytes.
    #[getter]
    fn bytes(&self) -> usize {
        self.t.bytes()
    }

    /// α.
    #[getter]
    fn alpha(&self) -> f64 {
        self.spec.alpha
    }

    /// Number of ranks.
    #[getter]
    fn names(&self) -> u64 {
        self.spec.names
    }

    fn __repr__(&self) -> String {
        format!(
            "Zipf(alpha={}, names={}, entries={}, merge={:?})",
            self.spec.alpha,
            self.spec.names,
            self.t.entries(),
            self.spec.merge
        )
    }
}

/// Adds the class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Zipf>()
}
