//! Fuzz target for the data structures that index memory without bounds checks: the cache
//! stores (`Linked`, `Small`) behind every replacement policy, the mbuf `Pool`/`PoolCache`,
//! and ZL-RED's occurrence table. The input is a sequence of operations, each applied both to
//! the structure and to a plain model (vectors, a hash map); after every operation their
//! whole observable states must agree. Operations the contract forbids (a key already
//! present, a full queue) are not issued, so a panic here is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pktlab::aqm::zlred::OccurrenceTable;
use pktlab::flowcache::store::{Layout, Linked, Small, Store};
use pktlab::mbuf::{Buf, Pool, PoolCache};
use pktlab_fuzz::Ops;
use std::collections::{HashMap, HashSet};

/// The model of one store: per set, per queue, the keys front → back with their metadata.
struct Model {
    layout: Layout,
    q: Vec<Vec<Vec<(u64, u8)>>>,
}

impl Model {
    fn ghost(&self, q: usize) -> bool {
        self.layout.ghost_mask >> q & 1 == 1
    }
    /// Entries of `set` in resident (false) or ghost (true) queues.
    fn used(&self, set: usize, ghost: bool) -> usize {
        (0..self.layout.queues)
            .filter(|&q| self.ghost(q) == ghost)
            .map(|q| self.q[set][q].len())
            .sum()
    }
    fn room(&self, set: usize, q: usize) -> bool {
        let cap = if self.ghost(q) {
            self.layout.ghosts
        } else {
            self.layout.ways
        };
        self.used(set, self.ghost(q)) < cap
    }
    fn find(&self, set: usize, key: u64) -> Option<(usize, usize)> {
        (0..self.layout.queues).find_map(|q| {
            self.q[set][q]
                .iter()
                .position(|e| e.0 == key)
                .map(|i| (q, i))
        })
    }
}

/// Checks that `s` holds exactly what `m` says.
fn same<S: Store<Meta = u8>>(s: &S, m: &Model) {
    for set in 0..m.layout.sets {
        for q in 0..m.layout.queues {
            let want = &m.q[set][q];
            assert_eq!(s.len(set, q), want.len(), "set {set} queue {q} length");
            let mut got = Vec::new();
            let mut h = s.front(set, q);
            while let Some(x) = h {
                assert!(
                    got.len() < want.len(),
                    "set {set} queue {q} longer than its length"
                );
                assert_eq!(s.queue(set, x), q);
                got.push((s.key(set, x), s.meta(set, x)));
                h = s.next(set, x);
            }
            assert_eq!(&got, want, "set {set} queue {q}");
            assert_eq!(
                s.back(set, q).map(|b| s.key(set, b)),
                want.last().map(|e| e.0)
            );
        }
    }
}

/// Drives a store of `layout` with the operations of `ops`.
fn store<S: Store<Meta = u8>>(ops: &mut Ops, layout: Layout) {
    let mut s = S::build(layout);
    let mut m = Model {
        layout,
        q: vec![vec![Vec::new(); layout.queues]; layout.sets],
    };
    let one = layout.queues == 1 && layout.ghost_mask == 0;
    for _ in 0..200 {
        let Some(op) = ops.byte() else { break };
        let set = ops.below(layout.sets).unwrap_or(0);
        // Keys are unique per set (the linked layout's index is shared by all sets).
        let key = (set * 64 + ops.below(24).unwrap_or(0)) as u64;
        let q = ops.below(layout.queues).unwrap_or(0);
        let meta = ops.byte().unwrap_or(0);
        let at = m.find(set, key);
        match op % 10 {
            0 | 1 if at.is_none() && m.room(set, q) => {
                let h = if op % 10 == 0 {
                    m.q[set][q].insert(0, (key, meta));
                    s.push_front(set, q, key, meta)
                } else {
                    m.q[set][q].push((key, meta));
                    s.push_back(set, q, key, meta)
                };
                assert_eq!(s.key(set, h), key);
            }
            2 | 3 => {
                let Some((from, i)) = at else { continue };
                if m.ghost(from) != m.ghost(q) && !m.room(set, q) {
                    continue;
                }
                let h = s.find(set, key).expect("present");
                let e = m.q[set][from].remove(i);
                let h = if op % 10 == 2 {
                    m.q[set][q].insert(0, e);
                    s.move_front(set, h, q)
                } else {
                    m.q[set][q].push(e);
                    s.move_back(set, h, q)
                };
                assert_eq!(s.key(set, h), key);
            }
            4 => {
                let Some((from, i)) = at else { continue };
                m.q[set][from].remove(i);
                let h = s.find(set, key).expect("present");
                s.remove(set, h);
                assert_eq!(s.find(set, key), None);
            }
            5 => {
                let Some((from, i)) = at else { continue };
                if i > 0 {
                    m.q[set][from].swap(i, i - 1);
                }
                let h = s.find(set, key).expect("present");
                s.swap_prev(set, h);
            }
            6 => {
                let Some((from, i)) = at else { continue };
                m.q[set][from][i].1 = meta;
                let h = s.find(set, key).expect("present");
                s.set_meta(set, h, meta);
            }
            7 if one => {
                let hit = s.touch(set, key);
                assert_eq!(hit, at.is_some());
                if let Some((_, i)) = at {
                    let e = m.q[set][0].remove(i);
                    m.q[set][0].insert(0, e);
                }
            }
            8 if one && at.is_none() => {
                s.insert_front(set, key, meta);
                let l = &mut m.q[set][0];
                if l.len() >= layout.ways {
                    l.pop();
                }
                l.insert(0, (key, meta));
            }
            9 if one => {
                let hit = s.touch_front(set, key);
                assert_eq!(hit, at.is_some());
                let l = &mut m.q[set][0];
                match at {
                    Some((_, i)) => {
                        let e = l.remove(i);
                        l.insert(0, e);
                    }
                    None => {
                        if l.len() >= layout.ways {
                            l.pop();
                        }
                        l.insert(0, (key, 0));
                    }
                }
            }
            _ => {}
        }
        same(&s, &m);
        // Every model key is found, every absent one is not.
        for k in 0..24u64 {
            let key = set as u64 * 64 + k;
            assert_eq!(s.find(set, key).is_some(), m.find(set, key).is_some());
        }
    }
}

/// Drives a pool through a cache against a model: who holds which element.
fn pool(ops: &mut Ops) {
    let count = 1 + ops.below(64).unwrap_or(0) as u32;
    let p = Pool::new(count, 64, 64, ops.byte().unwrap_or(0) & 1 == 1);
    let mut c = PoolCache::new(1 + ops.below(16).unwrap_or(0));
    let mut held: Vec<Buf> = Vec::new();
    for _ in 0..200 {
        let Some(op) = ops.byte() else { break };
        let n = ops.below(40).unwrap_or(0);
        match op % 4 {
            0 => {
                let before = held.len();
                if c.get_bulk(&p, n, &mut held) {
                    assert_eq!(held.len(), before + n);
                    // A fresh element is ours: stamp it with its index.
                    for b in &mut held[before..] {
                        let i = b.index();
                        p.data_mut(b)[..4].copy_from_slice(&i.to_le_bytes());
                    }
                } else {
                    assert_eq!(held.len(), before);
                }
            }
            1 => {
                let k = n.min(held.len());
                let mut back: Vec<Buf> = held.drain(held.len() - k..).collect();
                c.put_bulk(&p, &mut back);
                assert!(back.is_empty());
            }
            2 => {
                let before = held.len();
                if !p.take(n, &mut held) {
                    assert_eq!(held.len(), before);
                }
                for b in &mut held[before..] {
                    let i = b.index();
                    p.data_mut(b)[..4].copy_from_slice(&i.to_le_bytes());
                }
            }
            _ => {
                let k = n.min(held.len());
                p.give(held.drain(held.len() - k..));
            }
        }
        // Conservation, uniqueness, and every held element still carries its own stamp.
        assert_eq!(held.len() + c.len() + p.common_len(), count as usize);
        let mut seen = HashSet::new();
        for b in &held {
            assert!(seen.insert(b.index()), "element {} held twice", b.index());
            assert_eq!(p.data(b)[..4], b.index().to_le_bytes());
        }
    }
    c.put_bulk(&p, &mut held);
    c.flush_all(&p);
    assert_eq!(p.common_len(), count as usize);
}

/// Drives an occurrence table against a `HashMap`, never past its `m` live flows.
fn occurrence(ops: &mut Ops) {
    let m = 1 + ops.below(40).unwrap_or(0);
    let mut t = OccurrenceTable::new(m);
    let mut model: HashMap<u64, u64> = HashMap::new();
    for _ in 0..400 {
        let Some(op) = ops.byte() else { break };
        // Ids that collide in the home bucket: multiples of a large power of two.
        let id = (ops.below(3 * m).unwrap_or(0) as u64).wrapping_mul(if op & 0x80 != 0 {
            1 << 40
        } else {
            0x9E37_79B9
        });
        let d = 1 + ops.below(5).unwrap_or(0) as u64;
        match op % 3 {
            0 if model.contains_key(&id) || model.len() < m => {
                let v = model.entry(id).or_insert(0);
                *v += d;
                assert_eq!(t.add(id, d), *v);
            }
            1 => {
                if let Some(v) = model.get_mut(&id) {
                    let d = d.min(*v);
                    *v -= d;
                    if *v == 0 {
                        model.remove(&id);
                    }
                    t.sub(id, d);
                } else {
                    t.sub(id, d);
                }
            }
            _ => {}
        }
        assert_eq!(t.get(id), model.get(&id).copied().unwrap_or(0));
        assert_eq!(t.len(), model.len());
        for (&k, &v) in &model {
            assert_eq!(t.get(k), v, "F({k})");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut ops = Ops(data);
    let Some(which) = ops.byte() else { return };
    match which % 4 {
        0 | 1 => {
            let sets = 1 + ops.below(3).unwrap_or(0);
            let ways = 1 + ops.below(8).unwrap_or(0);
            let queues = 1 + ops.below(3).unwrap_or(0);
            let ghosts = if queues > 1 {
                ops.below(5).unwrap_or(0)
            } else {
                0
            };
            let layout = Layout {
                sets,
                ways,
                ghosts,
                queues,
                // The last queue is a ghost queue when there are ghost slots.
                ghost_mask: if ghosts > 0 { 1 << (queues - 1) } else { 0 },
                heap: false,
            };
            if which % 4 == 0 {
                store::<Linked<u8>>(&mut ops, layout);
            } else {
                store::<Small<u8>>(&mut ops, layout);
            }
        }
        2 => pool(&mut ops),
        _ => occurrence(&mut ops),
    }
});
