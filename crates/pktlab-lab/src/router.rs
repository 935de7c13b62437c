//! `pktlab forward --fib kernel --port … --port …`: pktlab as the router between live
//! interfaces, with the kernel's routes and neighbours (rtnetlink, followed live) — the
//! batched data plane of paper 001 (parse → Poptrie → TTL/MAC rewrite → tx) on one worker
//! serving every port ([`pktlab::pipeline::router`]).
//!
//! The output port follows the route; the source MAC is the port's interface MAC and the
//! destination MAC the kernel's neighbour entry; a packet whose neighbour is not resolved
//! yet is dropped as `neigh_unresolved` after asking the FIB updater to probe it (the kernel
//! then resolves it: ARP / ND). Stops on the stop flag (SIGINT) or after `duration`.

use crate::{Error, Result};
use pktlab::lpm::PoptrieConfig;
use pktlab::mbuf::{CompactConst, Layout};
use pktlab::pipeline::fib::kernel::KernelFib;
use pktlab::pipeline::fib::FibStats;
use pktlab::pipeline::parse::LinkKind;
use pktlab::pipeline::router::{open_ports, LiveStats, RouterPortSpec};
use pktlab::pipeline::worker::{Router, Worker, WorkerParts};
use pktlab::pipeline::Stages;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Metadata layout of the router's worker (the forward default: compact, 16 bytes).
type RouterLayout = CompactConst<16>;

/// A router run.
#[derive(Clone, Debug)]
pub struct RouterConfig {
    /// The ports (live interfaces), at least one.
    pub ports: Vec<RouterPortSpec>,
    /// Packets per batch.
    pub batch: usize,
    /// Poptrie configuration.
    pub algo: PoptrieConfig,
    /// Buffers in the pool.
    pub pool: u32,
    /// Stop after this many seconds (default: when `stop` is set).
    pub duration: Option<f64>,
    /// Set to stop (SIGINT).
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for RouterConfig {
    fn default() -> Self {
        RouterConfig {
            ports: Vec::new(),
            batch: 32,
            algo: PoptrieConfig::new(18),
            pool: 16384,
            duration: None,
            stop: None,
        }
    }
}

/// Where packets that were not forwarded went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RouterDrops {
    /// Not IP, malformed, bad checksum.
    pub parse: u64,
    /// TTL / hop limit expired.
    pub ttl: u64,
    /// No route (or a route over an interface that is not a port).
    pub no_route: u64,
    /// Neighbour not resolved yet (probed).
    pub neigh_unresolved: u64,
    /// A frame whose source MAC is no port's (never expected).
    pub no_port: u64,
}

/// One port's result.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PortResult {
    /// The port as given.
    pub port: String,
    /// afxdp: where the XDP program ran (`drv` / `skb`).
    pub xdp_mode: Option<&'static str>,
    /// afxdp: whether the socket was zero-copy.
    pub zerocopy: Option<bool>,
    /// Its counters.
    pub stats: LiveStats,
}

/// What a router run reports (`--json`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct RouterResult {
    /// Packets received on all ports.
    pub packets: u64,
    /// Packets handed to a port for transmission.
    pub forwarded: u64,
    /// Packets not forwarded, by reason.
    pub dropped: RouterDrops,
    /// Run time, s.
    pub seconds: f64,
    /// Process CPU time (user + system), s.
    pub cpu_seconds: f64,
    /// One-minute load average at the end.
    pub load: Option<f64>,
    /// Per port.
    pub ports: Vec<PortResult>,
    /// The kernel FIB: routes, neighbours, updates applied and their lag.
    pub fib: FibStats,
}

/// The once-a-second status of a running router.
#[derive(Clone, Copy, Debug, Default)]
pub struct RouterStatus {
    /// Seconds since the start.
    pub seconds: f64,
    /// Packets received so far.
    pub rx: u64,
    /// The FIB's counters.
    pub fib: FibStats,
}

impl RouterStatus {
    /// The status line, with the receive rate since `prev`.
    pub fn line(&self, prev: &RouterStatus) -> String {
        let dt = (self.seconds - prev.seconds).max(1e-9);
        let f = &self.fib;
        format!(
            "router {:6.1} s  rx {:>9.0} pps  total {} | fib v4 {} v6 {} routes, {} neighbours, {} updates (lag max {} us), {} probes",
            self.seconds,
            (self.rx - prev.rx) as f64 / dt,
            self.rx,
            f.routes_v4,
            f.routes_v6,
            f.neighbours,
            f.updates_applied,
            f.lag_max_us,
            f.probes
        )
    }
}

/// A layout instance for one worker.
fn one_layout<L: Layout>(batch: usize) -> L {
    L::new(Arc::new(L::shared(batch, 1)), batch)
}

/// Runs the router until stopped; `status` is called about once a second.
pub fn router(cfg: &RouterConfig, status: &mut dyn FnMut(&RouterStatus)) -> Result<RouterResult> {
    if cfg.ports.is_empty() {
        return Err(Error::param("--port: a router needs at least one port"));
    }
    if !(1..=4096).contains(&cfg.batch) {
        return Err(Error::param(format!(
            "--batch {}: expected 1..=4096",
            cfg.batch
        )));
    }
    let stop = cfg
        .stop
        .clone()
        .unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
    let run = |e: String| Error::Run(e);
    let (rx, tx, ifs) = open_ports(&cfg.ports, stop.clone()).map_err(|e| run(e.to_string()))?;
    let fib_stop = Arc::new(AtomicBool::new(false));
    let (tables, fib) =
        KernelFib::start(ifs, cfg.algo, fib_stop).map_err(|e| run(e.to_string()))?;
    let probes = rx.probes();
    let pool = Arc::new(RouterLayout::mbuf_pool(cfg.pool));
    let progress = Arc::new(AtomicU64::new(0));
    let parts = WorkerParts {
        pool,
        cache_size: 512,
        batch: cfg.batch,
        stages: Stages::L3,
        link: LinkKind::Ethernet,
        tables: Some(tables),
        fcache: None,
        queue: None,
        progress: progress.clone(),
        router: Some(Router {
            adj: fib.adj.clone(),
            probes: fib.probes.clone(),
        }),
        stop: None,
    };
    let layout = one_layout::<RouterLayout>(cfg.batch);
    let mut worker = Worker::new(parts, layout, rx, tx, 0);
    let t0 = Instant::now();
    let cpu0 = pktlab::util::process_cpu_seconds();
    let worker = std::thread::scope(|s| {
        let h = s.spawn(move || {
            worker.run();
            worker
        });
        let mut prev = RouterStatus::default();
        while !h.is_finished() {
            std::thread::sleep(Duration::from_millis(50));
            let secs = t0.elapsed().as_secs_f64();
            if cfg.duration.is_some_and(|d| secs >= d) {
                stop.store(true, Ordering::Relaxed);
            }
            if secs - prev.seconds >= 1.0 {
                let st = RouterStatus {
                    seconds: secs,
                    rx: progress.load(Ordering::Relaxed),
                    fib: fib.counters.snapshot(),
                };
                status(&st);
                prev = st;
            }
        }
        h.join()
    })
    .map_err(|_| run("router worker panicked".into()))?;
    let seconds = t0.elapsed().as_secs_f64();
    let c = worker.counters;
    let fib_stats = fib.counters.snapshot();
    fib.stop().map_err(|e| run(e.to_string()))?;
    let tx = worker.into_tx();
    let rx_counters: Vec<_> = probes.iter().map(|p| p.0.clone()).collect();
    let ports = cfg
        .ports
        .iter()
        .zip(tx.stats(&rx_counters))
        .zip(&probes)
        .map(|((p, stats), (_, mode))| PortResult {
            port: p.to_string(),
            xdp_mode: mode.map(|m| m.0),
            zerocopy: mode.map(|m| m.1),
            stats,
        })
        .collect();
    Ok(RouterResult {
        packets: c.rx,
        forwarded: c.tx,
        dropped: RouterDrops {
            parse: c.parse_drops(),
            ttl: c.ttl,
            no_route: c.no_route,
            neigh_unresolved: c.neigh_unresolved,
            no_port: tx.no_port(),
        },
        seconds,
        cpu_seconds: pktlab::util::process_cpu_seconds() - cpu0,
        load: std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok()),
        ports,
        fib: fib_stats,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_parameters_are_one_line_errors() {
        let e = router(&RouterConfig::default(), &mut |_| {}).unwrap_err();
        assert_eq!(e.to_string(), "--port: a router needs at least one port");
        let cfg = RouterConfig {
            ports: vec!["afpacket:pktlab-nosuch2".parse().unwrap()],
            ..RouterConfig::default()
        };
        let e = router(&cfg, &mut |_| {}).unwrap_err().to_string();
        assert!(e.contains("pktlab-nosuch2: no such interface"), "{e}");
        let cfg = RouterConfig { batch: 0, ..cfg };
        assert!(router(&cfg, &mut |_| {})
            .unwrap_err()
            .to_string()
            .contains("--batch 0"));
    }
}
