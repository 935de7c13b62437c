//! The simulator does not allocate per packet: doubling the simulated time (tens of thousands
//! more packets) adds only a handful of allocations (buffers reaching their high-water mark).

use pktlab::aqm::{AqmSpec, RedParams, ZlRedParams};
use pktlab::netsim::scenarios::dumbbell::{run, DumbbellConfig};
use pktlab::netsim::SEC;
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
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` was allocated by `System.alloc` with layout `l`.
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

fn allocs_for(secs: u64, aqm: AqmSpec) -> (u64, u64) {
    allocs_with(DumbbellConfig {
        duration: secs * SEC,
        warmup: SEC,
        aqm,
        ..DumbbellConfig::default()
    })
}

fn allocs_with(cfg: DumbbellConfig) -> (u64, u64) {
    let before = ALLOCS.load(Ordering::Relaxed);
    let r = run(&cfg).unwrap();
    (ALLOCS.load(Ordering::Relaxed) - before, r.events)
}

#[test]
fn no_allocation_per_packet() {
    for aqm in [AqmSpec::DropTail, AqmSpec::Red(RedParams::default())] {
        let (a1, e1) = allocs_for(8, aqm.clone());
        let (a2, e2) = allocs_for(16, aqm);
        assert!(e2 > e1 + 50_000, "{e1} {e2}");
        assert!(
            a2 <= a1 + 16,
            "allocations {a1} → {a2} for {e1} → {e2} events"
        );
    }
    cubic_bbr_sack_ecn();
}

/// Run inside [`no_allocation_per_packet`]: the counting allocator is global, so two tests
/// running in parallel would count each other's allocations.
fn cubic_bbr_sack_ecn() {
    let cfg = |secs| {
        let mut c = DumbbellConfig {
            reno: 0,
            vegas: 0,
            cubic: 5,
            bbr: 5,
            duration: secs * SEC,
            warmup: SEC,
            aqm: AqmSpec::ZlRed(ZlRedParams::default()),
            ..DumbbellConfig::default()
        };
        c.tcp.sack = true;
        c.tcp.ecn = true;
        c
    };
    let (a1, e1) = allocs_with(cfg(8));
    let (a2, e2) = allocs_with(cfg(16));
    assert!(e2 > e1 + 50_000, "{e1} {e2}");
    assert!(
        a2 <= a1 + 16,
        "allocations {a1} → {a2} for {e1} → {e2} events"
    );
}
