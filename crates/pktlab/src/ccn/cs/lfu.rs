//! LFU replacement for the content store, with the O(1) structure of Shah, Mitra & Matani,
//! "An O(1) algorithm for implementing the LFU cache eviction scheme" (2010): a list of
//! frequency nodes in increasing order, each holding the items with that count (most recent
//! first). A hit moves the item to the node for count+1; eviction takes the least recent item of
//! the lowest-count node. Counts are in-cache (forgotten on eviction). Frequency nodes come from
//! a pool of capacity+1 allocated up front.

use super::{ContentStore, KeyIndex};

const NIL: u32 = u32::MAX;

/// Least-frequently-used content store.
#[derive(Clone, Debug)]
pub struct Lfu {
    index: KeyIndex,
    keys: Vec<u64>,
    // Per item: its frequency node and neighbours within that node's list.
    node: Vec<u32>,
    iprev: Vec<u32>,
    inext: Vec<u32>,
    // Per frequency node: count, item list, neighbours in count order.
    freq: Vec<u64>,
    ihead: Vec<u32>,
    itail: Vec<u32>,
    nprev: Vec<u32>,
    nnext: Vec<u32>,
    nfirst: u32,
    nfree: u32,
    len: usize,
}

impl Lfu {
    /// An empty store of `capacity` entries.
    pub fn new(capacity: usize) -> Lfu {
        let nodes = capacity + 1;
        Lfu {
            index: KeyIndex::new(capacity),
            keys: vec![0; capacity],
            node: vec![NIL; capacity],
            iprev: vec![NIL; capacity],
            inext: vec![NIL; capacity],
            freq: vec![0; nodes],
            ihead: vec![NIL; nodes],
            itail: vec![NIL; nodes],
            nprev: vec![NIL; nodes],
            // Free list threaded through nnext.
            nnext: (1..=nodes as u32)
                .map(|i| if i as usize == nodes { NIL } else { i })
                .collect(),
            nfirst: NIL,
            nfree: 0,
            len: 0,
        }
    }

    /// A fresh node with count `f` linked after `after` (NIL = at the front).
    fn new_node(&mut self, f: u64, after: u32) -> u32 {
        let n = self.nfree;
        debug_assert_ne!(n, NIL);
        self.nfree = self.nnext[n as usize];
        self.freq[n as usize] = f;
        self.ihead[n as usize] = NIL;
        self.itail[n as usize] = NIL;
        let next = if after == NIL {
            self.nfirst
        } else {
            self.nnext[after as usize]
        };
        self.nprev[n as usize] = after;
        self.nnext[n as usize] = next;
        if after == NIL {
            self.nfirst = n;
        } else {
            self.nnext[after as usize] = n;
        }
        if next != NIL {
            self.nprev[next as usize] = n;
        }
        n
    }

    fn free_node(&mut self, n: u32) {
        let (p, x) = (self.nprev[n as usize], self.nnext[n as usize]);
        if p == NIL {
            self.nfirst = x;
        } else {
            self.nnext[p as usize] = x;
        }
        if x != NIL {
            self.nprev[x as usize] = p;
        }
        self.nnext[n as usize] = self.nfree;
        self.nfree = n;
    }

    /// Removes item `s` from its node's list (freeing the node when it empties); returns the
    /// node's predecessor if the node was freed, else the node itself.
    fn detach(&mut self, s: u32) -> u32 {
        let n = self.node[s as usize];
        let (p, x) = (self.iprev[s as usize], self.inext[s as usize]);
        if p == NIL {
            self.ihead[n as usize] = x;
        } else {
            self.inext[p as usize] = x;
        }
        if x == NIL {
            self.itail[n as usize] = p;
        } else {
            self.iprev[x as usize] = p;
        }
        if self.ihead[n as usize] == NIL {
            let before = self.nprev[n as usize];
            self.free_node(n);
            before
        } else {
            n
        }
    }

    fn attach(&mut self, s: u32, n: u32) {
        self.node[s as usize] = n;
        self.iprev[s as usize] = NIL;
        let h = self.ihead[n as usize];
        self.inext[s as usize] = h;
        if h == NIL {
            self.itail[n as usize] = s;
        } else {
            self.iprev[h as usize] = s;
        }
        self.ihead[n as usize] = s;
    }
}

impl ContentStore for Lfu {
    fn capacity(&self) -> usize {
        self.keys.len()
    }
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn lookup(&mut self, key: u64) -> Option<u32> {
        let s = self.index.get(key)?;
        let n = self.node[s as usize];
        let f = self.freq[n as usize] + 1;
        let anchor = self.detach(s);
        // The node for f follows `anchor` (the old node, or its predecessor if freed).
        let next = if anchor == NIL {
            self.nfirst
        } else {
            self.nnext[anchor as usize]
        };
        let target = if next != NIL && self.freq[next as usize] == f {
            next
        } else {
            self.new_node(f, anchor)
        };
        self.attach(s, target);
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
            let v = self.itail[self.nfirst as usize];
            self.detach(v);
            self.index.remove(self.keys[v as usize]);
            v
        };
        self.keys[s as usize] = key;
        self.index.insert(key, s);
        let first = self.nfirst;
        let target = if first != NIL && self.freq[first as usize] == 1 {
            first
        } else {
            self.new_node(1, NIL)
        };
        self.attach(s, target);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Against a brute-force LFU (min count, then least recent).
    #[test]
    fn matches_reference() {
        let mut lfu = Lfu::new(16);
        let mut cnt: HashMap<u64, (u64, u64)> = HashMap::new(); // key -> (count, last use)
        let mut x = 5u64;
        for t in 0..50_000u64 {
            x = crate::util::splitmix64(x);
            let k = (x % 64) * (x >> 60); // skewed
            let hit = lfu.lookup(k).is_some();
            assert_eq!(hit, cnt.contains_key(&k), "t={t}");
            if hit {
                let e = cnt.get_mut(&k).unwrap();
                e.0 += 1;
                e.1 = t;
            } else {
                if cnt.len() == 16 {
                    let (&v, _) = cnt.iter().min_by_key(|(_, &(c, l))| (c, l)).unwrap();
                    cnt.remove(&v);
                }
                cnt.insert(k, (1, t));
                lfu.insert(k);
            }
        }
    }
}
