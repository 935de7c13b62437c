//! Pending Interest Table — CCNx semantics (RFC 8569 §2.4.2): one entry per outstanding name;
//! an Interest for a name already pending (and not expired) is **aggregated** (its face added,
//! not forwarded again); Data consumes the entry and goes to every recorded face; entries expire
//! after a lifetime. Fixed capacity, O(1) operations, a clock hand that expires a bounded number
//! of entries per call.
//!
//! Faces are any `u16` below [`NO_FACE`]. An entry keeps up to [`INLINE_FACES`] downstream
//! faces inline; the rare entry aggregated from more faces spills the rest into a side table.
//! Allocation after construction: only that spill, and the per-face load counters growing to
//! the highest face number seen (at most 65,535 counters).
//!
//! Limits keep one source or one unanswered prefix from taking the whole table: at most
//! `per_face` entries may record a given downstream face, and at most `per_upstream` entries may
//! wait on a given upstream face (the next hop an Interest was forwarded to). The table counts
//! both loads, so a face with no pending entry can be recycled safely ([`Pit::face_load`]).

use crate::ccn::cs::KeyIndex;
use std::collections::HashMap;

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

/// The face number that means "none" (an empty inline slot, no upstream); faces are below it.
pub const NO_FACE: u16 = u16::MAX;

/// Downstream faces an entry keeps inline.
pub const INLINE_FACES: usize = 4;

/// A fixed-capacity PIT keyed by name hash.
#[derive(Clone, Debug)]
pub struct Pit {
    index: KeyIndex,
    keys: Vec<u64>,
    /// Downstream faces of each slot; slot 0 is set for every live entry.
    faces: Vec<[u16; INLINE_FACES]>,
    /// Faces beyond the inline ones, by slot.
    spill: HashMap<u32, Vec<u16>>,
    expires: Vec<u64>,
    ups: Vec<u16>,
    free: Vec<u32>,
    hand: usize,
    lifetime: u64,
    load: Vec<u32>,
    up_load: Vec<u32>,
    per_face: u32,
    per_upstream: u32,
}

/// `v[i]`, growing `v` with zeros to reach it.
fn counter(v: &mut Vec<u32>, i: u16) -> &mut u32 {
    let i = i as usize;
    if i >= v.len() {
        v.resize(i + 1, 0);
    }
    &mut v[i]
}

impl Pit {
    /// A PIT of `capacity` entries whose entries live `lifetime` time units.
    pub fn new(capacity: usize, lifetime: u64) -> Pit {
        Pit {
            index: KeyIndex::new(capacity),
            keys: vec![0; capacity],
            faces: vec![[NO_FACE; INLINE_FACES]; capacity],
            spill: HashMap::new(),
            expires: vec![0; capacity],
            ups: vec![NO_FACE; capacity],
            free: (0..capacity as u32).rev().collect(),
            hand: 0,
            lifetime,
            load: Vec::new(),
            up_load: Vec::new(),
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
        self.load.get(face as usize).copied().unwrap_or(0)
    }

    /// Pending entries waiting on upstream face `face`.
    pub fn upstream_load(&self, face: u16) -> u32 {
        self.up_load.get(face as usize).copied().unwrap_or(0)
    }

    /// True if slot `s` records downstream face `f`.
    fn has_face(&self, s: usize, f: u16) -> bool {
        self.faces[s].contains(&f)
            || (self.faces[s][INLINE_FACES - 1] != NO_FACE
                && self.spill.get(&(s as u32)).is_some_and(|v| v.contains(&f)))
    }

    /// Records downstream face `f` in slot `s` (not yet recorded there) and counts its load.
    fn add_face(&mut self, s: usize, f: u16) {
        match self.faces[s].iter_mut().find(|x| **x == NO_FACE) {
            Some(x) => *x = f,
            None => self.spill.entry(s as u32).or_default().push(f),
        }
        *counter(&mut self.load, f) += 1;
    }

    /// Frees slot `s`, gives back its face and upstream loads and appends its downstream
    /// faces to `out` (if given).
    fn release(&mut self, s: usize, mut out: Option<&mut Vec<u16>>) {
        let inline = std::mem::replace(&mut self.faces[s], [NO_FACE; INLINE_FACES]);
        let spilled = if inline[INLINE_FACES - 1] != NO_FACE {
            self.spill.remove(&(s as u32)).unwrap_or_default()
        } else {
            Vec::new()
        };
        for &f in inline.iter().filter(|&&f| f != NO_FACE).chain(&spilled) {
            self.load[f as usize] -= 1;
            if let Some(o) = out.as_deref_mut() {
                o.push(f);
            }
        }
        let u = std::mem::replace(&mut self.ups[s], NO_FACE);
        if u != NO_FACE {
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

    /// Records an Interest for `key` from `face` (< [`NO_FACE`]) at time `now`, living the
    /// table's default lifetime.
    #[inline]
    pub fn insert(&mut self, key: u64, face: u16, now: u64) -> PitInsert {
        self.insert_for(key, face, now, self.lifetime)
    }

    /// The table's default lifetime.
    pub fn lifetime(&self) -> u64 {
        self.lifetime
    }

    /// Records an Interest for `key` from `face` (< [`NO_FACE`]) at time `now` that lives
    /// `lifetime` time units (the Interest's own InterestLifetime). An aggregated Interest
    /// extends the entry when it lives longer. No upstream is recorded (see [`Pit::insert_via`]).
    #[inline]
    pub fn insert_for(&mut self, key: u64, face: u16, now: u64, lifetime: u64) -> PitInsert {
        self.insert_via(key, face, None, now, lifetime)
    }

    /// As [`Pit::insert_for`], recording that a new entry is forwarded to upstream face `up`
    /// (< [`NO_FACE`]), which counts against that face's `per_upstream` cap.
    pub fn insert_via(
        &mut self,
        key: u64,
        face: u16,
        up: Option<u16>,
        now: u64,
        lifetime: u64,
    ) -> PitInsert {
        debug_assert!(face != NO_FACE && up != Some(NO_FACE));
        if let Some(s) = self.index.get(key) {
            let s = s as usize;
            if self.expires[s] > now {
                if !self.has_face(s, face) {
                    if self.face_load(face) >= self.per_face {
                        return PitInsert::FaceLimit;
                    }
                    self.add_face(s, face);
                }
                self.expires[s] = self.expires[s].max(now + lifetime);
                return PitInsert::Aggregated;
            }
            // Expired: free it and record the Interest afresh.
            self.index.remove(key);
            self.release(s, None);
        }
        if self.face_load(face) >= self.per_face {
            return PitInsert::FaceLimit;
        }
        if let Some(u) = up {
            if self.upstream_load(u) >= self.per_upstream {
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
        self.add_face(su, face);
        self.ups[su] = up.unwrap_or(NO_FACE);
        if let Some(u) = up {
            *counter(&mut self.up_load, u) += 1;
        }
        self.expires[su] = now + lifetime;
        self.index.insert(key, s);
        PitInsert::New
    }

    /// Consumes the entry for `key` (Data arrived). If it was pending and unexpired, `out` is
    /// set to its downstream faces (ascending) and true is returned; otherwise `out` is empty.
    #[inline]
    pub fn satisfy(&mut self, key: u64, now: u64, out: &mut Vec<u16>) -> bool {
        out.clear();
        let Some(s) = self.index.remove(key) else {
            return false;
        };
        let s = s as usize;
        self.release(s, Some(&mut *out));
        if self.expires[s] > now {
            out.sort_unstable();
            true
        } else {
            out.clear();
            false
        }
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
                && self.faces[s][0] != NO_FACE
                && self.index.get(self.keys[s]) == Some(s as u32)
            {
                self.index.remove(self.keys[s]);
                self.release(s, None);
                freed += 1;
            }
        }
        freed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `satisfy` as an `Option` of the faces.
    fn sat(p: &mut Pit, key: u64, now: u64) -> Option<Vec<u16>> {
        let mut v = vec![99];
        let hit = p.satisfy(key, now, &mut v);
        assert!(hit || v.is_empty());
        hit.then_some(v)
    }

    #[test]
    fn aggregates_and_times_out() {
        let mut p = Pit::new(2, 10);
        assert_eq!(p.insert(7, 0, 0), PitInsert::New);
        assert_eq!(p.insert(7, 3, 5), PitInsert::Aggregated);
        assert_eq!(sat(&mut p, 7, 6), Some(vec![0, 3]));
        assert_eq!(sat(&mut p, 7, 6), None);
        assert_eq!(p.insert(1, 0, 0), PitInsert::New);
        assert_eq!(p.insert(2, 0, 0), PitInsert::New);
        assert_eq!(p.insert(3, 0, 5), PitInsert::Full);
        // After the lifetime, the clock frees room.
        assert_eq!(p.insert(3, 0, 20), PitInsert::New);
        assert_eq!(p.insert(1, 1, 20), PitInsert::New); // expired entry restarted or re-added
        assert_eq!(sat(&mut p, 3, 21), Some(vec![0]));
        assert!(p.len() <= 2);
    }

    #[test]
    fn per_interest_lifetimes() {
        let mut p = Pit::new(4, 10);
        assert_eq!(p.insert_for(1, 0, 0, 100), PitInsert::New);
        assert_eq!(p.insert_for(2, 0, 0, 5), PitInsert::New);
        // Entry 2 is gone after 5 units, entry 1 lives on.
        assert_eq!(p.expire(6, 4), 1);
        assert_eq!(sat(&mut p, 2, 6), None);
        assert_eq!(p.insert_for(1, 2, 50, 200), PitInsert::Aggregated);
        assert_eq!(p.expire(150, 4), 0, "aggregation extended the entry");
        assert_eq!(sat(&mut p, 1, 240), Some(vec![0, 2]));
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
        assert_eq!(sat(&mut p, 100, 2), Some(vec![1, 5]));
        assert_eq!((p.face_load(1), p.face_load(5)), (3, 0));
        assert_eq!(p.upstream_load(60), 7);
        let pending = p.len();
        assert_eq!(p.expire(20, 64), pending);
        assert!(p.is_empty());
        assert_eq!((p.face_load(1), p.upstream_load(60)), (0, 0));
        assert_eq!(p.insert_via(7, 1, Some(60), 21, 10), PitInsert::New);
    }

    #[test]
    fn faces_beyond_64_are_distinct_and_spill_past_the_inline_slots() {
        // Faces 100 and 164 were one bit (100 & 63 = 164 & 63) of the old 64-bit mask.
        let mut p = Pit::new(8, 10).with_limits(2, 0);
        assert_eq!(p.insert(1, 100, 0), PitInsert::New);
        assert_eq!(p.insert(1, 164, 0), PitInsert::Aggregated);
        assert_eq!(
            (p.face_load(100), p.face_load(164), p.face_load(36)),
            (1, 1, 0)
        );
        // Ten faces on one name: four inline, six spilled, all answered once.
        for f in [7u16, 3000, 65_000, 42, 9, 11, 12, 13] {
            assert_eq!(p.insert(1, f, 1), PitInsert::Aggregated, "face {f}");
        }
        assert_eq!(
            p.insert(1, 9, 1),
            PitInsert::Aggregated,
            "a repeat adds nothing"
        );
        assert_eq!(p.face_load(9), 1);
        assert_eq!(
            sat(&mut p, 1, 2),
            Some(vec![7, 9, 11, 12, 13, 42, 100, 164, 3000, 65_000])
        );
        assert!(p.spill.is_empty(), "the spill is freed with its entry");
        assert_eq!((p.face_load(100), p.face_load(65_000)), (0, 0));
        // The per-face cap counts high faces on their own.
        assert_eq!(p.insert(2, 300, 3), PitInsert::New);
        assert_eq!(p.insert(3, 300, 3), PitInsert::New);
        assert_eq!(p.insert(4, 300, 3), PitInsert::FaceLimit);
        assert_eq!(p.insert(4, 301, 3), PitInsert::New);
        // Expiry releases spilled faces too.
        for f in 400..410u16 {
            p.insert(5, f, 4);
        }
        assert_eq!(p.face_load(409), 1);
        p.expire(100, 8);
        assert!(p.is_empty() && p.spill.is_empty());
        assert_eq!((p.face_load(300), p.face_load(409)), (0, 0));
    }
}
