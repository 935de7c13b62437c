//! `pktlab forward`: flags → [`pktlab_lab::forward::ForwardConfig`], run, print.

use crate::live::{secs, stop_flag};
use crate::progress::Bars;
use crate::size::parse_size;
use anyhow::{anyhow, Result};
use clap::Args;
use pktlab::io::{DEFAULT_V4_ROUTES, DEFAULT_V6_ROUTES};
use pktlab_lab::forward::{forward, forward_with_status, ForwardConfig, TableSpec};
use pktlab_lab::forward::{ForwardProgress, LiveStatus};
use pktlab_lab::router::{self, RouterConfig, RouterStatus};
use pktlab_lab::Event;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

/// Forward packets through the batched data plane (paper 001's message buffers with the
/// flow cache, Poptrie and AQM): rx port → parse → flow cache → LPM → TTL → AQM → tx port.
/// SIGINT / SIGTERM stop a run cleanly: the pcap output so far is kept, the summary printed
/// (`interrupted`), and a replay cut short exits with status 130.
#[derive(Args, Debug)]
pub struct ForwardArgs {
    /// Routing table: `synthetic` (1M IPv4 + 250K IPv6 routes) or a file (text, pyasn, MRT;
    /// repeat the flag for an IPv4 and an IPv6 table).
    #[arg(long, default_value = "synthetic")]
    table: Vec<String>,
    /// Next hops of routes that carry none: file, asn:N or hash:N.
    #[arg(long, default_value = "hash:16")]
    nexthops: String,
    /// Receive port: pcap:PATH, synthetic, null:LEN, afpacket:IFACE (a live interface),
    /// vhost-user:PATH[,client] (the switch side of a vhost-user socket, a queue pair per
    /// worker) or virtio-user:PATH (a CNF's virtio NIC); live ports run until SIGINT or
    /// --duration, with a status line on stderr every second.
    #[arg(long, default_value = "synthetic")]
    rx: String,
    /// Transmit port: null, pcap:PATH (the input's link type, ns timestamps), afpacket:IFACE,
    /// vhost-user:PATH[,client] or virtio-user:PATH.
    #[arg(long, default_value = "null")]
    tx: String,
    /// Packets per batch (burst), 1..=4096.
    #[arg(long, default_value = "32")]
    batch: String,
    /// Metadata layout: dpdk, compact-alloc or compact-constant.
    #[arg(long, default_value = "compact-constant")]
    meta: String,
    /// Metadata bytes per packet of the compact layouts: 0, 2, 4, 8, 16, 32 or 64.
    #[arg(long, default_value = "16")]
    meta_bytes: usize,
    /// Stages: io (rx → tx), l3 (parse + LPM + TTL), full (+ flow cache + AQM queue).
    #[arg(long, default_value = "full")]
    stages: String,
    /// Worker threads (flows spread by the Toeplitz RSS hash).
    #[arg(long, default_value = "1")]
    workers: usize,
    /// Flow-cache policy: lru, slru, hpcN, spc, random, fifo.
    #[arg(long, default_value = "hpc4")]
    cache: String,
    /// Flow-cache entries.
    #[arg(long, default_value = "1024")]
    cache_entries: String,
    /// AQM of the output queue: droptail, red, sred, zlred, choke, drr, fq_codel.
    #[arg(long, default_value = "zlred")]
    aqm: String,
    /// Output-queue buffer, packets.
    #[arg(long, default_value = "1024")]
    queue: String,
    /// Output link rate, bits/s (e.g. 10G, 40G).
    #[arg(long, default_value = "10G")]
    line_rate: String,
    /// BGP update stream (`A prefix [nh]` / `W prefix`) applied while forwarding.
    #[arg(long)]
    updates: Option<PathBuf>,
    /// Times the input is replayed.
    #[arg(long, default_value = "1")]
    repeat: String,
    /// Packets of the synthetic trace / of a null port.
    #[arg(long, default_value = "1M")]
    packets: String,
    /// Seed (synthetic trace, random policy).
    #[arg(long, default_value = "1")]
    seed: u64,
    /// Per-worker mempool cache size.
    #[arg(long, default_value = "512")]
    pool_cache: String,
    /// Live ports: stop after this many seconds (default: until SIGINT).
    #[arg(long, value_parser = secs)]
    duration: Option<Duration>,
    /// Live tx port: hold every packet this many milliseconds before it leaves (a
    /// propagation delay; needs --tx afpacket:IFACE and --workers 1).
    #[arg(long)]
    delay: Option<f64>,
    /// Live tx port: pace the output at this many Mb/s through --aqm with a buffer of
    /// --queue packets (a bottleneck link, before the --delay).
    #[arg(long)]
    rate: Option<f64>,
    /// Router ports (repeat the flag): afpacket:IFACE or afxdp:IFACE[,queue=N][,copy|zerocopy];
    /// needs --fib kernel. Each packet leaves by the port its route names.
    #[arg(long)]
    port: Vec<String>,
    /// `kernel`: the kernel's routes and neighbours over rtnetlink, followed live (the
    /// router mode; with --rx/--tx as the two-port shorthand when no --port is given).
    #[arg(long)]
    fib: Option<String>,
    /// A duplex switch between --rx vhost-user:A and --tx vhost-user:B: each worker also
    /// forwards B's receive to A's transmit, the two directions polled in turn.
    #[arg(long)]
    duplex: bool,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

fn size(flag: &str, s: &str) -> Result<u64> {
    parse_size(s).map_err(|e| anyhow!("--{flag} {s:?}: {e}"))
}

/// The once-a-second status line of a live run: rates over the last interval, drops so far.
fn live(cfg: &ForwardConfig, json: bool) -> Result<i32> {
    let last = Mutex::new(LiveStatus::default());
    let ready = std::sync::Once::new();
    let show = |p: &ForwardProgress| {
        let arrow = if cfg.duplex { "<->" } else { "->" };
        ready.call_once(|| eprintln!("forward: running, {} {arrow} {}", cfg.rx, cfg.tx));
        let mut g = last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(line) = g.line(p) {
            eprintln!("{line}");
        }
    };
    // No progress bar beside the status line; notes (skipped input lines) still go out.
    let notes = |e: Event<'_>| {
        if let Event::Note(m) = e {
            eprintln!("pktlab: {m}");
        }
    };
    let r = forward_with_status(cfg, &notes, Some(&show)).map_err(|e| anyhow!(e))?;
    print_result(&r, json)?;
    Ok(0)
}

/// `--fib kernel`: pktlab as a router between live ports.
fn router(a: &ForwardArgs) -> Result<i32> {
    let specs: Vec<&String> = if a.port.is_empty() {
        vec![&a.rx, &a.tx]
    } else {
        a.port.iter().collect()
    };
    let mut ports = Vec::new();
    for (i, p) in specs.iter().enumerate() {
        ports.push(
            p.parse()
                .map_err(|e| anyhow!("--port {} {p:?}: {e}", i + 1))?,
        );
    }
    let cfg = RouterConfig {
        ports,
        batch: size("batch", &a.batch)? as usize,
        duration: a.duration.map(|d| d.as_secs_f64()),
        stop: Some(stop_flag()),
        ..RouterConfig::default()
    };
    let mut prev = RouterStatus::default();
    let mut show = |s: &RouterStatus| {
        eprintln!("{}", s.line(&prev));
        prev = *s;
    };
    let r = router::router(&cfg, &mut show).map_err(|e| anyhow!(e))?;
    if a.json {
        println!("{}", serde_json::to_string(&r)?);
        return Ok(0);
    }
    let d = r.dropped;
    println!(
        "{} packets, {} forwarded; dropped: parse {}, ttl {}, no route {}, neighbour unresolved {}, no port {}; CPU {:.2} s in {:.1} s",
        r.packets, r.forwarded, d.parse, d.ttl, d.no_route, d.neigh_unresolved, d.no_port, r.cpu_seconds, r.seconds
    );
    let f = r.fib;
    println!(
        "fib: {} IPv4 + {} IPv6 routes, {} neighbours, {} updates applied (lag mean {:.0} us, max {} us), {} probes",
        f.routes_v4, f.routes_v6, f.neighbours, f.updates_applied, f.lag_mean_us, f.lag_max_us, f.probes
    );
    for p in &r.ports {
        println!("{}: {}", p.port, serde_json::to_string(&p.stats)?);
    }
    Ok(0)
}

/// Runs `pktlab forward`.
pub fn run(a: ForwardArgs) -> Result<i32> {
    match a.fib.as_deref() {
        Some(_) if a.duplex => {
            return Err(anyhow!(
            "--duplex is for two vhost-user ports without --fib (a router's ports are all duplex)"
        ))
        }
        Some("kernel") => return router(&a),
        Some(o) => {
            return Err(anyhow!(
                "--fib {o:?}: expected kernel (file tables: --table)"
            ))
        }
        None if !a.port.is_empty() => {
            return Err(anyhow!(
                "--port needs --fib kernel (file tables have no interfaces or neighbours)"
            ))
        }
        None => {}
    }
    let table = if a.table.len() == 1 && a.table[0] == "synthetic" {
        TableSpec::Synthetic(DEFAULT_V4_ROUTES, DEFAULT_V6_ROUTES)
    } else {
        TableSpec::Files(a.table.iter().map(PathBuf::from).collect())
    };
    let line_rate = {
        let s = a.line_rate.trim_end_matches(['b', 'p', 's', '/']);
        let (num, mul) = match s.chars().last() {
            Some('G') | Some('g') => (&s[..s.len() - 1], 1e9),
            Some('M') | Some('m') => (&s[..s.len() - 1], 1e6),
            Some('K') | Some('k') => (&s[..s.len() - 1], 1e3),
            _ => (s, 1.0),
        };
        let v: f64 = num
            .parse()
            .map_err(|_| anyhow!("--line-rate {:?}: expected bits/s like 10G", a.line_rate))?;
        (v * mul) as u64
    };
    let cfg = ForwardConfig {
        table,
        nexthops: a
            .nexthops
            .parse()
            .map_err(|e| anyhow!("--nexthops {:?}: {e}", a.nexthops))?,
        rx: a
            .rx
            .parse()
            .map_err(|e: pktlab::port::PortError| anyhow!("--rx: {e}"))?,
        tx: a
            .tx
            .parse()
            .map_err(|e: pktlab::port::PortError| anyhow!("--tx: {e}"))?,
        batch: size("batch", &a.batch)? as usize,
        meta: a
            .meta
            .parse()
            .map_err(|e: pktlab::mbuf::MbufError| anyhow!("--meta: {e}"))?,
        meta_bytes: a.meta_bytes,
        stages: a
            .stages
            .parse()
            .map_err(|e: pktlab::pipeline::PipelineError| anyhow!("--stages: {e}"))?,
        workers: a.workers,
        cache: a.cache.to_ascii_lowercase(),
        cache_entries: size("cache-entries", &a.cache_entries)? as usize,
        aqm: a.aqm,
        queue: size("queue", &a.queue)? as usize,
        line_rate,
        updates: a.updates,
        repeat: size("repeat", &a.repeat)?,
        packets: size("packets", &a.packets)?,
        seed: a.seed,
        pool_cache: size("pool-cache", &a.pool_cache)? as usize,
        duration: a.duration.map(|d| d.as_secs_f64()),
        // SIGINT / SIGTERM stop the run cleanly: a live run ends, a replay stops before its
        // next batch; the output so far is finalised and the summary printed.
        stop: Some(stop_flag()),
        delay_ms: a.delay,
        rate_mbps: a.rate,
        duplex: a.duplex,
        ..ForwardConfig::default()
    };
    if cfg.live() {
        return live(&cfg, a.json);
    }
    let r = forward(&cfg, &Bars::new())?;
    print_result(&r, a.json)?;
    // A replay cut short by a signal: its summary is printed, the exit status says so.
    Ok(if r.interrupted { 130 } else { 0 })
}

fn print_result(r: &pktlab_lab::forward::ForwardResult, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(&r)?);
        return Ok(());
    }
    if r.interrupted {
        println!("interrupted: the counts (and a pcap output) cover the run up to the signal");
    }
    let d = r.dropped;
    println!(
        "{} packets ({} → {}), {} forwarded; dropped: parse {}, ttl {}, no route {}, aqm {}, port {}",
        r.packets, r.rx, r.tx, r.forwarded, d.parse, d.ttl, d.no_route, d.aqm, d.port
    );
    for d in &r.directions {
        println!(
            "{} → {}: {} packets, {} forwarded, {} bursts",
            d.from, d.to, d.packets, d.forwarded, d.batches
        );
    }
    if let Some(l) = r.delay_line {
        println!(
            "delay line: {} offered, {} released, aqm drops {}, line drops {}; queue mean {:.1} max {} packets",
            l.offered, l.released, l.aqm_drops, l.line_drops, l.mean_queue, l.max_queue
        );
    }
    if let Some(l) = r.live {
        println!(
            "live ports: kernel rx-ring drops {}, tx ring full {}, refused {}, oversize {}; CPU {:.2} s",
            l.rx_ring_drops, l.tx_ring_full, l.tx_rejected, l.rx_oversize, r.cpu_seconds
        );
    }
    println!(
        "{:.2} Mpps, {:.1} ns/packet ({} worker{}, {:.3} s; setup {:.1} s)",
        r.mpps,
        r.ns_per_packet,
        r.workers,
        if r.workers == 1 { "" } else { "s" },
        r.seconds,
        r.setup_seconds
    );
    println!(
        "stages {}, batch {}, meta {} ({} B/packet), cache {}{}",
        r.stages,
        r.batch,
        r.meta,
        r.meta_bytes,
        r.cache.policy,
        r.cache
            .hit_rate
            .map(|h| format!(" (hit rate {:.4})", h))
            .unwrap_or_default()
    );
    if let Some(u) = &r.updates {
        let skipped = if u.skipped > 0 {
            format!("; {} unusable lines skipped", u.skipped)
        } else {
            String::new()
        };
        println!(
            "route updates: {} of {} applied in {} publications{skipped}",
            u.applied, u.total, u.publishes
        );
    }
    for s in r.inputs.iter().filter_map(|i| i.summary()) {
        println!("input {s}");
    }
    println!(
        "max RSS {:.1} MiB",
        r.max_rss_bytes as f64 / (1 << 20) as f64
    );
    Ok(())
}
