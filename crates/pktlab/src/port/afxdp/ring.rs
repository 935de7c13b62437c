//! The AF_XDP socket's memory: mappings, the four rings' producer/consumer protocol and
//! the socket-option helpers.

use super::{AfXdpError, RING};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, Ordering};

pub(super) fn os(port: &str, what: &'static str) -> AfXdpError {
    let err = io::Error::last_os_error();
    let hint = match err.raw_os_error() {
        Some(libc::EPERM) | Some(libc::EACCES) => {
            " (needs CAP_NET_ADMIN, CAP_NET_RAW and CAP_BPF: run as root)"
        }
        _ => "",
    };
    AfXdpError::Os {
        port: port.to_string(),
        what,
        err,
        hint,
    }
}

/// A memory mapping, unmapped on drop.
pub(super) struct Map {
    pub(super) base: *mut u8,
    len: usize,
}

// SAFETY: a mapping is plain memory; which half touches which part is the rings' protocol
// (each ring has one user-space side, owned by one half; UMEM frames are split by half).
unsafe impl Send for Map {}
// SAFETY: as above: concurrent halves never touch the same bytes.
unsafe impl Sync for Map {}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: `base`/`len` come from a successful mmap, unmapped once.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

pub(super) fn mmap(
    fd: Option<&OwnedFd>,
    len: usize,
    off: u64,
    port: &str,
) -> Result<Map, AfXdpError> {
    let (flags, raw) = match fd {
        Some(f) => (libc::MAP_SHARED | libc::MAP_POPULATE, f.as_raw_fd()),
        None => (
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE,
            -1,
        ),
    };
    // SAFETY: a fresh mapping of `len` bytes; the kernel checks fd/offset.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            flags,
            raw,
            off as libc::off_t,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(os(port, "mmap"));
    }
    Ok(Map {
        base: p.cast(),
        len,
    })
}

pub(super) fn setopt<T>(
    fd: &OwnedFd,
    opt: i32,
    v: &T,
    port: &str,
    what: &'static str,
) -> Result<(), AfXdpError> {
    // SAFETY: `v` points to a live `T` of the size passed.
    let r = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_XDP,
            opt,
            (v as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if r < 0 {
        return Err(os(port, what));
    }
    Ok(())
}

/// Reads socket option `opt` into a `T` (a plain-data libc struct: all-zero is valid).
pub(super) fn getopt<T: Copy>(fd: &OwnedFd, opt: i32) -> Option<T> {
    // SAFETY: only used with libc's plain-data xdp structs, for which all-zero is valid.
    let mut v: T = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<T>() as libc::socklen_t;
    // SAFETY: `v`/`len` describe a writable `T`.
    let r = unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            libc::SOL_XDP,
            opt,
            (&mut v as *mut T).cast(),
            &mut len,
        )
    };
    (r == 0).then_some(v)
}

/// One ring: a producer and a consumer index (shared with the kernel), flags, descriptors.
pub(super) struct Ring {
    _map: Map,
    producer: *const AtomicU32,
    consumer: *const AtomicU32,
    flags: *const AtomicU32,
    desc: *mut u8,
    /// Our copy of our side's index.
    pub(super) local: u32,
}

// SAFETY: a ring is used by exactly one half (one thread); the kernel side synchronises
// through the producer/consumer indices (acquire/release).
unsafe impl Send for Ring {}

impl Ring {
    pub(super) fn map(
        fd: &OwnedFd,
        o: &libc::xdp_ring_offset,
        elem: usize,
        pgoff: u64,
        port: &str,
    ) -> Result<Ring, AfXdpError> {
        let len = o.desc as usize + RING as usize * elem;
        let m = mmap(Some(fd), len, pgoff, port)?;
        // SAFETY: the offsets come from XDP_MMAP_OFFSETS and lie inside the mapping; the
        // indices are 4-byte aligned u32s the kernel updates concurrently.
        let (producer, consumer, flags, desc) = unsafe {
            (
                m.base.add(o.producer as usize) as *const AtomicU32,
                m.base.add(o.consumer as usize) as *const AtomicU32,
                m.base.add(o.flags as usize) as *const AtomicU32,
                m.base.add(o.desc as usize),
            )
        };
        Ok(Ring {
            _map: m,
            producer,
            consumer,
            flags,
            desc,
            local: 0,
        })
    }

    fn prod(&self) -> &AtomicU32 {
        // SAFETY: see `map`: valid for the mapping's life, which is ours.
        unsafe { &*self.producer }
    }

    fn cons(&self) -> &AtomicU32 {
        // SAFETY: as in `prod`.
        unsafe { &*self.consumer }
    }

    pub(super) fn needs_wakeup(&self) -> bool {
        // SAFETY: as in `prod`.
        unsafe { &*self.flags }.load(Ordering::Relaxed) & libc::XDP_RING_NEED_WAKEUP != 0
    }

    /// Consumer side: entries ready to read (at most `max`).
    pub(super) fn ready(&self, max: u32) -> u32 {
        self.prod()
            .load(Ordering::Acquire)
            .wrapping_sub(self.local)
            .min(max)
    }

    /// Consumer side: hands `n` read entries back.
    pub(super) fn release(&mut self, n: u32) {
        self.local = self.local.wrapping_add(n);
        self.cons().store(self.local, Ordering::Release);
    }

    /// Producer side: free slots.
    pub(super) fn free(&self) -> u32 {
        RING - self.local.wrapping_sub(self.cons().load(Ordering::Acquire))
    }

    /// Producer side: publishes everything written up to `local`.
    pub(super) fn submit(&self) {
        self.prod().store(self.local, Ordering::Release);
    }

    /// Address-ring entry `i` (fill, completion).
    pub(super) fn addr(&self, i: u32) -> *mut u64 {
        // SAFETY: index masked into the ring's RING entries of 8 bytes.
        unsafe { (self.desc as *mut u64).add((i & (RING - 1)) as usize) }
    }

    /// Descriptor-ring entry `i` (rx, tx).
    pub(super) fn xdesc(&self, i: u32) -> *mut libc::xdp_desc {
        // SAFETY: index masked into the ring's RING descriptors.
        unsafe { (self.desc as *mut libc::xdp_desc).add((i & (RING - 1)) as usize) }
    }
}
