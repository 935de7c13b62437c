//! # pktlab
//!
//! A toolkit for fast software packet processing, built from five papers on router and
//! network-function data planes (see `shared/papers/DIGEST.md` beside the repository):
//!
//! * [`lpm`] — IP longest-prefix match: Poptrie (Asai & Ohara, SIGCOMM 2015) for IPv4 and
//!   IPv6 and the baselines it was compared with (Tree BitMap, SAIL, DXR) plus DPDK's
//!   DIR-24-8, with a plain binary radix trie as the correctness oracle;
//! * [`net`] — address, prefix and next-hop value types;
//! * [`io`] — routing-table readers (text, pyasn, MRT TABLE_DUMP_V2, update streams), next-hop
//!   assignment schemes and a synthetic full-table generator;
//! * [`flowcache`] — packet processing cache (Hit Priority Cache, paper 000): policies and
//!   the PE/CMT timing simulator;
//! * [`traffic`] — synthetic flow traces calibrated on real flow statistics, and the Zipf
//!   table sampler of paper 003 with the name/destination/flow streams built on it;
//! * [`ccn`] — CCNx TLV codec, content stores (LRU/FIFO/LFU/random), PIT, FIB and a forwarder
//!   (paper 003's Cefore case study);
//! * [`aqm`] — queueing disciplines behind one trait: DropTail and RED (paper 002's
//!   baselines);
//! * [`netsim`] — a packet-level discrete-event simulator (TCP Reno/NewReno/Vegas, UDP CBR,
//!   the dumbbell of paper 002 fig. 4) hosting the `aqm` disciplines;
//! * [`mbuf`] — message buffers: pool, per-worker caches, the `dpdk` and compact per-batch
//!   metadata layouts of paper 001;
//! * [`port`] — rx/tx bursts: null, in-memory pcap/synthetic replay, pcap capture; RSS;
//! * [`pipeline`] — the batched data plane wiring every component (paper 001);
//! * [`params`] — the parameter checks every configuration's `validate()` shares;
//! * [`simd`] — branch-free lane masks over small arrays (the caches' set scans);
//! * [`util`] — small deterministic helpers (splitmix64, xorshift) shared by generators and
//!   benchmarks.
//!
//! The library has no CLI or terminal dependencies; the `pktlab` binary lives in `pktlab-cli`.
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
pub mod traffic;
pub mod util;
