//! Point-to-point links: bandwidth, propagation delay and an output queue.
//!
//! [`Link`] is a link whose output queue is an [`Aqm`] discipline; its owner asks it to start
//! transmissions and is told when the transmitter frees up. [`Pipe`] is a link with an
//! unbounded FIFO, computed analytically (departure = max(arrival, busy_until) + tx time), which
//! is exact for in-order arrivals and costs no events.

use super::{tx_time, Packet, Time};
use crate::aqm::{Aqm, Drops};

/// A link whose output queue is governed by a discipline `Q`.
#[derive(Debug)]
pub struct Link<Q> {
    /// Bandwidth, bits per second.
    pub bw_bps: u64,
    /// One-way propagation delay, ns.
    pub delay: Time,
    /// The output queue.
    pub queue: Q,
    busy: bool,
    /// Bytes whose transmission completed (utilisation).
    pub tx_bytes: u64,
}

/// A transmission the owner must schedule: the transmitter is free at `done`, the packet
/// arrives at the far end at `arrive`.
#[derive(Clone, Copy, Debug)]
pub struct Tx {
    /// The packet on the wire.
    pub pkt: Packet,
    /// When the last bit leaves (schedule the link's "tx done" event here).
    pub done: Time,
    /// When the last bit reaches the far end.
    pub arrive: Time,
}

impl<Q: Aqm<Packet>> Link<Q> {
    /// A link; `bw_bps` must be positive.
    pub fn new(bw_bps: u64, delay: Time, queue: Q) -> Self {
        Link {
            bw_bps,
            delay,
            queue,
            busy: false,
            tx_bytes: 0,
        }
    }

    /// True while a packet is being serialised.
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// A packet arrives at the link's queue; returns a transmission to schedule if the
    /// transmitter was idle.
    #[inline]
    pub fn arrive(&mut self, mut pkt: Packet, now: Time, drops: &mut Drops<Packet>) -> Option<Tx> {
        pkt.enq_at = now;
        self.queue.enqueue(pkt, now, drops);
        if self.busy {
            None
        } else {
            self.start(now, drops)
        }
    }

    /// The transmitter finished; start the next packet if any.
    #[inline]
    pub fn tx_done(&mut self, now: Time, drops: &mut Drops<Packet>) -> Option<Tx> {
        self.busy = false;
        self.start(now, drops)
    }

    #[inline]
    fn start(&mut self, now: Time, drops: &mut Drops<Packet>) -> Option<Tx> {
        let pkt = self.queue.dequeue(now, drops)?;
        self.busy = true;
        let done = now + tx_time(pkt.size, self.bw_bps);
        self.tx_bytes += pkt.size as u64;
        Some(Tx {
            pkt,
            done,
            arrive: done + self.delay,
        })
    }
}

/// A link with an unbounded FIFO, computed without events. Arrivals must be offered in
/// non-decreasing time order (true for a link fed by one sender or by another pipe).
#[derive(Clone, Debug)]
pub struct Pipe {
    /// Bandwidth, bits per second.
    pub bw_bps: u64,
    /// One-way propagation delay, ns.
    pub delay: Time,
    busy_until: Time,
}

impl Pipe {
    /// A pipe; `bw_bps` must be positive.
    pub fn new(bw_bps: u64, delay: Time) -> Self {
        Pipe {
            bw_bps,
            delay,
            busy_until: 0,
        }
    }

    /// The time at which a packet of `bytes` entering at `at` reaches the far end.
    #[inline]
    pub fn send(&mut self, bytes: u32, at: Time) -> Time {
        self.send_timed(bytes, at).1
    }

    /// Like [`Pipe::send`], also returning when the packet's serialisation starts:
    /// `(start, arrival)`, `start > at` when it waits behind earlier packets.
    #[inline]
    pub fn send_timed(&mut self, bytes: u32, at: Time) -> (Time, Time) {
        let start = at.max(self.busy_until);
        let done = start + tx_time(bytes, self.bw_bps);
        self.busy_until = done;
        (start, done + self.delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_serialises_back_to_back() {
        // 8 Mb/s: 1000 B = 1 ms.
        let mut p = Pipe::new(8_000_000, 5_000_000);
        assert_eq!(p.send(1000, 0), 6_000_000);
        assert_eq!(p.send(1000, 0), 7_000_000);
        assert_eq!(p.send(1000, 10_000_000), 16_000_000);
        assert_eq!(p.send_timed(1000, 10_000_000), (11_000_000, 17_000_000));
    }
}
