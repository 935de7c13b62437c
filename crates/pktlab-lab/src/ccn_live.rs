//! Paper 003 §4's case study on real sockets, pktlab side: a consumer sends Zipf(α)
//! Interests over N contents through `pktlab ccn router` to a producer, all on 127.0.0.1 in this
//! process, for a list of content-store sizes (0 = CS off). Each size gets a fresh router and
//! producer, a warm-up consumer run that fills the CS, then a measured consumer run. Reported
//! per size: Data/s at the consumer, the router's CS hit ratio over the measured run (from its
//! live counters), the same ratio seen from the producer (1 − producer Interests / Interests
//! satisfied — the measure `tools/cefore-case-study.sh` uses for Cefore, which exposes no
//! counters), and the characteristic-time approximations for LRU (Che) and FIFO.
//!
//! The Cefore side runs outside the library (Cefore is not a dependency): see
//! `tools/cefore-case-study.sh` and `docs/results/ccn-live.md`.

use crate::{Error, Progress, Result};
use pktlab::ccn::cs::Policy;
use pktlab::ccn::live::{
    self, producer, router, ConsumerConfig, Control, ProducerConfig, RouterConfig, RttSummary,
};
use pktlab::ccn::sim::{che_fifo, che_lru};
use pktlab::ccn::tlv::Dialect;
use serde::Serialize;
use std::io;
use std::net::SocketAddr;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Duration;

/// Case-study settings.
#[derive(Clone, Debug)]
pub struct CaseStudyConfig {
    /// CS sizes in entries (0 = CS off).
    pub cs_entries: Vec<usize>,
    /// Replacement policy of the router's CS (Cefore's local cache is FIFO).
    pub policy: Policy,
    /// Distinct contents.
    pub contents: u64,
    /// Zipf exponent.
    pub alpha: f64,
    /// Zipf table entries.
    pub table_entries: u64,
    /// Payload bytes per Data.
    pub payload: usize,
    /// Consumer window.
    pub window: usize,
    /// Warm-up run per size.
    pub warmup: Duration,
    /// Measured run per size.
    pub duration: Duration,
    /// Router workers.
    pub workers: usize,
    /// Wire dialect.
    pub dialect: Dialect,
    /// Repetitions of the whole sweep (sizes interleaved within each).
    pub runs: usize,
    /// Seed of the request stream.
    pub seed: u64,
}

impl Default for CaseStudyConfig {
    fn default() -> Self {
        CaseStudyConfig {
            cs_entries: vec![0, 1 << 10, 1 << 14, 1 << 16, 1 << 18, 1 << 20],
            policy: Policy::Fifo,
            contents: 1 << 26,
            alpha: 0.8,
            table_entries: 1 << 16,
            payload: 100,
            window: 64,
            warmup: Duration::from_secs(5),
            duration: Duration::from_secs(5),
            workers: 1,
            dialect: Dialect::default(),
            runs: 1,
            seed: 1,
        }
    }
}

/// One measured point.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CaseStudyRow {
    /// Repetition index.
    pub run: usize,
    /// CS entries (0 = off).
    pub cs_entries: usize,
    /// Data/s received by the consumer over the measured run.
    pub data_per_s: f64,
    /// Interests/s sent.
    pub interests_per_s: f64,
    /// Datagrams the router received and sent per second of its own on-CPU time over the
    /// measured run: its forwarding rate as a capacity (the paper's router is bound by packets
    /// per second), which the scheduling of consumer and producer on the same cores moves far
    /// less than [`data_per_s`](Self::data_per_s).
    pub router_pps_cpu: f64,
    /// Router CS hits / Interests over the measured run.
    pub hit_ratio: f64,
    /// 1 − producer Interests / Interests satisfied, over the measured run: the share of
    /// Interests that never reached the producer — CS hits plus Interests aggregated in the PIT
    /// with a pending one for the same name (a few % at window 64 even with the CS off).
    pub hit_ratio_from_producer: f64,
    /// Che's approximation (LRU).
    pub che_lru: f64,
    /// Characteristic-time approximation for FIFO.
    pub che_fifo: f64,
    /// CS entries held / capacity at the end.
    pub cs_fill: f64,
    /// Consumer timeouts in the measured run.
    pub timeouts: u64,
    /// Round-trip times.
    pub rtt_us: RttSummary,
}

/// The sweep.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CaseStudyResult {
    /// Dialect spoken.
    pub dialect: String,
    /// CS policy.
    pub policy: String,
    /// Contents.
    pub contents: u64,
    /// Zipf exponent.
    pub alpha: f64,
    /// Payload bytes.
    pub payload: usize,
    /// Consumer window.
    pub window: usize,
    /// Router workers.
    pub workers: usize,
    /// Warm-up seconds per point.
    pub warmup_s: f64,
    /// Measured seconds per point.
    pub duration_s: f64,
    /// Every measured point, in run order.
    pub rows: Vec<CaseStudyRow>,
}

fn lo() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// The producer and router threads of one point.
type Roles<'scope> = (
    ScopedJoinHandle<'scope, io::Result<live::ProducerResult>>,
    ScopedJoinHandle<'scope, io::Result<live::RouterResult>>,
);

/// Starts a producer (controlled by `pc`) and a router with a CS of `cs` entries in front of it
/// (controlled by `rc`) in scope `s`; returns their threads and the router's address. On a
/// failure to start, both are stopped (the scope joins them).
fn start_roles<'scope, 'env>(
    s: &'scope Scope<'scope, 'env>,
    cfg: &'env CaseStudyConfig,
    cs: usize,
    pc: &'env Control,
    rc: &'env Control,
) -> io::Result<(Roles<'scope>, SocketAddr)> {
    let stop_all = || {
        pc.stop();
        rc.stop();
    };
    let prod = s.spawn(move || {
        let c = ProducerConfig {
            listen: lo(),
            payload: cfg.payload,
            dialect: cfg.dialect,
            ..Default::default()
        };
        live::run_producer(&c, pc, &mut |_| {})
    });
    let Some(paddr) = pc.wait_bound(Duration::from_secs(5)) else {
        stop_all();
        return Err(io::Error::other("producer did not start"));
    };
    let rout = s.spawn(move || {
        let c = RouterConfig {
            listen: lo(),
            routes: vec![("/cefore".into(), paddr)],
            cs_entries: cs,
            cs_policy: cfg.policy,
            slot_bytes: (cfg.payload + 256).next_power_of_two(),
            workers: cfg.workers,
            dialect: cfg.dialect,
            ..Default::default()
        };
        live::run_router(&c, rc, &mut |_| {})
    });
    let Some(raddr) = rc.wait_bound(Duration::from_secs(5)) else {
        stop_all();
        return Err(io::Error::other("router did not start"));
    };
    Ok(((prod, rout), raddr))
}

/// The consumer of a point: `cfg`'s workload towards `to`, for `duration`.
fn consumer(
    cfg: &CaseStudyConfig,
    to: SocketAddr,
    duration: Duration,
    seed: u64,
) -> ConsumerConfig {
    ConsumerConfig {
        to,
        bind: lo(),
        contents: cfg.contents,
        alpha: cfg.alpha,
        table_entries: cfg.table_entries,
        window: cfg.window,
        duration,
        dialect: cfg.dialect,
        seed,
        ..Default::default()
    }
}

/// Runs one point: fresh producer and router, warm-up, measurement.
fn point(cfg: &CaseStudyConfig, cs: usize, run: usize) -> io::Result<CaseStudyRow> {
    let (pc, rc) = (Control::new(), Control::new());
    std::thread::scope(|s| {
        let (pc, rc) = (&pc, &rc);
        let ((prod, rout), raddr) = start_roles(s, cfg, cs, pc, rc)?;
        let stop_all = || {
            pc.stop();
            rc.stop();
        };
        let mut cc = consumer(
            cfg,
            raddr,
            cfg.warmup,
            cfg.seed + 1000 * run as u64 + cs as u64,
        );
        let measured = (|| {
            if !cfg.warmup.is_zero() {
                live::run_consumer(&cc, &Control::new(), &mut |_| {})?;
            }
            std::thread::sleep(Duration::from_millis(50));
            let before = (
                rc.get(router::ctr::INTERESTS),
                rc.get(router::ctr::CS_HITS),
                pc.get(producer::ctr::ANSWERED),
                rc.get(router::ctr::RECEIVED) + rc.get(router::ctr::SENT),
                rc.get(router::ctr::CPU_NS),
            );
            cc.duration = cfg.duration;
            cc.seed ^= 0x5EED;
            let c = live::run_consumer(&cc, &Control::new(), &mut |_| {})?;
            std::thread::sleep(Duration::from_millis(50));
            let after = (
                rc.get(router::ctr::INTERESTS),
                rc.get(router::ctr::CS_HITS),
                pc.get(producer::ctr::ANSWERED),
                rc.get(router::ctr::RECEIVED) + rc.get(router::ctr::SENT),
                rc.get(router::ctr::CPU_NS),
            );
            Ok::<_, io::Error>((c, before, after))
        })();
        stop_all();
        let r = rout
            .join()
            .map_err(|_| io::Error::other("router panicked"))??;
        prod.join()
            .map_err(|_| io::Error::other("producer panicked"))??;
        let (c, b, a) = measured?;
        let interests = (a.0 - b.0).max(1);
        Ok(CaseStudyRow {
            run,
            cs_entries: cs,
            data_per_s: c.data_per_s,
            interests_per_s: c.interests_per_s,
            router_pps_cpu: (a.3 - b.3) as f64 / ((a.4 - b.4) as f64 * 1e-9).max(1e-9),
            hit_ratio: (a.1 - b.1) as f64 / interests as f64,
            hit_ratio_from_producer: 1.0 - (a.2 - b.2) as f64 / c.interests_satisfied.max(1) as f64,
            che_lru: che_lru(cfg.alpha, cfg.contents, cs as u64),
            che_fifo: che_fifo(cfg.alpha, cfg.contents, cs as u64),
            cs_fill: if r.cs.capacity > 0 {
                r.cs.entries as f64 / r.cs.capacity as f64
            } else {
                0.0
            },
            timeouts: c.timeouts,
            rtt_us: c.rtt_us,
        })
    })
}

/// The router's own rate (datagrams received and sent per second of its workers' CPU time) at
/// two CS sizes, measured side by side: both stacks (producer and router) run at once; each
/// gets a warm-up consumer run of [`CaseStudyConfig::warmup`], then `slices` consumer runs of
/// `duration / slices` alternate between them (the first size first in even slices, the
/// second first in odd ones; each slice a new request seed). A router's datagrams and CPU
/// time count over its own slices only. A drift of the host's speed then weighs on both sizes
/// alike, where two points timed one after the other (as [`run_case_study`] does) see
/// different moments. `run` varies the seeds. Errors name the port and the size.
pub fn paired_router_rates(
    cfg: &CaseStudyConfig,
    sizes: [usize; 2],
    slices: u32,
    run: usize,
) -> Result<[f64; 2]> {
    if slices == 0 {
        return Err(Error::param("slices: must be at least 1 (got 0)"));
    }
    let ctls = [
        [Control::new(), Control::new()],
        [Control::new(), Control::new()],
    ];
    let res = std::thread::scope(|s| {
        let mut roles = Vec::new();
        let mut addrs = Vec::new();
        let stop_all = || ctls.iter().flatten().for_each(|c| c.stop());
        for (i, &cs) in sizes.iter().enumerate() {
            match start_roles(s, cfg, cs, &ctls[i][0], &ctls[i][1]) {
                Ok((r, a)) => {
                    roles.push(r);
                    addrs.push(a);
                }
                Err(e) => {
                    stop_all();
                    return Err(io::Error::other(format!("CS {cs} entries: {e}")));
                }
            }
        }
        let measured = (|| {
            let seed = cfg.seed + 1000 * run as u64;
            for (i, &a) in addrs.iter().enumerate() {
                if !cfg.warmup.is_zero() {
                    let cc = consumer(cfg, a, cfg.warmup, seed + sizes[i] as u64);
                    live::run_consumer(&cc, &Control::new(), &mut |_| {})?;
                }
            }
            let slice = cfg.duration / slices;
            let mut tot = [(0u64, 0u64); 2];
            for k in 0..slices {
                let order = if k % 2 == 0 { [0, 1] } else { [1, 0] };
                for i in order {
                    let rc = &ctls[i][1];
                    let read = || {
                        (
                            rc.get(router::ctr::RECEIVED) + rc.get(router::ctr::SENT),
                            rc.get(router::ctr::CPU_NS),
                        )
                    };
                    std::thread::sleep(Duration::from_millis(20));
                    let b = read();
                    let seed = seed ^ (0x5EED + u64::from(k) * 2 + i as u64);
                    let cc = consumer(cfg, addrs[i], slice, seed);
                    live::run_consumer(&cc, &Control::new(), &mut |_| {})?;
                    std::thread::sleep(Duration::from_millis(20));
                    let a = read();
                    tot[i].0 += a.0 - b.0;
                    tot[i].1 += a.1 - b.1;
                }
            }
            Ok::<_, io::Error>(tot.map(|(d, ns)| d as f64 / (ns as f64 * 1e-9).max(1e-9)))
        })();
        stop_all();
        for (prod, rout) in roles {
            rout.join()
                .map_err(|_| io::Error::other("router panicked"))??;
            prod.join()
                .map_err(|_| io::Error::other("producer panicked"))??;
        }
        measured
    });
    res.map_err(|e| {
        Error::Run(format!(
            "ccn router rates on 127.0.0.1, CS {} vs {} entries: {e}",
            sizes[0], sizes[1]
        ))
    })
}

/// Runs the sweep `runs` times (sizes in order within each run). Progress: one step (`ccn
/// case study`, points done) and a note per point; a socket that cannot be bound or a role
/// that fails is an [`Error::Run`] naming the point.
pub fn run_case_study(cfg: &CaseStudyConfig, progress: &dyn Progress) -> Result<CaseStudyResult> {
    let mut res = CaseStudyResult {
        dialect: cfg.dialect.as_str().into(),
        policy: cfg.policy.as_str().into(),
        contents: cfg.contents,
        alpha: cfg.alpha,
        payload: cfg.payload,
        window: cfg.window,
        workers: cfg.workers,
        warmup_s: cfg.warmup.as_secs_f64(),
        duration_s: cfg.duration.as_secs_f64(),
        rows: Vec::new(),
    };
    let runs = cfg.runs.max(1);
    progress.start("ccn case study", Some((runs * cfg.cs_entries.len()) as u64));
    for run in 0..runs {
        for &cs in &cfg.cs_entries {
            let row = point(cfg, cs, run).map_err(|e| {
                Error::Run(format!(
                    "ccn case study on 127.0.0.1, run {run}, CS {cs} entries: {e}"
                ))
            })?;
            progress.note(&format!(
                "CS {cs:>8}: {:.0} Data/s, hit ratio {:.4} (FIFO approximation {:.4})",
                row.data_per_s, row.hit_ratio, row.che_fifo
            ));
            res.rows.push(row);
            progress.set(res.rows.len() as u64);
        }
    }
    progress.finish();
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small sweep: CS off never hits; with a CS the measured hit ratio follows the FIFO
    /// approximation and both ways of measuring it agree.
    #[test]
    fn small_sweep_on_loopback() {
        let cfg = CaseStudyConfig {
            cs_entries: vec![0, 256],
            contents: 1 << 12,
            table_entries: 1 << 12,
            warmup: Duration::from_millis(1000),
            duration: Duration::from_millis(700),
            window: 16,
            ..Default::default()
        };
        let r = run_case_study(&cfg, &crate::Silent).unwrap();
        assert_eq!(r.rows.len(), 2);
        let (off, on) = (&r.rows[0], &r.rows[1]);
        assert!(off.data_per_s > 500.0, "{off:?}");
        // The router's own rate: each Data delivered is at least two datagrams through the
        // router, in at most the wall-clock time; and not beyond a core's reach.
        for x in [off, on] {
            assert!(
                x.router_pps_cpu >= 2.0 * x.data_per_s * 0.9 && x.router_pps_cpu < 2e7,
                "{x:?}"
            );
        }
        assert_eq!(off.hit_ratio, 0.0);
        // Only PIT aggregation keeps Interests from the producer when the CS is off.
        assert!(
            (0.0..0.08).contains(&off.hit_ratio_from_producer),
            "{off:?}"
        );
        assert!((on.hit_ratio - on.che_fifo).abs() < 0.05, "{on:?}");
        let aggregated = off.hit_ratio_from_producer;
        assert!(
            (on.hit_ratio + aggregated - on.hit_ratio_from_producer).abs() < 0.05,
            "{on:?}"
        );
        assert_eq!(on.cs_fill, 1.0);
    }

    /// Two stacks side by side: both routers count their own datagrams and CPU time, and a
    /// rate is within what a core can do; zero slices are refused.
    #[test]
    fn paired_router_rates_measure_both_routers() {
        let cfg = CaseStudyConfig {
            contents: 1 << 12,
            table_entries: 1 << 12,
            warmup: Duration::from_millis(200),
            duration: Duration::from_millis(600),
            window: 16,
            ..Default::default()
        };
        let r = paired_router_rates(&cfg, [64, 1024], 4, 0).unwrap();
        for x in r {
            assert!(x > 1000.0 && x < 2e7, "{r:?}");
        }
        let e = paired_router_rates(&cfg, [64, 1024], 0, 0).unwrap_err();
        assert!(e.to_string().contains("slices"), "{e}");
    }
}
