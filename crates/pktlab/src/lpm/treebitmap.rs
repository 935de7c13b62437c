//! Tree BitMap: a multibit trie whose nodes keep two bitmaps and two base indices.
//!
//! Implements W. Eatherton, G. Varghese and Z. Dittia, "Tree Bitmap: Hardware/Software IP
//! Lookups with Incremental Updates", ACM SIGCOMM CCR 34(2), 2004, as the Poptrie paper
//! compares against it (digest: `papers/DIGEST.md`, 004), for IPv4 and IPv6 alike:
//!
//! * **§3 node layout** — a node covers a stride of `STRIDE` = 6 bits. Its *internal bitmap*
//!   has one bit per prefix of length 0..=5 inside the stride (63 bits, in the paper's
//!   breadth-first order: position 2^l − 1 + x for the prefix `x` of length `l`); its
//!   *external bitmap* one bit per child (64). Children are stored contiguously from
//!   `child`, results (next hops) contiguously from `result`, both indexed by a popcount
//!   of the bitmap below the bit in question;
//! * **§3 search** — at each node the longest internal prefix matching the next stride is
//!   found (here in one step: the mask of the 6 candidate positions of the stride value is
//!   precomputed, and the highest set bit of `internal & mask` is the longest match), its
//!   result index is remembered, and the walk continues into the child if the external bit
//!   is set; the result array is read once, at the end (§3, "delay the result access");
//! * **§5.1 initial array optimisation** — the first `init` bits index an array directly;
//!   each entry holds the next hop of the longest route of length ≤ `init` (pushed) and the
//!   root node of the subtree of longer routes, if any;
//! * **§4 incremental update** — a route change rewrites only the nodes on its path: the one
//!   whose stride holds the route (new internal bitmap and result block) and its ancestors'
//!   child blocks when a child appears or vanishes.
//!
//! Simplifications: nodes hold 64-bit bitmaps (24-byte nodes, like Poptrie's), and the
//! routes live in a radix trie from which nodes are recomputed, instead of editing bitmaps
//! bit by bit; blocks are allocated from per-size free lists.

use super::radix::Radix;
use super::walk::{Cursor, NIL};
use super::LpmError;
use super::{prefetch, Lpm, LpmStats};
use crate::net::{Address, NextHop, Prefix};
use std::fmt;
use std::str::FromStr;

/// Bits per node.
const STRIDE: u32 = 6;
/// "No node" in an initial-array entry, "no result" in a search.
const NONE: u32 = u32::MAX;

/// Internal-bitmap positions of the prefixes of length 0..=5 matching stride value `v`.
const fn candidates(v: u32) -> u64 {
    let mut m = 0u64;
    let mut l = 0;
    while l < STRIDE {
        m |= 1 << ((1 << l) - 1 + (v >> (STRIDE - l)));
        l += 1;
    }
    m
}

/// [`candidates`] for every stride value.
const CAND: [u64; 64] = {
    let mut t = [0u64; 64];
    let mut v = 0;
    while v < 64 {
        t[v] = candidates(v as u32);
        v += 1;
    }
    t
};

/// A Tree BitMap configuration: bits of the initial array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TbmConfig {
    /// Bits indexed by the initial array (0 = none: the walk starts at one root node).
    pub init: u8,
}

impl TbmConfig {
    /// The largest initial array accepted (2^20 entries of 8 bytes).
    pub const MAX_INIT: u8 = 20;
}

impl Default for TbmConfig {
    /// `treebitmap`: a 2^16-entry initial array (512 KiB), tuned on RIS v4 (see
    /// `docs/results/lpm.md`).
    fn default() -> Self {
        TbmConfig { init: 16 }
    }
}

impl fmt::Display for TbmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Self::default() {
            f.write_str("treebitmap")
        } else {
            write!(f, "treebitmap{}", self.init)
        }
    }
}

impl FromStr for TbmConfig {
    type Err = crate::lpm::LpmError;

    /// Parses `treebitmap` (the default) or `treebitmap<I>` (initial-array bits I ≤ 20).
    fn from_str(s: &str) -> Result<Self, LpmError> {
        let rest = s
            .strip_prefix("treebitmap")
            .ok_or_else(|| format!("not a treebitmap name: {s:?}"))?;
        if rest.is_empty() {
            return Ok(Self::default());
        }
        let init: u8 = rest
            .parse()
            .map_err(|_| format!("bad initial-array bits in {s:?}"))?;
        if init > Self::MAX_INIT {
            return Err(format!("initial-array bits {init} > {}", Self::MAX_INIT).into());
        }
        Ok(TbmConfig { init })
    }
}

/// A node (24 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Node {
    /// Bit k: child k exists.
    ext: u64,
    /// Bit 2^l − 1 + x: the prefix x of length l (relative to the node) is a route.
    int: u64,
    /// Index of the first child.
    child: u32,
    /// Index of the first result.
    result: u32,
}

/// An initial-array entry: pushed next hop and root node of the subtree (or [`NONE`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    node: u32,
    nh: u32,
}

/// Contiguous blocks of 1..=64 items with one free list per block length.
#[derive(Clone, Debug)]
struct Pool<T> {
    items: Vec<T>,
    free: [Vec<u32>; 65],
    used: usize,
}

impl<T: Copy + Default> Pool<T> {
    fn new() -> Self {
        Pool {
            items: Vec::new(),
            free: std::array::from_fn(|_| Vec::new()),
            used: 0,
        }
    }

    /// Stores `vals` (1..=64 items) in a block; returns its start (0 for no items).
    fn put(&mut self, vals: &[T]) -> u32 {
        let n = vals.len();
        if n == 0 {
            return 0;
        }
        self.used += n;
        let at = match self.free[n].pop() {
            Some(i) => i as usize,
            None => {
                self.items.extend_from_slice(vals);
                return (self.items.len() - n) as u32;
            }
        };
        self.items[at..at + n].copy_from_slice(vals);
        at as u32
    }

    fn drop_block(&mut self, at: u32, n: usize) {
        if n > 0 {
            self.used -= n;
            self.free[n].push(at);
        }
    }
}

/// Everything a lookup reads.
#[derive(Clone, Debug)]
struct Tables {
    init: Vec<Slot>,
    nodes: Pool<Node>,
    results: Pool<u32>,
}

/// A Tree BitMap for addresses of family `A`.
#[derive(Clone, Debug)]
pub struct TreeBitmap<A: Address> {
    cfg: TbmConfig,
    rib: Radix<A>,
    t: Tables,
}

impl Tables {
    fn new(init: u32) -> Self {
        Tables {
            init: vec![Slot { node: NONE, nh: 0 }; 1 << init],
            nodes: Pool::new(),
            results: Pool::new(),
        }
    }

    /// Internal bitmap and result block of the node at cursor `c`. Breadth-first order of
    /// the stride's prefixes is also bitmap order, so results are stored as they are met.
    /// The route ending exactly at the node's top belongs to it unless `skip_top` (the
    /// initial array holds it).
    fn internal<A: Address>(&mut self, rib: &Radix<A>, c: Cursor, skip_top: bool) -> (u64, u32) {
        let mut int = 0u64;
        let mut res = [0u32; 63];
        let mut n = 0;
        let mut level = vec![c];
        for l in 0..STRIDE {
            for (x, cx) in level.iter().enumerate() {
                let own = cx.own(rib);
                if own != 0 && !(l == 0 && skip_top) {
                    int |= 1 << ((1 << l) - 1 + x);
                    res[n] = own;
                    n += 1;
                }
            }
            level = level
                .iter()
                .flat_map(|cx| [cx.step(rib, 0), cx.step(rib, 1)])
                .collect();
        }
        (int, self.results.put(&res[..n]))
    }

    /// Builds the node at cursor `c` (depth `depth`, `c.node != NIL`) and its subtree.
    fn build<A: Address>(&mut self, rib: &Radix<A>, c: Cursor, depth: u32, init: u32) -> Node {
        let (int, result) = self.internal(rib, c, depth == init);
        let mut below = Vec::with_capacity(64);
        c.expand(rib, STRIDE, &mut below);
        let mut ext = 0u64;
        let mut kids = Vec::new();
        for (k, ck) in below.into_iter().enumerate() {
            if ck.node != NIL {
                ext |= 1 << k;
                kids.push(self.build(rib, ck, depth + STRIDE, init));
            }
        }
        Node {
            ext,
            int,
            child: self.nodes.put(&kids),
            result,
        }
    }

    /// Frees the blocks of `x`'s subtree (not `x` itself, which lives in its parent's block).
    fn free(&mut self, x: &Node) {
        let n = x.ext.count_ones() as usize;
        for i in 0..n {
            let k = self.nodes.items[x.child as usize + i];
            self.free(&k);
        }
        self.nodes.drop_block(x.child, n);
        self.results
            .drop_block(x.result, x.int.count_ones() as usize);
    }

    /// The node at cursor `c` (depth `depth`) after route `p` changed below or at it,
    /// reusing what `old` has that did not change; `None` if no node is needed any more.
    #[allow(clippy::too_many_arguments)]
    fn update<A: Address>(
        &mut self,
        rib: &Radix<A>,
        old: Option<Node>,
        c: Cursor,
        depth: u32,
        init: u32,
        p: &Prefix<A>,
    ) -> Option<Node> {
        let needed = c.node != NIL && (depth > init || !c.is_flat(rib));
        let x = match (needed, old) {
            (false, old) => {
                if let Some(x) = old {
                    self.free(&x);
                }
                return None;
            }
            (true, None) => return Some(self.build(rib, c, depth, init)),
            (true, Some(x)) => x,
        };
        let len = p.len() as u32;
        if len < depth + STRIDE {
            // The route lies inside this node's stride: new internal bitmap and results.
            self.results
                .drop_block(x.result, x.int.count_ones() as usize);
            let (int, result) = self.internal(rib, c, depth == init);
            return Some(Node { int, result, ..x });
        }
        // The route lies under child k: update it, then rewrite the child block.
        let k = p.addr().bits(depth, STRIDE);
        let n = x.ext.count_ones() as usize;
        let rank = (x.ext & ((1u64 << k) - 1)).count_ones() as usize;
        let has = x.ext & (1 << k) != 0;
        let old_k = has.then(|| self.nodes.items[x.child as usize + rank]);
        let ck = c.down(rib, p.addr(), depth, STRIDE);
        let new_k = self.update(rib, old_k, ck, depth + STRIDE, init, p);
        let mut kids: Vec<Node> = self.nodes.items[x.child as usize..x.child as usize + n].to_vec();
        let mut ext = x.ext;
        match (has, new_k) {
            (true, Some(nk)) => kids[rank] = nk,
            (true, None) => {
                kids.remove(rank);
                ext &= !(1 << k);
            }
            (false, Some(nk)) => {
                kids.insert(rank, nk);
                ext |= 1 << k;
            }
            (false, None) => return Some(x),
        }
        self.nodes.drop_block(x.child, n);
        let child = self.nodes.put(&kids);
        Some(Node { ext, child, ..x })
    }
}

impl<A: Address> TreeBitmap<A> {
    /// An empty Tree BitMap with the given configuration.
    pub fn new(cfg: TbmConfig) -> Self {
        let cfg = TbmConfig {
            init: cfg.init.min(TbmConfig::MAX_INIT),
        };
        TreeBitmap {
            cfg,
            rib: Radix::new(),
            t: Tables::new(cfg.init as u32),
        }
    }

    /// The configuration.
    pub fn config(&self) -> TbmConfig {
        self.cfg
    }

    /// Initial-array entry for cursor `c` at depth `init`, building its subtree.
    fn slot(t: &mut Tables, rib: &Radix<A>, c: Cursor, init: u32) -> Slot {
        let node = if c.node != NIL && !c.is_flat(rib) {
            let x = t.build(rib, c, init, init);
            t.nodes.put(&[x])
        } else {
            NONE
        };
        Slot { node, nh: c.nh }
    }

    fn update(&mut self, p: &Prefix<A>) {
        let init = self.cfg.init as u32;
        let len = p.len() as u32;
        let root = Cursor::root(&self.rib);
        let first = if init == 0 {
            0
        } else {
            p.addr().top(init) as usize
        };
        if len <= init {
            // Only pushed next hops change: nodes hold routes longer than `init`.
            let mut cs = Vec::new();
            root.down(&self.rib, p.addr(), 0, len)
                .expand(&self.rib, init - len, &mut cs);
            for (j, c) in cs.into_iter().enumerate() {
                self.t.init[first + j].nh = c.nh;
            }
            return;
        }
        let c = root.down(&self.rib, p.addr(), 0, init);
        let s = self.t.init[first];
        let old = (s.node != NONE).then(|| self.t.nodes.items[s.node as usize]);
        let new = self.t.update(&self.rib, old, c, init, init, p);
        let node = match (s.node, new) {
            (NONE, None) => NONE,
            (NONE, Some(x)) => self.t.nodes.put(&[x]),
            (at, Some(x)) => {
                self.t.nodes.items[at as usize] = x;
                at
            }
            (at, None) => {
                self.t.nodes.drop_block(at, 1);
                NONE
            }
        };
        self.t.init[first] = Slot { node, nh: c.nh };
    }

    #[inline(always)]
    fn index(&self, a: A) -> usize {
        if self.cfg.init == 0 {
            0
        } else {
            a.top(self.cfg.init as u32) as usize
        }
    }

    #[inline(always)]
    fn lookup_raw(&self, a: A) -> u32 {
        let s = self.t.init[self.index(a)];
        if s.node == NONE {
            return s.nh;
        }
        let nodes = &self.t.nodes.items[..];
        let mut n = &nodes[s.node as usize];
        let mut off = self.cfg.init as u32;
        let mut best = NONE;
        loop {
            let v = a.bits(off, STRIDE);
            let m = n.int & CAND[v as usize];
            if m != 0 {
                let pos = 63 - m.leading_zeros();
                best = n.result + (n.int & ((1u64 << pos) - 1)).count_ones();
            }
            if n.ext & (1u64 << v) == 0 {
                break;
            }
            n = &nodes[(n.child + (n.ext & ((1u64 << v) - 1)).count_ones()) as usize];
            off += STRIDE;
        }
        if best == NONE {
            s.nh
        } else {
            self.t.results.items[best as usize]
        }
    }

    /// Batched lookup, level-synchronous over groups of 32 like Poptrie's: each round
    /// advances every lookup still inside the trie by one node, selecting the remembered
    /// result and the next node without branches, and prefetches the next node.
    #[inline(always)]
    fn batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        const G: usize = 32;
        let init = &self.t.init[..];
        let nodes = &self.t.nodes.items[..];
        let results = &self.t.results.items[..];
        for (ac, oc) in addrs.chunks(G).zip(out.chunks_mut(G)) {
            let mut cur = [0u32; G];
            for (c, a) in cur.iter_mut().zip(ac) {
                *c = self.index(*a) as u32;
                prefetch(init.as_ptr().wrapping_add(*c as usize));
            }
            let mut best = [NONE; G];
            let mut work = [0u8; G];
            let mut nw = 0usize;
            for (j, (c, o)) in cur.iter_mut().zip(oc.iter_mut()).enumerate() {
                let s = init[*c as usize];
                *o = NextHop::from_raw(s.nh);
                *c = s.node;
                work[nw & (G - 1)] = j as u8;
                nw += (s.node != NONE) as usize;
                prefetch(nodes.as_ptr().wrapping_add(s.node as usize));
            }
            let mut off = self.cfg.init as u32;
            while nw != 0 {
                let mut next = 0usize;
                for w in 0..nw {
                    let j = work[w & (G - 1)] as usize & (G - 1);
                    let n = &nodes[cur[j] as usize];
                    let v = ac[j].bits(off, STRIDE);
                    let below = (1u64 << v) - 1;
                    let m = n.int & CAND[v as usize];
                    let pos = 63 - (m | 1).leading_zeros();
                    let r = n.result + (n.int & ((1u64 << pos) - 1)).count_ones();
                    best[j] = if m != 0 { r } else { best[j] };
                    let go = ((n.ext >> v) & 1) as usize;
                    cur[j] = n.child + (n.ext & below).count_ones();
                    prefetch(nodes.as_ptr().wrapping_add(cur[j] as usize));
                    work[next & (G - 1)] = j as u8;
                    next += go;
                }
                nw = next;
                off += STRIDE;
            }
            for (o, &b) in oc.iter_mut().zip(&best) {
                if b != NONE {
                    *o = NextHop::from_raw(results[b as usize]);
                }
            }
        }
    }

    /// `batch` compiled with POPCNT and LZCNT.
    ///
    /// # Safety
    /// The CPU must support POPCNT and LZCNT (checked by the caller).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt")]
    unsafe fn batch_native(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.batch(addrs, out)
    }
}

impl<A: Address> Lpm<A> for TreeBitmap<A> {
    fn name(&self) -> String {
        self.cfg.to_string()
    }

    fn build(&mut self, routes: &[(Prefix<A>, NextHop)]) {
        let mut rib = Radix::new();
        for &(p, nh) in routes {
            rib.insert(p, nh);
        }
        self.rib = rib;
        let init = self.cfg.init as u32;
        let mut t = Tables::new(init);
        let mut cs = Vec::with_capacity(1 << init);
        Cursor::root(&self.rib).expand(&self.rib, init, &mut cs);
        for (i, c) in cs.into_iter().enumerate() {
            t.init[i] = Self::slot(&mut t, &self.rib, c, init);
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

    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("lzcnt")
        {
            // SAFETY: both features were detected just above.
            unsafe { self.batch_native(addrs, out) };
            return;
        }
        self.batch(addrs, out)
    }

    fn memory_bytes(&self) -> usize {
        self.t.init.len() * std::mem::size_of::<Slot>()
            + self.t.nodes.used * std::mem::size_of::<Node>()
            + self.t.results.used * 4
    }

    fn stats(&self) -> LpmStats {
        LpmStats {
            prefixes: self.rib.len(),
            internal_nodes: self.t.nodes.used,
            leaves: self.t.results.used,
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
    fn candidate_masks_follow_the_stride() {
        // Stride value 0b101101: prefixes "", 1, 10, 101, 1011, 10110.
        assert_eq!(
            CAND[0b101101],
            (1 << 0) | (1 << 2) | (1 << 5) | (1 << 12) | (1 << 26) | (1 << 53)
        );
        assert_eq!(CAND[0].count_ones(), 6);
    }

    #[test]
    fn names_and_internal_prefixes() {
        assert_eq!(TbmConfig::default().to_string(), "treebitmap");
        assert_eq!("treebitmap0".parse::<TbmConfig>().unwrap().init, 0);
        assert!("treebitmap21".parse::<TbmConfig>().is_err());
        for init in [0u8, 8, 16] {
            let mut t = TreeBitmap::<u32>::new(TbmConfig { init });
            t.insert("10.0.0.0/8".parse().unwrap(), nh(1));
            t.insert("10.1.0.0/17".parse().unwrap(), nh(2));
            t.insert("10.1.0.0/19".parse().unwrap(), nh(3));
            assert_eq!(t.lookup(0x0A01_0001), Some(nh(3)), "init {init}");
            assert_eq!(t.lookup(0x0A01_2001), Some(nh(2)), "init {init}");
            assert_eq!(t.lookup(0x0A01_8001), Some(nh(1)), "init {init}");
            t.remove("10.1.0.0/19".parse().unwrap());
            t.remove("10.1.0.0/17".parse().unwrap());
            assert_eq!(t.lookup(0x0A01_0001), Some(nh(1)), "init {init}");
            assert_eq!(t.stats().leaves, (init < 8) as usize);
        }
    }
}
