//! DIR-24-8: a 2^24-entry first table plus 256-entry second-level groups, as DPDK's `rte_lpm`.
//!
//! Layout after P. Gupta, S. Lin and N. McKeown, "Routing Lookups in Hardware at Memory Access
//! Speeds", INFOCOM 1998, in the form DPDK's `rte_lpm` gives it (`lib/lpm/rte_lpm.c`, read for
//! the algorithm, not copied):
//!
//! * `tbl24` holds one 32-bit entry per /24: a next hop, or (flag bit) the index of a
//!   256-entry `tbl8` group that resolves the last 8 bits;
//! * **insert** (`rte_lpm_add`): a route of depth ≤ 24 is written into every `tbl24` entry of
//!   its range whose current depth is ≤ its own, descending into the groups of extended
//!   entries; a deeper route turns its `tbl24` entry into a group (allocating one filled with
//!   the entry's previous value, as `add_depth_big` does) and writes its range there;
//! * **delete** (`rte_lpm_delete`): finds the replacement rule — the longest stored prefix
//!   covering the deleted one — and writes it over every entry of the range that carried the
//!   deleted depth; a group that ends up uniform is freed and its value moved back into the
//!   parent entry (`tbl8_recycle_check`).
//!
//! IPv6: the same scheme with a chain of 8-bit groups after the first 24 bits (24 + 13 × 8
//! levels) is the layout of DPDK's `rte_lpm6`; pktlab uses it for `u128`.
//!
//! Simplifications, all outside the lookup path:
//! * the depth of the rule that wrote each entry (`rte_lpm` packs it into 6 bits of the entry)
//!   lives in side arrays touched only by updates, so entries keep 31-bit next hops (DPDK:
//!   24 bits) and the lookup reads exactly the same 4-byte entries;
//! * the rule table is the radix trie shared by all pktlab structures (DPDK keeps a per-depth
//!   array searched linearly, which is what makes its inserts slow);
//! * tbl8 groups are allocated on demand instead of from a fixed pool, so no insert fails.

use super::radix::Radix;
use super::{huge_copy, huge_table, Lpm, LpmStats};
use crate::net::{Address, NextHop, Prefix};

/// Flag of an entry that points to a group instead of holding a next hop.
const EXT: u32 = 1 << 31;
/// Entries per tbl8 group.
const GROUP: usize = 256;
/// Bits resolved by `tbl24`.
const TOP: u32 = 24;

/// A DIR-24-8 table for addresses of family `A`.
#[derive(Clone, Debug)]
pub struct Dir24_8<A: Address> {
    rib: Radix<A>,
    t: Tables,
}

/// The lookup tables plus the per-entry depths used by updates.
#[derive(Debug)]
struct Tables {
    tbl24: Vec<u32>,
    depth24: Vec<u8>,
    tbl8: Vec<u32>,
    depth8: Vec<u8>,
    free: Vec<u32>,
}

/// Where an entry lives: `tbl24[i]` or `tbl8[i]`.
#[derive(Clone, Copy)]
enum At {
    T24(usize),
    T8(usize),
}

impl Clone for Tables {
    fn clone(&self) -> Self {
        Tables {
            tbl24: huge_copy(&self.tbl24),
            depth24: self.depth24.clone(),
            tbl8: self.tbl8.clone(),
            depth8: self.depth8.clone(),
            free: self.free.clone(),
        }
    }
}

impl Tables {
    fn new() -> Self {
        Tables {
            tbl24: huge_table(1 << TOP),
            depth24: vec![0; 1 << TOP],
            tbl8: Vec::new(),
            depth8: Vec::new(),
            free: Vec::new(),
        }
    }

    fn groups(&self) -> usize {
        self.tbl8.len() / GROUP - self.free.len()
    }

    #[inline]
    fn get(&self, at: At) -> (u32, u8) {
        match at {
            At::T24(i) => (self.tbl24[i], self.depth24[i]),
            At::T8(i) => (self.tbl8[i], self.depth8[i]),
        }
    }

    #[inline]
    fn set(&mut self, at: At, e: u32, d: u8) {
        match at {
            At::T24(i) => {
                self.tbl24[i] = e;
                self.depth24[i] = d;
            }
            At::T8(i) => {
                self.tbl8[i] = e;
                self.depth8[i] = d;
            }
        }
    }

    /// A new group, every entry a copy of `(e, d)`.
    fn alloc(&mut self, e: u32, d: u8) -> usize {
        let g = match self.free.pop() {
            Some(g) => g as usize,
            None => {
                self.tbl8.resize(self.tbl8.len() + GROUP, 0);
                self.depth8.resize(self.depth8.len() + GROUP, 0);
                self.tbl8.len() / GROUP - 1
            }
        };
        self.tbl8[g * GROUP..(g + 1) * GROUP].fill(e);
        self.depth8[g * GROUP..(g + 1) * GROUP].fill(d);
        g
    }

    /// The group of entry `at`, making one from its current value if it has none.
    fn extend(&mut self, at: At) -> usize {
        let (e, d) = self.get(at);
        if e & EXT != 0 {
            return (e & !EXT) as usize;
        }
        let g = self.alloc(e, d);
        self.set(at, EXT | g as u32, 0);
        g
    }

    /// Writes rule `(nh, d)` into entry `at` where the entry's rule is not more specific
    /// (descending into groups).
    #[inline]
    fn write(&mut self, at: At, nh: u32, d: u8) {
        let (e, ed) = self.get(at);
        if e & EXT != 0 {
            self.write_group((e & !EXT) as usize, nh, d);
        } else if ed <= d {
            self.set(at, nh, d);
        }
    }

    fn write_group(&mut self, g: usize, nh: u32, d: u8) {
        for i in g * GROUP..(g + 1) * GROUP {
            self.write(At::T8(i), nh, d);
        }
    }

    /// [`Tables::write`] over `tbl24[r]`, as one tight loop (a short prefix covers up to
    /// 2^24 entries).
    fn write24(&mut self, r: std::ops::Range<usize>, nh: u32, d: u8) {
        for i in r {
            let e = self.tbl24[i];
            if e & EXT != 0 {
                self.write_group((e & !EXT) as usize, nh, d);
            } else if self.depth24[i] <= d {
                self.tbl24[i] = nh;
                self.depth24[i] = d;
            }
        }
    }

    /// Replaces the rule of depth `d` in entry `at` (and below it) by `(snh, sd)`, freeing
    /// groups that become uniform.
    #[inline]
    fn replace(&mut self, at: At, d: u8, snh: u32, sd: u8) {
        let (e, ed) = self.get(at);
        if e & EXT != 0 {
            let g = (e & !EXT) as usize;
            for i in g * GROUP..(g + 1) * GROUP {
                self.replace(At::T8(i), d, snh, sd);
            }
            self.recycle(at);
        } else if ed <= d {
            self.set(at, snh, sd);
        }
    }

    /// [`Tables::replace`] over `tbl24[r]`, as one tight loop.
    fn replace24(&mut self, r: std::ops::Range<usize>, d: u8, snh: u32, sd: u8) {
        for i in r {
            if self.tbl24[i] & EXT != 0 {
                self.replace(At::T24(i), d, snh, sd);
            } else if self.depth24[i] <= d {
                self.tbl24[i] = snh;
                self.depth24[i] = sd;
            }
        }
    }

    /// If the group under `at` holds one value throughout, frees it and stores the value in
    /// `at` (`tbl8_recycle_check`).
    fn recycle(&mut self, at: At) {
        let (e, _) = self.get(at);
        if e & EXT == 0 {
            return;
        }
        let g = (e & !EXT) as usize;
        let r = g * GROUP..(g + 1) * GROUP;
        let (v, d) = (self.tbl8[r.start], self.depth8[r.start]);
        if v & EXT == 0
            && self.tbl8[r.clone()].iter().all(|&x| x == v)
            && self.depth8[r].iter().all(|&x| x == d)
        {
            self.set(at, v, d);
            self.free.push(g as u32);
        }
    }
}

impl<A: Address> Default for Dir24_8<A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: Address> Dir24_8<A> {
    /// An empty table (allocates the 64 MiB `tbl24` and its depth array).
    pub fn new() -> Self {
        Dir24_8 {
            rib: Radix::new(),
            t: Tables::new(),
        }
    }

    /// Writes route `p → nh` into its range: in `tbl24` for depths ≤ 24, else in the group
    /// entries reached through (created as needed) groups on `p`'s path.
    fn add(&mut self, p: &Prefix<A>, nh: u32) {
        let d = p.len();
        let a = p.addr();
        if d as u32 <= TOP {
            let first = a.top(TOP) as usize;
            self.t
                .write24(first..first + (1 << (TOP - d as u32)), nh, d);
            return;
        }
        let mut g = self.t.extend(At::T24(a.top(TOP) as usize));
        let mut off = TOP;
        while d as u32 > off + 8 {
            g = self.t.extend(At::T8(g * GROUP + a.bits(off, 8) as usize));
            off += 8;
        }
        let first = g * GROUP + a.bits(off, 8) as usize;
        for i in first..first + (1 << (off + 8 - d as u32)) {
            self.t.write(At::T8(i), nh, d);
        }
    }

    /// Removes `p`'s entries, replacing them with the longest remaining rule covering `p`.
    fn delete(&mut self, p: &Prefix<A>) {
        let d = p.len();
        let a = p.addr();
        // The replacement rule: the longest stored prefix shorter than `p` covering it.
        let (mut snh, mut sd, mut n) = (self.rib.node(0).nh, 0u8, 0u32);
        for i in 0..d as u32 {
            n = self.rib.node(n).child[a.bit(i)];
            if n == 0 {
                break;
            }
            if i + 1 < d as u32 && self.rib.node(n).nh != 0 {
                (snh, sd) = (self.rib.node(n).nh, i as u8 + 1);
            }
        }
        if d as u32 <= TOP {
            let first = a.top(TOP) as usize;
            self.t
                .replace24(first..first + (1 << (TOP - d as u32)), d, snh, sd);
            return;
        }
        // Walk down through the groups on p's path, remembering it for recycling.
        let mut path = vec![At::T24(a.top(TOP) as usize)];
        let mut off = TOP; // depth covered by the last entry of `path`
        loop {
            let (e, _) = self.t.get(*path.last().expect("path starts non-empty"));
            if e & EXT == 0 {
                break; // no group on the path: p has no entries of its own
            }
            let g = (e & !EXT) as usize;
            if d as u32 <= off + 8 {
                let first = g * GROUP + a.bits(off, 8) as usize;
                for i in first..first + (1 << (off + 8 - d as u32)) {
                    self.t.replace(At::T8(i), d, snh, sd);
                }
                break;
            }
            path.push(At::T8(g * GROUP + a.bits(off, 8) as usize));
            off += 8;
        }
        for at in path.into_iter().rev() {
            self.t.recycle(at);
        }
    }

    #[inline(always)]
    fn lookup_raw(&self, a: A) -> u32 {
        let mut e = self.t.tbl24[a.top(TOP) as usize];
        if A::BITS == 32 {
            if e & EXT != 0 {
                e = self.t.tbl8[((e & !EXT) as usize) * GROUP + a.bits(TOP, 8) as usize];
            }
            return e;
        }
        let mut off = TOP;
        while e & EXT != 0 {
            e = self.t.tbl8[((e & !EXT) as usize) * GROUP + a.bits(off, 8) as usize];
            off += 8;
        }
        e
    }
}

impl<A: Address> Lpm<A> for Dir24_8<A> {
    fn name(&self) -> String {
        "dir24_8".to_string()
    }

    fn build(&mut self, routes: &[(Prefix<A>, NextHop)]) {
        let mut rib = Radix::new();
        for &(p, nh) in routes {
            rib.insert(p, nh);
        }
        self.rib = rib;
        self.t = Tables::new();
        // Shorter prefixes first: each add then writes its whole range once.
        let mut all = self.rib.routes();
        all.sort_by_key(|r| r.0.len());
        for (p, nh) in all {
            self.add(&p, nh.get());
        }
    }

    // RIB first, then rebuild what the prefix covers: the same five lines in every RIB-backed
    // structure (poptrie, sail, dxr, treebitmap, dir24_8), an intentional per-algorithm twin —
    // the rebuild is each layout's own, and a shared helper would borrow `self` twice.
    fn insert(&mut self, prefix: Prefix<A>, nh: NextHop) -> Option<NextHop> {
        let old = self.rib.insert(prefix, nh);
        if old != Some(nh) {
            self.add(&prefix, nh.get());
        }
        old
    }

    fn remove(&mut self, prefix: Prefix<A>) -> Option<NextHop> {
        let old = self.rib.remove(prefix)?;
        self.delete(&prefix);
        Some(old)
    }

    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        NextHop::from_raw(self.lookup_raw(addr))
    }

    /// A plain loop, as DPDK's `rte_lpm_lookup_bulk`: the `tbl24` loads of successive
    /// addresses are independent, so the out-of-order core overlaps their misses without
    /// software prefetch (measured faster than 16-wide prefetch groups; docs/results/lpm.md).
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        for (o, &a) in out.iter_mut().zip(addrs) {
            *o = NextHop::from_raw(self.lookup_raw(a));
        }
    }

    fn memory_bytes(&self) -> usize {
        (self.t.tbl24.len() + self.t.groups() * GROUP) * 4
    }

    fn stats(&self) -> LpmStats {
        LpmStats {
            prefixes: self.rib.len(),
            internal_nodes: self.t.groups(),
            leaves: self.t.tbl24.len() + self.t.groups() * GROUP,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nh(x: u32) -> NextHop {
        NextHop::new(x).unwrap()
    }

    #[test]
    fn groups_are_made_and_recycled() {
        let mut t = Dir24_8::<u32>::new();
        t.insert("10.0.0.0/8".parse().unwrap(), nh(1));
        assert_eq!(t.stats().internal_nodes, 0);
        t.insert("10.1.2.128/25".parse().unwrap(), nh(2));
        t.insert("10.1.2.192/26".parse().unwrap(), nh(3));
        assert_eq!(t.stats().internal_nodes, 1);
        assert_eq!(t.lookup(0x0A01_0201), Some(nh(1)));
        assert_eq!(t.lookup(0x0A01_0281), Some(nh(2)));
        assert_eq!(t.lookup(0x0A01_02C1), Some(nh(3)));
        t.remove("10.1.2.128/25".parse().unwrap());
        assert_eq!(t.lookup(0x0A01_0281), Some(nh(1)));
        assert_eq!(t.lookup(0x0A01_02C1), Some(nh(3)));
        assert_eq!(t.stats().internal_nodes, 1);
        t.remove("10.1.2.192/26".parse().unwrap());
        assert_eq!(t.stats().internal_nodes, 0, "uniform group recycled");
        assert_eq!(t.lookup(0x0A01_02C1), Some(nh(1)));
        assert_eq!(t.memory_bytes(), 4 << 24);
    }

    #[test]
    fn v6_chains_groups() {
        let mut t = Dir24_8::<u128>::new();
        t.insert("2001:db8::/32".parse().unwrap(), nh(1));
        t.insert("2001:db8:1::/48".parse().unwrap(), nh(2));
        t.insert("2001:db8:1::1/128".parse().unwrap(), nh(3));
        let a = |s: &str| u128::from(s.parse::<std::net::Ipv6Addr>().unwrap());
        assert_eq!(t.lookup(a("2001:db8:1::1")), Some(nh(3)));
        assert_eq!(t.lookup(a("2001:db8:1::2")), Some(nh(2)));
        assert_eq!(t.lookup(a("2001:db8:2::2")), Some(nh(1)));
        assert_eq!(t.stats().internal_nodes, 1 + 2 + 10);
        t.remove("2001:db8:1::1/128".parse().unwrap());
        assert_eq!(t.stats().internal_nodes, 1 + 2);
        assert_eq!(t.lookup(a("2001:db8:1::1")), Some(nh(2)));
    }
}
