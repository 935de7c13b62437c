//! `pktlab ccn sim`: paper 003's Cefore case study — content-store hit ratio per policy and
//! size under Zipf requests (next to the ideal static top-C ratio and Che's approximation for
//! LRU) and the forwarder's request rate with the CS off and with growing CS sizes.

use crate::size::parse_size;
use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pktlab::ccn::cs::{AnyCs, Policy};
use pktlab::ccn::sim::{che_lru, hit_ratio, ideal, CcnLoop};
use pktlab::traffic::ZipfTable;
use serde_json::json;
use std::time::Instant;

/// `pktlab ccn …`
#[derive(Subcommand)]
pub enum CcnCmd {
    /// Content-store hit ratios and forwarding rates under Zipf requests.
    Sim(SimArgs),
}

/// `pktlab ccn sim`
#[derive(Args)]
pub struct SimArgs {
    /// Number of contents (Zipf ranks).
    #[arg(long, default_value = "2^26", value_parser = parse_size)]
    contents: u64,
    /// Zipf exponent α.
    #[arg(long, default_value_t = 0.8)]
    alpha: f64,
    /// CS sizes (entries); 0 = CS off (forwarding-rate baseline).
    #[arg(long, value_delimiter = ',', value_parser = parse_size,
          default_value = "0,2^10,2^14,2^16,2^18,2^20,2^22")]
    cs_entries: Vec<u64>,
    /// Replacement policies: lru, fifo, lfu, random, clock, slru, spc, hpc4, arc, s3fifo,
    /// sieve, tinylfu (fully associative).
    #[arg(long, value_delimiter = ',', default_value = "lru")]
    policy: Vec<String>,
    /// Measured requests per hit-ratio simulation (after the store is full).
    #[arg(long, default_value = "2^24", value_parser = parse_size)]
    requests: u64,
    /// Extra warm-up requests after the store first fills.
    #[arg(long, default_value = "2^22", value_parser = parse_size)]
    warmup: u64,
    /// Requests through the consumer → router → producer loop for the rate (0 = skip), after as
    /// many warm-up requests.
    #[arg(long, default_value = "2^21", value_parser = parse_size)]
    fwd_requests: u64,
    /// Zipf table budget for the request generator.
    #[arg(long, default_value = "2^20", value_parser = parse_size)]
    table_entries: u64,
    /// Content Object payload bytes in the forwarding loop.
    #[arg(long, default_value_t = 16)]
    payload: usize,
    /// Seed of the request stream and the random policy.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs a `ccn` subcommand.
pub fn run(cmd: CcnCmd) -> Result<i32> {
    match cmd {
        CcnCmd::Sim(a) => sim(a),
    }
}

fn sim(a: SimArgs) -> Result<i32> {
    let mut pols = Vec::new();
    for p in &a.policy {
        match Policy::parse(p) {
            Some(x) => pols.push(x),
            None => bail!(
                "--policy {p:?}: expected one of {}",
                Policy::ALL
                    .iter()
                    .map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    if a.cs_entries.iter().any(|&c| c > 1 << 26) {
        bail!("--cs-entries: at most 2^26 entries per store");
    }
    let table = ZipfTable::new(a.alpha, a.contents, a.table_entries)?;
    let tv = table.stats().tv;
    eprintln!(
        "pktlab: Zipf({}) over {} contents, request table of {} entries (TV {:.1e})",
        a.alpha,
        a.contents,
        table.entries(),
        tv
    );
    let mut configs = Vec::new();
    for &p in &pols {
        for &c in &a.cs_entries {
            if c == 0 {
                if !configs.iter().any(|&(_, c)| c == 0) {
                    configs.push((None, 0));
                }
            } else {
                configs.push((Some(p), c));
            }
        }
    }
    let pb =
        ProgressBar::with_draw_target(Some(configs.len() as u64), ProgressDrawTarget::stderr());
    pb.set_style(ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed}").unwrap());
    let mut rows = Vec::new();
    for (p, c) in configs {
        let name = p.map_or("none", |p| p.as_str());
        pb.set_message(format!("{name} {c}"));
        let che = che_lru(a.alpha, a.contents, c);
        let id = ideal(a.alpha, a.contents, c);
        let (h, sim_s) = match p {
            Some(p) => {
                let t0 = Instant::now();
                let mut cs = AnyCs::new(p, c as usize, a.seed);
                let h = hit_ratio(&mut cs, &table, a.seed, a.warmup, a.requests);
                (h, t0.elapsed().as_secs_f64())
            }
            None => (0.0, 0.0),
        };
        let (mut mpps, mut fwd_hit) = (None, None);
        if a.fwd_requests > 0 {
            let cs = p.map(|p| AnyCs::new(p, c as usize, a.seed));
            let mut l = CcnLoop::new(cs, "/cefore", a.payload, a.seed ^ 0xF0);
            l.run(&table, a.fwd_requests);
            let t0 = Instant::now();
            let hits = l.run(&table, a.fwd_requests);
            let dt = t0.elapsed().as_secs_f64();
            mpps = Some(a.fwd_requests as f64 / dt / 1e6);
            fwd_hit = Some(hits as f64 / a.fwd_requests as f64);
        }
        pb.suspend(|| {
            eprintln!(
                "pktlab: {name:>6} cs={c:>8}: hit {h:.4} (che {che:.4}, ideal {id:.4}) in {sim_s:.1} s; forwarder {} Mreq/s",
                mpps.map_or("-".into(), |m| format!("{m:.2}"))
            )
        });
        rows.push(json!({
            "policy": name, "cs_entries": c, "hit_ratio": h, "che_lru": che, "ideal": id,
            "mpps": mpps, "fwd_hit_ratio": fwd_hit,
        }));
        pb.inc(1);
    }
    pb.finish_and_clear();
    let out = json!({
        "contents": a.contents, "alpha": a.alpha, "requests": a.requests, "warmup": a.warmup,
        "fwd_requests": a.fwd_requests, "table_entries": table.entries(), "table_tv": tv,
        "seed": a.seed, "results": rows,
    });
    if a.json {
        println!("{out}");
    } else {
        println!(
            "{:<7} {:>10} {:>9} {:>9} {:>9} {:>9}",
            "policy", "cs", "hit", "che_lru", "ideal", "Mreq/s"
        );
        for r in out["results"].as_array().unwrap() {
            println!(
                "{:<7} {:>10} {:>9.4} {:>9.4} {:>9.4} {:>9}",
                r["policy"].as_str().unwrap(),
                r["cs_entries"],
                r["hit_ratio"].as_f64().unwrap(),
                r["che_lru"].as_f64().unwrap(),
                r["ideal"].as_f64().unwrap(),
                r["mpps"].as_f64().map_or("-".into(), |m| format!("{m:.2}"))
            );
        }
    }
    Ok(0)
}
