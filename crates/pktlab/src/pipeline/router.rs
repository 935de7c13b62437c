//! The router's N ports as one receive and one transmit port of a [`super::worker::Worker`]:
//! [`RouterRx`] takes bursts from every live port in turn (none of them blocks; when all are
//! idle it waits on all their sockets at once), and [`RouterTx`] sends each frame out of the
//! port whose interface MAC is the frame's source MAC — the worker wrote it from the route's
//! adjacency ([`super::fib::AdjTable`]), so the output port follows the route without a
//! per-packet side channel between the two.
//!
//! Router ports are live interfaces (`afpacket:IFACE`, `afxdp:IFACE…`): a port needs an
//! interface index for the kernel's routes and a MAC for the rewritten frames.

use super::fib::PortIface;
use crate::mbuf::{Buf, Layout};
use crate::port::afpacket::{PortCounters, PortStats, IDLE_POLL_MS};
use crate::port::afxdp::{AfXdpRx, AfXdpSpec, AfXdpTx, XdpStats};
use crate::port::{AfPacketRx, AfPacketTx, Bufs, RxPort, TxPort};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Errors of router ports.
#[derive(Debug, thiserror::Error)]
pub enum RouterPortError {
    /// The port text is not a live port.
    #[error(
        "port {0:?}: a router port is afpacket:IFACE or afxdp:IFACE[,queue=N][,copy|zerocopy]"
    )]
    Kind(String),
    /// Opening the port failed (the message names it).
    #[error("{0}")]
    Open(String),
    /// Two ports share an interface MAC (frames could not be told apart).
    #[error("ports {0} and {1} have the same MAC address")]
    SameMac(String, String),
}

/// A router port as the CLI names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouterPortSpec {
    /// `afpacket:IFACE`.
    AfPacket(String),
    /// `afxdp:IFACE[,queue=N][,copy|zerocopy]`.
    AfXdp(AfXdpSpec),
}

impl std::str::FromStr for RouterPortSpec {
    type Err = RouterPortError;
    fn from_str(s: &str) -> Result<Self, RouterPortError> {
        if let Some(i) = s.strip_prefix("afpacket:") {
            if i.is_empty() || i.len() >= libc::IFNAMSIZ {
                return Err(RouterPortError::Kind(s.into()));
            }
            return Ok(RouterPortSpec::AfPacket(i.into()));
        }
        if s.starts_with("afxdp:") {
            return s
                .parse()
                .map(RouterPortSpec::AfXdp)
                .map_err(|e: crate::port::afxdp::AfXdpError| RouterPortError::Open(e.to_string()));
        }
        Err(RouterPortError::Kind(s.into()))
    }
}

impl RouterPortSpec {
    /// The interface name.
    pub fn iface(&self) -> &str {
        match self {
            RouterPortSpec::AfPacket(i) => i,
            RouterPortSpec::AfXdp(s) => &s.iface,
        }
    }
}

impl std::fmt::Display for RouterPortSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RouterPortSpec::AfPacket(i) => write!(f, "afpacket:{i}"),
            RouterPortSpec::AfXdp(s) => s.fmt(f),
        }
    }
}

/// One live receive queue.
pub enum LiveRx {
    /// AF_PACKET.
    AfPacket(AfPacketRx),
    /// AF_XDP.
    AfXdp(AfXdpRx),
}

/// One live transmit queue.
pub enum LiveTx {
    /// AF_PACKET.
    AfPacket(AfPacketTx),
    /// AF_XDP.
    AfXdp(AfXdpTx),
}

/// Counters of one router port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum LiveStats {
    /// An afpacket port (rx and tx sockets).
    AfPacket {
        /// Receive socket.
        rx: PortStats,
        /// Transmit socket.
        tx: PortStats,
    },
    /// An afxdp port (one socket).
    AfXdp(XdpStats),
}

/// Opens the ports: port `i` receives as input port `i`. Returns the two halves and each
/// port's interface (index, MAC) for the FIB.
pub fn open_ports(
    specs: &[RouterPortSpec],
    stop: Arc<AtomicBool>,
) -> Result<(RouterRx, RouterTx, Vec<PortIface>), RouterPortError> {
    let (mut rxs, mut txs, mut ifs) = (Vec::new(), Vec::new(), Vec::<PortIface>::new());
    for (i, s) in specs.iter().enumerate() {
        let open = |e: crate::port::PortError| RouterPortError::Open(e.to_string());
        let (rx, tx) = match s {
            RouterPortSpec::AfPacket(name) => {
                let mut rx = AfPacketRx::open(name, i as u16, None, stop.clone()).map_err(open)?;
                rx.set_idle_poll_ms(0);
                let tx = AfPacketTx::open(name, false).map_err(open)?;
                (LiveRx::AfPacket(rx), LiveTx::AfPacket(tx))
            }
            RouterPortSpec::AfXdp(x) => {
                let (mut rx, tx) = crate::port::afxdp::open(x, i as u16, stop.clone())
                    .map_err(|e| RouterPortError::Open(e.to_string()))?;
                rx.set_idle_poll_ms(0);
                (LiveRx::AfXdp(rx), LiveTx::AfXdp(tx))
            }
        };
        let name = s.iface();
        let c = std::ffi::CString::new(name).map_err(|_| RouterPortError::Kind(s.to_string()))?;
        // SAFETY: a valid NUL-terminated name.
        let ifindex = unsafe { libc::if_nametoindex(c.as_ptr()) };
        let mac = crate::port::afxdp::iface_mac(name).unwrap_or([0; 6]);
        if let Some(o) = ifs.iter().find(|p| p.mac == mac) {
            return Err(RouterPortError::SameMac(o.name.clone(), name.into()));
        }
        ifs.push(PortIface {
            name: name.into(),
            ifindex,
            mac,
        });
        rxs.push(rx);
        txs.push(tx);
    }
    let n = txs.len();
    Ok((
        RouterRx {
            ports: rxs,
            next: 0,
            stop,
        },
        RouterTx {
            macs: ifs.iter().map(|p| p.mac).collect(),
            ports: txs,
            out: (0..n).map(|_| Vec::new()).collect(),
            lens: (0..n).map(|_| Vec::new()).collect(),
            no_port: 0,
        },
        ifs,
    ))
}

/// A receive side's counters (afpacket) and XDP mode (afxdp: where the program runs,
/// zero-copy or not), see [`RouterRx::probes`].
pub type RxProbe = (Option<Arc<PortCounters>>, Option<(&'static str, bool)>);

/// Every router port's receive side.
pub struct RouterRx {
    ports: Vec<LiveRx>,
    next: usize,
    stop: Arc<AtomicBool>,
}

impl RouterRx {
    /// Waits until one port has frames (or `ms` passed).
    fn wait(&self, ms: i32) {
        let mut fds: Vec<libc::pollfd> = self
            .ports
            .iter()
            .map(|p| libc::pollfd {
                fd: match p {
                    LiveRx::AfPacket(r) => r.fd(),
                    LiveRx::AfXdp(r) => r.fd(),
                },
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: `fds` is a valid array of pollfds for the call's duration.
        unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
    }

    /// Each port's receive-socket counters (afpacket; `None` for afxdp, whose one socket
    /// reports through [`RouterTx::stats`]) and XDP mode (afxdp: where the program runs and
    /// whether the socket is zero-copy), in port order — take them before the run.
    pub fn probes(&self) -> Vec<RxProbe> {
        self.ports
            .iter()
            .map(|p| match p {
                LiveRx::AfPacket(r) => (Some(r.counters()), None),
                LiveRx::AfXdp(r) => (None, Some(r.mode())),
            })
            .collect()
    }
}

impl RxPort for RouterRx {
    fn rx_burst<L: Layout>(
        &mut self,
        ctx: &mut Bufs<'_, L>,
        out: &mut Vec<Buf>,
        max: usize,
    ) -> usize {
        let start = out.len();
        let n = self.ports.len();
        for k in 0..n {
            let want = max - (out.len() - start);
            if want == 0 {
                break;
            }
            match &mut self.ports[(self.next + k) % n] {
                LiveRx::AfPacket(p) => p.rx_burst(ctx, out, want),
                LiveRx::AfXdp(p) => p.rx_burst(ctx, out, want),
            };
        }
        self.next = (self.next + 1) % n.max(1);
        let got = out.len() - start;
        if got == 0 && !self.stop.load(Ordering::Relaxed) {
            self.wait(IDLE_POLL_MS);
        }
        got
    }

    fn exhausted(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn want_flow_hash(&mut self, wanted: bool) {
        for p in &mut self.ports {
            match p {
                LiveRx::AfPacket(p) => p.want_flow_hash(wanted),
                LiveRx::AfXdp(p) => p.want_flow_hash(wanted),
            }
        }
    }
}

/// Every router port's transmit side; a frame leaves by the port with its source MAC.
pub struct RouterTx {
    ports: Vec<LiveTx>,
    macs: Vec<[u8; 6]>,
    out: Vec<Vec<Buf>>,
    lens: Vec<Vec<u16>>,
    no_port: u64,
}

impl RouterTx {
    /// Frames whose source MAC is no port's (dropped; the worker never makes one).
    pub fn no_port(&self) -> u64 {
        self.no_port
    }

    /// Per-port counters, in port order; `rx`: the afpacket receive counters
    /// ([`RouterRx::probes`]).
    pub fn stats(&self, rx: &[Option<Arc<PortCounters>>]) -> Vec<LiveStats> {
        self.ports
            .iter()
            .zip(rx)
            .map(|(t, r)| match t {
                LiveTx::AfXdp(t) => LiveStats::AfXdp(t.stats()),
                LiveTx::AfPacket(t) => LiveStats::AfPacket {
                    rx: r.as_ref().map(|c| c.snapshot()).unwrap_or_default(),
                    tx: t.counters().snapshot(),
                },
            })
            .collect()
    }
}

impl TxPort for RouterTx {
    fn tx_burst<L: Layout>(
        &mut self,
        ctx: &mut Bufs<'_, L>,
        bufs: &mut Vec<Buf>,
        lens: &[u16],
        ts: &[u64],
    ) {
        let mut stray = Vec::new();
        for (b, &len) in bufs.drain(..).zip(lens) {
            let src = ctx.pool.data(&b).get(6..12);
            match self.macs.iter().position(|m| Some(&m[..]) == src) {
                Some(p) => {
                    self.out[p].push(b);
                    self.lens[p].push(len);
                }
                None => {
                    self.no_port += 1;
                    stray.push(b);
                }
            }
        }
        ctx.free_all(&mut stray);
        for (p, port) in self.ports.iter_mut().enumerate() {
            if self.out[p].is_empty() {
                continue;
            }
            let (b, l) = (&mut self.out[p], &self.lens[p]);
            let ts = &ts[..l.len().min(ts.len())];
            match port {
                LiveTx::AfPacket(t) => t.tx_burst(ctx, b, l, ts),
                LiveTx::AfXdp(t) => t.tx_burst(ctx, b, l, ts),
            }
            self.lens[p].clear();
        }
    }

    fn packets(&self) -> u64 {
        self.ports
            .iter()
            .map(|p| match p {
                LiveTx::AfPacket(t) => t.packets(),
                LiveTx::AfXdp(t) => t.packets(),
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_specs() {
        assert_eq!(
            "afpacket:r-a".parse::<RouterPortSpec>().unwrap(),
            RouterPortSpec::AfPacket("r-a".into())
        );
        let x: RouterPortSpec = "afxdp:r-b,queue=1".parse().unwrap();
        assert_eq!(x.iface(), "r-b");
        assert_eq!(x.to_string(), "afxdp:r-b,queue=1");
        let e = "pcap:x.pcap"
            .parse::<RouterPortSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("a router port is afpacket:IFACE"), "{e}");
        let e = "afxdp:r-b,bogus"
            .parse::<RouterPortSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("option 2"), "{e}");
    }

    #[test]
    fn missing_interface_fails_in_one_line() {
        let s = vec!["afpacket:pktlab-nosuch1".parse().unwrap()];
        let e = open_ports(&s, Arc::new(AtomicBool::new(false)))
            .err()
            .expect("no such interface")
            .to_string();
        assert!(e.contains("pktlab-nosuch1: no such interface"), "{e}");
        assert!(!e.contains('\n'));
    }
}
