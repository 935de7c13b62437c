//! One `forward` run: setup (input frames, tables, update stream, pool, one worker per
//! thread with its ports), spawn (workers and the route updater from a common barrier, the
//! progress loop in the calling thread), collect (counters, the pcap written, the result).

use super::inputs::{load_ops, load_tables};
use super::*;
use crate::virtio_ports::{merge, VirtioPorts};
use pktlab::io::ReadReport;

/// CPU time (user + system) of this process so far, s.
pub(crate) fn cpu_seconds() -> f64 {
    pktlab::util::process_cpu_seconds()
}

/// The largest resident set size of this process so far, bytes: `VmHWM` of
/// `/proc/self/status` (`ru_maxrss` of `getrusage` where that is missing — it also counts the
/// peak of the process that forked this one, before exec).
pub(crate) fn max_rss_bytes() -> u64 {
    let hwm = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        });
    if let Some(kib) = hwm {
        return kib * 1024;
    }
    // SAFETY: `rusage` is plain data, for which all-zero bytes are a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes only into the struct it is given, which outlives the call.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } == 0;
    if ok {
        ru.ru_maxrss.max(0) as u64 * 1024
    } else {
        0
    }
}

pub(super) fn live_stats(c: &[Arc<PortCounters>]) -> Option<PortStats> {
    if c.is_empty() {
        return None;
    }
    let mut s = PortStats::default();
    for x in c {
        s.add(&x.snapshot());
    }
    Some(s)
}

pub(super) fn load_avg() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Applies `ops` to `w` in publications of `chunk`, bumping `epoch` after each, until done
/// or `stop`; returns (applied, publishes).
pub(super) fn apply_updates<A: Address>(
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

/// One worker thread's loop: one direction, or both of a duplex switch.
enum Unit<L: Layout> {
    One(Box<Worker<L>>),
    Two(Box<Duplex<L>>),
}

/// What a worker thread hands back: its counters (per direction for a duplex switch), its
/// seconds and its transmit ports.
type UnitResult = (Vec<Counters>, f64, Vec<AnyTx>);

impl<L: Layout> Unit<L> {
    fn run(&mut self) {
        match self {
            Unit::One(w) => w.run(),
            Unit::Two(d) => d.run(),
        }
    }

    fn progress(&self) -> Arc<AtomicU64> {
        match self {
            Unit::One(w) => w.progress(),
            Unit::Two(d) => d.ab.progress(),
        }
    }

    fn into_result(self, secs: f64) -> UnitResult {
        match self {
            Unit::One(w) => {
                let w = *w;
                (vec![w.counters], secs, vec![w.into_tx()])
            }
            Unit::Two(d) => {
                let c = vec![d.ab.counters, d.ba.counters];
                let (b, a) = d.into_tx();
                (c, secs, vec![b, a])
            }
        }
    }
}

/// Everything set up before the clock starts.
struct Setup<L: Layout> {
    rep: LoadReport,
    workers: Vec<Unit<L>>,
    counters: Vec<Arc<PortCounters>>,
    vports: VirtioPorts,
    stop_rx: Arc<AtomicBool>,
    live_rx: bool,
    totals: u64,
    routes: (usize, usize),
    writers: Option<Writers>,
    epoch: Arc<AtomicU64>,
    ops: Ops,
    /// Update lines the reader skipped.
    skipped_updates: u64,
    /// What reading each table and update file reported.
    reports: Vec<ReadReport>,
    pool: (u32, usize),
}

/// What the timed part hands back: per worker (counters, seconds, tx port), the updater's
/// (applied, publishes), and whether the run was stopped by [`ForwardConfig::stop`].
type Ran = (
    Vec<std::thread::Result<UnitResult>>,
    Option<std::thread::Result<(u64, u64)>>,
    bool,
);

/// Runs the data plane with metadata layout `L`: setup, spawn, collect.
pub(super) fn run<L: Layout>(
    cfg: &ForwardConfig,
    progress: &dyn Progress,
    status: Option<StatusFn<'_>>,
) -> Result<ForwardResult, String> {
    let t_setup = Instant::now();
    let s = setup::<L>(cfg, progress)?;
    let setup_seconds = t_setup.elapsed().as_secs_f64();
    let cpu0 = cpu_seconds();
    let (ran, s) = spawn(cfg, s, progress, status);
    let cpu = cpu_seconds() - cpu0;
    collect::<L>(cfg, s, ran, setup_seconds, cpu)
}

/// The input frames (None: null rx or a live port) and what reading them reported.
fn load_input(cfg: &ForwardConfig) -> Result<(Option<Vec<MemFrames>>, LoadReport), String> {
    let no_frames = |path: String| LoadReport {
        path,
        linktype: pktlab::io::pcap_write::LINKTYPE_ETHERNET,
        ..LoadReport::default()
    };
    Ok(match &cfg.rx {
        RxSpec::Null(len) => (None, no_frames(format!("null:{len}"))),
        RxSpec::Synthetic => {
            let (q, r) = load_synthetic(cfg.packets, cfg.seed, cfg.workers);
            (Some(q), r)
        }
        RxSpec::Pcap(p) => {
            let (q, r) = load_pcap(p, cfg.workers).map_err(|e| e.to_string())?;
            if r.frames == 0 {
                return Err(format!("{}: no packet in the capture", p.display()));
            }
            (Some(q), r)
        }
        RxSpec::AfPacket(_) | RxSpec::VhostUser(_) | RxSpec::VirtioUser(_) => {
            (None, no_frames(cfg.rx.to_string()))
        }
    })
}

/// The IPv4 and IPv6 table writers.
type Writers = (LpmWriter<u32, Poptrie<u32>>, LpmWriter<u128, Poptrie<u128>>);
/// IPv4 and IPv6 route operations.
pub(super) type Ops = (Vec<Op<u32>>, Vec<Op<u128>>);

/// The shared Poptries (route counts, their writers, the workers' readers), for `l3`/`full`.
#[allow(clippy::type_complexity)]
fn build_tables(
    cfg: &ForwardConfig,
    epoch: &Arc<AtomicU64>,
    progress: &dyn Progress,
    reports: &mut Vec<ReadReport>,
) -> Result<((usize, usize), Option<Writers>, Option<Tables>), String> {
    if cfg.stages == Stages::Io {
        return Ok(((0, 0), None, None));
    }
    let (r4, r6) = load_tables(cfg, progress, reports)?;
    let mut t4 = Poptrie::<u32>::new(cfg.algo);
    t4.build(&r4);
    let mut t6 = Poptrie::<u128>::new(cfg.algo);
    t6.build(&r6);
    let (w4, rd4) = concurrent::<u32, _>(t4);
    let (w6, rd6) = concurrent::<u128, _>(t6);
    let tables = Tables {
        v4: Some(rd4),
        v6: Some(rd6),
        epoch: epoch.clone(),
    };
    Ok(((r4.len(), r6.len()), Some((w4, w6)), Some(tables)))
}

/// Worker `i`'s transmit port (a delay line in front of a live port with `--delay/--rate`;
/// for `pcap:PATH`, a capture streamed to a temporary file beside PATH, which raises `stop`
/// if a write fails).
#[allow(clippy::too_many_arguments)]
fn make_tx(
    cfg: &ForwardConfig,
    i: usize,
    linktype: u32,
    pool_count: u32,
    counters: &mut Vec<Arc<PortCounters>>,
    vports: &mut VirtioPorts,
    stop: &Arc<AtomicBool>,
) -> Result<AnyTx, String> {
    Ok(match &cfg.tx {
        TxSpec::VhostUser(_) | TxSpec::VirtioUser(_) => vports
            .tx(i, &cfg.tx, stop)?
            .ok_or_else(|| format!("{}: not a virtio port", cfg.tx))?,
        TxSpec::Null => AnyTx::Null(NullTx::default()),
        TxSpec::Pcap(path) => AnyTx::Capture(
            CaptureTx::create(path, linktype)
                .map_err(|e| e.to_string())?
                .on_error(stop.clone()),
        ),
        TxSpec::AfPacket(iface) => {
            let p = AfPacketTx::open(iface, false).map_err(|e| e.to_string())?;
            counters.push(p.counters());
            if !cfg.delay_line() {
                return Ok(AnyTx::AfPacket(p));
            }
            let (delay_ns, rate_bps, line_cap) = cfg.delay_params();
            let link = match rate_bps {
                Some(r) => {
                    let spec = AqmSpec::parse_with(&cfg.aqm, &AqmParamSet::default())?;
                    // RED's idle correction: a 1500-byte frame's time at the rate.
                    let pkt_time = 1500 * 8 * 1_000_000_000 / r.max(1);
                    Some((r, spec.build(cfg.queue, pkt_time, cfg.seed + i as u64)?))
                }
                None => None,
            };
            AnyTx::Delay(Box::new(DelayTx::new(
                p, delay_ns, link, line_cap, pool_count,
            )))
        }
    })
}

/// Reads the input, builds the tables and the pool, and makes one worker per thread.
fn setup<L: Layout>(cfg: &ForwardConfig, progress: &dyn Progress) -> Result<Setup<L>, String> {
    let w = cfg.workers;
    if cfg.duplex
        && !(matches!(cfg.rx, RxSpec::VhostUser(_)) && matches!(cfg.tx, TxSpec::VhostUser(_)))
    {
        return Err(format!(
            "--duplex needs --rx vhost-user:A --tx vhost-user:B (got --rx {} --tx {})",
            cfg.rx, cfg.tx
        ));
    }
    // Loops per worker thread: two for a duplex switch.
    let dirs = if cfg.duplex { 2 } else { 1 };
    // The output can be written: checked before any work (the file itself is made below,
    // once the input's link type is known).
    if let TxSpec::Pcap(path) = &cfg.tx {
        pktlab::io::check_output(path).map_err(|e| format!("--tx: {e}"))?;
    }
    let (queues, rep) = load_input(cfg)?;
    let live_rx = matches!(
        cfg.rx,
        RxSpec::AfPacket(_) | RxSpec::VhostUser(_) | RxSpec::VirtioUser(_)
    );
    let stop_rx = Arc::new(AtomicBool::new(false));
    // The sockets exist before the tables are built, so frontends can connect meanwhile.
    let mut vports = VirtioPorts::open(&cfg.rx, &cfg.tx, w, &stop_rx)?;
    // One fanout group per run (the kernel keys groups by id per network namespace).
    let fanout = (w > 1).then(|| (std::process::id() as u16) ^ 0x5a5a);
    let mut counters: Vec<Arc<PortCounters>> = Vec::new();
    let link = LinkKind::of(rep.linktype);
    let epoch = Arc::new(AtomicU64::new(0));
    let mut reports = Vec::new();
    let (routes, writers, tables) = build_tables(cfg, &epoch, progress, &mut reports)?;
    let (ops, skipped_updates) = load_ops(cfg, progress, &mut reports)?;
    // Pool: enough for every worker's cache, two batches in flight and a full queue.
    let (_, _, line_cap) = cfg.delay_params();
    let held = if cfg.delay_line() {
        cfg.queue + line_cap
    } else {
        0
    };
    let per_worker = 2 * cfg.pool_cache + 2 * cfg.batch + cfg.queue + held + 256;
    let count = u32::try_from(per_worker * w * dirs).map_err(|_| "pool too large".to_string())?;
    let pool = Arc::new(L::mbuf_pool(count));
    let shared = Arc::new(L::shared(cfg.batch, w * dirs));
    let aqm_spec = if cfg.stages == Stages::Full && !cfg.delay_line() {
        Some(AqmSpec::parse_with(&cfg.aqm, &AqmParamSet::default())?)
    } else {
        None
    };
    let shift = {
        let (a, b) = rep.ts_range;
        let n = rep.frames.max(1);
        (b - a) + (b - a) / n + 1
    };
    let mut workers = Vec::with_capacity(w);
    let mut totals = 0u64;
    let mut queues = queues.map(|q| q.into_iter());
    for i in 0..w {
        let (rx, rx_tx) = match vports.rx(i, &cfg.rx, &cfg.tx, &stop_rx)? {
            Some((r, t)) => (Some(r), t),
            None => (None, None),
        };
        let rx = match (rx, &mut queues, &cfg.rx) {
            (Some(r), _, _) => r,
            (None, _, RxSpec::AfPacket(iface)) => {
                let mut p = AfPacketRx::open(iface, 0, fanout, stop_rx.clone())
                    .map_err(|e| e.to_string())?;
                if cfg.delay_line() {
                    // Come back to the delay line at least every millisecond.
                    p.set_idle_poll_ms(1);
                }
                counters.push(p.counters());
                AnyRx::AfPacket(p)
            }
            (None, Some(q), _) => {
                let m = MemRx::new(q.next().unwrap_or_default(), 0, cfg.repeat, shift);
                totals += m.total();
                AnyRx::Mem(m)
            }
            (None, None, _) => {
                let n = cfg.packets * cfg.repeat / w as u64
                    + u64::from((i as u64) < cfg.packets * cfg.repeat % w as u64);
                totals += n;
                let len = match cfg.rx {
                    RxSpec::Null(l) => l,
                    _ => 64,
                };
                AnyRx::Null(NullRx::new(len, 0, n))
            }
        };
        let tx = match rx_tx {
            Some(t) => t,
            None => make_tx(
                cfg,
                i,
                rep.linktype,
                count,
                &mut counters,
                &mut vports,
                &stop_rx,
            )?,
        };
        let progress = Arc::new(AtomicU64::new(0));
        let parts = |k: u64| -> Result<WorkerParts, String> {
            let fcache = if cfg.stages == Stages::Full {
                Some(
                    AnyCache::new(&cfg.cache, cfg.cache_entries, None, cfg.seed)
                        .map_err(|e| e.to_string())?,
                )
            } else {
                None
            };
            let queue = match &aqm_spec {
                Some(spec) => {
                    let link = Link::new(cfg.line_rate, count);
                    let seed = cfg.seed + (i * dirs) as u64 + k;
                    let disc = spec.build(cfg.queue, link.pkt_time(), seed)?;
                    Some(OutQueue {
                        disc,
                        link,
                        drops: Default::default(),
                    })
                }
                None => None,
            };
            Ok(WorkerParts {
                pool: pool.clone(),
                cache_size: cfg.pool_cache,
                batch: cfg.batch,
                stages: cfg.stages,
                link,
                tables: tables.clone(),
                fcache,
                queue,
                progress: progress.clone(),
                router: None,
                stop: (!live_rx).then(|| stop_rx.clone()),
            })
        };
        let layout = || L::new(shared.clone(), cfg.batch);
        let one = Worker::new(parts(0)?, layout(), rx, tx, cfg.queue);
        workers.push(if cfg.duplex {
            let (rx, tx) = vports.reverse(i)?;
            let two = Worker::new(parts(1)?, layout(), rx, tx, cfg.queue);
            Unit::Two(Box::new(Duplex::new(one, two)))
        } else {
            Unit::One(Box::new(one))
        });
    }
    Ok(Setup {
        rep,
        workers,
        counters,
        vports,
        stop_rx,
        live_rx,
        totals,
        routes,
        writers,
        epoch,
        ops,
        skipped_updates,
        reports,
        pool: (pool.count(), pool.stride()),
    })
}

/// Starts the workers and the route updater at a common barrier, reports progress (and the
/// status line) from the calling thread until every worker is done, and joins them.
fn spawn<L: Layout>(
    cfg: &ForwardConfig,
    mut s: Setup<L>,
    progress: &dyn Progress,
    status: Option<StatusFn<'_>>,
) -> (Ran, Setup<L>) {
    let w = s.workers.len();
    let progress_of: Vec<Arc<AtomicU64>> = s.workers.iter().map(|wk| wk.progress()).collect();
    let barrier = Barrier::new(w + 1);
    let stop = AtomicBool::new(false);
    let finished = AtomicU64::new(0);
    let t0 = Instant::now();
    let workers = std::mem::take(&mut s.workers);
    // Without an update stream the writers just stay alive (readers need them).
    let (writers, idle) = if cfg.updates.is_some() {
        (s.writers.take(), None)
    } else {
        (None, s.writers.take())
    };
    let asked = || cfg.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed));
    // Stopped during the setup: the workers stop before their first batch.
    let mut interrupted = asked();
    if interrupted {
        s.stop_rx.store(true, Ordering::Relaxed);
    }
    let ran = std::thread::scope(|sc| {
        let handles: Vec<_> = workers
            .into_iter()
            .map(|mut wk| {
                let (barrier, finished) = (&barrier, &finished);
                sc.spawn(move || {
                    barrier.wait();
                    let t = Instant::now();
                    wk.run();
                    let secs = t.elapsed().as_secs_f64();
                    finished.fetch_add(1, Ordering::Release);
                    wk.into_result(secs)
                })
            })
            .collect();
        let upd = writers.map(|(mut w4, mut w6)| {
            let (epoch, stop, barrier) = (&s.epoch, &stop, &barrier);
            let (ops4, ops6) = (&s.ops.0, &s.ops.1);
            sc.spawn(move || {
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
        progress.start("forward", Some(s.totals));
        while finished.load(Ordering::Acquire) < w as u64 {
            std::thread::sleep(Duration::from_millis(if s.live_rx { 100 } else { 200 }));
            let done = progress_of.iter().map(|p| p.load(Ordering::Relaxed)).sum();
            progress.set(done);
            let seconds = t0.elapsed().as_secs_f64();
            if let Some(status) = status {
                status(&ForwardProgress {
                    done,
                    total: s.totals,
                    seconds,
                    live: merge(live_stats(&s.counters), s.vports.port_stats()),
                });
            }
            let asked = asked();
            interrupted |= asked;
            if asked || cfg.duration.is_some_and(|d| seconds >= d) {
                s.stop_rx.store(true, Ordering::Relaxed);
            }
        }
        progress.finish();
        stop.store(true, Ordering::Release);
        let results: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
        let upd = upd.map(|h| h.join());
        (results, upd, interrupted)
    });
    drop(idle);
    (ran, s)
}

/// Sums the workers' counters, writes the capture, and builds the result.
fn collect<L: Layout>(
    cfg: &ForwardConfig,
    s: Setup<L>,
    (results, upd, interrupted): Ran,
    setup_seconds: f64,
    cpu_seconds: f64,
) -> Result<ForwardResult, String> {
    let w = cfg.workers;
    let mut total = Counters::default();
    let mut per = Vec::with_capacity(w);
    let mut captures = Vec::new();
    let mut delay_line: Option<DelayStats> = None;
    let (mut wall, mut busy) = (0f64, 0f64);
    // Duplex: the two directions' counters summed over the workers.
    let mut dirs = [Counters::default(); 2];
    let txs = results.into_iter().map(|r| {
        let (cs, secs, txs) = r.map_err(|_| "a worker panicked".to_string())?;
        let mut c = Counters::default();
        for (k, x) in cs.iter().enumerate() {
            c.add(x);
            dirs[k].add(x);
        }
        total.add(&c);
        wall = wall.max(secs);
        busy += secs;
        per.push(WorkerStats {
            packets: c.rx,
            seconds: secs,
        });
        Ok::<_, String>(txs)
    });
    let txs: Vec<Vec<AnyTx>> = txs.collect::<Result<_, _>>()?;
    for tx in txs.into_iter().flatten() {
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
            total: (s.ops.0.len() + s.ops.1.len()) as u64,
            applied,
            publishes,
            skipped: s.skipped_updates,
        }),
        Some(Err(_)) => return Err("the route updater panicked".into()),
        None => None,
    };
    if matches!(cfg.tx, TxSpec::Pcap(_)) {
        // One worker's file is renamed to the path, several are merged into it.
        CaptureTx::commit_all(captures).map_err(|e| e.to_string())?;
    }
    let virtio = s.vports.stats();
    let names = [cfg.rx.to_string(), cfg.tx.to_string()];
    let (directions, ports) = if cfg.duplex {
        let d = |k: usize, from: &str, to: &str| DirectionStats {
            from: from.into(),
            to: to.into(),
            packets: dirs[k].rx,
            forwarded: dirs[k].tx,
            batches: dirs[k].batches,
        };
        let ds = vec![d(0, &names[0], &names[1]), d(1, &names[1], &names[0])];
        (ds, s.vports.per_port(names))
    } else {
        (Vec::new(), Vec::new())
    };
    let live = merge(live_stats(&s.counters), s.vports.port_stats());
    drop(s.vports);
    let port_drops = live.map_or(0, |l| l.tx_ring_full + l.tx_rejected);
    let unloadable = s.rep.unloadable * cfg.repeat + live.map_or(0, |l| l.rx_oversize);
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
        routes: s.routes,
        updates,
        per_worker: per,
        pool: s.pool,
        batches: total.batches,
        burst_log2: total.burst_log2,
        directions,
        ports,
        load: load_avg(),
        cpu_seconds,
        live,
        delay_line,
        virtio,
        inputs: s.reports,
        interrupted,
        max_rss_bytes: max_rss_bytes(),
    })
}
