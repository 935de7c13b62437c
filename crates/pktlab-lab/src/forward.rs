//! `pktlab forward`: the batched data plane of paper 001 run end to end — ports, message
//! buffers with the chosen metadata layout, parse, flow cache (paper 000), Poptrie (paper
//! 004), AQM (paper 002) — on `workers` threads fed by RSS, with an optional BGP update stream
//! applied to the shared Poptrie while they forward.
//!
//! [`forward`] takes a [`ForwardConfig`] and returns a [`ForwardResult`] (what the CLI prints
//! with `--json`). Everything that is not forwarding — reading the capture, building the
//! frames and the tables, allocating the pool — happens before the clock starts; the timed
//! part is the workers' loops from a common start barrier to the last worker's end.
//!
//! With live ports (`--rx afpacket:A --tx afpacket:B`, [`pktlab::port::afpacket`]) the run
//! lasts until [`ForwardConfig::duration`] passes or [`ForwardConfig::stop`] is set (the CLI
//! sets it on SIGINT); each worker has its own rx socket (joined in one `PACKET_FANOUT_HASH`
//! group when there are several) and its own tx ring, and the progress reports carry the
//! ports' counters for a once-a-second status line.

use super::{check, Error, Progress, Result};
use pktlab::aqm::{AqmParamSet, AqmSpec};
use pktlab::io::{read_table, read_updates, synthetic_table, NextHopScheme, Update};
use pktlab::io::{DEFAULT_V4_ROUTES, DEFAULT_V6_ROUTES};
use pktlab::lpm::shared::{concurrent, LpmWriter, Op};
use pktlab::lpm::{Lpm, Poptrie, PoptrieConfig};
use pktlab::mbuf::{CompactAlloc, CompactConst, Dpdk, Layout, MetaKind, META_SIZES};
use pktlab::net::{Address, NextHop, Prefix};
use pktlab::pipeline::nhcache::AnyCache;
use pktlab::pipeline::parse::LinkKind;
use pktlab::pipeline::queue::{Link, OutQueue};
use pktlab::pipeline::worker::{Tables, Worker, WorkerParts};
use pktlab::pipeline::{Counters, Stages};
use pktlab::port::afpacket::{PortCounters, PortStats};
use pktlab::port::delay::{line_capacity, DelayStats, DelayTx};
use pktlab::port::mem::{load_pcap, load_synthetic, LoadReport, MemFrames};
use pktlab::port::{AfPacketRx, AfPacketTx};
use pktlab::port::{AnyRx, AnyTx, CaptureTx, MemRx, NullRx, NullTx, RxSpec, TxSpec};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// The routing tables to forward with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableSpec {
    /// pktlab's synthetic full tables (IPv4 and IPv6), with `(v4, v6)` routes.
    Synthetic(usize, usize),
    /// Table files (text, pyasn or MRT; each file's family is detected).
    Files(Vec<PathBuf>),
}

/// What to run.
#[derive(Clone, Debug)]
pub struct ForwardConfig {
    /// Routing tables (default: synthetic, 1M IPv4 + 250K IPv6 routes).
    pub table: TableSpec,
    /// Next hops of routes whose input has none (default `hash:16`).
    pub nexthops: NextHopScheme,
    /// Poptrie configuration (default poptrie18).
    pub algo: PoptrieConfig,
    /// Receive port (default `synthetic`).
    pub rx: RxSpec,
    /// Transmit port (default `null`).
    pub tx: TxSpec,
    /// Packets per batch, 1…4096 (default 32, DPDK's burst).
    pub batch: usize,
    /// Metadata layout (default compact-constant).
    pub meta: MetaKind,
    /// Metadata bytes per packet of the compact layouts (0, 2, 4, 8, 16, 32, 64; default 16;
    /// l3/full need ≥ 16 for length, RSS hash and timestamp).
    pub meta_bytes: usize,
    /// Stages (default full).
    pub stages: Stages,
    /// Worker threads (default 1).
    pub workers: usize,
    /// Flow-cache policy (default hpc4) and entries (default 1024).
    pub cache: String,
    /// Flow-cache entries.
    pub cache_entries: usize,
    /// AQM discipline of the output queue (default zlred).
    pub aqm: String,
    /// Output-queue buffer, packets (default 1024).
    pub queue: usize,
    /// Output link rate, bits/s (default 10 Gb/s).
    pub line_rate: u64,
    /// BGP update stream (`A prefix [nh]` / `W prefix` lines) applied while forwarding.
    pub updates: Option<PathBuf>,
    /// Times the input is replayed (default 1).
    pub repeat: u64,
    /// Packets of the synthetic trace, or of `null:LEN` per run (default 1M).
    pub packets: u64,
    /// Seed of the synthetic trace and the random policy.
    pub seed: u64,
    /// Per-worker mempool cache size (default 512, DPDK's maximum).
    pub pool_cache: usize,
    /// Live ports: stop after this many seconds (default: until `stop`).
    pub duration: Option<f64>,
    /// Live ports: set to stop the run (e.g. from a SIGINT handler).
    pub stop: Option<Arc<AtomicBool>>,
    /// Live tx port: hold every packet this many milliseconds before it leaves
    /// (`--delay MS`, a propagation delay; [`pktlab::port::delay`]).
    pub delay_ms: Option<f64>,
    /// Live tx port: pace the output at this many Mb/s through the `aqm` discipline with a
    /// buffer of `queue` packets (`--rate MBPS`, a bottleneck link; [`pktlab::port::delay`]).
    pub rate_mbps: Option<f64>,
}

impl Default for ForwardConfig {
    fn default() -> Self {
        ForwardConfig {
            table: TableSpec::Synthetic(DEFAULT_V4_ROUTES, DEFAULT_V6_ROUTES),
            nexthops: NextHopScheme::Hash(16),
            algo: PoptrieConfig::new(18),
            rx: RxSpec::Synthetic,
            tx: TxSpec::Null,
            batch: 32,
            meta: MetaKind::CompactConst,
            meta_bytes: 16,
            stages: Stages::Full,
            workers: 1,
            cache: "hpc4".into(),
            cache_entries: 1024,
            aqm: "zlred".into(),
            queue: 1024,
            line_rate: 10_000_000_000,
            updates: None,
            repeat: 1,
            packets: 1_000_000,
            seed: 1,
            pool_cache: 512,
            duration: None,
            stop: None,
            delay_ms: None,
            rate_mbps: None,
        }
    }
}

/// Drops by reason (the JSON shape).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Dropped {
    /// Not IP, malformed, bad IPv4 header checksum, or too large for a buffer.
    pub parse: u64,
    /// TTL / hop limit ≤ 1.
    pub ttl: u64,
    /// No route.
    pub no_route: u64,
    /// Dropped by the output queue's AQM.
    pub aqm: u64,
    /// Dropped at a live tx port: ring full, or the frame refused.
    pub port: u64,
    /// Dropped because the delay line's propagation line was full (`--delay` without
    /// `--rate` only; its AQM's drops are in `aqm`).
    pub delay: u64,
}

/// The parse drops by cause.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct ParseDetail {
    /// Not IP.
    pub non_ip: u64,
    /// Cut or inconsistent IP header.
    pub malformed: u64,
    /// Bad IPv4 header checksum.
    pub checksum: u64,
    /// Frames that do not fit a buffer's data room (or of a second link type), dropped when
    /// the input was loaded.
    pub unloadable: u64,
}

/// Flow-cache summary.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct CacheStats {
    /// Policy name (`none` without a cache).
    pub policy: String,
    /// Validated hits / lookups (null without a cache).
    pub hit_rate: Option<f64>,
}

/// Route updates applied during the run.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct UpdateStats {
    /// Updates in the stream.
    pub total: u64,
    /// Updates applied before the workers finished.
    pub applied: u64,
    /// Publications (each bumps the cache epoch).
    pub publishes: u64,
}

/// One worker's share.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct WorkerStats {
    /// Packets received.
    pub packets: u64,
    /// Seconds of its loop.
    pub seconds: f64,
}

/// What a run measured (field names are the JSON keys).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ForwardResult {
    /// Packets received (all replays), including frames dropped when loading.
    pub packets: u64,
    /// Packets transmitted.
    pub forwarded: u64,
    /// Drops by reason; `packets = forwarded + parse + ttl + no_route + aqm + port`.
    pub dropped: Dropped,
    /// Million packets per second: packets / wall time of the slowest worker.
    pub mpps: f64,
    /// Worker time per packet, ns (sum of the workers' loop times / packets).
    pub ns_per_packet: f64,
    /// Flow cache.
    pub cache: CacheStats,
    /// Packets per batch.
    pub batch: usize,
    /// Metadata layout.
    pub meta: String,
    /// Metadata bytes per packet.
    pub meta_bytes: usize,
    /// Stages run.
    pub stages: String,
    /// Workers.
    pub workers: usize,
    /// Parse drops by cause.
    pub parse_detail: ParseDetail,
    /// Wall time of the forwarding, s.
    pub seconds: f64,
    /// Setup time (input, tables, pool), s.
    pub setup_seconds: f64,
    /// Receive port.
    pub rx: String,
    /// Transmit port.
    pub tx: String,
    /// Routes loaded (IPv4, IPv6).
    pub routes: (usize, usize),
    /// Route updates, when a stream was given.
    pub updates: Option<UpdateStats>,
    /// Per worker.
    pub per_worker: Vec<WorkerStats>,
    /// Buffers in the pool and bytes per buffer.
    pub pool: (u32, usize),
    /// Batches processed.
    pub batches: u64,
    /// 1-minute load average when the run ended (the machine is shared).
    pub load: Option<f64>,
    /// CPU time of the process during the run (user + system), s.
    pub cpu_seconds: f64,
    /// Live ports: their counters summed over the workers (the kernel's rx ring drops
    /// happen before pktlab sees a packet, so they are not in `packets`).
    pub live: Option<PortStats>,
    /// The delay line's counts (`--delay` / `--rate`).
    pub delay_line: Option<DelayStats>,
}

/// A progress report (sent about every 0.2 s while forwarding).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForwardProgress {
    /// Packets received so far.
    pub done: u64,
    /// Packets the run will receive.
    pub total: u64,
    /// Seconds since the start.
    pub seconds: f64,
    /// Live ports: their counters so far, summed over the workers.
    pub live: Option<PortStats>,
}

/// The once-a-second live status line: rates over the last second from successive
/// [`ForwardProgress`] reports (what `pktlab forward --rx afpacket:…` prints on stderr).
#[derive(Clone, Copy, Debug, Default)]
pub struct LiveStatus {
    seconds: f64,
    done: u64,
    ports: PortStats,
}

impl LiveStatus {
    /// The status line for `p` when a second or more has passed since the last one (live
    /// ports only), else `None`.
    pub fn line(&mut self, p: &ForwardProgress) -> Option<String> {
        let l = p.live?;
        if p.seconds - self.seconds < 1.0 {
            return None;
        }
        let dt = p.seconds - self.seconds;
        let rx = (p.done - self.done) as f64 / dt;
        let tx = (l.tx - self.ports.tx) as f64 / dt;
        let line = format!(
            "forward {:6.1} s  rx {:>9.0} pps  tx {:>9.0} pps  | total rx {} tx {}  drops: rx-ring {} tx-ring {} pipeline {}",
            p.seconds,
            rx,
            tx,
            p.done,
            l.tx,
            l.rx_ring_drops,
            l.tx_ring_full + l.tx_rejected,
            p.done.saturating_sub(l.tx + l.tx_ring_full + l.tx_rejected)
        );
        *self = LiveStatus {
            seconds: p.seconds,
            done: p.done,
            ports: l,
        };
        Some(line)
    }
}

/// CPU time (user + system) of this process so far, s.
pub(crate) fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn live_stats(c: &[Arc<PortCounters>]) -> Option<PortStats> {
    if c.is_empty() {
        return None;
    }
    let mut s = PortStats::default();
    for x in c {
        s.add(&x.snapshot());
    }
    Some(s)
}

fn load_avg() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Routes of one family for the run.
type Routes<A> = Vec<(Prefix<A>, NextHop)>;

fn load_tables(cfg: &ForwardConfig) -> Result<(Routes<u32>, Routes<u128>), String> {
    match &cfg.table {
        TableSpec::Synthetic(n4, n6) => {
            let f4 = synthetic_table::<u32>(*n4, cfg.seed, &cfg.nexthops);
            let f6 = synthetic_table::<u128>(*n6, cfg.seed, &cfg.nexthops);
            Ok((
                f4.into_iter().map(|r| (r.prefix, r.nexthop)).collect(),
                f6.into_iter().map(|r| (r.prefix, r.nexthop)).collect(),
            ))
        }
        TableSpec::Files(paths) => {
            let (mut v4, mut v6) = (Vec::new(), Vec::new());
            for p in paths {
                match read_table::<u32>(p, &cfg.nexthops) {
                    Ok(t) if !t.routes.is_empty() => {
                        v4.extend(t.routes.iter().map(|r| (r.prefix, r.nexthop)))
                    }
                    _ => {
                        let t = read_table::<u128>(p, &cfg.nexthops).map_err(|e| e.to_string())?;
                        if t.routes.is_empty() {
                            return Err(format!(
                                "--table: {}: no IPv4 or IPv6 routes (a table needs at least one)",
                                p.display()
                            ));
                        }
                        v6.extend(t.routes.iter().map(|r| (r.prefix, r.nexthop)));
                    }
                }
            }
            Ok((v4, v6))
        }
    }
}

fn ops<A: Address>(u: &[Update<A>]) -> Vec<Op<A>> {
    u.iter()
        .map(|u| match *u {
            Update::Announce(p, nh) => Op::Insert(p, nh),
            Update::Withdraw(p) => Op::Remove(p),
        })
        .collect()
}

/// Applies `ops` to `w` in publications of `chunk`, bumping `epoch` after each, until done
/// or `stop`; returns (applied, publishes).
fn apply_updates<A: Address>(
    w: &mut LpmWriter<A, Poptrie<A>>,
    ops: &[Op<A>],
    epoch: &AtomicU64,
    stop: &AtomicBool,
) -> (u64, u64) {
    let (mut applied, mut publishes) = (0, 0);
    for chunk in ops.chunks(64) {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        for op in chunk {
            w.apply(*op);
        }
        w.publish();
        epoch.fetch_add(1, Ordering::Release);
        applied += chunk.len() as u64;
        publishes += 1;
    }
    (applied, publishes)
}

impl ForwardConfig {
    /// True when the tx port sits behind a delay line (`--delay` or `--rate`).
    pub fn delay_line(&self) -> bool {
        self.delay_ms.is_some() || self.rate_mbps.is_some()
    }

    /// The delay line's (delay ns, rate bits/s, line capacity in packets).
    fn delay_params(&self) -> (u64, Option<u64>, usize) {
        let delay_ns = (self.delay_ms.unwrap_or(0.0) * 1e6).round() as u64;
        let rate = self.rate_mbps.map(|r| (r * 1e6).round() as u64);
        (delay_ns, rate, line_capacity(delay_ns, rate, self.queue))
    }

    /// Refuses impossible values (one-line error naming the flag and the accepted range).
    pub fn validate(&self) -> crate::Result<()> {
        let cfg = self;
        check::int_range("--batch", cfg.batch as u64, 1, 4096)?;
        check::int_range("--workers", cfg.workers as u64, 1, 64)?;
        if cfg.meta != MetaKind::Dpdk {
            check::require(META_SIZES.contains(&cfg.meta_bytes), "--meta-bytes", || {
                format!(
                    "must be one of 0, 2, 4, 8, 16, 32, 64 (got {})",
                    cfg.meta_bytes
                )
            })?;
        }
        let meta_bytes = if cfg.meta == MetaKind::Dpdk {
            128
        } else {
            cfg.meta_bytes
        };
        check::require(
            cfg.stages == Stages::Io || meta_bytes >= 16,
            "--meta-bytes",
            || {
                format!(
                "--stages {} keeps length, RSS hash and timestamp per packet and needs at least 16 (got {meta_bytes})",
                cfg.stages.name()
            )
            },
        )?;
        check::require(
            !matches!(cfg.tx, TxSpec::Pcap(_)) || meta_bytes >= 2,
            "--meta-bytes",
            || {
                format!("--tx pcap:PATH needs the packet length in the metadata: at least 2 (got {meta_bytes})")
            },
        )?;
        check::int_range("--repeat", cfg.repeat, 1, 1 << 32)?;
        check::int_range("--packets", cfg.packets, 1, 1 << 40)?;
        check::require(
            cfg.updates.is_none() || cfg.stages != Stages::Io,
            "--updates",
            || "needs --stages l3 or full (io does no lookup)".into(),
        )?;
        check::int_range("--line-rate", cfg.line_rate, 1, 1 << 50)?;
        check::int_range("--queue", cfg.queue as u64, 1, 1 << 24)?;
        check::int_range("--cache-entries", cfg.cache_entries as u64, 1, 1 << 28)?;
        check::int_range("--pool-cache", cfg.pool_cache as u64, 0, 512)?;
        if let Some(d) = cfg.duration {
            check::positive("--duration", d)?;
        }
        if let Some(d) = cfg.delay_ms {
            check::real_range("--delay", d, 0.0, 10_000.0)?;
        }
        if let Some(r) = cfg.rate_mbps {
            check::real_range("--rate", r, 0.001, 100_000.0)?;
        }
        if cfg.delay_line() {
            check::require(matches!(cfg.tx, TxSpec::AfPacket(_)), "--delay", || {
                "--delay and --rate need a live transmit port (--tx afpacket:IFACE)".into()
            })?;
            check::require(cfg.workers == 1, "--workers", || {
                format!(
                    "--delay and --rate emulate one link: they need --workers 1 (got {})",
                    cfg.workers
                )
            })?;
            AqmSpec::parse_with(&cfg.aqm, &AqmParamSet::default()).map_err(Error::param)?;
        }
        let live = matches!(cfg.rx, RxSpec::AfPacket(_)) || matches!(cfg.tx, TxSpec::AfPacket(_));
        check::require(!live || meta_bytes >= 2, "--meta-bytes", || {
            format!("afpacket ports need the packet length in the metadata: at least 2 (got {meta_bytes})")
        })?;
        if let TableSpec::Synthetic(v4, v6) = cfg.table {
            check::require(v4 + v6 > 0, "--table", || {
                "a synthetic table needs at least one route".into()
            })?;
        }
        Ok(())
    }
}

/// Runs the data plane as `cfg` says and reports. Progress: one step (`forward`, packets
/// received out of the run's total), updated from the calling thread about every 0.2 s while
/// the workers run. Bad parameters are [`Error::Param`]s naming the flag; a file that cannot be
/// read or written, or a worker that fails, is an [`Error::Run`] naming it.
pub fn forward(cfg: &ForwardConfig, progress: &dyn Progress) -> Result<ForwardResult> {
    forward_with_status(cfg, progress, None)
}

/// A status callback of [`forward_with_status`]: called about every 0.1 s (live ports) or
/// 0.2 s with the packets so far and the live ports' counters (for a once-a-second line).
pub type StatusFn<'a> = &'a (dyn Fn(&ForwardProgress) + Sync);

/// [`forward`], with `status` also called on every progress tick (the CLI's live status line).
pub fn forward_with_status(
    cfg: &ForwardConfig,
    progress: &dyn Progress,
    status: Option<StatusFn<'_>>,
) -> Result<ForwardResult> {
    cfg.validate()?;
    let r = match (cfg.meta, cfg.meta_bytes) {
        (MetaKind::Dpdk, _) => run::<Dpdk>(cfg, progress, status),
        (MetaKind::CompactAlloc, 0) => run::<CompactAlloc<0>>(cfg, progress, status),
        (MetaKind::CompactAlloc, 2) => run::<CompactAlloc<2>>(cfg, progress, status),
        (MetaKind::CompactAlloc, 4) => run::<CompactAlloc<4>>(cfg, progress, status),
        (MetaKind::CompactAlloc, 8) => run::<CompactAlloc<8>>(cfg, progress, status),
        (MetaKind::CompactAlloc, 16) => run::<CompactAlloc<16>>(cfg, progress, status),
        (MetaKind::CompactAlloc, 32) => run::<CompactAlloc<32>>(cfg, progress, status),
        (MetaKind::CompactAlloc, _) => run::<CompactAlloc<64>>(cfg, progress, status),
        (MetaKind::CompactConst, 0) => run::<CompactConst<0>>(cfg, progress, status),
        (MetaKind::CompactConst, 2) => run::<CompactConst<2>>(cfg, progress, status),
        (MetaKind::CompactConst, 4) => run::<CompactConst<4>>(cfg, progress, status),
        (MetaKind::CompactConst, 8) => run::<CompactConst<8>>(cfg, progress, status),
        (MetaKind::CompactConst, 16) => run::<CompactConst<16>>(cfg, progress, status),
        (MetaKind::CompactConst, 32) => run::<CompactConst<32>>(cfg, progress, status),
        (MetaKind::CompactConst, _) => run::<CompactConst<64>>(cfg, progress, status),
    };
    r.map_err(Error::Run)
}

fn run<L: Layout>(
    cfg: &ForwardConfig,
    progress: &dyn Progress,
    status: Option<StatusFn<'_>>,
) -> Result<ForwardResult, String> {
    let t_setup = Instant::now();
    let w = cfg.workers;
    // Input.
    let (queues, rep): (Option<Vec<MemFrames>>, LoadReport) = match &cfg.rx {
        RxSpec::Null(len) => (
            None,
            LoadReport {
                path: format!("null:{len}"),
                linktype: pktlab::io::pcap_write::LINKTYPE_ETHERNET,
                ..LoadReport::default()
            },
        ),
        RxSpec::Synthetic => {
            let (q, r) = load_synthetic(cfg.packets, cfg.seed, w);
            (Some(q), r)
        }
        RxSpec::Pcap(p) => {
            let (q, r) = load_pcap(p, w).map_err(|e| e.to_string())?;
            if r.frames == 0 {
                return Err(format!("{}: no packet in the capture", p.display()));
            }
            (Some(q), r)
        }
        RxSpec::AfPacket(i) => (
            None,
            LoadReport {
                path: format!("afpacket:{i}"),
                linktype: pktlab::io::pcap_write::LINKTYPE_ETHERNET,
                ..LoadReport::default()
            },
        ),
    };
    let live_rx = matches!(cfg.rx, RxSpec::AfPacket(_));
    let stop_rx = Arc::new(AtomicBool::new(false));
    // One fanout group per run (the kernel keys groups by id per network namespace).
    let fanout = (w > 1).then(|| (std::process::id() as u16) ^ 0x5a5a);
    let mut counters: Vec<Arc<PortCounters>> = Vec::new();
    let link = LinkKind::of(rep.linktype);
    // Tables.
    let epoch = Arc::new(AtomicU64::new(0));
    let mut routes = (0, 0);
    let mut writers = None;
    let mut tables = None;
    if cfg.stages != Stages::Io {
        let (r4, r6) = load_tables(cfg)?;
        routes = (r4.len(), r6.len());
        let mut t4 = Poptrie::<u32>::new(cfg.algo);
        t4.build(&r4);
        let mut t6 = Poptrie::<u128>::new(cfg.algo);
        t6.build(&r6);
        let (w4, rd4) = concurrent::<u32, _>(t4);
        let (w6, rd6) = concurrent::<u128, _>(t6);
        writers = Some((w4, w6));
        tables = Some(Tables {
            v4: Some(rd4),
            v6: Some(rd6),
            epoch: epoch.clone(),
        });
    }
    let (ops4, ops6) = match &cfg.updates {
        None => (Vec::new(), Vec::new()),
        Some(p) => {
            let scheme = match cfg.nexthops {
                NextHopScheme::Asn(_) => NextHopScheme::Hash(16),
                s => s,
            };
            match read_updates::<u32>(p, &scheme) {
                Ok((u, _)) if !u.is_empty() => (ops(&u), Vec::new()),
                _ => {
                    let (u, _) = read_updates::<u128>(p, &scheme).map_err(|e| e.to_string())?;
                    (Vec::new(), ops(&u))
                }
            }
        }
    };
    // Pool: enough for every worker's cache, two batches in flight and a full queue.
    let (delay_ns, rate_bps, line_cap) = cfg.delay_params();
    let held = if cfg.delay_line() {
        cfg.queue + line_cap
    } else {
        0
    };
    let per_worker = 2 * cfg.pool_cache + 2 * cfg.batch + cfg.queue + held + 256;
    let count = u32::try_from(per_worker * w).map_err(|_| "pool too large".to_string())?;
    let pool = Arc::new(L::mbuf_pool(count));
    let shared = Arc::new(L::shared(cfg.batch, w));
    let aqm_spec = if cfg.stages == Stages::Full && !cfg.delay_line() {
        Some(AqmSpec::parse_with(&cfg.aqm, &AqmParamSet::default())?)
    } else {
        None
    };
    // Workers.
    let shift = {
        let (a, b) = rep.ts_range;
        let n = rep.frames.max(1);
        (b - a) + (b - a) / n + 1
    };
    let mut workers = Vec::with_capacity(w);
    let mut totals = 0u64;
    let mut queues = queues.map(|q| q.into_iter());
    for i in 0..w {
        let rx = match (&mut queues, &cfg.rx) {
            (_, RxSpec::AfPacket(iface)) => {
                let mut p = AfPacketRx::open(iface, 0, fanout, stop_rx.clone())?;
                if cfg.delay_line() {
                    // Come back to the delay line at least every millisecond.
                    p.set_idle_poll_ms(1);
                }
                counters.push(p.counters());
                AnyRx::AfPacket(p)
            }
            (Some(q), _) => {
                let f = q.next().unwrap_or_default();
                let m = MemRx::new(f, 0, cfg.repeat, shift);
                totals += m.total();
                AnyRx::Mem(m)
            }
            (None, _) => {
                let n = cfg.packets * cfg.repeat / w as u64
                    + u64::from((i as u64) < cfg.packets * cfg.repeat % w as u64);
                totals += n;
                AnyRx::Null(NullRx::new(
                    match cfg.rx {
                        RxSpec::Null(l) => l,
                        _ => 64,
                    },
                    0,
                    n,
                ))
            }
        };
        let tx = match &cfg.tx {
            TxSpec::Null => AnyTx::Null(NullTx::default()),
            TxSpec::Pcap(_) => AnyTx::Capture(CaptureTx::with_capacity(0, 0)),
            TxSpec::AfPacket(iface) => {
                let p = AfPacketTx::open(iface, false)?;
                counters.push(p.counters());
                if cfg.delay_line() {
                    let link = match rate_bps {
                        Some(r) => {
                            let spec = AqmSpec::parse_with(&cfg.aqm, &AqmParamSet::default())?;
                            // RED's idle correction: a 1500-byte frame's time at the rate.
                            let pkt_time = 1500 * 8 * 1_000_000_000 / r.max(1);
                            Some((r, spec.build(cfg.queue, pkt_time, cfg.seed + i as u64)?))
                        }
                        None => None,
                    };
                    AnyTx::Delay(Box::new(DelayTx::new(p, delay_ns, link, line_cap, count)))
                } else {
                    AnyTx::AfPacket(p)
                }
            }
        };
        let fcache = if cfg.stages == Stages::Full {
            Some(AnyCache::new(
                &cfg.cache,
                cfg.cache_entries,
                None,
                cfg.seed,
            )?)
        } else {
            None
        };
        let queue = match &aqm_spec {
            Some(spec) => {
                let link = Link::new(cfg.line_rate, count);
                let disc = spec.build(cfg.queue, link.pkt_time(), cfg.seed + i as u64)?;
                Some(OutQueue {
                    disc,
                    link,
                    drops: Default::default(),
                })
            }
            None => None,
        };
        let parts = WorkerParts {
            pool: pool.clone(),
            cache_size: cfg.pool_cache,
            batch: cfg.batch,
            stages: cfg.stages,
            link,
            tables: tables.clone(),
            fcache,
            queue,
            progress: Arc::new(AtomicU64::new(0)),
            router: None,
        };
        let layout = L::new(shared.clone(), cfg.batch);
        workers.push(Worker::new(parts, layout, rx, tx, cfg.queue));
    }
    let setup_seconds = t_setup.elapsed().as_secs_f64();
    let progress_of: Vec<Arc<AtomicU64>> = workers.iter().map(|wk| wk.progress()).collect();
    // Run.
    let barrier = Barrier::new(w + 1);
    let stop = AtomicBool::new(false);
    let finished = AtomicU64::new(0);
    let cpu0 = cpu_seconds();
    let t0 = Instant::now();
    let (results, upd) = std::thread::scope(|s| {
        let handles: Vec<_> = workers
            .into_iter()
            .map(|mut wk| {
                let (barrier, finished) = (&barrier, &finished);
                s.spawn(move || {
                    barrier.wait();
                    let t = Instant::now();
                    wk.run();
                    let secs = t.elapsed().as_secs_f64();
                    finished.fetch_add(1, Ordering::Release);
                    (wk.counters, secs, wk.into_tx())
                })
            })
            .collect();
        // Without an update stream the writers just stay alive (readers need them).
        let (writers, _idle) = if cfg.updates.is_some() {
            (writers, None)
        } else {
            (None, writers)
        };
        let upd = writers.map(|(mut w4, mut w6)| {
            let (epoch, stop, barrier) = (&epoch, &stop, &barrier);
            let (ops4, ops6) = (&ops4, &ops6);
            s.spawn(move || {
                barrier.wait();
                let a = apply_updates(&mut w4, ops4, epoch, stop);
                let b = apply_updates(&mut w6, ops6, epoch, stop);
                // Keep the writers alive until every worker is done.
                while !stop.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                drop((w4, w6));
                (a.0 + b.0, a.1 + b.1)
            })
        });
        if upd.is_none() {
            barrier.wait();
        }
        progress.start("forward", Some(totals));
        while finished.load(Ordering::Acquire) < w as u64 {
            std::thread::sleep(Duration::from_millis(if live_rx { 100 } else { 200 }));
            let done = progress_of.iter().map(|p| p.load(Ordering::Relaxed)).sum();
            progress.set(done);
            let seconds = t0.elapsed().as_secs_f64();
            if let Some(status) = status {
                status(&ForwardProgress {
                    done,
                    total: totals,
                    seconds,
                    live: live_stats(&counters),
                });
            }
            let asked = cfg.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed));
            if asked || cfg.duration.is_some_and(|d| seconds >= d) {
                stop_rx.store(true, Ordering::Relaxed);
            }
        }
        progress.finish();
        stop.store(true, Ordering::Release);
        let results: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
        let upd = upd.map(|h| h.join());
        (results, upd)
    });
    let cpu_seconds = cpu_seconds() - cpu0;
    let mut total = Counters::default();
    let mut per = Vec::with_capacity(w);
    let mut captures = Vec::new();
    let mut delay_line: Option<DelayStats> = None;
    let (mut wall, mut busy) = (0f64, 0f64);
    for r in results {
        let (c, secs, tx) = r.map_err(|_| "a worker panicked".to_string())?;
        total.add(&c);
        wall = wall.max(secs);
        busy += secs;
        per.push(WorkerStats {
            packets: c.rx,
            seconds: secs,
        });
        match tx {
            AnyTx::Capture(cap) => captures.push(cap),
            // Dropping the port waits for its ring to drain.
            AnyTx::AfPacket(p) => drop(p),
            AnyTx::Delay(p) => {
                delay_line
                    .get_or_insert_with(DelayStats::default)
                    .add(&p.stats());
                drop(p);
            }
            _ => {}
        }
    }
    let updates = match upd {
        Some(Ok((applied, publishes))) => Some(UpdateStats {
            total: (ops4.len() + ops6.len()) as u64,
            applied,
            publishes,
        }),
        Some(Err(_)) => return Err("the route updater panicked".into()),
        None => None,
    };
    if let TxSpec::Pcap(path) = &cfg.tx {
        let f = std::fs::File::create(path)
            .map_err(|e| format!("{}: cannot create: {e}", path.display()))?;
        CaptureTx::write_merged(&captures, rep.linktype, std::io::BufWriter::new(f))
            .map_err(|e| format!("{}: write error: {e}", path.display()))?;
    }
    let live = live_stats(&counters);
    let port_drops = live.map_or(0, |l| l.tx_ring_full + l.tx_rejected);
    let unloadable = rep.unloadable * cfg.repeat + live.map_or(0, |l| l.rx_oversize);
    let packets = total.rx + unloadable;
    let lookups = total.cache_hits + total.cache_misses;
    Ok(ForwardResult {
        packets,
        forwarded: total.tx,
        dropped: Dropped {
            parse: total.parse_drops() + unloadable,
            ttl: total.ttl,
            no_route: total.no_route,
            aqm: total.aqm + delay_line.map_or(0, |d| d.aqm_drops),
            port: port_drops,
            delay: delay_line.map_or(0, |d| d.line_drops),
        },
        mpps: if wall > 0.0 {
            total.rx as f64 / wall / 1e6
        } else {
            0.0
        },
        ns_per_packet: if total.rx > 0 {
            busy * 1e9 / total.rx as f64
        } else {
            0.0
        },
        cache: CacheStats {
            policy: if cfg.stages == Stages::Full {
                cfg.cache.clone()
            } else {
                "none".into()
            },
            hit_rate: (cfg.stages == Stages::Full).then(|| {
                if lookups > 0 {
                    total.cache_hits as f64 / lookups as f64
                } else {
                    0.0
                }
            }),
        },
        batch: cfg.batch,
        meta: cfg.meta.name().into(),
        meta_bytes: L::META_BYTES,
        stages: cfg.stages.name().into(),
        workers: w,
        parse_detail: ParseDetail {
            non_ip: total.non_ip,
            malformed: total.malformed,
            checksum: total.checksum,
            unloadable,
        },
        seconds: wall,
        setup_seconds,
        rx: cfg.rx.to_string(),
        tx: cfg.tx.to_string(),
        routes,
        updates,
        per_worker: per,
        pool: (pool.count(), pool.stride()),
        batches: total.batches,
        load: load_avg(),
        cpu_seconds,
        live,
        delay_line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Silent;

    fn small() -> ForwardConfig {
        ForwardConfig {
            table: TableSpec::Synthetic(20_000, 5_000),
            packets: 20_000,
            ..ForwardConfig::default()
        }
    }

    #[test]
    fn every_packet_is_accounted_for() {
        for (stages, meta, workers) in [
            (Stages::Io, MetaKind::Dpdk, 1),
            (Stages::L3, MetaKind::CompactAlloc, 2),
            (Stages::Full, MetaKind::CompactConst, 1),
            (Stages::Full, MetaKind::Dpdk, 2),
        ] {
            let cfg = ForwardConfig {
                stages,
                meta,
                workers,
                batch: 64,
                repeat: 2,
                ..small()
            };
            let r = forward(&cfg, &Silent).unwrap();
            let d = r.dropped;
            assert_eq!(r.packets, 40_000, "{stages:?}");
            assert_eq!(
                r.packets,
                r.forwarded + d.parse + d.ttl + d.no_route + d.aqm
            );
            assert!(r.forwarded > 0);
            if stages == Stages::Full {
                assert!(r.cache.hit_rate.unwrap() > 0.0, "{:?}", r.cache);
            }
        }
    }

    #[test]
    fn bad_parameters_are_one_line_errors() {
        let e = forward(
            &ForwardConfig {
                batch: 0,
                ..small()
            },
            &Silent,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("--batch"));
        let e = forward(
            &ForwardConfig {
                meta_bytes: 8,
                ..small()
            },
            &Silent,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("--meta-bytes") && e.contains("(got 8)"), "{e}");
        assert!(!e.contains('\n'));
    }
}
