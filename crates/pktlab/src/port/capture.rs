//! tx `pcap:PATH`: the frames sent are streamed to disk as they are transmitted (memory is
//! one write buffer per worker, whatever the run's length), as a pcap in the input's link type
//! with nanosecond timestamps.
//!
//! Each worker's port writes its own file under a temporary name beside `PATH`
//! ([`OutFile`]); [`CaptureTx::commit_all`] finalises the run's output: one worker's file is
//! renamed to `PATH`, several are merged by timestamp (a streaming k-way merge, ties in
//! worker order, then sending order) into `PATH`. A run that fails or is cut short before
//! that leaves nothing under `PATH`. A write error (e.g. a full disk) stops the writing,
//! raises the flag given to [`CaptureTx::on_error`] (so the run can stop early) and is
//! returned by [`CaptureTx::commit_all`].

use super::{free_all, Bufs, Burst, TxPort};
use crate::io::output::{OutFile, OutputError};
use crate::io::packets::PacketReader;
use crate::io::pcap_write::{PcapWriter, TsResolution};
use crate::mbuf::Layout;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Frames sent by one worker, streamed to a temporary file.
pub struct CaptureTx {
    out: Option<PcapWriter<OutFile>>,
    linktype: u32,
    sent: u64,
    error: Option<OutputError>,
    fail: Option<Arc<AtomicBool>>,
}

impl std::fmt::Debug for CaptureTx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureTx")
            .field("path", &self.out.as_ref().map(|w| w.get_ref().path()))
            .field("sent", &self.sent)
            .field("error", &self.error)
            .finish()
    }
}

impl CaptureTx {
    /// A capture of link type `linktype` for the output `path`, written under a temporary
    /// name beside it until [`CaptureTx::commit_all`]. Fails (one line naming `path`) if the
    /// directory does not exist or cannot be written.
    pub fn create(path: &Path, linktype: u32) -> Result<CaptureTx, OutputError> {
        let f = OutFile::create(path)?;
        let out = PcapWriter::with_format(f, linktype, TsResolution::Nanos)
            .map_err(|e| OutputError::write(path, e))?;
        Ok(CaptureTx {
            out: Some(out),
            linktype,
            sent: 0,
            error: None,
            fail: None,
        })
    }

    /// Raises `flag` when a write fails (e.g. the run's stop flag).
    pub fn on_error(mut self, flag: Arc<AtomicBool>) -> CaptureTx {
        self.fail = Some(flag);
        self
    }

    /// Finalises the output of a run's captures (one per worker, all for the same path):
    /// renames a single one, or merges several by timestamp into the path. Returns the frames
    /// written. The first write error of any part is the error (nothing is left under the
    /// path then).
    pub fn commit_all(parts: Vec<CaptureTx>) -> Result<u64, OutputError> {
        let mut files = Vec::with_capacity(parts.len());
        let mut linktype = 0;
        for p in parts {
            linktype = p.linktype;
            if let Some(e) = p.error {
                return Err(e);
            }
            let Some(w) = p.out else { continue };
            let n = w.records();
            let path = w.get_ref().path().to_path_buf();
            let f = w.finish().map_err(|e| OutputError::write(&path, e))?;
            files.push((f, n));
        }
        match files.len() {
            0 => Ok(0),
            1 => {
                let (f, n) = files.pop().expect("one part");
                f.commit()?;
                Ok(n)
            }
            _ => merge(files, linktype),
        }
    }
}

/// Reads part `i`'s next frame into `head`; its heap key.
fn next(i: usize, rd: &mut PacketReader, head: &mut Vec<u8>) -> Option<Reverse<(u64, usize)>> {
    rd.next_frame(|ts, _, data| {
        head.clear();
        head.extend_from_slice(data);
        ts
    })
    .map(|ts| Reverse((ts, i)))
}

/// Merges the parts' files (each already flushed) by timestamp into their common real path.
fn merge(files: Vec<(OutFile, u64)>, linktype: u32) -> Result<u64, OutputError> {
    let path = files[0].0.path().to_path_buf();
    let read_err = |e: crate::io::IoError| OutputError {
        path: path.display().to_string(),
        what: "cannot read back a worker's part",
        error: std::io::Error::other(e.to_string()),
    };
    let mut readers = Vec::with_capacity(files.len());
    for (f, _) in &files {
        readers.push(PacketReader::open(f.temp_path()).map_err(read_err)?);
    }
    let out = OutFile::create(&path)?;
    let mut w = PcapWriter::with_format(out, linktype, TsResolution::Nanos)
        .map_err(|e| OutputError::write(&path, e))?;
    // The head frame of each part, and a heap of (timestamp, part) over the heads.
    let mut heads: Vec<Vec<u8>> = vec![Vec::new(); readers.len()];
    let mut heap = BinaryHeap::new();
    for (i, rd) in readers.iter_mut().enumerate() {
        if let Some(k) = next(i, rd, &mut heads[i]) {
            heap.push(k);
        }
    }
    while let Some(Reverse((ts, i))) = heap.pop() {
        w.write(ts, &heads[i])
            .map_err(|e| OutputError::write(&path, e))?;
        if let Some(k) = next(i, &mut readers[i], &mut heads[i]) {
            heap.push(k);
        }
    }
    for rd in &readers {
        if let Some(t) = &rd.report().truncated {
            let e = std::io::Error::other(format!("a worker's part is cut: {t}"));
            return Err(OutputError::write(&path, e));
        }
    }
    let n = w.records();
    let out = w.finish().map_err(|e| OutputError::write(&path, e))?;
    out.commit()?;
    drop(files);
    Ok(n)
}

impl TxPort for CaptureTx {
    #[inline]
    fn tx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, bufs: &mut Burst, lens: &[u16], ts: &[u64]) {
        let (pool, cache, layout) = c.parts();
        self.sent += bufs.len() as u64;
        if let Some(w) = &mut self.out {
            for ((b, &len), &t) in bufs.iter().zip(lens).zip(ts) {
                if let Err(e) = w.write(t, &pool.data(b)[..len as usize]) {
                    self.error = Some(w.get_ref().error("write error", e));
                    if let Some(f) = &self.fail {
                        f.store(true, Ordering::Relaxed);
                    }
                    // Dropping the writer removes the temporary file.
                    self.out = None;
                    break;
                }
            }
        }
        free_all(pool, cache, layout, bufs);
    }

    fn packets(&self) -> u64 {
        self.sent
    }

    fn wants_timestamps(&self) -> bool {
        true
    }
}
