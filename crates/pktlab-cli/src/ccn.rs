//! `pktlab ccn sim`: paper 003's Cefore case study — content-store hit ratio per policy and
//! size under Zipf requests (next to the ideal static top-C ratio and Che's approximation for
//! LRU) and the forwarder's request rate with the CS off and with growing CS sizes.

use crate::progress::Bars;
use crate::size::parse_size;
use anyhow::Result;
use clap::{Args, Subcommand};
use pktlab_lab::ccn::{self, CcnSimConfig};

/// `pktlab ccn …`
#[derive(Subcommand)]
pub enum CcnCmd {
    /// Content-store hit ratios and forwarding rates under Zipf requests.
    Sim(SimArgs),
    /// CCN router (CS → PIT → FIB) on UDP faces, interoperable with Cefore.
    Router(crate::ccn_live::RouterArgs),
    /// Zipf consumer sending Interests to a UDP face.
    Consumer(crate::ccn_live::ConsumerArgs),
    /// Producer answering Interests under a prefix on a UDP face.
    Producer(crate::ccn_live::ProducerArgs),
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
        CcnCmd::Router(a) => crate::ccn_live::router(a),
        CcnCmd::Consumer(a) => crate::ccn_live::consumer(a),
        CcnCmd::Producer(a) => crate::ccn_live::producer(a),
    }
}

fn sim(a: SimArgs) -> Result<i32> {
    let cfg = CcnSimConfig {
        contents: a.contents,
        alpha: a.alpha,
        cs_entries: a.cs_entries.clone(),
        policy: a.policy.clone(),
        requests: a.requests,
        warmup: a.warmup,
        fwd_requests: a.fwd_requests,
        table_entries: a.table_entries,
        payload: a.payload,
        seed: a.seed,
    };
    let out = serde_json::to_value(ccn::sim(&cfg, &Bars::new())?)?;
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
