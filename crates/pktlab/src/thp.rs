//! Transparent huge pages for large lookup tables.
//!
//! A table of many MiB read at random (a Poptrie's leaves, SAIL's arrays, DIR-24-8's 64 MiB)
//! costs a TLB miss on most lookups when it lies on 4 KiB pages, and inside a virtual machine
//! every such miss walks two page tables. Data planes therefore put their tables on huge pages
//! (DPDK allocates everything from hugetlbfs). With the kernel's THP setting `madvise` (the
//! Debian default) an allocation gets 2 MiB pages only when asked for with
//! `madvise(MADV_HUGEPAGE)`; Rust's `Vec` never asks.
//!
//! [`ThpAllocator`] is a global allocator over [`System`] that asks for huge pages for every
//! allocation of at least [`HUGE`] bytes made inside [`huge_pages`]; a program opts in by
//! installing it (`#[global_allocator]`, as the `pktlab` binary does) and wrapping the builds
//! of its tables. A growing table is moved into fresh memory rather than `mremap`ped at each
//! reallocation, so that its pages are faulted in after the advice and can be huge. Outside
//! [`huge_pages`] it is [`System`] plus one relaxed atomic load per allocation.
//!
//! The advice is a hint: with THP `never`, or when the kernel has no free 2 MiB page, the
//! table stays on 4 KiB pages and nothing else changes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Allocations of at least this many bytes (one 2 MiB huge page) are advised.
pub const HUGE: usize = 2 << 20;

static SCOPES: AtomicUsize = AtomicUsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);
static ADVISED: AtomicUsize = AtomicUsize::new(0);

/// The global allocator that advises huge pages inside [`huge_pages`] (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct ThpAllocator;

#[inline]
fn active(size: usize) -> bool {
    if !INSTALLED.load(Ordering::Relaxed) {
        INSTALLED.store(true, Ordering::Relaxed);
    }
    size >= HUGE && SCOPES.load(Ordering::Relaxed) > 0
}

/// Advises the whole 2 MiB pages inside `p .. p + len` as huge-page candidates (only whole,
/// aligned 2 MiB pages can be huge); returns the bytes advised.
fn advise_range(p: *const u8, len: usize) -> usize {
    let start = (p as usize).next_multiple_of(HUGE);
    let end = (p as usize).saturating_add(len) / HUGE * HUGE;
    if p.is_null() || end <= start {
        return 0;
    }
    #[cfg(target_os = "linux")]
    {
        // SAFETY: the range lies inside one live allocation of this process (the caller's
        // contract); MADV_HUGEPAGE only changes how the kernel backs its pages, never their
        // contents.
        let r =
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        if r == 0 {
            ADVISED.fetch_add(end - start, Ordering::Relaxed);
            return end - start;
        }
    }
    0
}

/// Asks for huge pages on the whole 2 MiB pages inside `v`'s memory (best placed before the
/// memory is first written: pages already faulted in stay small until the kernel's
/// background collapse); returns the bytes advised. Works with any global allocator.
pub fn advise<T>(v: &[T]) -> usize {
    advise_range(v.as_ptr().cast(), std::mem::size_of_val(v))
}

// SAFETY: every method forwards to `System` with the caller's layout (or, for a large
// reallocation inside `huge_pages`, allocates a new block of the new layout, copies the
// old contents' common prefix and frees the old block, which is what `realloc` promises).
unsafe impl GlobalAlloc for ThpAllocator {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is System's.
        let p = unsafe { System.alloc(l) };
        if active(l.size()) {
            advise_range(p, l.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(l) };
        if active(l.size()) {
            advise_range(p, l.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` came from this allocator, i.e. from System, with layout `l`.
        unsafe { System.dealloc(p, l) }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if !active(new) {
            // SAFETY: the caller's contract for `realloc` is System's.
            return unsafe { System.realloc(p, l, new) };
        }
        // SAFETY: the caller guarantees `new` rounded up to `l.align()` does not overflow.
        let nl = unsafe { Layout::from_size_align_unchecked(new, l.align()) };
        // SAFETY: `nl` has a non-zero size (new >= HUGE).
        let q = unsafe { System.alloc(nl) };
        if q.is_null() {
            return q; // the old block stays valid, as realloc promises
        }
        advise_range(q, new);
        // SAFETY: both blocks are live, distinct, and at least min(old, new) bytes long.
        unsafe {
            std::ptr::copy_nonoverlapping(p, q, l.size().min(new));
            System.dealloc(p, l);
        }
        q
    }
}

/// Runs `f` with huge pages advised for its large allocations (and those of other threads
/// meanwhile). Nests; has an effect only when [`ThpAllocator`] is the global allocator.
pub fn huge_pages<R>(f: impl FnOnce() -> R) -> R {
    struct Scope;
    impl Drop for Scope {
        fn drop(&mut self) {
            SCOPES.fetch_sub(1, Ordering::Relaxed);
        }
    }
    SCOPES.fetch_add(1, Ordering::Relaxed);
    let _s = Scope;
    f()
}

/// True once an allocation went through [`ThpAllocator`], i.e. when it is the global
/// allocator of this program (any Rust program allocates before `main`).
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// Bytes advised so far (whether the kernel then backed them with huge pages is its call:
/// `AnonHugePages` in `/proc/self/smaps` tells).
pub fn advised_bytes() -> usize {
    ADVISED.load(Ordering::Relaxed)
}
