//! DXR: a direct table of 2^k chunks plus binary search over each chunk's address ranges.
//!
//! Implements M. Zec, L. Rizzo and M. Mikuc, "DXR: Towards a Billion Routing Lookups per
//! Second in Software", ACM SIGCOMM CCR 42(5), 2012, in its two configurations the Poptrie
//! paper compares against (digest: `papers/DIGEST.md`, 004): **D16R** (k = 16) and **D18R**
//! (k = 18):
//!
//! * the routing table is flattened into disjoint address ranges, each with one next hop;
//!   neighbouring ranges with the same next hop are merged (§3.1);
//! * the top k bits index the *direct table*; a chunk covered by a single range stores its
//!   next hop there directly, otherwise the entry points to the chunk's ranges in the
//!   *range table*, sorted by start, searched with a binary search on the remaining address
//!   bits (§3.2);
//! * range entries are 32-bit *long* entries (16-bit start, 16-bit index into a next-hop
//!   table) or 16-bit *short* entries (8-bit start, 8-bit index) when every range of the
//!   chunk starts on a /24 boundary and its next-hop indices fit in 8 bits (§3.3);
//! * updates rebuild only the chunks the changed prefix overlaps (§4), appending the new
//!   range block when it outgrows the old one and compacting the range table when more than
//!   half of it is garbage.
//!
//! Simplifications: the chunk's range count is stored in a header word in front of its
//! ranges rather than in the direct-table entry (the paper's 19-bit base and 12-bit count do
//! not fit today's tables: RIS v4 has over 2^19 ranges), so the direct entry keeps a 29-bit
//! base; chunks whose next-hop indices exceed 16 bits, or whose ranges need more than 16
//! start bits, use a *wide* format (full-width starts, 32-bit next hops).
//!
//! IPv6: the paper is IPv4-only (its entry formats assume 32-bit keys). `Dxr<u128>` works —
//! every chunk then uses the wide format, a binary search on 128-bit starts — but it is
//! pktlab's extension, not a published form.

use super::radix::Radix;
use super::walk::Cursor;
use super::{prefetch, Lpm, LpmStats};
use crate::net::{Address, NextHop, Prefix};
use std::collections::HashMap;

/// Direct entry flag: the low 31 bits are a next hop.
const LEAF: u32 = 1 << 31;
/// Bits 29..31 of a non-leaf direct entry: range format.
const FMT_SHIFT: u32 = 29;
/// Base mask of a non-leaf direct entry.
const BASE: u32 = (1 << FMT_SHIFT) - 1;
/// 32-bit entries: start << 16 | next-hop index.
const LONG: u32 = 0;
/// 16-bit entries: (start >> 8) << 8 | next-hop index.
const SHORT: u32 = 1;
/// Full-width starts and 32-bit next hops, in `wstart`/`wnh`.
const WIDE: u32 = 2;

/// Where a chunk's ranges are stored: format, base and allocated capacity.
#[derive(Clone, Copy, Debug, Default)]
struct Place {
    fmt: u32,
    base: u32,
    cap: u32,
}

/// The lookup structure and the update bookkeeping.
#[derive(Clone, Debug)]
struct Tables<A: Address> {
    direct: Vec<u32>,
    /// Long and short chunks: a count word, then the entries.
    ranges: Vec<u32>,
    /// Wide chunks: starts (offset within the chunk), `wstart[base]` unused.
    wstart: Vec<A>,
    /// Wide chunks: `wnh[base]` = count, then next hops.
    wnh: Vec<u32>,
    /// Next-hop table: index → raw next hop (index 0 = no route).
    nh: Vec<u32>,
    index: HashMap<u32, u32>,
    /// Storage of each non-leaf chunk (update bookkeeping; not read by lookups).
    place: Vec<Option<Place>>,
    garbage: usize,
    wgarbage: usize,
}

/// A DXR table (`DkR`) for addresses of family `A`.
#[derive(Clone, Debug)]
pub struct Dxr<A: Address> {
    k: u8,
    rib: Radix<A>,
    t: Tables<A>,
}

impl<A: Address> Tables<A> {
    fn new(k: u32) -> Self {
        Tables {
            direct: vec![LEAF; 1 << k],
            ranges: Vec::new(),
            wstart: Vec::new(),
            wnh: Vec::new(),
            nh: vec![0],
            index: HashMap::from([(0, 0)]),
            place: vec![None; 1 << k],
            garbage: 0,
            wgarbage: 0,
        }
    }

    fn nh_index(&mut self, raw: u32) -> u32 {
        let n = self.nh.len() as u32;
        *self.index.entry(raw).or_insert_with(|| {
            self.nh.push(raw);
            n
        })
    }

    fn release(&mut self, c: usize) {
        if let Some(p) = self.place[c].take() {
            if p.fmt == WIDE {
                self.wgarbage += p.cap as usize;
            } else {
                self.garbage += p.cap as usize;
            }
        }
    }

    /// Stores chunk `c`'s ranges (`(offset in chunk, raw next hop)`, sorted, merged).
    fn store(&mut self, c: usize, k: u32, ranges: &[(A, u32)]) {
        if ranges.len() == 1 {
            self.release(c);
            self.direct[c] = LEAF | ranges[0].1;
            return;
        }
        let idx: Vec<u32> = ranges.iter().map(|r| self.nh_index(r.1)).collect();
        let narrow = A::BITS - k <= 16;
        let start = |o: A| o.bits(k, A::BITS - k);
        let fmt = if narrow
            && idx.iter().all(|&i| i < 256)
            && ranges.iter().all(|r| start(r.0) & 0xFF == 0)
        {
            SHORT
        } else if narrow && idx.iter().all(|&i| i < 1 << 16) {
            LONG
        } else {
            WIDE
        };
        let n = ranges.len();
        let need = match fmt {
            SHORT => 1 + n.div_ceil(2),
            _ => 1 + n,
        } as u32;
        let base = match self.place[c] {
            Some(p) if (p.fmt == WIDE) == (fmt == WIDE) && p.cap >= need => p.base,
            _ => {
                self.release(c);
                let base = if fmt == WIDE {
                    self.wnh.resize(self.wnh.len() + need as usize, 0);
                    self.wstart.resize(self.wnh.len(), A::ZERO);
                    self.wnh.len() - need as usize
                } else {
                    self.ranges.resize(self.ranges.len() + need as usize, 0);
                    self.ranges.len() - need as usize
                };
                self.place[c] = Some(Place {
                    fmt,
                    base: base as u32,
                    cap: need,
                });
                base as u32
            }
        };
        if let Some(p) = self.place[c].as_mut() {
            p.fmt = fmt;
        }
        let b = base as usize;
        match fmt {
            WIDE => {
                self.wnh[b] = n as u32;
                for (j, r) in ranges.iter().enumerate() {
                    self.wstart[b + 1 + j] = r.0;
                    self.wnh[b + 1 + j] = r.1;
                }
            }
            LONG => {
                self.ranges[b] = n as u32;
                for (j, (r, i)) in ranges.iter().zip(&idx).enumerate() {
                    self.ranges[b + 1 + j] = start(r.0) << 16 | i;
                }
            }
            _ => {
                self.ranges[b] = n as u32;
                self.ranges[b + 1..b + need as usize].fill(0);
                for (j, (r, i)) in ranges.iter().zip(&idx).enumerate() {
                    let e = (start(r.0) >> 8) << 8 | i;
                    self.ranges[b + 1 + j / 2] |= e << (16 * (j & 1));
                }
            }
        }
        self.direct[c] = fmt << FMT_SHIFT | base;
        if self.garbage > 4096 && self.garbage * 2 > self.ranges.len() {
            self.compact(false);
        }
        if self.wgarbage > 4096 && self.wgarbage * 2 > self.wnh.len() {
            self.compact(true);
        }
    }

    /// Rewrites the range (or wide) arena without garbage, chunk by chunk.
    fn compact(&mut self, wide: bool) {
        let (mut r, mut ws, mut wn) = (Vec::new(), Vec::new(), Vec::new());
        for c in 0..self.place.len() {
            let Some(p) = self.place[c] else { continue };
            if (p.fmt == WIDE) != wide {
                continue;
            }
            let (b, n) = (p.base as usize, p.cap as usize);
            let base = if wide {
                wn.extend_from_slice(&self.wnh[b..b + n]);
                ws.extend_from_slice(&self.wstart[b..b + n]);
                wn.len() - n
            } else {
                r.extend_from_slice(&self.ranges[b..b + n]);
                r.len() - n
            };
            self.place[c] = Some(Place {
                base: base as u32,
                ..p
            });
            self.direct[c] = p.fmt << FMT_SHIFT | base as u32;
        }
        if wide {
            (self.wnh, self.wstart, self.wgarbage) = (wn, ws, 0);
        } else {
            (self.ranges, self.garbage) = (r, 0);
        }
    }

    fn bytes(&self) -> usize {
        let live = self.ranges.len() - self.garbage;
        let wlive = self.wnh.len() - self.wgarbage;
        self.direct.len() * 4
            + live * 4
            + wlive * (4 + std::mem::size_of::<A>())
            + self.nh.len() * 4
    }
}

impl<A: Address> Dxr<A> {
    /// An empty `DkR` table (k = direct-table bits; the paper's are 16 and 18).
    pub fn new(k: u8) -> Self {
        let k = k.clamp(1, 24);
        Dxr {
            k,
            rib: Radix::new(),
            t: Tables::new(k as u32),
        }
    }

    /// Direct-table bits.
    pub fn k(&self) -> u8 {
        self.k
    }

    /// Recomputes chunk `c` (cursor `cur` at depth k) from the RIB.
    fn rebuild(&mut self, c: usize, cur: Cursor) {
        let k = self.k as u32;
        // The chunk's first address: c in the top k bits.
        let first = A::from_random((c as u64) << (64 - k), 0);
        let mut r = Vec::new();
        cur.ranges(&self.rib, k, first, &mut r);
        let within = A::mask(k).not();
        for x in r.iter_mut() {
            x.0 = x.0.and(within);
        }
        self.t.store(c, k, &r);
    }

    fn update(&mut self, p: &Prefix<A>) {
        let k = self.k as u32;
        let len = p.len() as u32;
        let root = Cursor::root(&self.rib);
        let first = p.addr().top(k) as usize;
        let mut cs = Vec::new();
        if len > k {
            cs.push(root.down(&self.rib, p.addr(), 0, k));
        } else {
            root.down(&self.rib, p.addr(), 0, len)
                .expand(&self.rib, k - len, &mut cs);
        }
        for (j, c) in cs.into_iter().enumerate() {
            self.rebuild(first + j, c);
        }
    }

    /// Last range of the chunk at direct entry `d` whose start ≤ `a`'s offset: its next hop.
    #[inline(always)]
    fn search(&self, d: u32, a: A) -> u32 {
        let k = self.k as u32;
        let b = (d & BASE) as usize;
        match d >> FMT_SHIFT {
            SHORT => {
                let key = a.bits(k, A::BITS - k) >> 8;
                let r = &self.t.ranges[b..];
                let entry = |j: usize| (r[1 + j / 2] >> (16 * (j & 1))) & 0xFFFF;
                let (mut lo, mut n) = (0usize, r[0] as usize);
                while n > 1 {
                    let half = n / 2;
                    lo = if entry(lo + half) >> 8 <= key {
                        lo + half
                    } else {
                        lo
                    };
                    n -= half;
                }
                self.t.nh[(entry(lo) & 0xFF) as usize]
            }
            LONG => {
                let key = a.bits(k, A::BITS - k);
                let r = &self.t.ranges[b..];
                let (mut lo, mut n) = (0usize, r[0] as usize);
                while n > 1 {
                    let half = n / 2;
                    lo = if r[1 + lo + half] >> 16 <= key {
                        lo + half
                    } else {
                        lo
                    };
                    n -= half;
                }
                self.t.nh[(r[1 + lo] & 0xFFFF) as usize]
            }
            _ => {
                let key = a.and(A::mask(k).not());
                let (s, h) = (&self.t.wstart[b..], &self.t.wnh[b..]);
                let (mut lo, mut n) = (0usize, h[0] as usize);
                while n > 1 {
                    let half = n / 2;
                    lo = if s[1 + lo + half] <= key {
                        lo + half
                    } else {
                        lo
                    };
                    n -= half;
                }
                h[1 + lo]
            }
        }
    }

    #[inline(always)]
    fn lookup_raw(&self, a: A) -> u32 {
        let d = self.t.direct[a.top(self.k as u32) as usize];
        if d & LEAF != 0 {
            d & !LEAF
        } else {
            self.search(d, a)
        }
    }
}

impl<A: Address> Lpm<A> for Dxr<A> {
    fn name(&self) -> String {
        format!("d{}r", self.k)
    }

    fn build(&mut self, routes: &[(Prefix<A>, NextHop)]) {
        let mut rib = Radix::new();
        for &(p, nh) in routes {
            rib.insert(p, nh);
        }
        self.rib = rib;
        let k = self.k as u32;
        self.t = Tables::new(k);
        let mut cs = Vec::with_capacity(1 << k);
        Cursor::root(&self.rib).expand(&self.rib, k, &mut cs);
        for (c, cur) in cs.into_iter().enumerate() {
            self.rebuild(c, cur);
        }
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

    /// Groups of 16: all direct entries are prefetched, then the range headers (and first
    /// entries) of the chunks that need a search, then the searches run.
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        const G: usize = 16;
        let k = self.k as u32;
        let direct = &self.t.direct[..];
        for (ac, oc) in addrs.chunks(G).zip(out.chunks_mut(G)) {
            let mut d = [0u32; G];
            for (x, a) in d.iter_mut().zip(ac) {
                *x = a.top(k);
                prefetch(direct.as_ptr().wrapping_add(*x as usize));
            }
            for x in d.iter_mut().take(ac.len()) {
                *x = direct[*x as usize];
                let b = (*x & BASE) as usize;
                if *x >> FMT_SHIFT == WIDE {
                    prefetch(self.t.wnh.as_ptr().wrapping_add(b));
                } else {
                    prefetch(self.t.ranges.as_ptr().wrapping_add(b));
                }
            }
            for ((o, &x), a) in oc.iter_mut().zip(&d).zip(ac) {
                *o = NextHop::from_raw(if x & LEAF != 0 {
                    x & !LEAF
                } else {
                    self.search(x, *a)
                });
            }
        }
    }

    fn memory_bytes(&self) -> usize {
        self.t.bytes()
    }

    fn stats(&self) -> LpmStats {
        let chunks = self.t.place.iter().filter(|p| p.is_some()).count();
        let n: usize = self
            .t
            .place
            .iter()
            .flatten()
            .map(|p| {
                if p.fmt == WIDE {
                    self.t.wnh[p.base as usize] as usize
                } else {
                    self.t.ranges[p.base as usize] as usize
                }
            })
            .sum();
        LpmStats {
            prefixes: self.rib.len(),
            internal_nodes: chunks,
            leaves: n,
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
    fn formats_follow_the_ranges() {
        let mut t = Dxr::<u32>::new(16);
        t.insert("10.0.0.0/8".parse().unwrap(), nh(1));
        assert_eq!(t.stats().internal_nodes, 0, "all chunks are single ranges");
        t.insert("10.1.2.0/24".parse().unwrap(), nh(2));
        let d = t.t.direct[0x0A01];
        assert_eq!(d >> FMT_SHIFT, SHORT);
        assert_eq!(t.stats().leaves, 3);
        t.insert("10.1.3.128/25".parse().unwrap(), nh(3));
        assert_eq!(t.t.direct[0x0A01] >> FMT_SHIFT, LONG);
        assert_eq!(t.lookup(0x0A01_0201), Some(nh(2)));
        assert_eq!(t.lookup(0x0A01_0381), Some(nh(3)));
        assert_eq!(t.lookup(0x0A01_0301), Some(nh(1)));
        assert_eq!(t.lookup(0x0A01_0401), Some(nh(1)));
        t.remove("10.1.3.128/25".parse().unwrap());
        t.remove("10.1.2.0/24".parse().unwrap());
        assert_eq!(t.stats().internal_nodes, 0);
        assert_eq!(t.lookup(0x0A01_0201), Some(nh(1)));
        // 70,000 distinct next hops: indices past 16 bits force the wide format.
        let mut w = Dxr::<u32>::new(16);
        let routes: Vec<_> = (0..70_000u32)
            .map(|i| (Prefix::new_masked(0x0A00_0000 | (i << 4), 28), nh(i + 1)))
            .collect();
        w.build(&routes);
        assert_eq!(w.lookup(0x0A00_0000 | (69_999 << 4)), Some(nh(70_000)));
        assert_eq!(
            w.t.direct[(0x0A00_0000 | (69_999 << 4)) >> 16] >> FMT_SHIFT,
            WIDE
        );
    }
}
