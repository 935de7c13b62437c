//! The driver's side of a split virtqueue (the virtio-user frontend, a CNF): it makes buffers
//! available and takes them back used. The device's side is [`super::DeviceQueue`].

use super::{Desc, RingAddrs, F_WRITE};
use std::sync::atomic::Ordering;
use virtio_bindings::virtio_ring::{VRING_AVAIL_F_NO_INTERRUPT, VRING_USED_F_NO_NOTIFY};

/// The driver's view of a queue (the virtio-user frontend): one fixed buffer of `buf_len`
/// bytes per descriptor, all inside the shared memory.
pub struct DriverQueue {
    pub(super) ring: RingAddrs,
    bufs: *mut u8,
    bufs_gpa: u64,
    buf_len: u32,
    free: Vec<u16>,
    in_flight: Vec<bool>,
    avail_idx: u16,
    last_used: u16,
}

// SAFETY: the queue's memory belongs to the port that owns it (the shared mapping outlives it).
unsafe impl Send for DriverQueue {}

impl DriverQueue {
    /// A queue over `ring` whose descriptor `i` owns the buffer at `bufs + i * buf_len`
    /// (driver-physical `bufs_gpa + i * buf_len`). Marks the ring "no interrupts": this
    /// driver polls.
    pub fn new(ring: RingAddrs, bufs: *mut u8, bufs_gpa: u64, buf_len: u32) -> DriverQueue {
        ring.u16_at(ring.avail, 0)
            .store(VRING_AVAIL_F_NO_INTERRUPT as u16, Ordering::Release);
        let free = (0..ring.size).rev().collect();
        DriverQueue {
            ring,
            bufs,
            bufs_gpa,
            buf_len,
            free,
            in_flight: vec![false; ring.size as usize],
            avail_idx: 0,
            last_used: 0,
        }
    }

    /// Descriptors not currently given to the device.
    pub fn free(&self) -> usize {
        self.free.len()
    }

    /// Gives a free descriptor's buffer to the device after `fill` wrote into it (returning
    /// the bytes to expose; `write`: a device-writable buffer of the full length). False if
    /// no descriptor is free.
    #[inline(always)]
    pub fn give(&mut self, write: bool, fill: impl FnOnce(*mut u8, usize) -> usize) -> bool {
        let Some(i) = self.free.pop() else {
            return false;
        };
        // SAFETY: i < size, so the buffer lies inside the region `new` was given.
        let p = unsafe { self.bufs.add(i as usize * self.buf_len as usize) };
        let len = fill(p, self.buf_len as usize).min(self.buf_len as usize);
        self.in_flight[i as usize] = true;
        self.ring.write_desc(
            i,
            Desc {
                addr: self.bufs_gpa + i as u64 * self.buf_len as u64,
                len: len as u32,
                flags: if write { F_WRITE } else { 0 },
                next: 0,
            },
        );
        self.ring
            .avail_ring(self.avail_idx)
            .store(i, Ordering::Relaxed);
        self.avail_idx = self.avail_idx.wrapping_add(1);
        true
    }

    /// Makes the buffers given so far visible; true if the device wants a notification.
    #[inline(always)]
    pub fn publish(&mut self) -> bool {
        self.ring
            .avail_idx()
            .store(self.avail_idx, Ordering::Release);
        std::sync::atomic::fence(Ordering::SeqCst);
        self.ring.used_flags().load(Ordering::Relaxed) & VRING_USED_F_NO_NOTIFY as u16 == 0
    }

    /// Buffers the device has returned and [`Self::reclaim`] has not taken yet.
    #[inline(always)]
    pub fn used_pending(&self) -> usize {
        self.ring
            .used_idx()
            .load(Ordering::Acquire)
            .wrapping_sub(self.last_used) as usize
    }

    /// Takes back up to `max` used buffers, calling `f(buffer, bytes written)` for each (an
    /// id the device made up is skipped and counted in the returned `bad`). Returns
    /// (taken, bad).
    #[inline(always)]
    pub fn reclaim(&mut self, max: usize, mut f: impl FnMut(*const u8, usize)) -> (usize, u64) {
        let used = self.ring.used_idx().load(Ordering::Acquire);
        let n = (used.wrapping_sub(self.last_used) as usize).min(max);
        let mut bad = 0;
        for _ in 0..n {
            let (id, len) = self.ring.read_used(self.last_used);
            self.last_used = self.last_used.wrapping_add(1);
            if id >= self.ring.size as u32 || !self.in_flight[id as usize] {
                bad += 1;
                continue;
            }
            self.in_flight[id as usize] = false;
            // SAFETY: id < size: the descriptor's own buffer.
            let p = unsafe { self.bufs.add(id as usize * self.buf_len as usize) };
            f(p, (len as usize).min(self.buf_len as usize));
            self.free.push(id as u16);
        }
        (n, bad)
    }
}
