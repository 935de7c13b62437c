//! IP longest-prefix match (LPM).
//!
//! One trait, [`Lpm`], and one file per algorithm:
//! * [`radix`] — plain binary trie, the oracle every other structure is tested against;
//! * [`poptrie`] — Poptrie (Asai & Ohara, SIGCOMM 2015) with direct pointing, leafvec and
//!   route aggregation, for IPv4 (`u32`) and IPv6 (`u128`);
//! * [`shared`] — concurrent access: one updater and many lookup threads, with atomic
//!   publication and reclamation after a grace period (left-right).
//!
//! [`Algo`] names the configurations the CLI and benchmarks accept.

pub mod poptrie;
pub mod radix;
pub mod shared;

use crate::net::{Address, NextHop, Prefix};
pub use poptrie::{Poptrie, PoptrieConfig, Variant};
pub use radix::Radix;
use std::fmt;
use std::str::FromStr;

/// Size statistics of an LPM structure, in the paper's terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LpmStats {
    /// Routes stored.
    pub prefixes: usize,
    /// Internal (non-leaf) nodes of the lookup structure.
    pub internal_nodes: usize,
    /// Leaf entries of the lookup structure (for Poptrie: entries of the leaf array, not
    /// counting leaves held directly in the direct-pointing array).
    pub leaves: usize,
}

/// A longest-prefix-match table for addresses of family `A`.
///
/// Contract:
/// * `lookup(a)` returns the next hop of the longest stored prefix containing `a`, or `None`;
/// * `insert` replaces the next hop of an equal prefix and returns the previous one;
/// * `remove` returns the removed next hop, `None` if the prefix was absent;
/// * after any sequence of `build`/`insert`/`remove`, lookups agree with [`Radix`] fed the
///   same sequence (checked by property tests for every implementation);
/// * `lookup_batch` gives exactly the results of `lookup` on each address (implementations
///   overlap the memory accesses of several lookups);
/// * `memory_bytes` counts the bytes of the lookup structure itself (what a forwarding plane
///   must keep in cache), not the routing information base kept for updates.
pub trait Lpm<A: Address>: Send + Sync {
    /// Short name of the configuration, e.g. `poptrie18`.
    fn name(&self) -> String;
    /// Replaces the whole content with `routes` (bulk build; later duplicates win).
    fn build(&mut self, routes: &[(Prefix<A>, NextHop)]);
    /// Adds or replaces a route; returns the previous next hop of that exact prefix.
    fn insert(&mut self, prefix: Prefix<A>, nh: NextHop) -> Option<NextHop>;
    /// Removes a route; returns its next hop if it was present.
    fn remove(&mut self, prefix: Prefix<A>) -> Option<NextHop>;
    /// Longest-prefix match of one address.
    fn lookup(&self, addr: A) -> Option<NextHop>;
    /// Looks up `addrs[i]` into `out[i]` for every `i < min(addrs.len(), out.len())`.
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        for (a, o) in addrs.iter().zip(out.iter_mut()) {
            *o = self.lookup(*a);
        }
    }
    /// Bytes used by the lookup structure.
    fn memory_bytes(&self) -> usize;
    /// Node and leaf counts.
    fn stats(&self) -> LpmStats;
}

/// The LPM configurations pktlab knows by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algo {
    /// Binary radix trie (oracle).
    Radix,
    /// Poptrie with the given direct-pointing bits and variant.
    Poptrie(PoptrieConfig),
}

impl Algo {
    /// Every named configuration, in the order benchmarks list them.
    pub const ALL: [&'static str; 9] = [
        "radix",
        "poptrie0",
        "poptrie16",
        "poptrie18",
        "poptrie18-basic",
        "poptrie18-leafvec",
        "poptrie0-basic",
        "poptrie0-leafvec",
        "poptrie16-basic",
    ];

    /// Makes an empty structure of this configuration, boxed behind the trait.
    pub fn make<A: Address>(self) -> Box<dyn Lpm<A>> {
        match self {
            Algo::Radix => Box::new(Radix::<A>::new()),
            Algo::Poptrie(c) => Box::new(Poptrie::<A>::new(c)),
        }
    }
}

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Algo::Radix => f.write_str("radix"),
            Algo::Poptrie(c) => c.fmt(f),
        }
    }
}

/// An unknown algorithm name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown LPM algorithm {0:?} (known: radix, poptrieS[-basic|-leafvec] with S in 0..=24, e.g. poptrie18)")]
pub struct UnknownAlgo(pub String);

impl FromStr for Algo {
    type Err = UnknownAlgo;

    /// Parses `radix` or `poptrie<S>[-basic|-leafvec]` (S = direct-pointing bits, 0..=24).
    fn from_str(s: &str) -> Result<Self, UnknownAlgo> {
        if s == "radix" {
            return Ok(Algo::Radix);
        }
        s.parse::<PoptrieConfig>()
            .map(Algo::Poptrie)
            .map_err(|_| UnknownAlgo(s.to_string()))
    }
}

#[cfg(test)]
mod tests;
