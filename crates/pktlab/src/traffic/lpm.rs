//! Lookup traffic for LPM benchmarks (paper 004 §5's harness): uniform random addresses from
//! Marsaglia's xor128 with his published seed, consecutive or repeated addresses, addresses
//! inside the table's prefixes (uniform or Zipf-popular), or a capture's destinations, each
//! generated in batches by a [`LookupGen`] inside the timed loop.

use crate::io::pcap::{destinations, PcapReport};
use crate::io::IoError;
use crate::net::{Address, NextHop, Prefix};
use crate::traffic::{ZipfError, ZipfTable};
use crate::util::{splitmix64, Xor128};
use std::path::Path;
use std::sync::Arc;

/// Why a traffic name could not be turned into traffic.
#[derive(Debug, thiserror::Error)]
pub enum TrafficError {
    /// The name is not one of the known patterns, or its parameter does not parse.
    #[error(
        "--traffic {0:?}: expected random, prefixes, sequential, repeat, zipf:ALPHA or trace:PATH"
    )]
    Unknown(String),
    /// `zipf:ALPHA` with an `ALPHA` that is not a number.
    #[error("--traffic {0:?}: expected zipf:ALPHA, e.g. zipf:0.8")]
    ZipfAlpha(String),
    /// The Zipf table was refused.
    #[error(transparent)]
    Zipf(#[from] ZipfError),
    /// Reading the capture of `trace:PATH` failed.
    #[error(transparent)]
    Io(#[from] IoError),
    /// The capture holds no destination address of the family.
    #[error("{path}: no {family} destination addresses")]
    Empty {
        /// The capture.
        path: String,
        /// `IPv4` or `IPv6`.
        family: &'static str,
    },
}

/// Lookup traffic for a benchmark.
#[derive(Clone)]
pub enum LookupTraffic<A: Address> {
    /// Uniform random addresses (xor128).
    Random,
    /// Consecutive addresses from a random start.
    Sequential,
    /// Each random address 16 times in a row.
    Repeat,
    /// Addresses of a capture (or pre-generated), cycled.
    Trace(Arc<Vec<A>>),
    /// (network address, host mask) of every table prefix, in table order.
    Prefixes(Arc<Vec<(A, A)>>),
    /// Zipf(α)-popular prefixes (rank r → prefix splitmix64(r) mod len, as
    /// [`crate::traffic::DestStream`]) with random host bits; the table has 64K entries.
    Zipf(Arc<Vec<(A, A)>>, Arc<ZipfTable>),
}

impl<A: Address> LookupTraffic<A> {
    /// Parses a traffic name (`random`, `prefixes`, `sequential`, `repeat`, `zipf:ALPHA`,
    /// `trace:PATH`) for a table; with `trace:` also returns the capture reader's report (its
    /// skipped records).
    pub fn parse(
        s: &str,
        routes: &[(Prefix<A>, NextHop)],
    ) -> Result<(Self, Option<PcapReport>), TrafficError> {
        let nets = || {
            routes
                .iter()
                .map(|(p, _)| (p.addr(), A::mask(p.len() as u32).not()))
                .collect::<Vec<_>>()
        };
        let t = match s {
            "random" => LookupTraffic::Random,
            "prefixes" => LookupTraffic::Prefixes(Arc::new(nets())),
            "sequential" => LookupTraffic::Sequential,
            "repeat" => LookupTraffic::Repeat,
            _ if s.starts_with("zipf:") => {
                let alpha: f64 = s[5..]
                    .parse()
                    .map_err(|_| TrafficError::ZipfAlpha(s.to_string()))?;
                let table = ZipfTable::new(alpha, routes.len().max(1) as u64, 1 << 16)?;
                LookupTraffic::Zipf(Arc::new(nets()), Arc::new(table))
            }
            _ => match s.strip_prefix("trace:") {
                Some(path) => {
                    let (addrs, rep) = destinations::<A>(Path::new(path))?;
                    if addrs.is_empty() {
                        return Err(TrafficError::Empty {
                            path: path.to_string(),
                            family: A::FAMILY.as_str(),
                        });
                    }
                    return Ok((LookupTraffic::Trace(Arc::new(addrs)), Some(rep)));
                }
                None => return Err(TrafficError::Unknown(s.to_string())),
            },
        };
        Ok((t, None))
    }
}

/// A uniform random address from xor128: one output for IPv4; for IPv6 four outputs, the
/// first the most significant word (the reference harness's convention).
#[inline(always)]
pub fn random_addr<A: Address>(rng: &mut Xor128) -> A {
    if A::BITS == 32 {
        A::from_random((rng.next() as u64) << 32, 0)
    } else {
        let hi = ((rng.next() as u64) << 32) | rng.next() as u64;
        let lo = ((rng.next() as u64) << 32) | rng.next() as u64;
        A::from_random(hi, lo)
    }
}

/// The xor128 seed of lookup thread `thread` for `--seed seed`: seed 1, thread 0 is
/// Marsaglia's published seed, i.e. the reference harness's address sequence.
pub fn stream(seed: u64, thread: usize) -> u64 {
    (seed.wrapping_sub(1) << 16) | thread as u64
}

/// Generator state of a traffic pattern (position in a trace, next sequential address).
pub struct LookupGen<A: Address> {
    seq: A,
    /// Position in a [`LookupTraffic::Trace`] (the next address to hand out).
    pub pos: usize,
}

impl<A: Address> LookupGen<A> {
    /// A generator at the start of `traffic`, drawing from `rng`.
    pub fn new(traffic: &LookupTraffic<A>, rng: &mut Xor128) -> Self {
        // Only sequential traffic draws its start address, so that `random` is exactly the
        // xor128 stream (the reference harness's first 2^24 addresses give the same checksum).
        let seq = match traffic {
            LookupTraffic::Sequential => random_addr(rng),
            _ => A::ZERO,
        };
        LookupGen { seq, pos: 0 }
    }

    /// Fills `addrs` with the next addresses of `traffic`.
    #[inline(always)]
    pub fn fill(&mut self, traffic: &LookupTraffic<A>, rng: &mut Xor128, addrs: &mut [A]) {
        match traffic {
            LookupTraffic::Random => addrs.iter_mut().for_each(|a| *a = random_addr(rng)),
            LookupTraffic::Sequential => addrs.iter_mut().for_each(|a| {
                *a = self.seq;
                self.seq = self.seq.wrapping_add(1);
            }),
            LookupTraffic::Repeat => {
                for c in addrs.chunks_mut(16) {
                    let a = random_addr(rng);
                    c.iter_mut().for_each(|x| *x = a);
                }
            }
            LookupTraffic::Prefixes(v) => addrs.iter_mut().for_each(|a| {
                let (net, host) = v[rng.next() as usize % v.len()];
                *a = net.or(random_addr::<A>(rng).and(host));
            }),
            LookupTraffic::Zipf(v, t) => addrs.iter_mut().for_each(|a| {
                let x = ((rng.next() as u64) << 32) | rng.next() as u64;
                let y = ((rng.next() as u64) << 32) | rng.next() as u64;
                let r = t.sample_with(x, y);
                let (net, host) = v[(splitmix64(r) % v.len() as u64) as usize];
                *a = net.or(random_addr::<A>(rng).and(host));
            }),
            LookupTraffic::Trace(v) => addrs.iter_mut().for_each(|a| {
                *a = v[self.pos];
                self.pos = if self.pos + 1 >= v.len() {
                    0
                } else {
                    self.pos + 1
                };
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_is_the_xor128_stream_and_prefix_traffic_stays_inside() {
        let mut rng = Xor128::new(stream(1, 0));
        let mut g = LookupGen::<u32>::new(&LookupTraffic::Random, &mut rng);
        let mut a = [0u32; 4];
        g.fill(&LookupTraffic::Random, &mut rng, &mut a);
        let mut r2 = Xor128::new(stream(1, 0));
        for x in a {
            assert_eq!(x, r2.next());
        }
        let routes = vec![(
            Prefix::new(0x0a00_0000u32, 8).unwrap(),
            NextHop::new(1).unwrap(),
        )];
        let (t, rep) = LookupTraffic::parse("prefixes", &routes).unwrap();
        assert!(rep.is_none());
        let mut g = LookupGen::new(&t, &mut rng);
        let mut b = [0u32; 64];
        g.fill(&t, &mut rng, &mut b);
        assert!(b.iter().all(|x| x >> 24 == 10));
        assert!(matches!(
            LookupTraffic::<u32>::parse("bogus", &routes),
            Err(TrafficError::Unknown(_))
        ));
        assert!(matches!(
            LookupTraffic::<u32>::parse("zipf:x", &routes),
            Err(TrafficError::ZipfAlpha(_))
        ));
    }
}
