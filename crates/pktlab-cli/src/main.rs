//! `pktlab` — command-line front end of the pktlab toolkit.
//!
//! Contract (see `DESIGN.md`): every subcommand takes `--json` and then prints exactly one JSON
//! object on stdout (human-readable tables otherwise); progress goes to stderr; errors exit
//! non-zero with a one-line message naming the file and position.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod aqm;
mod aqm_study;
mod cache;
mod ccn;
mod ccn_live;
mod forward;
mod gen;
mod live;
mod lpm;
mod progress;
mod reproduce;
mod sink;
mod size;

use clap::{Parser, Subcommand};

/// Large tables can be built on transparent huge pages (`pktlab::thp`; `lpm bench
/// --huge-pages`, the report's LPM section).
#[global_allocator]
static ALLOC: pktlab::thp::ThpAllocator = pktlab::thp::ThpAllocator;

/// pktlab: fast software packet processing — Poptrie LPM and friends.
#[derive(Parser)]
#[command(name = "pktlab", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// IP longest-prefix match: benchmark and verify Poptrie and its baselines.
    #[command(subcommand)]
    Lpm(lpm::LpmCmd),
    /// Packet processing cache (Hit Priority Cache): simulate policies, sweep sizes.
    #[command(subcommand)]
    Cache(cache::CacheCmd),
    /// Packet traces: statistics and conversion (pcap, compact, synthetic).
    #[command(subcommand)]
    Trace(cache::TraceCmd),
    /// AQM fairness simulations: TCP Reno/Vegas dumbbell (paper 002) under DropTail/RED/SRED/ZL-RED and per-flow schedulers.
    #[command(subcommand)]
    Aqm(aqm::AqmCmd),
    /// Traffic generators: Zipf table sampler, flow traces, CCNx packets (pcap output or a live interface).
    #[command(subcommand)]
    Gen(gen::GenCmd),
    /// Content-centric networking: content-store and forwarder simulations.
    #[command(subcommand)]
    Ccn(ccn::CcnCmd),
    /// Forward packets through the batched data plane (paper 001 message buffers + cache + Poptrie + AQM).
    Forward(forward::ForwardArgs),
    /// Receive on a live interface (afpacket:IFACE) and count packets, flows, TTLs, checksum errors.
    Sink(sink::SinkArgs),
    /// Run every paper's experiments and write an HTML report beside the published numbers
    /// (report/index.html, results.json, one CSV per figure).
    Reproduce(reproduce::ReproduceArgs),
}

/// Parses the command line; a flag value clap itself refuses (not a number, negative for a
/// count, unknown flag) is reported as one line like every other error, not clap's block.
fn parse_args() -> Cli {
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("bad arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("pktlab: error: {first} (see --help)");
            std::process::exit(2);
        }
    }
}

/// Restores the default SIGPIPE action (Rust ignores it, so `println!` into a closed pipe
/// panics): `pktlab … | head` then ends quietly, as Unix tools do.
fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: `signal` with `SIG_DFL` only changes this process's disposition of SIGPIPE;
    // it runs first in `main`, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() {
    default_sigpipe();
    let cli = parse_args();
    let res = match cli.cmd {
        Cmd::Lpm(c) => lpm::run(c),
        Cmd::Cache(c) => cache::run(c),
        Cmd::Trace(c) => cache::run_trace(c),
        Cmd::Aqm(c) => aqm::run_cmd(c),
        Cmd::Gen(c) => gen::run(c),
        Cmd::Ccn(c) => ccn::run(c),
        Cmd::Forward(a) => forward::run(a),
        Cmd::Sink(a) => sink::run(a),
        Cmd::Reproduce(a) => reproduce::run(a),
    };
    match res {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            // One line: the error and its causes, joined.
            let msg = e
                .chain()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(": ");
            eprintln!("pktlab: error: {msg}");
            std::process::exit(2);
        }
    }
}
