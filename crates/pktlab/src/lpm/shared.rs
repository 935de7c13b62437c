//! Concurrent LPM: one updater and any number of lookup threads.
//!
//! The Poptrie paper (§3.5) updates a live table by building replacement nodes off to the
//! side and switching one pointer; its reference code then frees the old nodes at once, while
//! readers may still be inside them. pktlab uses the *left-right* scheme instead (crate
//! `left-right`): two copies of the table; readers use the published one, the updater applies
//! operations to the other, publishes it with one atomic pointer swap, waits until every
//! reader has left the previous copy (the grace period), and only then replays the same
//! operations on it. Readers never block, never see a half-applied update and never touch
//! memory being rewritten; the cost is twice the table memory and every update applied twice
//! (each application still rebuilding only what changed).

use super::Lpm;
use crate::net::{Address, NextHop, Prefix};
use left_right::{Absorb, ReadHandle, WriteHandle};
use std::marker::PhantomData;

/// A route change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op<A: Address> {
    /// Add or replace a route.
    Insert(Prefix<A>, NextHop),
    /// Withdraw a route.
    Remove(Prefix<A>),
}

/// One of the two copies held by left-right.
#[derive(Clone)]
struct Replica<T>(T);

impl<A: Address, T: Lpm<A> + Clone> Absorb<Op<A>> for Replica<T> {
    fn absorb_first(&mut self, op: &mut Op<A>, _: &Self) {
        match *op {
            Op::Insert(p, nh) => {
                self.0.insert(p, nh);
            }
            Op::Remove(p) => {
                self.0.remove(p);
            }
        }
    }

    fn sync_with(&mut self, first: &Self) {
        self.0 = first.0.clone();
    }
}

/// The updater's handle. Not `Clone`: there is one updater.
pub struct LpmWriter<A: Address, T: Lpm<A> + Clone> {
    w: WriteHandle<Replica<T>, Op<A>>,
    pending: usize,
}

/// A lookup thread's handle; clone it for each thread.
pub struct LpmReader<A: Address, T: Lpm<A> + Clone> {
    r: ReadHandle<Replica<T>>,
    _a: PhantomData<A>,
}

impl<A: Address, T: Lpm<A> + Clone> Clone for LpmReader<A, T> {
    fn clone(&self) -> Self {
        LpmReader {
            r: self.r.clone(),
            _a: PhantomData,
        }
    }
}

/// Wraps a built table for concurrent use.
pub fn concurrent<A: Address, T: Lpm<A> + Clone>(table: T) -> (LpmWriter<A, T>, LpmReader<A, T>) {
    let (mut w, r) = left_right::new_from_empty::<Replica<T>, Op<A>>(Replica(table));
    w.publish();
    (
        LpmWriter { w, pending: 0 },
        LpmReader { r, _a: PhantomData },
    )
}

impl<A: Address, T: Lpm<A> + Clone> LpmWriter<A, T> {
    /// Queues a change; readers see it after the next [`publish`](Self::publish).
    pub fn apply(&mut self, op: Op<A>) {
        self.w.append(op);
        self.pending += 1;
    }

    /// Makes every queued change visible to readers atomically. Returns the number published.
    pub fn publish(&mut self) -> usize {
        self.w.publish();
        std::mem::take(&mut self.pending)
    }
}

impl<A: Address, T: Lpm<A> + Clone> LpmReader<A, T> {
    /// Runs `f` on the currently published table (`None` once the writer is gone).
    pub fn with<R>(&self, f: impl FnOnce(&T) -> R) -> Option<R> {
        self.r.enter().map(|g| f(&g.0))
    }

    /// Batched lookup on the currently published table; false if the writer is gone.
    pub fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) -> bool {
        self.with(|t| t.lookup_batch(addrs, out)).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lpm::{Poptrie, PoptrieConfig};
    use crate::util::XorShift64;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// Readers hammer the table while the updater toggles routes; every answer must be one
    /// of the two legal ones (route present or absent) and stable addresses never change.
    #[test]
    fn concurrent_readers_never_see_torn_state() {
        let nh = |x| NextHop::new(x).unwrap();
        let mut base: Vec<(Prefix<u32>, NextHop)> = Vec::new();
        for i in 0..256u32 {
            base.push((Prefix::new_masked(i << 24, 8), nh(1 + i % 7)));
        }
        let mut t = Poptrie::<u32>::new(PoptrieConfig::new(16));
        t.build(&base);
        // Toggled routes: /24s and /28s inside 10/8 (next hop 1 + 10 % 7 = 4 when absent).
        let toggled: Vec<Prefix<u32>> = (0..64u32)
            .map(|i| Prefix::new_masked(0x0A00_0000 | (i << 12), if i % 2 == 0 { 24 } else { 28 }))
            .collect();
        let (mut w, r) = concurrent::<u32, _>(t);
        let stop = Arc::new(AtomicBool::new(false));
        let mut readers = Vec::new();
        for k in 0..2u64 {
            let r = r.clone();
            let stop = stop.clone();
            let toggled = toggled.clone();
            readers.push(std::thread::spawn(move || {
                let mut rng = XorShift64::new(k + 1);
                let mut addrs = vec![0u32; 64];
                let mut out = vec![None; 64];
                let mut batches = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    for a in addrs.iter_mut() {
                        let x = rng.next();
                        *a = if x & 1 == 0 {
                            toggled[(x >> 8) as usize % toggled.len()].first()
                                | ((x >> 40) as u32 & 0xF)
                        } else {
                            (x >> 32) as u32
                        };
                    }
                    assert!(r.lookup_batch(&addrs, &mut out));
                    for (a, o) in addrs.iter().zip(&out) {
                        let base_nh = nh(1 + (a >> 24) % 7);
                        let in_toggled = toggled.iter().any(|p| p.contains(*a));
                        if in_toggled {
                            assert!(*o == Some(base_nh) || *o == Some(nh(99)), "{a:x} {o:?}");
                        } else {
                            assert_eq!(*o, Some(base_nh), "{a:x}");
                        }
                    }
                    batches += 1;
                }
                batches
            }));
        }
        for round in 0..400 {
            for p in &toggled {
                w.apply(if round % 2 == 0 {
                    Op::Insert(*p, nh(99))
                } else {
                    Op::Remove(*p)
                });
            }
            w.publish();
        }
        stop.store(true, Ordering::Relaxed);
        for h in readers {
            assert!(h.join().unwrap() > 0);
        }
        // 400 rounds: even number, so every toggled route ends removed.
        r.with(|t| assert_eq!(t.lookup(0x0A00_0001), Some(nh(4))));
    }
}
