//! Real kernel TCP through `pktlab forward --delay 20 --rate 10` (issue 17 item 5): the
//! topology of `tools/linux_tcp_validation.sh` (namespaces snd → bot → mid → rcv, ACKs back
//! on a direct veth), one CUBIC flow for a few seconds from a thread moved into the sender's
//! namespace (setns) to one in the receiver's. Asserts that the handshake's round trip (the
//! SYN crosses the delay line, the SYN-ACK comes back direct) and the kernel's smoothed RTT
//! are at least the 20 ms delay, and that the goodput is at most the 10 Mb/s rate (payload
//! only: at most 1448/1514 of it, plus 5% tolerance for the measurement window).
//!
//! Root only (network namespaces, AF_PACKET) with iproute2 and ethtool; skipped with the
//! reason printed otherwise.
//! Bounded: the forwarder runs 12 s, the flow 4 s, every wait has a deadline.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tools/linux_tcp_validation.sh")
}

/// Removes the namespaces when dropped (also when the test fails).
struct Topology(String);

impl Drop for Topology {
    fn drop(&mut self) {
        let _ = Command::new(script()).args(["down", &self.0]).status();
    }
}

fn skip_reason() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root (needs network namespaces and AF_PACKET)".into());
    }
    if Command::new("ip").arg("-V").output().is_err() {
        return Some("iproute2 (`ip`) not found".into());
    }
    // The topology turns checksum offload off with ethtool (.ci/run installs it).
    if Command::new("ethtool").arg("--version").output().is_err() {
        return Some("ethtool not found (apt-get install ethtool)".into());
    }
    None
}

/// Moves the calling thread into network namespace `ns` (`ip netns` names it).
fn enter(ns: &str) {
    let f = std::fs::File::open(format!("/var/run/netns/{ns}")).expect("namespace file");
    // SAFETY: a valid namespace fd; CLONE_NEWNET affects only this thread.
    let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    assert_eq!(r, 0, "setns {ns}: {}", std::io::Error::last_os_error());
}

/// The kernel's smoothed RTT of `s`, µs (TCP_INFO).
fn srtt_us(s: &TcpStream) -> u32 {
    // SAFETY: tcp_info is plain data; getsockopt writes at most `len` bytes into it.
    let mut ti: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: as above.
    let r = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut ti as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    assert_eq!(r, 0, "TCP_INFO: {}", std::io::Error::last_os_error());
    ti.tcpi_rtt
}

fn set_cubic(s: &TcpStream) {
    let name = b"cubic";
    // SAFETY: a valid socket and buffer.
    let r = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            name.as_ptr().cast(),
            name.len() as libc::socklen_t,
        )
    };
    assert_eq!(r, 0, "TCP_CONGESTION: {}", std::io::Error::last_os_error());
}

#[test]
fn kernel_tcp_through_the_delay_line_sees_the_delay_and_the_rate() {
    if let Some(why) = skip_reason() {
        println!("skipped: {why}");
        return;
    }
    let t_start = Instant::now();
    let name = format!("lt{}", std::process::id() % 100_000);
    let out = Command::new(script()).args(["up", &name]).output().unwrap();
    let _topo = Topology(name.clone());
    assert!(
        out.status.success(),
        "topology: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = std::env::temp_dir().join(format!("pktlab-linux-tcp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let routes = dir.join("routes.txt");
    std::fs::write(&routes, "0.0.0.0/0 1\n").unwrap();
    let mut fwd = Command::new("timeout")
        .args(["25", "ip", "netns", "exec", &format!("{name}-mid")])
        .arg(env!("CARGO_BIN_EXE_pktlab"))
        .args([
            "forward",
            "--rx",
            "afpacket:m0",
            "--tx",
            "afpacket:m1",
            "--stages",
            "l3",
            "--table",
            routes.to_str().unwrap(),
            "--delay",
            "20",
            "--rate",
            "10",
            "--aqm",
            "droptail",
            "--queue",
            "100",
            "--duration",
            "12",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the forwarder to run (its first stderr line), then drain stderr.
    let (tx, rx) = mpsc::channel();
    let err = fwd.stderr.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let l = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("forwarder did not start within 10 s");
        if l.contains("forward: running") {
            break;
        }
    }
    // Receiver: counts bytes from the first to the last.
    let rcv_ns = format!("{name}-rcv");
    let (ready_tx, ready_rx) = mpsc::channel();
    let receiver = std::thread::spawn(move || {
        enter(&rcv_ns);
        let l = TcpListener::bind("10.3.0.2:5001").unwrap();
        ready_tx.send(()).unwrap();
        let (mut s, _) = l.accept().unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let (mut bytes, mut first, mut last) = (0u64, None, Instant::now());
        loop {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    first.get_or_insert_with(Instant::now);
                    last = Instant::now();
                    bytes += n as u64;
                }
                Err(e) => panic!("receiver: {e}"),
            }
        }
        (bytes, (last - first.unwrap_or(last)).as_secs_f64())
    });
    ready_rx.recv_timeout(Duration::from_secs(5)).unwrap();
    // Sender: CUBIC, 4 s of bulk data.
    let snd_ns = format!("{name}-snd");
    let sender = std::thread::spawn(move || {
        enter(&snd_ns);
        let (mut s, handshake) = connect_cubic(&"10.3.0.2:5001".parse().unwrap());
        let chunk = vec![0x5au8; 1 << 16];
        let t = Instant::now();
        let mut srtt = 0;
        while t.elapsed() < Duration::from_secs(4) {
            s.write_all(&chunk).unwrap();
            srtt = srtt_us(&s);
        }
        s.shutdown(std::net::Shutdown::Write).unwrap();
        (handshake, srtt)
    });
    let (handshake, srtt) = sender.join().expect("sender");
    let (bytes, secs) = receiver.join().expect("receiver");
    let status = fwd.wait().unwrap();
    let mut json = String::new();
    fwd.stdout
        .take()
        .unwrap()
        .read_to_string(&mut json)
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let mbps = bytes as f64 * 8.0 / secs / 1e6;
    println!(
        "handshake {:.1} ms, srtt {:.1} ms, {bytes} B in {secs:.2} s = {mbps:.2} Mb/s; forward: {json}",
        handshake * 1e3,
        srtt as f64 / 1e3
    );
    assert!(status.success(), "forwarder: {status}");
    assert!(
        json.contains("\"delay_line\":{"),
        "forward JSON has the line: {json}"
    );
    assert!(
        handshake >= 0.020,
        "handshake {handshake} s < the 20 ms delay"
    );
    assert!(srtt >= 20_000, "smoothed RTT {srtt} µs < the 20 ms delay");
    assert!(bytes > 1_000_000, "the flow moved data: {bytes} B");
    assert!(
        mbps <= 10.0 * 1448.0 / 1514.0 * 1.05,
        "goodput {mbps} Mb/s above the 10 Mb/s rate"
    );
    assert!(t_start.elapsed() < Duration::from_secs(30));
}

/// Connects with CUBIC set before the handshake; returns the stream and the handshake time.
fn connect_cubic(to: &SocketAddr) -> (TcpStream, f64) {
    // SAFETY: plain socket creation.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) };
    assert!(fd >= 0);
    // SAFETY: fd is a fresh socket we own.
    let s: TcpStream = unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) };
    set_cubic(&s);
    // Bounds connect() and every write (the test must end even if the path is broken).
    let tv = libc::timeval {
        tv_sec: 5,
        tv_usec: 0,
    };
    // SAFETY: a valid socket and timeval.
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_SNDTIMEO,
            (&tv as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    assert_eq!(r, 0);
    let SocketAddr::V4(v4) = to else {
        panic!("IPv4 only")
    };
    let sa = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: v4.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*v4.ip()).to_be(),
        },
        sin_zero: [0; 8],
    };
    let t = Instant::now();
    // SAFETY: a valid sockaddr_in of the given length.
    let r = unsafe {
        libc::connect(
            fd,
            (&sa as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    assert_eq!(r, 0, "connect: {}", std::io::Error::last_os_error());
    (s, t.elapsed().as_secs_f64())
}
