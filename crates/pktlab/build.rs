//! Compiles the XDP program of `afxdp` ports (`bpf/xdp_redirect.bpf.c`) with clang's BPF
//! target against the kernel/libbpf headers (Debian: `clang`, `libbpf-dev`). Without them
//! the crate still builds: `afxdp` ports then fail at open with a one-line error naming
//! what was missing (`cfg(pktlab_xdp)` is unset).
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(pktlab_xdp)");
    println!("cargo::rerun-if-changed=bpf/xdp_redirect.bpf.c");
    println!("cargo::rerun-if-env-changed=PKTLAB_CLANG");
    let src = "bpf/xdp_redirect.bpf.c";
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let obj = out.join("xdp_redirect.bpf.o");
    let why = out.join("xdp_redirect.why");
    let target = std::env::var("TARGET").unwrap_or_default();
    if !target.contains("linux") {
        let _ = std::fs::write(&why, "afxdp ports need Linux");
        return;
    }
    // Debian keeps <asm/types.h> under the multiarch directory.
    let arch = target.split('-').next().unwrap_or("x86_64");
    let multiarch = format!("/usr/include/{arch}-linux-gnu");
    let clang = std::env::var("PKTLAB_CLANG").unwrap_or_else(|_| "clang".into());
    let r = Command::new(&clang)
        .args([
            "-O2", "-g", "-target", "bpf", "-Wall", "-I", &multiarch, "-c", src, "-o",
        ])
        .arg(&obj)
        .output();
    match r {
        Ok(o) if o.status.success() => {
            println!("cargo::rustc-cfg=pktlab_xdp");
        }
        Ok(o) => {
            let e = String::from_utf8_lossy(&o.stderr);
            let first = e.lines().find(|l| l.contains("error")).unwrap_or("failed");
            let msg = format!("{clang} could not compile {src} ({first}; Debian: apt-get install clang libbpf-dev)");
            println!("cargo::warning=afxdp ports disabled: {msg}");
            let _ = std::fs::write(&why, msg);
        }
        Err(e) => {
            let msg = format!(
                "no {clang} to compile {src} ({e}; Debian: apt-get install clang libbpf-dev)"
            );
            println!("cargo::warning=afxdp ports disabled: {msg}");
            let _ = std::fs::write(&why, msg);
        }
    }
}
