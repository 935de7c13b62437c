//! Split virtqueues (VIRTIO 1.2 §2.7) over memory shared with another process, the rings both
//! live virtio ports use: [`DeviceQueue`] is the device's view (the vhost-user backend, a
//! virtual switch: it takes what the driver made available and returns it used),
//! [`DriverQueue`] the driver's (the virtio-user frontend, a CNF: it makes buffers available
//! and takes them back used). Constants and the virtio-net header layout come from
//! `virtio-bindings`; the memory is mapped with `vm-memory`.
//!
//! The peer writes this memory concurrently, so nothing here forms a Rust reference into it:
//! ring indices are read and written as atomics (acquire/release, the ordering VIRTIO's
//! memory barriers ask for), descriptors and packet bytes through raw-pointer copies, as
//! `vm-memory`'s own volatile slices do. Every index and address that comes from the peer is
//! checked against the ring size or the mapped regions before it is used; a bad one is
//! reported, never followed.

use std::fs::File;
use std::sync::atomic::{AtomicU16, Ordering};
use virtio_bindings::virtio_ring::{
    VRING_AVAIL_F_NO_INTERRUPT, VRING_DESC_F_INDIRECT, VRING_DESC_F_NEXT, VRING_DESC_F_WRITE,
    VRING_USED_F_NO_NOTIFY,
};
use vm_memory::mmap::MmapRegion;
use vm_memory::FileOffset;

/// `VRING_DESC_F_NEXT`.
pub const F_NEXT: u16 = VRING_DESC_F_NEXT as u16;
/// `VRING_DESC_F_WRITE`.
pub const F_WRITE: u16 = VRING_DESC_F_WRITE as u16;
/// `VRING_DESC_F_INDIRECT`.
pub const F_INDIRECT: u16 = VRING_DESC_F_INDIRECT as u16;
/// Bytes of the virtio-net header in front of every packet when `VIRTIO_F_VERSION_1` or
/// `VIRTIO_NET_F_MRG_RXBUF` is negotiated (`struct virtio_net_hdr_mrg_rxbuf`).
pub const NET_HDR_LEN: usize =
    std::mem::size_of::<virtio_bindings::virtio_net::virtio_net_hdr_mrg_rxbuf>();
/// Offset of `num_buffers` in the header.
const NUM_BUFFERS_OFF: usize = 10;
/// Largest queue size accepted (VIRTIO's limit for split rings).
pub const MAX_QUEUE_SIZE: u16 = 32768;

/// Errors of setting up shared memory or rings.
#[derive(Debug, thiserror::Error)]
pub enum VirtqError {
    /// A memory region could not be mapped.
    #[error("cannot map memory region {index} ({size} bytes at offset {offset}): {source}")]
    Map {
        /// Region number.
        index: usize,
        /// Bytes.
        size: u64,
        /// Offset in the file.
        offset: u64,
        /// The cause.
        source: vm_memory::mmap::MmapRegionError,
    },
    /// A region's description does not fit the file or the address space.
    #[error("memory region {0} is malformed (size 0, overflow, or fewer files than regions)")]
    BadRegion(usize),
    /// A ring size the queue cannot take.
    #[error("queue size {0} is not a power of two in 1..={MAX_QUEUE_SIZE}")]
    BadSize(u32),
    /// A ring address outside the peer's memory.
    #[error("the {0} ring at address {1:#x} is not inside the shared memory")]
    RingOutside(&'static str, u64),
    /// Creating shared memory failed.
    #[error("cannot create shared memory: {0}")]
    Create(std::io::Error),
}

/// One region of memory shared with the peer.
struct Region {
    /// Start in the driver's physical address space (descriptor addresses).
    gpa: u64,
    /// Start in the frontend's virtual address space (ring addresses of vhost-user).
    uva: u64,
    len: u64,
    host: *mut u8,
    _map: MmapRegion<()>,
}

/// The peer's memory, mapped once per `SET_MEM_TABLE` and never remapped while in use.
pub struct MemTable {
    regions: Vec<Region>,
}

// SAFETY: the table only holds mappings (owned by `MmapRegion`) and their addresses; the
// memory behind them is accessed through raw-pointer copies and atomics, never references.
unsafe impl Send for MemTable {}
// SAFETY: as above; `&MemTable` only translates addresses.
unsafe impl Sync for MemTable {}

/// A region as vhost-user describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionDesc {
    /// Driver-physical start.
    pub gpa: u64,
    /// Bytes.
    pub size: u64,
    /// Frontend-virtual start.
    pub uva: u64,
    /// Where the region starts in its file.
    pub offset: u64,
}

impl MemTable {
    /// Maps `regions[i]` from `files[i]` (shared, read/write). The whole file prefix up to
    /// the region's end is mapped (rounded up to the file's block size, which hugetlbfs
    /// requires), as DPDK's vhost library does.
    pub fn map(regions: &[RegionDesc], files: Vec<File>) -> Result<MemTable, VirtqError> {
        if files.len() < regions.len() {
            return Err(VirtqError::BadRegion(files.len()));
        }
        let mut out = Vec::with_capacity(regions.len());
        for (i, (r, f)) in regions.iter().zip(files).enumerate() {
            let end = r
                .offset
                .checked_add(r.size)
                .ok_or(VirtqError::BadRegion(i))?;
            if r.size == 0
                || r.gpa.checked_add(r.size).is_none()
                || r.uva.checked_add(r.size).is_none()
            {
                return Err(VirtqError::BadRegion(i));
            }
            let blk = block_size(&f).max(4096);
            let len = end.div_ceil(blk) * blk;
            let map = MmapRegion::<()>::from_file(FileOffset::new(f, 0), len as usize).map_err(
                |source| VirtqError::Map {
                    index: i,
                    size: r.size,
                    offset: r.offset,
                    source,
                },
            )?;
            // SAFETY: offset + size <= len, the mapping's length.
            let host = unsafe { map.as_ptr().add(r.offset as usize) };
            out.push(Region {
                gpa: r.gpa,
                uva: r.uva,
                len: r.size,
                host,
                _map: map,
            });
        }
        Ok(MemTable { regions: out })
    }

    /// Shared memory of `len` bytes of our own (a memfd, or a hugetlbfs-backed memfd when
    /// `huge`), with driver-physical = frontend-virtual = our address, as DPDK's virtio-user
    /// does. Returns the table and the file to pass to the backend.
    pub fn create(len: u64, huge: bool) -> Result<(MemTable, File), VirtqError> {
        use std::os::fd::FromRawFd;
        let flags = libc::MFD_CLOEXEC | if huge { libc::MFD_HUGETLB } else { 0 };
        // SAFETY: the name is a NUL-terminated literal; the fd is owned right away.
        let fd = unsafe { libc::memfd_create(c"pktlab-virtio".as_ptr(), flags) };
        if fd < 0 {
            return Err(VirtqError::Create(std::io::Error::last_os_error()));
        }
        // SAFETY: `fd` is a fresh descriptor we own.
        let f = unsafe { File::from_raw_fd(fd) };
        let blk: u64 = if huge { 2 << 20 } else { 4096 };
        let len = len.div_ceil(blk) * blk;
        f.set_len(len).map_err(VirtqError::Create)?;
        let dup = f.try_clone().map_err(VirtqError::Create)?;
        let map = MmapRegion::<()>::from_file(FileOffset::new(dup, 0), len as usize).map_err(
            |source| VirtqError::Map {
                index: 0,
                size: len,
                offset: 0,
                source,
            },
        )?;
        let host = map.as_ptr();
        let addr = host as u64;
        Ok((
            MemTable {
                regions: vec![Region {
                    gpa: addr,
                    uva: addr,
                    len,
                    host,
                    _map: map,
                }],
            },
            f,
        ))
    }

    /// The regions as vhost-user's `SET_MEM_TABLE` describes them.
    pub fn descs(&self) -> Vec<RegionDesc> {
        self.regions
            .iter()
            .map(|r| RegionDesc {
                gpa: r.gpa,
                size: r.len,
                uva: r.uva,
                offset: 0,
            })
            .collect()
    }

    /// The host address of driver-physical `[addr, addr + len)`, if one region holds it all.
    #[inline(always)]
    pub fn gpa(&self, addr: u64, len: u32) -> Option<*mut u8> {
        for r in &self.regions {
            let off = addr.wrapping_sub(r.gpa);
            if off < r.len && r.len - off >= len as u64 {
                // SAFETY: off + len <= r.len: inside the mapping.
                return Some(unsafe { r.host.add(off as usize) });
            }
        }
        None
    }

    /// The host address of frontend-virtual `[addr, addr + len)`, if one region holds it.
    pub fn uva(&self, addr: u64, len: u64) -> Option<*mut u8> {
        for r in &self.regions {
            let off = addr.wrapping_sub(r.uva);
            if off < r.len && r.len - off >= len {
                // SAFETY: off + len <= r.len: inside the mapping.
                return Some(unsafe { r.host.add(off as usize) });
            }
        }
        None
    }
}

fn block_size(f: &File) -> u64 {
    use std::os::unix::fs::MetadataExt;
    f.metadata().map(|m| m.blksize()).unwrap_or(4096)
}

/// Bytes of the descriptor table, available ring and used ring of a queue of `n` entries.
pub fn ring_bytes(n: u16) -> (u64, u64, u64) {
    let n = n as u64;
    (16 * n, 6 + 2 * n, 6 + 8 * n)
}

/// A descriptor as read from the table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Desc {
    /// Driver-physical address.
    pub addr: u64,
    /// Bytes.
    pub len: u32,
    /// `F_*` flags.
    pub flags: u16,
    /// Next descriptor of the chain (with `F_NEXT`).
    pub next: u16,
}

/// Where a queue's three parts live in the host address space, checked once at set-up.
#[derive(Clone, Copy, Debug)]
pub struct RingAddrs {
    desc: *mut u8,
    avail: *mut u8,
    used: *mut u8,
    size: u16,
}

// SAFETY: plain addresses inside a `MemTable` whose owner keeps it mapped while they are used.
unsafe impl Send for RingAddrs {}
// SAFETY: as above.
unsafe impl Sync for RingAddrs {}

impl RingAddrs {
    /// Checks that a queue of `size` entries with its parts at `desc`/`avail`/`used` (looked up
    /// with `find(addr, len)`) lies in mapped memory, 16/2/4-byte aligned.
    pub fn new(
        size: u32,
        desc: u64,
        avail: u64,
        used: u64,
        find: impl Fn(u64, u64) -> Option<*mut u8>,
    ) -> Result<RingAddrs, VirtqError> {
        if size == 0 || size > MAX_QUEUE_SIZE as u32 || !size.is_power_of_two() {
            return Err(VirtqError::BadSize(size));
        }
        let (dl, al, ul) = ring_bytes(size as u16);
        let d = find(desc, dl)
            .filter(|p| (*p as usize).is_multiple_of(16))
            .ok_or(VirtqError::RingOutside("descriptor", desc))?;
        let a = find(avail, al)
            .filter(|p| (*p as usize).is_multiple_of(2))
            .ok_or(VirtqError::RingOutside("available", avail))?;
        let u = find(used, ul)
            .filter(|p| (*p as usize).is_multiple_of(4))
            .ok_or(VirtqError::RingOutside("used", used))?;
        Ok(RingAddrs {
            desc: d,
            avail: a,
            used: u,
            size: size as u16,
        })
    }

    /// Entries.
    pub fn size(&self) -> u16 {
        self.size
    }

    #[inline(always)]
    fn u16_at(&self, p: *mut u8, off: usize) -> &AtomicU16 {
        // SAFETY: `p` is one of the checked, 2-aligned ring parts and `off` is inside it
        // (callers pass offsets below the part's length); shared with the peer, hence atomic.
        unsafe { AtomicU16::from_ptr(p.add(off).cast()) }
    }

    #[inline(always)]
    fn avail_flags(&self) -> u16 {
        self.u16_at(self.avail, 0).load(Ordering::Relaxed)
    }

    #[inline(always)]
    fn avail_idx(&self) -> &AtomicU16 {
        self.u16_at(self.avail, 2)
    }

    #[inline(always)]
    fn avail_ring(&self, i: u16) -> &AtomicU16 {
        self.u16_at(self.avail, 4 + 2 * (i & (self.size - 1)) as usize)
    }

    #[inline(always)]
    fn used_flags(&self) -> &AtomicU16 {
        self.u16_at(self.used, 0)
    }

    #[inline(always)]
    fn used_idx(&self) -> &AtomicU16 {
        self.u16_at(self.used, 2)
    }

    /// Reads descriptor `i` (`i < size`, checked by the caller).
    #[inline(always)]
    fn read_desc(&self, i: u16) -> Desc {
        debug_assert!(i < self.size);
        // Two aligned 8-byte reads: a volatile read of `[u8; 16]` is lowered to 16 byte loads
        // and the shifts that reassemble them (≈ 38 instructions; this is two loads).
        // SAFETY: i < size: the 16 bytes lie in the checked descriptor table, which `new`
        // checked to be 16-byte aligned, so both words are 8-byte aligned; raw reads of plain
        // integers, no reference into shared memory.
        let (w0, w1) = unsafe {
            let p = self.desc.add(16 * i as usize).cast::<u64>();
            (
                std::ptr::read_volatile(p),
                std::ptr::read_volatile(p.add(1)),
            )
        };
        let w1 = u64::from_le(w1);
        Desc {
            addr: u64::from_le(w0),
            len: w1 as u32,
            flags: (w1 >> 32) as u16,
            next: (w1 >> 48) as u16,
        }
    }

    #[inline(always)]
    fn write_desc(&self, i: u16, d: Desc) {
        let w1 = d.len as u64 | (d.flags as u64) << 32 | (d.next as u64) << 48;
        // SAFETY: i < size (callers index their own descriptors): inside the table, 16-byte
        // aligned as in `read_desc`; two aligned word writes (a `[u8; 16]` would be 16 byte
        // stores).
        unsafe {
            let p = self
                .desc
                .add(16 * (i & (self.size - 1)) as usize)
                .cast::<u64>();
            std::ptr::write_volatile(p, d.addr.to_le());
            std::ptr::write_volatile(p.add(1), w1.to_le());
        }
    }

    #[inline(always)]
    fn write_used(&self, slot: u16, id: u32, len: u32) {
        let off = 4 + 8 * (slot & (self.size - 1)) as usize;
        let mut raw = [0u8; 8];
        raw[0..4].copy_from_slice(&id.to_le_bytes());
        raw[4..8].copy_from_slice(&len.to_le_bytes());
        // SAFETY: off + 8 <= 4 + 8 * size: inside the used ring.
        unsafe { std::ptr::write_volatile(self.used.add(off).cast::<[u8; 8]>(), raw) };
    }

    #[inline(always)]
    fn read_used(&self, slot: u16) -> (u32, u32) {
        let off = 4 + 8 * (slot & (self.size - 1)) as usize;
        // SAFETY: as in `write_used`; the used ring is 4-byte aligned (checked in `new`) and
        // `off` is a multiple of 4, so both words are aligned.
        let (id, len) = unsafe {
            let p = self.used.add(off).cast::<u32>();
            (
                std::ptr::read_volatile(p),
                std::ptr::read_volatile(p.add(1)),
            )
        };
        (u32::from_le(id), u32::from_le(len))
    }
}

/// Copies `len` bytes from shared memory at `src` into `dst`.
///
/// # Safety
/// `src..src + dst.len()` must lie in a live mapping (checked by [`MemTable::gpa`]).
#[inline(always)]
pub unsafe fn copy_from_shared(dst: &mut [u8], src: *const u8) {
    // SAFETY: the caller guarantees the source range; `dst` is our own buffer, disjoint.
    unsafe { std::ptr::copy_nonoverlapping(src, dst.as_mut_ptr(), dst.len()) };
}

/// Copies `src` into shared memory at `dst`.
///
/// # Safety
/// `dst..dst + src.len()` must lie in a live mapping (checked by [`MemTable::gpa`]).
#[inline(always)]
pub unsafe fn copy_to_shared(dst: *mut u8, src: &[u8]) {
    // SAFETY: the caller guarantees the destination range; `src` is ours, disjoint.
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len()) };
}

/// Why a chain could not be used (counted by the ports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainError {
    /// A descriptor index, address or length outside the ring or the shared memory, a
    /// loop, an indirect descriptor (not negotiated), or a buffer of the wrong direction.
    Bad,
    /// The packet does not fit (longer than the data room, or than the driver's buffers).
    TooLong,
}

/// Whether the CPU has PREFETCHW (CPUID leaf 0x8000_0001, ECX bit 8), read once. The
/// baseline x86-64 target lacks the `prfchw` feature, so `_MM_HINT_ET0` compiles to a read
/// prefetch there; [`prefetch_line`] issues PREFETCHW itself when the CPU has it.
#[cfg(target_arch = "x86_64")]
fn has_prefetchw() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| {
        use std::arch::x86_64::__cpuid;
        // SAFETY: CPUID exists on every x86_64 CPU and has no side effects; leaf 0x8000_0000
        // gives the highest extended leaf, so 0x8000_0001 is read only where it exists.
        #[allow(unused_unsafe)]
        let ecx = unsafe {
            if __cpuid(0x8000_0000).eax >= 0x8000_0001 {
                __cpuid(0x8000_0001).ecx
            } else {
                0
            }
        };
        ecx & (1 << 8) != 0
    })
}

/// Asks the CPU to bring the cache line at `p` in, for writing if `write` (PREFETCHW: the
/// line arrives owned, so the copy into it that follows needs no second transfer from the
/// peer's CPU; `write` is only passed as true where [`has_prefetchw`] said so).
#[inline(always)]
fn prefetch_line(p: *const u8, write: bool) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        if write {
            // SAFETY: PREFETCHW is a hint that never faults and changes no memory or
            // flags, whatever the address; the caller checked the CPU has it.
            unsafe {
                std::arch::asm!("prefetchw [{}]", in(reg) p, options(nostack, preserves_flags, readonly))
            };
        } else {
            // SAFETY: a prefetch is a hint that never faults and reads or writes nothing,
            // whatever the address; SSE (the intrinsic's target feature) is x86_64 baseline.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, write);
}

/// The device's view of a queue (the vhost-user backend).
pub struct DeviceQueue {
    ring: RingAddrs,
    last_avail: u16,
    /// The driver's available index as last read ([`Self::pending`]): chains up to it are
    /// available (the index only grows), so [`Self::has_pending`] reads the shared line
    /// again only when these run out.
    avail_seen: u16,
    used_idx: u16,
    used_published: u16,
}

impl DeviceQueue {
    /// Starts at `last_avail` (vhost-user's `SET_VRING_BASE`); the used index is taken from
    /// the ring, as DPDK's vhost library does on a mismatch. Asks the driver not to notify
    /// (this device polls).
    pub fn new(ring: RingAddrs, base: u16) -> DeviceQueue {
        let used = ring.used_idx().load(Ordering::Acquire);
        let last = if used != base { used } else { base };
        ring.used_flags()
            .store(VRING_USED_F_NO_NOTIFY as u16, Ordering::Release);
        DeviceQueue {
            ring,
            last_avail: last,
            avail_seen: last,
            used_idx: last,
            used_published: last,
        }
    }

    /// Entries.
    pub fn size(&self) -> u16 {
        self.ring.size
    }

    /// The next available index to consume (what `GET_VRING_BASE` reports).
    pub fn last_avail(&self) -> u16 {
        self.last_avail
    }

    /// Chains the driver has made available and this queue has not taken (reads the
    /// driver's index).
    #[inline(always)]
    pub fn pending(&mut self) -> u16 {
        self.avail_seen = self.ring.avail_idx().load(Ordering::Acquire);
        self.avail_seen.wrapping_sub(self.last_avail)
    }

    /// Whether a chain is available: from the index last read while it still covers one,
    /// else read again. A device that takes chains one at a time (transmit, where a packet
    /// may take several) then reads the driver's index — a cache line the driver's CPU
    /// writes as it refills — once per burst instead of once per packet, as DPDK's vhost
    /// library does. The index read with acquire ordering covers every entry below it.
    #[inline(always)]
    pub fn has_pending(&mut self) -> bool {
        self.avail_seen != self.last_avail || self.pending() != 0
    }

    /// Takes the next available chain's head.
    #[inline(always)]
    pub fn pop(&mut self) -> u16 {
        let h = self
            .ring
            .avail_ring(self.last_avail)
            .load(Ordering::Relaxed);
        self.last_avail = self.last_avail.wrapping_add(1);
        h
    }

    /// Puts back the last `n` chains taken (not yet returned used).
    pub fn unpop(&mut self, n: u16) {
        self.last_avail = self.last_avail.wrapping_sub(n);
    }

    /// Returns chain `head` used with `len` bytes written (visible at [`Self::publish`]).
    #[inline(always)]
    pub fn push_used(&mut self, head: u16, len: u32) {
        self.ring.write_used(self.used_idx, head as u32, len);
        self.used_idx = self.used_idx.wrapping_add(1);
    }

    /// Withdraws the last `n` used entries not yet published.
    pub fn unpush(&mut self, n: u16) {
        self.used_idx = self.used_idx.wrapping_sub(n);
    }

    /// Makes the used entries visible to the driver; true if it wants an interrupt.
    #[inline(always)]
    pub fn publish(&mut self) -> bool {
        if self.used_idx == self.used_published {
            return false;
        }
        self.ring.used_idx().store(self.used_idx, Ordering::Release);
        self.used_published = self.used_idx;
        self.ring.avail_flags() & VRING_AVAIL_F_NO_INTERRUPT as u16 == 0
    }

    /// Prefetches the first buffer (up to 128 bytes) of each of the next `n` available
    /// chains, without taking them (`write`: the buffers are about to be written). In a
    /// burst the chains' descriptor reads and buffer misses then overlap, instead of one
    /// packet's chain of dependent misses (ring entry → descriptor → data, each a cache line
    /// the peer's CPU wrote last) following the previous one's; DPDK's vhost library
    /// prefetches the same way. Only a hint: an index or address that fails the checks is
    /// skipped here and refused by [`Self::walk`].
    #[inline(always)]
    pub fn prefetch(&mut self, mem: &MemTable, n: u16, write: bool) {
        #[cfg(target_arch = "x86_64")]
        let write = write && has_prefetchw();
        let size = self.ring.size;
        for k in 0..n.min(self.pending()) {
            let h = self
                .ring
                .avail_ring(self.last_avail.wrapping_add(k))
                .load(Ordering::Relaxed);
            if h >= size {
                continue;
            }
            let d = self.ring.read_desc(h);
            let len = d.len.min(128);
            if let Some(p) = mem.gpa(d.addr, len) {
                prefetch_line(p, write);
                if len > 64 {
                    // SAFETY: `gpa` checked p..p+len (len > 64) against the mapping.
                    prefetch_line(unsafe { p.add(64) }, write);
                }
            }
        }
    }

    /// Calls `f(host_ptr, len, flags)` for every descriptor of chain `head` (at most `size`
    /// of them); every descriptor must satisfy `want_write` (device-writable or not).
    #[inline(always)]
    pub fn walk(
        &self,
        mem: &MemTable,
        head: u16,
        want_write: bool,
        mut f: impl FnMut(*mut u8, u32) -> Result<(), ChainError>,
    ) -> Result<(), ChainError> {
        let size = self.ring.size;
        let mut i = head;
        for _ in 0..size {
            if i >= size {
                return Err(ChainError::Bad);
            }
            let d = self.ring.read_desc(i);
            if d.flags & F_INDIRECT != 0 || (d.flags & F_WRITE != 0) != want_write {
                return Err(ChainError::Bad);
            }
            let p = mem.gpa(d.addr, d.len).ok_or(ChainError::Bad)?;
            f(p, d.len)?;
            if d.flags & F_NEXT == 0 {
                return Ok(());
            }
            i = d.next;
        }
        Err(ChainError::Bad)
    }
}

/// Writes a virtio-net header of `hdr_len` bytes (no offloads) for a packet spread over
/// `num_buffers` buffers at `p` (the count only in a 12-byte header).
///
/// # Safety
/// `p..p + hdr_len` must lie in a live mapping; `hdr_len <= NET_HDR_LEN`.
#[inline(always)]
pub unsafe fn write_net_hdr(p: *mut u8, hdr_len: usize, num_buffers: u16) {
    let mut h = [0u8; NET_HDR_LEN];
    h[NUM_BUFFERS_OFF..NUM_BUFFERS_OFF + 2].copy_from_slice(&num_buffers.to_le_bytes());
    // SAFETY: the caller guarantees the range.
    unsafe { copy_to_shared(p, &h[..hdr_len.min(NET_HDR_LEN)]) };
}

/// Reads `num_buffers` from a virtio-net header at `p`.
///
/// # Safety
/// `p..p + NET_HDR_LEN` must lie in a live mapping.
#[inline(always)]
pub unsafe fn read_num_buffers(p: *const u8) -> u16 {
    let mut b = [0u8; 2];
    // SAFETY: the caller guarantees the range.
    unsafe { copy_from_shared(&mut b, p.add(NUM_BUFFERS_OFF)) };
    u16::from_le_bytes(b)
}

/// A software flow hash of an Ethernet frame (IPv4/IPv6 addresses, protocol and ports), for
/// ports whose "NIC" computes none (virtio): the data plane's flow cache is keyed by it.
#[inline(always)]
pub fn flow_hash(f: &[u8]) -> u32 {
    #[inline(always)]
    fn mix(h: u64, v: u64) -> u64 {
        (h ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)
    }
    if f.len() < 14 {
        return 0;
    }
    let et = u16::from_be_bytes([f[12], f[13]]);
    let (l4, proto, mut h) = match et {
        0x0800 if f.len() >= 34 => {
            let ihl = (f[14] & 0x0f) as usize * 4;
            let a = u64::from_be_bytes(f[26..34].try_into().unwrap());
            (14 + ihl, f[23], mix(0, a))
        }
        0x86dd if f.len() >= 54 => {
            let mut h = 0;
            for c in f[22..54].chunks_exact(8) {
                h = mix(h, u64::from_be_bytes(c.try_into().unwrap()));
            }
            (54, f[20], h)
        }
        _ => return 0,
    };
    h = mix(h, proto as u64);
    if (proto == 6 || proto == 17) && f.len() >= l4 + 4 {
        h = mix(
            h,
            u32::from_be_bytes(f[l4..l4 + 4].try_into().unwrap()) as u64,
        );
    }
    let v = (h ^ (h >> 32)) as u32;
    if v == 0 {
        1
    } else {
        v
    }
}

mod driver;
pub use driver::DriverQueue;

#[cfg(test)]
mod tests;
