//! Joining benchmark blocks taken at different moments into one result ([`BenchResult::join`]).

use super::{median, AlgoBench, BenchResult, Error, Result};

impl BenchResult {
    /// Joins blocks of rounds of one configuration, taken at different moments, into one
    /// result: every algorithm's rounds concatenated in block order, its medians (wall-clock
    /// and on-CPU rate, ns and TSC ticks per lookup) recomputed over all of them, `runs` and
    /// the huge-page bytes summed. Builds, memory, node counts and the by-depth report are
    /// the first block's. On a host whose speed moves from minute to minute, rounds spread
    /// over several minutes sample several of its phases where one block samples one.
    ///
    /// Errors when there is no block, or when a block differs in what it measured (table,
    /// traffic, lookups, threads, batch, algorithms) or in a lookup's checksum.
    pub fn join(blocks: Vec<BenchResult>) -> Result<BenchResult> {
        let mut it = blocks.into_iter();
        let mut out = it
            .next()
            .ok_or_else(|| Error::param("lpm bench join: no block to join".to_string()))?;
        for (k, b) in it.enumerate() {
            let same = b.table.prefixes == out.table.prefixes
                && b.traffic == out.traffic
                && b.pregen == out.pregen
                && b.lookups == out.lookups
                && b.threads == out.threads
                && b.batch == out.batch
                && b.results.len() == out.results.len();
            if !same {
                return Err(Error::param(format!(
                    "lpm bench join: block {} measured something else than block 1",
                    k + 2
                )));
            }
            for (a, x) in out.results.iter_mut().zip(b.results) {
                if a.algo != x.algo || a.checksum != x.checksum {
                    return Err(Error::param(format!(
                        "lpm bench join: block {} has {} (checksum {}) where block 1 has {} (checksum {})",
                        k + 2,
                        x.algo,
                        x.checksum,
                        a.algo,
                        a.checksum
                    )));
                }
                a.runs_mlps.extend(x.runs_mlps);
                a.runs_oncpu_mlps.extend(x.runs_oncpu_mlps);
                a.runs_per_thread_mlps.extend(x.runs_per_thread_mlps);
                a.runs_per_thread_oncpu_mlps
                    .extend(x.runs_per_thread_oncpu_mlps);
                a.runs_one_thread_mlps.extend(x.runs_one_thread_mlps);
                a.runs_one_thread_oncpu_mlps
                    .extend(x.runs_one_thread_oncpu_mlps);
            }
            out.runs += b.runs;
            out.huge_page_bytes += b.huge_page_bytes;
        }
        for a in &mut out.results {
            remedian(a, out.threads, out.tsc_hz);
        }
        Ok(out)
    }
}

/// Recomputes `a`'s medians from its rounds (as `bench` computes them).
fn remedian(a: &mut AlgoBench, threads: usize, tsc_hz: Option<f64>) {
    if a.runs_mlps.is_empty() || a.runs_oncpu_mlps.is_empty() {
        return;
    }
    a.mlps = median(&mut a.runs_mlps.clone());
    a.ns_per_lookup = 1e3 / a.mlps * threads as f64;
    a.mlps_oncpu = median(&mut a.runs_oncpu_mlps.clone());
    a.tsc_per_lookup = tsc_hz
        .filter(|_| a.mlps_oncpu.is_finite() && a.mlps_oncpu > 0.0)
        .map(|hz| hz * threads as f64 / (a.mlps_oncpu * 1e6));
}
