//! A small, exact, packet-level discrete-event network simulator for AQM fairness studies
//! (paper 002, §4: TCP Reno and TCP Vegas sharing a bottleneck router).
//!
//! * [`engine`]: integer-nanosecond time, a binary-heap event queue ordered by
//!   (time, insertion sequence) — deterministic tie-breaking — and the seeded RNG;
//! * [`link`]: point-to-point links (bandwidth, propagation delay) with an output queue
//!   governed by any [`crate::aqm::Aqm`] discipline, and [`link::Pipe`], the exact analytic
//!   form of a link with an unbounded FIFO (no events needed);
//! * [`tcp`]: bulk-transfer TCP senders (Reno, NewReno, Vegas) with one explicit
//!   [`tcp::TcpConfig`]; [`sink`]: the cumulative-ACK receiver; [`udp`]: a CBR source;
//! * [`scenarios::dumbbell`]: paper 002's fig. 4 network and its metrics.
//!
//! Packets are small `Copy` values carried by value inside events and queues: nothing is
//! allocated per packet once queues and the event heap reached their high-water marks.

pub mod engine;
mod error;
pub mod link;
pub mod scenarios;
pub mod sink;
pub mod tcp;
pub mod udp;

pub use error::NetsimError;

use crate::aqm::AqmPacket;

/// Simulated time in nanoseconds.
pub type Time = u64;

/// Nanoseconds per second.
pub const SEC: Time = 1_000_000_000;
/// Nanoseconds per millisecond.
pub const MS: Time = 1_000_000;

/// Converts seconds (finite, ≥ 0) to nanoseconds, rounding to nearest.
pub fn secs(s: f64) -> Time {
    (s * SEC as f64).round() as Time
}

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PktKind {
    /// A TCP data segment with sequence number `seq` (in segments).
    Data,
    /// A TCP cumulative ACK: `seq` = next expected segment.
    Ack,
    /// A UDP datagram with sequence number `seq`.
    Udp,
}

/// ECN bits a packet carries (RFC 3168): ECT and CE of the IP header on data segments, ECE
/// and CWR of the TCP header. A plain `u8` so that [`Packet`] stays 24 bytes.
pub mod ecn {
    /// ECN-capable transport (ECT(0)): an AQM may mark instead of dropping.
    pub const ECT: u8 = 1;
    /// Congestion experienced, set by an AQM on an ECT packet.
    pub const CE: u8 = 2;
    /// ECN-echo on an ACK: the receiver saw CE and has not yet seen CWR.
    pub const ECE: u8 = 4;
    /// Congestion window reduced, on the first data segment sent after a reduction.
    pub const CWR: u8 = 8;
}

/// A simulated packet (by value; 24 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Flow index (sender index in the scenario).
    pub flow: u32,
    /// Segment / datagram number, or the cumulative ACK number.
    pub seq: u32,
    /// Bytes on the wire (headers included).
    pub size: u32,
    /// Kind of packet.
    pub kind: PktKind,
    /// ECN bits ([`ecn`]); 0 for non-ECN traffic.
    pub ecn: u8,
    /// When the packet entered its current queue (queueing-delay statistics).
    pub enq_at: Time,
}

impl AqmPacket for Packet {
    #[inline]
    fn flow(&self) -> u32 {
        self.flow
    }
    #[inline]
    fn bytes(&self) -> u32 {
        self.size
    }
    #[inline]
    fn ecn_capable(&self) -> bool {
        self.ecn & ecn::ECT != 0
    }
    #[inline]
    fn mark_ce(&mut self) {
        self.ecn |= ecn::CE;
    }
}

/// Transmission time of `bytes` on a link of `bw_bps` bits per second, in ns (rounded up).
#[inline]
pub fn tx_time(bytes: u32, bw_bps: u64) -> Time {
    (bytes as u64 * 8 * SEC).div_ceil(bw_bps)
}
