use super::*;

#[test]
fn specs_parse_and_print() {
    let s: AfXdpSpec = "afxdp:veth0".parse().unwrap();
    assert_eq!(
        (s.iface.as_str(), s.queue, s.bind),
        ("veth0", 0, XdpBind::Auto)
    );
    let s: AfXdpSpec = "afxdp:eth1,queue=3,zerocopy".parse().unwrap();
    assert_eq!((s.queue, s.bind), (3, XdpBind::ZeroCopy));
    assert_eq!(s.to_string(), "afxdp:eth1,queue=3,zerocopy");
    let e = "afxdp:eth1,queue=x"
        .parse::<AfXdpSpec>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("option 2 \"queue=x\""), "{e}");
    let e = "afxdp:".parse::<AfXdpSpec>().unwrap_err().to_string();
    assert!(e.contains("interface name"), "{e}");
    assert!("afxdp:eth0,fast".parse::<AfXdpSpec>().is_err());
}

#[test]
fn missing_interface_is_a_one_line_error() {
    let spec: AfXdpSpec = "afxdp:pktlab-nosuch0".parse().unwrap();
    let e = open(&spec, 0, Arc::new(AtomicBool::new(false)))
        .err()
        .expect("no such interface")
        .to_string();
    assert!(
        e.starts_with("afxdp:pktlab-nosuch0: no such interface"),
        "{e}"
    );
    assert!(!e.contains('\n'));
}

#[test]
fn frame_hash_covers_the_addresses() {
    let mut f = vec![0u8; 60];
    f[12] = 0x08;
    let a = frame_hash(&f);
    f[33] = 1;
    assert_ne!(frame_hash(&f), a);
    f[40] = 9; // past the addresses: same hash
    let b = frame_hash(&f);
    f[40] = 0;
    assert_eq!(frame_hash(&f), b);
}

#[test]
fn local_addresses_include_loopback() {
    let (v4, _) = local_addresses();
    assert!(v4.contains(&[127, 0, 0, 1]), "{v4:?}");
}

/// Runs `f` in a fresh network namespace of this thread only (gone when the thread
/// ends), with veth pair `xa` — `xb` up; `None` without the rights (not root).
fn in_private_netns<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> Option<R> {
    std::thread::spawn(move || {
        // SAFETY: unshare affects only this thread's namespaces.
        if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
            return None;
        }
        let ip = |a: &str| {
            std::process::Command::new("ip")
                .args(a.split(' '))
                .status()
                .is_ok_and(|s| s.success())
        };
        if !(ip("link add xa type veth peer name xb")
            && ip("link set xa up")
            && ip("link set xb up")
            && ip("addr add 10.7.0.1/24 dev xb"))
        {
            return None;
        }
        Some(f())
    })
    .join()
    .expect("test thread")
}

#[test]
fn redirects_transit_ip_passes_arp_and_local_and_transmits() {
    use crate::mbuf::{Dpdk, Layout as _, PoolCache};
    use crate::port::afpacket::{AfPacketRx, AfPacketTx};
    let r = in_private_netns(|| {
        let stop = Arc::new(AtomicBool::new(false));
        let spec: AfXdpSpec = "afxdp:xb,drv".parse().unwrap();
        let (mut rx, mut tx) = match open(&spec, 0, stop.clone()) {
            Ok(p) => p,
            Err(AfXdpError::Unavailable(..)) => {
                return Err("no XDP program in this build".to_string())
            }
            Err(e) => panic!("{e}"),
        };
        let mut inj = AfPacketTx::open("xa", true).unwrap();
        let mut cap = AfPacketRx::open("xa", 0, None, stop.clone()).unwrap();
        // IPv4 to 10.9.0.5 (transit), to 10.7.0.1 (xb's own address), and an ARP frame.
        let frame = |dst: [u8; 4], et: u16| {
            let mut f = vec![0u8; 60];
            f[..6].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
            f[12..14].copy_from_slice(&et.to_be_bytes());
            f[14] = 0x45;
            f[16..18].copy_from_slice(&46u16.to_be_bytes());
            f[22] = 64;
            f[23] = 17;
            f[30..34].copy_from_slice(&dst);
            f
        };
        for _ in 0..5 {
            assert!(inj.push(&frame([10, 9, 0, 5], 0x0800)));
            assert!(inj.push(&frame([10, 7, 0, 1], 0x0800)));
            assert!(inj.push(&frame([10, 9, 0, 5], 0x0806)));
        }
        inj.flush();
        Dpdk::shared(64, 1);
        let mut layout = Dpdk::new(Arc::new(()), 64);
        let pool = Dpdk::mbuf_pool(256);
        let mut cache = PoolCache::new(32);
        let mut got = Vec::new();
        let mut dsts = Vec::new();
        let t = std::time::Instant::now();
        while dsts.len() < 5 && t.elapsed().as_secs() < 5 {
            assert!(layout.begin(64));
            let mut ctx = Bufs::new(&pool, &mut cache, &mut layout);
            let n = rx.rx_burst(&mut ctx, &mut got, 64);
            for (i, b) in got.iter().enumerate().take(n) {
                let len = ctx.layout.data_len(&pool, b, i) as usize;
                let d = &pool.data(b)[..len];
                dsts.push((
                    u16::from_be_bytes([d[12], d[13]]),
                    [d[30], d[31], d[32], d[33]],
                ));
            }
            // Send them back out of xb.
            let lens: Vec<u16> = (0..n)
                .map(|i| ctx.layout.data_len(&pool, &got[i], i))
                .collect();
            tx.tx_burst(&mut ctx, &mut got, &lens, &vec![0; n]);
            layout.end();
        }
        assert_eq!(
            dsts,
            vec![(0x0800, [10, 9, 0, 5]); 5],
            "only transit IPv4 is redirected"
        );
        let st = rx.stats();
        assert_eq!(st.xdp_redirected, 5);
        assert!(st.xdp_passed >= 10, "{st:?}");
        assert_eq!(tx.stats().tx, 5);
        // What afxdp sent arrives on the peer.
        let mut seen = 0;
        let t = std::time::Instant::now();
        while seen < 5 && t.elapsed().as_secs() < 2 {
            cap.wait(20);
            cap.visit(64, |d, _, _| {
                seen += (d.len() >= 34 && d[30..34] == [10, 9, 0, 5]) as usize
            });
        }
        assert_eq!(seen, 5, "the peer receives what afxdp sent");
        Ok(rx.mode())
    });
    match r {
        None => eprintln!("skipped: needs root (unshare, veth, XDP)"),
        Some(Err(why)) => eprintln!("skipped: {why}"),
        Some(Ok(mode)) => eprintln!(
            "afxdp on veth: program in {} mode, zero-copy {}",
            mode.0, mode.1
        ),
    }
}
