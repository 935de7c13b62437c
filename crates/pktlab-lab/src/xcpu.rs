//! Pinning threads to CPUs, and the host's cross-CPU latency.
//!
//! A virtual machine's two vCPUs run on whichever physical cores the host picks, and it moves
//! them: on the 2-vCPU guests pktlab is measured on, one cache line bounced between two threads
//! pinned to CPU 0 and CPU 1 takes either ≈ 70–100 ns or ≈ 400–480 ns per round trip, and the
//! state changes within seconds with nothing else changing in the guest. A measurement whose
//! packets cross between the two CPUs (the vhost-user loop: every ring index, descriptor and
//! frame) follows that state, so [`round_trip_ns`] is taken beside such runs and reported with
//! them.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The CPUs this thread may run on, in order (empty when the kernel does not say).
fn allowed() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity gets a pointer to it
    // and its size, and CPU_ISSET reads it.
    unsafe {
        let mut have: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut have) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &have))
            .collect()
    }
}

/// Pins the calling thread (and the threads it starts later) to `cpu` when the process may run
/// on at least two CPUs, `cpu` among them; otherwise leaves it alone. Returns whether it pinned.
pub(crate) fn pin(cpu: usize) -> bool {
    let have = allowed();
    if have.len() < 2 || !have.contains(&cpu) {
        return false;
    }
    // SAFETY: as in `allowed`; sched_setaffinity reads the set.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// Round trips per timed window of [`round_trip_ns`].
const WINDOW: u64 = 256;

/// The median time of one round trip of a cache line between a thread pinned to CPU `a` and
/// one pinned to CPU `b` (both started for the purpose: the caller's own CPU placement does not
/// change), over windows of 256 round trips (so that a window in which a thread
/// was descheduled is an outlier, not the result), measured for about `span`; ns. `None` when
/// the two threads cannot be pinned to two distinct CPUs (a 1-CPU process, or `a` or `b` not
/// allowed), or when no window completed.
pub fn round_trip_ns(a: usize, b: usize, span: Duration) -> Option<f64> {
    let have = allowed();
    if a == b || !have.contains(&a) || !have.contains(&b) {
        return None;
    }
    let line = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let echo = s.spawn(|| {
            if !pin(b) {
                stop.store(true, Ordering::Relaxed);
                return;
            }
            // Answers every odd value with the next even one.
            let mut want = 1;
            while !stop.load(Ordering::Relaxed) {
                if line.load(Ordering::Acquire) == want {
                    line.store(want + 1, Ordering::Release);
                    want += 2;
                } else {
                    std::hint::spin_loop();
                }
            }
        });
        let timed = s.spawn(|| {
            let mut windows = Vec::new();
            if pin(a) {
                let start = Instant::now();
                let mut v = 0;
                'timed: while start.elapsed() < span {
                    let t = Instant::now();
                    for _ in 0..WINDOW {
                        line.store(v + 1, Ordering::Release);
                        // The clock is read once per 4,096 spins, so that reading it does not
                        // delay seeing the answer.
                        let mut spins = 0u32;
                        while line.load(Ordering::Acquire) != v + 2 {
                            spins = spins.wrapping_add(1);
                            if spins.is_multiple_of(4096)
                                && (stop.load(Ordering::Relaxed) || start.elapsed() > span * 4)
                            {
                                break 'timed;
                            }
                            std::hint::spin_loop();
                        }
                        v += 2;
                    }
                    windows.push(t.elapsed().as_nanos() as f64 / WINDOW as f64);
                }
            }
            stop.store(true, Ordering::Relaxed);
            windows
        });
        let mut windows = timed.join().unwrap_or_default();
        stop.store(true, Ordering::Relaxed);
        let _ = echo.join();
        windows.sort_by(f64::total_cmp);
        windows.get(windows.len() / 2).copied()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_is_measured_between_two_cpus_only() {
        let have = allowed();
        // One CPU, or the same CPU twice: nothing to measure.
        assert_eq!(round_trip_ns(0, 0, Duration::from_millis(5)), None);
        assert_eq!(
            round_trip_ns(0, usize::MAX >> 8, Duration::from_millis(5)),
            None
        );
        if have.len() < 2 {
            return;
        }
        let ns = round_trip_ns(have[0], have[1], Duration::from_millis(20));
        // The caller's placement is untouched.
        assert_eq!(allowed(), have);
        // A round trip is two cache-line transfers: tens of ns at the least, and far below a
        // scheduler time slice (a window of 256 round trips is the unit, its median the result).
        let ns = ns.expect("two CPUs allowed: a round trip is measured");
        assert!(ns > 5.0 && ns < 1_000_000.0, "{ns} ns");
    }
}
