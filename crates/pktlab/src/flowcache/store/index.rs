//! Fixed-capacity open-addressing hash index (u64 key → u32 slot) of the linked cache store
//! ([`super::Linked`]) and the CCN PIT: linear probing, Fibonacci hashing, backward-shift deletion (Knuth,
//! TAOCP vol. 3 §6.4, Algorithm R), so there are no tombstones and no allocation after `new`.

const EMPTY: u32 = u32::MAX;

/// A hash index with room for `capacity` keys at load factor ≤ 1/2.
#[derive(Clone, Debug)]
pub struct KeyIndex {
    keys: Vec<u64>,
    vals: Vec<u32>,
    shift: u32,
    mask: usize,
}

impl KeyIndex {
    /// An index for up to `capacity` keys.
    pub fn new(capacity: usize) -> KeyIndex {
        let size = (capacity.max(1) * 2).next_power_of_two().max(8);
        KeyIndex {
            keys: vec![0; size],
            vals: vec![EMPTY; size],
            shift: 64 - size.trailing_zeros(),
            mask: size - 1,
        }
    }

    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The slot stored for `key`.
    #[inline]
    pub fn get(&self, key: u64) -> Option<u32> {
        let mut i = self.home(key);
        loop {
            let v = self.vals[i];
            if v == EMPTY {
                return None;
            }
            if self.keys[i] == key {
                return Some(v);
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Stores `key → val` (replacing an existing value). The caller keeps the number of keys
    /// within the capacity given to [`KeyIndex::new`].
    #[inline]
    pub fn insert(&mut self, key: u64, val: u32) {
        let mut i = self.home(key);
        while self.vals[i] != EMPTY && self.keys[i] != key {
            i = (i + 1) & self.mask;
        }
        self.keys[i] = key;
        self.vals[i] = val;
    }

    /// Removes `key`, returning its slot.
    #[inline]
    pub fn remove(&mut self, key: u64) -> Option<u32> {
        let mut i = self.home(key);
        loop {
            if self.vals[i] == EMPTY {
                return None;
            }
            if self.keys[i] == key {
                break;
            }
            i = (i + 1) & self.mask;
        }
        let v = self.vals[i];
        // Backward shift: move later members of the cluster into the hole when allowed.
        let mut hole = i;
        let mut j = i;
        loop {
            j = (j + 1) & self.mask;
            if self.vals[j] == EMPTY {
                break;
            }
            let h = self.home(self.keys[j]);
            // Entry j may move to `hole` if its home is not cyclically in (hole, j].
            if (j.wrapping_sub(h) & self.mask) >= (j.wrapping_sub(hole) & self.mask) {
                self.keys[hole] = self.keys[j];
                self.vals[hole] = self.vals[j];
                hole = j;
            }
        }
        self.vals[hole] = EMPTY;
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn matches_hashmap_under_churn() {
        let mut ix = KeyIndex::new(100);
        let mut m = HashMap::new();
        let mut x = 9u64;
        for _ in 0..200_000 {
            x = crate::util::splitmix64(x);
            let k = x % 300; // small key space: long clusters, many removals
            if m.len() < 100 && x & 1 == 0 {
                ix.insert(k, (x >> 40) as u32);
                m.insert(k, (x >> 40) as u32);
            } else {
                assert_eq!(ix.remove(k), m.remove(&k));
            }
            assert_eq!(ix.get(k), m.get(&k).copied());
        }
        for k in 0..300 {
            assert_eq!(ix.get(k), m.get(&k).copied());
        }
    }
}
