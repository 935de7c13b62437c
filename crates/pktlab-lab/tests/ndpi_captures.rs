//! Every nDPI test capture (`../shared/data/traces/ndpi-captures/`, 543 pcap/pcapng files with
//! Ethernet, raw IP, Linux SLL, VLAN, IPv6, fragments and odd packets) reads without a panic
//! through the streaming flow reader, and the per-file counts on a sample match tshark's
//! (recorded below; see `docs/results/flowcache.md` for the tshark commands).

use pktlab::flowcache::TraceSource;
use std::path::PathBuf;

fn dir() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/traces/ndpi-captures"
    ));
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipped: no shared data");
        None
    }
}

fn counts(p: PathBuf) -> (u64, u64, u64) {
    let mut s = TraceSource::Pcap(p).open().expect("open");
    let mut buf = Vec::new();
    while s.fill(&mut buf, 4096) {}
    let r = s.report();
    (r.packets, r.flows, r.skipped)
}

#[test]
fn all_ndpi_captures_read_without_panic() {
    let Some(d) = dir() else { return };
    let mut files: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let (mut ok, mut rejected, mut packets, mut flows) = (0, 0, 0u64, 0u64);
    for f in &files {
        match TraceSource::Pcap(f.clone()).open() {
            Ok(mut s) => {
                let mut buf = Vec::new();
                while s.fill(&mut buf, 4096) {}
                let r = s.report();
                packets += r.packets;
                flows += r.flows;
                ok += 1;
            }
            Err(e) => {
                let m = e.to_string();
                assert!(!m.contains('\n'), "{m}");
                rejected += 1;
            }
        }
    }
    eprintln!(
        "{} files: {ok} read, {rejected} rejected; {packets} IP packets, {flows} flows",
        files.len()
    );
    assert!(ok >= 500, "only {ok} captures read");
}

/// `(file, IP packets, distinct 5-tuples)` as counted by tshark 4.0 with
/// `-o ip.defragment:FALSE -o ipv6.defragment:FALSE` (see the results doc for the script).
const TSHARK: &[(&str, u64, u64)] = include!("ndpi_tshark_counts.in");

#[test]
fn counts_match_tshark_on_a_sample() {
    let Some(d) = dir() else { return };
    for &(f, packets, flows) in TSHARK {
        let (p, fl, _) = counts(d.join(f));
        assert_eq!((p, fl), (packets, flows), "{f}");
    }
}

#[test]
fn mutated_and_cut_captures_never_panic() {
    let Some(d) = dir() else { return };
    let mut rng = pktlab::util::XorShift64::new(42);
    for name in ["1kxun.pcap", "http.pcapng", "dns.pcap"] {
        let Ok(orig) = std::fs::read(d.join(name)) else {
            continue;
        };
        for round in 0..60 {
            let mut data = orig.clone();
            // Flip a few bytes (past the first 8, so most stay recognisable captures) and cut.
            for _ in 0..1 + round % 8 {
                let i = 8 + (rng.next() as usize) % (data.len() - 8);
                data[i] = rng.next() as u8;
            }
            let cut = 8 + (rng.next() as usize) % (data.len() - 8);
            data.truncate(cut);
            let f = std::env::temp_dir()
                .join(format!("pktlab-mut-{}-{round}-{name}", std::process::id()));
            std::fs::write(&f, &data).unwrap();
            if let Ok(mut s) = TraceSource::Pcap(f.clone()).open() {
                let mut buf = Vec::new();
                while s.fill(&mut buf, 512) {}
                let r = s.report();
                assert!(r.packets + r.skipped <= 100_000);
            }
            let _ = std::fs::remove_file(&f);
        }
    }
}
