//! `pktlab ccn router|consumer|producer`: paper 003's CCN roles on real UDP faces, speaking
//! CCNx as Cefore does (`--dialect v0.10|v0.11|v0.12`, default the current Cefore). Flag parsing
//! and printing only; the roles are `pktlab::ccn::live`.

use crate::live::{on_signal, rate, secs, Rate};
use crate::size::parse_size;
use anyhow::{anyhow, Result};
use clap::Args;
use pktlab::ccn::cs::Policy;
use pktlab::ccn::live::{self, Control};
use pktlab::ccn::tlv::Dialect;
use std::net::SocketAddr;
use std::sync::LazyLock;
use std::time::Duration;

/// The control of the role this process runs; SIGINT stops it.
static CTL: LazyLock<Control> = LazyLock::new(Control::new);

extern "C" fn on_sigint(_: libc::c_int) {
    // Async-signal-safe: a relaxed atomic store.
    CTL.stop();
}

fn stop_on_sigint() {
    LazyLock::force(&CTL);
    on_signal(on_sigint);
}

fn dialect(s: &str) -> Result<Dialect, String> {
    Dialect::parse(s).ok_or_else(|| format!("{s:?}: expected v0.10, v0.11 or v0.12"))
}

fn face(s: &str) -> Result<SocketAddr, String> {
    live::parse_face(s).map_err(|e| e.to_string())
}

fn route(s: &str) -> Result<(String, SocketAddr), String> {
    let (p, a) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?}: expected PREFIX=udp:ADDR:PORT"))?;
    Ok((p.to_string(), face(a)?))
}

/// Flags shared by the roles that serve until stopped (router, producer).
#[derive(Args)]
pub struct ServeArgs {
    /// Cefore wire dialect.
    #[arg(long, default_value = "v0.12", value_parser = dialect)]
    dialect: Dialect,
    /// Stop after this many seconds (default: until SIGINT).
    #[arg(long, value_parser = secs)]
    duration: Option<Duration>,
    /// Print one JSON object on stdout at exit.
    #[arg(long)]
    json: bool,
}

/// `pktlab ccn router`
#[derive(Args)]
pub struct RouterArgs {
    /// Downstream face to listen on.
    #[arg(long, value_parser = face)]
    listen: SocketAddr,
    /// Route a name prefix to a next hop (repeatable): PREFIX=udp:ADDR:PORT.
    #[arg(long, value_parser = route)]
    route: Vec<(String, SocketAddr)>,
    /// Content-store entries (0 = CS off).
    #[arg(long, default_value = "0", value_parser = parse_size)]
    cs_entries: u64,
    /// Content-store replacement policy: lru, fifo, lfu, random.
    #[arg(long, default_value = "lru")]
    cs_policy: String,
    /// Largest Data packet the CS keeps (bytes per slot; the CS arena is entries × this).
    #[arg(long, default_value = "2048", value_parser = parse_size)]
    slot_bytes: u64,
    /// Worker threads (SO_REUSEPORT; each has 1/N of the CS).
    #[arg(long, default_value_t = 1)]
    workers: usize,
    /// PIT entries per worker.
    #[arg(long, default_value = "64K", value_parser = parse_size)]
    pit_entries: u64,
    /// PIT lifetime (ms) of Interests that carry no InterestLifetime.
    #[arg(long, default_value_t = 4000)]
    lifetime_ms: u64,
    /// Faces (UDP peers, next hops included) per worker; beyond, a new peer evicts an idle
    /// face (nothing pending) or is dropped.
    #[arg(long, default_value = "4096", value_parser = parse_size)]
    max_faces: u64,
    /// Datagrams per recvmmsg/sendmmsg.
    #[arg(long, default_value_t = 64)]
    batch: usize,
    #[command(flatten)]
    common: ServeArgs,
}

/// `pktlab ccn consumer`
#[derive(Args)]
pub struct ConsumerArgs {
    /// Router (or producer) to send Interests to.
    #[arg(long, value_parser = face)]
    to: SocketAddr,
    /// Local face (port 0 = any).
    #[arg(long, default_value = "udp:127.0.0.1:0", value_parser = face)]
    bind: SocketAddr,
    /// Name prefix.
    #[arg(long, default_value = "/cefore")]
    prefix: String,
    /// Distinct contents (Zipf ranks).
    #[arg(long, default_value = "2^26", value_parser = parse_size)]
    contents: u64,
    /// Zipf exponent.
    #[arg(long, default_value_t = 0.8)]
    alpha: f64,
    /// Zipf table entries (merged tail).
    #[arg(long, default_value = "64K", value_parser = parse_size)]
    table_entries: u64,
    /// Interests per second, or max.
    #[arg(long, default_value = "max", value_parser = rate)]
    rate: Rate,
    /// Most outstanding Interests.
    #[arg(long, default_value_t = 16)]
    window: usize,
    /// Measured seconds.
    #[arg(long, default_value = "10", value_parser = secs)]
    duration: Duration,
    /// Unmeasured seconds before (fills caches).
    #[arg(long, default_value = "0", value_parser = secs)]
    warmup: Duration,
    /// An Interest unanswered this long is a timeout (ms).
    #[arg(long, default_value_t = 1000)]
    timeout_ms: u64,
    /// InterestLifetime carried by each Interest (ms; 0 = omit).
    #[arg(long, default_value_t = 4000)]
    lifetime_ms: u16,
    /// Names without a chunk segment (Cefore will not cache them).
    #[arg(long)]
    no_chunk: bool,
    /// Datagrams per recvmmsg/sendmmsg.
    #[arg(long, default_value_t = 32)]
    batch: usize,
    /// Cefore wire dialect.
    #[arg(long, default_value = "v0.12", value_parser = dialect)]
    dialect: Dialect,
    /// Seed of the name stream.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// `pktlab ccn producer`
#[derive(Args)]
pub struct ProducerArgs {
    /// Face to listen on.
    #[arg(long, value_parser = face)]
    listen: SocketAddr,
    /// Name prefix answered.
    #[arg(long, default_value = "/cefore")]
    prefix: String,
    /// Payload bytes per Data packet.
    #[arg(long, default_value = "1024", value_parser = parse_size)]
    payload: u64,
    /// Cache time and expiry written into each Data (seconds from now).
    #[arg(long, default_value_t = 3600)]
    cache_time: u64,
    /// Chunks per object (the last one carries EndChunkNumber).
    #[arg(long, default_value_t = 1)]
    chunks: u64,
    /// Datagrams per recvmmsg/sendmmsg.
    #[arg(long, default_value_t = 64)]
    batch: usize,
    #[command(flatten)]
    common: ServeArgs,
}

fn print(json: bool, v: &impl serde::Serialize, human: impl FnOnce()) -> Result<i32> {
    if json {
        println!("{}", serde_json::to_string(v)?);
    } else {
        human();
    }
    Ok(0)
}

/// Runs `pktlab ccn router`.
pub fn router(a: RouterArgs) -> Result<i32> {
    let policy = Policy::parse(&a.cs_policy).ok_or_else(|| {
        anyhow!(
            "--cs-policy {:?}: expected lru, fifo, lfu or random",
            a.cs_policy
        )
    })?;
    let cfg = live::RouterConfig {
        listen: a.listen,
        routes: a.route,
        cs_entries: usize::try_from(a.cs_entries).unwrap_or(usize::MAX),
        cs_policy: policy,
        slot_bytes: usize::try_from(a.slot_bytes).unwrap_or(usize::MAX),
        workers: a.workers,
        dialect: a.common.dialect,
        pit_entries: usize::try_from(a.pit_entries).unwrap_or(usize::MAX),
        lifetime_ms: a.lifetime_ms,
        pit_per_face: 0,
        pit_per_route: 0,
        face_idle_ms: 10_000,
        max_faces: usize::try_from(a.max_faces).unwrap_or(usize::MAX),
        batch: a.batch,
        duration: a.common.duration,
        seed: 1,
    };
    cfg.validate()?;
    stop_on_sigint();
    eprintln!(
        "pktlab: ccn router on udp:{} (Cefore dialect {}), CS {} × {}, {} worker(s)",
        cfg.listen,
        cfg.dialect.as_str(),
        cfg.cs_entries,
        policy.as_str(),
        cfg.workers
    );
    let mut last = (0u64, 0u64);
    let r = live::run_router(&cfg, &CTL, &mut |r| {
        let s = &r.stats;
        eprintln!(
            "pktlab: {:>5.0} s  {:>9} Interests/s  {:>9} Data/s  cs hits {:>9}  malformed {}  skipped {}",
            r.elapsed_s,
            s.interests - last.0,
            s.data_out - last.1,
            s.cs_hits,
            s.malformed,
            s.skipped
        );
        last = (s.interests, s.data_out);
    })?;
    print(a.common.json, &r, || {
        let s = &r.stats;
        println!("dialect          {}", r.dialect);
        println!("elapsed_s        {:.2}", r.elapsed_s);
        println!(
            "interests        {} ({:.0}/s)",
            s.interests, r.interests_per_s
        );
        println!("data_out         {} ({:.0}/s)", s.data_out, r.data_per_s);
        println!(
            "cs               {} of {} entries, {} hits, hit ratio {:.4}",
            r.cs.entries, r.cs.capacity, r.cs.hits, r.cs.hit_ratio
        );
        println!(
            "forwarded        {}  aggregated {}  dropped {}  unsolicited {}",
            s.forwarded, s.aggregated, s.dropped, s.unsolicited
        );
        println!(
            "malformed        {}  skipped {}  pit_expired {}",
            s.malformed, s.skipped, s.pit_expired
        );
    })
}

/// Runs `pktlab ccn consumer`.
pub fn consumer(a: ConsumerArgs) -> Result<i32> {
    let cfg = live::ConsumerConfig {
        to: a.to,
        bind: a.bind,
        prefix: a.prefix,
        contents: a.contents,
        alpha: a.alpha,
        table_entries: a.table_entries,
        rate: a.rate.0,
        window: a.window,
        duration: a.duration,
        warmup: a.warmup,
        timeout_ms: a.timeout_ms,
        lifetime_ms: (a.lifetime_ms > 0).then_some(a.lifetime_ms),
        hop_limit: 32,
        chunked: !a.no_chunk,
        dialect: a.dialect,
        batch: a.batch,
        seed: a.seed,
    };
    cfg.validate()?;
    stop_on_sigint();
    eprintln!(
        "pktlab: ccn consumer → udp:{} (Cefore dialect {}), Zipf({}) over {} contents, window {}",
        cfg.to,
        cfg.dialect.as_str(),
        cfg.alpha,
        cfg.contents,
        cfg.window
    );
    let mut last = (0u64, 0u64);
    let r = live::run_consumer(&cfg, &CTL, &mut |r| {
        if r.interests_sent < last.0 {
            last = (0, 0); // the warm-up ended
        }
        eprintln!(
            "pktlab: {:>5.0} s{} {:>9} Interests/s  {:>9} Data/s  timeouts {}",
            r.elapsed_s.max(r.warmup_s),
            if r.warmup_s == 0.0 && !cfg.warmup.is_zero() {
                " (warm-up)"
            } else {
                ""
            },
            r.interests_sent - last.0,
            r.data_received - last.1,
            r.timeouts
        );
        last = (r.interests_sent, r.data_received);
    })?;
    print(a.json, &r, || {
        println!("dialect          {}", r.dialect);
        println!("elapsed_s        {:.2}", r.elapsed_s);
        println!(
            "interests_sent   {} ({:.0}/s)",
            r.interests_sent, r.interests_per_s
        );
        println!(
            "data_received    {} ({:.0}/s)",
            r.data_received, r.data_per_s
        );
        println!("timeouts         {}", r.timeouts);
        println!(
            "rtt_us           p50 {}  p90 {}  p99 {}  max {}",
            r.rtt_us.p50, r.rtt_us.p90, r.rtt_us.p99, r.rtt_us.max
        );
    })
}

/// Runs `pktlab ccn producer`.
pub fn producer(a: ProducerArgs) -> Result<i32> {
    let cfg = live::ProducerConfig {
        listen: a.listen,
        prefix: a.prefix,
        payload: usize::try_from(a.payload).unwrap_or(usize::MAX),
        dialect: a.common.dialect,
        cache_time_s: a.cache_time,
        chunks: a.chunks,
        batch: a.batch,
        duration: a.common.duration,
    };
    cfg.validate()?;
    stop_on_sigint();
    eprintln!(
        "pktlab: ccn producer on udp:{} for {} (Cefore dialect {}), {} B payload",
        cfg.listen,
        cfg.prefix,
        cfg.dialect.as_str(),
        cfg.payload
    );
    let mut last = 0;
    let r = live::run_producer(&cfg, &CTL, &mut |r| {
        eprintln!(
            "pktlab: {:>5.0} s  {:>9} Data/s  malformed {}  not ours {}",
            r.elapsed_s,
            r.interests - last,
            r.malformed,
            r.not_ours
        );
        last = r.interests;
    })?;
    print(a.common.json, &r, || {
        println!("dialect          {}", r.dialect);
        println!("elapsed_s        {:.2}", r.elapsed_s);
        println!("interests        {}", r.interests);
        println!("data_sent        {}", r.data_sent);
        println!(
            "malformed        {}  skipped {}  not_ours {}",
            r.malformed, r.skipped, r.not_ours
        );
    })
}
