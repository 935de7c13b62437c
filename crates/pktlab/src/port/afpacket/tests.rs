use super::*;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

#[test]
fn missing_interface_is_a_one_line_error_naming_it() {
    let stop = Arc::new(AtomicBool::new(false));
    let e = AfPacketRx::open("pktlab-nosuch0", 0, None, stop).unwrap_err();
    assert!(
        e.contains("afpacket:pktlab-nosuch0: no such interface"),
        "{e}"
    );
    assert!(!e.contains('\n'));
    let e = AfPacketTx::open("pktlab-nosuch0", false).unwrap_err();
    assert!(e.contains("no such interface"), "{e}");
    let e = Iface::lookup("a-name-longer-than-ifnamsiz").unwrap_err();
    assert!(e.contains("1 to 15 bytes"), "{e}");
}

#[test]
fn loopback_round_trip_when_permitted() {
    // Needs CAP_NET_RAW; otherwise the error must name the capability.
    let stop = Arc::new(AtomicBool::new(false));
    let mut rx = match AfPacketRx::open("lo", 0, None, stop) {
        Ok(r) => r,
        Err(e) => {
            assert!(e.contains("CAP_NET_RAW") || e.contains("no such"), "{e}");
            eprintln!("skipped: {e}");
            return;
        }
    };
    let mut tx = AfPacketTx::open("lo", true).unwrap();
    // A frame with an unused EtherType, so the stack ignores it.
    let mut f = vec![0u8; 60];
    f[12..14].copy_from_slice(&0x88b5u16.to_be_bytes());
    f[14..22].copy_from_slice(b"pktlabrx");
    for i in 0..10u8 {
        f[22] = i;
        assert!(tx.push(&f));
    }
    tx.flush();
    let mut seen = Vec::new();
    let t = std::time::Instant::now();
    while seen.len() < 10 && t.elapsed().as_secs() < 5 {
        rx.wait(20);
        rx.visit(64, |d, _, _| {
            if d.len() >= 23 && &d[14..22] == b"pktlabrx" {
                seen.push(d[22]);
            }
        });
    }
    assert_eq!(seen, (0..10).collect::<Vec<u8>>());
}
