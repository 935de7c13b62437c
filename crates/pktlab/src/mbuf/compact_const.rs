//! The `compact-constant` metadata layout — paper 001's "Constant" variant ("バッチ長と同数の
//! 領域を使い回す"): each worker owns one region of batch-length × S bytes, 64-byte aligned and
//! separate from the packet buffers, and reuses it for every batch: packet `i` of a batch
//! keeps its S-byte record at offset `i × S`, so a batch's metadata fills ⌈N·S/64⌉ cache
//! lines that stay hot from one batch to the next.

use super::pool::{Buf, Pool};
use super::{
    compact_reads, compact_writes, read_field, read_fields, write_record, write_records, Layout,
    RxMeta, DATA_ROOM, HEADROOM,
};
use std::sync::Arc;

/// Compact metadata of `S` bytes per packet in one reused per-worker region.
#[derive(Debug)]
pub struct CompactConst<const S: usize> {
    region: Pool,
    block: Option<Buf>,
}

impl<const S: usize> CompactConst<S> {
    #[inline(always)]
    fn rec(&self, i: usize) -> &[u8] {
        match &self.block {
            Some(b) => &self.region.data(b)[i * S..(i + 1) * S],
            None => &[],
        }
    }

    /// The batch's records (the whole region; none without a block).
    #[inline(always)]
    fn recs(&self) -> &[u8] {
        match &self.block {
            Some(b) => self.region.data(b),
            None => &[],
        }
    }

    /// The batch's records, to write (`None` without a block).
    #[inline(always)]
    fn recs_mut(&mut self) -> Option<&mut [u8]> {
        self.block.as_mut().map(|b| self.region.data_mut(b))
    }
}

impl<const S: usize> Layout for CompactConst<S> {
    const NAME: &'static str = "compact-constant";
    const META_BYTES: usize = S;
    type Shared = ();

    fn shared(_max_batch: usize, _workers: usize) {}

    fn new(_shared: Arc<()>, max_batch: usize) -> Self {
        let region = Pool::new(1, 0, max_batch.max(1) * S, false);
        let mut v = Vec::with_capacity(1);
        let ok = region.take(1, &mut v);
        debug_assert!(ok);
        CompactConst {
            region,
            block: v.pop(),
        }
    }

    fn mbuf_pool(count: u32) -> Pool {
        Pool::new(count, HEADROOM, DATA_ROOM, true)
    }

    #[inline(always)]
    fn begin(&mut self, n: usize) -> bool {
        self.block.is_some() && n * S <= self.region.data_room()
    }

    compact_writes!();

    compact_reads!();

    #[inline(always)]
    fn end(&mut self) {}

    fn finish(&mut self) {}
}
