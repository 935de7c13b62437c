//! The rule for empty inputs (README, "Exit status"): every subcommand that reads packets or
//! update events exits 2 with one line naming the file when the input has no usable record,
//! and writes no output file; `aqm bench --packets` takes the size forms of other counts.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pktlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pktlab"))
        .args(args)
        .output()
        .expect("run pktlab")
}

/// A fresh directory for one test's files.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pktlab-empty-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A pcap global header (Ethernet, microseconds) followed by `frames`.
fn pcap(path: &Path, frames: &[&[u8]]) {
    let mut b = Vec::new();
    b.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&4u16.to_le_bytes());
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&65535u32.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    for (i, f) in frames.iter().enumerate() {
        b.extend_from_slice(&(i as u32 + 1).to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&(f.len() as u32).to_le_bytes());
        b.extend_from_slice(&(f.len() as u32).to_le_bytes());
        b.extend_from_slice(f);
    }
    std::fs::write(path, b).unwrap();
}

/// An ARP request in Ethernet: a record, but not an IP packet.
fn arp() -> Vec<u8> {
    let mut f = vec![0xff; 6];
    f.extend_from_slice(&[2, 0, 0, 0, 0, 1, 0x08, 0x06]);
    f.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    f.extend_from_slice(&[2, 0, 0, 0, 0, 1, 10, 0, 0, 1]);
    f.extend_from_slice(&[0; 6]);
    f.extend_from_slice(&[10, 0, 0, 2]);
    f
}

/// Exit 2 and exactly one error line on stderr (progress notes aside), the last, containing
/// `want`.
fn refused(args: &[&str], want: &str) {
    let o = pktlab(args);
    let err = String::from_utf8_lossy(&o.stderr);
    let errors: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("pktlab: error: "))
        .collect();
    let last = err.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        errors.len() == 1 && errors[0] == last && last.contains(want),
        "{args:?}: want one error line with {want:?}, got {err}"
    );
}

#[test]
fn every_packet_reader_refuses_an_input_without_packets() {
    let d = dir("packets");
    let empty = d.join("empty.pcap");
    pcap(&empty, &[]);
    let nonip = d.join("arp.pcap");
    pcap(&nonip, &[&arp(), &arp()]);
    let out = d.join("out.compact");
    for f in [&empty, &nonip] {
        let p = f.to_str().unwrap();
        let want = format!("no packets in {p}");
        refused(&["trace", "stats", "--trace", p], &want);
        refused(&["trace", "stats", "--trace", p, "--json"], &want);
        refused(
            &[
                "trace",
                "convert",
                "--trace",
                p,
                "--out",
                out.to_str().unwrap(),
            ],
            &want,
        );
        assert!(!out.exists(), "trace convert left {}", out.display());
        refused(&["cache", "sim", "--trace", p], &want);
        refused(&["cache", "sweep", "--trace", p], &want);
    }
    // `forward` counts non-IP frames as packets (dropped as `non_ip`): only a capture without
    // any frame is empty for it.
    let p = empty.to_str().unwrap();
    refused(&["forward", "--rx", &format!("pcap:{p}")], p);
    // The skipped records are counted in the message.
    refused(
        &["trace", "stats", "--trace", nonip.to_str().unwrap()],
        "(2 non-IP or unparsable records skipped)",
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_update_stream_without_events_is_refused() {
    let d = dir("updates");
    let empty = d.join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let comments = d.join("comments.txt");
    std::fs::write(&comments, "# nothing but a comment\n").unwrap();
    for f in [&empty, &comments] {
        let p = f.to_str().unwrap();
        let want = format!("no v4 update events in {p}");
        refused(
            &[
                "lpm",
                "verify",
                "--synthetic-routes",
                "1000",
                "--updates",
                p,
            ],
            &want,
        );
        refused(
            &[
                "lpm",
                "bench",
                "--synthetic-routes",
                "1000",
                "--lookups",
                "1000",
                "--updates",
                p,
            ],
            &want,
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn aqm_bench_takes_sizes_like_other_counts() {
    let o = pktlab(&[
        "aqm",
        "bench",
        "--aqm",
        "droptail",
        "--flows",
        "10",
        "--buffer",
        "1K",
        "--packets",
        "2K",
        "--reps",
        "1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = v.to_string();
    assert!(s.contains("\"packets\":2048"), "{s}");
    assert!(s.contains("\"buffer\":1024"), "{s}");
}
