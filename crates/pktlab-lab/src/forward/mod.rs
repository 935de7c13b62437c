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
//!
//! A replay stops early too when [`ForwardConfig::stop`] is set (the CLI sets it on SIGINT and
//! SIGTERM): the workers stop before their next batch, the `pcap:` output written so far is
//! finalised and the result says [`ForwardResult::interrupted`]. The `pcap:` output streams
//! to disk during the run ([`pktlab::port::capture`]) and appears under its name only when
//! complete; its directory is checked before any work.
//!
//! Files: `mod.rs` (configuration, result, status line), `inputs.rs` (tables and update
//! stream, with their read reports), `run.rs` (setup, spawn, route updates, collect).

mod inputs;
mod run;
#[cfg(test)]
mod tests;

pub(crate) use run::cpu_seconds;
use run::run;

use super::{check, Error, Progress, Result};
pub use crate::virtio_ports::PortVirtio;
use pktlab::aqm::{AqmParamSet, AqmSpec};
use pktlab::io::{read_table, synthetic_table, NextHopScheme, ReadReport, Update};
use pktlab::io::{DEFAULT_V4_ROUTES, DEFAULT_V6_ROUTES};
use pktlab::lpm::shared::{concurrent, LpmWriter, Op};
use pktlab::lpm::{Lpm, Poptrie, PoptrieConfig};
use pktlab::mbuf::{CompactAlloc, CompactConst, Dpdk, Layout, MetaKind, META_SIZES};
use pktlab::net::{Address, NextHop, Prefix};
use pktlab::pipeline::duplex::Duplex;
use pktlab::pipeline::nhcache::AnyCache;
use pktlab::pipeline::parse::LinkKind;
use pktlab::pipeline::queue::{Link, OutQueue};
use pktlab::pipeline::worker::{Tables, Worker, WorkerParts};
use pktlab::pipeline::{Counters, Stages};
use pktlab::port::afpacket::{PortCounters, PortStats};
use pktlab::port::delay::{line_capacity, DelayStats, DelayTx};
use pktlab::port::mem::{load_pcap, load_synthetic, LoadReport, MemFrames};
use pktlab::port::virtio_stats::VirtioStats;
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
    /// Set to stop the run (e.g. from a SIGINT handler): live ports end, a replay stops
    /// before its next batch; the result then has `interrupted`.
    pub stop: Option<Arc<AtomicBool>>,
    /// Live tx port: hold every packet this many milliseconds before it leaves
    /// (`--delay MS`, a propagation delay; [`pktlab::port::delay`]).
    pub delay_ms: Option<f64>,
    /// Live tx port: pace the output at this many Mb/s through the `aqm` discipline with a
    /// buffer of `queue` packets (`--rate MBPS`, a bottleneck link; [`pktlab::port::delay`]).
    pub rate_mbps: Option<f64>,
    /// A duplex switch between two vhost-user sockets (`--duplex` with `--rx vhost-user:A
    /// --tx vhost-user:B`): each worker thread also forwards B's receive to A's transmit,
    /// the two directions stepped in turn ([`pktlab::pipeline::duplex`]).
    pub duplex: bool,
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
            duplex: false,
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
    /// Lines of the stream skipped as unusable (count and first position in `inputs`).
    pub skipped: u64,
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
    /// Non-empty bursts by size: entry `k` counts bursts of `2^k ..= 2^(k+1) - 1` packets
    /// (the last: 128 and more).
    pub burst_log2: [u64; 8],
    /// A duplex run: each direction's packets (A → B first), and each vhost-user port's
    /// counters (empty otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub directions: Vec<DirectionStats>,
    /// A duplex run: each port's virtio counters (its receive and transmit queues).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<PortVirtio>,
    /// 1-minute load average when the run ended (the machine is shared).
    pub load: Option<f64>,
    /// CPU time of the process during the run (user + system), s.
    pub cpu_seconds: f64,
    /// Live ports: their counters summed over the workers (the kernel's rx ring drops
    /// happen before pktlab sees a packet, so they are not in `packets`).
    pub live: Option<PortStats>,
    /// The delay line's counts (`--delay` / `--rate`).
    pub delay_line: Option<DelayStats>,
    /// Virtio ports (`vhost-user:`, `virtio-user:`): their counters summed, with the
    /// frontends' connections (their drops are also in `dropped.port` and `dropped.parse`).
    pub virtio: Option<VirtioStats>,
    /// What reading each table file (per family read) and the update stream reported:
    /// lines read, skipped (with the first few positions), duplicates, truncation.
    pub inputs: Vec<ReadReport>,
    /// True if [`ForwardConfig::stop`] ended the run (SIGINT/SIGTERM from the CLI); the
    /// counts and the `pcap:` output are complete up to that point.
    pub interrupted: bool,
    /// The process's largest resident set size so far, bytes (`VmHWM` of
    /// `/proc/self/status`).
    pub max_rss_bytes: u64,
}

/// One direction of a duplex switch.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct DirectionStats {
    /// Receive port.
    pub from: String,
    /// Transmit port.
    pub to: String,
    /// Packets received.
    pub packets: u64,
    /// Packets transmitted (the rest are in the transmit port's drop counters).
    pub forwarded: u64,
    /// Non-empty bursts.
    pub batches: u64,
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

impl ForwardConfig {
    /// True when a port is live (afpacket or virtio): the run lasts until stopped.
    pub fn live(&self) -> bool {
        let rx = matches!(
            self.rx,
            RxSpec::AfPacket(_) | RxSpec::VhostUser(_) | RxSpec::VirtioUser(_)
        );
        let tx = matches!(
            self.tx,
            TxSpec::AfPacket(_) | TxSpec::VhostUser(_) | TxSpec::VirtioUser(_)
        );
        rx || tx
    }

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
        check::require(!cfg.live() || meta_bytes >= 2, "--meta-bytes", || {
            format!(
                "live ports need the packet length in the metadata: at least 2 (got {meta_bytes})"
            )
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
