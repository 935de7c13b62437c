//! The forwarding pipeline (parse → Poptrie → TTL rewrite → tx) reading from a user's port.
use pktlab::io::pcap_write::{build_frame, Ips, L4};
use pktlab::lpm::{shared, Lpm, Poptrie};
use pktlab::mbuf::{CompactConst as Meta, Layout, RxMeta};
use pktlab::pipeline::{parse::LinkKind, worker::*, Stages};
use pktlab::{net::NextHop, port::*};
use std::sync::Arc;
struct MyRx(Vec<Vec<u8>>); // the frames still to receive, the next one last
impl RxPort for MyRx {
    fn rx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, out: &mut Burst, max: usize) -> usize {
        let (n, at, mut meta) = (max.min(self.0.len()), out.len(), RxMeta::default());
        let got = n > 0 && c.cache.get_bulk(c.pool, n, out); // all n buffers, or none
        for (i, b) in out[at..].iter_mut().enumerate() {
            let f = self.0.pop().expect("n frames left");
            c.pool.data_mut(b)[..f.len()].copy_from_slice(&f);
            meta.len = f.len() as u16;
            c.layout.rx_init(c.pool, b, at + i, &meta);
        }
        n * got as usize
    }
}
fn main() {
    let mut fib = Poptrie::<u32>::new(Default::default());
    fib.insert("10.0.0.0/25".parse().unwrap(), NextHop::new(1).unwrap());
    let udp = |n: u32| {
        let (mut f, ips) = (Vec::new(), Ips::V4(0xC000_0201, 0x0A00_0000 + n)); // to 10.0.0.n
        build_frame(&mut f, ips, L4::Udp { sport: 1, dport: 2 }, b"hi").map(|_| f)
    };
    let frames: Result<Vec<_>, _> = (1..=255).map(udp).collect();
    let pool = Arc::new(Meta::<16>::mbuf_pool(512));
    let mut parts = WorkerParts::new(pool, Stages::L3, LinkKind::Ethernet);
    let (_writer, reader) = shared::concurrent(fib); // the table lives while its writer does
    parts.tables = Some(Tables::v4(reader));
    let layout = Meta::<16>::new(Arc::new(()), 32);
    let rx = MyRx(frames.expect("small frames"));
    let mut w = Worker::new(parts, layout, rx, NullTx::default(), 0);
    w.run();
    println!("{:?}", w.counters); // 10.0.0.1..=127 match the /25, 128..=255 have no route
    assert_eq!((w.counters.tx, w.counters.no_route), (127, 128));
}
