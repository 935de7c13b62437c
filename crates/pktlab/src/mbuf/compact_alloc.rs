//! The `compact-alloc` metadata layout — paper 001's "Alloc/Free" variant ("バッファプールから
//! 確保・解放 (DPDK)"): metadata blocks of batch-length × S bytes live in their own pool
//! (one contiguous arena, apart from the packet buffers); each batch takes one block from the
//! worker's cache of that pool and frees it at the end, as DPDK allocates mbufs. A batch's
//! records are contiguous: packet `i` at offset `i × S` of the block.

use super::pool::{Buf, Pool, PoolCache};
use super::{
    compact_reads, compact_writes, read_field, read_fields, write_record, write_records, Layout,
    RxMeta, DATA_ROOM, HEADROOM,
};
use std::sync::Arc;

/// Blocks each worker's metadata-pool cache holds.
const BLOCK_CACHE: usize = 4;

/// Compact metadata of `S` bytes per packet in blocks allocated per batch.
#[derive(Debug)]
pub struct CompactAlloc<const S: usize> {
    blocks: Arc<Pool>,
    cache: PoolCache,
    block: Vec<Buf>,
    spare: Vec<Buf>,
}

impl<const S: usize> CompactAlloc<S> {
    #[inline(always)]
    fn rec(&self, i: usize) -> &[u8] {
        match self.block.first() {
            Some(b) => &self.blocks.data(b)[i * S..(i + 1) * S],
            None => &[],
        }
    }

    /// The batch's records (the whole block; none without a block).
    #[inline(always)]
    fn recs(&self) -> &[u8] {
        match self.block.first() {
            Some(b) => self.blocks.data(b),
            None => &[],
        }
    }

    /// The batch's records, to write (`None` without a block).
    #[inline(always)]
    fn recs_mut(&mut self) -> Option<&mut [u8]> {
        self.block.first_mut().map(|b| self.blocks.data_mut(b))
    }
}

impl<const S: usize> Layout for CompactAlloc<S> {
    const NAME: &'static str = "compact-alloc";
    const META_BYTES: usize = S;
    type Shared = Pool;

    fn shared(max_batch: usize, workers: usize) -> Pool {
        let count = (workers.max(1) * (2 * BLOCK_CACHE + 2)) as u32;
        Pool::new(count, 0, max_batch.max(1) * S, false)
    }

    fn new(shared: Arc<Pool>, _max_batch: usize) -> Self {
        CompactAlloc {
            blocks: shared,
            cache: PoolCache::new(BLOCK_CACHE),
            block: Vec::with_capacity(BLOCK_CACHE + 1),
            spare: Vec::with_capacity(BLOCK_CACHE + 1),
        }
    }

    fn mbuf_pool(count: u32) -> Pool {
        Pool::new(count, HEADROOM, DATA_ROOM, true)
    }

    #[inline(always)]
    fn begin(&mut self, n: usize) -> bool {
        debug_assert!(self.block.is_empty());
        n * S <= self.blocks.data_room() && self.cache.get_bulk(&self.blocks, 1, &mut self.block)
    }

    compact_writes!();

    compact_reads!();

    #[inline(always)]
    fn end(&mut self) {
        std::mem::swap(&mut self.block, &mut self.spare);
        self.cache.put_bulk(&self.blocks, &mut self.spare);
    }

    fn finish(&mut self) {
        self.cache.put_bulk(&self.blocks, &mut self.block);
        self.cache.flush_all(&self.blocks);
    }
}
