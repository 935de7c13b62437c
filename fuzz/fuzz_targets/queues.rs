//! Fuzz target for the data plane's per-packet structures that index memory without bounds
//! checks (beyond the stores, the pool and the occurrence table of `structures`):
//!
//! * the output queue: a `Link` (its ownership bitmap, `park` and the `unsafe park_raw`) in
//!   front of any of the seven disciplines (their rings, zombie lists, flow queues), fed
//!   batches of packets with non-decreasing timestamps. Model: the set of parked buffers and,
//!   per flow, the order of arrival. After every batch each departure is the oldest surviving
//!   packet of its flow, each drop a parked buffer, and every buffer is either parked, free
//!   or returned once; after the drain nothing is parked and the pool is whole (nothing lost,
//!   nothing twice).
//! * the next-hop cache under every policy and set width (the 4/8/16-way probes read their
//!   set without index checks), through `lookup`, `fill`, `set_epoch` and `lookup_batch`.
//!   Model: the last fill of each cache key. A lookup returns 0 or exactly the next hop of
//!   that fill, for the same address, family and epoch; a batch leaves the packets it does
//!   not look up alone and lists exactly its misses; the hit and miss counters add up.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pktlab::aqm::{Aqm, AqmParamSet, AqmSpec, Drops};
use pktlab::mbuf::{Buf, Pool};
use pktlab::pipeline::nhcache::{AnyCache, NextHopCache, WayPolicy};
use pktlab::pipeline::parse::Hdr;
use pktlab::pipeline::queue::{Link, QPkt};
use pktlab_fuzz::Ops;
use std::collections::{HashMap, HashSet, VecDeque};

/// Flows of the queue part (few, so that flows share queues and the per-flow order matters).
const FLOWS: usize = 6;

/// The queue part's model, and the buffers between calls.
struct Model {
    /// Departures and drops of the last `offer_all`/`drain` call.
    out: Vec<QPkt>,
    freed: Vec<Buf>,
    /// Buffers in the queue (raw indices), and per flow the queued ones in arrival order.
    parked: HashSet<u32>,
    order: Vec<VecDeque<u32>>,
    /// Buffers out of the queue, for the next packets.
    free: Vec<Buf>,
    /// Drops so far.
    dropped: u64,
}

impl Model {
    /// Checks the last call's departures and drops against the model and takes their
    /// buffers back into `free`.
    fn settle(&mut self, link: &mut Link) {
        // A dropped packet never departs, so removing the drops first leaves each flow's
        // survivors in arrival order.
        for b in self.freed.drain(..) {
            let raw = b.index();
            assert!(
                self.parked.remove(&raw),
                "buffer {raw} dropped but not parked"
            );
            for q in self.order.iter_mut() {
                q.retain(|&r| r != raw);
            }
            self.free.push(b);
            self.dropped += 1;
        }
        for p in self.out.drain(..) {
            assert!(
                self.parked.remove(&p.buf),
                "buffer {} departed but not parked",
                p.buf
            );
            let q = &mut self.order[p.flow as usize];
            assert_eq!(
                q.pop_front(),
                Some(p.buf),
                "flow {}: departure out of order",
                p.flow
            );
            self.free.push(link.unpark(p.buf));
        }
        assert_eq!(link.drops, self.dropped, "drop count");
    }
}

/// Drives a link and a discipline with batches of packets, against the model.
fn queue(ops: &mut Ops) {
    let count = 16 + ops.below(240).unwrap_or(0) as u32;
    let pool = Pool::new(count, 0, 64, false);
    let mut m = Model {
        out: Vec::new(),
        freed: Vec::new(),
        parked: HashSet::new(),
        order: vec![VecDeque::new(); FLOWS],
        free: Vec::new(),
        dropped: 0,
    };
    assert!(pool.take(count as usize, &mut m.free));
    let name = AqmSpec::KNOWN
        .split(", ")
        .nth(ops.below(7).unwrap_or(0))
        .unwrap();
    let buffer = 1 + ops.below(48).unwrap_or(0);
    let rate = [1_000_000, 100_000_000, 10_000_000_000, 400_000_000_000][ops.below(4).unwrap_or(0)];
    let mut link = Link::new(rate, count);
    let spec = AqmSpec::parse_with(name, &AqmParamSet::default()).unwrap();
    let seed = ops.byte().unwrap_or(0) as u64;
    let mut disc = spec.build::<QPkt>(buffer, link.pkt_time(), seed).unwrap();
    let mut drops = Drops::default();
    let (mut ts, mut batch, mut raws) = (0u64, Vec::new(), Vec::new());
    for _ in 0..64 {
        let Some(op) = ops.byte() else { break };
        let n = (op as usize % 33).min(m.free.len());
        // Half the batches park their buffers one by one, half at once (`park_raw`).
        let at_once = op & 0x40 != 0;
        batch.clear();
        raws.clear();
        for _ in 0..n {
            let b = m.free.pop().unwrap();
            ts += ops.below(4000).unwrap_or(0) as u64;
            let flow = ops.below(FLOWS).unwrap_or(0) as u32;
            let buf = if at_once {
                let r = b.into_raw();
                raws.push(r);
                r
            } else {
                link.park(b)
            };
            assert!(m.parked.insert(buf));
            m.order[flow as usize].push_back(buf);
            batch.push(QPkt {
                buf,
                len: 60 + ops.below(1455).unwrap_or(0) as u16,
                flow,
                pair: flow as u64 * 0x1_0000_0001,
                ts,
            });
        }
        if at_once {
            // SAFETY: each index is `into_raw` of a handle of `pool` taken above, whose
            // handle is not used again; only `unpark` (in `settle`) rebuilds it.
            unsafe { link.park_raw(pool.id(), &raws) };
        }
        link.offer_all(&mut disc, &mut drops, &batch, &mut m.out, &mut m.freed);
        m.settle(&mut link);
        assert_eq!(m.parked.len(), disc.len_pkts(), "{name}: queued packets");
    }
    link.drain(&mut disc, &mut drops, &mut m.out, &mut m.freed);
    m.settle(&mut link);
    assert!(
        m.parked.is_empty(),
        "{name}: {} buffers still parked",
        m.parked.len()
    );
    assert_eq!(disc.len_pkts(), 0);
    pool.give(m.free);
    assert_eq!(pool.common_len(), count as usize, "{name}: buffers lost");
}

/// The cache key of an RSS hash (as the cache maps the one reserved value).
fn key_of(rss: u32) -> u32 {
    rss.min(u32::MAX - 1)
}

/// Drives one next-hop cache against the model.
fn drive<P: WayPolicy>(c: &mut NextHopCache<P>, ops: &mut Ops) {
    // Per cache key, the last fill: (IPv6?, destination, next hop, epoch).
    let mut last: HashMap<u32, (bool, u128, u32, u32)> = HashMap::new();
    let mut epoch = 0u32;
    let valid = |last: &HashMap<u32, (bool, u128, u32, u32)>, epoch, rss, v6, dst, got| {
        if got != 0 {
            let want = last.get(&key_of(rss)).copied();
            assert_eq!(
                want,
                Some((v6, dst, got, epoch)),
                "rss {rss:#x}: a hit on {got}"
            );
        }
    };
    // Hashes that share sets, the reserved value and its stand-in.
    let hash = |x: usize| match x {
        0 => u32::MAX,
        1 => u32::MAX - 1,
        x => (x as u32).wrapping_mul(0x0100_0193) ^ ((x as u32) << 28),
    };
    for _ in 0..300 {
        let Some(op) = ops.byte() else { break };
        let rss = hash(ops.below(24).unwrap_or(0));
        let v6 = op & 0x80 != 0;
        let dst = ops.below(3).unwrap_or(0) as u128 | (v6 as u128) << 100;
        let (h0, m0) = (c.hits(), c.misses());
        match op % 8 {
            0..=2 => {
                let got = c.lookup(rss, v6, dst);
                valid(&last, epoch, rss, v6, dst, got);
                assert_eq!(
                    (c.hits() - h0, c.misses() - m0),
                    ((got != 0) as u64, (got == 0) as u64)
                );
            }
            3 | 4 => {
                let nh = 1 + ops.below(250).unwrap_or(0) as u32;
                c.fill(rss, v6, dst, nh);
                last.insert(key_of(rss), (v6, dst, nh, epoch));
            }
            5 => {
                epoch = ops.below(3).unwrap_or(0) as u32;
                c.set_epoch(epoch);
            }
            _ => {
                let n = ops.below(40).unwrap_or(0);
                let mut ok = vec![false; n];
                let mut hdr = vec![Hdr::default(); n];
                let mut rss = vec![0u32; n];
                for i in 0..n {
                    let b = ops.byte().unwrap_or(0);
                    ok[i] = b & 3 != 0;
                    rss[i] = hash(b as usize % 24);
                    hdr[i].v6 = b & 0x80 != 0;
                    hdr[i].dst = (b as u128 >> 5 & 3) | (hdr[i].v6 as u128) << 100;
                }
                const UNTOUCHED: u32 = 0xDEAD_BEEF;
                let mut nh = vec![UNTOUCHED; n];
                let mut miss = vec![u32::MAX; n];
                let k = c.lookup_batch(&ok, &hdr, &rss, &mut nh, &mut miss);
                let mut want = Vec::new();
                for i in 0..n {
                    if ok[i] {
                        valid(&last, epoch, rss[i], hdr[i].v6, hdr[i].dst, nh[i]);
                        if nh[i] == 0 {
                            want.push(i as u32);
                        }
                    } else {
                        assert_eq!(nh[i], UNTOUCHED, "packet {i} not looked up but written");
                    }
                }
                assert_eq!(&miss[..k], &want[..], "miss list");
                let looked = ok.iter().filter(|&&o| o).count() as u64;
                assert_eq!(
                    (c.hits() - h0, c.misses() - m0),
                    (looked - k as u64, k as u64)
                );
            }
        }
    }
}

/// Builds a next-hop cache of an input-chosen policy, size and set width, and drives it.
fn nhcache(ops: &mut Ops) {
    let policy =
        ["lru", "slru", "spc", "random", "fifo", "hpc4", "hpc2"][ops.below(7).unwrap_or(0)];
    let ways =
        [None, Some(1), Some(2), Some(3), Some(4), Some(8), Some(16)][ops.below(7).unwrap_or(0)];
    let entries = 1 << ops.below(8).unwrap_or(0);
    let seed = ops.byte().unwrap_or(0) as u64;
    // Some combinations are refused with an error (too many ways for a policy's store).
    let Ok(cache) = AnyCache::new(policy, entries, ways, seed) else {
        return;
    };
    match cache {
        AnyCache::Lru(mut c) => drive(&mut c, ops),
        AnyCache::Slru(mut c) => drive(&mut c, ops),
        AnyCache::Hpc(mut c) => drive(&mut c, ops),
        AnyCache::HpcWide(mut c) => drive(&mut c, ops),
        AnyCache::Spc(mut c) => drive(&mut c, ops),
        AnyCache::Random(mut c) => drive(&mut c, ops),
        AnyCache::Fifo(mut c) => drive(&mut c, ops),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut ops = Ops(data);
    match ops.byte() {
        Some(b) if b % 2 == 0 => queue(&mut ops),
        Some(_) => nhcache(&mut ops),
        None => {}
    }
});
