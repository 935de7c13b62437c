//! LRU replacement for the content store (the policy of Che's approximation, Che, Tung & Wang,
//! IEEE JSAC 2002, used in paper 003's evaluation setting): an intrusive doubly linked list over
//! slots, most recent at the head; hits move to the head, the tail is evicted.

use super::{ContentStore, KeyIndex};

const NIL: u32 = u32::MAX;

/// Least-recently-used content store.
#[derive(Clone, Debug)]
pub struct Lru {
    index: KeyIndex,
    keys: Vec<u64>,
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
    len: usize,
}

impl Lru {
    /// An empty store of `capacity` entries.
    pub fn new(capacity: usize) -> Lru {
        Lru {
            index: KeyIndex::new(capacity),
            keys: vec![0; capacity],
            prev: vec![NIL; capacity],
            next: vec![NIL; capacity],
            head: NIL,
            tail: NIL,
            len: 0,
        }
    }

    #[inline]
    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
    }

    #[inline]
    fn push_front(&mut self, s: u32) {
        self.prev[s as usize] = NIL;
        self.next[s as usize] = self.head;
        if self.head != NIL {
            self.prev[self.head as usize] = s;
        } else {
            self.tail = s;
        }
        self.head = s;
    }
}

impl ContentStore for Lru {
    fn capacity(&self) -> usize {
        self.keys.len()
    }
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn lookup(&mut self, key: u64) -> Option<u32> {
        let s = self.index.get(key)?;
        if self.head != s {
            self.unlink(s);
            self.push_front(s);
        }
        Some(s)
    }
    #[inline]
    fn insert(&mut self, key: u64) -> u32 {
        if let Some(s) = self.lookup(key) {
            return s;
        }
        let s = if self.len < self.keys.len() {
            self.len += 1;
            (self.len - 1) as u32
        } else {
            let v = self.tail;
            self.unlink(v);
            self.index.remove(self.keys[v as usize]);
            v
        };
        self.keys[s as usize] = key;
        self.index.insert(key, s);
        self.push_front(s);
        s
    }
}
