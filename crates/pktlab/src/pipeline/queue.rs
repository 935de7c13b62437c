//! The output port's queue: any [`Aqm`] discipline (ZL-RED by default, paper 002) in front
//! of a link of fixed rate. Time comes from the packets' receive timestamps, not the wall
//! clock: before a packet arriving at `t` is offered, the link sends every queued packet
//! whose transmission can start by `t`, each taking `(len + 24) × 8 / rate` (24 = preamble,
//! start delimiter, FCS and inter-frame gap). The result is the same whatever the CPU speed.
//!
//! Queued packets keep their buffers; a queue entry ([`QPkt`]) carries what the queue and
//! the transmitter need (the packet's compact metadata stays with its batch). Buffers come
//! back through [`crate::mbuf::Buf::into_raw`]/`from_raw`, guarded by an ownership bitmap
//! so that a discipline that returned a packet twice would stop the run instead of aliasing
//! a buffer.

use crate::aqm::{Aqm, AqmPacket, Discipline, Drops, Nanos};
use crate::mbuf::Buf;

/// A queued packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QPkt {
    /// Raw index of the packet's buffer.
    pub buf: u32,
    /// Frame length, bytes.
    pub len: u16,
    /// Flow id (the RSS hash).
    pub flow: u32,
    /// (source, destination) pair.
    pub pair: u64,
    /// Receive timestamp, ns.
    pub ts: u64,
}

impl AqmPacket for QPkt {
    #[inline(always)]
    fn flow(&self) -> u32 {
        self.flow
    }
    #[inline(always)]
    fn bytes(&self) -> u32 {
        self.len as u32
    }
    #[inline(always)]
    fn src_dst(&self) -> u64 {
        self.pair
    }
}

/// Bytes a frame costs on the wire beyond its data: preamble + SFD (8), FCS (4), IFG (12).
pub const WIRE_OVERHEAD: u64 = 24;

/// The link side of the queue: when it is next free, at what rate.
#[derive(Debug)]
pub struct Link {
    free_at: u64,
    frac_ps: u64,
    ps_per_byte: u64,
    owned: Vec<u64>,
    /// The parked buffers' pool ([`Buf::pool_id`]; 0 until the first `park`).
    pool: u32,
    /// Packets the discipline dropped.
    pub drops: u64,
}

impl Link {
    /// A link of `rate_bps` bits/s, for buffers of a pool of `pool_count` elements.
    pub fn new(rate_bps: u64, pool_count: u32) -> Link {
        Link {
            free_at: 0,
            frac_ps: 0,
            ps_per_byte: (8_000_000_000_000u64 / rate_bps.max(1)).max(1),
            owned: vec![0; (pool_count as usize).div_ceil(64)],
            pool: 0,
            drops: 0,
        }
    }

    /// Transmission time of a typical 64-byte frame (for RED's idle correction).
    pub fn pkt_time(&self) -> Nanos {
        (64 + WIRE_OVERHEAD) * self.ps_per_byte / 1000
    }

    #[inline(always)]
    fn advance(&mut self, len: u16) {
        let ps = (len as u64 + WIRE_OVERHEAD) * self.ps_per_byte + self.frac_ps;
        self.free_at += ps / 1000;
        self.frac_ps = ps % 1000;
    }

    /// Hands `b` to the queue: its raw index, marked owned by the queue. Every buffer parked
    /// in one link must come from one pool (panics otherwise).
    #[inline(always)]
    pub fn park(&mut self, b: Buf) -> u32 {
        let pool = b.pool_id();
        let r = b.into_raw();
        // SAFETY: `r` and `pool` come from the handle `b`, given up just above.
        unsafe { self.park_raw(pool, &[r]) };
        r
    }

    /// [`Link::park`] of many buffers given up already: `raws` are raw indices of handles of
    /// the pool with id `pool_id` ([`crate::mbuf::Pool::id`]); the pool is checked once (every
    /// buffer parked in one link must come from one pool), then each index is marked owned
    /// (panics if it already is). The queue entries then carry the indices themselves.
    ///
    /// # Safety
    /// Each index comes from [`Buf::into_raw`] of a handle of that pool, and no `Buf` of it
    /// exists or is rebuilt afterwards except by [`Link::unpark`].
    #[inline(always)]
    pub unsafe fn park_raw(&mut self, pool_id: u32, raws: &[u32]) {
        if self.pool != pool_id {
            assert!(self.pool == 0, "buffers of two pools parked in one link");
            self.pool = pool_id;
        }
        for &r in raws {
            let (w, m) = (r as usize / 64, 1u64 << (r % 64));
            assert!(self.owned[w] & m == 0, "buffer {r} queued twice");
            self.owned[w] |= m;
        }
    }

    /// Takes a buffer back from the queue.
    #[inline(always)]
    pub fn unpark(&mut self, raw: u32) -> Buf {
        let (w, m) = (raw as usize / 64, 1u64 << (raw % 64));
        assert!(self.owned[w] & m != 0, "buffer {raw} left the queue twice");
        self.owned[w] &= !m;
        // SAFETY: `raw` came from `park` (into_raw of a handle of pool `self.pool`, the only
        // pool parked here) and the bitmap shows it has not been taken back since, so no
        // other `Buf` with this index exists.
        unsafe { Buf::from_raw_id(self.pool, raw) }
    }

    /// Offers every packet of `pkts` in order: first sends what the link can send by the
    /// packet's arrival, then enqueues it. Departures go to `out`, dropped buffers to `freed`
    /// (collected in `drops` meanwhile).
    /// Not inlined: the queue stage (link model + discipline) as one function for profilers.
    #[inline(never)]
    pub fn offer_all<Q: Aqm<QPkt>>(
        &mut self,
        q: &mut Q,
        drops: &mut Drops<QPkt>,
        pkts: &[QPkt],
        out: &mut Vec<QPkt>,
        freed: &mut Vec<Buf>,
    ) {
        for &p in pkts {
            while self.free_at <= p.ts {
                match q.dequeue(self.free_at, drops) {
                    Some(x) => {
                        out.push(x);
                        self.advance(x.len);
                    }
                    None => break,
                }
            }
            if q.len_pkts() == 0 && self.free_at < p.ts {
                self.free_at = p.ts; // idle link
            }
            q.enqueue(p, p.ts, drops);
        }
        // The dropped buffers, once for the whole call (in the order they were dropped).
        self.take_drops(drops, freed);
    }

    /// Sends everything still queued (end of the run).
    pub fn drain<Q: Aqm<QPkt>>(
        &mut self,
        q: &mut Q,
        drops: &mut Drops<QPkt>,
        out: &mut Vec<QPkt>,
        freed: &mut Vec<Buf>,
    ) {
        while let Some(x) = q.dequeue(self.free_at, drops) {
            out.push(x);
            self.advance(x.len);
        }
        self.take_drops(drops, freed);
    }

    #[inline(always)]
    fn take_drops(&mut self, drops: &mut Drops<QPkt>, freed: &mut Vec<Buf>) {
        for &(p, _) in &drops.pkts {
            self.drops += 1;
            let b = self.unpark(p.buf);
            freed.push(b);
        }
        drops.clear();
    }
}

/// Runs `$e` with `$q` bound to the concrete discipline inside a [`Discipline`] (one match
/// per batch; the per-packet loop inside is monomorphised).
#[macro_export]
#[doc(hidden)]
macro_rules! with_discipline {
    ($d:expr, $q:ident => $e:expr) => {
        match $d {
            $crate::aqm::Discipline::DropTail($q) => $e,
            $crate::aqm::Discipline::Red($q) => $e,
            $crate::aqm::Discipline::Sred($q) => $e,
            $crate::aqm::Discipline::ZlRed($q) => $e,
            $crate::aqm::Discipline::Choke($q) => $e,
            $crate::aqm::Discipline::Drr($q) => $e,
            $crate::aqm::Discipline::FqCodel($q) => $e,
        }
    };
}

/// An output queue: discipline, link and the drop sink.
#[derive(Debug)]
pub struct OutQueue {
    /// The discipline.
    pub disc: Discipline<QPkt>,
    /// The link.
    pub link: Link,
    /// Drop sink (reused).
    pub drops: Drops<QPkt>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::DropTail;
    use crate::mbuf::Pool;

    #[test]
    fn link_drains_at_line_rate_and_tail_drops() {
        let pool = Pool::new(64, 0, 64, false);
        let mut bufs = Vec::new();
        assert!(pool.take(64, &mut bufs));
        let mut link = Link::new(10_000_000_000, 64);
        let mut q = DropTail::new(8).unwrap();
        let mut drops = Drops::default();
        let (mut out, mut freed) = (Vec::new(), Vec::new());
        // 40 packets of 60 bytes arrive at once: 84 B × 8 / 10 Gb/s = 67.2 ns each.
        let pkts: Vec<QPkt> = bufs
            .drain(..40)
            .map(|b| QPkt {
                buf: link.park(b),
                len: 60,
                flow: 1,
                pair: 1,
                ts: 1000,
            })
            .collect();
        link.offer_all(&mut q, &mut drops, &pkts, &mut out, &mut freed);
        // The first is sent at once, 8 wait, 31 are dropped.
        assert_eq!(out.len(), 1);
        assert_eq!(freed.len(), 31);
        assert_eq!(link.drops, 31);
        let late = QPkt {
            buf: link.park(bufs.pop().unwrap()),
            len: 60,
            flow: 1,
            pair: 1,
            ts: 1000 + 5 * 68,
        };
        link.offer_all(&mut q, &mut drops, &[late], &mut out, &mut freed);
        assert_eq!(out.len(), 1 + 5);
        link.drain(&mut q, &mut drops, &mut out, &mut freed);
        assert_eq!(out.len() + freed.len(), 41);
        assert_eq!(link.free_at, 1000 + (10 * 672) / 10);
        for p in out {
            freed.push(link.unpark(p.buf));
        }
        pool.give(freed);
        pool.give(bufs);
        assert_eq!(pool.common_len(), 64);
    }
}
