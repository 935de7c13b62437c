//! Output files that appear complete or not at all: [`OutFile`] writes under a temporary name
//! in the target directory and renames to the real name only when [`OutFile::commit`] is
//! called after the last byte, so a run that fails (a full disk, an error, a panic) or is
//! killed never leaves a truncated file under the real name. Creating one is also the check
//! that the output can be written, done before the work starts; [`check_output`] is that
//! check alone, for outputs written only at the end.
//!
//! The temporary is `.NAME.PID.N.tmp` beside the real name (same directory, hence the same
//! file system, so the rename is atomic). It is removed when an uncommitted [`OutFile`] is
//! dropped; only a process killed outright (SIGKILL, or a signal the command does not
//! handle) leaves it behind, under that name.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Buffer size of an output file.
const BUF: usize = 1 << 20;

/// Creating, writing or committing an output file failed. One line: the real path, what
/// was being done, the system's reason.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {what}: {error}")]
pub struct OutputError {
    /// The output's real path, as given.
    pub path: String,
    /// `cannot create`, `write error`, `cannot rename`, …
    pub what: &'static str,
    /// The operating system's error.
    pub error: std::io::Error,
}

impl OutputError {
    /// A write error on the output `path`.
    pub fn write(path: &Path, error: std::io::Error) -> Self {
        OutputError::new(path, "write error", error)
    }

    fn new(path: &Path, what: &'static str, error: std::io::Error) -> Self {
        OutputError {
            path: path.display().to_string(),
            what,
            error,
        }
    }
}

/// An output file being written under a temporary name (see the module doc). Buffered;
/// implements [`Write`].
#[derive(Debug)]
pub struct OutFile {
    path: PathBuf,
    tmp: PathBuf,
    w: Option<BufWriter<File>>,
}

/// The temporary name for `path` (distinct per process and per call).
fn temp_name(path: &Path) -> Result<PathBuf, OutputError> {
    static N: AtomicU64 = AtomicU64::new(0);
    let invalid = |msg: &str| {
        OutputError::new(
            path,
            "cannot create",
            std::io::Error::new(std::io::ErrorKind::InvalidInput, msg.to_string()),
        )
    };
    if path.is_dir() {
        return Err(invalid("is a directory"));
    }
    let name = path
        .file_name()
        .ok_or_else(|| invalid("not a file name"))?
        .to_string_lossy();
    let k = N.fetch_add(1, Ordering::Relaxed);
    let tmp = format!(".{name}.{}.{k}.tmp", std::process::id());
    Ok(match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.join(tmp),
        _ => PathBuf::from(tmp),
    })
}

impl OutFile {
    /// Starts the output `path`: creates its temporary beside it. Fails (naming `path`) if
    /// the directory does not exist or cannot be written, or `path` is a directory.
    pub fn create(path: &Path) -> Result<OutFile, OutputError> {
        let tmp = temp_name(path)?;
        let f = File::options()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| OutputError::new(path, "cannot create", e))?;
        Ok(OutFile {
            path: path.to_path_buf(),
            tmp,
            w: Some(BufWriter::with_capacity(BUF, f)),
        })
    }

    /// The real path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary path the bytes go to until [`OutFile::commit`].
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// An error about this output (e.g. a write that failed), naming the real path.
    pub fn error(&self, what: &'static str, error: std::io::Error) -> OutputError {
        OutputError::new(&self.path, what, error)
    }

    /// Finishes the output: flushes, syncs the data to the disk and renames the temporary
    /// to the real name (replacing a file of that name). Returns the real path.
    pub fn commit(mut self) -> Result<PathBuf, OutputError> {
        let w = self.w.take().expect("an uncommitted output has its writer");
        let f = w
            .into_inner()
            .map_err(|e| OutputError::new(&self.path, "write error", e.into_error()))?;
        f.sync_data()
            .map_err(|e| OutputError::new(&self.path, "write error", e))?;
        drop(f);
        if let Err(e) = std::fs::rename(&self.tmp, &self.path) {
            let _ = std::fs::remove_file(&self.tmp);
            return Err(OutputError::new(&self.path, "cannot rename", e));
        }
        Ok(std::mem::take(&mut self.path))
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.w.as_mut().expect("open").write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.w.as_mut().expect("open").write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.w.as_mut().expect("open").flush()
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        if let Some(w) = self.w.take() {
            // Not committed: the bytes are not wanted (drop without a last flush).
            let (f, _) = w.into_parts();
            drop(f);
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` as the whole file `path`, through a temporary (see [`OutFile`]).
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let mut o = OutFile::create(path)?;
    o.write_all(bytes).map_err(|e| o.error("write error", e))?;
    o.commit().map(drop)
}

/// Checks that `path` can be written (its directory exists and takes a new file, and it is
/// not a directory) without creating it: for outputs written only after the work.
pub fn check_output(path: &Path) -> Result<(), OutputError> {
    OutFile::create(path).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::tests::temp_path;

    fn leftovers(dir: &Path, stem: &str) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(stem))
            .collect()
    }

    #[test]
    fn committed_appears_whole_and_dropped_leaves_nothing() {
        let dir = temp_path("outdir");
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("out.bin");
        let mut o = OutFile::create(&p).unwrap();
        o.write_all(b"hello").unwrap();
        assert!(!p.exists(), "nothing under the real name before commit");
        assert!(o.temp_path().exists());
        assert_eq!(o.commit().unwrap(), p);
        assert_eq!(std::fs::read(&p).unwrap(), b"hello");
        // A second output replaces it only when committed; dropped, it leaves the old one.
        let mut o = OutFile::create(&p).unwrap();
        o.write_all(b"partial").unwrap();
        drop(o);
        assert_eq!(std::fs::read(&p).unwrap(), b"hello");
        assert_eq!(leftovers(&dir, "out.bin"), vec!["out.bin".to_string()]);
        write_whole(&p, b"whole").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"whole");
        std::fs::remove_file(&p).unwrap();
        assert!(check_output(&p).is_ok());
        assert!(!p.exists() && leftovers(&dir, "out.bin").is_empty());
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn bad_places_are_one_line_errors_naming_the_path() {
        let e = OutFile::create(Path::new("/no/such/dir/out.pcap")).unwrap_err();
        let m = e.to_string();
        assert!(
            m.starts_with("/no/such/dir/out.pcap: cannot create: "),
            "{m}"
        );
        assert!(!m.contains('\n'));
        let d = std::env::temp_dir();
        let m = check_output(&d).unwrap_err().to_string();
        assert!(m.ends_with("cannot create: is a directory"), "{m}");
    }
}
