//! SAIL_L: three arrays at pivot levels 16, 24 and 32, with pivot pushing.
//!
//! Implements the lookup-oriented variant SAIL_L of T. Yang, G. Xie, Y. Li, Q. Fu, A. X. Liu,
//! Q. Li and L. Mathy, "Guarantee IP Lookup Performance with FIB Explosion", SIGCOMM 2014
//! (§4, "SAIL_L"), as the Poptrie paper compares against it (digest: `papers/DIGEST.md`, 004):
//!
//! * the prefix trie is cut at the *pivot levels* 16, 24 and 32; every route shorter than a
//!   pivot level is pushed down to it (leaf pushing), so each level is a plain array indexed
//!   by the next 16 (then 8, then 8) address bits;
//! * **pivot pushing**: an entry of level 16 or 24 whose subtree holds longer routes (a
//!   *pivot*) stores, with its top bit set, the id of a 256-entry chunk of the next level
//!   (`N24`, `N32`), into which the pivot's own next hop has been pushed; every other entry
//!   stores a next hop;
//! * a lookup reads `N16[a >> 16]`, and only for pivots `N24[chunk·256 + a[16..24]]`, then
//!   `N32[…]`: one to three dependent reads, the first from a 256 KiB array.
//!
//! **Updates** follow SAIL_U's rule that a route change only touches the entries of its own
//! level range and the chunks below them: the affected entries are recomputed from the RIB
//! (a radix trie), chunks are allocated when an entry becomes a pivot and freed when it stops
//! being one.
//!
//! Simplifications: entries are 32 bits (the paper packs next hops and chunk ids into 16 bits,
//! which caps a full table at 2^15 chunks — today's tables exceed that); the on-chip bitmap
//! `B16`/`B24` of SAIL_B is not kept (SAIL_L does not use it for lookups).
//!
//! IPv6: pivot levels every 8 bits after 16 (16, 24, …, 128). The SIGCOMM paper evaluates IPv4
//! only; this straightforward generalisation is pktlab's, not a published evaluation.

use super::radix::Radix;
use super::walk::Cursor;
use super::{prefetch, Lpm, LpmStats};
use crate::net::{Address, NextHop, Prefix};

/// Flag of a pivot entry (holds a chunk id of the next level).
const PIVOT: u32 = 1 << 31;
/// Bits of the first level.
const FIRST: u32 = 16;
/// Entries per chunk (8 bits per level after the first).
const CHUNK: usize = 256;

/// One level after the first: chunks of 256 entries.
#[derive(Clone, Debug, Default)]
struct Level {
    e: Vec<u32>,
    free: Vec<u32>,
}

impl Level {
    fn alloc(&mut self) -> usize {
        match self.free.pop() {
            Some(c) => c as usize,
            None => {
                self.e.resize(self.e.len() + CHUNK, 0);
                self.e.len() / CHUNK - 1
            }
        }
    }

    fn chunks(&self) -> usize {
        self.e.len() / CHUNK - self.free.len()
    }
}

/// The arrays: `n16` plus one [`Level`] per further pivot level (`levels[0]` = N24).
#[derive(Clone, Debug)]
struct Tables {
    n16: Vec<u32>,
    levels: Vec<Level>,
}

/// A SAIL_L table for addresses of family `A`.
#[derive(Clone, Debug)]
pub struct Sail<A: Address> {
    rib: Radix<A>,
    t: Tables,
}

impl Tables {
    fn new(bits: u32) -> Self {
        Tables {
            n16: vec![0; 1 << FIRST],
            levels: vec![Level::default(); ((bits - FIRST) / 8) as usize],
        }
    }

    /// The entry for cursor `c` at the end of level `l` (0 = N16, whose entries cover depth
    /// 16; entries of level l cover depth 16 + 8l): a next hop, or a new chunk of level l + 1.
    fn build<A: Address>(&mut self, rib: &Radix<A>, l: usize, c: Cursor) -> u32 {
        if c.is_flat(rib) {
            return c.nh;
        }
        let mut below = Vec::with_capacity(CHUNK);
        c.expand(rib, 8, &mut below);
        let id = self.levels[l].alloc();
        for (j, cj) in below.into_iter().enumerate() {
            let e = self.build(rib, l + 1, cj);
            self.levels[l].e[id * CHUNK + j] = e;
        }
        PIVOT | id as u32
    }

    /// Frees the chunks under entry `e` of level `l`.
    fn free(&mut self, l: usize, e: u32) {
        if e & PIVOT == 0 {
            return;
        }
        let id = (e & !PIVOT) as usize;
        for j in 0..CHUNK {
            let x = self.levels[l].e[id * CHUNK + j];
            self.free(l + 1, x);
        }
        self.levels[l].free.push(id as u32);
    }

    /// Rebuilds entries `first..first + n` of chunk `id` of `levels[l]`, from cursors `cs`.
    fn rebuild<A: Address>(
        &mut self,
        rib: &Radix<A>,
        l: usize,
        id: usize,
        first: usize,
        cs: &[Cursor],
    ) {
        for (j, &c) in cs.iter().enumerate() {
            let old = self.levels[l].e[id * CHUNK + first + j];
            self.free(l + 1, old);
            let e = self.build(rib, l + 1, c);
            self.levels[l].e[id * CHUNK + first + j] = e;
        }
    }

    /// Updates entry `old` of level `l` (cursor `c` at its depth `depth`) for a change of
    /// route `p`, longer than `depth`; returns the new entry.
    fn update<A: Address>(
        &mut self,
        rib: &Radix<A>,
        l: usize,
        old: u32,
        c: Cursor,
        depth: u32,
        p: &Prefix<A>,
    ) -> u32 {
        if c.is_flat(rib) {
            self.free(l, old);
            return c.nh;
        }
        if old & PIVOT == 0 {
            return self.build(rib, l, c);
        }
        let id = (old & !PIVOT) as usize;
        let len = p.len() as u32;
        let first = p.addr().bits(depth, 8) as usize;
        if len <= depth + 8 {
            let mut cs = Vec::new();
            c.down(rib, p.addr(), depth, len - depth)
                .expand(rib, depth + 8 - len, &mut cs);
            self.rebuild(rib, l, id, first, &cs);
        } else {
            let e = self.levels[l].e[id * CHUNK + first];
            let cj = c.down(rib, p.addr(), depth, 8);
            let e = self.update(rib, l + 1, e, cj, depth + 8, p);
            self.levels[l].e[id * CHUNK + first] = e;
        }
        old
    }
}

impl<A: Address> Default for Sail<A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: Address> Sail<A> {
    /// An empty table.
    pub fn new() -> Self {
        Sail {
            rib: Radix::new(),
            t: Tables::new(A::BITS),
        }
    }

    /// Brings the arrays up to date after the RIB changed for `p`.
    fn update(&mut self, p: &Prefix<A>) {
        let len = p.len() as u32;
        let root = Cursor::root(&self.rib);
        let first = p.addr().top(FIRST) as usize;
        if len <= FIRST {
            let mut cs = Vec::new();
            root.down(&self.rib, p.addr(), 0, len)
                .expand(&self.rib, FIRST - len, &mut cs);
            for (j, c) in cs.into_iter().enumerate() {
                let old = self.t.n16[first + j];
                self.t.free(0, old);
                self.t.n16[first + j] = self.t.build(&self.rib, 0, c);
            }
        } else {
            let c = root.down(&self.rib, p.addr(), 0, FIRST);
            let old = self.t.n16[first];
            self.t.n16[first] = self.t.update(&self.rib, 0, old, c, FIRST, p);
        }
    }

    #[inline(always)]
    fn lookup_raw(&self, a: A) -> u32 {
        let mut e = self.t.n16[a.top(FIRST) as usize];
        let mut off = FIRST;
        let mut l = 0;
        while e & PIVOT != 0 {
            e = self.t.levels[l].e[((e & !PIVOT) as usize) * CHUNK + a.bits(off, 8) as usize];
            off += 8;
            l += 1;
        }
        e
    }
}

impl<A: Address> Lpm<A> for Sail<A> {
    fn name(&self) -> String {
        "sail".to_string()
    }

    fn build(&mut self, routes: &[(Prefix<A>, NextHop)]) {
        let mut rib = Radix::new();
        for &(p, nh) in routes {
            rib.insert(p, nh);
        }
        self.rib = rib;
        let mut t = Tables::new(A::BITS);
        let mut cs = Vec::with_capacity(1 << FIRST);
        Cursor::root(&self.rib).expand(&self.rib, FIRST, &mut cs);
        for (i, c) in cs.into_iter().enumerate() {
            t.n16[i] = t.build(&self.rib, 0, c);
        }
        self.t = t;
    }

    // RIB first, then rebuild what the prefix covers: the same five lines in every RIB-backed
    // structure (poptrie, sail, dxr, treebitmap, dir24_8), an intentional per-algorithm twin —
    // the rebuild is each layout's own, and a shared helper would borrow `self` twice.
    fn insert(&mut self, prefix: Prefix<A>, nh: NextHop) -> Option<NextHop> {
        let old = self.rib.insert(prefix, nh);
        if old != Some(nh) {
            self.update(&prefix);
        }
        old
    }

    fn remove(&mut self, prefix: Prefix<A>) -> Option<NextHop> {
        let old = self.rib.remove(prefix)?;
        self.update(&prefix);
        Some(old)
    }

    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        NextHop::from_raw(self.lookup_raw(addr))
    }

    /// Groups of 16, level-synchronous: every lookup of the group reads its N16 entry (all
    /// prefetched first), then the pivots read their N24 entries (prefetched), and so on.
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        const G: usize = 16;
        let n16 = &self.t.n16[..];
        for (ac, oc) in addrs.chunks(G).zip(out.chunks_mut(G)) {
            let mut e = [0u32; G];
            for (x, a) in e.iter_mut().zip(ac) {
                *x = a.top(FIRST);
                prefetch(n16.as_ptr().wrapping_add(*x as usize));
            }
            let mut pivots = 0u32;
            for (j, x) in e.iter_mut().enumerate().take(ac.len()) {
                *x = n16[*x as usize];
                pivots |= (*x >> 31) << j;
            }
            let (mut off, mut l) = (FIRST, 0);
            while pivots != 0 {
                let lv = &self.t.levels[l].e[..];
                let mut m = pivots;
                while m != 0 {
                    let j = m.trailing_zeros() as usize;
                    m &= m - 1;
                    e[j] = ((e[j] & !PIVOT) as usize * CHUNK + ac[j].bits(off, 8) as usize) as u32;
                    prefetch(lv.as_ptr().wrapping_add(e[j] as usize));
                }
                let mut next = 0u32;
                let mut m = pivots;
                while m != 0 {
                    let j = m.trailing_zeros() as usize;
                    m &= m - 1;
                    e[j] = lv[e[j] as usize];
                    next |= (e[j] >> 31) << j;
                }
                pivots = next;
                off += 8;
                l += 1;
            }
            for (o, x) in oc.iter_mut().zip(e) {
                *o = NextHop::from_raw(x);
            }
        }
    }

    fn memory_bytes(&self) -> usize {
        (self.t.n16.len()
            + self
                .t
                .levels
                .iter()
                .map(|l| l.chunks() * CHUNK)
                .sum::<usize>())
            * 4
    }

    fn stats(&self) -> LpmStats {
        let chunks: usize = self.t.levels.iter().map(Level::chunks).sum();
        LpmStats {
            prefixes: self.rib.len(),
            internal_nodes: chunks,
            leaves: self.t.n16.len() + chunks * CHUNK,
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
    fn pivots_get_chunks_and_lose_them() {
        let mut t = Sail::<u32>::new();
        t.insert("10.0.0.0/8".parse().unwrap(), nh(1));
        assert_eq!(t.stats().internal_nodes, 0);
        t.insert("10.1.2.0/23".parse().unwrap(), nh(2));
        assert_eq!(t.stats().internal_nodes, 1, "one N24 chunk");
        t.insert("10.1.2.3/32".parse().unwrap(), nh(3));
        assert_eq!(t.stats().internal_nodes, 2, "plus one N32 chunk");
        assert_eq!(t.lookup(0x0A01_0203), Some(nh(3)));
        assert_eq!(t.lookup(0x0A01_0204), Some(nh(2)));
        assert_eq!(t.lookup(0x0A01_0304), Some(nh(2)));
        assert_eq!(t.lookup(0x0A01_0404), Some(nh(1)));
        t.remove("10.1.2.0/23".parse().unwrap());
        assert_eq!(t.lookup(0x0A01_0204), Some(nh(1)), "pivot pushing redone");
        t.remove("10.1.2.3/32".parse().unwrap());
        assert_eq!(t.stats().internal_nodes, 0);
        assert_eq!(t.memory_bytes(), 4 << 16);
    }
}
