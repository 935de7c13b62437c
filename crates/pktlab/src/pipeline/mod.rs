//! The batched data plane (paper 001's run-to-completion model) wiring pktlab's components:
//! ports and message buffers ([`crate::port`], [`crate::mbuf`]) → parse ([`parse`]) → flow
//! cache ([`nhcache`], paper 000) → Poptrie's batched lookup of the misses ([`crate::lpm`],
//! paper 004) → TTL/checksum rewrite → output queue with an AQM ([`queue`], paper 002) → tx.
//!
//! [`worker::Worker`] is one worker's loop; `pktlab_lab::forward` sets up the workers (RSS
//! over the receive queues, one shared Poptrie updated while they run) and reports.

mod compact;
pub mod duplex;
pub mod fib;
pub mod hpc_ways;
pub mod nhcache;
pub mod parse;
pub mod queue;
pub mod router;
pub mod worker;

/// Which stages run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stages {
    /// rx → tx only (paper 001's forwarding-only measurement, testpmd's `io` mode).
    Io,
    /// Parse → LPM of every packet → TTL rewrite → tx (no cache, no queue).
    L3,
    /// Everything: parse → flow cache → LPM of the misses → TTL rewrite → AQM queue → tx.
    Full,
}

impl Stages {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Stages::Io => "io",
            Stages::L3 => "l3",
            Stages::Full => "full",
        }
    }
}

crate::util::message_error!(
    /// The error type of the pipeline module (an unknown stage set or cache policy).
    PipelineError
);

impl std::str::FromStr for Stages {
    type Err = PipelineError;
    fn from_str(s: &str) -> Result<Self, PipelineError> {
        match s {
            "io" => Ok(Stages::Io),
            "l3" => Ok(Stages::L3),
            "full" => Ok(Stages::Full),
            o => Err(format!("unknown stages {o:?} (known: io, l3, full)").into()),
        }
    }
}

/// Per-worker packet counters. Every received packet ends in exactly one of `tx` or a drop
/// counter once the worker has finished.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Packets received.
    pub rx: u64,
    /// Packets transmitted.
    pub tx: u64,
    /// Batches processed.
    pub batches: u64,
    /// Non-empty bursts by size: entry `k` counts bursts of `2^k ..= 2^(k+1) - 1` packets
    /// (the last entry: 128 and more), to tell a loop's fragmented bursts from whole ones.
    pub burst_log2: [u64; 8],
    /// Dropped: not IP.
    pub non_ip: u64,
    /// Dropped: malformed IP header.
    pub malformed: u64,
    /// Dropped: bad IPv4 header checksum.
    pub checksum: u64,
    /// Dropped: TTL / hop limit ≤ 1.
    pub ttl: u64,
    /// Dropped: no route.
    pub no_route: u64,
    /// Dropped by the AQM.
    pub aqm: u64,
    /// Dropped by the router: the next hop's neighbour is not resolved yet (a probe was
    /// asked for; see [`fib`]).
    pub neigh_unresolved: u64,
    /// Flow-cache hits (validated).
    pub cache_hits: u64,
    /// Flow-cache misses.
    pub cache_misses: u64,
}

impl Counters {
    /// Adds `o` into `self`.
    pub fn add(&mut self, o: &Counters) {
        self.rx += o.rx;
        self.tx += o.tx;
        self.batches += o.batches;
        for (a, b) in self.burst_log2.iter_mut().zip(o.burst_log2) {
            *a += b;
        }
        self.non_ip += o.non_ip;
        self.malformed += o.malformed;
        self.checksum += o.checksum;
        self.ttl += o.ttl;
        self.no_route += o.no_route;
        self.aqm += o.aqm;
        self.neigh_unresolved += o.neigh_unresolved;
        self.cache_hits += o.cache_hits;
        self.cache_misses += o.cache_misses;
    }

    /// Parse drops (not IP + malformed + checksum).
    pub fn parse_drops(&self) -> u64 {
        self.non_ip + self.malformed + self.checksum
    }
}
