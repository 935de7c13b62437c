//! The virtio ports of a `pktlab forward` run ([`pktlab::port::vhost_user`] as the switch,
//! [`pktlab::port::virtio_user`] as a CNF): one vhost-user socket per spec with a queue pair
//! per worker (a socket named by both `--rx` and `--tx` is one device: the switch answers a
//! CNF on the port it came from), the devices kept alive for the run, and their counters.

use pktlab::port::afpacket::PortStats;
use pktlab::port::vhost_user::{VhostUserDev, MAX_QUEUE_PAIRS};
use pktlab::port::virtio_stats::{VirtioCounters, VirtioStats};
use pktlab::port::virtio_user;
use pktlab::port::{AnyRx, AnyTx, RxSpec, TxSpec, VhostSpec};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// How long a virtio-user port waits for its backend's socket.
const CONNECT_WAIT: Duration = Duration::from_secs(10);

/// The virtio devices and counters of one run.
#[derive(Default)]
pub(crate) struct VirtioPorts {
    rx_dev: Option<Arc<VhostUserDev>>,
    tx_dev: Option<Arc<VhostUserDev>>,
    /// Every queue's counters, with its device (0: `rx_dev`, 1: `tx_dev`).
    counters: Vec<(usize, Arc<VirtioCounters>)>,
    used: bool,
}

/// One vhost-user port's counters (its queues' and the device's), for a duplex run's result.
#[derive(Clone, Debug, Default, serde::Serialize, PartialEq, Eq)]
pub struct PortVirtio {
    /// The port (`vhost-user:PATH`).
    pub port: String,
    /// Its counters.
    pub stats: VirtioStats,
}

fn open(v: &VhostSpec, workers: usize, stop: &Arc<AtomicBool>) -> Result<VhostUserDev, String> {
    let pairs = u16::try_from(workers)
        .ok()
        .filter(|p| *p <= MAX_QUEUE_PAIRS)
        .ok_or_else(|| {
            format!("{v}: --workers {workers}: a vhost-user port has at most {MAX_QUEUE_PAIRS} queue pairs")
        })?;
    VhostUserDev::open(&v.path, v.client, pairs, stop.clone()).map_err(|e| e.to_string())
}

impl VirtioPorts {
    /// Opens the vhost-user sockets `rx` and `tx` name (none for other ports) with a queue
    /// pair per worker; `stop` ends their control threads and receive queues.
    pub(crate) fn open(
        rx: &RxSpec,
        tx: &TxSpec,
        workers: usize,
        stop: &Arc<AtomicBool>,
    ) -> Result<VirtioPorts, String> {
        let mut v = VirtioPorts::default();
        let virtio_user =
            matches!(rx, RxSpec::VirtioUser(_)) || matches!(tx, TxSpec::VirtioUser(_));
        if virtio_user && workers != 1 {
            return Err(format!(
                "virtio-user ports have one queue pair: they need --workers 1 (got {workers})"
            ));
        }
        if let RxSpec::VhostUser(s) = rx {
            v.rx_dev = Some(Arc::new(open(s, workers, stop)?));
            v.used = true;
        }
        if let TxSpec::VhostUser(s) = tx {
            v.tx_dev = match (&v.rx_dev, rx) {
                (Some(d), RxSpec::VhostUser(r)) if r.path == s.path => Some(d.clone()),
                _ => Some(Arc::new(open(s, workers, stop)?)),
            };
            v.used = true;
        }
        Ok(v)
    }

    /// Worker `i`'s receive queue, if `spec` is a virtio port.
    pub(crate) fn rx(
        &mut self,
        i: usize,
        spec: &RxSpec,
        tx: &TxSpec,
        stop: &Arc<AtomicBool>,
    ) -> Result<Option<(AnyRx, Option<AnyTx>)>, String> {
        match spec {
            RxSpec::VhostUser(_) => {
                let d = self.rx_dev.as_ref().expect("opened");
                let p = d.rx(i as u16, 0);
                self.counters.push((0, p.counters()));
                Ok(Some((AnyRx::VhostUser(p), None)))
            }
            RxSpec::VirtioUser(path) => {
                let (r, t) = connect(path, stop)?;
                self.counters.push((0, r.counters()));
                self.used = true;
                // The same socket for both directions: one connection.
                let t = match tx {
                    TxSpec::VirtioUser(p) if p == path => {
                        self.counters.push((0, t.counters()));
                        Some(AnyTx::VirtioUser(t))
                    }
                    _ => None,
                };
                Ok(Some((AnyRx::VirtioUser(r), t)))
            }
            _ => Ok(None),
        }
    }

    /// Worker `i`'s transmit queue, if `spec` is a virtio port.
    pub(crate) fn tx(
        &mut self,
        i: usize,
        spec: &TxSpec,
        stop: &Arc<AtomicBool>,
    ) -> Result<Option<AnyTx>, String> {
        match spec {
            TxSpec::VhostUser(_) => {
                let d = self.tx_dev.as_ref().expect("opened");
                let p = d.tx(i as u16);
                self.counters.push((1, p.counters()));
                Ok(Some(AnyTx::VhostUser(p)))
            }
            TxSpec::VirtioUser(path) => {
                let (_, t) = connect(path, stop)?;
                self.counters.push((1, t.counters()));
                self.used = true;
                Ok(Some(AnyTx::VirtioUser(t)))
            }
            _ => Ok(None),
        }
    }

    /// Worker `i`'s reverse direction of a duplex switch between two vhost-user sockets:
    /// the `tx` socket's receive queue (as input port 1) and the `rx` socket's transmit
    /// queue. An error unless `--rx` and `--tx` are two different vhost-user sockets.
    pub(crate) fn reverse(&mut self, i: usize) -> Result<(AnyRx, AnyTx), String> {
        let (Some(a), Some(b)) = (&self.rx_dev, &self.tx_dev) else {
            return Err("--duplex needs --rx vhost-user:A --tx vhost-user:B".into());
        };
        if Arc::ptr_eq(a, b) {
            return Err(
                "--duplex needs two different vhost-user sockets (--rx and --tx name the same)"
                    .into(),
            );
        }
        let (r, t) = (b.rx(i as u16, 1), a.tx(i as u16));
        self.counters.push((1, r.counters()));
        self.counters.push((0, t.counters()));
        Ok((AnyRx::VhostUser(r), AnyTx::VhostUser(t)))
    }

    /// Each vhost-user device's counters (its queues' and its own), named by `names`
    /// (the `--rx` and `--tx` specs).
    pub(crate) fn per_port(&self, names: [String; 2]) -> Vec<PortVirtio> {
        let devs = [&self.rx_dev, &self.tx_dev];
        let one = matches!(devs, [Some(a), Some(b)] if Arc::ptr_eq(a, b));
        let mut out = Vec::new();
        for (k, (d, name)) in devs.iter().zip(names).enumerate() {
            let Some(d) = d else { continue };
            if k == 1 && one {
                continue;
            }
            let mut s = d.counters().snapshot();
            for (_, c) in self.counters.iter().filter(|(j, _)| *j == k || one) {
                s.add(&c.snapshot());
            }
            out.push(PortVirtio {
                port: name,
                stats: s,
            });
        }
        out
    }

    /// The ports' counters summed, with the devices' connection events (`None` without
    /// virtio ports).
    pub(crate) fn stats(&self) -> Option<VirtioStats> {
        if !self.used {
            return None;
        }
        let mut s = VirtioStats::default();
        for (_, c) in &self.counters {
            s.add(&c.snapshot());
        }
        let devs = [&self.rx_dev, &self.tx_dev];
        for (k, d) in devs.iter().enumerate() {
            let Some(d) = d else { continue };
            let same = k == 1 && self.rx_dev.as_ref().is_some_and(|r| Arc::ptr_eq(r, d));
            if !same {
                s.add(&d.counters().snapshot());
            }
        }
        Some(s)
    }

    /// The counters in the afpacket ports' shape, for the live status line: packets waiting
    /// in a guest's ring are not lost, so there are no ring drops on receive; every transmit
    /// drop is a full or missing ring.
    pub(crate) fn port_stats(&self) -> Option<PortStats> {
        let v = self.stats()?;
        Some(PortStats {
            rx: v.rx,
            rx_ring_drops: 0,
            rx_oversize: v.rx_oversize + v.rx_bad_desc,
            tx: v.tx,
            tx_bytes: v.tx_bytes,
            tx_ring_full: v.tx_no_buffers + v.tx_not_ready,
            tx_rejected: v.tx_too_long + v.tx_bad_desc,
        })
    }
}

fn connect(
    path: &Path,
    stop: &Arc<AtomicBool>,
) -> Result<(pktlab::port::VirtioUserRx, pktlab::port::VirtioUserTx), String> {
    virtio_user::connect(path, 0, false, CONNECT_WAIT, stop.clone()).map_err(|e| e.to_string())
}

/// Merges the afpacket ports' counters and the virtio ports' (either may be absent).
pub(crate) fn merge(a: Option<PortStats>, b: Option<PortStats>) -> Option<PortStats> {
    match (a, b) {
        (Some(mut a), Some(b)) => {
            a.add(&b);
            Some(a)
        }
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_pair_limits_are_one_line_errors() {
        let stop = Arc::new(AtomicBool::new(false));
        let v = |p: &str| VhostSpec {
            path: std::env::temp_dir().join(format!("pktlab-vp-{}-{p}", std::process::id())),
            client: false,
        };
        let e = VirtioPorts::open(
            &RxSpec::VirtioUser("/nonexistent".into()),
            &TxSpec::Null,
            2,
            &stop,
        )
        .err()
        .unwrap();
        assert!(e.contains("--workers 1"), "{e}");
        let e = VirtioPorts::open(&RxSpec::VhostUser(v("a")), &TxSpec::Null, 9, &stop)
            .err()
            .unwrap();
        assert!(
            e.contains("at most 8 queue pairs") && !e.contains('\n'),
            "{e}"
        );
        // One socket for both directions is one device; counters start at zero.
        let s = v("b");
        let mut p = VirtioPorts::open(
            &RxSpec::VhostUser(s.clone()),
            &TxSpec::VhostUser(s.clone()),
            1,
            &stop,
        )
        .unwrap();
        assert!(Arc::ptr_eq(
            p.rx_dev.as_ref().unwrap(),
            p.tx_dev.as_ref().unwrap()
        ));
        assert!(p
            .rx(0, &RxSpec::VhostUser(s.clone()), &TxSpec::Null, &stop)
            .unwrap()
            .is_some());
        assert!(p
            .tx(0, &TxSpec::VhostUser(s.clone()), &stop)
            .unwrap()
            .is_some());
        assert_eq!(p.stats(), Some(VirtioStats::default()));
        assert_eq!(p.port_stats().map(|s| s.tx), Some(0));
        drop(p);
        assert!(!s.path.exists(), "the socket is removed with the device");
    }
}
