//! LPM experiments (paper 004, Poptrie): the lookup-rate benchmark with its traffic
//! generators ([`bench()`]), including updates applied under a concurrent reader, and the
//! verification of every algorithm against the radix-trie oracle ([`verify`]).
//!
//! Traffic generation follows the paper's harness: uniform random addresses from Marsaglia's
//! xor128 with his published seed, generated on the fly inside the timed loop.
//!
//! Files: `mod.rs` (tables, loading, traffic), `bench.rs` (lookup rate, by-depth costs,
//! updates under a reader), `rounds.rs` (the interleaved rounds and slices that time the
//! built structures), `join.rs` (blocks of rounds taken at different moments joined
//! into one result), `verify.rs` (every algorithm against the oracle).

mod bench;
mod join;
mod rounds;
#[cfg(test)]
mod tests;
mod verify;

pub use bench::*;
pub use verify::*;

use super::{check, median, Error, Progress, Result};
use pktlab::io::nexthop::NextHopScheme;
use pktlab::io::routes::{read_table, read_updates, Update};
use pktlab::io::synth::{synthetic_table, DEFAULT_V4_ROUTES, DEFAULT_V6_ROUTES};
use pktlab::lpm::shared::Op;
use pktlab::lpm::{Algo, Lpm};
use pktlab::net::{Address, NextHop, Prefix};
use pktlab::traffic::lpm::{LookupTraffic, TrafficError};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

/// Where the routes come from and which algorithms to build.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct TableSpec {
    /// Routing table: text (`prefix/len [nexthop]`), pyasn or MRT TABLE_DUMP_V2 file,
    /// optionally gzip/bzip2-compressed; `synthetic` = the embedded seeded generator.
    pub table: String,
    /// `v4`, `v6` or `auto` (v4 unless the file holds IPv6 prefixes).
    pub family: String,
    /// Next-hop scheme: `file`, `asn:N` or `hash:N` (see DESIGN.md).
    pub nexthops: String,
    /// Seed of the synthetic table and of the traffic.
    pub seed: u64,
    /// Routes of the synthetic table (default 1M for v4, 250K for v6).
    pub synthetic_routes: Option<u64>,
    /// Algorithm names (see [`Algo`]).
    pub algos: Vec<String>,
}

impl TableSpec {
    /// Refuses impossible values (one-line error naming the flag and the accepted range):
    /// a synthetic table of no route, no algorithm.
    pub fn validate(&self) -> Result<()> {
        if let Some(n) = self.synthetic_routes {
            check::int_range("--synthetic-routes", n, 1, 1 << 26)?;
        }
        check::require(!self.algos.is_empty(), "--algo", || {
            "needs at least one algorithm".into()
        })?;
        Ok(())
    }
}

impl Default for TableSpec {
    fn default() -> Self {
        TableSpec {
            table: "synthetic".into(),
            family: "auto".into(),
            nexthops: "hash:16".into(),
            seed: 1,
            synthetic_routes: None,
            algos: ["radix", "poptrie0", "poptrie16", "poptrie18"]
                .map(String::from)
                .to_vec(),
        }
    }
}

/// What describes a loaded table in results.
#[derive(Clone, Debug, Serialize)]
pub struct TableInfo {
    /// Path, or `synthetic(seed=S,routes=N)`.
    pub path: String,
    /// `v4` or `v6`.
    pub family: String,
    /// Routes loaded.
    pub prefixes: usize,
    /// The next-hop scheme.
    pub nexthops: String,
    /// Distinct next hops among the routes.
    pub distinct_nexthops: usize,
    /// Length of the longest prefix (0 for an empty table): a lookup can match no deeper.
    pub longest_prefix: u8,
    /// Lines or records skipped by the reader (files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<u64>,
    /// Set when the file ended mid-record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
}

/// `v6` if the file's first data line holds an IPv6 prefix, else `v4`.
fn detect_family(table: &str) -> Result<&'static str> {
    if table == "synthetic" {
        return Ok("v4");
    }
    // At most the first MiB: a "line" of a gigabyte of zeros is not read whole.
    let rd = std::io::Read::take(
        pktlab::io::open_maybe_compressed(Path::new(table))?,
        1 << 20,
    );
    for line in std::io::BufRead::split(rd, b'\n').take(64) {
        let line = line.map_err(|e| Error::output(table, "read error", e))?;
        let s = String::from_utf8_lossy(&line);
        let s = s.trim();
        if s.is_empty() || s.starts_with('#') || s.starts_with(';') {
            continue;
        }
        let word = s.split_whitespace().find(|w| w.contains('/')).unwrap_or(s);
        return Ok(if word.contains(':') { "v6" } else { "v4" });
    }
    // Binary (MRT) or empty: look at the file name.
    Ok(if table.contains("v6") || table.contains("rib6") {
        "v6"
    } else {
        "v4"
    })
}

/// The family `spec` resolves to (`v4` or `v6`).
pub fn family(spec: &TableSpec) -> Result<&'static str> {
    match spec.family.as_str() {
        "v4" | "4" => Ok("v4"),
        "v6" | "6" => Ok("v6"),
        "auto" => detect_family(&spec.table),
        f => Err(Error::param(format!(
            "--family {f:?}: expected v4, v6 or auto"
        ))),
    }
}

/// A loaded table: routes and their description.
pub struct Loaded<A: Address> {
    /// Routes in table order.
    pub routes: Vec<(Prefix<A>, NextHop)>,
    /// Description for results.
    pub info: TableInfo,
}

fn scheme(t: &TableSpec) -> Result<NextHopScheme> {
    t.nexthops
        .parse()
        .map_err(|e| Error::param(format!("--nexthops {:?}: {e}", t.nexthops)))
}

/// Loads (or generates) the table of `t` for family `A`.
pub fn load<A: Address>(t: &TableSpec, p: &dyn Progress) -> Result<Loaded<A>> {
    let scheme = scheme(t)?;
    let started = Instant::now();
    let (routes, path, report) = if t.table == "synthetic" {
        let n = t
            .synthetic_routes
            .map(|n| n as usize)
            .unwrap_or(if A::BITS == 32 {
                DEFAULT_V4_ROUTES
            } else {
                DEFAULT_V6_ROUTES
            });
        let r = synthetic_table::<A>(n, t.seed, &scheme);
        (r, format!("synthetic(seed={},routes={n})", t.seed), None)
    } else {
        let tab = read_table::<A>(Path::new(&t.table), &scheme)?;
        if let Some(s) = tab.report.summary() {
            p.note(&s);
        }
        (tab.routes, t.table.clone(), Some(tab.report))
    };
    if routes.is_empty() {
        return Err(Error::param(format!(
            "--table: {path}: no {} routes (a table needs at least one)",
            A::FAMILY.as_str()
        )));
    }
    let routes: Vec<(Prefix<A>, NextHop)> = routes.iter().map(|r| (r.prefix, r.nexthop)).collect();
    let mut nhs: Vec<u32> = routes.iter().map(|r| r.1.get()).collect();
    nhs.sort_unstable();
    nhs.dedup();
    p.note(&format!(
        "{path}: {} {} routes, {} distinct next hops ({}), read in {:.2} s",
        routes.len(),
        A::FAMILY.as_str(),
        nhs.len(),
        t.nexthops,
        started.elapsed().as_secs_f64()
    ));
    let info = TableInfo {
        path,
        family: A::FAMILY.as_str().into(),
        prefixes: routes.len(),
        nexthops: t.nexthops.clone(),
        distinct_nexthops: nhs.len(),
        longest_prefix: routes.iter().map(|r| r.0.len()).max().unwrap_or(0),
        skipped: report.as_ref().map(|r| r.skipped),
        truncated: report.and_then(|r| r.truncated),
    };
    Ok(Loaded { routes, info })
}

/// Parses the algorithm names of `t`.
pub fn algos(t: &TableSpec) -> Result<Vec<Algo>> {
    t.algos
        .iter()
        .map(|a| {
            a.trim()
                .parse::<Algo>()
                .map_err(|e| Error::param(format!("--algo: {e}")))
        })
        .collect()
}

/// Builds one algorithm; returns it with the build time in seconds.
fn build<A: Address>(algo: Algo, routes: &[(Prefix<A>, NextHop)]) -> (Box<dyn Lpm<A>>, f64) {
    let mut t = algo.make::<A>();
    let s = Instant::now();
    t.build(routes);
    (t, s.elapsed().as_secs_f64())
}

/// Lookup traffic for the benchmark (the generators live in [`pktlab::traffic::lpm`]).
pub type Traffic<A> = LookupTraffic<A>;

/// Parses a `--traffic` name for a table (see [`LookupTraffic::parse`]); a capture's skipped
/// records are reported through `p`.
pub fn parse_traffic<A: Address>(
    s: &str,
    routes: &[(Prefix<A>, NextHop)],
    p: &dyn Progress,
) -> Result<Traffic<A>> {
    let (t, rep) = LookupTraffic::parse(s, routes).map_err(|e| match e {
        TrafficError::Io(e) => Error::Io(e),
        e => Error::param(e.to_string()),
    })?;
    if let Some(s) = rep.and_then(|r| r.summary()) {
        p.note(&s);
    }
    Ok(t)
}

/// Reads an update stream; returns the events and the number of skipped lines.
fn load_updates<A: Address>(
    path: &Path,
    t: &TableSpec,
    p: &dyn Progress,
) -> Result<(Vec<Update<A>>, u64)> {
    let (ups, report) = read_updates::<A>(path, &scheme(t)?)?;
    if let Some(s) = report.summary() {
        p.note(&s);
    }
    if ups.is_empty() {
        // The rule for empty inputs (see `cache::require_packets`).
        return Err(Error::Empty {
            what: format!("{} update events", A::FAMILY.as_str()),
            path: path.display().to_string(),
            detail: match (report.skipped, report.other_family) {
                (0, 0) => String::new(),
                (s, 0) => format!(" ({s} lines skipped)"),
                (s, o) => format!(" ({s} lines skipped, {o} of the other family)"),
            },
        });
    }
    p.note(&format!("{}: {} update events", path.display(), ups.len()));
    Ok((ups, report.skipped))
}

fn to_op<A: Address>(u: &Update<A>) -> Op<A> {
    match *u {
        Update::Announce(p, nh) => Op::Insert(p, nh),
        Update::Withdraw(p) => Op::Remove(p),
    }
}
