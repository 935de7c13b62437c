//! Why the LPM section's remaining differences from the paper are not noise: notes that name
//! the mechanism and give this run's numbers beside the structure-level evidence (instruction
//! and miss counts from `tools/lpm_cachegrind.sh`, kept in `docs/results/lpm.md`).

use super::{find, rate};
use crate::model::{Body, CmpRow};
use crate::verdict::{inverted, Rule};
use pktlab_lab::lpm::AlgoBench;

/// The reasons for the variant-table differences that are not noise, with this run's numbers:
/// the two Poptrie "basic" variants with direct pointing, and the radix tree's memory.
pub(super) fn variant_notes(b: &mut Body, names: &[String], rr: &[AlgoBench], prefixes: usize) {
    let mib = |n: &str| find(names, rr, n).map(|a| a.memory_bytes as f64 / (1 << 20) as f64);
    let mlps = |n: &str| find(names, rr, n).map(rate);
    if let (Some(b16), Some(b18), Some(p0), Some(l16)) = (
        mib("poptrie16-basic"),
        mib("poptrie18-basic"),
        mib("poptrie0"),
        mib("poptrie16-leafvec"),
    ) {
        b.notes.push(format!(
            "Poptrie16-basic and poptrie18-basic, the two variants the paper has faster than poptrie0 and poptrie16-leafvec, gain less here or fall behind, and that is the machine, not noise: they store a 2-byte leaf for every slot without leafvec, {b16:.1} and {b18:.1} MiB here (the paper: 23.6 and 9.4) against {p0:.1} MiB for poptrie0 and {l16:.1} MiB for poptrie16-leafvec. They execute the fewest instructions per lookup, but a random lookup finds their leaf beyond the per-core L2 where the compact variants mostly stay inside it (this CPU: {}). Per lookup on the paper's caches (32 KiB L1d, 8 MiB last level), cachegrind counts poptrie16-basic at a third of poptrie0's instructions, and with an L2-sized last level (1 MiB) the basic variants miss it on 0.57–0.77 of lookups against poptrie0's 0.05 (tools/lpm_cachegrind.sh; counts in docs/results/lpm.md). On 4 KiB pages such a lookup also misses the TLB (its reach is a few MiB; a miss walks two page tables in a virtual machine; docs/results/lpm.md compares 4 KiB and huge pages). These builds are on huge pages, where this run has poptrie16-basic at {:.2}× poptrie0 (the paper: 1.36×; medians: poptrie16-basic {:.1}, poptrie0 {:.1}, poptrie18-basic {:.1}, poptrie16-leafvec {:.1} Mlps).",
            crate::machine::caches(),
            mlps("poptrie16-basic").unwrap_or(f64::NAN) / mlps("poptrie0").unwrap_or(f64::NAN),
            mlps("poptrie16-basic").unwrap_or(f64::NAN),
            mlps("poptrie0").unwrap_or(f64::NAN),
            mlps("poptrie18-basic").unwrap_or(f64::NAN),
            mlps("poptrie16-leafvec").unwrap_or(f64::NAN),
        ));
    }
    if let Some(r) = find(names, rr, "radix") {
        b.notes.push(format!(
            "The radix tree's memory differs by construction: ours is a binary trie of 12-byte nodes (two 4-byte child indices and a next hop in one array), {} nodes for {prefixes} prefixes, {:.1} bytes per prefix; the paper's radix tree takes 30.47 MiB for a table of the same era and size, about 60 bytes per prefix, as pointer-linked nodes do. So its memory sits below poptrie16-basic's here and above it in the paper: a difference of implementation, which the lookup-rate tables do not share (the radix tree is the slowest in both).",
            r.internal_nodes,
            r.memory_bytes as f64 / prefixes.max(1) as f64
        ));
    }
}

/// Kept depths within `range` (inclusive) of `a`'s by-depth rows: (min, max) of the medians
/// and the worst p95 with its depth, in TSC ticks.
fn depth_span(a: &AlgoBench, kept: &[u8], lo: u8, hi: u8) -> Option<(u64, u64, u64, u8)> {
    let rows: Vec<_> = a
        .by_depth
        .as_ref()?
        .depths
        .iter()
        .filter_map(|r| Some((r.depth?, r)))
        .filter(|(d, _)| kept.contains(d) && (lo..=hi).contains(d))
        .collect();
    let p50 = rows.iter().map(|(_, r)| r.p50);
    let (min, max) = (p50.clone().min()?, p50.max()?);
    let (d, worst) = rows.iter().map(|(d, r)| (*d, r.p95)).max_by_key(|x| x.1)?;
    Some((min, max, worst, d))
}

/// `lo–hi`, or one number when they are equal.
fn range(lo: u64, hi: u64) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}–{hi}")
    }
}

/// How each baseline of the by-depth figure finds a route longer than /18 (the depths where
/// Poptrie18 leaves its direct-pointing array).
fn reads(algo: &str) -> &'static str {
    match algo {
        "d18r" | "d16r" => "its direct table, then a binary search within one chunk's sorted range block (contiguous entries)",
        "sail" => "one entry per level: the N16 array, then one chunk of N24 (and of N32 beyond /24)",
        "treebitmap" => "a chain of multi-bit nodes, each a bitmap test, a popcount and a child read",
        _ => "its own layout",
    }
}

/// The by-depth check's *differs*, explained: `below` are the structures whose worst p95
/// lies below Poptrie18's beyond noise; `kept` the plotted depths.
pub(super) fn depth_note(
    b: &mut Body,
    names: &[String],
    rr: &[AlgoBench],
    kept: &[u8],
    below: &[&str],
) {
    let Some(pop) = find(names, rr, "poptrie18") else {
        return;
    };
    let (Some(short), Some(long)) = (depth_span(pop, kept, 0, 18), depth_span(pop, kept, 19, 32))
    else {
        return;
    };
    let others: Vec<String> = below
        .iter()
        .filter_map(|o| {
            let (lo, hi, w, d) = depth_span(find(names, rr, o)?, kept, 19, 32)?;
            Some(format!(
                "{o} {} (worst p95 {w} at /{d}; {})",
                range(lo, hi),
                reads(o)
            ))
        })
        .collect();
    if others.is_empty() {
        return;
    }
    b.notes.push(format!(
        "By depth, the paper has Poptrie lowest at every depth; here {} lower worst p95 beyond noise. The difference lies past Poptrie18's direct-pointing array: a route of /18 or shorter is one read of that array (this run's medians {} TSC ticks), a longer one also reads an internal node and then a leaf, two dependent loads from two arrays (medians {} at /19 and longer, worst p95 {} at /{}). Medians at /19 and longer of the others: {}. {DEPTH_EVIDENCE} These are single lookups timed one at a time (the latency of one lookup); the rate tables time batches of 256.",
        if below.len() == 1 { format!("{} has a", below[0]) } else { format!("{} have a", below.join(" and ")) },
        range(short.0, short.1),
        range(long.0, long.1),
        long.2,
        long.3,
        others.join("; ")
    ));
}

/// The cache evidence behind [`depth_note`] (`tools/lpm_cachegrind.sh`, random traffic,
/// RouteViews 2014 asn:64; the counts are in docs/results/lpm.md).
const DEPTH_EVIDENCE: &str = "Per scalar random lookup on the paper's caches cachegrind counts D18R at 1.13 L1 data misses and SAIL at 1.23, against Poptrie18's 1.26 (tools/lpm_cachegrind.sh with BATCH=1; counts in docs/results/lpm.md).";

/// A prior-work comparison's inverted pairs (on `traffic`), explained with this run's medians
/// and the per-lookup counts of each structure on the same traffic (`evidence`:
/// [`RANDOM_EVIDENCE`] or [`ZIPF_EVIDENCE`]).
pub(super) fn prior_note(
    b: &mut Body,
    rows: &[CmpRow],
    rule: Rule,
    names: &[String],
    res: &[AlgoBench],
    (traffic, evidence): (&str, &str),
) {
    let inv = inverted(rows, rule);
    if inv.is_empty() {
        return;
    }
    let med = |n: &str| find(names, res, n).map_or(f64::NAN, rate);
    let pairs: Vec<String> = inv
        .iter()
        .map(|(hi, lo)| format!("{lo} {:.1} above {hi} {:.1} Mlps", med(lo), med(hi)))
        .collect();
    b.notes.push(format!(
        "On {traffic} traffic ours inverts {} of the paper's orderings beyond noise ({}). {evidence}",
        inv.len(),
        pairs.join("; ")
    ));
}

/// The instruction and miss counts behind [`prior_note`] on random traffic
/// (`tools/lpm_cachegrind.sh`, RouteViews 2014 asn:64; in docs/results/lpm.md).
pub(super) const RANDOM_EVIDENCE: &str = "Per random lookup on the paper's caches cachegrind counts D16R at 70 instructions and 1.22 L1 data misses, none of them beyond an 8 MiB level (its table is 0.8 MiB), against SAIL's 48 instructions, 1.23 L1 misses and 0.19 misses beyond 8 MiB (its table is 22 MiB). On the paper's machine (8 MiB L3) SAIL went to memory on a fifth of its lookups; where the last-level cache holds SAIL's 22 MiB (the machine's caches are in the header), its third fewer instructions win (tools/lpm_cachegrind.sh; counts in docs/results/lpm.md).";

/// The instruction and miss counts behind [`prior_note`] on Zipf traffic
/// (`tools/lpm_cachegrind.sh` with `TRAFFIC=zipf:1.0 PREGEN=262144`, RouteViews 2014 asn:64;
/// in docs/results/lpm.md).
pub(super) const ZIPF_EVIDENCE: &str = "Per Zipf lookup on the paper's caches cachegrind counts D16R at 134 instructions, 1.6 L1 data misses and 2.9 mispredicted branches, and D18R at 99, 1.3 and 2.1 (their binary search over a chunk's ranges, whose steps depend on the address), against Tree BitMap's 136, 3.2 and 0.8: on this guest the mispredictions cost more than the extra L1 misses, which hit the L3. SAIL executes fewer instructions and misses fewer reads than Poptrie16 (56 vs 95 instructions, 1.3 vs 2.2 L1 misses) and still times level with it or below here, which the counts do not explain (tools/lpm_cachegrind.sh with PREGEN; counts in docs/results/lpm.md).";
