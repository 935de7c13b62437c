//! Streams built on the Zipf sampler — paper 003 §3 (consumer names over a 2^32 space) and the
//! flow/destination workloads of pktlab's other benchmarks: CCN names `/prefix/<rank>` (optionally
//! chunked), IPv4/IPv6 destinations drawn over a routing table's prefixes, and 5-tuple flows.
//! Every stream is deterministic given its seed and allocates nothing per item.

use super::{SplitMix64, ZipfTable};
use crate::net::{Address, FlowKey, Prefix};
use crate::util::splitmix64;
use std::fmt::Write as _;

/// CCN names `/<prefix>/<rank>` (or `/<prefix>/<rank>/chunk=<c>` when chunked) with Zipf
/// popularity over the ranks.
#[derive(Clone, Debug)]
pub struct NameStream<'t> {
    table: &'t ZipfTable,
    rng: SplitMix64,
    chunks: u32,
}

impl<'t> NameStream<'t> {
    /// Names over `table`'s ranks; `chunks` > 1 adds a uniform chunk number in 0..chunks.
    pub fn new(table: &'t ZipfTable, seed: u64, chunks: u32) -> Self {
        NameStream {
            table,
            rng: SplitMix64::new(seed),
            chunks,
        }
    }

    /// The next (rank, chunk) pair; chunk is `None` for unchunked streams.
    #[inline]
    pub fn next_name(&mut self) -> (u64, Option<u32>) {
        let r = self.table.sample(&mut self.rng);
        let c = (self.chunks > 1)
            .then(|| (((self.rng.next_u64() >> 32) * self.chunks as u64) >> 32) as u32);
        (r, c)
    }

    /// Writes the URI form of a name into `out` (cleared first; no allocation once `out` has
    /// grown to the longest name).
    pub fn write_uri(prefix: &str, rank: u64, chunk: Option<u32>, out: &mut String) {
        out.clear();
        let _ = write!(out, "/{}/{rank}", prefix.trim_matches('/'));
        if let Some(c) = chunk {
            let _ = write!(out, "/chunk={c}");
        }
    }
}

/// Destination addresses over a routing table's prefixes: a Zipf-ranked prefix (rank r maps to
/// prefix `splitmix64(r) mod len`, so popularity is independent of table order) with uniformly
/// random host bits.
#[derive(Clone, Debug)]
pub struct DestStream<'t, A: Address> {
    table: &'t ZipfTable,
    prefixes: &'t [Prefix<A>],
    rng: SplitMix64,
}

impl<'t, A: Address> DestStream<'t, A> {
    /// A stream over `prefixes` (must be non-empty).
    pub fn new(table: &'t ZipfTable, prefixes: &'t [Prefix<A>], seed: u64) -> Self {
        assert!(!prefixes.is_empty(), "DestStream needs at least one prefix");
        DestStream {
            table,
            prefixes,
            rng: SplitMix64::new(seed),
        }
    }

    /// The next destination address.
    #[inline]
    pub fn next_addr(&mut self) -> A {
        let r = self.table.sample(&mut self.rng);
        let i = (splitmix64(r) % self.prefixes.len() as u64) as usize;
        let p = self.prefixes[i];
        let host = A::from_random(self.rng.next_u64(), self.rng.next_u64());
        let m = A::mask(p.len() as u32);
        p.addr().and(m).or(host.and(m.not()))
    }
}

/// The deterministic IPv4 5-tuple of flow number `id` (a hash of the id; 80% TCP, 20% UDP).
/// Both ports lie in 61440–65535, above every port Wireshark 4.0 assigns a dissector to
/// (the highest is 60001), so that analysers do not decode the synthetic payload as some
/// application protocol and flag it malformed.
pub fn flow_of(id: u64) -> FlowKey {
    let h1 = splitmix64(id);
    let h2 = splitmix64(h1 ^ 0x5151);
    let proto = if h2.is_multiple_of(5) { 17 } else { 6 };
    FlowKey::v4(
        (0x0A00_0000 | (h1 as u32 & 0x00FF_FFFF)).to_be_bytes(),
        ((h1 >> 32) as u32 | 0x0100_0000).to_be_bytes(),
        0xF000 | ((h2 >> 16) as u16 & 0x0FFF),
        0xF000 | ((h2 >> 40) as u16 & 0x0FFF),
        proto,
    )
}

/// Packets of Zipf-popular flows: each packet belongs to flow `rank`, whose 5-tuple is
/// [`flow_of`]; packet sizes follow a simple trimodal mix (64/576/1500 bytes).
#[derive(Clone, Debug)]
pub struct FlowStream<'t> {
    table: &'t ZipfTable,
    rng: SplitMix64,
}

impl<'t> FlowStream<'t> {
    /// A stream of flows ranked by `table`.
    pub fn new(table: &'t ZipfTable, seed: u64) -> Self {
        FlowStream {
            table,
            rng: SplitMix64::new(seed),
        }
    }

    /// The next packet: (flow key, IP packet length in bytes).
    #[inline]
    pub fn next_packet(&mut self) -> (FlowKey, u16) {
        let r = self.table.sample(&mut self.rng);
        let u = self.rng.next_u64() % 100;
        let len = if u < 50 {
            64
        } else if u < 70 {
            576
        } else {
            1500
        };
        (flow_of(r), len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_deterministic_and_formatted() {
        let t = ZipfTable::new(0.8, 1 << 20, 1024).unwrap();
        let mut a = NameStream::new(&t, 5, 4);
        let mut b = NameStream::new(&t, 5, 4);
        let mut s = String::new();
        for _ in 0..100 {
            let (r, c) = a.next_name();
            assert_eq!((r, c), b.next_name());
            assert!(c.unwrap() < 4);
            NameStream::write_uri("/video/", r, c, &mut s);
            assert!(s.starts_with("/video/"));
            assert!(s.ends_with(&format!("/chunk={}", c.unwrap())));
        }
    }

    #[test]
    fn destinations_fall_inside_prefixes() {
        let t = ZipfTable::new(1.0, 1000, 100).unwrap();
        let ps: Vec<Prefix<u32>> = ["10.0.0.0/8", "192.168.1.0/24", "1.2.3.4/32"]
            .iter()
            .map(|s| {
                let (a, l) = s.split_once('/').unwrap();
                let a: std::net::Ipv4Addr = a.parse().unwrap();
                Prefix::new(u32::from(a), l.parse().unwrap()).unwrap()
            })
            .collect();
        let mut d = DestStream::new(&t, &ps, 1);
        for _ in 0..1000 {
            let a = d.next_addr();
            assert!(ps.iter().any(|p| p.contains(a)));
        }
    }

    #[test]
    fn flows_repeat_popular_keys() {
        let t = ZipfTable::new(1.0, 1 << 16, 1 << 10).unwrap();
        let mut f = FlowStream::new(&t, 2);
        let top = flow_of(1);
        let hits = (0..10_000).filter(|_| f.next_packet().0 == top).count();
        assert!(hits > 500, "rank 1 should be ~8% of packets, got {hits}");
    }
}
