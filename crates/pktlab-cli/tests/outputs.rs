//! Nothing lost: `forward --tx pcap:` streams to disk in bounded memory at any `--repeat`;
//! SIGINT / SIGTERM stop it cleanly (a valid pcap of everything forwarded so far, the summary
//! with `interrupted: true`); a full disk (a 1 MiB file-size limit, no root needed) or a
//! missing directory leaves nothing under the output's name, with one line naming it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn pktlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pktlab"))
}

/// A fresh scratch directory.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pktlab-out-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A table routing everything (IPv4 and IPv6) to next hop 1.
fn table(dir: &Path) -> String {
    let t = dir.join("table.txt");
    std::fs::write(&t, "0.0.0.0/0 1\n::/0 1\n").unwrap();
    t.display().to_string()
}

/// `forward` from the synthetic trace into `out` with `extra` flags.
fn forward(dir: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = pktlab();
    c.args(["forward", "--nexthops", "file", "--table"])
        .arg(table(dir))
        .arg("--tx")
        .arg(format!("pcap:{}", out.display()))
        .args(["--packets", "10K", "--json"])
        .args(extra);
    c
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON object ({e}): {} / {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// Packets in a pcap, read by pktlab's own reader (which must find it complete).
fn pcap_packets(p: &Path) -> u64 {
    let mut r = pktlab::io::packets::PacketReader::open(p).expect("a pcap");
    let mut n = 0;
    while r.next_frame(|_, _, _| ()).is_some() {
        n += 1;
    }
    assert!(r.report().truncated.is_none(), "{:?}", r.report());
    n
}

/// The names in `dir` other than the table.
fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "table.txt")
        .collect();
    v.sort();
    v
}

/// Fails on the old code: the capture was kept in RAM (RSS grew ~150 MB from 200K to 2M
/// packets) and the result had no `max_rss_bytes`.
#[test]
fn forward_pcap_output_runs_in_bounded_memory() {
    let dir = scratch("rss");
    let out = dir.join("out.pcap");
    let mut rss = Vec::new();
    for repeat in ["20", "200"] {
        let o = forward(&dir, &out, &["--repeat", repeat]).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v = json(&o);
        let fwd = v["forwarded"].as_u64().unwrap();
        assert!(fwd > 0);
        assert_eq!(pcap_packets(&out), fwd, "repeat {repeat}");
        let r = v["max_rss_bytes"].as_u64().expect("max_rss_bytes");
        assert!(r > 0);
        println!(
            "repeat {repeat}: {fwd} forwarded, max RSS {:.1} MiB",
            r as f64 / 1048576.0
        );
        rss.push(r);
    }
    // Ten times the packets (about 135 MB more of pcap): RSS grows by far less than that.
    assert!(
        rss[1] < rss[0] + (40 << 20),
        "RSS grows with the output: {rss:?}"
    );
    assert_eq!(files(&dir), vec!["out.pcap".to_string()]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Waits until a temporary output in `dir` holds at least `bytes` (the run is forwarding).
fn wait_for_output(dir: &Path, bytes: u64, child: &mut std::process::Child) {
    let t0 = Instant::now();
    loop {
        let big = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| {
                e.file_name().to_string_lossy().ends_with(".tmp")
                    && e.metadata().map(|m| m.len() >= bytes).unwrap_or(false)
            });
        if big {
            return;
        }
        if let Ok(Some(s)) = child.try_wait() {
            panic!("forward ended early: {s}");
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "no output grew");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Fails on the old code: SIGINT/SIGTERM killed the replay at once, with no summary and no
/// file.
#[test]
fn a_signal_finalises_the_pcap_and_prints_the_summary() {
    for (sig, workers) in [(libc::SIGINT, "1"), (libc::SIGTERM, "2")] {
        let dir = scratch(&format!("sig{sig}"));
        let out = dir.join("out.pcap");
        let mut child = forward(&dir, &out, &["--repeat", "1000000", "--workers", workers])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_output(&dir, 2 << 20, &mut child);
        // SAFETY: kill(2) with the pid of our own child process and a valid signal number.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
        let t0 = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if t0.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("forward did not stop within 60 s of signal {sig}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "signal {sig}: {err}");
        let v = json(&o);
        assert_eq!(v["interrupted"], serde_json::Value::Bool(true), "{v}");
        let fwd = v["forwarded"].as_u64().unwrap();
        assert!(fwd > 0, "{v}");
        assert_eq!(pcap_packets(&out), fwd, "signal {sig}, {workers} workers");
        assert_eq!(
            files(&dir),
            vec!["out.pcap".to_string()],
            "no temporary left"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Runs `cmd` with writes limited to 1 MiB per file (as a full disk would stop them; write(2)
/// then fails with EFBIG instead of the process getting SIGXFSZ).
fn with_full_disk(mut cmd: Command) -> Output {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec the closure only calls setrlimit(2) and signal(2), both
    // async-signal-safe, on the child's own limits and dispositions.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 1 << 20,
                rlim_max: 1 << 20,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    cmd.output().unwrap()
}

/// Fails on the old code: a truncated file was left under the real name.
#[test]
fn a_full_disk_leaves_no_file_under_the_real_name() {
    let dir = scratch("full");
    let out = dir.join("out.pcap");
    let cmds: Vec<(&str, Command)> = vec![
        ("forward", forward(&dir, &out, &["--repeat", "20"])),
        ("gen flows", {
            let mut c = pktlab();
            c.args(["gen", "flows", "--count", "200K", "--out"])
                .arg(&out);
            c
        }),
        ("trace convert", {
            let mut c = pktlab();
            c.args(["trace", "convert", "--packets", "200K", "--out"])
                .arg(&out);
            c
        }),
    ];
    for (what, cmd) in cmds {
        let o = with_full_disk(cmd);
        let err = String::from_utf8_lossy(&o.stderr);
        let last = err.lines().last().unwrap_or("");
        assert_eq!(o.status.code(), Some(2), "{what}: {err}");
        assert!(
            last.starts_with(&format!("pktlab: error: {}: write error:", out.display())),
            "{what}: {err}"
        );
        assert!(files(&dir).is_empty(), "{what}: left {:?}", files(&dir));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fails on the old code: `forward` read its input (here a missing capture, named first in
/// the error) before finding the output directory missing.
#[test]
fn a_missing_output_directory_is_found_before_the_work() {
    let dir = scratch("nodir");
    let out = Path::new("/nonexistent-pktlab-dir/out.pcap");
    let o = pktlab()
        .args(["forward", "--rx", "pcap:/nonexistent-pktlab-input.pcap"])
        .arg(format!("--tx=pcap:{}", out.display()))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("/nonexistent-pktlab-dir/out.pcap: cannot create"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    for args in [
        &[
            "gen",
            "zipf",
            "--count",
            "1K",
            "--out",
            "/nonexistent-pktlab-dir/z.pcap",
        ][..],
        &[
            "aqm",
            "sim",
            "--duration",
            "2",
            "--warmup",
            "1",
            "--series",
            "/nonexistent-pktlab-dir/s.csv",
        ],
        &[
            "trace",
            "convert",
            "--packets",
            "1K",
            "--out",
            "/nonexistent-pktlab-dir/t.pcap",
        ],
    ] {
        let o = pktlab().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        let last = err.lines().last().unwrap_or("");
        assert!(
            last.starts_with("pktlab: error: /nonexistent-pktlab-dir/")
                && last.contains(": cannot create: "),
            "{args:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
