//! A UDP constant-bit-rate source (paper 002 §1: UDP connections do not back off and take
//! bandwidth from TCP). Datagrams of a fixed size are sent at fixed intervals.

use super::{tx_time, Packet, PktKind, Time};
use crate::netsim::NetsimError;

/// A CBR source.
#[derive(Clone, Debug)]
pub struct CbrSource {
    flow: u32,
    size: u32,
    interval: Time,
    next_seq: u32,
}

impl CbrSource {
    /// Sends `size`-byte datagrams at `rate_bps` (both positive).
    pub fn new(flow: u32, size: u32, rate_bps: u64) -> Result<Self, NetsimError> {
        if size == 0 || rate_bps == 0 {
            return Err("udp: datagram size and rate must be positive".into());
        }
        Ok(CbrSource {
            flow,
            size,
            interval: tx_time(size, rate_bps).max(1),
            next_seq: 0,
        })
    }

    /// Datagram size on the wire.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The next datagram (sent at `now`) and when the following one is due.
    #[inline]
    pub fn next(&mut self, now: Time) -> (Packet, Time) {
        let p = Packet {
            flow: self.flow,
            seq: self.next_seq,
            size: self.size,
            kind: PktKind::Udp,
            ecn: 0,
            enq_at: now,
        };
        self.next_seq = self.next_seq.wrapping_add(1);
        (p, now + self.interval)
    }
}
