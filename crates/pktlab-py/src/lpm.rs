//! `pktlab.Lpm`: any of pktlab's longest-prefix-match structures (paper 004 and the others of
//! `pktlab::lpm`) built from a table file or Python routes, looked up on NumPy arrays with
//! the structure's batched lookup and the GIL released.

use crate::py_err;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pktlab::lpm::Lpm as LpmTrait;
use pktlab::net::{Address, NextHop, Prefix};
use pktlab_lab::lpm::{algos, family, load, TableInfo, TableSpec};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::atomic::{AtomicBool, Ordering};

/// Addresses per `lookup_batch` call (the CLI benchmark's default batch).
const BATCH: usize = 256;

/// Lookups above which `lookup` runs interruptibly (on its own thread, Ctrl-C polled);
/// fewer take under ~0.1 s and run directly.
const INTERRUPTIBLE: usize = 1 << 20;

/// Batches between two reads of the stop flag in [`lookup_all`] (16,384 lookups).
const STOP_POLL_BATCHES: usize = 64;

enum Table {
    V4(Box<dyn LpmTrait<u32>>),
    V6(Box<dyn LpmTrait<u128>>),
}

/// Lpm(algo, path=None, routes=None, nexthops="hash:16", family="auto", seed=1, synthetic_routes=None)
/// --
///
/// A longest-prefix-match table of algorithm `algo` (`poptrie18`, `dir24_8`, `radix`, … as
/// for `pktlab lpm`), loaded from the table file `path` (text, pyasn or MRT, optionally
/// compressed; `"synthetic"` = the seeded generator) with the next-hop scheme `nexthops`, or
/// built from `routes`, an iterable of `(prefix_str, next_hop)` (next hops 1..2^32-1), or
/// empty. `family` is `v4`, `v6` or `auto`.
///
/// `lookup(addrs)` takes a `uint32` array of IPv4 addresses or a `uint64` array of shape
/// (n, 2) of IPv6 addresses (column 0 = high 64 bits) and returns a `uint32` array of next
/// hops, 0 where no route matches.
#[pyclass(module = "pktlab")]
pub struct Lpm {
    table: Table,
    info: Option<TableInfo>,
}

fn bad(msg: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(msg.to_string())
}

fn next_hop(nh: u64) -> PyResult<NextHop> {
    u32::try_from(nh)
        .ok()
        .and_then(NextHop::new)
        .ok_or_else(|| bad(format!("next hop {nh}: must be in 1..=4294967295")))
}

fn prefix<A: Address>(s: &str) -> PyResult<Prefix<A>> {
    s.parse::<Prefix<A>>()
        .map_err(|e| bad(format!("{e} ({} table)", A::FAMILY.as_str())))
}

fn from_routes<A: Address>(t: &mut dyn LpmTrait<A>, routes: &[(String, u64)]) -> PyResult<()> {
    let mut v = Vec::with_capacity(routes.len());
    for (i, (p, nh)) in routes.iter().enumerate() {
        let p = prefix::<A>(p).map_err(|e| bad(format!("routes[{i}]: {e}")))?;
        let nh = next_hop(*nh).map_err(|e| bad(format!("routes[{i}]: {e}")))?;
        v.push((p, nh));
    }
    t.build(&v);
    Ok(())
}

/// Looks up `n` addresses, `fill(start, buf)` writing addresses `start..start + buf.len()`,
/// into `out`, batch by batch, until done or `stop` is set (false then).
fn lookup_all<A: Address>(
    t: &dyn LpmTrait<A>,
    out: &mut [u32],
    stop: &AtomicBool,
    fill: impl Fn(usize, &mut [A]),
) -> bool {
    let mut addrs = [A::ZERO; BATCH];
    let mut nhs = [None; BATCH];
    for (c, o) in out.chunks_mut(BATCH).enumerate() {
        if c.is_multiple_of(STOP_POLL_BATCHES) && stop.load(Ordering::Relaxed) {
            return false;
        }
        let k = o.len();
        fill(c * BATCH, &mut addrs[..k]);
        t.lookup_batch(&addrs[..k], &mut nhs[..k]);
        for (x, y) in nhs[..k].iter().zip(o) {
            *y = NextHop::raw(*x);
        }
    }
    true
}

impl Lpm {
    fn family(&self) -> &'static str {
        match self.table {
            Table::V4(_) => "v4",
            Table::V6(_) => "v6",
        }
    }
}

#[pymethods]
impl Lpm {
    #[new]
    #[pyo3(signature = (algo, path=None, routes=None, nexthops="hash:16", family="auto", seed=1, synthetic_routes=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        algo: &str,
        path: Option<String>,
        routes: Option<&Bound<'_, PyAny>>,
        nexthops: &str,
        family: &str,
        seed: u64,
        synthetic_routes: Option<u64>,
    ) -> PyResult<Self> {
        let spec = TableSpec {
            table: path.clone().unwrap_or_else(|| "synthetic".into()),
            family: family.to_string(),
            nexthops: nexthops.to_string(),
            seed,
            synthetic_routes,
            algos: vec![algo.to_string()],
        };
        let a = algos(&spec).map_err(py_err)?[0];
        if path.is_some() && routes.is_some() {
            return Err(bad("Lpm: give path or routes, not both"));
        }
        if path.is_some() {
            let fam = self::family_of(py, &spec)?;
            // Reading a table does not poll the stop flag: Ctrl-C is raised once it is built.
            return crate::interruptible(py, |s| -> pktlab_lab::Result<Lpm> {
                Ok(if fam == "v4" {
                    let l = load::<u32>(&spec, s)?;
                    let mut t = a.make::<u32>();
                    t.build(&l.routes);
                    Lpm {
                        table: Table::V4(t),
                        info: Some(l.info),
                    }
                } else {
                    let l = load::<u128>(&spec, s)?;
                    let mut t = a.make::<u128>();
                    t.build(&l.routes);
                    Lpm {
                        table: Table::V6(t),
                        info: Some(l.info),
                    }
                })
            })?
            .map_err(py_err);
        }
        let rs: Vec<(String, u64)> = match routes {
            Some(r) => r
                .try_iter()?
                .enumerate()
                .map(|(i, x)| {
                    // An exception of the iterable itself (a generator's) is raised as is.
                    x?.extract::<(String, u64)>().map_err(|_| {
                        bad(format!(
                            "routes[{i}]: expected a (prefix_str, next_hop) pair"
                        ))
                    })
                })
                .collect::<PyResult<_>>()?,
            None => Vec::new(),
        };
        let v6 = match family {
            "v4" | "4" => false,
            "v6" | "6" => true,
            "auto" => rs.first().is_some_and(|r| r.0.contains(':')),
            f => return Err(bad(format!("--family {f:?}: expected v4, v6 or auto"))),
        };
        let table = if v6 {
            let mut t = a.make::<u128>();
            from_routes(t.as_mut(), &rs)?;
            Table::V6(t)
        } else {
            let mut t = a.make::<u32>();
            from_routes(t.as_mut(), &rs)?;
            Table::V4(t)
        };
        Ok(Lpm { table, info: None })
    }

    /// lookup(addrs, out=None) -> numpy.ndarray[uint32]
    /// --
    ///
    /// Next hop of every address (0 = no route): `uint32` array (IPv4) or `uint64` array of
    /// shape (n, 2) (IPv6, high word first). With `out` (a contiguous `uint32` array of n
    /// elements) the next hops are written there and `out` is returned, so that repeated
    /// lookups allocate nothing.
    #[pyo3(signature = (addrs, out=None))]
    fn lookup<'py>(
        &self,
        py: Python<'py>,
        addrs: &Bound<'py, PyAny>,
        out: Option<Bound<'py, PyArray1<u32>>>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let dtype = || {
            addrs
                .getattr("dtype")
                .map(|d| d.to_string())
                .unwrap_or_else(|_| addrs.get_type().to_string())
        };
        let contiguous = || bad("lookup: the address array must be contiguous");
        let v6 = matches!(self.table, Table::V6(_));
        let a1 = if v6 {
            None
        } else {
            Some(addrs.extract::<PyReadonlyArray1<u32>>().map_err(|_| {
                bad(format!(
                    "lookup: expected a 1-D uint32 array of IPv4 addresses (got {})",
                    dtype()
                ))
            })?)
        };
        let a2 = if v6 {
            let a = addrs.extract::<PyReadonlyArray2<u64>>().map_err(|_| {
                bad(format!(
                    "lookup: expected a uint64 array of shape (n, 2) of IPv6 addresses (got {})",
                    dtype()
                ))
            })?;
            if a.shape()[1] != 2 {
                return Err(bad(format!(
                    "lookup: IPv6 addresses must have shape (n, 2), got {:?}",
                    a.shape()
                )));
            }
            Some(a)
        } else {
            None
        };
        let v4: &[u32] = match &a1 {
            Some(a) => a.as_slice().map_err(|_| contiguous())?,
            None => &[],
        };
        let s: &[u64] = match &a2 {
            Some(a) => a.as_slice().map_err(|_| contiguous())?,
            None => &[],
        };
        let n = if v6 { s.len() / 2 } else { v4.len() };
        let arr = match out {
            Some(o) => {
                if o.len() != n {
                    return Err(bad(format!(
                        "lookup: out has {} elements for {n} addresses",
                        o.len()
                    )));
                }
                o
            }
            None => PyArray1::zeros(py, n, false),
        };
        {
            let mut w = arr
                .try_readwrite()
                .map_err(|_| bad("lookup: out is not writeable"))?;
            let o = w
                .as_slice_mut()
                .map_err(|_| bad("lookup: out must be contiguous"))?;
            let table = &self.table;
            let mut run = |stop: &AtomicBool| match table {
                Table::V4(t) => lookup_all(t.as_ref(), o, stop, |i, b| {
                    b.copy_from_slice(&v4[i..i + b.len()])
                }),
                Table::V6(t) => lookup_all(t.as_ref(), o, stop, |i, b| {
                    for (j, x) in b.iter_mut().enumerate() {
                        let k = 2 * (i + j);
                        *x = ((s[k] as u128) << 64) | s[k + 1] as u128;
                    }
                }),
            };
            if n > INTERRUPTIBLE {
                crate::interruptible(py, |s| run(&s.stop))?;
            } else {
                py.detach(|| run(&AtomicBool::new(false)));
            }
        }
        Ok(arr)
    }

    /// insert(prefix, next_hop) -> int | None
    /// --
    ///
    /// Adds or replaces a route; returns the previous next hop of that exact prefix.
    fn insert(&mut self, prefix: &str, next_hop: u64) -> PyResult<Option<u32>> {
        let nh = self::next_hop(next_hop)?;
        Ok(match &mut self.table {
            Table::V4(t) => t.insert(self::prefix(prefix)?, nh),
            Table::V6(t) => t.insert(self::prefix(prefix)?, nh),
        }
        .map(NextHop::get))
    }

    /// remove(prefix) -> int | None
    /// --
    ///
    /// Removes a route; returns its next hop, None if it was absent.
    fn remove(&mut self, prefix: &str) -> PyResult<Option<u32>> {
        Ok(match &mut self.table {
            Table::V4(t) => t.remove(self::prefix(prefix)?),
            Table::V6(t) => t.remove(self::prefix(prefix)?),
        }
        .map(NextHop::get))
    }

    /// Algorithm, family, routes, nodes, leaves and bytes of the lookup structure (and the
    /// loaded table's description, when read from a file).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (name, st, bytes) = match &self.table {
            Table::V4(t) => (t.name(), t.stats(), t.memory_bytes()),
            Table::V6(t) => (t.name(), t.stats(), t.memory_bytes()),
        };
        let d = PyDict::new(py);
        d.set_item("algo", name)?;
        d.set_item("family", self.family())?;
        d.set_item("prefixes", st.prefixes)?;
        d.set_item("internal_nodes", st.internal_nodes)?;
        d.set_item("leaves", st.leaves)?;
        d.set_item("memory_bytes", bytes)?;
        if let Some(i) = &self.info {
            d.set_item("table", crate::to_py(py, i)?)?;
        }
        Ok(d)
    }

    /// `v4` or `v6`.
    #[getter(family)]
    fn family_py(&self) -> &'static str {
        self.family()
    }

    fn __len__(&self) -> usize {
        match &self.table {
            Table::V4(t) => t.stats().prefixes,
            Table::V6(t) => t.stats().prefixes,
        }
    }

    fn __repr__(&self) -> String {
        let name = match &self.table {
            Table::V4(t) => t.name(),
            Table::V6(t) => t.name(),
        };
        format!("Lpm({name}, {}, {} routes)", self.family(), self.__len__())
    }
}

/// The family a table spec resolves to (reads the file's first lines for `auto`).
fn family_of(py: Python<'_>, spec: &TableSpec) -> PyResult<&'static str> {
    py.detach(|| family(spec)).map_err(py_err)
}

/// Adds the class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Lpm>()
}
