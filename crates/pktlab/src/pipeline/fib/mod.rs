//! The router's forwarding information: next hops as (output port, gateway or on-link) and
//! the adjacency table that turns a next hop into the destination MAC of a real neighbour.
//!
//! The LPM (Poptrie) maps a destination to a next-hop id; [`AdjTable`] maps the id to
//! `(port index, neighbour MAC)` or to "unresolved". The source MAC of a forwarded frame is
//! the output port's interface MAC ([`AdjTable::port_mac`]). A next hop is resolved when its
//! gateway (or, for a host route made from a neighbour entry, the neighbour itself) has a
//! usable entry in the kernel's neighbour table; an on-link route's own next hop (a connected
//! subnet) is never resolved, because its neighbour depends on the packet: each resolved
//! neighbour on that subnet is installed as a host route (/32, /128) with its own next hop,
//! as a hardware FIB installs adjacencies. A packet whose next hop is unresolved is counted
//! as `neigh_unresolved` and dropped, and its neighbour is probed ([`Probes`]) so the kernel
//! resolves it; the next packets of the flow then find it — never a made-up MAC.
//!
//! * [`state`] — the route and neighbour sets and the LPM operations they imply;
//! * [`kernel`] — `--fib kernel`: the kernel's routes and neighbours over rtnetlink, live.

pub mod kernel;
pub mod state;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};

/// Errors of the forwarding information base.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FibError {
    /// More distinct next hops than the adjacency table holds.
    #[error("fib: more than {0} distinct next hops")]
    Full(usize),
    /// A netlink socket or message failed.
    #[error("fib kernel: {0}")]
    Netlink(String),
    /// A port's interface is unknown or given twice.
    #[error("fib: port {0}")]
    Port(String),
}

/// The kernel's identity of a next hop: the output interface and the gateway (`None`: the
/// destination is on-link, a connected subnet).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hop {
    /// Output interface index.
    pub ifindex: u32,
    /// Gateway, or `None` for on-link.
    pub gw: Option<IpAddr>,
}

/// A router port's interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortIface {
    /// Interface name.
    pub name: String,
    /// Interface index.
    pub ifindex: u32,
    /// Interface MAC (the source MAC of frames sent on it).
    pub mac: [u8; 6],
}

/// Port index 0xFFFF in an adjacency slot: unresolved.
const UNRESOLVED: u64 = 0xFFFF << 48;

/// A resolved next hop: where the frame goes and to which MAC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adj {
    /// Output port index (into the router's port list).
    pub port: u16,
    /// Destination MAC (the neighbour's).
    pub dst: [u8; 6],
}

fn pack(a: Option<Adj>) -> u64 {
    match a {
        None => UNRESOLVED,
        Some(a) => {
            let mut m = [0u8; 8];
            m[2..].copy_from_slice(&a.dst);
            (a.port as u64) << 48 | u64::from_be_bytes(m)
        }
    }
}

fn unpack(v: u64) -> Option<Adj> {
    let port = (v >> 48) as u16;
    if port == 0xFFFF {
        return None;
    }
    let b = v.to_be_bytes();
    let mut dst = [0u8; 6];
    dst.copy_from_slice(&b[2..]);
    Some(Adj { port, dst })
}

/// Next hop id → adjacency, shared by the updater (writes) and the workers (one relaxed
/// atomic load per forwarded packet; a slot is one `u64`, so a reader never sees half an
/// update). Id 0 is "no route" and never resolved.
#[derive(Debug)]
pub struct AdjTable {
    slots: Box<[AtomicU64]>,
    ports: Vec<PortIface>,
}

impl AdjTable {
    /// A table of `cap` next hops (all unresolved) for these ports (at most 0xFFFE).
    pub fn new(cap: usize, ports: Vec<PortIface>) -> Result<AdjTable, FibError> {
        if ports.len() >= 0xFFFF {
            return Err(FibError::Port(format!("count {} over 65534", ports.len())));
        }
        for (i, p) in ports.iter().enumerate() {
            if ports[..i].iter().any(|q| q.ifindex == p.ifindex) {
                return Err(FibError::Port(format!("{}: given twice", p.name)));
            }
        }
        Ok(AdjTable {
            slots: (0..cap.max(1))
                .map(|_| AtomicU64::new(UNRESOLVED))
                .collect(),
            ports,
        })
    }

    /// Slots (next-hop ids `0..capacity`).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// The adjacency of next hop `nh`, `None` if unresolved (or out of range).
    #[inline(always)]
    pub fn get(&self, nh: u32) -> Option<Adj> {
        unpack(self.slots.get(nh as usize)?.load(Ordering::Relaxed))
    }

    /// Sets next hop `nh`'s adjacency (`nh` < capacity).
    pub fn set(&self, nh: u32, a: Option<Adj>) {
        if let Some(s) = self.slots.get(nh as usize) {
            s.store(pack(a), Ordering::Relaxed);
        }
    }

    /// The ports.
    pub fn ports(&self) -> &[PortIface] {
        &self.ports
    }

    /// The port index of interface `ifindex`, if it is one of the router's.
    pub fn port_of(&self, ifindex: u32) -> Option<u16> {
        self.ports
            .iter()
            .position(|p| p.ifindex == ifindex)
            .map(|i| i as u16)
    }

    /// Port `port`'s interface MAC.
    #[inline(always)]
    pub fn port_mac(&self, port: u16) -> [u8; 6] {
        self.ports[port as usize].mac
    }
}

/// Writes `a`'s destination MAC and the output port's MAC as source into an Ethernet frame.
#[inline(always)]
pub fn rewrite_macs(frame: &mut [u8], a: Adj, src: [u8; 6]) {
    frame[..6].copy_from_slice(&a.dst);
    frame[6..12].copy_from_slice(&src);
}

/// Interned next hops: [`Hop`] ↔ id (1-based, the LPM's next-hop value). Ids are never
/// reused while the router runs (a hop whose last route went away keeps its id).
#[derive(Debug, Default)]
pub struct NextHops {
    hops: Vec<Hop>,
    ids: HashMap<Hop, u32>,
}

impl NextHops {
    /// The id of `h`, interning it if new; [`FibError::Full`] past `cap - 1` hops.
    pub fn intern(&mut self, h: Hop, cap: usize) -> Result<u32, FibError> {
        if let Some(&id) = self.ids.get(&h) {
            return Ok(id);
        }
        let id = self.hops.len() as u32 + 1;
        if id as usize >= cap {
            return Err(FibError::Full(cap - 1));
        }
        self.hops.push(h);
        self.ids.insert(h, id);
        Ok(id)
    }

    /// The id of `h` if interned.
    pub fn id(&self, h: &Hop) -> Option<u32> {
        self.ids.get(h).copied()
    }

    /// The hop of id `id`.
    pub fn hop(&self, id: u32) -> Option<Hop> {
        self.hops.get((id as usize).checked_sub(1)?).copied()
    }

    /// Distinct next hops.
    pub fn len(&self) -> usize {
        self.hops.len()
    }

    /// No next hop yet.
    pub fn is_empty(&self) -> bool {
        self.hops.is_empty()
    }
}

/// A request from a worker: next hop `nh` was unresolved for a packet to `dst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeRequest {
    /// The unresolved next hop.
    pub nh: u32,
    /// The packet's destination (probed for an on-link next hop).
    pub dst: IpAddr,
}

/// The workers' side of the probe channel (clone one per worker). Never blocks: when the
/// updater is behind, requests are dropped (the packets are counted as unresolved anyway).
#[derive(Clone, Debug)]
pub struct Probes(SyncSender<ProbeRequest>);

impl Probes {
    /// A channel of `cap` pending requests.
    pub fn channel(cap: usize) -> (Probes, Receiver<ProbeRequest>) {
        let (s, r) = std::sync::mpsc::sync_channel(cap);
        (Probes(s), r)
    }

    /// Asks for `nh` to be resolved; false if the request was dropped.
    pub fn request(&self, nh: u32, v6: bool, dst: u128) -> bool {
        let dst = if v6 {
            IpAddr::V6(dst.into())
        } else {
            IpAddr::V4((dst as u32).into())
        };
        !matches!(
            self.0.try_send(ProbeRequest { nh, dst }),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_))
        )
    }
}

/// Live counters of the FIB updater (shared with the status line and the JSON).
#[derive(Debug, Default)]
pub struct FibCounters {
    /// IPv4 routes in the LPM (kernel routes and neighbour host routes).
    pub routes_v4: AtomicU64,
    /// IPv6 routes in the LPM.
    pub routes_v6: AtomicU64,
    /// Neighbour entries known (any state).
    pub neighbours: AtomicU64,
    /// Kernel routes not taken: another table, not unicast, or an interface that is not a port.
    pub routes_skipped: AtomicU64,
    /// Route and neighbour messages applied after the initial dump.
    pub updates_applied: AtomicU64,
    /// Publications of the LPM (each bumps the flow-cache epoch).
    pub publishes: AtomicU64,
    /// Largest lag from a message's arrival to its publication, µs.
    pub lag_max_us: AtomicU64,
    /// Sum of the lags of the applied updates, µs (mean = sum / updates_applied).
    pub lag_sum_us: AtomicU64,
    /// Neighbour probes sent for unresolved next hops.
    pub probes: AtomicU64,
    /// Probes not sent because the prober already remembered its maximum of recently probed
    /// addresses (a flood of new on-link destinations).
    pub probes_suppressed: AtomicU64,
    /// Next hops that did not fit the adjacency table.
    pub adj_full: AtomicU64,
}

/// A snapshot of [`FibCounters`].
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct FibStats {
    /// IPv4 routes in the LPM.
    pub routes_v4: u64,
    /// IPv6 routes in the LPM.
    pub routes_v6: u64,
    /// Neighbour entries known.
    pub neighbours: u64,
    /// Kernel routes not taken.
    pub routes_skipped: u64,
    /// Route/neighbour updates applied after the dump.
    pub updates_applied: u64,
    /// LPM publications.
    pub publishes: u64,
    /// Largest update lag (arrival → published), µs.
    pub lag_max_us: u64,
    /// Mean update lag, µs.
    pub lag_mean_us: f64,
    /// Neighbour probes sent.
    pub probes: u64,
    /// Probes suppressed: the prober's memory of recent addresses was full.
    pub probes_suppressed: u64,
    /// Next hops that did not fit.
    pub adj_full: u64,
}

impl FibCounters {
    /// The current values.
    pub fn snapshot(&self) -> FibStats {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let n = g(&self.updates_applied);
        FibStats {
            routes_v4: g(&self.routes_v4),
            routes_v6: g(&self.routes_v6),
            neighbours: g(&self.neighbours),
            routes_skipped: g(&self.routes_skipped),
            updates_applied: n,
            publishes: g(&self.publishes),
            lag_max_us: g(&self.lag_max_us),
            lag_mean_us: if n == 0 {
                0.0
            } else {
                g(&self.lag_sum_us) as f64 / n as f64
            },
            probes: g(&self.probes),
            probes_suppressed: g(&self.probes_suppressed),
            adj_full: g(&self.adj_full),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(i: u32) -> PortIface {
        PortIface {
            name: format!("p{i}"),
            ifindex: i,
            mac: [2, 0, 0, 0, 0, i as u8],
        }
    }

    #[test]
    fn adjacency_round_trips_and_starts_unresolved() {
        let t = AdjTable::new(8, vec![port(3), port(7)]).unwrap();
        assert_eq!(t.get(1), None);
        assert_eq!(t.get(0), None);
        assert_eq!(t.get(99), None);
        let a = Adj {
            port: 1,
            dst: [0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff],
        };
        t.set(5, Some(a));
        assert_eq!(t.get(5), Some(a));
        t.set(5, None);
        assert_eq!(t.get(5), None);
        assert_eq!(t.port_of(7), Some(1));
        assert_eq!(t.port_of(4), None);
        assert_eq!(t.port_mac(1), [2, 0, 0, 0, 0, 7]);
        let e = AdjTable::new(8, vec![port(3), port(3)]).unwrap_err();
        assert_eq!(e.to_string(), "fib: port p3: given twice");
    }

    #[test]
    fn next_hops_intern_once_and_fill_up() {
        let mut n = NextHops::default();
        let h = |i, gw: Option<&str>| Hop {
            ifindex: i,
            gw: gw.map(|g| g.parse().unwrap()),
        };
        assert_eq!(n.intern(h(1, None), 3), Ok(1));
        assert_eq!(n.intern(h(1, Some("10.0.0.1")), 3), Ok(2));
        assert_eq!(n.intern(h(1, None), 3), Ok(1));
        assert_eq!(n.intern(h(2, None), 3), Err(FibError::Full(2)));
        assert_eq!(n.hop(2), Some(h(1, Some("10.0.0.1"))));
        assert_eq!(n.hop(0), None);
        assert_eq!(n.id(&h(1, Some("10.0.0.1"))), Some(2));
    }

    #[test]
    fn macs_are_rewritten() {
        let mut f = vec![0u8; 20];
        let a = Adj {
            port: 0,
            dst: [1, 2, 3, 4, 5, 6],
        };
        rewrite_macs(&mut f, a, [7, 8, 9, 10, 11, 12]);
        assert_eq!(&f[..12], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    }

    #[test]
    fn probes_never_block() {
        let (p, r) = Probes::channel(1);
        assert!(p.request(1, false, 0x0a00_0002));
        assert!(!p.request(2, false, 0x0a00_0003));
        assert_eq!(
            r.recv().unwrap(),
            ProbeRequest {
                nh: 1,
                dst: "10.0.0.2".parse().unwrap()
            }
        );
    }
}
