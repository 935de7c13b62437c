//! Paper 001's setting live: a virtual switch between two CNFs over vhost-user, in one call.
//!
//! The chain is `gen flows --tx virtio-user:A` → switch → `sink --rx virtio-user:B`: the two
//! CNFs are pktlab's virtio-user frontends (threads of this process, pinned to CPU 0 when the
//! machine has two), the switch is either `pktlab forward --rx vhost-user:A --tx
//! vhost-user:B` (threads pinned to CPU 1) or, as the anchor, DPDK testpmd with two
//! `net_vhost` ports (a child process pinned to CPU 1 by its own `--lcores`). The frontends
//! share memfd memory with the switch, so the pktlab switch needs no privileges; testpmd needs
//! root (2 MiB hugepages) and a binary ([`testpmd`] says why not). `tools/vhost_side_by_side.sh`
//! runs the same chain as separate processes, with DPDK CNFs as well.
//!
//! [`run_loop`] is the anchor's own topology (ANCHORS.md): one testpmd CNF with two
//! `net_virtio_user` ports in `io --tx-first`, whose injected bursts circulate through the
//! switch; the CNF's receive rate is the switch's forwarding rate, and no CNF shares a core
//! with another (on two cores, a receiving CNF that shares a core with a sending one is
//! descheduled for whole time slices, and the chain then measures the scheduler).

use crate::forward::{forward_with_status, ForwardConfig, ForwardProgress, TableSpec};
use crate::live::{gen, sink, GenConfig, GenStream, SinkConfig};
use crate::{Error, Result, Silent};
use pktlab::mbuf::MetaKind;
use pktlab::pipeline::Stages;
use pktlab::port::{RxSpec, TxSpec, VhostSpec};
use serde::Serialize;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The switch between the two CNFs.
#[derive(Clone, Debug)]
pub enum Switch {
    /// `pktlab forward` with these stages, metadata layout and batch size.
    Pktlab {
        /// Stages run on every packet.
        stages: Stages,
        /// Metadata layout.
        meta: MetaKind,
        /// Packets per burst.
        batch: usize,
    },
    /// DPDK testpmd with two `net_vhost` ports in this forwarding mode (`io` or `mac`).
    Testpmd {
        /// The testpmd binary.
        bin: PathBuf,
        /// `--forward-mode`.
        mode: &'static str,
    },
}

impl Switch {
    /// A short label: `pktlab full compact-constant/512`, `testpmd io`.
    pub fn label(&self) -> String {
        match self {
            Switch::Pktlab {
                stages,
                meta,
                batch,
            } => format!("pktlab {} {}/{batch}", stages.name(), meta.name()),
            Switch::Testpmd { mode, .. } => format!("testpmd {mode}"),
        }
    }
}

/// One run of the chain.
#[derive(Clone, Debug)]
pub struct ChainConfig {
    /// The switch.
    pub switch: Switch,
    /// Seconds the generator sends.
    pub seconds: f64,
    /// Frame size on the wire including FCS (64 = the paper's minimum-size packets).
    pub frame: usize,
}

/// What one run delivered.
#[derive(Clone, Debug, Serialize)]
pub struct ChainResult {
    /// [`Switch::label`].
    pub switch: String,
    /// Packets the generator handed to its ring.
    pub sent: u64,
    /// Packets the sink received.
    pub delivered: u64,
    /// The sink's rate over its active period, Mpps.
    pub mpps: f64,
    /// `1 − delivered / sent`.
    pub loss: f64,
    /// The pktlab switch's counted drops (every one named in its counters); `None` for testpmd.
    pub switch_drops: Option<u64>,
    /// Packets the pktlab switch received; `None` for testpmd.
    pub switch_rx: Option<u64>,
    /// Sink: packets with a bad IPv4 header or transport checksum.
    pub checksum_errors: u64,
    /// Sink: TTL → packets.
    pub ttl: std::collections::BTreeMap<u8, u64>,
}

/// The testpmd to use as the anchor switch: `$TESTPMD` or `dpdk-testpmd` on `PATH`, when this
/// process is root (testpmd needs 2 MiB hugepages); otherwise why not, in one line.
pub fn testpmd() -> std::result::Result<PathBuf, String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Err("not root: DPDK testpmd needs 2 MiB hugepages".into());
    }
    let bin = match std::env::var_os("TESTPMD") {
        Some(p) => PathBuf::from(p),
        None => which("dpdk-testpmd")
            .ok_or("no dpdk-testpmd on PATH (install Debian's dpdk, or set TESTPMD)")?,
    };
    if !bin.is_file() {
        return Err(format!("TESTPMD={}: no such file", bin.display()));
    }
    Ok(bin)
}

/// `name` in a directory of `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Waits for `path` to exist (a switch's listening socket), up to `limit`.
fn wait_for(path: &Path, limit: Duration) -> Result<()> {
    let t = Instant::now();
    while !path.exists() {
        if t.elapsed() > limit {
            return Err(Error::Run(format!(
                "{}: the switch did not create its socket within {} s",
                path.display(),
                limit.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// A child process that is interrupted (then killed) and reaped when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        // SAFETY: kill with a pid we own (our child, not yet reaped).
        unsafe { libc::kill(self.0.id() as libc::pid_t, libc::SIGINT) };
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(5) {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A scratch directory for the two sockets, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch> {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let d = std::env::temp_dir().join(format!(
            "pktlab-vhost-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&d).map_err(|e| Error::Output {
            path: d.display().to_string(),
            what: "cannot create".into(),
            error: e,
        })?;
        Ok(Scratch(d))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Starts testpmd as the switch on CPU 1 with vhost-user sockets `a` and `b`.
fn start_testpmd(bin: &Path, mode: &str, a: &Path, b: &Path) -> Result<Proc> {
    let child = Command::new(bin)
        .args([
            "--lcores",
            "0@1,1@1",
            "--main-lcore",
            "0",
            "-n",
            "1",
            "--no-pci",
        ])
        .args(["--socket-mem=256", "--in-memory"])
        .arg(format!("--file-prefix=pktlab-sw-{}", std::process::id()))
        .arg(format!("--vdev=net_vhost0,iface={},queues=1", a.display()))
        .arg(format!("--vdev=net_vhost1,iface={},queues=1", b.display()))
        .args(["--", &format!("--forward-mode={mode}")])
        .args(["--total-num-mbufs=32768", "--stats-period", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Error::Run(format!("{}: cannot start: {e}", bin.display())))?;
    Ok(Proc(child))
}

/// The pktlab switch between `DIR/a.sock` (rx) and `DIR/b.sock` (tx), routing with one
/// default route written to `DIR/routes.txt`, running until `stop`.
fn switch_config(
    dir: &Path,
    stages: Stages,
    meta: MetaKind,
    batch: usize,
    stop: &Arc<AtomicBool>,
) -> Result<ForwardConfig> {
    let table = dir.join("routes.txt");
    std::fs::write(&table, "0.0.0.0/0 1\n").map_err(|e| Error::Output {
        path: table.display().to_string(),
        what: "cannot write".into(),
        error: e,
    })?;
    let port = |name: &str| VhostSpec {
        path: dir.join(name),
        client: false,
    };
    Ok(ForwardConfig {
        table: TableSpec::Files(vec![table]),
        rx: RxSpec::VhostUser(port("a.sock")),
        tx: TxSpec::VhostUser(port("b.sock")),
        stages,
        meta,
        batch,
        // Long enough for any run: the caller's `stop` ends it.
        duration: Some(3600.0),
        stop: Some(stop.clone()),
        ..ForwardConfig::default()
    })
}

/// Runs the chain once: the switch starts, the sink attaches to B, the generator sends
/// 64-byte-class flows into A for `cfg.seconds`, the sink stops one second after the last
/// packet (or `seconds` + 5 s), then the switch stops.
pub fn run_chain(cfg: &ChainConfig) -> Result<ChainResult> {
    if !(cfg.seconds > 0.0 && cfg.seconds.is_finite()) {
        return Err(Error::param(format!(
            "seconds {}: must be positive",
            cfg.seconds
        )));
    }
    let dir = Scratch::new()?;
    let (a, b) = (dir.0.join("a.sock"), dir.0.join("b.sock"));
    let stop = Arc::new(AtomicBool::new(false));
    let (sink_stop, gen_stop) = (AtomicBool::new(false), AtomicBool::new(false));
    let scfg = SinkConfig {
        iface: format!("virtio-user:{}", b.display()),
        duration: Some(cfg.seconds + 5.0),
        idle: Some(1.0),
        ..SinkConfig::default()
    };
    let gcfg = GenConfig {
        stream: GenStream::Flows,
        iface: format!("virtio-user:{}", a.display()),
        duration: Some(cfg.seconds),
        size: Some(cfg.frame),
        ..GenConfig::default()
    };
    std::thread::scope(|s| -> Result<ChainResult> {
        let mut testpmd_proc = None;
        let switch = match &cfg.switch {
            Switch::Pktlab {
                stages,
                meta,
                batch,
            } => {
                let fcfg = switch_config(&dir.0, *stages, *meta, *batch, &stop)?;
                let running = Arc::new(AtomicBool::new(false));
                let r2 = running.clone();
                let h = s.spawn(move || {
                    crate::xcpu::pin(1);
                    let st = move |_: &ForwardProgress| r2.store(true, Ordering::Relaxed);
                    forward_with_status(&fcfg, &Silent, Some(&st))
                });
                let t = Instant::now();
                while !running.load(Ordering::Relaxed) && !h.is_finished() {
                    if t.elapsed() > Duration::from_secs(30) {
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                Some(h)
            }
            Switch::Testpmd { bin, mode } => {
                testpmd_proc = Some(start_testpmd(bin, mode, &a, &b)?);
                wait_for(&a, Duration::from_secs(20))?;
                wait_for(&b, Duration::from_secs(20))?;
                None
            }
        };
        if switch.as_ref().is_some_and(|h| h.is_finished()) {
            let r = switch.map(|h| h.join());
            return Err(match r {
                Some(Ok(Err(e))) => e,
                _ => Error::Run("the pktlab switch stopped before it ran".into()),
            });
        }
        let sink_h = s.spawn(|| {
            crate::xcpu::pin(0);
            sink(&scfg, &sink_stop, &Silent)
        });
        std::thread::sleep(Duration::from_millis(300));
        let gen_h = s.spawn(|| {
            crate::xcpu::pin(0);
            gen(&gcfg, &gen_stop, &Silent)
        });
        let g = gen_h
            .join()
            .map_err(|_| Error::Run("the generator thread panicked".into()))?;
        if g.is_err() {
            sink_stop.store(true, Ordering::Relaxed);
        }
        let k = sink_h
            .join()
            .map_err(|_| Error::Run("the sink thread panicked".into()));
        stop.store(true, Ordering::Relaxed);
        drop(testpmd_proc);
        let sw = match switch {
            Some(h) => Some(
                h.join()
                    .map_err(|_| Error::Run("the switch thread panicked".into()))??,
            ),
            None => None,
        };
        let (g, k) = (g?, k??);
        Ok(ChainResult {
            switch: cfg.switch.label(),
            sent: g.packets,
            delivered: k.packets,
            mpps: k.pps / 1e6,
            loss: 1.0 - k.packets as f64 / g.packets.max(1) as f64,
            switch_drops: sw.as_ref().map(|r| r.packets - r.forwarded),
            switch_rx: sw.as_ref().map(|r| r.packets),
            checksum_errors: k.checksum_errors,
            ttl: k.ttl,
        })
    })
}

const HUGEPAGES: &str = "/sys/kernel/mm/hugepages/hugepages-2048kB";

fn read_num(name: &str) -> Option<u64> {
    std::fs::read_to_string(format!("{HUGEPAGES}/{name}"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// 2 MiB hugepages reserved for the run: at least `pages` free, raised if needed (root) and
/// given back when dropped.
struct Hugepages(Option<u64>);

impl Hugepages {
    fn ensure(pages: u64) -> Result<Hugepages> {
        let (nr, free) = (
            read_num("nr_hugepages").unwrap_or(0),
            read_num("free_hugepages").unwrap_or(0),
        );
        if free >= pages {
            return Ok(Hugepages(None));
        }
        let want = nr + pages - free;
        let _ = std::fs::write(format!("{HUGEPAGES}/nr_hugepages"), want.to_string());
        let now = read_num("free_hugepages").unwrap_or(0);
        let restore = Hugepages(Some(nr));
        if now < pages {
            return Err(Error::Run(format!(
                "{HUGEPAGES}: {now} free 2 MiB hugepages after asking for {want}; testpmd needs {pages}"
            )));
        }
        Ok(restore)
    }
}

impl Drop for Hugepages {
    fn drop(&mut self) {
        if let Some(nr) = self.0 {
            let _ = std::fs::write(format!("{HUGEPAGES}/nr_hugepages"), nr.to_string());
        }
    }
}

/// One run of [`run_loop`].
#[derive(Clone, Debug, Serialize)]
pub struct LoopResult {
    /// [`Switch::label`].
    pub switch: String,
    /// The CNF's summed receive rate of both ports, one sample per second after a 2-s
    /// warm-up, Mpps.
    pub samples: Vec<f64>,
    /// Their median, Mpps.
    pub mpps: f64,
    /// The pktlab switch's counted drops; `None` for testpmd.
    pub switch_drops: Option<u64>,
    /// The pktlab switch's mean packets per non-empty receive burst (both directions);
    /// `None` for testpmd.
    pub mean_burst: Option<f64>,
    /// The host's cross-CPU round trip between CPU 0 and CPU 1 just before the run and just
    /// after it, ns ([`crate::xcpu::round_trip_ns`], 100 ms each); `None` when not measurable.
    pub xcpu_ns: [Option<f64>; 2],
}

/// Runs `switch` (pktlab as a duplex switch, `--stages io` only: the packets circulate and `l3`/`full` would
/// decrement their TTL on every pass) between the two ports of a testpmd CNF in `io
/// --tx-first` mode for `seconds` (≥ 3), CNF on CPU 0 and switch on CPU 1. Needs root and
/// testpmd ([`testpmd`]).
pub fn run_loop(switch: &Switch, testpmd_bin: &Path, seconds: u64) -> Result<LoopResult> {
    if seconds < 3 {
        return Err(Error::param(format!(
            "seconds {seconds}: a loop run needs at least 3 (2 s of warm-up)"
        )));
    }
    if let Switch::Pktlab { stages, .. } = switch {
        if *stages != Stages::Io {
            return Err(Error::param(format!(
                "--stages {}: only io can loop (l3 and full decrement the TTL on every pass)",
                stages.name()
            )));
        }
    }
    let _pages = Hugepages::ensure(if matches!(switch, Switch::Testpmd { .. }) {
        260
    } else {
        130
    })?;
    let dir = Scratch::new()?;
    let (a, b) = (dir.0.join("a.sock"), dir.0.join("b.sock"));
    let stop = Arc::new(AtomicBool::new(false));
    // The loop's rate follows the host's cross-CPU latency (module `xcpu`): probed just before
    // the run, while nothing of it runs yet, and just after.
    let probe = || crate::xcpu::round_trip_ns(0, 1, Duration::from_millis(100));
    let before = probe();
    let mut r = std::thread::scope(|s| -> Result<LoopResult> {
        let mut sw_proc = None;
        let sw = match switch {
            Switch::Pktlab { meta, batch, .. } => {
                // Both directions, as testpmd's switch: the CNF's two injected bursts
                // circulate.
                let fcfg = ForwardConfig {
                    duplex: true,
                    ..switch_config(&dir.0, Stages::Io, *meta, *batch, &stop)?
                };
                let h = s.spawn(move || {
                    crate::xcpu::pin(1);
                    crate::forward::forward(&fcfg, &Silent)
                });
                wait_for(&b, Duration::from_secs(30))?;
                Some(h)
            }
            Switch::Testpmd { bin, mode } => {
                sw_proc = Some(start_testpmd(bin, mode, &a, &b)?);
                wait_for(&a, Duration::from_secs(20))?;
                wait_for(&b, Duration::from_secs(20))?;
                None
            }
        };
        // Line-buffered through coreutils' stdbuf where it exists: a piped testpmd otherwise
        // holds its per-second statistics in a block buffer.
        let mut cnf = match which("stdbuf") {
            Some(sb) => {
                let mut c = Command::new(sb);
                c.args(["-oL", "-eL"]).arg(testpmd_bin);
                c
            }
            None => Command::new(testpmd_bin),
        };
        let mut cnf = cnf
            .args([
                "--lcores",
                "0@0,1@0",
                "--main-lcore",
                "0",
                "-n",
                "1",
                "--no-pci",
            ])
            .args(["--socket-mem=256", "--in-memory", "--single-file-segments"])
            .arg(format!("--file-prefix=pktlab-cnf-{}", std::process::id()))
            .arg(format!(
                "--vdev=net_virtio_user0,path={},queues=1",
                a.display()
            ))
            .arg(format!(
                "--vdev=net_virtio_user1,path={},queues=1",
                b.display()
            ))
            .args(["--", "--forward-mode=io", "--tx-first"])
            .args(["--total-num-mbufs=32768", "--stats-period", "1"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::Run(format!("{}: cannot start: {e}", testpmd_bin.display())))?;
        let (mut out, mut err) = (
            cnf.stdout.take().expect("piped"),
            cnf.stderr.take().expect("piped"),
        );
        let reader = s.spawn(move || {
            let mut t = String::new();
            let _ = out.read_to_string(&mut t);
            t
        });
        let err_reader = s.spawn(move || {
            let mut t = String::new();
            let _ = err.read_to_string(&mut t);
            t
        });
        let cnf = Proc(cnf);
        std::thread::sleep(Duration::from_secs(seconds));
        drop(cnf);
        let text = reader
            .join()
            .map_err(|_| Error::Run("the CNF reader panicked".into()))?;
        let errs = err_reader.join().unwrap_or_default();
        stop.store(true, Ordering::Relaxed);
        drop(sw_proc);
        let (drops, mean_burst) = match sw {
            Some(h) => {
                let r = h
                    .join()
                    .map_err(|_| Error::Run("the switch thread panicked".into()))??;
                let burst = r.packets as f64 / r.batches.max(1) as f64;
                (Some(r.packets - r.forwarded), Some(burst))
            }
            None => (None, None),
        };
        let samples = rx_pps(&text);
        if samples.is_empty() {
            let last: Vec<&str> = text.lines().chain(errs.lines()).rev().take(3).collect();
            return Err(Error::Run(format!(
                "{}: the testpmd CNF printed no receive rate; its last lines: {}",
                switch.label(),
                last.join(" | ")
                    .chars()
                    .take(240)
                    .collect::<String>()
                    .escape_debug()
            )));
        }
        let mut sorted = samples.clone();
        sorted.sort_by(f64::total_cmp);
        Ok(LoopResult {
            switch: switch.label(),
            mpps: sorted[sorted.len() / 2],
            samples,
            switch_drops: drops,
            mean_burst,
            xcpu_ns: [before, None],
        })
    })?;
    r.xcpu_ns[1] = probe();
    Ok(r)
}

/// The summed `Rx-pps` of both ports per stats period in testpmd's output, after the first
/// two periods (warm-up; fewer when the run printed fewer than three), in Mpps.
fn rx_pps(text: &str) -> Vec<f64> {
    let v: Vec<f64> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Rx-pps:"))
        .filter_map(|r| r.split_whitespace().next()?.parse::<f64>().ok())
        .collect();
    let pairs: Vec<f64> = v.chunks_exact(2).map(|p| (p[0] + p[1]) / 1e6).collect();
    // Two periods of warm-up, but keep at least one sample of a short run.
    let skip = 2.min(pairs.len().saturating_sub(1));
    pairs[skip..].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pktlab chain needs no privileges: every packet the generator sent reaches the sink
    /// or is a counted drop of the switch (the switch received all of them), TTLs are one
    /// lower, checksums valid.
    #[test]
    fn pktlab_chain_accounts_for_every_packet() {
        let r = run_chain(&ChainConfig {
            switch: Switch::Pktlab {
                stages: Stages::L3,
                meta: MetaKind::Dpdk,
                batch: 32,
            },
            seconds: 0.3,
            frame: 64,
        })
        .unwrap();
        assert!(r.sent > 0, "{r:?}");
        assert_eq!(r.switch_rx, Some(r.sent), "{r:?}");
        let forwarded = r.switch_rx.unwrap() - r.switch_drops.unwrap();
        assert_eq!(r.delivered, forwarded, "{r:?}");
        assert!(r.delivered > 0, "{r:?}");
        assert_eq!(r.checksum_errors, 0, "{r:?}");
        assert!(r.ttl.keys().all(|&t| t == 63), "{r:?}");
    }

    #[test]
    fn rx_pps_sums_both_ports_after_the_warm_up() {
        let one = "  Rx-pps:      1000000          Rx-bps: 1\n  Tx-pps: 5\n  Rx-pps:       500000          Rx-bps: 1\n";
        let t = one.repeat(4);
        assert_eq!(rx_pps(&t), vec![1.5, 1.5]);
        assert!(rx_pps("no stats").is_empty());
        assert_eq!(
            rx_pps(&one.repeat(2)),
            vec![1.5],
            "a short run keeps its last sample"
        );
    }

    #[test]
    fn a_pktlab_loop_refuses_l3() {
        let e = run_loop(
            &Switch::Pktlab {
                stages: Stages::L3,
                meta: MetaKind::Dpdk,
                batch: 32,
            },
            Path::new("/nonexistent"),
            5,
        )
        .unwrap_err();
        assert!(e.to_string().contains("only io"), "{e}");
    }

    #[test]
    fn bad_seconds_is_a_parameter_error() {
        let e = run_chain(&ChainConfig {
            switch: Switch::Testpmd {
                bin: "/nonexistent".into(),
                mode: "io",
            },
            seconds: 0.0,
            frame: 64,
        })
        .unwrap_err();
        assert!(e.to_string().contains("seconds"), "{e}");
    }
}
