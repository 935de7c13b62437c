//! FIFO replacement for the content store (Cefore's simplest CS policy, paper 003 §4): slots are
//! reused in insertion order; hits do not change the order.

use super::{ContentStore, KeyIndex};

/// First-in-first-out content store.
#[derive(Clone, Debug)]
pub struct Fifo {
    index: KeyIndex,
    keys: Vec<u64>,
    hand: usize,
    len: usize,
}

impl Fifo {
    /// An empty store of `capacity` entries.
    pub fn new(capacity: usize) -> Fifo {
        Fifo {
            index: KeyIndex::new(capacity),
            keys: vec![0; capacity],
            hand: 0,
            len: 0,
        }
    }
}

impl ContentStore for Fifo {
    fn capacity(&self) -> usize {
        self.keys.len()
    }
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn lookup(&mut self, key: u64) -> Option<u32> {
        self.index.get(key)
    }
    #[inline]
    fn insert(&mut self, key: u64) -> u32 {
        if let Some(s) = self.index.get(key) {
            return s;
        }
        let s = self.hand;
        if self.len == self.keys.len() {
            self.index.remove(self.keys[s]);
        } else {
            self.len += 1;
        }
        self.keys[s] = key;
        self.index.insert(key, s as u32);
        self.hand = if s + 1 == self.keys.len() { 0 } else { s + 1 };
        s as u32
    }
}
