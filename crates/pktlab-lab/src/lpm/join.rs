//! Joining benchmark blocks taken at different moments into one result ([`BenchResult::join`]).

use super::{BenchResult, Error, Result};

impl BenchResult {
    /// Joins blocks of rounds of one configuration, taken at different moments, into one
    /// result: every algorithm's rounds concatenated in block order, its medians (wall-clock
    /// and on-CPU rate, ns and TSC ticks per lookup) recomputed over all of them, `runs` and
    /// the huge-page bytes summed. Builds, memory, node counts and the by-depth report are
    /// the first block's. On a host whose speed moves from minute to minute, rounds spread
    /// over several minutes sample several of its phases where one block samples one.
    ///
    /// Errors when there is no block, or when a block differs in what it measured (table,
    /// traffic, lookups, threads, batch, slices, algorithms) or in a lookup's checksum.
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
                && b.slices == out.slices
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
            a.set_medians(out.threads, out.tsc_hz);
        }
        Ok(out)
    }
}
