//! The data plane does not allocate per packet: replaying the same input four times instead
//! of once (three times more packets through every stage) adds no allocation beyond a small
//! constant, for each metadata layout and stage set.

use pktlab::mbuf::MetaKind;
use pktlab::pipeline::Stages;
use pktlab::port::RxSpec;
use pktlab_lab::forward::{forward, ForwardConfig, TableSpec};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwards to the system allocator with the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwards to the system allocator with the caller's layout.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` was allocated by `System` with layout `l`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: `p` was allocated by `System` with layout `l`.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn allocs(cfg: &ForwardConfig) -> (u64, u64) {
    let before = ALLOCS.load(Ordering::Relaxed);
    let r = forward(cfg, &pktlab_lab::Silent).unwrap();
    (ALLOCS.load(Ordering::Relaxed) - before, r.packets)
}

#[test]
fn no_allocation_per_packet() {
    for (stages, meta, rx) in [
        (Stages::Io, MetaKind::Dpdk, RxSpec::Null(64)),
        (Stages::Io, MetaKind::CompactAlloc, RxSpec::Synthetic),
        (Stages::Full, MetaKind::CompactConst, RxSpec::Synthetic),
        (Stages::Full, MetaKind::Dpdk, RxSpec::Synthetic),
        (Stages::L3, MetaKind::CompactAlloc, RxSpec::Synthetic),
    ] {
        let cfg = |repeat| ForwardConfig {
            table: TableSpec::Synthetic(50_000, 10_000),
            rx: rx.clone(),
            stages,
            meta,
            packets: 20_000,
            repeat,
            batch: 128,
            ..ForwardConfig::default()
        };
        let (a1, p1) = allocs(&cfg(1));
        let (a4, p4) = allocs(&cfg(4));
        assert_eq!(p4, 4 * p1);
        assert!(
            a4 <= a1 + 8,
            "{stages:?} {meta:?}: allocations {a1} → {a4} for {p1} → {p4} packets"
        );
    }
}
