//! Routing-table input: readers for text, pyasn and MRT tables and for update streams,
//! next-hop assignment schemes, and a synthetic full-table generator.
//!
//! * [`routes`] — [`read_table`] (format detected from content) and [`read_updates`];
//! * [`nexthop`] — [`NextHopScheme`] (`file`, `asn:N`, `hash:N`) and the hash/ASN mappings;
//! * [`synth`] — [`synthetic_table`], a seeded, realistic full-table generator;
//! * [`output`] — [`OutFile`], the one way pktlab writes an output file (a temporary name in
//!   the target directory, renamed when complete).
//!
//! Every reader takes bytes, not only paths: each path function (`read_table`,
//! `PacketReader::open`, …) is a thin wrapper over a `…_from` / `from_reader` counterpart that
//! reads any [`Read`] (a file, a byte slice, stdin) and names the input in its messages by a
//! caller-given name.
//!
//! This file also holds the shared error type [`IoError`], [`open_maybe_compressed`] and
//! [`decompress`], which make gzip and bzip2 input transparent (detected by magic bytes, not by
//! file extension).

pub mod compact;
pub mod nexthop;
pub mod output;
pub mod packets;
pub mod pcap;
pub mod pcap_write;
pub mod routes;
pub mod synth;

/// Offending input in messages: escaped, at most ~80 bytes (see [`crate::util::quote`]).
pub use crate::util::quote;
pub use nexthop::{asn_nexthop, hash_nexthop, NextHopScheme, SchemeError};
pub use output::{check_output, write_whole, OutFile, OutputError};
pub use routes::{
    read_table, read_table_from, read_updates, read_updates_from, read_updates_mixed, MixedUpdates,
    ReadReport, Route, Table, Update,
};
pub use synth::{synthetic_table, DEFAULT_V4_ROUTES, DEFAULT_V6_ROUTES};

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Buffer size for file and decompressor readers.
const BUF_SIZE: usize = 256 * 1024;

/// An error reading routing input. Its `Display` is a single line that names the file and,
/// where there is one, the position (`file:line:` or `file: byte N:`).
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// The file could not be opened (or its first bytes could not be read).
    #[error("{path}: cannot open: {error}")]
    Open {
        /// The path as given.
        path: String,
        /// The underlying I/O error.
        error: std::io::Error,
    },
    /// Reading failed before any data could be examined (e.g. a corrupt compressed header).
    #[error("{path}: {pos}: read error: {error}")]
    Read {
        /// The path as given.
        path: String,
        /// Where the read failed, e.g. `byte 0`.
        pos: String,
        /// The underlying I/O error.
        error: std::io::Error,
    },
    /// Every data line (or record) of the input failed to parse; `first` is the first
    /// failure, already formatted as `file:line: message`.
    #[error("{first} (no usable {what} in {path})")]
    NothingUsable {
        /// The path as given.
        path: String,
        /// `"lines"` or `"records"`.
        what: &'static str,
        /// The first failure, with its position.
        first: String,
    },
    /// The next-hop scheme cannot be used with this input (e.g. `asn:N` on a table without
    /// an ASN column).
    #[error("{path}: {msg}")]
    Unsupported {
        /// The path as given.
        path: String,
        /// What is wrong.
        msg: String,
    },
}

/// Opens `path` for buffered reading, transparently decompressing gzip (magic `1f 8b`, all
/// members) and bzip2 (magic `BZh`, all streams). Detection is by content, never by name.
pub fn open_maybe_compressed(path: &Path) -> Result<Box<dyn BufRead + Send>, IoError> {
    let open_err = |error| IoError::Open {
        path: path.display().to_string(),
        error,
    };
    let file = File::open(path).map_err(open_err)?;
    decompress(file).map_err(open_err)
}

/// Wraps any reader for buffered reading, transparently decompressing gzip (magic `1f 8b`,
/// all members) and bzip2 (magic `BZh`, all streams) — the in-memory counterpart of
/// [`open_maybe_compressed`], e.g. `decompress(&bytes[..])`. Detection is by content. An
/// error is one from reading the first bytes.
pub fn decompress<'a, R: Read + Send + 'a>(r: R) -> std::io::Result<Box<dyn BufRead + Send + 'a>> {
    let mut reader = BufReader::with_capacity(BUF_SIZE, r);
    let head = reader.fill_buf()?;
    if head.len() >= 3 || head.is_empty() {
        // The usual case (a file, a byte slice): the first fill shows the magic.
        let magic = magic_of(head);
        return Ok(by_magic(reader, magic));
    }
    // A short first read (a pipe, a chunked reader): gather three bytes explicitly and put
    // them back in front of the rest.
    let (head, rest) = peek(reader, 3)?;
    let magic = magic_of(&head);
    Ok(by_magic(std::io::Cursor::new(head).chain(rest), magic))
}

/// What [`by_magic`] needs of the first bytes.
#[derive(Clone, Copy)]
enum Magic {
    Gzip,
    Bzip2,
    Plain,
}

fn magic_of(head: &[u8]) -> Magic {
    if head.starts_with(&[0x1f, 0x8b]) {
        Magic::Gzip
    } else if head.starts_with(b"BZh") {
        Magic::Bzip2
    } else {
        Magic::Plain
    }
}

/// Puts the decompressor `magic` calls for behind `reader`.
fn by_magic<'a, B: BufRead + Send + 'a>(reader: B, magic: Magic) -> Box<dyn BufRead + Send + 'a> {
    match magic {
        Magic::Gzip => Box::new(BufReader::with_capacity(
            BUF_SIZE,
            flate2::bufread::MultiGzDecoder::new(reader),
        )),
        Magic::Bzip2 => Box::new(BufReader::with_capacity(
            BUF_SIZE,
            bzip2::bufread::MultiBzDecoder::new(reader),
        )),
        Magic::Plain => Box::new(reader),
    }
}

/// Reads up to `n` bytes from the start of `r` (fewer only at end of input), returning them
/// and the rest of `r`.
fn peek<R: Read>(mut r: R, n: usize) -> std::io::Result<(Vec<u8>, R)> {
    let mut head = Vec::with_capacity(n);
    (&mut r).take(n as u64).read_to_end(&mut head)?;
    Ok((head, r))
}

/// Reads up to `n` bytes from the start of `r` (fewer only at end of input) and returns them
/// together with a reader that yields the same complete stream, peeked bytes included.
pub(crate) fn peek_stream<'a>(
    r: Box<dyn BufRead + Send + 'a>,
    n: usize,
) -> std::io::Result<(Vec<u8>, Box<dyn BufRead + Send + 'a>)> {
    let (head, r) = peek(r, n)?;
    let rest: Box<dyn BufRead + Send + 'a> = Box::new(std::io::Cursor::new(head.clone()).chain(r));
    Ok((head, rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A unique scratch path in the system temp directory.
    pub(crate) fn temp_path(name: &str) -> std::path::PathBuf {
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let k = N.fetch_add(1, Ordering::Relaxed);
        std::env::temp_dir().join(format!("pktlab-io-{}-{k}-{name}", std::process::id()))
    }

    fn read_all(p: &Path) -> String {
        let mut s = String::new();
        open_maybe_compressed(p)
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        s
    }

    #[test]
    fn plain_gzip_bzip2_are_transparent() {
        let text = "10.0.0.0/8 1\n# comment\n192.168.0.0/16 2\n";
        let plain = temp_path("plain.txt");
        std::fs::write(&plain, text).unwrap();
        assert_eq!(read_all(&plain), text);

        // gzip with two members: MultiGzDecoder must read both.
        let gz = temp_path("data.bin");
        let mut bytes = Vec::new();
        for part in [&text[..10], &text[10..]] {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(part.as_bytes()).unwrap();
            bytes.extend(e.finish().unwrap());
        }
        std::fs::write(&gz, &bytes).unwrap();
        assert_eq!(read_all(&gz), text);

        let bz = temp_path("data.txt"); // misleading extension on purpose
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(text.as_bytes()).unwrap();
        std::fs::write(&bz, e.finish().unwrap()).unwrap();
        assert_eq!(read_all(&bz), text);

        let empty = temp_path("empty");
        std::fs::write(&empty, "").unwrap();
        assert_eq!(read_all(&empty), "");

        for p in [plain, gz, bz, empty] {
            let _ = std::fs::remove_file(p);
        }
    }

    #[test]
    fn missing_file_names_path() {
        let p = Path::new("/nonexistent/pktlab/rib.txt.gz");
        let e = open_maybe_compressed(p).err().unwrap();
        let msg = e.to_string();
        assert!(
            msg.starts_with("/nonexistent/pktlab/rib.txt.gz: cannot open:"),
            "{msg}"
        );
        assert!(!msg.contains('\n'));
    }

    #[test]
    fn peek_keeps_whole_stream() {
        let r: Box<dyn BufRead + Send> = Box::new(std::io::Cursor::new(b"hello world".to_vec()));
        let (head, mut rest) = peek_stream(r, 5).unwrap();
        assert_eq!(head, b"hello");
        let mut s = String::new();
        rest.read_to_string(&mut s).unwrap();
        assert_eq!(s, "hello world");
    }
}
