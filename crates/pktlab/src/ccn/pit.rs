//! Pending Interest Table — CCNx semantics (RFC 8569 §2.4.2): one entry per outstanding name;
//! an Interest for a name already pending (and not expired) is **aggregated** (its face added,
//! not forwarded again); Data consumes the entry and goes to every recorded face; entries expire
//! after a lifetime. Fixed capacity, O(1) operations, a clock hand that expires a bounded number
//! of entries per call, no allocation after construction.

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
}

/// A fixed-capacity PIT keyed by name hash, recording up to 64 downstream faces per entry.
#[derive(Clone, Debug)]
pub struct Pit {
    index: KeyIndex,
    keys: Vec<u64>,
    faces: Vec<u64>,
    expires: Vec<u64>,
    free: Vec<u32>,
    hand: usize,
    lifetime: u64,
}

impl Pit {
    /// A PIT of `capacity` entries whose entries live `lifetime` time units.
    pub fn new(capacity: usize, lifetime: u64) -> Pit {
        Pit {
            index: KeyIndex::new(capacity),
            keys: vec![0; capacity],
            faces: vec![0; capacity],
            expires: vec![0; capacity],
            free: (0..capacity as u32).rev().collect(),
            hand: 0,
            lifetime,
        }
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
    /// entry when it lives longer.
    #[inline]
    pub fn insert_for(&mut self, key: u64, face: u16, now: u64, lifetime: u64) -> PitInsert {
        let bit = 1u64 << (face & 63);
        if let Some(s) = self.index.get(key) {
            let s = s as usize;
            if self.expires[s] > now {
                self.faces[s] |= bit;
                self.expires[s] = self.expires[s].max(now + lifetime);
                return PitInsert::Aggregated;
            }
            // Expired: restart the entry.
            self.faces[s] = bit;
            self.expires[s] = now + lifetime;
            return PitInsert::New;
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
        self.expires[su] = now + lifetime;
        self.index.insert(key, s);
        PitInsert::New
    }

    /// Consumes the entry for `key` (Data arrived); returns its face bitmask if it was pending
    /// and unexpired.
    #[inline]
    pub fn satisfy(&mut self, key: u64, now: u64) -> Option<u64> {
        let s = self.index.remove(key)? as usize;
        self.free.push(s as u32);
        let f = std::mem::take(&mut self.faces[s]);
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
                self.faces[s] = 0;
                self.free.push(s as u32);
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
}
