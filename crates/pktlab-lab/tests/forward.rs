//! `pktlab forward` end to end: an nDPI capture (pcap), a pcapng capture and the synthetic
//! trace go through the full pipeline into a pcap; every packet is accounted for
//! (in = forwarded + each drop reason), with 1 and 2 workers and with a route-update stream
//! applied while forwarding; tshark reads the output with no malformed packet, every IPv4
//! TTL / IPv6 hop limit one lower than in the input and every checksum valid. The tshark
//! part is skipped (with a message) when tshark is not installed; the captures part when the
//! shared data is absent.

use pktlab::mbuf::MetaKind;
use pktlab::pipeline::Stages;
use pktlab::port::{RxSpec, TxSpec};
use pktlab_lab::forward::{forward, ForwardConfig, ForwardResult, TableSpec};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn ndpi(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/traces/ndpi-captures"
    ))
    .join(name);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipped: no shared data");
        None
    }
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("pktlab-fwd-{}-{name}", std::process::id()))
}

fn has_tshark() -> bool {
    let ok = Command::new("tshark").arg("-v").output().is_ok();
    if !ok {
        eprintln!("skipped: tshark not installed");
    }
    ok
}

const FIELDS: [&str; 13] = [
    "_ws.malformed",
    "frame.time_epoch",
    "ip.src",
    "ip.dst",
    "ip.id",
    "ip.ttl",
    "ip.checksum.status",
    "ipv6.src",
    "ipv6.dst",
    "ipv6.plen",
    "ipv6.hlim",
    "udp.checksum.status",
    "tcp.checksum.status",
];

fn tshark_rows(p: &Path) -> Vec<Vec<String>> {
    let mut cmd = Command::new("tshark");
    cmd.args(["-n", "-r"]).arg(p).args([
        "-o",
        "ip.check_checksum:TRUE",
        "-o",
        "udp.check_checksum:TRUE",
        "-o",
        "tcp.check_checksum:TRUE",
        "-T",
        "fields",
        "-E",
        "occurrence=f",
    ]);
    for f in FIELDS {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("tshark runs");
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// The identity of a packet across the router: time, addresses, IPv4 id / IPv6 length.
fn key(r: &[String]) -> String {
    let t: f64 = r[1].parse().unwrap_or(0.0);
    format!(
        "{t:.6}|{}|{}|{}|{}|{}|{}",
        r[2], r[3], r[4], r[7], r[8], r[9]
    )
}

fn accounted(r: &ForwardResult) {
    let d = r.dropped;
    assert_eq!(
        r.packets,
        r.forwarded + d.parse + d.ttl + d.no_route + d.aqm,
        "{r:?}"
    );
    assert!(r.forwarded > 0, "{r:?}");
}

fn config(rx: RxSpec, out: &Path) -> ForwardConfig {
    ForwardConfig {
        table: TableSpec::Synthetic(50_000, 10_000),
        rx,
        tx: TxSpec::Pcap(out.to_path_buf()),
        batch: 64,
        packets: 30_000,
        ..ForwardConfig::default()
    }
}

/// Runs `cfg`; checks the accounting and, with tshark, the output against `input`.
fn run_and_check(cfg: &ForwardConfig, input: &Path, l4_good: bool) -> ForwardResult {
    let r = forward(cfg, &pktlab_lab::Silent).unwrap();
    accounted(&r);
    let TxSpec::Pcap(out) = &cfg.tx else {
        unreachable!()
    };
    if has_tshark() {
        let mut before: HashMap<String, Vec<String>> = HashMap::new();
        for row in tshark_rows(input) {
            before.insert(key(&row), row);
        }
        let after = tshark_rows(out);
        assert_eq!(after.len() as u64, r.forwarded);
        for (i, row) in after.iter().enumerate() {
            let n = i + 1;
            assert!(row[0].is_empty(), "frame {n}: malformed: {row:?}");
            let src = before
                .get(&key(row))
                .unwrap_or_else(|| panic!("frame {n}: no input packet {row:?}"));
            if !row[5].is_empty() {
                let (a, b): (u8, u8) = (row[5].parse().unwrap(), src[5].parse().unwrap());
                assert_eq!(a + 1, b, "frame {n}: ttl");
                assert_eq!(row[6], "1", "frame {n}: ipv4 header checksum {row:?}");
            } else {
                let (a, b): (u8, u8) = (row[10].parse().unwrap(), src[10].parse().unwrap());
                assert_eq!(a + 1, b, "frame {n}: hop limit");
            }
            // Transport checksums are untouched by forwarding (TTL is not in the pseudo-header).
            assert_eq!((&row[11], &row[12]), (&src[11], &src[12]), "frame {n}");
            if l4_good {
                assert!(
                    row[11] == "1" || row[12] == "1" || row[11].is_empty() && row[12].is_empty(),
                    "frame {n}: {row:?}"
                );
            }
        }
    }
    let _ = std::fs::remove_file(out);
    r
}

#[test]
fn ndpi_pcap_and_pcapng_forward_cleanly() {
    // Captures are mostly private addresses: a small table with default routes.
    let (t4, t6) = (temp("t4.txt"), temp("t6.txt"));
    std::fs::write(&t4, "0.0.0.0/0 1\n10.0.0.0/8 2\n192.168.0.0/16 3\n").unwrap();
    std::fs::write(&t6, "::/0 1\nfe80::/10 2\n").unwrap();
    for name in ["1kxun.pcap", "anydesk.pcapng"] {
        let Some(p) = ndpi(name) else { return };
        for workers in [1, 2] {
            let out = temp(&format!("{workers}-{name}.pcap"));
            let cfg = ForwardConfig {
                workers,
                table: TableSpec::Files(vec![t4.clone(), t6.clone()]),
                nexthops: "file".parse().unwrap(),
                ..config(RxSpec::Pcap(p.clone()), &out)
            };
            let r = run_and_check(&cfg, &p, false);
            if name == "1kxun.pcap" {
                assert!(r.dropped.ttl > 0, "1kxun has TTL-1 multicast: {r:?}");
            } else {
                // 27 frames with a bad IPv4 header checksum (tshark agrees), 1 over 2,048 B.
                assert_eq!(r.parse_detail.checksum, 27, "{r:?}");
                assert_eq!(r.parse_detail.unloadable, 1, "{r:?}");
            }
        }
    }
    let _ = std::fs::remove_file(&t4);
    let _ = std::fs::remove_file(&t6);
}

#[test]
fn synthetic_trace_forwards_cleanly_with_updates() {
    // The input frames as a pcap: the io stage passes them through unchanged.
    let input = temp("synth-in.pcap");
    let io = ForwardConfig {
        stages: Stages::Io,
        ..config(RxSpec::Synthetic, &input)
    };
    let r = forward(&io, &pktlab_lab::Silent).unwrap();
    assert_eq!(r.forwarded, 30_000);
    // An update stream that toggles routes over the synthetic destinations (1.0.0.0/8).
    let upd = temp("updates.txt");
    let mut text = String::new();
    for i in 0..20_000u32 {
        let p = format!("1.{}.{}.0/24", (i >> 8) & 0xff, i & 0xff);
        if i % 3 == 2 {
            text.push_str(&format!("W {p}\n"));
        } else {
            text.push_str(&format!("A {p} {}\n", 1 + i % 5));
        }
    }
    std::fs::write(&upd, text).unwrap();
    for (workers, meta, updates) in [
        (1, MetaKind::CompactConst, None),
        (2, MetaKind::Dpdk, None),
        (2, MetaKind::CompactAlloc, Some(upd.clone())),
    ] {
        let out = temp(&format!("synth-{workers}-{}.pcap", meta.name()));
        let cfg = ForwardConfig {
            workers,
            meta,
            updates: updates.clone(),
            repeat: 1,
            ..config(RxSpec::Synthetic, &out)
        };
        let r = run_and_check(&cfg, &input, true);
        assert_eq!(r.packets, 30_000);
        assert!(r.cache.hit_rate.unwrap() > 0.0, "{:?}", r.cache);
        if updates.is_some() {
            let u = r.updates.unwrap();
            assert!(u.applied > 0 && u.publishes > 0, "{u:?}");
        }
    }
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&upd);
}
