//! A duplex switch between two ports in one thread: two [`Worker`]s, A's receive → B's
//! transmit and B's receive → A's transmit, stepped in turn (one burst each per pass), as
//! DPDK testpmd's `io` forwarding serves its two ports from one lcore.
//!
//! Each direction keeps its own pool cache, scratch arrays and [`Counters`], so every packet
//! is accounted for per direction; both share the buffer pool and the metadata layout's
//! shared state. The output of the `full` stages (an AQM queue per worker) works too, each
//! direction with its own queue.

use super::worker::{Step, Worker};
use super::Counters;
use crate::mbuf::Layout;
use crate::port::{AnyRx, AnyTx, RxPort, TxPort};

/// Two workers in one thread, one per direction.
pub struct Duplex<L: Layout, R: RxPort = AnyRx, T: TxPort = AnyTx> {
    /// A → B: receives on the first port, transmits on the second.
    pub ab: Worker<L, R, T>,
    /// B → A: receives on the second port, transmits on the first.
    pub ba: Worker<L, R, T>,
}

impl<L: Layout, R: RxPort, T: TxPort> Duplex<L, R, T> {
    /// A duplex switch of the two directions' workers.
    pub fn new(ab: Worker<L, R, T>, ba: Worker<L, R, T>) -> Self {
        Duplex { ab, ba }
    }

    /// Steps both directions in turn until both inputs end (a live port: until its stop
    /// flag), then finishes both.
    pub fn run(&mut self) {
        let (mut ab, mut ba) = (true, true);
        while ab || ba {
            if ab {
                ab = self.ab.step() != Step::Done;
            }
            if ba {
                ba = self.ba.step() != Step::Done;
            }
        }
        self.ab.finish();
        self.ba.finish();
    }

    /// Both directions' counters summed.
    pub fn counters(&self) -> Counters {
        let mut c = self.ab.counters;
        c.add(&self.ba.counters);
        c
    }

    /// The transmit ports (B's, then A's).
    pub fn into_tx(self) -> (T, T) {
        (self.ab.into_tx(), self.ba.into_tx())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mbuf::{Dpdk, Pool};
    use crate::pipeline::parse::LinkKind;
    use crate::pipeline::worker::WorkerParts;
    use crate::pipeline::Stages;
    use crate::port::vhost_user::{VhostUserDev, VhostUserRx, VhostUserTx};
    use crate::port::virtio_user::connect;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    fn sock(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("pktlab-duplex-{}-{name}.sock", std::process::id()))
    }

    /// Frame `i` of direction `dir` (its first payload bytes say which).
    fn frame(dir: u8, i: u32) -> Vec<u8> {
        let mut f = vec![0u8; 60 + (i % 5) as usize * 90];
        f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        f[14] = 0x45;
        f[34] = dir;
        f[35..39].copy_from_slice(&i.to_be_bytes());
        f
    }

    fn worker(
        pool: &Arc<Pool>,
        rx: VhostUserRx,
        tx: VhostUserTx,
    ) -> Worker<Dpdk, VhostUserRx, VhostUserTx> {
        let parts = WorkerParts::new(pool.clone(), Stages::Io, LinkKind::Ethernet);
        let layout = Dpdk::new(Arc::default(), 32);
        Worker::new(parts, layout, rx, tx, 0)
    }

    /// Two frontends, one on each switch port, each sending its own numbered frames: each
    /// receives exactly the other's, in order and intact, and the per-direction counters
    /// account for every packet.
    #[test]
    fn a_duplex_switch_forwards_both_ways_and_accounts_for_every_packet() {
        let stop = Arc::new(AtomicBool::new(false));
        let (pa, pb) = (sock("a"), sock("b"));
        let a = VhostUserDev::open(&pa, false, 1, stop.clone()).unwrap();
        let b = VhostUserDev::open(&pb, false, 1, stop.clone()).unwrap();
        let pool = Arc::new(Dpdk::mbuf_pool(2048));
        let mut sw = Duplex::new(
            worker(&pool, a.rx(0, 0), b.tx(0)),
            worker(&pool, b.rx(0, 1), a.tx(0)),
        );
        let w = Duration::from_secs(5);
        let (mut rx_a, mut tx_a) = connect(&pa, 0, false, w, stop.clone()).unwrap();
        let (mut rx_b, mut tx_b) = connect(&pb, 1, false, w, stop.clone()).unwrap();
        let t = Instant::now();
        while !(a.running(0) && b.running(0)) {
            assert!(t.elapsed() < w, "rings never started");
            std::thread::sleep(Duration::from_millis(2));
        }
        let switch = std::thread::spawn(move || {
            sw.run();
            sw
        });
        let (na, nb) = (3000u32, 2000u32);
        let (mut sa, mut sb) = (0u32, 0u32);
        let (mut got_a, mut got_b) = (Vec::new(), Vec::new());
        let mut scratch = Vec::new();
        let t = Instant::now();
        while (got_a.len() < nb as usize || got_b.len() < na as usize)
            && t.elapsed() < Duration::from_secs(20)
        {
            // At most 256 frames in flight per direction: the receiving frontend's ring
            // never overflows (the switch would drop and count them).
            while sa < na && sa < got_b.len() as u32 + 256 && tx_a.push(&frame(b'a', sa)) {
                sa += 1;
            }
            while sb < nb && sb < got_a.len() as u32 + 256 && tx_b.push(&frame(b'b', sb)) {
                sb += 1;
            }
            tx_a.flush();
            tx_b.flush();
            rx_a.visit(64, &mut scratch, |f| got_a.push(f.to_vec()));
            rx_b.visit(64, &mut scratch, |f| got_b.push(f.to_vec()));
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let sw = switch.join().unwrap();
        assert_eq!(got_b.len(), na as usize, "A -> B");
        assert_eq!(got_a.len(), nb as usize, "B -> A");
        for (i, f) in got_b.iter().enumerate() {
            assert_eq!(f, &frame(b'a', i as u32), "A -> B frame {i}");
        }
        for (i, f) in got_a.iter().enumerate() {
            assert_eq!(f, &frame(b'b', i as u32), "B -> A frame {i}");
        }
        let (ab, ba) = (sw.ab.counters, sw.ba.counters);
        assert_eq!((ab.rx, ab.tx), (na as u64, na as u64));
        assert_eq!((ba.rx, ba.tx), (nb as u64, nb as u64));
        assert_eq!(sw.counters().rx, (na + nb) as u64);
        assert_eq!(
            ab.burst_log2.iter().sum::<u64>(),
            ab.batches,
            "every burst in the histogram"
        );
        let (txb, txa) = sw.into_tx();
        let (xb, xa) = (txb.counters().snapshot(), txa.counters().snapshot());
        assert_eq!((xb.tx, xb.tx_dropped()), (na as u64, 0));
        assert_eq!((xa.tx, xa.tx_dropped()), (nb as u64, 0));
    }
}
