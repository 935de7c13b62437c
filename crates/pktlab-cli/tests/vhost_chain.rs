//! Virtual switching between CNFs over vhost-user, end to end with the `pktlab` binary:
//!
//! * `pktlab_chain`: `pktlab gen --tx virtio-user:A` → `pktlab forward --rx vhost-user:A --tx
//!   vhost-user:B --stages full` → `pktlab sink --rx virtio-user:B`, three processes, no DPDK,
//!   no privileges (the frontends share memfd memory). Every packet gen sent is received by
//!   the switch, forwarded or in a counted drop, and what the sink counts is what the switch
//!   forwarded, every TTL one lower (64 → 63), every checksum valid, nothing duplicated.
//! * `testpmd_chain`: DPDK testpmd `txonly` on `net_virtio_user` → `pktlab forward --stages l3`
//!   → testpmd `rxonly` on `net_virtio_user`. Needs root (2 MiB hugepages, reserved here if
//!   too few and given back) and `dpdk-testpmd` (CI installs Debian's `dpdk-dev`); skips with
//!   the reason printed otherwise. testpmd runs `--in-memory`, so it leaves no hugepage file;
//!   the test checks that every hugepage is free again afterwards.
//!
//! Both check that the sockets are gone once the switch has exited.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// A child process that is killed if still running when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `prog ARGS`; returns the process and a channel of its stderr lines.
fn spawn(prog: &str, args: &[&str]) -> (Proc, mpsc::Receiver<String>) {
    let mut c = Command::new(prog)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {prog}: {e}"));
    let err = c.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    (Proc(c), rx)
}

/// A testpmd (line-buffered through `stdbuf`): the process, a channel of its output lines
/// (stdout and stderr) and its whole stdout so far.
fn spawn_testpmd(prog: &str, args: &[&str]) -> (Proc, mpsc::Receiver<String>, Arc<Mutex<String>>) {
    let mut c = Command::new("stdbuf")
        .args(["-oL", "-eL", prog])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn stdbuf {prog}: {e}"));
    let (out, err) = (c.stdout.take().unwrap(), c.stderr.take().unwrap());
    let (tx, rx) = mpsc::channel();
    let all = Arc::new(Mutex::new(String::new()));
    let (tx2, all2) = (tx.clone(), all.clone());
    std::thread::spawn(move || {
        for_lines(out, |l| {
            all2.lock().unwrap().push_str(&(l.clone() + "\n"));
            let _ = tx2.send(l);
        })
    });
    std::thread::spawn(move || for_lines(err, |l| drop(tx.send(l))));
    (Proc(c), rx, all)
}

/// Calls `f` for every line of `r` until its end (bytes that are not UTF-8 replaced: the
/// reader must not stop early, or the writer dies of SIGPIPE).
fn for_lines(r: impl Read, mut f: impl FnMut(String)) {
    let mut r = BufReader::new(r);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match r.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => f(String::from_utf8_lossy(&buf).trim_end().to_string()),
        }
    }
}

/// SIGINT to a testpmd, then its whole stdout once it has exited.
fn stop_testpmd(mut p: Proc, all: Arc<Mutex<String>>) -> String {
    // SAFETY: signals our own child (stdbuf execs testpmd, keeping the pid).
    unsafe { libc::kill(p.0.id() as libc::pid_t, libc::SIGINT) };
    let st = p.0.wait().unwrap();
    let t = Instant::now();
    // The reader thread may still be taking the last lines.
    while !all.lock().unwrap().contains("Bye") && t.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = all.lock().unwrap().clone();
    assert!(st.success(), "testpmd exited with {st}: {out}");
    out
}

fn pktlab(args: &[&str]) -> (Proc, mpsc::Receiver<String>) {
    spawn(env!("CARGO_BIN_EXE_pktlab"), args)
}

/// Waits (up to 60 s) for a stderr line containing `what`.
fn wait_for(rx: &mpsc::Receiver<String>, what: &str) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(60) {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(100)) {
            if l.contains(what) {
                return;
            }
        }
    }
    panic!("no {what:?} line within 60 s");
}

/// SIGINT (a user's Ctrl-C), then the process's whole stdout once it has exited.
fn stop(mut p: Proc) -> String {
    // SAFETY: signals our own child.
    unsafe { libc::kill(p.0.id() as libc::pid_t, libc::SIGINT) };
    let mut out = String::new();
    p.0.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let st = p.0.wait().unwrap();
    assert!(st.success(), "exited with {st}: {out}");
    out
}

fn json(s: &str) -> Value {
    serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("bad JSON {s:?}: {e}"))
}

fn n(v: &Value, path: &[&str]) -> u64 {
    let mut x = v;
    for k in path {
        x = &x[*k];
    }
    x.as_u64()
        .unwrap_or_else(|| panic!("no number at {path:?} in {v}"))
}

/// Every drop the switch counted.
fn switch_drops(fwd: &Value) -> u64 {
    ["parse", "ttl", "no_route", "aqm", "port", "delay"]
        .iter()
        .map(|k| n(&fwd["dropped"], &[k]))
        .sum()
}

/// A scratch directory with a one-route table (everything routable through one next hop).
fn scratch(name: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("pktlab-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let table = dir.join("routes.txt");
    std::fs::write(&table, "0.0.0.0/0 1\n").unwrap();
    let t = table.to_str().unwrap().to_string();
    (dir, t)
}

fn sock(dir: &Path, s: &str) -> String {
    dir.join(s).to_str().unwrap().to_string()
}

#[test]
fn pktlab_chain() {
    let (dir, table) = scratch("vhost-chain");
    let (a, b) = (sock(&dir, "a.sock"), sock(&dir, "b.sock"));
    const N: u64 = 20_000;
    let (fwd, fwd_err) = pktlab(&[
        "forward",
        "--rx",
        &format!("vhost-user:{a}"),
        "--tx",
        &format!("vhost-user:{b}"),
        "--table",
        &table,
        "--stages",
        "full",
        "--duration",
        "120",
        "--json",
    ]);
    wait_for(&fwd_err, "forward: running");
    let (sink, sink_err) = pktlab(&[
        "sink",
        "--rx",
        &format!("virtio-user:{b}"),
        "--duration",
        "120",
        "--json",
    ]);
    wait_for(&sink_err, "listening");
    let gen = Command::new(env!("CARGO_BIN_EXE_pktlab"))
        .args(["gen", "flows", "--tx", &format!("virtio-user:{a}")])
        .args(["--rate", "40K", "--count", &N.to_string()])
        .args(["--names", "64K", "--entries", "4K", "--json"])
        .output()
        .expect("run pktlab gen");
    assert!(
        gen.status.success(),
        "gen failed: {}",
        String::from_utf8_lossy(&gen.stderr)
    );
    let gen = json(&String::from_utf8_lossy(&gen.stdout));
    std::thread::sleep(Duration::from_millis(300));
    let fwd = json(&stop(fwd));
    std::thread::sleep(Duration::from_millis(200));
    let sink = json(&stop(sink));

    assert_eq!(n(&gen, &["packets"]), N, "gen sent N: {gen}");
    assert_eq!(n(&gen, &["rejected"]), 0, "{gen}");
    assert_eq!(
        n(&fwd, &["packets"]),
        N,
        "the switch took every packet: {fwd}"
    );
    assert_eq!(
        n(&fwd, &["packets"]),
        n(&fwd, &["forwarded"]) + switch_drops(&fwd),
        "received = forwarded + counted drops: {fwd}"
    );
    assert_eq!(n(&fwd, &["virtio", "tx"]), n(&fwd, &["forwarded"]));
    assert_eq!(
        n(&sink, &["packets"]),
        n(&fwd, &["forwarded"]),
        "the sink got what the switch forwarded\nforward: {fwd}\nsink: {sink}"
    );
    assert!(n(&sink, &["packets"]) > N / 2, "most packets arrive: {fwd}");
    assert_eq!(
        n(&sink, &["ttl", "63"]),
        n(&sink, &["packets"]),
        "every TTL one lower (64 -> 63): {sink}"
    );
    assert_eq!(n(&sink, &["checksum_errors"]), 0, "{sink}");
    assert_eq!(n(&sink, &["non_ip"]), 0, "{sink}");
    assert_eq!(n(&sink, &["duplicates"]), 0, "{sink}");
    assert_eq!(n(&sink, &["kernel_drops"]), 0, "{sink}");
    assert_eq!(n(&fwd, &["virtio", "connects"]), 2, "{fwd}");
    assert!(
        !Path::new(&a).exists() && !Path::new(&b).exists(),
        "sockets removed"
    );
    std::fs::remove_dir_all(&dir).ok();
}

const HP: &str = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages";

fn meminfo(key: &str) -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(key)?.trim().split(' ').next()?.parse().ok())
        .unwrap_or(0)
}

fn testpmd() -> Result<String, String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err("not root: DPDK needs hugepages".into());
    }
    let p = std::env::var("TESTPMD").unwrap_or_else(|_| "dpdk-testpmd".into());
    match Command::new(&p).arg("--version").output() {
        Ok(_) => Ok(p),
        Err(e) => Err(format!(
            "no {p} ({e}); install Debian's dpdk-dev or set TESTPMD"
        )),
    }
}

/// Reserves at least `pages` 2 MiB pages; gives the old count back on drop.
struct HugePages(Option<String>);

impl HugePages {
    fn reserve(pages: u64) -> Result<HugePages, String> {
        let old = std::fs::read_to_string(HP).map_err(|e| format!("{HP}: {e}"))?;
        if meminfo("HugePages_Free:") >= pages {
            return Ok(HugePages(None));
        }
        let want = old.trim().parse::<u64>().unwrap_or(0) + pages;
        std::fs::write(HP, want.to_string()).map_err(|e| format!("{HP}: {e}"))?;
        if meminfo("HugePages_Free:") < pages {
            let _ = std::fs::write(HP, old.trim());
            return Err(format!("could not reserve {pages} free 2 MiB hugepages"));
        }
        Ok(HugePages(Some(old)))
    }
}

impl Drop for HugePages {
    fn drop(&mut self) {
        if let Some(old) = &self.0 {
            let _ = std::fs::write(HP, old.trim());
        }
    }
}

fn testpmd_args<'a>(prefix: &'a str, vdev: &'a str, mode: &'a str) -> Vec<&'a str> {
    vec![
        "-l",
        "0,1",
        "--main-lcore",
        "0",
        "-n",
        "1",
        "--in-memory",
        "--file-prefix",
        prefix,
        "--socket-mem",
        "128",
        "--single-file-segments",
        "--no-pci",
        "--vdev",
        vdev,
        "--",
        mode,
        "--total-num-mbufs=8192",
        "--stats-period",
        "1",
    ]
}

/// The accumulated `RX-packets` / `TX-packets` of a testpmd's final statistics.
fn testpmd_total(out: &str, what: &str) -> u64 {
    let i = out
        .find("Accumulated forward statistics")
        .unwrap_or_else(|| panic!("no final statistics in {out}"));
    let s = &out[i..];
    let j = s.find(what).unwrap_or_else(|| panic!("no {what} in {s}"));
    s[j + what.len()..]
        .split_whitespace()
        .next()
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("bad {what} in {s}"))
}

#[test]
fn testpmd_chain() {
    let testpmd = match testpmd() {
        Ok(t) => t,
        Err(r) => {
            eprintln!("skipped: testpmd_chain: {r}");
            return;
        }
    };
    let _hp = match HugePages::reserve(160) {
        Ok(h) => h,
        Err(r) => {
            eprintln!("skipped: testpmd_chain: {r}");
            return;
        }
    };
    let free_before = meminfo("HugePages_Free:");
    let (dir, table) = scratch("vhost-testpmd");
    let (a, b) = (sock(&dir, "a.sock"), sock(&dir, "b.sock"));
    let (fwd, fwd_err) = pktlab(&[
        "forward",
        "--rx",
        &format!("vhost-user:{a}"),
        "--tx",
        &format!("vhost-user:{b}"),
        "--table",
        &table,
        "--stages",
        "l3",
        "--duration",
        "120",
        "--json",
    ]);
    wait_for(&fwd_err, "forward: running");
    let pre = format!("pktlab-snk{}", std::process::id());
    let vd = format!("net_virtio_user0,path={b},queues=1");
    let (sink, sink_lines, sink_all) =
        spawn_testpmd(&testpmd, &testpmd_args(&pre, &vd, "--forward-mode=rxonly"));
    wait_for(&sink_lines, "packet forwarding - ports=");
    let pre2 = format!("pktlab-src{}", std::process::id());
    let vd2 = format!("net_virtio_user0,path={a},queues=1");
    let mut args = testpmd_args(&pre2, &vd2, "--forward-mode=txonly");
    args.push("--txpkts=64");
    let (src, src_lines, src_all) = spawn_testpmd(&testpmd, &args);
    wait_for(&src_lines, "packet forwarding - ports=");
    std::thread::sleep(Duration::from_secs(2));
    let src_out = stop_testpmd(src, src_all);
    std::thread::sleep(Duration::from_millis(300));
    // The sink first: a testpmd whose vhost-user peer has gone dies of SIGPIPE on exit.
    let sink_out = stop_testpmd(sink, sink_all);
    let fwd = json(&stop(fwd));

    let sent = testpmd_total(&src_out, "TX-packets:");
    let got = testpmd_total(&sink_out, "RX-packets:");
    assert!(sent > 0, "testpmd sent nothing: {src_out}");
    // testpmd stops its rings at SIGINT without waiting for them to drain: what it left in
    // its transmit ring never reached the switch, which counts it.
    assert_eq!(
        n(&fwd, &["packets"]) + n(&fwd, &["virtio", "rx_abandoned"]),
        sent,
        "the switch took every packet testpmd did not take back: {fwd}"
    );
    assert_eq!(
        n(&fwd, &["packets"]),
        n(&fwd, &["forwarded"]) + switch_drops(&fwd),
        "received = forwarded + counted drops: {fwd}"
    );
    assert_eq!(
        got,
        n(&fwd, &["forwarded"]),
        "testpmd got what the switch forwarded: {fwd}"
    );
    assert!(got > 0, "{fwd}");
    // testpmd's IPv4 headers checked at parse (checksum), TTL 64 decremented, all routable.
    for k in ["parse", "ttl", "no_route"] {
        assert_eq!(n(&fwd["dropped"], &[k]), 0, "{k} drops: {fwd}");
    }
    assert!(
        !Path::new(&a).exists() && !Path::new(&b).exists(),
        "sockets removed"
    );
    std::fs::remove_dir_all(&dir).ok();
    let t = Instant::now();
    while meminfo("HugePages_Free:") < free_before && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        meminfo("HugePages_Free:"),
        free_before,
        "every hugepage testpmd took is free again"
    );
}
