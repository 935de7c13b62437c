//! The CCN forwarder of paper 003's case study (a Cefore router, §4): consumer Interest →
//! CS lookup (hit: answer with the cached Data) → PIT (aggregate or record) → FIB → producer;
//! Data → PIT (consume, send to every recorded face) → CS insert. The CS keeps Data packets in a
//! fixed arena of `capacity × slot_bytes`, so steady-state forwarding allocates nothing.
//! Faces are integers below [`NO_FACE`](super::pit::NO_FACE); sending is a caller-supplied
//! closure.

use super::cs::ContentStore;
use super::fib::Fib;
use super::pit::{Pit, PitInsert};
use super::tlv::{self, Kind, TlvError, MAX_SEGMENTS};

/// What the forwarder did with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Interest answered from the content store.
    CsHit,
    /// Interest recorded in the PIT and forwarded upstream.
    Forwarded,
    /// Interest aggregated with a pending one.
    Aggregated,
    /// Interest dropped: no route, PIT full or hop limit exhausted.
    Dropped,
    /// Data sent to this many downstream faces.
    Delivered(u32),
    /// Data without a pending Interest.
    Unsolicited,
}

/// Packet counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FwdCounters {
    /// Interests received.
    pub interests: u64,
    /// Interests answered from the CS.
    pub cs_hits: u64,
    /// Data packets received.
    pub data: u64,
    /// Packets dropped (any reason, including malformed).
    pub dropped: u64,
    /// Well-formed packets of types not forwarded here (Interest Return, CCNinfo), skipped.
    pub skipped: u64,
    /// Interests dropped for lack of a route.
    pub no_route: u64,
    /// Interests dropped with hop limit 0.
    pub hop_limit: u64,
    /// Interests refused because the PIT was full.
    pub pit_full: u64,
    /// Interests refused because their downstream face held its PIT share.
    pub pit_face_limit: u64,
    /// Interests refused because their next hop had its share of waiting PIT entries.
    pub pit_upstream_limit: u64,
}

/// A single-threaded CCN forwarder over a content store `C` (`None` = CS off).
pub struct Forwarder<C: ContentStore> {
    cs: Option<C>,
    arena: Vec<u8>,
    lens: Vec<u16>,
    slot_bytes: usize,
    pit: Pit,
    fib: Fib,
    hashes: [u64; MAX_SEGMENTS],
    lifetime_ticks_per_ms: u64,
    /// The downstream faces of the entry a Data packet satisfies (reused).
    out_faces: Vec<u16>,
    /// Counters since construction.
    pub counters: FwdCounters,
}

impl<C: ContentStore> Forwarder<C> {
    /// A forwarder with the given CS (Data longer than `slot_bytes` is forwarded but not
    /// cached), PIT size and Interest lifetime, and FIB.
    pub fn new(cs: Option<C>, slot_bytes: usize, pit: Pit, fib: Fib) -> Self {
        let cap = cs.as_ref().map_or(0, |c| c.capacity());
        Forwarder {
            cs,
            arena: vec![0; cap * slot_bytes],
            lens: vec![0; cap],
            slot_bytes,
            pit,
            fib,
            hashes: [0; MAX_SEGMENTS],
            lifetime_ticks_per_ms: 0,
            out_faces: Vec::new(),
            counters: FwdCounters::default(),
        }
    }

    /// Honour each Interest's InterestLifetime for its PIT entry, with `now` counting
    /// `ticks_per_ms` per millisecond (0, the default, = every entry lives the PIT's lifetime).
    pub fn with_interest_lifetimes(mut self, ticks_per_ms: u64) -> Self {
        self.lifetime_ticks_per_ms = ticks_per_ms;
        self
    }

    /// Frees up to `budget` expired PIT entries; returns how many.
    pub fn expire(&mut self, now: u64, budget: usize) -> usize {
        self.pit.expire(now, budget)
    }

    /// Pending Interests.
    pub fn pit_len(&self) -> usize {
        self.pit.len()
    }

    /// Pending Interests that record downstream face `face` (0 = the face may be recycled).
    pub fn face_load(&self, face: u16) -> u32 {
        self.pit.face_load(face)
    }

    /// The content store, if any.
    pub fn cs(&self) -> Option<&C> {
        self.cs.as_ref()
    }

    /// Handles one packet arriving on `face` at time `now`; `send(face, bytes)` transmits.
    pub fn handle(
        &mut self,
        pkt: &[u8],
        face: u16,
        now: u64,
        send: &mut impl FnMut(u16, &[u8]),
    ) -> Result<Action, TlvError> {
        let p = match tlv::parse(pkt) {
            Ok(p) => p,
            Err(e @ TlvError::Unhandled(_)) => {
                self.counters.skipped += 1;
                return Err(e);
            }
            Err(e) => {
                self.counters.dropped += 1;
                return Err(e);
            }
        };
        let n = tlv::prefix_hashes(p.name, &mut self.hashes);
        let key = if n == 0 {
            tlv::EMPTY_NAME_HASH
        } else {
            self.hashes[n - 1]
        };
        match p.kind {
            Kind::Interest => {
                self.counters.interests += 1;
                if let Some(cs) = self.cs.as_mut() {
                    if let Some(s) = cs.lookup(key) {
                        let s = s as usize;
                        let data = &self.arena[s * self.slot_bytes..][..self.lens[s] as usize];
                        // Guard against hash collisions: the cached name must match.
                        if tlv::parse(data).is_ok_and(|d| d.name == p.name) {
                            self.counters.cs_hits += 1;
                            send(face, data);
                            return Ok(Action::CsHit);
                        }
                    }
                }
                if p.hop_limit == 0 {
                    self.counters.hop_limit += 1;
                    self.counters.dropped += 1;
                    return Ok(Action::Dropped);
                }
                let Some(out) = self.fib.lookup_hashes(&self.hashes[..n]) else {
                    self.counters.no_route += 1;
                    self.counters.dropped += 1;
                    return Ok(Action::Dropped);
                };
                let life = match (self.lifetime_ticks_per_ms, p.lifetime_ms) {
                    (0, _) | (_, None) => self.pit.lifetime(),
                    (t, Some(ms)) => ms as u64 * t,
                };
                let refused = match self.pit.insert_via(key, face, Some(out), now, life) {
                    PitInsert::New => {
                        send(out, pkt);
                        return Ok(Action::Forwarded);
                    }
                    PitInsert::Aggregated => return Ok(Action::Aggregated),
                    PitInsert::Full => &mut self.counters.pit_full,
                    PitInsert::FaceLimit => &mut self.counters.pit_face_limit,
                    PitInsert::UpstreamLimit => &mut self.counters.pit_upstream_limit,
                };
                *refused += 1;
                self.counters.dropped += 1;
                Ok(Action::Dropped)
            }
            Kind::Data => {
                self.counters.data += 1;
                if !self.pit.satisfy(key, now, &mut self.out_faces) {
                    self.counters.dropped += 1;
                    return Ok(Action::Unsolicited);
                }
                for &f in &self.out_faces {
                    send(f, pkt);
                }
                let k = self.out_faces.len() as u32;
                if let Some(cs) = self.cs.as_mut() {
                    if pkt.len() <= self.slot_bytes && cs.capacity() > 0 {
                        let s = cs.insert(key) as usize;
                        self.arena[s * self.slot_bytes..][..pkt.len()].copy_from_slice(pkt);
                        self.lens[s] = pkt.len() as u16;
                    }
                }
                Ok(Action::Delivered(k))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ccn::cs::Lru;
    use crate::ccn::tlv::{build_data, build_interest, name_from_uri};

    #[test]
    fn consumer_router_producer() {
        let mut fib = Fib::new();
        let mut n = Vec::new();
        name_from_uri("/p", &mut n);
        fib.add(&n, 1);
        let mut f = Forwarder::new(Some(Lru::new(4)), 256, Pit::new(16, 100), fib);
        let (mut i, mut d) = (Vec::new(), Vec::new());
        name_from_uri("/p/7", &mut n);
        build_interest(&mut i, &n, 8);
        build_data(&mut d, &n, b"x");
        let mut sent: Vec<(u16, Vec<u8>)> = Vec::new();
        let mut tx = |f: u16, b: &[u8]| sent.push((f, b.to_vec()));
        assert_eq!(f.handle(&i, 0, 0, &mut tx), Ok(Action::Forwarded));
        assert_eq!(f.handle(&i, 2, 1, &mut tx), Ok(Action::Aggregated));
        assert_eq!(f.handle(&d, 1, 2, &mut tx), Ok(Action::Delivered(2)));
        assert_eq!(f.handle(&d, 1, 3, &mut tx), Ok(Action::Unsolicited));
        assert_eq!(f.handle(&i, 3, 4, &mut tx), Ok(Action::CsHit));
        assert!(f.handle(&i[..5], 0, 5, &mut tx).is_err());
        let faces: Vec<u16> = sent.iter().map(|s| s.0).collect();
        assert_eq!(faces, vec![1, 0, 2, 3]);
        assert_eq!(sent[3].1, d);
        name_from_uri("/q/1", &mut n);
        build_interest(&mut i, &n, 8);
        assert_eq!(f.handle(&i, 0, 6, &mut |_, _| {}), Ok(Action::Dropped));
        assert_eq!(f.counters.cs_hits, 1);
        assert_eq!(f.counters.no_route, 1);
    }
}
