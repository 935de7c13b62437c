//! `pktlab lpm bench` and `pktlab lpm verify`.

use crate::progress::Bars;
use crate::size::parse_size;
use anyhow::Result;
use clap::{Args, Subcommand};
use pktlab_lab::lpm::{self, BenchConfig, TableSpec, VerifyConfig};
use serde_json::Value;
use std::path::PathBuf;

/// `pktlab lpm …`
#[derive(Subcommand)]
pub enum LpmCmd {
    /// Measure lookup rate, memory and build time of LPM algorithms on a table.
    Bench(BenchArgs),
    /// Check every algorithm against the radix-trie oracle (exit 0 only if all agree).
    Verify(VerifyArgs),
}

/// Where the routes come from.
#[derive(Args, Clone)]
pub struct TableArgs {
    /// Routing table: `prefix/len [nexthop]` text, pyasn (`prefix<TAB>asn`) or MRT
    /// TABLE_DUMP_V2, each optionally gzip/bzip2-compressed (detected from content);
    /// `synthetic` = the embedded seeded full-table generator.
    #[arg(long, default_value = "synthetic")]
    table: String,
    /// Address family: v4, v6, or auto (v4 unless the file holds only IPv6 prefixes).
    #[arg(long, default_value = "auto")]
    family: String,
    /// Next-hop assignment: `file`, `asn:N` (1 + origin AS mod N) or `hash:N`
    /// (1 + splitmix64(addr ^ len<<56) mod N).
    #[arg(long, default_value = "hash:16")]
    nexthops: String,
    /// Seed of the synthetic table and of the traffic.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Routes in the synthetic table (default 1M for v4, 250K for v6).
    #[arg(long, value_parser = parse_size)]
    synthetic_routes: Option<u64>,
    /// Algorithms: radix, poptrie0, poptrie16, poptrie18, poptrie18-basic, poptrie18-leafvec,
    /// or any poptrie<S>[-basic|-leafvec] with S ≤ 24, optionally pinned to one lookup code
    /// with @generic, @popcnt, @avx2 or @avx512 (default: the scalar walk, and for batches of
    /// 128+ addresses the AVX-512 walk where this CPU runs it clearly faster, timed when the
    /// first large table is built); treebitmap[<I>] (Tree BitMap, I initial-array bits), sail
    /// (SAIL_L), d16r, d18r (DXR), dir24_8 (DPDK rte_lpm layout).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "radix,poptrie0,poptrie16,poptrie18"
    )]
    algo: Vec<String>,
    /// Print one JSON object on stdout instead of a table.
    #[arg(long)]
    json: bool,
}

/// `pktlab lpm bench`
#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    t: TableArgs,
    /// Traffic: random (uniform addresses from Marsaglia's xor128 with his published seed,
    /// generated on the fly, as in the paper's harness), prefixes (a table prefix chosen
    /// uniformly, index = xor128 % routes, with random host bits: exercises long prefixes,
    /// the meaningful IPv6 workload), sequential (consecutive addresses from a random start), repeat (each random
    /// address 16 times in a row), zipf:ALPHA (a Zipf(ALPHA)-popular table prefix
    /// from a 64K-entry pktlab::traffic table, with random host bits), trace:PATH (destination
    /// addresses of a pcap/pcapng, cycled). zipf is the stand-in for real traffic: few
    /// prefixes take most lookups, and since lookups go to prefixes rather than address
    /// space, long prefixes are hit far more often than under random traffic (--by-depth
    /// reports the share deeper than /24); use it with --pregen, its generator is costly.
    #[arg(long, default_value = "random")]
    traffic: String,
    /// Lookups per run (all threads together).
    #[arg(long, default_value = "2^26", value_parser = parse_size)]
    lookups: u64,
    /// Lookup threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Runs per algorithm; the median is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Cut each run into this many slices that alternate between the algorithms (rotating
    /// their order, each slice after 64K untimed warm-up lookups), so that the host's speed
    /// changes within a round hit every algorithm alike
    #[arg(long, default_value_t = 1)]
    slices: usize,
    /// Generate this many addresses of the traffic before timing and cycle through them in
    /// place, so that only lookups are timed (0 = generate on the fly, as the paper's
    /// harness). Keep the buffer cache-sized (e.g. 64K: 256 KiB of IPv4 addresses), or
    /// the run also measures streaming the buffer from memory.
    #[arg(long, default_value = "0", value_parser = parse_size)]
    pregen: u64,
    /// Addresses per `lookup_batch` call; 1 = the scalar `lookup`, one call per address.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// Also apply this update stream (`A prefix` / `W prefix`) while a reader thread keeps
    /// looking up, and report the update rate.
    #[arg(long)]
    updates: Option<PathBuf>,
    /// With --updates: publish to readers after this many updates.
    #[arg(long, default_value_t = 64)]
    publish_every: usize,
    /// Also time single lookups (serialised TSC, timer cost subtracted) and report cycle
    /// percentiles grouped by the prefix length of the matched route (paper 004's box plot).
    #[arg(long)]
    by_depth: bool,
    /// With --by-depth: lookups timed (the first N addresses of the traffic, thread 0).
    #[arg(long, default_value = "1M", value_parser = parse_size)]
    depth_samples: u64,
    /// With --by-depth: interleaved rounds of the single-lookup timings, each timing its own
    /// slice of the samples in every structure in turn [default: --runs].
    #[arg(long)]
    depth_rounds: Option<usize>,
    /// With --threads > 1: each round also times 1 thread right beside the multi-thread run
    /// (before it in even rounds, after it in odd ones: a tightly paired scaling ratio).
    #[arg(long)]
    pair_one_thread: bool,
    /// Build every structure afresh (new memory, untimed) before each round after the first,
    /// so the rounds sample its memory layouts rather than one.
    #[arg(long)]
    rebuild: bool,
    /// Build the structures on transparent huge pages (2 MiB pages advised for their large
    /// arrays, as a data plane places its tables; with THP `never` this changes nothing).
    #[arg(long)]
    huge_pages: bool,
}

/// `pktlab lpm verify`
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    t: TableArgs,
    /// Random addresses checked (besides the first/last address of every prefix and their
    /// neighbours).
    #[arg(long, default_value = "1M", value_parser = parse_size)]
    samples: u64,
    /// Apply this update stream and re-verify along the way.
    #[arg(long)]
    updates: Option<PathBuf>,
    /// With --updates: re-verify (updated prefixes + 64K random addresses) every N events.
    #[arg(long, default_value = "100K", value_parser = parse_size)]
    check_every: u64,
}

/// Runs an `lpm` subcommand; returns the process exit code.
pub fn run(cmd: LpmCmd) -> Result<i32> {
    match cmd {
        LpmCmd::Bench(b) => bench(b),
        LpmCmd::Verify(v) => verify(v),
    }
}

impl TableArgs {
    fn spec(&self) -> TableSpec {
        TableSpec {
            table: self.table.clone(),
            family: self.family.clone(),
            nexthops: self.nexthops.clone(),
            seed: self.seed,
            synthetic_routes: self.synthetic_routes,
            algos: self.algo.clone(),
        }
    }
}

fn bench(a: BenchArgs) -> Result<i32> {
    let cfg = BenchConfig {
        table: a.t.spec(),
        traffic: a.traffic,
        lookups: a.lookups,
        threads: a.threads,
        runs: a.runs,
        slices: a.slices,
        pregen: a.pregen,
        batch: a.batch,
        updates: a.updates,
        publish_every: a.publish_every,
        by_depth: a.by_depth,
        depth_samples: a.depth_samples,
        depth_rounds: a.depth_rounds,
        pair_one_thread: a.pair_one_thread,
        rebuild: a.rebuild,
        huge_pages: a.huge_pages,
    };
    let out = serde_json::to_value(lpm::bench(&cfg, &Bars::new())?)?;
    if a.t.json {
        println!("{out}");
    } else {
        print_bench(&out);
    }
    Ok(0)
}

fn print_bench(v: &Value) {
    println!(
        "table {} ({} prefixes, next hops {}), traffic {}, {} lookups x {} runs, {} thread(s)",
        v["table"]["path"].as_str().unwrap_or(""),
        v["table"]["prefixes"],
        v["table"]["nexthops"].as_str().unwrap_or(""),
        v["traffic"].as_str().unwrap_or(""),
        v["lookups"],
        v["runs"],
        v["threads"]
    );
    if let Some(b) = v["huge_page_bytes"].as_u64().filter(|&b| b > 0) {
        println!(
            "huge pages: {:.0} MiB of the builds' allocations advised",
            b as f64 / (1u64 << 20) as f64
        );
    }
    if let Some(c) = v["poptrie_auto_batch"].as_object() {
        println!(
            "poptrie auto: batches of {}+ addresses run {} (AVX-512 walk timed at {:.2}x the scalar one)",
            pktlab::lpm::poptrie::SIMD_MIN_BATCH,
            c["kernel"].as_str().unwrap_or("?"),
            c["speedup"].as_f64().unwrap_or(0.0)
        );
    }
    println!(
        "{:<20} {:>9} {:>8} {:>10} {:>10} {:>11} {:>8}",
        "algo", "Mlps", "ns/look", "MiB", "int.nodes", "leaves", "build s"
    );
    for r in v["results"].as_array().into_iter().flatten() {
        println!(
            "{:<20} {:>9.2} {:>8.2} {:>10.2} {:>10} {:>11} {:>8.3}",
            r["algo"].as_str().unwrap_or(""),
            r["mlps"].as_f64().unwrap_or(0.0),
            r["ns_per_lookup"].as_f64().unwrap_or(0.0),
            r["memory_bytes"].as_f64().unwrap_or(0.0) / 1048576.0,
            r["internal_nodes"],
            r["leaves"],
            r["build_s"].as_f64().unwrap_or(0.0)
        );
        if let Some(d) = r.get("by_depth") {
            println!(
                "{:<20} by depth (TSC ticks, timer {} subtracted): depth count p5/p25/p50/p75/p95",
                "", d["timer_overhead"]
            );
            for x in d["depths"].as_array().into_iter().flatten() {
                println!(
                    "{:<20}   {:>5} {:>9} {}/{}/{}/{}/{}",
                    "",
                    x["depth"]
                        .as_u64()
                        .map_or("none".to_string(), |v| format!("/{v}")),
                    x["count"],
                    x["p5"],
                    x["p25"],
                    x["p50"],
                    x["p75"],
                    x["p95"]
                );
            }
        }
        if let Some(u) = r.get("updates") {
            println!(
                "{:<20} updates: {} events in {:.2} s ({:.0}/s), reader {:.1} Mlps meanwhile",
                "",
                u["events"],
                u["apply_s"].as_f64().unwrap_or(0.0),
                u["events_per_s"].as_f64().unwrap_or(0.0),
                u["reader_mlps"].as_f64().unwrap_or(0.0)
            );
        }
    }
}

fn verify(a: VerifyArgs) -> Result<i32> {
    let cfg = VerifyConfig {
        table: a.t.spec(),
        samples: a.samples,
        updates: a.updates,
        check_every: a.check_every,
    };
    let r = lpm::verify(&cfg, &Bars::new())?;
    let (checked, mismatches) = (r.checked, r.mismatches);
    let out = serde_json::to_value(&r)?;
    let per_algo = out["algos"].as_array().cloned().unwrap_or_default();
    if a.t.json {
        println!("{out}");
    } else {
        for r in &per_algo {
            println!(
                "{:<20} checked {:>10}  mismatches {:>6}{}",
                r["algo"].as_str().unwrap_or(""),
                r["checked"],
                r["mismatches"],
                r.get("updates")
                    .map(|u| format!("  (after {} updates)", u["events"]))
                    .unwrap_or_default()
            );
        }
        println!(
            "{}: {checked} lookups checked, {mismatches} mismatches",
            if mismatches == 0 { "OK" } else { "FAILED" }
        );
    }
    Ok(if mismatches == 0 { 0 } else { 1 })
}
