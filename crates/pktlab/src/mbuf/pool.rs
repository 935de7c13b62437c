//! The buffer pool and its per-worker cache (paper 001, "バッファプールから確保・解放 (DPDK)":
//! the DPDK mempool that both the `dpdk` layout and the compact layouts allocate from).
//!
//! * [`Pool`]: one contiguous, 64-byte-aligned arena of `count` fixed-size elements, allocated
//!   and pre-faulted once, plus a common free list (a stack of indices behind a mutex, touched
//!   only in bulk — DPDK uses a lock-free ring there; either way no lock is taken per packet).
//!   Element sizes are rounded up to whole cache lines and, as DPDK's `optimize_object_size`
//!   does for 4 memory channels, to an odd number of lines so that consecutive buffers spread
//!   over all L1 sets.
//! * [`PoolCache`]: a worker's LIFO stack of free elements with DPDK's mempool-cache rules
//!   (`rte_mempool_do_generic_get/put`, DPDK 22.11): a get that the stack cannot serve refills
//!   it from the common list up to `size` beyond the request; a put that would pass the flush
//!   threshold (1.5 × `size`) first flushes the whole stack; requests larger than the cache
//!   go to the common list directly.
//! * [`Buf`]: the handle of one element. It is neither `Clone` nor `Copy`: whoever holds a
//!   `Buf` owns the element, so `&mut Buf` is exclusive access to its bytes and the pool can
//!   hand out `&mut [u8]` safely across threads. A handle carries the id of the pool that
//!   made it (unique per process), and every access checks it: a `Buf` of another pool
//!   panics instead of reaching a different arena. A [`PoolCache`] binds to the pool it
//!   holds elements of, so it cannot fill from one pool and drain into another.
//!
//! All sizes are checked at construction (`Pool::new` panics on arithmetic overflow) and
//! at every header access, so no offset computation wraps in release builds either.

use std::alloc::{alloc_zeroed, dealloc, Layout as AllocLayout};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// The id the next pool gets (0 is never used: it marks an unbound [`PoolCache`]).
static NEXT_POOL_ID: AtomicU32 = AtomicU32::new(1);

/// A fresh pool id; panics after 2^32 − 1 pools (ids must never repeat).
fn next_pool_id() -> u32 {
    let id = NEXT_POOL_ID
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |i| i.checked_add(1))
        .expect("more than 2^32 - 1 buffer pools created in this process");
    debug_assert!(id != 0);
    id
}

/// Cache-line size the pool aligns to.
pub const LINE: usize = 64;

/// The handle of one pool element (an mbuf, or a metadata block). Owning it is owning the
/// element; it returns to the pool through [`PoolCache::put_bulk`] / [`Pool::give`]. It
/// names its pool: using it with another pool panics.
///
/// Invariant: a handle's index is below its pool's element count. Every handle is made by
/// its pool (`Pool::new`), by [`Buf::from_raw`] (checked) or by [`Buf::from_raw_id`] (whose
/// contract is the index of a handle of that pool), and pool ids never repeat in a process,
/// so the pool's accessors check only the id.
#[derive(Debug, PartialEq, Eq)]
pub struct Buf {
    idx: u32,
    pool: u32,
}

impl Buf {
    /// The element's index in its pool.
    #[inline(always)]
    pub fn index(&self) -> u32 {
        self.idx
    }

    /// Gives up the handle for its raw index (e.g. to store it in a `Copy` queue entry);
    /// [`Buf::from_raw`] with the same pool gets it back.
    #[inline(always)]
    pub fn into_raw(self) -> u32 {
        self.idx
    }

    /// Id of the pool the handle belongs to (unique per process, never 0).
    #[inline(always)]
    pub fn pool_id(&self) -> u32 {
        self.pool
    }

    /// Rebuilds a handle from [`Buf::into_raw`] and the [`Buf::pool_id`] of the handle.
    ///
    /// # Safety
    /// As [`Buf::from_raw`]: `raw` and `pool_id` come from one handle given up with
    /// `into_raw` (so `raw` is below that pool's element count: the pool's accessors rely on
    /// it), and no other `Buf` with that index exists (two handles of one element alias).
    #[inline(always)]
    pub unsafe fn from_raw_id(pool_id: u32, raw: u32) -> Buf {
        Buf {
            idx: raw,
            pool: pool_id,
        }
    }

    /// Rebuilds a handle of `pool` from [`Buf::into_raw`]. Panics if `raw` is not an element
    /// of `pool`.
    ///
    /// # Safety
    /// `raw` must come from `into_raw` of a handle of `pool`, and no other `Buf` with that
    /// index may exist (each `into_raw` is matched by at most one `from_raw`): two handles of
    /// one element would give two `&mut [u8]` over the same bytes.
    #[inline(always)]
    pub unsafe fn from_raw(pool: &Pool, raw: u32) -> Buf {
        assert!(
            raw < pool.count,
            "buffer {raw} is not an element of this pool"
        );
        Buf {
            idx: raw,
            pool: pool.id,
        }
    }
}

/// One contiguous arena of fixed-size elements and the common free list.
pub struct Pool {
    base: *mut u8,
    alloc: AllocLayout,
    stride: usize,
    data_off: usize,
    data_room: usize,
    count: u32,
    /// This pool's id, carried by each of its [`Buf`]s.
    id: u32,
    // Boxed so that `Pool` itself holds no `UnsafeCell`: a `&Pool` is then read-only to the
    // optimiser, which keeps `base`/`stride` in registers across packet writes.
    common: Box<Mutex<Vec<Buf>>>,
}

// SAFETY: the arena is only reached through `Buf` handles, which are unique (not Clone/Copy,
// created only by the pool, checked against the pool's id on every access): a `&mut Buf`
// gives exclusive access to its element, a `&Buf` shared read access, so threads never race
// on an element. The free list is behind a Mutex.
unsafe impl Send for Pool {}
// SAFETY: as above.
unsafe impl Sync for Pool {}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("count", &self.count)
            .field("stride", &self.stride)
            .field("data_off", &self.data_off)
            .field("data_room", &self.data_room)
            .finish()
    }
}

/// Rounds `bytes` up to whole lines and, when `spread`, to an odd number of lines; `None` if
/// that overflows `usize`.
fn element_stride(bytes: usize, spread: bool) -> Option<usize> {
    let mut lines = bytes.div_ceil(LINE).max(1);
    if spread && lines.is_multiple_of(2) {
        lines += 1;
    }
    lines.checked_mul(LINE)
}

impl Pool {
    /// A pool of `count` elements, each `data_off + data_room` bytes (rounded up as the module
    /// doc says, odd line counts when `spread`); `data_off` bytes precede the data room
    /// (object header, mbuf metadata, headroom). All elements start free and zeroed, and
    /// every page is touched here so that no page fault happens later.
    ///
    /// Panics if `count` is 0, a size overflows `usize` or the arena does not fit in memory
    /// (a setup error).
    pub fn new(count: u32, data_off: usize, data_room: usize, spread: bool) -> Pool {
        assert!(count > 0, "a pool needs at least one element");
        let elem = data_off
            .checked_add(data_room)
            .expect("pool element size overflows usize");
        let stride = element_stride(elem, spread).expect("pool element size overflows usize");
        let bytes = stride
            .checked_mul(count as usize)
            .expect("pool size overflows usize");
        let alloc = AllocLayout::from_size_align(bytes, LINE).expect("pool layout");
        // SAFETY: the layout has a non-zero size (count > 0, stride >= 64).
        let base = unsafe { alloc_zeroed(alloc) };
        assert!(!base.is_null(), "cannot allocate a {bytes}-byte pool");
        // Pre-fault: write every page once.
        for off in (0..bytes).step_by(4096) {
            // SAFETY: `off < bytes`, inside the allocation just made.
            unsafe { base.add(off).write_volatile(0) };
        }
        let id = next_pool_id();
        let common = (0..count).rev().map(|idx| Buf { idx, pool: id }).collect();
        Pool {
            base,
            alloc,
            stride,
            data_off,
            data_room,
            count,
            id,
            common: Box::new(Mutex::new(common)),
        }
    }

    /// This pool's id: the [`Buf::pool_id`] of its handles (unique per process, never 0).
    #[inline(always)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Elements in the pool.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Bytes from one element to the next.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Bytes of the data room of each element.
    pub fn data_room(&self) -> usize {
        self.data_room
    }

    /// Total bytes of the arena.
    pub fn arena_bytes(&self) -> usize {
        self.alloc.size()
    }

    /// Elements currently in the common free list (not counting workers' caches).
    pub fn common_len(&self) -> usize {
        // A panic while the list was locked (a refused foreign handle in `give`) leaves it
        // whole: every push is of a checked handle.
        self.common.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Start of the element of `b`; panics if `b` is not a handle of this pool.
    ///
    /// Only the pool id is compared: a handle's index is below its pool's element count by
    /// construction (see [`Buf`]), and pool ids never repeat in a process, so a handle that
    /// names this pool indexes inside it.
    #[inline(always)]
    fn elem(&self, b: &Buf) -> *mut u8 {
        assert!(
            b.pool == self.id,
            "buffer {} of pool {} used with pool {}",
            b.idx,
            b.pool,
            self.id
        );
        debug_assert!(b.idx < self.count);
        // SAFETY: `b` is a handle of this pool, so `b.idx < count` (the handle invariant of
        // [`Buf`]) and `idx × stride` stays inside the arena, as in `elem_at`.
        unsafe { self.base.add(b.idx as usize * self.stride) }
    }

    /// Start of element `i` (`i < count`, checked).
    #[inline(always)]
    fn elem_at(&self, i: u32) -> *mut u8 {
        assert!(i < self.count);
        // SAFETY: i < count, so `i × stride < count × stride`, the arena's size (which
        // `new` computed with checked arithmetic): the offset stays inside the allocation.
        unsafe { self.base.add(i as usize * self.stride) }
    }

    /// Where the `T` at byte `off` of an element's header starts, relative to the element;
    /// panics if it does not fit before the data room or is misaligned.
    #[inline(always)]
    fn header_off<T: Plain>(&self, off: usize) -> usize {
        let end = off.checked_add(std::mem::size_of::<T>());
        assert!(
            end.is_some_and(|e| e <= self.data_off),
            "header field at {off} does not fit in {} bytes",
            self.data_off
        );
        assert!(off.is_multiple_of(std::mem::align_of::<T>()) && std::mem::align_of::<T>() <= LINE);
        off
    }

    /// The data room of `b` (after its header/metadata/headroom), read-only. Panics if `b`
    /// belongs to another pool.
    #[inline(always)]
    pub fn data<'a>(&'a self, b: &'a Buf) -> &'a [u8] {
        let e = self.elem(b);
        // SAFETY: `b` is an element of this pool (checked in `elem`), whose `data_room` bytes
        // at `data_off` lie inside the element (`data_off + data_room <= stride`, checked in
        // `new`). The element belongs to the holder of `b` (unique handle); a shared borrow of
        // `b` excludes a concurrent `&mut` borrow of the same element.
        unsafe { std::slice::from_raw_parts(e.add(self.data_off), self.data_room) }
    }

    /// The data room of `b`, writable. Panics if `b` belongs to another pool.
    #[inline(always)]
    pub fn data_mut<'a>(&'a self, b: &'a mut Buf) -> &'a mut [u8] {
        let e = self.elem(b);
        // SAFETY: in bounds as in `data`; `&mut Buf` is exclusive ownership of the element
        // (handles are unique and checked to be of this pool).
        unsafe { std::slice::from_raw_parts_mut(e.add(self.data_off), self.data_room) }
    }

    /// [`Pool::data`] without the pool check, for a caller that checked a whole batch at
    /// once ([`Pool::owns_all`]).
    ///
    /// # Safety
    /// `b` is a handle of this pool.
    #[inline(always)]
    pub unsafe fn data_unchecked<'a>(&'a self, b: &'a Buf) -> &'a [u8] {
        debug_assert!(b.pool == self.id && b.idx < self.count);
        // SAFETY: `b` is of this pool (contract), so `b.idx < count` (the handle invariant)
        // and the bytes are those `data` returns, borrowed as there.
        unsafe {
            let e = self.base.add(b.idx as usize * self.stride);
            std::slice::from_raw_parts(e.add(self.data_off), self.data_room)
        }
    }

    /// [`Pool::data_mut`] without the pool check (see [`Pool::data_unchecked`]).
    ///
    /// # Safety
    /// `b` is a handle of this pool.
    #[inline(always)]
    pub unsafe fn data_mut_unchecked<'a>(&'a self, b: &'a mut Buf) -> &'a mut [u8] {
        debug_assert!(b.pool == self.id && b.idx < self.count);
        // SAFETY: as in `data_unchecked`; `&mut Buf` is exclusive ownership of the element,
        // as in `data_mut`.
        unsafe {
            let e = self.base.add(b.idx as usize * self.stride);
            std::slice::from_raw_parts_mut(e.add(self.data_off), self.data_room)
        }
    }

    /// The `T` stored `off` bytes into element `b` (its header area), writable.
    ///
    /// Panics if `b` belongs to another pool, `T` does not fit before the data room or `off`
    /// is not aligned for `T`.
    #[inline(always)]
    pub fn header_mut<'a, T: Plain>(&'a self, b: &'a mut Buf, off: usize) -> &'a mut T {
        let off = self.header_off::<T>(off);
        let e = self.elem(b);
        // SAFETY: in bounds and aligned (checked in `header_off`; elements are 64-byte
        // aligned), the element is exclusively ours (`&mut Buf` of this pool), and
        // `T: Plain` is valid for any bytes.
        unsafe { &mut *(e.add(off) as *mut T) }
    }

    /// The `T` stored `off` bytes into element `b`, read-only (see [`Pool::header_mut`]).
    #[inline(always)]
    pub fn header<'a, T: Plain>(&'a self, b: &'a Buf, off: usize) -> &'a T {
        let off = self.header_off::<T>(off);
        let e = self.elem(b);
        // SAFETY: as in `header_mut`, with a shared borrow of the unique handle.
        unsafe { &*(e.add(off) as *const T) }
    }

    /// True if `b` is a handle of this pool.
    #[inline(always)]
    pub fn owns(&self, b: &Buf) -> bool {
        // The index is below `count` for every handle of this pool (see [`Buf`]).
        b.pool == self.id
    }

    /// True if every handle of `bufs` is of this pool ([`Pool::owns`] of each, in one pass
    /// without an exit per handle).
    #[inline(always)]
    pub fn owns_all(&self, bufs: &[Buf]) -> bool {
        let id = self.id;
        bufs.iter().fold(true, |all, b| all & (b.pool == id))
    }

    /// Takes exactly `n` elements from the common list into `out` (all or nothing).
    pub fn take(&self, n: usize, out: &mut Vec<Buf>) -> bool {
        let mut c = self.common.lock().unwrap_or_else(|e| e.into_inner());
        if c.len() < n {
            return false;
        }
        let at = c.len() - n;
        out.extend(c.drain(at..));
        true
    }

    /// Returns elements to the common list. Panics on a handle of another pool (the
    /// elements before it are returned).
    pub fn give(&self, bufs: impl IntoIterator<Item = Buf>) {
        let mut c = self.common.lock().unwrap_or_else(|e| e.into_inner());
        for b in bufs {
            assert!(
                self.owns(&b),
                "buffer {} of pool {} given to pool {}",
                b.idx,
                b.pool,
                self.id
            );
            c.push(b);
        }
        debug_assert!(c.len() <= self.count as usize);
    }

    /// Returns every element of `bufs` (emptied) to the common list in one move: the
    /// ownership of the whole batch checked in one pass, then the handles appended as one
    /// block (what the pool cache's flushes use). Panics, taking nothing, if an element
    /// belongs to another pool.
    pub fn give_all(&self, bufs: &mut Vec<Buf>) {
        // One branch-free pass; the foreign handle is looked for only to name it.
        if !self.owns_all(bufs) {
            let b = bufs.iter().find(|b| !self.owns(b)).expect("one is foreign");
            panic!(
                "buffer {} of pool {} given to pool {}",
                b.idx, b.pool, self.id
            );
        }
        let mut c = self.common.lock().unwrap_or_else(|e| e.into_inner());
        c.append(bufs);
        debug_assert!(c.len() <= self.count as usize);
    }

    /// Runs `f` on every element, free or not (setup: e.g. to initialise constant header
    /// fields before any element is handed out).
    ///
    /// `f` sees one element at a time through an [`ElemInit`], never a `Buf`: a handle it
    /// could keep, or swap for one the caller holds, would leave two handles of one element.
    /// This does not compile:
    ///
    /// ```compile_fail
    /// use pktlab::mbuf::{Buf, Pool};
    /// let mut pool = Pool::new(2, 64, 64, false);
    /// let mut mine = Vec::new();
    /// assert!(pool.take(1, &mut mine));
    /// pool.init_each(|_p: &Pool, b: &mut Buf| std::mem::swap(b, &mut mine[0]));
    /// ```
    pub fn init_each(&mut self, mut f: impl FnMut(ElemInit<'_>)) {
        // `&mut self`: no `&Pool` exists during the calls, so nothing else reaches an element
        // (every element access goes through `&Pool`).
        let this: &Pool = self;
        for idx in 0..this.count {
            f(ElemInit { pool: this, idx });
        }
    }
}

/// One element during [`Pool::init_each`]: its index, data room and header fields.
#[derive(Debug)]
pub struct ElemInit<'a> {
    pool: &'a Pool,
    idx: u32,
}

impl ElemInit<'_> {
    /// The element's index.
    pub fn index(&self) -> u32 {
        self.idx
    }

    /// Address of the element's data room (e.g. for a DPDK-style `buf_addr` field).
    pub fn data_addr(&self) -> usize {
        self.pool.elem_at(self.idx) as usize + self.pool.data_off
    }

    /// The data room, writable.
    pub fn data_mut(&mut self) -> &mut [u8] {
        let e = self.pool.elem_at(self.idx);
        // SAFETY: in bounds as in `Pool::data`; `init_each` holds the pool exclusively and
        // hands each element out once, through this `&mut self`.
        unsafe { std::slice::from_raw_parts_mut(e.add(self.pool.data_off), self.pool.data_room) }
    }

    /// The `T` at byte `off` of the element's header, writable (checks as
    /// [`Pool::header_mut`]).
    pub fn header_mut<T: Plain>(&mut self, off: usize) -> &mut T {
        let off = self.pool.header_off::<T>(off);
        let e = self.pool.elem_at(self.idx);
        // SAFETY: in bounds and aligned (checked in `header_off`), exclusive as in
        // `data_mut`, and `T: Plain` is valid for any bytes.
        unsafe { &mut *(e.add(off) as *mut T) }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // SAFETY: `base` was allocated in `new` with exactly this layout.
        unsafe { dealloc(self.base, self.alloc) }
    }
}

/// Plain-old-data types that may live in a pool element's header: every bit pattern is a
/// valid value, no padding-sensitive invariants, no pointers that are dereferenced.
///
/// # Safety
/// Implement only for `#[repr(C)]` types made of integers (and arrays of them).
pub unsafe trait Plain: Copy {}

// SAFETY: integers: every bit pattern is a value, no padding, no pointers.
unsafe impl Plain for u8 {}
// SAFETY: as for u8.
unsafe impl Plain for u16 {}
// SAFETY: as for u8.
unsafe impl Plain for u32 {}
// SAFETY: as for u8.
unsafe impl Plain for u64 {}

/// A worker's cache of free elements (LIFO), with DPDK's bulk refill/flush rules. It is
/// bound to the pool it holds elements of: calls with another pool panic until it is empty
/// again.
#[derive(Debug)]
pub struct PoolCache {
    objs: Vec<Buf>,
    size: usize,
    flush: usize,
    /// Id of the pool the held elements belong to (0: none yet).
    pool: u32,
}

impl PoolCache {
    /// A cache of nominal `size` elements (DPDK: at most 512; testpmd's default is 250),
    /// flushed at 1.5 × `size`. Empty until the first get.
    pub fn new(size: usize) -> PoolCache {
        let size = size.max(1);
        let flush = size * 3 / 2;
        PoolCache {
            objs: Vec::with_capacity(flush + size + 1),
            size,
            flush,
            pool: 0,
        }
    }

    /// Binds the cache to `pool` (it may change pools only while empty).
    #[inline(always)]
    fn bind(&mut self, pool: &Pool) {
        if self.pool != pool.id {
            assert!(
                self.objs.is_empty(),
                "pool cache holding elements of pool {} used with pool {}",
                self.pool,
                pool.id
            );
            self.pool = pool.id;
        }
    }

    /// Elements held.
    pub fn len(&self) -> usize {
        self.objs.len()
    }

    /// True if the cache holds no element.
    pub fn is_empty(&self) -> bool {
        self.objs.is_empty()
    }

    /// Appends exactly `n` free elements of `pool` to `out` (top of the stack first),
    /// refilling from the common list as needed; false (and nothing taken) if the pool cannot
    /// supply them. Every handle appended is of `pool` (the cache holds only elements of the
    /// pool it is bound to, and takes from `pool` only): callers may rely on it for
    /// [`Pool::data_mut_unchecked`].
    #[inline]
    pub fn get_bulk(&mut self, pool: &Pool, n: usize, out: &mut Vec<Buf>) -> bool {
        self.bind(pool);
        if n > self.size {
            // Larger than the cache: straight from the common list (DPDK does the same
            // beyond RTE_MEMPOOL_CACHE_MAX_SIZE).
            return pool.take(n, out);
        }
        if self.objs.len() < n {
            let want = self.size + n - self.objs.len();
            if !pool.take(want, &mut self.objs) {
                // Less than a full refill left: take what the request needs.
                let need = n - self.objs.len();
                if !pool.take(need, &mut self.objs) {
                    return false;
                }
            }
        }
        let at = self.objs.len() - n;
        out.extend(self.objs.drain(at..).rev());
        true
    }

    /// Returns every element of `bufs` (emptied) to the cache, flushing it to the common
    /// list first if it would pass the flush threshold. Panics (taking nothing) if an element
    /// belongs to another pool.
    #[inline]
    pub fn put_bulk(&mut self, pool: &Pool, bufs: &mut Vec<Buf>) {
        self.bind(pool);
        assert!(
            bufs.iter().all(|b| pool.owns(b)),
            "put_bulk: a buffer of another pool"
        );
        let n = bufs.len();
        if n > self.flush {
            pool.give_all(bufs);
            return;
        }
        if self.objs.len() + n > self.flush {
            pool.give_all(&mut self.objs);
        }
        self.objs.append(bufs);
    }

    /// Returns every element to the common list (end of a worker).
    pub fn flush_all(&mut self, pool: &Pool) {
        self.bind(pool);
        pool.give_all(&mut self.objs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_are_odd_lines_and_aligned() {
        assert_eq!(element_stride(64 + 128 + 128 + 2048, true), Some(37 * 64));
        assert_eq!(element_stride(128 + 2048, true), Some(35 * 64));
        assert_eq!(element_stride(128 + 2048, false), Some(34 * 64));
        assert_eq!(element_stride(1, false), Some(64));
        assert_eq!(element_stride(usize::MAX, false), None);
        let p = Pool::new(8, 128, 2048, true);
        let mut v = Vec::new();
        assert!(p.take(8, &mut v));
        for b in &v {
            assert_eq!(p.data(b).as_ptr() as usize % 64, 0);
            assert_eq!(p.data(b).len(), 2048);
        }
        assert!(!p.take(1, &mut v));
        p.give(v);
        assert_eq!(p.common_len(), 8);
    }

    #[test]
    fn unchecked_data_is_the_checked_data() {
        let p = Pool::new(4, 64, 256, true);
        let mut v = Vec::new();
        assert!(p.take(4, &mut v));
        for (i, b) in v.iter_mut().enumerate() {
            p.data_mut(b)[..2].copy_from_slice(&[i as u8, 7]);
            // SAFETY: `b` is a handle of `p` (taken from it).
            let (u, c) = unsafe { (p.data_unchecked(b).as_ptr(), p.data(b).as_ptr()) };
            assert_eq!(u, c);
            // SAFETY: as above.
            let d = unsafe { p.data_mut_unchecked(b) };
            assert_eq!((&d[..2], d.len()), (&[i as u8, 7][..], 256));
        }
        p.give(v);
    }

    /// Runs `f` and tells whether it panicked.
    fn panics(f: impl FnOnce()) -> bool {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err()
    }

    #[test]
    fn a_buf_works_only_on_its_own_pool() {
        // Two pools of the same shape: index 0 of one must not reach index 0 of the other
        // (two `&mut [u8]` over one element), nor a larger index of a smaller pool.
        let a = Pool::new(4, 0, 64, false);
        let b = Pool::new(4, 0, 64, false);
        let small = Pool::new(1, 0, 64, false);
        let mut from_a = Vec::new();
        assert!(a.take(4, &mut from_a));
        assert!(a.owns_all(&from_a) && a.owns_all(&[]));
        assert!(!b.owns_all(&from_a) && !small.owns_all(&from_a));
        // One foreign handle inside a batch is found.
        let mut one = Vec::new();
        assert!(b.take(1, &mut one));
        from_a.insert(2, one.pop().unwrap());
        assert!(!a.owns_all(&from_a));
        b.give(from_a.drain(2..3));
        assert!(a.owns_all(&from_a));
        for x in from_a.iter_mut() {
            assert!(
                panics(|| {
                    let _ = b.data_mut(x);
                }),
                "data_mut of a foreign Buf"
            );
            assert!(
                panics(|| {
                    let _ = small.data(x);
                }),
                "data of a foreign Buf"
            );
        }
        assert!(
            panics(|| b.give(from_a.drain(..1))),
            "give of a foreign Buf"
        );
        assert_eq!(b.common_len(), 4);
        // The refused handle was consumed: its element is lost to `a`, never owned twice.
        a.give(from_a.drain(..));
        assert_eq!(a.common_len(), 3);
    }

    #[test]
    fn give_all_returns_a_whole_batch_or_nothing() {
        let a = Pool::new(8, 0, 64, false);
        let b = Pool::new(2, 0, 64, false);
        let mut v = Vec::new();
        assert!(a.take(6, &mut v));
        assert_eq!(a.common_len(), 2);
        // A foreign handle in the middle: refused whole, the batch left as it was.
        let mut one = Vec::new();
        assert!(b.take(1, &mut one));
        v.insert(3, one.pop().unwrap());
        assert!(panics(|| a.give_all(&mut v)), "give_all of a foreign Buf");
        assert_eq!((a.common_len(), v.len()), (2, 7));
        b.give(v.drain(3..4));
        a.give_all(&mut v);
        assert!(v.is_empty());
        assert_eq!(a.common_len(), 8);
        // Every element comes back exactly once.
        assert!(a.take(8, &mut v));
        let idx: std::collections::BTreeSet<u32> = v.iter().map(|b| b.idx).collect();
        assert!(idx.into_iter().eq(0..8));
    }

    #[test]
    fn a_cache_cannot_fill_from_one_pool_and_drain_into_another() {
        let a = Pool::new(64, 0, 64, false);
        let b = Pool::new(8, 0, 64, false);
        let mut c = PoolCache::new(4);
        let mut held = Vec::new();
        assert!(c.get_bulk(&a, 2, &mut held));
        // The cache still holds elements of `a`: using it with `b` is refused, whichever way.
        assert!(panics(|| {
            let mut v = Vec::new();
            c.get_bulk(&b, 1, &mut v);
        }));
        let mut c2 = PoolCache::new(4);
        assert!(c2.get_bulk(&a, 2, &mut Vec::new()));
        assert!(panics(|| c2.put_bulk(&b, &mut held)));
        // Elements of `a` put into a cache bound to `b` are refused too.
        let mut c3 = PoolCache::new(4);
        let mut from_b = Vec::new();
        assert!(c3.get_bulk(&b, 1, &mut from_b));
        let mut from_a = Vec::new();
        assert!(a.take(1, &mut from_a));
        assert!(panics(|| c3.put_bulk(&b, &mut from_a)));
        assert_eq!(b.common_len() + c3.len() + from_b.len(), 8);
    }

    #[test]
    fn sizes_that_overflow_are_refused() {
        // `data_off + data_room` wraps: the arena would be one line while `data` reaches
        // `data_off` bytes past it.
        assert!(panics(|| drop(Pool::new(1, usize::MAX - 64, 128, false))));
        assert!(panics(|| drop(Pool::new(1, 64, usize::MAX - 8, false))));
        // A stride that cannot be rounded up to whole lines.
        assert!(panics(|| drop(Pool::new(1, usize::MAX - 2, 1, true))));
        let mut p = Pool::new(2, 64, 64, false);
        let mut v = Vec::new();
        assert!(p.take(1, &mut v));
        // `off + size_of::<T>()` wraps to 0, which is <= data_off.
        let off = usize::MAX - 7;
        assert!(panics(|| {
            let _ = *p.header::<u64>(&v[0], off);
        }));
        assert!(panics(|| *p.header_mut::<u64>(&mut v[0], off) = 1));
        *p.header_mut::<u64>(&mut v[0], 56) = 7;
        assert_eq!(*p.header::<u64>(&v[0], 56), 7);
        p.give(v.drain(..));
        let _ = &mut p;
    }

    #[test]
    fn cache_refills_flushes_and_never_duplicates() {
        let p = Pool::new(4096, 0, 64, false);
        let mut c = PoolCache::new(256);
        let mut held: Vec<Buf> = Vec::new();
        let mut rng = crate::util::XorShift64::new(3);
        for _ in 0..5000 {
            let r = rng.next();
            if r & 1 == 0 {
                let n = 1 + (r >> 8) as usize % 600;
                let before = held.len();
                if c.get_bulk(&p, n, &mut held) {
                    assert_eq!(held.len(), before + n);
                } else {
                    assert_eq!(held.len(), before);
                }
            } else {
                let n = ((r >> 8) as usize % 600).min(held.len());
                let at = held.len() - n;
                let mut back: Vec<Buf> = held.drain(at..).collect();
                c.put_bulk(&p, &mut back);
                assert!(back.is_empty());
            }
            assert!(c.len() <= c.flush + 600);
            assert_eq!(held.len() + c.len() + p.common_len(), 4096);
        }
        let mut seen = vec![false; 4096];
        for b in &held {
            assert!(!std::mem::replace(&mut seen[b.index() as usize], true));
        }
        // Writes through distinct handles land in distinct elements.
        for b in held.iter_mut() {
            let i = b.index();
            p.data_mut(b)[..4].copy_from_slice(&i.to_le_bytes());
        }
        for b in &held {
            assert_eq!(p.data(b)[..4], b.index().to_le_bytes());
        }
        c.put_bulk(&p, &mut held);
        c.flush_all(&p);
        assert_eq!(p.common_len(), 4096);
    }
}
