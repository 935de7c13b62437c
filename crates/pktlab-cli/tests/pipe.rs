//! Output into a pipe that closes early (`pktlab … | head -1`) ends the process quietly, as
//! Unix tools do, instead of panicking on the failed write.

use std::io::Read;
use std::process::{Command, Stdio};

#[test]
fn closed_stdout_pipe_is_not_a_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pktlab"))
        .args([
            "lpm",
            "verify",
            "--samples",
            "1K",
            "--synthetic-routes",
            "10K",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pktlab runs");
    // Read one byte, then close our end while pktlab still has lines to write.
    let mut out = child.stdout.take().expect("stdout");
    let mut b = [0u8; 1];
    out.read_exact(&mut b).expect("some output");
    drop(out);
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr is text");
    let status = child.wait().expect("pktlab exits");
    assert!(!err.contains("panicked"), "pktlab panicked: {err}");
    assert_ne!(status.code(), Some(101), "exit code of a panic: {err}");
}
