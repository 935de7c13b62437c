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
pub mod link;
pub mod scenarios;
pub mod sink;
pub mod tcp;
pub mod udp;

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
}

/// Transmission time of `bytes` on a link of `bw_bps` bits per second, in ns (rounded up).
#[inline]
pub fn tx_time(bytes: u32, bw_bps: u64) -> Time {
    (bytes as u64 * 8 * SEC).div_ceil(bw_bps)
}
