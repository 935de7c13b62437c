//! The router's view of the kernel's routes and neighbours, and the LPM operations it
//! implies (no I/O here: [`super::kernel`] feeds it netlink messages, the tests feed it
//! events directly).
//!
//! What the LPM holds for a prefix `p`:
//! * a kernel route at `p` whose output interface is one of the router's ports → its next
//!   hop (interface, gateway or on-link);
//! * otherwise, for a host prefix (/32, /128) whose address has a usable neighbour entry on
//!   the interface of the most specific kernel route covering it, that route being on-link →
//!   the next hop (interface, gateway = the neighbour): the neighbour's adjacency;
//! * otherwise nothing.
//!
//! Every route or neighbour event recomputes the prefixes it can change and emits an
//! [`Op`] only where the LPM's content changes; a neighbour event also rewrites the
//! adjacency of the next hops that go through that neighbour.

use super::{Adj, AdjTable, FibError, Hop, NextHops};
use crate::lpm::shared::Op;
use crate::net::{Address, NextHop, Prefix};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

/// An address family the router handles (IPv4 = `u32`, IPv6 = `u128`).
pub trait IpFamily: Address {
    /// The address, if `ip` is of this family.
    fn of(ip: IpAddr) -> Option<Self>;
    /// As a standard address.
    fn ip(self) -> IpAddr;
    /// The state's routes of this family.
    fn family(s: &mut FibState) -> &mut Family<Self>;
}

impl IpFamily for u32 {
    fn of(ip: IpAddr) -> Option<u32> {
        match ip {
            IpAddr::V4(a) => Some(a.into()),
            IpAddr::V6(_) => None,
        }
    }
    fn ip(self) -> IpAddr {
        IpAddr::V4(self.into())
    }
    fn family(s: &mut FibState) -> &mut Family<u32> {
        &mut s.v4
    }
}

impl IpFamily for u128 {
    fn of(ip: IpAddr) -> Option<u128> {
        match ip {
            IpAddr::V6(a) => Some(a.into()),
            IpAddr::V4(_) => None,
        }
    }
    fn ip(self) -> IpAddr {
        IpAddr::V6(self.into())
    }
    fn family(s: &mut FibState) -> &mut Family<u128> {
        &mut s.v6
    }
}

/// One family's routes, what the LPM holds, and the operations not yet applied.
#[derive(Debug)]
pub struct Family<A: IpFamily> {
    routes: HashMap<Prefix<A>, Hop>,
    installed: HashMap<Prefix<A>, u32>,
    ops: Vec<Op<A>>,
}

impl<A: IpFamily> Default for Family<A> {
    fn default() -> Self {
        Family {
            routes: HashMap::new(),
            installed: HashMap::new(),
            ops: Vec::new(),
        }
    }
}

impl<A: IpFamily> Family<A> {
    /// The operations emitted since the last call.
    pub fn take_ops(&mut self) -> Vec<Op<A>> {
        std::mem::take(&mut self.ops)
    }

    /// Prefixes the LPM holds.
    pub fn installed(&self) -> usize {
        self.installed.len()
    }

    /// Kernel routes known (installed or not).
    pub fn routes(&self) -> usize {
        self.routes.len()
    }

    /// The next hop the LPM holds for `p`.
    pub fn lpm_entry(&self, p: &Prefix<A>) -> Option<u32> {
        self.installed.get(p).copied()
    }

    /// The most specific kernel route strictly covering host address `a`.
    fn covering(&self, a: A) -> Option<Hop> {
        (0..A::BITS as u8)
            .rev()
            .find_map(|l| self.routes.get(&Prefix::new_masked(a, l)).copied())
    }

    fn set(&mut self, p: Prefix<A>, want: Option<u32>) {
        let have = self.installed.get(&p).copied();
        if have == want {
            return;
        }
        match want.and_then(NextHop::new) {
            Some(nh) => {
                self.installed.insert(p, nh.get());
                self.ops.push(Op::Insert(p, nh));
            }
            None => {
                self.installed.remove(&p);
                self.ops.push(Op::Remove(p));
            }
        }
    }
}

/// Routes, neighbours, next hops and adjacencies of the router.
#[derive(Debug)]
pub struct FibState {
    /// IPv4.
    pub v4: Family<u32>,
    /// IPv6.
    pub v6: Family<u128>,
    neigh: HashMap<(u32, IpAddr), [u8; 6]>,
    hops: NextHops,
    adj: Arc<AdjTable>,
    /// Next hops that did not fit the adjacency table.
    pub adj_full: u64,
}

impl FibState {
    /// Empty, writing adjacencies into `adj`.
    pub fn new(adj: Arc<AdjTable>) -> FibState {
        FibState {
            v4: Family::default(),
            v6: Family::default(),
            neigh: HashMap::new(),
            hops: NextHops::default(),
            adj,
            adj_full: 0,
        }
    }

    /// The next hops interned so far.
    pub fn hops(&self) -> &NextHops {
        &self.hops
    }

    /// True if some port has a usable neighbour entry for gateway `gw`.
    pub fn gateway_resolved(&self, gw: IpAddr) -> bool {
        self.neigh.keys().any(|(_, ip)| *ip == gw)
    }

    /// Neighbour entries held (usable ones).
    pub fn neighbours(&self) -> usize {
        self.neigh.len()
    }

    /// Kernel routes whose interface is not a router port (known, not installed).
    pub fn foreign_routes(&self) -> usize {
        let f = |h: &Hop| self.adj.port_of(h.ifindex).is_none();
        self.v4.routes.values().filter(|h| f(h)).count()
            + self.v6.routes.values().filter(|h| f(h)).count()
    }

    /// The adjacency `h` has now (from the neighbour table).
    fn resolve(&self, h: Hop) -> Option<Adj> {
        let port = self.adj.port_of(h.ifindex)?;
        let gw = h.gw?;
        let dst = *self.neigh.get(&(h.ifindex, gw))?;
        Some(Adj { port, dst })
    }

    /// The id of `h`, interned (with its adjacency set) if new; `None` if the table is full.
    fn id_of(&mut self, h: Hop) -> Option<u32> {
        if let Some(id) = self.hops.id(&h) {
            return Some(id);
        }
        match self.hops.intern(h, self.adj.capacity()) {
            Ok(id) => {
                self.adj.set(id, self.resolve(h));
                Some(id)
            }
            Err(FibError::Full(_)) | Err(_) => {
                self.adj_full += 1;
                None
            }
        }
    }

    /// What the LPM should hold for `p` (see the module doc).
    fn wanted<A: IpFamily>(&mut self, p: Prefix<A>) -> Option<u32> {
        let fam = A::family(self);
        if let Some(h) = fam.routes.get(&p).copied() {
            self.adj.port_of(h.ifindex)?;
            return self.id_of(h);
        }
        if p.len() as u32 != A::BITS {
            return None;
        }
        let cover = A::family(self).covering(p.addr())?;
        if cover.gw.is_some() || self.adj.port_of(cover.ifindex).is_none() {
            return None;
        }
        let ip = p.addr().ip();
        self.neigh.get(&(cover.ifindex, ip))?;
        self.id_of(Hop {
            ifindex: cover.ifindex,
            gw: Some(ip),
        })
    }

    fn refresh<A: IpFamily>(&mut self, p: Prefix<A>) {
        let want = self.wanted(p);
        A::family(self).set(p, want);
    }

    /// Recomputes the host prefixes of the neighbours inside `p`.
    fn refresh_neighbours_in<A: IpFamily>(&mut self, p: Prefix<A>) {
        let hosts: Vec<A> = self
            .neigh
            .keys()
            .filter_map(|(_, ip)| A::of(*ip))
            .filter(|a| p.contains(*a))
            .collect();
        for a in hosts {
            self.refresh(Prefix::new_masked(a, A::BITS as u8));
        }
    }

    /// A kernel route at `p` via `h` was added or replaced.
    pub fn route_add<A: IpFamily>(&mut self, p: Prefix<A>, h: Hop) {
        A::family(self).routes.insert(p, h);
        self.refresh(p);
        self.refresh_neighbours_in(p);
    }

    /// The kernel route at `p` was removed.
    pub fn route_del<A: IpFamily>(&mut self, p: Prefix<A>) {
        A::family(self).routes.remove(&p);
        self.refresh(p);
        self.refresh_neighbours_in(p);
    }

    /// Neighbour `ip` on `ifindex` now has `mac` (`None`: gone, or not usable).
    pub fn neighbour(&mut self, ifindex: u32, ip: IpAddr, mac: Option<[u8; 6]>) {
        let key = (ifindex, ip);
        if self.neigh.get(&key).copied() == mac {
            return;
        }
        match mac {
            Some(m) => self.neigh.insert(key, m),
            None => self.neigh.remove(&key),
        };
        let h = Hop {
            ifindex,
            gw: Some(ip),
        };
        if let Some(id) = self.hops.id(&h) {
            self.adj.set(id, self.resolve(h));
        }
        match ip {
            IpAddr::V4(a) => self.refresh(Prefix::new_masked(u32::from(a), 32)),
            IpAddr::V6(a) => self.refresh(Prefix::new_masked(u128::from(a), 128)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::PortIface;
    use super::*;

    fn state() -> FibState {
        let ports = (1..=3)
            .map(|i| PortIface {
                name: format!("r{i}"),
                ifindex: 10 + i,
                mac: [2, 0, 0, 0, 0, i as u8],
            })
            .collect();
        FibState::new(Arc::new(AdjTable::new(64, ports).unwrap()))
    }
    fn p4(s: &str) -> Prefix<u32> {
        s.parse().unwrap()
    }
    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }
    const MB: [u8; 6] = [0xb, 0xb, 0xb, 0xb, 0xb, 0xb];

    #[test]
    fn gateway_route_resolves_when_its_neighbour_appears() {
        let mut s = state();
        s.route_add(
            p4("10.0.2.0/24"),
            Hop {
                ifindex: 12,
                gw: None,
            },
        );
        s.route_add(
            p4("10.9.0.0/24"),
            Hop {
                ifindex: 12,
                gw: Some(ip("10.0.2.2")),
            },
        );
        let nh = s.v4.lpm_entry(&p4("10.9.0.0/24")).unwrap();
        assert_eq!(s.adj.get(nh), None, "no neighbour yet: unresolved");
        s.neighbour(12, ip("10.0.2.2"), Some(MB));
        assert_eq!(s.adj.get(nh), Some(Adj { port: 1, dst: MB }));
        // The neighbour also became a host route with the same next hop.
        assert_eq!(s.v4.lpm_entry(&p4("10.0.2.2/32")), Some(nh));
        let ops = s.v4.take_ops();
        assert_eq!(ops.len(), 3, "{ops:?}");
        // Gone again: unresolved, host route withdrawn.
        s.neighbour(12, ip("10.0.2.2"), None);
        assert_eq!(s.adj.get(nh), None);
        assert_eq!(s.v4.lpm_entry(&p4("10.0.2.2/32")), None);
    }

    #[test]
    fn on_link_route_is_never_resolved_itself() {
        let mut s = state();
        s.route_add(
            p4("10.0.1.0/24"),
            Hop {
                ifindex: 11,
                gw: None,
            },
        );
        let nh = s.v4.lpm_entry(&p4("10.0.1.0/24")).unwrap();
        s.neighbour(11, ip("10.0.1.2"), Some(MB));
        assert_eq!(s.adj.get(nh), None);
        let host = s.v4.lpm_entry(&p4("10.0.1.2/32")).unwrap();
        assert_ne!(host, nh);
        assert_eq!(s.adj.get(host), Some(Adj { port: 0, dst: MB }));
    }

    #[test]
    fn neighbour_on_another_interface_than_the_route_is_not_installed() {
        let mut s = state();
        s.route_add(
            p4("10.0.1.0/24"),
            Hop {
                ifindex: 11,
                gw: None,
            },
        );
        s.neighbour(12, ip("10.0.1.2"), Some(MB));
        assert_eq!(s.v4.lpm_entry(&p4("10.0.1.2/32")), None);
        // Routes on interfaces that are not ports are known but not installed.
        s.route_add(
            p4("0.0.0.0/0"),
            Hop {
                ifindex: 99,
                gw: Some(ip("1.1.1.1")),
            },
        );
        assert_eq!(s.v4.lpm_entry(&p4("0.0.0.0/0")), None);
        assert_eq!(s.foreign_routes(), 1);
    }

    #[test]
    fn route_replace_moves_traffic_and_withdrawal_removes_it() {
        let mut s = state();
        for (p, i) in [("10.0.2.0/24", 12), ("10.0.3.0/24", 13)] {
            s.route_add(
                p4(p),
                Hop {
                    ifindex: i,
                    gw: None,
                },
            );
        }
        let via = |i, g| Hop {
            ifindex: i,
            gw: Some(ip(g)),
        };
        s.neighbour(12, ip("10.0.2.2"), Some(MB));
        s.neighbour(13, ip("10.0.3.2"), Some([0xc; 6]));
        s.route_add(p4("10.9.0.0/24"), via(12, "10.0.2.2"));
        let a = s.v4.lpm_entry(&p4("10.9.0.0/24")).unwrap();
        assert_eq!(s.adj.get(a).unwrap().port, 1);
        s.v4.take_ops();
        s.route_add(p4("10.9.0.0/24"), via(13, "10.0.3.2"));
        let b = s.v4.lpm_entry(&p4("10.9.0.0/24")).unwrap();
        assert_eq!(
            s.adj.get(b),
            Some(Adj {
                port: 2,
                dst: [0xc; 6]
            })
        );
        assert_eq!(s.v4.take_ops().len(), 1);
        s.route_del(p4("10.9.0.0/24"));
        assert_eq!(s.v4.lpm_entry(&p4("10.9.0.0/24")), None);
        // Removing the connected route withdraws its neighbours' host routes.
        s.route_del(p4("10.0.2.0/24"));
        assert_eq!(s.v4.lpm_entry(&p4("10.0.2.2/32")), None);
        assert_eq!(s.v4.installed(), 2);
    }

    #[test]
    fn ipv6_host_routes_from_neighbours() {
        let mut s = state();
        let p6 = |t: &str| t.parse::<Prefix<u128>>().unwrap();
        s.route_add(
            p6("2001:db8:2::/64"),
            Hop {
                ifindex: 12,
                gw: None,
            },
        );
        s.neighbour(12, ip("2001:db8:2::2"), Some(MB));
        let nh = s.v6.lpm_entry(&p6("2001:db8:2::2/128")).unwrap();
        assert_eq!(s.adj.get(nh), Some(Adj { port: 1, dst: MB }));
        assert!(s.v4.take_ops().is_empty());
    }
}
