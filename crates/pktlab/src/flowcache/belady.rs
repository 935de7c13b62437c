//! Belady's offline optimum (MIN, with bypass) for the same set structure: on an insertion into
//! a full set, evict whichever of the residents and the new key is next used farthest in the
//! future (the new key itself is then not cached). Paper 000 has no optimum; this gives the
//! bound any policy with the same sets and ways can reach (in the no-timing model it is a true
//! lower bound on misses; with delayed insertion it is the optimum of the same decisions).
//! Needs the future: the caller passes each packet's next-use index.

use super::{find, first_empty, Access, Policy, EMPTY};

/// Per-set Belady with each way's next-use index.
#[derive(Clone, Debug)]
pub struct Belady {
    keys: Vec<u32>,
    next: Vec<u64>,
    ways: usize,
}

impl Belady {
    /// An empty cache of `sets × ways` entries.
    pub fn new(sets: usize, ways: usize) -> Self {
        Belady {
            keys: vec![EMPTY; sets * ways.max(1)],
            next: vec![0; sets * ways.max(1)],
            ways: ways.max(1),
        }
    }
}

impl Policy for Belady {
    fn name(&self) -> String {
        "belady".into()
    }
    fn ways(&self) -> usize {
        self.ways
    }
    fn sets(&self) -> usize {
        self.keys.len() / self.ways
    }
    fn set_keys(&self, set: usize) -> &[u32] {
        &self.keys[set * self.ways..(set + 1) * self.ways]
    }
    #[inline(always)]
    fn access(&mut self, set: usize, key: u32, next_use: u64) -> Access {
        let r = set * self.ways..(set + 1) * self.ways;
        match find(&self.keys[r.clone()], key) {
            Some(i) => {
                self.next[r][i] = next_use;
                Access::Hit
            }
            None => Access::Miss,
        }
    }
    #[inline(always)]
    fn insert(&mut self, set: usize, key: u32, next_use: u64) {
        let r = set * self.ways..(set + 1) * self.ways;
        let w = &mut self.keys[r.clone()];
        let nx = &mut self.next[r];
        let victim = match first_empty(w, 0) {
            Some(e) => e,
            None => {
                let mut j = 0;
                for (k, &n) in nx.iter().enumerate() {
                    if n > nx[j] {
                        j = k;
                    }
                }
                let far = nx[j];
                if next_use >= far {
                    return; // bypass: the new key is the farthest
                }
                j
            }
        };
        w[victim] = key;
        nx[victim] = next_use;
    }
}
