//! `--fib kernel`: the kernel's IPv4/IPv6 routes (main table) and neighbours over rtnetlink,
//! dumped once and then followed live (`RTM_NEWROUTE`, `RTM_DELROUTE`, `RTM_NEWNEIGH`,
//! `RTM_DELNEIGH`) into the shared Poptrie through the concurrent-update path
//! ([`crate::lpm::shared`]: left-right, readers never block).
//!
//! Messages are parsed with `netlink-packet-route` (the rust-netlink project's message types,
//! the ones the `rtnetlink` crate is built on) over a blocking `netlink-sys` socket read by
//! one updater thread: the `rtnetlink` crate itself is an async (tokio) API, which would bring
//! a runtime into the core library for one socket that a `poll` loop serves. After each
//! read of every pending message the updater publishes once and bumps the flow-cache epoch;
//! the lag of an update is the time from its arrival on the socket to that publication.
//!
//! The updater also sends the neighbour probes the workers ask for ([`super::Probes`]): an
//! empty UDP datagram to port 9 (discard) of the unresolved neighbour, which makes the kernel
//! resolve it (ARP / ND) as for any locally sent packet, at most once per 100 ms per address.
//! The gateway of a route that arrives while the router runs is probed at once, so a route
//! change does not wait for its first packet to start the resolution.
//! The resolved entry then arrives as `RTM_NEWNEIGH`.
//!
//! Taken: unicast routes of the main table (254) whose output interface is a router port
//! (multipath routes: their first next hop); neighbours in a usable state (reachable, stale,
//! delay, probe, permanent) with a link-layer address. Everything else is counted as skipped.

use super::state::FibState;
use super::{AdjTable, FibCounters, FibError, Hop, PortIface, ProbeRequest, Probes};
use crate::lpm::shared::{concurrent, LpmWriter, Op};
use crate::lpm::{Lpm, Poptrie, PoptrieConfig};
use crate::net::{Address, Prefix};
use crate::pipeline::worker::Tables;
use netlink_packet_core::{
    NetlinkHeader, NetlinkMessage, NetlinkPayload, NLM_F_DUMP, NLM_F_REQUEST,
};
use netlink_packet_route::neighbour::{
    NeighbourAddress, NeighbourAttribute, NeighbourMessage, NeighbourState,
};
use netlink_packet_route::route::{RouteAddress, RouteAttribute, RouteMessage, RouteType};
use netlink_packet_route::{AddressFamily, RouteNetlinkMessage};
use netlink_sys::{protocols::NETLINK_ROUTE, Socket, SocketAddr};
use std::collections::HashMap;
use std::net::{IpAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The main routing table.
const RT_TABLE_MAIN: u32 = 254;
/// rtnetlink multicast groups (linux/rtnetlink.h `RTNLGRP_*`).
const RTNLGRP_NEIGH: u32 = 3;
const RTNLGRP_IPV4_ROUTE: u32 = 7;
const RTNLGRP_IPV6_ROUTE: u32 = 11;
/// Minimum spacing of probes to one address.
const PROBE_SPACING: Duration = Duration::from_millis(100);
/// Addresses the prober remembers at most (those probed within the last [`PROBE_SPACING`]):
/// a peer sending to ever new on-link destinations cannot grow it further; beyond it, probes
/// are suppressed and counted (`probes_suppressed`).
const PROBE_MEMORY: usize = 4096;
/// Adjacency slots (distinct next hops) of a kernel FIB.
pub const ADJ_CAPACITY: usize = 1 << 16;

/// A route or neighbour change, as read from a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A route was added (or replaced) — or removed (`add` false).
    Route {
        /// Added or replaced (true), removed (false).
        add: bool,
        /// Destination network (masked) and length.
        dst: IpAddr,
        /// Prefix length.
        len: u8,
        /// Next hop.
        hop: Hop,
    },
    /// A neighbour entry changed: its MAC if usable, `None` if gone or unusable.
    Neigh {
        /// Interface.
        ifindex: u32,
        /// Neighbour address.
        ip: IpAddr,
        /// Link-layer address when usable.
        mac: Option<[u8; 6]>,
    },
}

fn route_ip(a: &RouteAddress) -> Option<IpAddr> {
    match a {
        RouteAddress::Inet(v) => Some(IpAddr::V4(*v)),
        RouteAddress::Inet6(v) => Some(IpAddr::V6(*v)),
        _ => None,
    }
}

/// The event of a route message, `None` if the router does not take it.
pub fn route_event(m: &RouteMessage, add: bool) -> Option<Event> {
    let h = &m.header;
    let mut table = h.table as u32;
    let (mut dst, mut gw, mut oif, mut multi) = (None, None, None, None);
    for a in &m.attributes {
        match a {
            RouteAttribute::Table(t) => table = *t,
            RouteAttribute::Destination(d) => dst = route_ip(d),
            RouteAttribute::Gateway(g) => gw = route_ip(g),
            RouteAttribute::Oif(i) => oif = Some(*i),
            RouteAttribute::MultiPath(hops) => multi = hops.first().cloned(),
            _ => {}
        }
    }
    if let Some(nh) = multi {
        oif = oif.or(Some(nh.interface_index));
        for a in &nh.attributes {
            if let RouteAttribute::Gateway(g) = a {
                gw = gw.or(route_ip(g));
            }
        }
    }
    if table != RT_TABLE_MAIN || (add && h.kind != RouteType::Unicast) {
        return None;
    }
    let dst = match (dst, h.address_family) {
        (Some(d), _) => d,
        (None, AddressFamily::Inet) => IpAddr::V4(0.into()),
        (None, AddressFamily::Inet6) => IpAddr::V6(0u128.into()),
        _ => return None,
    };
    Some(Event::Route {
        add,
        dst,
        len: h.destination_prefix_length,
        hop: Hop { ifindex: oif?, gw },
    })
}

/// The event of a neighbour message, `None` if not IP.
pub fn neigh_event(m: &NeighbourMessage, add: bool) -> Option<Event> {
    let mut ip = None;
    let mut mac = None;
    for a in &m.attributes {
        match a {
            NeighbourAttribute::Destination(NeighbourAddress::Inet(v)) => ip = Some(IpAddr::V4(*v)),
            NeighbourAttribute::Destination(NeighbourAddress::Inet6(v)) => {
                ip = Some(IpAddr::V6(*v))
            }
            NeighbourAttribute::LinkLayerAddress(l) if l.len() == 6 => {
                let mut b = [0u8; 6];
                b.copy_from_slice(l);
                mac = Some(b);
            }
            _ => {}
        }
    }
    let usable = add
        && matches!(
            m.header.state,
            NeighbourState::Reachable
                | NeighbourState::Stale
                | NeighbourState::Delay
                | NeighbourState::Probe
                | NeighbourState::Permanent
        );
    Some(Event::Neigh {
        ifindex: m.header.ifindex,
        ip: ip?,
        mac: if usable { mac } else { None },
    })
}

fn event_of(m: &RouteNetlinkMessage) -> Option<Event> {
    match m {
        RouteNetlinkMessage::NewRoute(r) => route_event(r, true),
        RouteNetlinkMessage::DelRoute(r) => route_event(r, false),
        RouteNetlinkMessage::NewNeighbour(n) => neigh_event(n, true),
        RouteNetlinkMessage::DelNeighbour(n) => neigh_event(n, false),
        _ => None,
    }
}

fn nl_err(what: &str, e: impl std::fmt::Display) -> FibError {
    FibError::Netlink(format!("{what}: {e}"))
}

/// Calls `f` for every message in one datagram; true if it held `NLMSG_DONE` (end of dump).
fn each_message(buf: &[u8], mut f: impl FnMut(&RouteNetlinkMessage)) -> Result<bool, FibError> {
    let mut off = 0;
    while off + 16 <= buf.len() {
        let m = NetlinkMessage::<RouteNetlinkMessage>::deserialize(&buf[off..])
            .map_err(|e| nl_err("bad message", e))?;
        let len = m.header.length as usize;
        match m.payload {
            NetlinkPayload::Done(_) => return Ok(true),
            NetlinkPayload::Error(e) if e.code.is_some() => {
                return Err(nl_err("kernel error", format!("{e:?}")))
            }
            NetlinkPayload::InnerMessage(ref i) => f(i),
            _ => {}
        }
        if len == 0 {
            break;
        }
        off += (len + 3) & !3;
    }
    Ok(false)
}

fn open_socket(groups: &[u32]) -> Result<Socket, FibError> {
    let mut s = Socket::new(NETLINK_ROUTE).map_err(|e| nl_err("socket", e))?;
    s.bind(&SocketAddr::new(0, 0))
        .map_err(|e| nl_err("bind", e))?;
    for &g in groups {
        s.add_membership(g).map_err(|e| nl_err("join group", e))?;
    }
    let _ = s.set_rx_buf_sz(4 << 20);
    Ok(s)
}

/// Dumps the kernel's routes (`IPv4` and `IPv6`) and neighbours as events.
pub fn dump() -> Result<Vec<Event>, FibError> {
    let s = open_socket(&[])?;
    let mut out = Vec::new();
    let reqs: [(RouteNetlinkMessage, u32); 3] = [
        {
            let mut m = RouteMessage::default();
            m.header.address_family = AddressFamily::Inet;
            (RouteNetlinkMessage::GetRoute(m), 1)
        },
        {
            let mut m = RouteMessage::default();
            m.header.address_family = AddressFamily::Inet6;
            (RouteNetlinkMessage::GetRoute(m), 2)
        },
        (
            RouteNetlinkMessage::GetNeighbour(NeighbourMessage::default()),
            3,
        ),
    ];
    let mut buf = Vec::with_capacity(1 << 16);
    for (req, seq) in reqs {
        let mut h = NetlinkHeader::default();
        h.flags = NLM_F_REQUEST | NLM_F_DUMP;
        h.sequence_number = seq;
        let mut m = NetlinkMessage::new(h, NetlinkPayload::InnerMessage(req));
        m.finalize();
        let mut b = vec![0u8; m.buffer_len()];
        m.serialize(&mut b);
        s.send(&b, 0).map_err(|e| nl_err("send dump request", e))?;
        loop {
            buf.clear();
            s.recv(&mut buf, 0).map_err(|e| nl_err("read dump", e))?;
            let done = each_message(&buf, |m| {
                // Dump replies come as RTM_NEWROUTE / RTM_NEWNEIGH.
                out.extend(event_of(m));
            })?;
            if done {
                break;
            }
        }
    }
    Ok(out)
}

/// The two LPM writers and the state they mirror.
struct Writer {
    state: FibState,
    w4: LpmWriter<u32, Poptrie<u32>>,
    w6: LpmWriter<u128, Poptrie<u128>>,
}

fn apply_event(s: &mut FibState, e: Event) {
    match e {
        Event::Route { add, dst, len, hop } => match dst {
            IpAddr::V4(a) if len <= 32 => {
                let p = Prefix::<u32>::new_masked(a.into(), len);
                if add {
                    s.route_add(p, hop)
                } else {
                    s.route_del(p)
                }
            }
            IpAddr::V6(a) if len <= 128 => {
                let p = Prefix::<u128>::new_masked(a.into(), len);
                if add {
                    s.route_add(p, hop)
                } else {
                    s.route_del(p)
                }
            }
            _ => {}
        },
        Event::Neigh { ifindex, ip, mac } => s.neighbour(ifindex, ip, mac),
    }
}

fn push_ops<A: Address>(w: &mut LpmWriter<A, Poptrie<A>>, ops: Vec<Op<A>>) -> usize {
    let n = ops.len();
    for op in ops {
        w.apply(op);
    }
    n
}

impl Writer {
    /// Applies the state's pending operations and publishes; returns how many there were.
    fn publish(&mut self, epoch: &AtomicU64, c: &FibCounters) -> usize {
        let n = push_ops(&mut self.w4, self.state.v4.take_ops())
            + push_ops(&mut self.w6, self.state.v6.take_ops());
        if n > 0 {
            self.w4.publish();
            self.w6.publish();
            epoch.fetch_add(1, Ordering::Release);
            c.publishes.fetch_add(1, Ordering::Relaxed);
        }
        c.routes_v4
            .store(self.state.v4.installed() as u64, Ordering::Relaxed);
        c.routes_v6
            .store(self.state.v6.installed() as u64, Ordering::Relaxed);
        c.neighbours
            .store(self.state.neighbours() as u64, Ordering::Relaxed);
        c.routes_skipped
            .store(self.state.foreign_routes() as u64, Ordering::Relaxed);
        c.adj_full.store(self.state.adj_full, Ordering::Relaxed);
        n
    }
}

/// A running kernel FIB: the updater thread and what the workers share with it.
pub struct KernelFib {
    /// Next hop → (port, neighbour MAC).
    pub adj: Arc<AdjTable>,
    /// Counters (status line, JSON).
    pub counters: Arc<FibCounters>,
    /// Where workers ask for unresolved neighbours.
    pub probes: Probes,
    thread: Option<JoinHandle<Result<(), FibError>>>,
    stop: Arc<AtomicBool>,
}

impl KernelFib {
    /// Dumps the kernel's routes and neighbours for these `ports` into fresh Poptries, then
    /// starts the thread that follows changes until [`KernelFib::stop`] (or `stop` is set).
    pub fn start(
        ports: Vec<PortIface>,
        algo: PoptrieConfig,
        stop: Arc<AtomicBool>,
    ) -> Result<(Tables, KernelFib), FibError> {
        // Subscribe before the dump, so no change between the two is missed (changes that
        // the dump already shows are applied twice: every event is idempotent).
        let live = open_socket(&[RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE, RTNLGRP_NEIGH])?;
        live.set_non_blocking(true)
            .map_err(|e| nl_err("non-blocking", e))?;
        let adj = Arc::new(AdjTable::new(ADJ_CAPACITY, ports)?);
        let mut state = FibState::new(adj.clone());
        for e in dump()? {
            apply_event(&mut state, e);
        }
        let mut t4 = Poptrie::<u32>::new(algo);
        t4.build(&[]);
        let mut t6 = Poptrie::<u128>::new(algo);
        t6.build(&[]);
        let (w4, r4) = concurrent::<u32, _>(t4);
        let (w6, r6) = concurrent::<u128, _>(t6);
        let epoch = Arc::new(AtomicU64::new(0));
        let counters = Arc::new(FibCounters::default());
        let mut w = Writer { state, w4, w6 };
        w.publish(&epoch, &counters);
        let tables = Tables {
            v4: Some(r4),
            v6: Some(r6),
            epoch: epoch.clone(),
        };
        let (probes, preq) = Probes::channel(1024);
        let (c, st) = (counters.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("pktlab-fib".into())
            .spawn(move || follow(live, w, epoch, c, preq, st))
            .map_err(|e| nl_err("thread", e))?;
        Ok((
            tables,
            KernelFib {
                adj,
                counters,
                probes,
                thread: Some(thread),
                stop,
            },
        ))
    }

    /// Stops the updater and returns its result (an error if the netlink socket failed).
    pub fn stop(mut self) -> Result<(), FibError> {
        self.stop.store(true, Ordering::Relaxed);
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(FibError::Netlink("updater thread panicked".into())),
            None => Ok(()),
        }
    }
}

impl Drop for KernelFib {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Sends neighbour probes for the pending requests (rate-limited per address, at most
/// [`PROBE_MEMORY`] addresses remembered).
struct Prober {
    v4: Option<UdpSocket>,
    v6: Option<UdpSocket>,
    last: HashMap<IpAddr, Instant>,
    /// When `last` was last swept while full (it is swept at most once per spacing, so a
    /// flood of new addresses costs O(1) per request).
    swept: Option<Instant>,
}

impl Prober {
    fn new() -> Prober {
        Prober {
            v4: UdpSocket::bind("0.0.0.0:0").ok(),
            v6: UdpSocket::bind("[::]:0").ok(),
            last: HashMap::new(),
            swept: None,
        }
    }

    fn probe(&mut self, ip: IpAddr, c: &FibCounters) {
        self.probe_at(ip, Instant::now(), c);
    }

    /// Probes `ip` at time `now` unless it was probed within the spacing or the memory is full.
    fn probe_at(&mut self, ip: IpAddr, now: Instant, c: &FibCounters) {
        match self.last.get(&ip) {
            Some(t) if now.duration_since(*t) < PROBE_SPACING => return,
            Some(_) => {}
            None if self.last.len() >= PROBE_MEMORY => {
                if self
                    .swept
                    .is_none_or(|s| now.duration_since(s) >= PROBE_SPACING)
                {
                    self.last
                        .retain(|_, t| now.duration_since(*t) < PROBE_SPACING);
                    self.swept = Some(now);
                }
                if self.last.len() >= PROBE_MEMORY {
                    c.probes_suppressed.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            }
            None => {}
        }
        self.last.insert(ip, now);
        let s = if ip.is_ipv4() { &self.v4 } else { &self.v6 };
        if let Some(s) = s {
            if s.send_to(&[], (ip, 9)).is_ok() {
                c.probes.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    fn serve(&mut self, reqs: &Receiver<ProbeRequest>, state: &FibState, c: &FibCounters) {
        while let Ok(r) = reqs.try_recv() {
            let target = match state.hops().hop(r.nh) {
                Some(Hop { gw: Some(g), .. }) => g,
                _ => r.dst,
            };
            self.probe(target, c);
        }
    }
}

fn follow(
    sock: Socket,
    mut w: Writer,
    epoch: Arc<AtomicU64>,
    c: Arc<FibCounters>,
    preq: Receiver<ProbeRequest>,
    stop: Arc<AtomicBool>,
) -> Result<(), FibError> {
    let mut buf = Vec::with_capacity(1 << 16);
    let mut prober = Prober::new();
    let mut arrivals: Vec<Instant> = Vec::new();
    let mut gateways: Vec<IpAddr> = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let mut p = libc::pollfd {
            fd: sock.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the call's duration.
        unsafe { libc::poll(&mut p, 1, 10) };
        loop {
            buf.clear();
            match sock.recv(&mut buf, 0) {
                Ok(_) => {
                    let t = Instant::now();
                    each_message(&buf, |m| {
                        if let Some(e) = event_of(m) {
                            if let Event::Route {
                                add: true,
                                hop: Hop { gw: Some(g), .. },
                                ..
                            } = e
                            {
                                gateways.push(g);
                            }
                            apply_event(&mut w.state, e);
                            arrivals.push(t);
                        }
                    })?;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) => {
                    // The socket overflowed: changes were lost; rebuild from a fresh dump.
                    let t = Instant::now();
                    for e in dump()? {
                        apply_event(&mut w.state, e);
                        arrivals.push(t);
                    }
                }
                Err(e) => return Err(nl_err("read", e)),
            }
        }
        if !arrivals.is_empty() {
            w.publish(&epoch, &c);
            let now = Instant::now();
            let (mut sum, mut max) = (0u64, 0u64);
            let k = arrivals.len() as u64;
            for t in arrivals.drain(..) {
                let us = now.duration_since(t).as_micros() as u64;
                sum += us;
                max = max.max(us);
            }
            c.lag_sum_us.fetch_add(sum, Ordering::Relaxed);
            c.lag_max_us.fetch_max(max, Ordering::Relaxed);
            c.updates_applied.fetch_add(k, Ordering::Relaxed);
        }
        // A new route's gateway is probed at once, before its first packet asks.
        for g in gateways.drain(..) {
            if !w.state.gateway_resolved(g) {
                prober.probe(g, &c);
            }
        }
        prober.serve(&preq, &w.state, &c);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_messages_become_events() {
        let mut m = RouteMessage::default();
        m.header.address_family = AddressFamily::Inet;
        m.header.destination_prefix_length = 24;
        m.header.table = 254;
        m.header.kind = RouteType::Unicast;
        m.attributes = vec![
            RouteAttribute::Destination(RouteAddress::Inet("10.9.0.0".parse().unwrap())),
            RouteAttribute::Gateway(RouteAddress::Inet("10.0.2.2".parse().unwrap())),
            RouteAttribute::Oif(7),
        ];
        assert_eq!(
            route_event(&m, true),
            Some(Event::Route {
                add: true,
                dst: "10.9.0.0".parse().unwrap(),
                len: 24,
                hop: Hop {
                    ifindex: 7,
                    gw: Some("10.0.2.2".parse().unwrap())
                }
            })
        );
        // Local table, or not unicast: not taken.
        m.header.table = 255;
        assert_eq!(route_event(&m, true), None);
        m.header.table = 254;
        m.header.kind = RouteType::Local;
        assert_eq!(route_event(&m, true), None);
        // A default route has no destination attribute.
        m.header.kind = RouteType::Unicast;
        m.header.destination_prefix_length = 0;
        m.attributes.remove(0);
        let Some(Event::Route { dst, len, .. }) = route_event(&m, true) else {
            panic!("default route not taken");
        };
        assert_eq!((dst, len), ("0.0.0.0".parse().unwrap(), 0));
    }

    #[test]
    fn neighbour_messages_become_events() {
        let mut m = NeighbourMessage::default();
        m.header.ifindex = 4;
        m.header.state = NeighbourState::Reachable;
        m.attributes = vec![
            NeighbourAttribute::Destination(NeighbourAddress::Inet("10.0.2.2".parse().unwrap())),
            NeighbourAttribute::LinkLayerAddress(vec![2, 1, 2, 3, 4, 5]),
        ];
        let ip: IpAddr = "10.0.2.2".parse().unwrap();
        assert_eq!(
            neigh_event(&m, true),
            Some(Event::Neigh {
                ifindex: 4,
                ip,
                mac: Some([2, 1, 2, 3, 4, 5])
            })
        );
        m.header.state = NeighbourState::Failed;
        assert_eq!(
            neigh_event(&m, true),
            Some(Event::Neigh {
                ifindex: 4,
                ip,
                mac: None
            })
        );
    }

    #[test]
    fn the_prober_remembers_a_bounded_number_of_addresses() {
        // No sockets: only the bookkeeping is exercised.
        let mut p = Prober {
            v4: None,
            v6: None,
            last: HashMap::new(),
            swept: None,
        };
        let c = FibCounters::default();
        let ip = |i: usize| IpAddr::from([10, (i >> 16) as u8, (i >> 8) as u8, i as u8]);
        let t0 = Instant::now();
        // A peer sending to ever new on-link destinations within one spacing.
        for i in 0..PROBE_MEMORY + 1000 {
            p.probe_at(ip(i), t0, &c);
        }
        assert_eq!(p.last.len(), PROBE_MEMORY);
        assert_eq!(c.probes_suppressed.load(Ordering::Relaxed), 1000);
        // A remembered address is still rate-limited, not suppressed.
        p.probe_at(ip(0), t0, &c);
        assert_eq!(c.probes_suppressed.load(Ordering::Relaxed), 1000);
        // Once the spacing has passed, old entries make room again.
        let later = t0 + PROBE_SPACING + Duration::from_millis(1);
        p.probe_at(ip(PROBE_MEMORY + 5000), later, &c);
        assert_eq!(p.last.len(), 1);
        assert_eq!(c.probes_suppressed.load(Ordering::Relaxed), 1000);
    }

    /// Needs CAP_NET_ADMIN-free rtnetlink reads only: every process may dump routes.
    #[test]
    fn dump_reads_this_namespace() {
        let ev = dump().expect("rtnetlink dump");
        // Whatever this namespace holds, the dump parses; routes name an interface.
        for e in &ev {
            if let Event::Route { hop, len, .. } = e {
                assert!(hop.ifindex > 0);
                assert!(*len <= 128);
            }
        }
    }
}
