//! Live AF_PACKET ports end to end on a veth topology (issue 15): `pktlab gen` in one
//! network namespace sends N packets through `pktlab forward` in a second to `pktlab sink`
//! in a third, built by `tools/netns-topology.sh` under names unique to this run and always
//! removed (a Drop guard, which also runs when an assertion fails).
//!
//! The sink must receive exactly N minus the forwarder's counted drops, every TTL one lower
//! than sent (64 → 63), every checksum valid, nothing duplicated.
//!
//! Needs root (CAP_NET_ADMIN to create namespaces, CAP_NET_RAW for the sockets) and `ip`
//! (iproute2); skips with the reason printed otherwise. CI runs as root.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tools/netns-topology.sh")
}

fn namespaces() -> String {
    Command::new("ip")
        .args(["netns", "list"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// The topology of one run; `drop` removes it.
struct Topology {
    name: String,
}

impl Topology {
    fn up(name: &str) -> Result<Topology, String> {
        let t = Topology {
            name: name.to_string(),
        };
        let out = Command::new(script())
            .args(["up", name])
            .output()
            .map_err(|e| format!("cannot run {}: {e}", script().display()))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
        Ok(t)
    }

    fn ns(&self, role: &str) -> String {
        format!("{}-{role}", self.name)
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        let _ = Command::new(script()).args(["down", &self.name]).status();
    }
}

/// A child process that is killed if still running when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `pktlab ARGS` in namespace `ns`; returns the process and a channel of its stderr lines.
fn spawn(ns: &str, args: &[&str]) -> (Proc, mpsc::Receiver<String>) {
    let mut c = Command::new("ip")
        .args(["netns", "exec", ns, env!("CARGO_BIN_EXE_pktlab")])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pktlab");
    let err = c.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    (Proc(c), rx)
}

/// Waits (up to 60 s) for a stderr line containing `what`.
fn wait_for(rx: &mpsc::Receiver<String>, what: &str) {
    let t = std::time::Instant::now();
    while t.elapsed() < Duration::from_secs(60) {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
            if l.contains(what) {
                return;
            }
        }
    }
    panic!("no {what:?} line within 60 s");
}

/// Asks the process to stop (SIGINT, as a user's Ctrl-C), waits for it to end and parses
/// its JSON stdout.
fn stop_and_json(mut p: Proc) -> Value {
    // SAFETY: signals our own child (`ip netns exec` execs pktlab, keeping the pid).
    unsafe { libc::kill(p.0.id() as libc::pid_t, libc::SIGINT) };
    let mut out = String::new();
    use std::io::Read;
    p.0.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let st = p.0.wait().unwrap();
    assert!(st.success(), "pktlab exited with {st}: {out}");
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("bad JSON {out:?}: {e}"))
}

fn n(v: &Value, path: &[&str]) -> u64 {
    let mut x = v;
    for k in path {
        x = &x[*k];
    }
    x.as_u64()
        .unwrap_or_else(|| panic!("no number at {path:?} in {v}"))
}

fn skip_reason() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root: creating network namespaces needs CAP_NET_ADMIN".into());
    }
    if Command::new("ip").arg("-V").output().is_err() {
        return Some("`ip` (iproute2) is not installed".into());
    }
    None
}

#[test]
fn gen_forward_sink_through_three_namespaces() {
    if let Some(r) = skip_reason() {
        eprintln!("skipped: live_ports: {r}");
        return;
    }
    let name = format!("pkl{}", std::process::id());
    let topo = match Topology::up(&name) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("skipped: live_ports: cannot build the topology ({e})");
            return;
        }
    };
    let dir = std::env::temp_dir().join(format!("pktlab-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let table = dir.join("routes.txt");
    // Everything routable through one next hop, so only counted drops can lose packets.
    std::fs::write(&table, "0.0.0.0/0 1\n").unwrap();
    let table = table.to_str().unwrap().to_string();
    const N: u64 = 5000;

    let (sink, sink_err) = spawn(
        &topo.ns("sink"),
        &[
            "sink",
            "--rx",
            "afpacket:veth0",
            "--duration",
            "300",
            "--json",
        ],
    );
    wait_for(&sink_err, "listening");
    let (fwd, fwd_err) = spawn(
        &topo.ns("rt"),
        &[
            "forward",
            "--rx",
            "afpacket:in0",
            "--tx",
            "afpacket:out0",
            "--table",
            &table,
            "--duration",
            "300",
            "--json",
        ],
    );
    wait_for(&fwd_err, "forward: running");
    let gen = Command::new("ip")
        .args([
            "netns",
            "exec",
            &topo.ns("gen"),
            env!("CARGO_BIN_EXE_pktlab"),
        ])
        .args(["gen", "flows", "--tx", "afpacket:veth0", "--rate", "20K"])
        .args([
            "--count",
            &N.to_string(),
            "--names",
            "64K",
            "--entries",
            "4K",
        ])
        .arg("--json")
        .output()
        .expect("run pktlab gen");
    assert!(
        gen.status.success(),
        "gen failed: {}",
        String::from_utf8_lossy(&gen.stderr)
    );
    let gen: Value = serde_json::from_slice(&gen.stdout).expect("gen JSON");
    // Let the last frames through, then stop the forwarder (which drains its queue first)
    // and after it the sink (which counts what is in its ring before stopping).
    std::thread::sleep(Duration::from_millis(500));
    let fwd = stop_and_json(fwd);
    std::thread::sleep(Duration::from_millis(500));
    let sink = stop_and_json(sink);
    drop(topo);
    std::fs::remove_dir_all(&dir).ok();

    assert_eq!(n(&gen, &["packets"]), N, "gen sent N: {gen}");
    let d = &fwd["dropped"];
    let counted = ["parse", "ttl", "no_route", "aqm", "port"]
        .iter()
        .map(|k| n(d, &[k]))
        .sum::<u64>()
        + n(&fwd, &["live", "rx_ring_drops"]);
    assert_eq!(
        n(&fwd, &["packets"]) + n(&fwd, &["live", "rx_ring_drops"]),
        N,
        "the forwarder saw every packet gen sent: {fwd}"
    );
    assert_eq!(
        n(&sink, &["packets"]),
        N - counted,
        "sink = N - forwarder's counted drops\nforward: {fwd}\nsink: {sink}"
    );
    assert_eq!(n(&sink, &["packets"]), n(&fwd, &["forwarded"]));
    assert!(
        n(&sink, &["packets"]) > N / 2,
        "most packets arrive: {sink}"
    );
    assert_eq!(
        n(&sink, &["ttl", "63"]),
        n(&sink, &["packets"]),
        "every TTL one lower (64 -> 63): {sink}"
    );
    assert_eq!(n(&sink, &["checksum_errors"]), 0, "{sink}");
    assert_eq!(n(&sink, &["non_ip"]), 0, "{sink}");
    assert_eq!(n(&sink, &["duplicates"]), 0, "{sink}");
    assert_eq!(n(&sink, &["duplicate_checked"]), n(&sink, &["packets"]));
    assert_eq!(n(&sink, &["kernel_drops"]), 0, "{sink}");
    let left = namespaces();
    assert!(
        !left.contains(&name),
        "namespaces of {name} left behind: {left}"
    );
}
