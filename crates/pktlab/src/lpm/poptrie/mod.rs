//! Poptrie: a compressed 64-ary trie indexed by population count.
//!
//! Implements H. Asai and Y. Ohara, "Poptrie: A Compressed Trie with Population Count for Fast
//! and Scalable Software IP Routing Table Lookup", SIGCOMM 2015 (digest: `papers/DIGEST.md`,
//! section 004), for IPv4 and IPv6 alike:
//!
//! * **§3.1 basic structure** — every internal node covers a 6-bit stride and holds a 64-bit
//!   `vector` (bit k set = slot k is an internal node) plus two bases: the node's internal
//!   children are stored contiguously from `base1`, its leaves contiguously from `base0`, and a
//!   child is found with `popcount(vector & mask(k))`;
//! * **§3.2 leafvec** — a second 64-bit vector marks only the slots where the leaf value
//!   *changes* (skipping internal slots), so runs of equal leaves are stored once;
//! * **§3.3 direct pointing** — the top `s` bits index an array of 2^s entries, each either a
//!   leaf (flag bit 31 + next hop) or the index of a top-level node;
//! * **§3.4 route aggregation** — a slot whose whole address range resolves to one next hop
//!   becomes a leaf even when more-specific routes with that same next hop exist below it;
//! * **§3.5 incremental update** — the routing information base is a binary radix trie
//!   ([`Radix`]); after a route changes, only the path of nodes from the direct-pointing entry
//!   down to the changed slots is rebuilt; unaffected subtrees are reused in place.
//!
//! The three evaluated variants are selectable ([`Variant`]): `Basic` (no leafvec, no
//! aggregation), `Leafvec` (+ leafvec) and `Aggregated` (+ route aggregation = Poptrie).
//!
//! Differences from the reference C code (pixos/poptrie, read but not copied):
//! * leaves are 16-bit while every next hop fits, and widen to 32 bits automatically
//!   (up to 2^31 − 1 distinct next hops; the reference is limited to 4,096);
//! * node and leaf arrays are arenas with per-size free lists (instead of buddy allocators);
//! * lookups run one of several compiled kernels ([`Kernel`]), picked once when the Poptrie is
//!   made from the CPU's features: `generic` (portable), `popcnt` (scalar lookup with the
//!   POPCNT instruction inlined, branch-free level-synchronous batch), `avx2` and `avx512`
//!   (SIMD batch walks with gathers, in `poptrie/simd.rs`); all give identical results and
//!   are checked against the radix oracle;
//! * concurrent readers are handled outside this type, by [`super::shared`], which publishes
//!   whole versions atomically and reuses memory only after readers have left it.
//!
//! Files: `config.rs` (variants, kernels, the configuration string), `build.rs` (building
//! from the RIB and incremental updates, §3.1–3.5), `lookup.rs` (the scalar lookup and the
//! batch kernels), `simd.rs` (AVX2/AVX-512 batch walks).

mod build;
mod calibrate;
mod config;
mod lookup;
#[cfg(target_arch = "x86_64")]
mod simd;
#[cfg(test)]
mod tests;

pub use calibrate::{auto_batch, Calibration, MIN_ROUTES, SIMD_MIN_BATCH, WIN};
pub use config::{Kernel, PoptrieConfig, Variant};

use super::radix::Radix;
use super::{Lpm, LpmStats};
use crate::net::{Address, NextHop, Prefix};

use lookup::{has_vpopcnt, HwPop, SoftPop};

/// An internal node (24 bytes, as in the paper).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Node {
    /// Bit k set: slot k is an internal node.
    vector: u64,
    /// Bit k set: a leaf is stored for slot k (where the value changes; for the basic
    /// variant, every leaf slot, i.e. `!vector`).
    leafvec: u64,
    /// Index of the first leaf.
    base0: u32,
    /// Index of the first internal child.
    base1: u32,
}

/// Flag marking a direct-pointing entry that holds a leaf value instead of a node index.
const DIR_LEAF: u32 = 1 << 31;
/// Stride of internal nodes, in bits.
const STRIDE: u32 = 6;
/// "No radix node" in slot descriptors (0 is the radix root, a valid node).
const NIL: u32 = u32::MAX;

/// Mask of the bits `0..=k` of a 64-bit vector.
#[inline(always)]
fn upto(k: u32) -> u64 {
    u64::MAX >> (63 - k)
}

/// One slot of a node while it is being built or rebuilt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Leaf(u32),
    Node(Node),
}

/// A growable array handing out contiguous blocks of 1..=64 items, with a free list per
/// block size so that rebuilt blocks are reused.
#[derive(Clone, Debug)]
struct Arena<T> {
    items: Vec<T>,
    free: Vec<Vec<u32>>,
    live: usize,
}

impl<T: Copy + Default> Arena<T> {
    fn new() -> Self {
        Arena {
            items: Vec::new(),
            free: vec![Vec::new(); 65],
            live: 0,
        }
    }

    fn alloc(&mut self, n: usize) -> u32 {
        debug_assert!((1..=64).contains(&n));
        self.live += n;
        if let Some(i) = self.free[n].pop() {
            return i;
        }
        let start = self.items.len();
        self.items.resize(start + n, T::default());
        start as u32
    }

    fn release(&mut self, start: u32, n: usize) {
        if n > 0 {
            self.free[n].push(start);
            self.live -= n;
        }
    }
}

/// Leaf storage: 16-bit while every next hop fits, 32-bit otherwise.
#[derive(Clone, Debug)]
enum Leaves {
    Narrow(Arena<u16>),
    Wide(Arena<u32>),
}

impl Leaves {
    fn alloc_store(&mut self, vals: &[u32]) -> u32 {
        match self {
            Leaves::Narrow(a) => {
                let b = a.alloc(vals.len());
                for (d, &v) in a.items[b as usize..].iter_mut().zip(vals) {
                    *d = v as u16;
                }
                b
            }
            Leaves::Wide(a) => {
                let b = a.alloc(vals.len());
                a.items[b as usize..b as usize + vals.len()].copy_from_slice(vals);
                b
            }
        }
    }

    fn get(&self, i: u32) -> u32 {
        match self {
            Leaves::Narrow(a) => a.items[i as usize] as u32,
            Leaves::Wide(a) => a.items[i as usize],
        }
    }

    fn release(&mut self, start: u32, n: usize) {
        match self {
            Leaves::Narrow(a) => a.release(start, n),
            Leaves::Wide(a) => a.release(start, n),
        }
    }

    fn live(&self) -> usize {
        match self {
            Leaves::Narrow(a) => a.live,
            Leaves::Wide(a) => a.live,
        }
    }

    fn width(&self) -> usize {
        match self {
            Leaves::Narrow(_) => 2,
            Leaves::Wide(_) => 4,
        }
    }

    /// Converts 16-bit leaves to 32-bit ones, keeping indices and free lists.
    fn widen(&mut self) {
        if let Leaves::Narrow(a) = self {
            *self = Leaves::Wide(Arena {
                items: a.items.iter().map(|&x| x as u32).collect(),
                free: std::mem::take(&mut a.free),
                live: a.live,
            });
        }
    }
}

/// The lookup structure proper (everything a lookup touches).
#[derive(Clone, Debug)]
struct Tables {
    dir: Vec<u32>,
    nodes: Arena<Node>,
    leaves: Leaves,
}

/// A Poptrie for addresses of family `A` (`u32` = IPv4, `u128` = IPv6).
#[derive(Clone, Debug)]
pub struct Poptrie<A: Address> {
    cfg: PoptrieConfig,
    /// `cfg.kernel` resolved against the CPU once, at construction.
    kernel: Kernel,
    /// The kernel of `lookup_batch` calls of at least [`SIMD_MIN_BATCH`] addresses: `kernel`,
    /// or under `auto` the walk the process's timing chose ([`auto_batch`]).
    batch_kernel: Kernel,
    /// The CPU has AVX512-VPOPCNTDQ (used by the AVX-512 kernel), detected at construction.
    vpopcnt: bool,
    rib: Radix<A>,
    t: Tables,
}

impl<A: Address> Poptrie<A> {
    /// An empty Poptrie with the given configuration.
    pub fn new(cfg: PoptrieConfig) -> Self {
        let cfg = PoptrieConfig {
            s: cfg.s.min(PoptrieConfig::MAX_S),
            ..cfg
        };
        let kernel = cfg.kernel.resolve();
        let batch_kernel = match auto_batch::<A>() {
            Some(c) if cfg.kernel == Kernel::Auto => c.kernel,
            _ => kernel,
        };
        Poptrie {
            cfg,
            kernel,
            batch_kernel,
            vpopcnt: has_vpopcnt(),
            rib: Radix::new(),
            t: Tables {
                dir: vec![DIR_LEAF; 1 << cfg.s],
                nodes: Arena::new(),
                leaves: Leaves::Narrow(Arena::new()),
            },
        }
    }

    /// The configuration.
    pub fn config(&self) -> PoptrieConfig {
        self.cfg
    }

    /// The routing information base (all routes, as a radix trie).
    pub fn rib(&self) -> &Radix<A> {
        &self.rib
    }

    /// Bytes of the leaf array entries (2 while all next hops fit in 16 bits, else 4).
    pub fn leaf_width(&self) -> usize {
        self.t.leaves.width()
    }
}

/// Evaluates `$body` with `$walk` bound to the scalar walk (`Fn(A) -> u32`, the raw next
/// hop) of the Poptrie `$t`, specialised for its leaf width and popcount, which are matched
/// once here: `lookup` and `lookup_each` share the match.
macro_rules! with_walk {
    ($t:expr, |$walk:ident| $body:expr) => {{
        let t = $t;
        match (&t.t.leaves, t.kernel != Kernel::Generic) {
            (Leaves::Narrow(l), true) => {
                let $walk = |a| t.find::<HwPop, _>(&l.items, a);
                $body
            }
            (Leaves::Wide(l), true) => {
                let $walk = |a| t.find::<HwPop, _>(&l.items, a);
                $body
            }
            (Leaves::Narrow(l), false) => {
                let $walk = |a| t.find::<SoftPop, _>(&l.items, a);
                $body
            }
            (Leaves::Wide(l), false) => {
                let $walk = |a| t.find::<SoftPop, _>(&l.items, a);
                $body
            }
        }
    }};
}

impl<A: Address> Lpm<A> for Poptrie<A> {
    fn name(&self) -> String {
        self.cfg.to_string()
    }

    fn build(&mut self, routes: &[(Prefix<A>, NextHop)]) {
        let mut rib = Radix::new();
        let mut max = 0;
        for &(p, nh) in routes {
            rib.insert(p, nh);
            max = max.max(nh.get());
        }
        self.rib = rib;
        self.t.leaves = if max > u16::MAX as u32 {
            Leaves::Wide(Arena::new())
        } else {
            Leaves::Narrow(Arena::new())
        };
        self.rebuild();
        if self.cfg.kernel == Kernel::Auto {
            self.batch_kernel = self.auto_batch_kernel(routes);
        }
    }

    fn insert(&mut self, prefix: Prefix<A>, nh: NextHop) -> Option<NextHop> {
        let old = self.rib.insert(prefix, nh);
        if old == Some(nh) {
            return old;
        }
        if nh.get() > u16::MAX as u32 {
            self.t.leaves.widen();
        }
        self.update(&prefix);
        old
    }

    fn remove(&mut self, prefix: Prefix<A>) -> Option<NextHop> {
        let old = self.rib.remove(prefix)?;
        self.update(&prefix);
        Some(old)
    }

    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        NextHop::from_raw(with_walk!(self, |walk| walk(addr)))
    }

    /// The scalar walk once per address, with the leaf width and the popcount matched once
    /// per slice rather than per address.
    fn lookup_each(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        with_walk!(
            self,
            |walk| for (a, o) in addrs.iter().zip(out.iter_mut()) {
                *o = NextHop::from_raw(walk(*a));
            }
        )
    }

    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        let k = if addrs.len() >= SIMD_MIN_BATCH {
            self.batch_kernel
        } else {
            self.kernel
        };
        // SAFETY: `kernel` and `batch_kernel` are resolved on this CPU (`Kernel::resolve`, or
        // the timing's choice, which it makes only after `Kernel::Avx512.supported()`).
        unsafe { self.batch_with(k, addrs, out) };
    }
    fn memory_bytes(&self) -> usize {
        self.t.dir.len() * 4
            + self.t.nodes.live * std::mem::size_of::<Node>()
            + self.t.leaves.live() * self.t.leaves.width()
    }

    fn stats(&self) -> LpmStats {
        LpmStats {
            prefixes: self.rib.len(),
            internal_nodes: self.t.nodes.live,
            leaves: self.t.leaves.live(),
        }
    }
}
