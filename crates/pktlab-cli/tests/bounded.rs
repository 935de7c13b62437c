//! Bounded messages: whatever the input, an error or a note quotes at most ~80 bytes of it,
//! and a "line" is never read past 64 KiB — a gzip of hundreds of megabytes of zeros given as
//! a table is refused in one short line and in little memory.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pktlab-bounded-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs pktlab with `args`; returns (exit code, stdout, stderr, max RSS in bytes), the RSS
/// taken from wait4(2) for this child alone.
#[allow(clippy::zombie_processes)] // the child is reaped by wait4(2), which clippy does not see
fn run(args: &[&str], dir: &Path) -> (i32, String, String, u64) {
    let (out, err) = (dir.join("stdout"), dir.join("stderr"));
    let child = Command::new(env!("CARGO_BIN_EXE_pktlab"))
        .args(args)
        .stdout(Stdio::from(std::fs::File::create(&out).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&err).unwrap()))
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: `rusage` is plain data (all-zero is valid); wait4 on our own child's pid
    // writes only into `status` and `ru`, which outlive the call.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    assert_eq!(pid, child.id() as libc::pid_t);
    assert!(libc::WIFEXITED(status), "killed: status {status}");
    (
        libc::WEXITSTATUS(status),
        std::fs::read_to_string(out).unwrap(),
        String::from_utf8_lossy(&std::fs::read(err).unwrap()).into_owned(),
        ru.ru_maxrss as u64 * 1024,
    )
}

/// Fails on the old code: the error quoted the whole megabyte "prefix".
#[test]
fn a_megabyte_garbage_line_gives_a_short_error() {
    let dir = scratch("mb");
    let t = dir.join("table.txt");
    let mut text = "x".repeat(1 << 20);
    text.push('\n');
    std::fs::write(&t, &text).unwrap();
    let ts = t.display().to_string();
    for args in [
        &["lpm", "verify", "--table", &ts, "--samples", "1K"][..],
        &["forward", "--table", &ts, "--packets", "1K"],
    ] {
        let (code, _, err, _) = run(args, &dir);
        assert_eq!(code, 2, "{args:?}: {}", &err[..err.len().min(500)]);
        assert!(
            err.len() < 300,
            "{} bytes: {}",
            err.len(),
            &err[..err.len().min(500)]
        );
        assert!(
            err.contains(&format!("{ts}:1: line longer than 65536 bytes")),
            "{err}"
        );
    }
    // Under the line limit, a long token is quoted in at most ~80 bytes, in the error and in
    // the skip note and the JSON report of a table that has a usable line too.
    std::fs::write(&t, format!("{}\n", "y/".repeat(30_000))).unwrap();
    let (code, _, err, _) = run(&["forward", "--table", &ts, "--packets", "1K"], &dir);
    assert_eq!(code, 2);
    assert!(err.len() < 300 && err.contains("\"…"), "{err}");
    std::fs::write(&t, format!("{}\n0.0.0.0/0\n", "y/".repeat(30_000))).unwrap();
    let (code, out, err, _) = run(
        &["forward", "--table", &ts, "--packets", "1K", "--json"],
        &dir,
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.lines().all(|l| l.len() < 300), "{err}");
    assert!(
        err.contains(&format!("{ts}: skipped 1 unparsable lines")),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let first = v["inputs"][0]["first_errors"][0].as_str().unwrap();
    assert!(
        first.len() < 300 && first.starts_with(&format!("{ts}:1:")),
        "{first}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fails on the old code: the 256 MiB "line" of zeros was read whole (over a gigabyte of
/// memory with its message) and printed.
#[test]
fn a_gzip_of_zeros_as_a_table_is_refused_briefly() {
    let dir = scratch("zeros");
    let z = dir.join("zeros.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let block = vec![0u8; 1 << 20];
    for _ in 0..256 {
        e.write_all(&block).unwrap();
    }
    std::fs::write(&z, e.finish().unwrap()).unwrap();
    let zs = z.display().to_string();
    for args in [
        &["forward", "--table", &zs, "--packets", "1K"][..],
        &["lpm", "verify", "--table", &zs, "--samples", "1K"],
    ] {
        let (code, _, err, rss) = run(args, &dir);
        println!("{args:?}: max RSS {:.1} MiB; {err}", rss as f64 / 1048576.0);
        assert_eq!(code, 2, "{}", &err[..err.len().min(500)]);
        assert!(err.len() < 300, "{} bytes", err.len());
        assert!(
            err.contains(&format!("{zs}:1: line longer than 65536 bytes")),
            "{err}"
        );
        assert!(rss < 200 << 20, "{args:?}: max RSS {rss} bytes");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
