//! Fixed-capacity open-addressing hash index (u64 key → u32 slot) of the linked cache store
//! ([`super::Linked`]) and the CCN PIT: linear probing, Fibonacci hashing, backward-shift deletion (Knuth,
//! TAOCP vol. 3 §6.4, Algorithm R), so there are no tombstones and no allocation after `new`.

const EMPTY: u32 = u32::MAX;

/// One cell: key and value side by side, so a probe touches one cache line.
#[derive(Clone, Copy, Debug)]
struct Cell {
    key: u64,
    val: u32,
}

const VACANT: Cell = Cell { key: 0, val: EMPTY };

/// A hash index with room for `capacity` keys at load factor ≤ 1/2.
#[derive(Clone, Debug)]
pub struct KeyIndex {
    cells: Vec<Cell>,
    shift: u32,
    mask: usize,
}

impl KeyIndex {
    /// An index for up to `capacity` keys.
    pub fn new(capacity: usize) -> KeyIndex {
        let size = (capacity.max(1) * 2).next_power_of_two().max(8);
        KeyIndex {
            cells: vec![VACANT; size],
            shift: 64 - size.trailing_zeros(),
            mask: size - 1,
        }
    }

    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The cell at `i` (`i ≤ mask`).
    #[inline(always)]
    fn at(&self, i: usize) -> Cell {
        debug_assert!(i < self.cells.len());
        // SAFETY: every index used is `home(..)` (the top log2(n) bits of a 64-bit product,
        // < n) or masked with `mask = n − 1`, and `cells.len() == n` never changes.
        unsafe { *self.cells.get_unchecked(i) }
    }

    /// The cell at `i` (`i ≤ mask`), mutable.
    #[inline(always)]
    fn at_mut(&mut self, i: usize) -> &mut Cell {
        debug_assert!(i < self.cells.len());
        // SAFETY: as in `at`.
        unsafe { self.cells.get_unchecked_mut(i) }
    }

    /// Prefetches the home cell of `key` (a hint: a lookup of `key` follows soon).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        crate::lpm::prefetch(self.cells.as_ptr().wrapping_add(self.home(key)));
    }

    /// The slot in `key`'s home cell when that cell holds `key` — one load, no probing, so
    /// keys displaced by collisions read as absent. For prefetching only.
    #[inline(always)]
    pub fn peek(&self, key: u64) -> Option<u32> {
        let c = self.at(self.home(key));
        (c.key == key && c.val != EMPTY).then_some(c.val)
    }

    /// The slot stored for `key`.
    #[inline]
    pub fn get(&self, key: u64) -> Option<u32> {
        let mut i = self.home(key);
        loop {
            let c = self.at(i);
            if c.val == EMPTY {
                return None;
            }
            if c.key == key {
                return Some(c.val);
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Stores `key → val` (replacing an existing value). The caller keeps the number of keys
    /// within the capacity given to [`KeyIndex::new`].
    #[inline]
    pub fn insert(&mut self, key: u64, val: u32) {
        let mut i = self.home(key);
        while self.at(i).val != EMPTY && self.at(i).key != key {
            i = (i + 1) & self.mask;
        }
        *self.at_mut(i) = Cell { key, val };
    }

    /// Removes `key`, returning its slot.
    #[inline]
    pub fn remove(&mut self, key: u64) -> Option<u32> {
        let mut i = self.home(key);
        loop {
            let c = self.at(i);
            if c.val == EMPTY {
                return None;
            }
            if c.key == key {
                break;
            }
            i = (i + 1) & self.mask;
        }
        let v = self.at(i).val;
        // Backward shift: move later members of the cluster into the hole when allowed.
        let mut hole = i;
        let mut j = i;
        loop {
            j = (j + 1) & self.mask;
            let c = self.at(j);
            if c.val == EMPTY {
                break;
            }
            let h = self.home(c.key);
            // Entry j may move to `hole` if its home is not cyclically in (hole, j].
            if (j.wrapping_sub(h) & self.mask) >= (j.wrapping_sub(hole) & self.mask) {
                *self.at_mut(hole) = c;
                hole = j;
            }
        }
        *self.at_mut(hole) = VACANT;
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
