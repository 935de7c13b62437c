//! Impossible parameters are refused (issue 12): every subcommand is run with values that
//! cannot work — zero or negative sizes, rates, durations and batch sizes, more ways than
//! entries, Zipf α ≤ 0, a table with no route — and must exit non-zero with exactly one line
//! on stderr that names the flag, without panicking and before doing any work.
//!
//! To cover a new flag, add a row to [`CASES`]: the command line (values are given as
//! `--flag=VALUE` so that negative numbers reach the flag) and the flag the message must name.

use std::process::Command;

/// `EMPTY` in a command line is replaced by the path of an empty table file.
const EMPTY: &str = "@EMPTY@";

/// (command line, flag the one-line error must name).
const CASES: &[(&[&str], &str)] = &[
    // lpm bench / verify
    (&["lpm", "bench", "--lookups=0"], "--lookups"),
    (&["lpm", "bench", "--lookups=-1"], "--lookups"),
    (&["lpm", "bench", "--threads=0"], "--threads"),
    (&["lpm", "bench", "--runs=0"], "--runs"),
    (&["lpm", "bench", "--batch=0"], "--batch"),
    (&["lpm", "bench", "--pregen=-5"], "--pregen"),
    (&["lpm", "bench", "--publish-every=0"], "--publish-every"),
    (
        &["lpm", "bench", "--by-depth", "--depth-samples=0"],
        "--depth-samples",
    ),
    (
        &["lpm", "bench", "--by-depth", "--depth-rounds=0"],
        "--depth-rounds",
    ),
    (
        &["lpm", "bench", "--synthetic-routes=0"],
        "--synthetic-routes",
    ),
    (&["lpm", "bench", "--traffic=zipf:0"], "--traffic"),
    (&["lpm", "bench", "--traffic=zipf:-1.5"], "--traffic"),
    (&["lpm", "bench", "--seed=-1"], "--seed"),
    (&["lpm", "bench", "--table", EMPTY], "--table"),
    (&["lpm", "verify", "--samples=-1"], "--samples"),
    (&["lpm", "verify", "--check-every=0"], "--check-every"),
    (
        &["lpm", "verify", "--synthetic-routes=0"],
        "--synthetic-routes",
    ),
    (&["lpm", "verify", "--table", EMPTY], "--table"),
    // cache sim / sweep, trace stats / convert
    (&["cache", "sim", "--entries=0"], "--entries"),
    (&["cache", "sim", "--entries=-4"], "--entries"),
    (&["cache", "sim", "--entries=4", "--ways=8"], "--ways"),
    (&["cache", "sim", "--ways=0"], "--ways"),
    (&["cache", "sim", "--policy=hpc4", "--ways=1"], "--ways"),
    (&["cache", "sim", "--packets=0"], "--packets"),
    (&["cache", "sim", "--flow-rate=0"], "--flow-rate"),
    (&["cache", "sim", "--flow-rate=-3"], "--flow-rate"),
    (&["cache", "sim", "--pes=0"], "--pes"),
    (&["cache", "sim", "--lookup-ns=-1"], "--lookup-ns"),
    (&["cache", "sim", "--hit-ns=-1"], "--hit-ns"),
    (&["cache", "sim", "--miss-ns=-1"], "--miss-ns"),
    (&["cache", "sim", "--exchange-ns=-1"], "--exchange-ns"),
    (&["cache", "sim", "--chunk=0"], "--chunk"),
    (&["cache", "sweep", "--entry-bytes=0"], "--entry-bytes"),
    (&["cache", "sweep", "--min-bytes=0"], "--min-bytes"),
    (
        &["cache", "sweep", "--min-bytes=4K", "--max-bytes=1K"],
        "--max-bytes",
    ),
    (&["cache", "sweep", "--min-bytes=1K", "--ways=64"], "--ways"),
    (&["trace", "stats", "--packets=0"], "--packets"),
    (&["trace", "stats", "--flow-rate=-1"], "--flow-rate"),
    (
        &[
            "trace",
            "convert",
            "--packets=0",
            "--out=/nonexistent/x.pktl",
        ],
        "--packets",
    ),
    // aqm sim
    (&["aqm", "sim", "--reno=0", "--vegas=0"], "--reno"),
    (&["aqm", "sim", "--cubic=-1"], "--cubic"),
    (&["aqm", "sim", "--bbr=-1"], "--bbr"),
    (&["aqm", "study", "cubic-vs-bbr", "--seeds=0"], "--seeds"),
    (
        &["aqm", "study", "cubic-vs-bbr", "--duration=0"],
        "--duration",
    ),
    // live ports (the interface is only opened after the checks)
    (&["gen", "flows", "--tx=afpacket:lo", "--rate=0"], "--rate"),
    (
        &["gen", "flows", "--tx=afpacket:lo", "--count=0"],
        "--count",
    ),
    (
        &["gen", "flows", "--tx=afpacket:lo", "--duration=0"],
        "--duration",
    ),
    (
        &["gen", "flows", "--tx=afpacket:lo", "--burst=0"],
        "--burst",
    ),
    (&["sink", "--rx=afpacket:lo", "--duration=0"], "--duration"),
    (&["sink", "--rx=afpacket:lo", "--count=0"], "--count"),
    (&["forward", "--duration=0"], "--duration"),
    (&["forward", "--duration=-2"], "--duration"),
    (&["forward", "--delay=-1"], "--delay"),
    (&["forward", "--delay=20"], "--delay"),
    (&["forward", "--rate=0"], "--rate"),
    (
        &["forward", "--tx=afpacket:lo", "--rate=10", "--workers=2"],
        "--workers",
    ),
    (
        &["aqm", "sim", "--reno=0", "--vegas=0", "--udp=0"],
        "--reno",
    ),
    (&["reproduce", "--only=nosuch"], "--only"),
    (&["aqm", "sim", "--reno=-1"], "--reno"),
    (&["aqm", "sim", "--udp=1", "--udp-rate=0"], "--udp-rate"),
    (&["aqm", "sim", "--buffer=0"], "--buffer"),
    (&["aqm", "sim", "--duration=0"], "--duration"),
    (&["aqm", "sim", "--duration=-5"], "--duration"),
    (&["aqm", "sim", "--warmup=-1"], "--warmup"),
    (&["aqm", "sim", "--warmup=20", "--duration=10"], "--warmup"),
    (&["aqm", "sim", "--start-spread=-1"], "--start-spread"),
    (&["aqm", "sim", "--bw=0"], "--bw"),
    (&["aqm", "sim", "--delay=-1"], "--delay"),
    (&["aqm", "sim", "--access-bw=0"], "--access-bw"),
    (&["aqm", "sim", "--reno-delay=-1"], "--reno-delay"),
    (&["aqm", "sim", "--vegas-delay=-1"], "--vegas-delay"),
    (&["aqm", "sim", "--red-min=-1"], "--red-min"),
    (&["aqm", "sim", "--red-max=0"], "--red-max"),
    (&["aqm", "sim", "--red-maxp=0"], "--red-maxp"),
    (&["aqm", "sim", "--red-maxp=2"], "--red-maxp"),
    (&["aqm", "sim", "--red-wq=0"], "--red-wq"),
    (&["aqm", "sim", "--mss=0"], "--mss"),
    (&["aqm", "sim", "--init-cwnd=0"], "--init-cwnd"),
    (&["aqm", "sim", "--rwnd=1"], "--rwnd"),
    (&["aqm", "sim", "--min-rto=0"], "--min-rto"),
    (&["aqm", "sim", "--vegas-alpha=-1"], "--vegas-alpha"),
    (&["aqm", "sim", "--vegas-beta=0.5"], "--vegas-beta"),
    (&["aqm", "sim", "--vegas-gamma=-1"], "--vegas-gamma"),
    (
        &["aqm", "sim", "--series=/nonexistent/s.csv", "--sample-ms=0"],
        "--sample-ms",
    ),
    (&["aqm", "sim", "--zombies=0"], "--zombies"),
    (&["aqm", "sim", "--p-max=2"], "--p-max"),
    (&["aqm", "sim", "--p-swap=-0.5"], "--p-swap"),
    (&["aqm", "sim", "--alpha=0"], "--alpha"),
    (&["aqm", "sim", "--zl-a=0.5"], "--zl-a"),
    (&["aqm", "sim", "--th-min=-1"], "--th-min"),
    (&["aqm", "sim", "--w-avg=0"], "--w-avg"),
    // aqm study / bench
    (&["aqm", "study", "fig5", "--seeds=0"], "--seeds"),
    (&["aqm", "study", "fig5", "--duration=0"], "--duration"),
    (&["aqm", "study", "fig5", "--warmup=600"], "--warmup"),
    (&["aqm", "study", "fig5", "--threads=0"], "--threads"),
    (&["aqm", "study", "fig5", "--conns=1"], "--conns"),
    (&["aqm", "study", "fig5", "--buffers=0"], "--buffers"),
    (&["aqm", "study", "fig6", "--ms=0"], "--ms"),
    (&["aqm", "study", "fig7", "--a=0.5"], "--a"),
    (&["aqm", "study", "fig8", "--delays=-1"], "--delays"),
    (&["aqm", "study", "fig5", "--zombies=0"], "--zombies"),
    (&["aqm", "bench", "--flows=0"], "--flows"),
    (&["aqm", "bench", "--buffer=1"], "--buffer"),
    (&["aqm", "bench", "--packets=0"], "--packets"),
    (&["aqm", "bench", "--reps=0"], "--reps"),
    (&["aqm", "bench", "--p-swap=3"], "--p-swap"),
    // gen zipf / flows / ccn
    (&["gen", "zipf", "--alpha=0"], "--alpha"),
    (&["gen", "zipf", "--alpha=-1"], "--alpha"),
    (&["gen", "zipf", "--names=0"], "--names"),
    (&["gen", "zipf", "--entries=0"], "--entries"),
    (&["gen", "zipf", "--entries=2^27"], "--entries"),
    (&["gen", "zipf", "--samples=0"], "--samples"),
    (&["gen", "zipf", "--runs=0"], "--runs"),
    (&["gen", "zipf", "--count=0"], "--count"),
    (
        &["gen", "flows", "--alpha=0", "--out=/nonexistent/f.pcap"],
        "--alpha",
    ),
    (
        &["gen", "flows", "--count=0", "--out=/nonexistent/f.pcap"],
        "--count",
    ),
    (&["gen", "flows", "--alpha=0"], "--alpha"),
    (
        &["gen", "ccn", "--payload=70000", "--out=/nonexistent/c.pcap"],
        "--payload",
    ),
    (
        &["gen", "ccn", "--count=0", "--out=/nonexistent/c.pcap"],
        "--count",
    ),
    (
        &["gen", "ccn", "--chunks=-1", "--out=/nonexistent/c.pcap"],
        "--chunks",
    ),
    // ccn sim / router / consumer / producer
    (&["ccn", "sim", "--contents=0"], "--contents"),
    (&["ccn", "sim", "--alpha=0"], "--alpha"),
    (&["ccn", "sim", "--cs-entries=2^27"], "--cs-entries"),
    (&["ccn", "sim", "--requests=0"], "--requests"),
    (&["ccn", "sim", "--warmup=-1"], "--warmup"),
    (&["ccn", "sim", "--fwd-requests=-1"], "--fwd-requests"),
    (&["ccn", "sim", "--table-entries=0"], "--table-entries"),
    (&["ccn", "sim", "--payload=70000"], "--payload"),
    (
        &["ccn", "router", "--listen=udp:127.0.0.1:0", "--workers=0"],
        "--workers",
    ),
    (
        &[
            "ccn",
            "router",
            "--listen=udp:127.0.0.1:0",
            "--slot-bytes=10",
        ],
        "--slot-bytes",
    ),
    (
        &[
            "ccn",
            "router",
            "--listen=udp:127.0.0.1:0",
            "--cs-entries=2^27",
        ],
        "--cs-entries",
    ),
    (
        &[
            "ccn",
            "router",
            "--listen=udp:127.0.0.1:0",
            "--pit-entries=0",
        ],
        "--pit-entries",
    ),
    (
        &[
            "ccn",
            "router",
            "--listen=udp:127.0.0.1:0",
            "--lifetime-ms=0",
        ],
        "--lifetime-ms",
    ),
    (
        &["ccn", "router", "--listen=udp:127.0.0.1:0", "--batch=0"],
        "--batch",
    ),
    (
        &["ccn", "router", "--listen=udp:127.0.0.1:0", "--duration=0"],
        "--duration",
    ),
    (
        &["ccn", "router", "--listen=udp:127.0.0.1:0", "--duration=-1"],
        "--duration",
    ),
    (
        &["ccn", "consumer", "--to=udp:127.0.0.1:9", "--window=0"],
        "--window",
    ),
    (
        &["ccn", "consumer", "--to=udp:127.0.0.1:9", "--duration=0"],
        "--duration",
    ),
    (
        &["ccn", "consumer", "--to=udp:127.0.0.1:9", "--contents=0"],
        "--contents",
    ),
    (
        &["ccn", "consumer", "--to=udp:127.0.0.1:9", "--alpha=0"],
        "--alpha",
    ),
    (
        &[
            "ccn",
            "consumer",
            "--to=udp:127.0.0.1:9",
            "--table-entries=0",
        ],
        "--table-entries",
    ),
    (
        &["ccn", "consumer", "--to=udp:127.0.0.1:9", "--rate=0"],
        "--rate",
    ),
    (
        &["ccn", "consumer", "--to=udp:127.0.0.1:9", "--timeout-ms=0"],
        "--timeout-ms",
    ),
    (
        &[
            "ccn",
            "consumer",
            "--to=udp:127.0.0.1:9",
            "--lifetime-ms=-1",
        ],
        "--lifetime-ms",
    ),
    (
        &["ccn", "consumer", "--to=udp:127.0.0.1:9", "--batch=0"],
        "--batch",
    ),
    (
        &[
            "ccn",
            "consumer",
            "--to=udp:127.0.0.1:9",
            "--warmup=5",
            "--duration=1",
        ],
        "--warmup",
    ),
    (
        &[
            "ccn",
            "producer",
            "--listen=udp:127.0.0.1:0",
            "--payload=9000",
        ],
        "--payload",
    ),
    (
        &[
            "ccn",
            "producer",
            "--listen=udp:127.0.0.1:0",
            "--cache-time=0",
        ],
        "--cache-time",
    ),
    (
        &["ccn", "producer", "--listen=udp:127.0.0.1:0", "--chunks=0"],
        "--chunks",
    ),
    (
        &["ccn", "producer", "--listen=udp:127.0.0.1:0", "--batch=0"],
        "--batch",
    ),
    // forward
    (&["forward", "--batch=0"], "--batch"),
    (&["forward", "--batch=5000"], "--batch"),
    (&["forward", "--workers=0"], "--workers"),
    (&["forward", "--meta-bytes=3"], "--meta-bytes"),
    (&["forward", "--repeat=0"], "--repeat"),
    (&["forward", "--packets=0"], "--packets"),
    (&["forward", "--line-rate=0"], "--line-rate"),
    (&["forward", "--line-rate=-10G"], "--line-rate"),
    (&["forward", "--queue=0"], "--queue"),
    (&["forward", "--cache-entries=0"], "--cache-entries"),
    (&["forward", "--pool-cache=100000"], "--pool-cache"),
    (&["forward", "--table", EMPTY], "--table"),
];

#[test]
fn impossible_parameters_are_refused_in_one_line() {
    let empty =
        std::env::temp_dir().join(format!("pktlab-params-empty-{}.txt", std::process::id()));
    std::fs::write(&empty, "# no routes\n").unwrap();
    let empty_s = empty.to_str().unwrap();
    let mut failures = Vec::new();
    for (args, flag) in CASES {
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == EMPTY { empty_s } else { a })
            .collect();
        let o = Command::new(env!("CARGO_BIN_EXE_pktlab"))
            .args(&args)
            .output()
            .expect("run pktlab");
        let err = String::from_utf8_lossy(&o.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
        let ok = !o.status.success()
            && o.status.code() != Some(101)
            && !err.contains("panicked")
            && lines.len() == 1
            && lines[0].starts_with("pktlab: error: ")
            && lines[0].contains(flag);
        if !ok {
            failures.push(format!(
                "pktlab {}: exit {:?}, stderr {err:?} (want one line naming {flag})",
                args.join(" "),
                o.status.code()
            ));
        }
    }
    let _ = std::fs::remove_file(&empty);
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}
