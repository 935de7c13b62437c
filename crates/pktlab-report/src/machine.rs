//! Facts about the machine and the build a report was produced on: CPU model, cores, date,
//! load average, pktlab version and git commit (`unknown` when it cannot be found).

use serde::Serialize;
use std::process::Command;
use std::time::SystemTime;

/// Machine and build facts.
#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    /// `model name` of the first CPU in `/proc/cpuinfo`.
    pub cpu_model: String,
    /// CPU 0's data and unified caches from sysfs, e.g. `L1d 32 KiB, L2 1 MiB, L3 32 MiB`
    /// (`unknown` without `/sys/devices/system/cpu/cpu0/cache`).
    pub caches: String,
    /// Logical CPUs available to the process.
    pub cores: usize,
    /// Kernel release (`/proc/sys/kernel/osrelease`).
    pub kernel: String,
    /// Start of the run, RFC 3339 UTC.
    pub date: String,
    /// 1-, 5- and 15-minute load averages at the start of the run.
    pub load_start: Option<[f64; 3]>,
    /// The same at the end.
    pub load_end: Option<[f64; 3]>,
    /// pktlab's version (the workspace version).
    pub pktlab_version: String,
    /// `git rev-parse HEAD` of the source tree, `-dirty` appended when it has changes.
    pub git_commit: String,
    /// Build profile of the report generator (`release` or `debug`).
    pub profile: String,
}

/// The 1/5/15-minute load averages from `/proc/loadavg`.
pub fn load_avg() -> Option<[f64; 3]> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = s.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// CPU 0's data and unified caches (`/sys/devices/system/cpu/cpu0/cache/index*`: level,
/// type, size), smallest level first, e.g. `L1d 32 KiB, L2 1 MiB, L3 32 MiB`.
pub fn caches() -> String {
    let read = |d: &std::path::Path, f: &str| {
        std::fs::read_to_string(d.join(f)).map(|s| s.trim().to_string())
    };
    let mut v: Vec<(String, String)> = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache")
        .map(|it| {
            it.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("index"))
                .filter_map(|e| {
                    let d = e.path();
                    let (level, kind, size) = (
                        read(&d, "level").ok()?,
                        read(&d, "type").ok()?,
                        read(&d, "size").ok()?,
                    );
                    let name = match kind.as_str() {
                        "Data" => format!("L{level}d"),
                        "Unified" => format!("L{level}"),
                        _ => return None,
                    };
                    Some((name, size_text(&size)?))
                })
                .collect()
        })
        .unwrap_or_default();
    if v.is_empty() {
        return "unknown".into();
    }
    v.sort();
    v.iter()
        .map(|(n, s)| format!("{n} {s}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// sysfs's `32768K` as `32 MiB`, `512K` as `512 KiB`.
fn size_text(s: &str) -> Option<String> {
    let (n, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let kib: u64 = n.parse::<u64>().ok()?
        * match unit {
            "K" => 1,
            "M" => 1024,
            "" => return Some(format!("{n} B")),
            _ => return None,
        };
    Some(if kib >= 1024 && kib.is_multiple_of(1024) {
        format!("{} MiB", kib / 1024)
    } else {
        format!("{kib} KiB")
    })
}

fn git(dir: &str, args: &[&str]) -> Option<String> {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// The commit of the source tree this binary was built from (looked up at run time in the
/// crate's source directory, then in the current directory).
fn git_commit() -> String {
    for dir in [env!("CARGO_MANIFEST_DIR"), "."] {
        if let Some(c) = git(dir, &["rev-parse", "HEAD"]).filter(|c| !c.is_empty()) {
            let dirty = git(dir, &["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            return if dirty { format!("{c}-dirty") } else { c };
        }
    }
    "unknown".into()
}

impl Machine {
    /// Collects the facts now.
    pub fn now() -> Self {
        Machine {
            cpu_model: cpu_model(),
            caches: caches(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "unknown".into()),
            date: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
            load_start: load_avg(),
            load_end: None,
            pktlab_version: env!("CARGO_PKG_VERSION").into(),
            git_commit: git_commit(),
            profile: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            }
            .into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_read_as_units() {
        assert_eq!(size_text("32768K").as_deref(), Some("32 MiB"));
        assert_eq!(size_text("512K").as_deref(), Some("512 KiB"));
        assert_eq!(size_text("2M").as_deref(), Some("2 MiB"));
        assert_eq!(size_text("x"), None);
    }

    #[test]
    fn facts_are_filled() {
        let m = Machine::now();
        assert!(m.cores >= 1);
        assert!(!m.cpu_model.is_empty() && !m.git_commit.is_empty());
        if std::path::Path::new("/sys/devices/system/cpu/cpu0/cache/index0").exists() {
            assert!(m.caches.starts_with("L1d "), "{}", m.caches);
        }
        assert!(m.date.ends_with('Z') && m.date.len() == 20, "{}", m.date);
        assert_eq!(m.pktlab_version, env!("CARGO_PKG_VERSION"));
    }
}
