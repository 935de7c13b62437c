//! # pktlab
//!
//! Components for fast software packet processing, each the data-plane mechanism of a paper
//! on router and network-function packet processing, usable on its own in another program:
//! longest-prefix match (Poptrie), packet-processing caches (Hit Priority Cache), active
//! queue management (ZL-RED), Zipf traffic with a CCN forwarder, and cache-efficient message
//! buffers with a batched forwarding pipeline.
//!
//! ## Module map
//!
//! | module | what it holds |
//! |---|---|
//! | [`lpm`] | IP longest-prefix match behind one trait, [`lpm::Lpm`]: Poptrie (IPv4 and IPv6), Tree BitMap, SAIL, DXR, DIR-24-8, and a binary radix trie as the oracle; concurrent readers with one updater ([`lpm::shared`]) |
//! | [`net`] | addresses (`u32`, `u128`), prefixes (convertible from `ipnet`), next hops, flow keys |
//! | [`io`] | routing-table readers (text, pyasn, MRT), update streams, pcap reading and writing, compact flow traces |
//! | [`flowcache`] | set-associative caches: a replacement [`flowcache::Rule`] over a [`flowcache::Store`], LRU to W-TinyLFU and Belady; the timing simulator of paper 000 |
//! | [`aqm`] | queueing disciplines behind [`aqm::Aqm`] (DropTail, RED, SRED, ZL-RED, CHOKe, DRR, FQ-CoDel) and the drop/mark deciders of RED, SRED, ZL-RED and CHOKe for a queue the caller owns ([`aqm::decide`]) |
//! | [`netsim`] | a packet-level discrete-event simulator: TCP Reno/NewReno/Vegas/CUBIC/BBR, UDP, the dumbbell of paper 002 |
//! | [`traffic`] | the Zipf table sampler of paper 003, name/destination/flow streams, synthetic flow traces, LPM lookup traffic |
//! | [`ccn`] | CCNx TLV codec, content stores, PIT, FIB, a forwarder and its UDP faces |
//! | [`mbuf`] | the buffer pool with per-worker caches and the per-batch metadata layouts of paper 001 |
//! | [`port`] | rx/tx ports: null, in-memory replay, pcap capture, AF_PACKET rings, RSS |
//! | [`pipeline`] | the batched data plane: parse, flow cache, LPM batch, TTL rewrite, AQM queue, tx |
//! | [`params`] | the parameter checks every configuration's `validate()` shares ([`params::ParamError`]) |
//! | [`simd`], [`util`] | branch-free lane masks; small deterministic generators |
//! | [`thp`] | a global allocator that puts large tables on transparent huge pages, opt-in per build |
//!
//! ## One example per component
//!
//! Longest-prefix match, with `std::net` addresses at the edge:
//!
//! ```
//! use pktlab::lpm::{Lpm, Poptrie, PoptrieConfig};
//! use pktlab::net::{NextHop, Prefix};
//! let nh = |x| NextHop::new(x).unwrap();
//! let routes: Vec<(Prefix<u32>, NextHop)> =
//!     vec![("10.0.0.0/8".parse().unwrap(), nh(1)), ("10.1.0.0/16".parse().unwrap(), nh(2))];
//! let mut t = Poptrie::<u32>::new(PoptrieConfig::default());
//! t.build(&routes);
//! assert_eq!(t.lookup_ip("10.1.2.3".parse().unwrap()), Some(nh(2)));
//! assert_eq!(t.lookup_ip("10.9.0.1".parse().unwrap()), Some(nh(1)));
//! assert_eq!(t.lookup_ip("192.0.2.1".parse().unwrap()), None);
//! ```
//!
//! A packet-processing cache (HPC-4 of paper 000) over any 64-bit keys:
//!
//! ```
//! use pktlab::flowcache::{Access, Cache, Hpc, Linked, Policy};
//! let mut c: Cache<Hpc, Linked<u8>> = Cache::new(Hpc::new(4), 1, 4);
//! assert_eq!(c.access_insert(0, 42, 0), Access::Miss); // inserted
//! assert_ne!(c.access_insert(0, 42, 0), Access::Miss); // now cached
//! assert!(c.contains(0, 42) && c.len() == 1);
//! ```
//!
//! An AQM decision for a queue the caller owns (ZL-RED of paper 002):
//!
//! ```
//! use pktlab::aqm::{Arrival, Decide, QueueState, Verdict, ZlRedDecider, ZlRedParams};
//! use pktlab::aqm::DropKind;
//! let mut zl = ZlRedDecider::new(ZlRedParams::default(), 100, 1).unwrap();
//! let a = Arrival { flow: 7, ecn_capable: false, now: 0 };
//! assert_eq!(zl.decide(&a, &QueueState { len: 0, limit: 100 }), Verdict::Enqueue);
//! assert_eq!(zl.decide(&a, &QueueState { len: 100, limit: 100 }), Verdict::Drop(DropKind::Forced));
//! ```
//!
//! Zipf-distributed names (paper 003's table sampler):
//!
//! ```
//! use pktlab::traffic::zipf::ZipfTable;
//! use pktlab::util::SplitMix64;
//! let t = ZipfTable::new(0.9, 1_000_000, 4096).unwrap();
//! let mut rng = SplitMix64::new(1);
//! let ranks: Vec<u64> = (0..1000).map(|_| t.sample(&mut rng)).collect();
//! assert!(ranks.iter().all(|&r| (1..=1_000_000).contains(&r)));
//! assert!(ranks.iter().filter(|&&r| r <= 10).count() > 100); // the head is popular
//! ```
//!
//! Message buffers: a pool, a worker's cache, and a handle's data room (paper 001):
//!
//! ```
//! use pktlab::mbuf::{Pool, PoolCache};
//! let pool = Pool::new(64, 128, 2048, true);
//! let mut cache = PoolCache::new(16);
//! let mut bufs = Vec::new();
//! assert!(cache.get_bulk(&pool, 8, &mut bufs));
//! pool.data_mut(&mut bufs[0])[..4].copy_from_slice(b"pkt!");
//! assert_eq!(&pool.data(&bufs[0])[..4], b"pkt!");
//! cache.put_bulk(&pool, &mut bufs);
//! cache.flush_all(&pool);
//! assert_eq!(pool.common_len(), 64);
//! ```
//!
//! ## Soundness
//!
//! Safe code cannot reach undefined behaviour: every `unsafe` block states the invariant it
//! relies on (`// SAFETY:`), handles are checked where a caller could forge or keep them
//! (pool-branded [`mbuf::Buf`]s, live-slot checks in [`flowcache::store::Linked`]), the
//! address trait the unchecked LPM tables trust is sealed, and the structures that index
//! without bounds checks are fuzzed against plain models (`fuzz/`, target `structures`).
//!
//! The experiments (benchmarks, simulations, sweeps) live in the `pktlab-lab` crate, the
//! `pktlab` binary in `pktlab-cli`; this library has no CLI or terminal dependencies.
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]

pub mod aqm;
pub mod ccn;
pub mod flowcache;
pub mod io;
pub mod lpm;
pub mod mbuf;
pub mod net;
pub mod netsim;
pub mod params;
pub mod pipeline;
pub mod port;
pub mod simd;
pub mod thp;
pub mod traffic;
pub mod util;
