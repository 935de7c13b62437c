//! Generated pcaps must read cleanly in tshark (no malformed packets, valid IPv4/UDP/TCP
//! checksums with checksum validation switched on). Skipped when tshark is not installed.

use pktlab::ccn::tlv;
use pktlab::io::pcap_write::{build_frame, tcp_flags, Ips, PcapWriter, L4};
use pktlab::traffic::{FlowStream, NameStream, ZipfTable};
use std::process::Command;

fn tshark_check(name: &str, frames: &[Vec<u8>]) {
    if Command::new("tshark").arg("-v").output().is_err() {
        eprintln!("skipped: tshark not installed");
        return;
    }
    let path = std::env::temp_dir().join(format!("pktlab-{name}-{}.pcap", std::process::id()));
    let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write(i as u64 * 1_000, f).unwrap();
    }
    w.finish().unwrap();
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(&path)
        .args([
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "udp.check_checksum:TRUE",
            "-o",
            "tcp.check_checksum:TRUE",
            "-T",
            "fields",
            "-e",
            "_ws.malformed",
            "-e",
            "ip.checksum.status",
            "-e",
            "udp.checksum.status",
            "-e",
            "tcp.checksum.status",
        ])
        .output()
        .unwrap();
    std::fs::remove_file(&path).ok();
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), frames.len());
    for (i, l) in lines.iter().enumerate() {
        let f: Vec<&str> = l.split('\t').collect();
        assert!(f[0].is_empty(), "{name} frame {}: malformed: {l}", i + 1);
        // Status 1 = good; IPv6 has no header checksum (empty field).
        assert!(
            f[1] == "1" || f[1].is_empty(),
            "{name} frame {}: ip checksum {l}",
            i + 1
        );
        assert!(
            f[2] == "1" || f[3] == "1",
            "{name} frame {}: l4 checksum {l}",
            i + 1
        );
    }
}

#[test]
fn ccn_pcap_reads_cleanly_in_tshark() {
    let t = ZipfTable::new(0.8, 1 << 26, 1 << 12).unwrap();
    let mut s = NameStream::new(&t, 1, 4);
    let (mut uri, mut name, mut pkt) = (String::new(), Vec::new(), Vec::new());
    let mut frames = Vec::new();
    let udp = L4::Udp {
        sport: tlv::CEFORE_PORT,
        dport: tlv::CEFORE_PORT,
    };
    for i in 0..2000 {
        let (r, c) = s.next_name();
        NameStream::write_uri("/cefore", r, c, &mut uri);
        tlv::name_from_uri(&uri, &mut name);
        if i % 2 == 0 {
            tlv::build_interest(&mut pkt, &name, 32);
        } else {
            tlv::build_data(&mut pkt, &name, &[0x5A; 33]);
        }
        let ips = if i % 4 < 2 {
            Ips::V4(0x0A00_0002, 0x0A00_0001)
        } else {
            Ips::V6(0xFD00 << 112 | 2, 0xFD00 << 112 | 1)
        };
        let mut f = Vec::new();
        build_frame(&mut f, ips, udp, &pkt).unwrap();
        frames.push(f);
    }
    tshark_check("ccn", &frames);
}

#[test]
fn flow_pcap_reads_cleanly_in_tshark() {
    let t = ZipfTable::new(1.0, 1 << 20, 1 << 12).unwrap();
    let mut s = FlowStream::new(&t, 1);
    let zeros = [0u8; 1500];
    let mut frames = Vec::new();
    for i in 0..5000u32 {
        let (k, len) = s.next_packet();
        let mut f = Vec::new();
        let l4 = if k.proto == 6 {
            L4::Tcp {
                sport: k.sport,
                dport: k.dport,
                seq: i,
                ack: 1,
                flags: tcp_flags::ACK,
            }
        } else {
            L4::Udp {
                sport: k.sport,
                dport: k.dport,
            }
        };
        let hdr = if k.proto == 6 { 40 } else { 28 };
        build_frame(&mut f, Ips::from_key(&k), l4, &zeros[..len as usize - hdr]).unwrap();
        frames.push(f);
    }
    tshark_check("flows", &frames);
}
