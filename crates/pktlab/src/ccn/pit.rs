//! Pending Interest Table — CCNx semantics (RFC 8569 §2.4.2): one entry per outstanding name;
//! an Interest for a name already pending (and not expired) is **aggregated** (its face added,
//! not forwarded again); Data consumes the entry and goes to every recorded face; entries expire
//! after a lifetime. Fixed capacity, O(1) operations, a clock hand that expires a bounded number
//! of entries per call, no allocation after construction.
//!
//! Limits keep one source or one unanswered prefix from taking the whole table: at most
//! `per_face` entries may record a given downstream face, and at most `per_upstream` entries may
//! wait on a given upstream face (the next hop an Interest was forwarded to). The table counts
//! both loads, so a face with no pending entry can be recycled safely ([`Pit::face_load`]).

use crate::ccn::cs::KeyIndex;

/// Outcome of recording an Interest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PitInsert {
    /// First pending Interest for the name: forward it upstream.
    New,
    /// Aggregated with a pending Interest: do not forward.
    Aggregated,
    /// Table full: drop the Interest.
    Full,
    /// The downstream face already has its share of entries: drop the Interest.
    FaceLimit,
    /// The upstream face (next hop) already has its share of waiting entries: drop the Interest.
    UpstreamLimit,
}

/// Upstream slot value meaning "no upstream recorded".
const NO_UP: u8 = u8::MAX;

/// A fixed-capacity PIT keyed by name hash, recording up to 64 downstream faces per entry.
#[derive(Clone, Debug)]
pub struct Pit {
    index: KeyIndex,
    keys: Vec<u64>,
    faces: Vec<u64>,
    expires: Vec<u64>,
    ups: Vec<u8>,
    free: Vec<u32>,
    hand: usize,
    lifetime: u64,
    load: [u32; 64],
    up_load: [u32; 64],
    per_face: u32,
    per_upstream: u32,
}

impl Pit {
    /// A PIT of `capacity` entries whose entries live `lifetime` time units.
    pub fn new(capacity: usize, lifetime: u64) -> Pit {
        Pit {
            index: KeyIndex::new(capacity),
            keys: vec![0; capacity],
            faces: vec![0; capacity],
            expires: vec![0; capacity],
            ups: vec![NO_UP; capacity],
            free: (0..capacity as u32).rev().collect(),
            hand: 0,
            lifetime,
            load: [0; 64],
            up_load: [0; 64],
            per_face: u32::MAX,
            per_upstream: u32::MAX,
        }
    }

    /// Caps the entries one downstream face may hold (`per_face`) and the entries that may wait
    /// on one upstream face (`per_upstream`); 0 means no cap.
    pub fn with_limits(mut self, per_face: usize, per_upstream: usize) -> Pit {
        let cap = |v: usize| {
            if v == 0 {
                u32::MAX
            } else {
                v.min(u32::MAX as usize) as u32
            }
        };
        self.per_face = cap(per_face);
        self.per_upstream = cap(per_upstream);
        self
    }

    /// Pending entries that record downstream face `face` (0 = the face can be recycled).
    pub fn face_load(&self, face: u16) -> u32 {
        self.load[(face & 63) as usize]
    }

    /// Pending entries waiting on upstream face `face`.
    pub fn upstream_load(&self, face: u16) -> u32 {
        self.up_load[(face & 63) as usize]
    }

    /// Frees slot `s` and gives back its face and upstream loads.
    fn release(&mut self, s: usize) {
        let mut f = std::mem::take(&mut self.faces[s]);
        while f != 0 {
            self.load[f.trailing_zeros() as usize] -= 1;
            f &= f - 1;
        }
        let u = std::mem::replace(&mut self.ups[s], NO_UP);
        if u != NO_UP {
            self.up_load[u as usize] -= 1;
        }
        self.free.push(s as u32);
    }

    /// Number of pending entries.
    pub fn len(&self) -> usize {
        self.keys.len() - self.free.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records an Interest for `key` from `face` (< 64) at time `now`, living the table's
    /// default lifetime.
    #[inline]
    pub fn insert(&mut self, key: u64, face: u16, now: u64) -> PitInsert {
        self.insert_for(key, face, now, self.lifetime)
    }

    /// The table's default lifetime.
    pub fn lifetime(&self) -> u64 {
        self.lifetime
    }

    /// Records an Interest for `key` from `face` (< 64) at time `now` that lives `lifetime`
    /// time units (the Interest's own InterestLifetime). An aggregated Interest extends the
    /// entry when it lives longer. No upstream is recorded (see [`Pit::insert_via`]).
    #[inline]
    pub fn insert_for(&mut self, key: u64, face: u16, now: u64, lifetime: u64) -> PitInsert {
        self.insert_via(key, face, None, now, lifetime)
    }

    /// As [`Pit::insert_for`], recording that a new entry is forwarded to upstream face `up`
    /// (< 64), which counts against that face's `per_upstream` cap.
    pub fn insert_via(
        &mut self,
        key: u64,
        face: u16,
        up: Option<u16>,
        now: u64,
        lifetime: u64,
    ) -> PitInsert {
        let fi = (face & 63) as usize;
        let bit = 1u64 << fi;
        if let Some(s) = self.index.get(key) {
            let s = s as usize;
            if self.expires[s] > now {
                if self.faces[s] & bit == 0 {
                    if self.load[fi] >= self.per_face {
                        return PitInsert::FaceLimit;
                    }
                    self.load[fi] += 1;
                    self.faces[s] |= bit;
                }
                self.expires[s] = self.expires[s].max(now + lifetime);
                return PitInsert::Aggregated;
            }
            // Expired: free it and record the Interest afresh.
            self.index.remove(key);
            self.release(s);
        }
        if self.load[fi] >= self.per_face {
            return PitInsert::FaceLimit;
        }
        let u = up.map(|u| (u & 63) as u8);
        if let Some(u) = u {
            if self.up_load[u as usize] >= self.per_upstream {
                return PitInsert::UpstreamLimit;
            }
        }
        if self.free.is_empty() {
            self.expire(now, 64);
        }
        let Some(s) = self.free.pop() else {
            return PitInsert::Full;
        };
        let su = s as usize;
        self.keys[su] = key;
        self.faces[su] = bit;
        self.load[fi] += 1;
        self.ups[su] = u.unwrap_or(NO_UP);
        if let Some(u) = u {
            self.up_load[u as usize] += 1;
        }
        self.expires[su] = now + lifetime;
        self.index.insert(key, s);
        PitInsert::New
    }

    /// Consumes the entry for `key` (Data arrived); returns its face bitmask if it was pending
    /// and unexpired.
    #[inline]
    pub fn satisfy(&mut self, key: u64, now: u64) -> Option<u64> {
        let s = self.index.remove(key)? as usize;
        let f = self.faces[s];
        self.release(s);
        (self.expires[s] > now).then_some(f)
    }

    /// Examines up to `budget` slots from the clock hand and frees expired entries; returns how
    /// many were freed.
    pub fn expire(&mut self, now: u64, budget: usize) -> usize {
        let cap = self.keys.len();
        let mut freed = 0;
        for _ in 0..budget.min(cap) {
            let s = self.hand;
            self.hand = if s + 1 == cap { 0 } else { s + 1 };
            if self.expires[s] <= now
                && self.faces[s] != 0
                && self.index.get(self.keys[s]) == Some(s as u32)
            {
                self.index.remove(self.keys[s]);
                self.release(s);
                freed += 1;
            }
        }
        freed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregates_and_times_out() {
        let mut p = Pit::new(2, 10);
        assert_eq!(p.insert(7, 0, 0), PitInsert::New);
        assert_eq!(p.insert(7, 3, 5), PitInsert::Aggregated);
        assert_eq!(p.satisfy(7, 6), Some(0b1001));
        assert_eq!(p.satisfy(7, 6), None);
        assert_eq!(p.insert(1, 0, 0), PitInsert::New);
        assert_eq!(p.insert(2, 0, 0), PitInsert::New);
        assert_eq!(p.insert(3, 0, 5), PitInsert::Full);
        // After the lifetime, the clock frees room.
        assert_eq!(p.insert(3, 0, 20), PitInsert::New);
        assert_eq!(p.insert(1, 1, 20), PitInsert::New); // expired entry restarted or re-added
        assert_eq!(p.satisfy(3, 21), Some(1));
        assert!(p.len() <= 2);
    }

    #[test]
    fn per_interest_lifetimes() {
        let mut p = Pit::new(4, 10);
        assert_eq!(p.insert_for(1, 0, 0, 100), PitInsert::New);
        assert_eq!(p.insert_for(2, 0, 0, 5), PitInsert::New);
        // Entry 2 is gone after 5 units, entry 1 lives on.
        assert_eq!(p.expire(6, 4), 1);
        assert_eq!(p.satisfy(2, 6), None);
        assert_eq!(p.insert_for(1, 2, 50, 200), PitInsert::Aggregated);
        assert_eq!(p.expire(150, 4), 0, "aggregation extended the entry");
        assert_eq!(p.satisfy(1, 240), Some(0b101));
    }

    #[test]
    fn per_face_and_per_upstream_caps() {
        let mut p = Pit::new(64, 10).with_limits(4, 8);
        // Face 1 floods distinct names: capped at 4 entries, the rest refused.
        for k in 0..10 {
            let want = if k < 4 {
                PitInsert::New
            } else {
                PitInsert::FaceLimit
            };
            assert_eq!(p.insert_via(100 + k, 1, Some(60), 0, 10), want, "k {k}");
        }
        assert_eq!(p.face_load(1), 4);
        // Other faces still get entries, until upstream 60 holds 8.
        for f in 2..3u16 {
            for k in 0..4 {
                let r = p.insert_via(1000 * f as u64 + k, f, Some(60), 0, 10);
                assert_eq!(r, PitInsert::New, "face {f} k {k}");
            }
        }
        assert_eq!(p.upstream_load(60), 8);
        assert_eq!(
            p.insert_via(5, 4, Some(60), 0, 10),
            PitInsert::UpstreamLimit
        );
        // Another upstream is not affected.
        assert_eq!(p.insert_via(5, 4, Some(61), 0, 10), PitInsert::New);
        // Aggregating onto a pending entry counts against the new face too.
        assert_eq!(p.insert_via(100, 5, Some(60), 1, 10), PitInsert::Aggregated);
        assert_eq!(p.face_load(5), 1);
        // Data and expiry give the loads back.
        assert_eq!(p.satisfy(100, 2), Some((1 << 1) | (1 << 5)));
        assert_eq!((p.face_load(1), p.face_load(5)), (3, 0));
        assert_eq!(p.upstream_load(60), 7);
        let pending = p.len();
        assert_eq!(p.expire(20, 64), pending);
        assert!(p.is_empty());
        assert_eq!((p.face_load(1), p.upstream_load(60)), (0, 0));
        assert_eq!(p.insert_via(7, 1, Some(60), 21, 10), PitInsert::New);
    }
}
