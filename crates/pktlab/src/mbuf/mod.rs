//! Message buffers with per-batch compact metadata — paper 001 (Yamada, Kawashima et al.,
//! "メッセージバッファの再設計による実CNFのキャッシュ効率化"): DPDK's mbuf carries 128 B of
//! metadata (two cache lines) per packet, which with large batches overflows L1; shrinking the
//! metadata and aggregating a batch's metadata into as few cache lines as possible, apart from
//! the packet data, restores the hit ratio.
//!
//! * [`pool`] — the buffer pool: one 64-byte-aligned arena, per-worker LIFO caches with
//!   DPDK's bulk refill/flush, unique [`Buf`] handles (no lock, no allocation per packet);
//! * [`Layout`] — where a packet's metadata lives, one file per layout:
//!   [`dpdk`] (128 B `rte_mbuf` in front of each buffer), [`compact_alloc`] (S bytes per
//!   packet in a block taken per batch from a metadata pool cache — the paper's "Alloc/Free"
//!   variant) and [`compact_const`] (one batch-length region per worker reused every batch —
//!   the paper's "Constant" variant).
//!
//! Layouts are type parameters of the data-plane loop (monomorphised, so metadata accesses
//! compile to plain loads and stores); [`MetaKind`] names them for run-time selection, and
//! callers match on it once per run.
//!
//! Every element has [`HEADROOM`] bytes before a [`DATA_ROOM`]-byte data room, as DPDK's
//! default `RTE_PKTMBUF_HEADROOM` and `RTE_MBUF_DEFAULT_DATAROOM`.

pub mod compact_alloc;
pub mod compact_const;
pub mod dpdk;
pub mod pool;

pub use compact_alloc::CompactAlloc;
pub use compact_const::CompactConst;
pub use dpdk::{Dpdk, RteMbuf};
pub use pool::{Buf, ElemInit, Pool, PoolCache};

use std::sync::Arc;

crate::util::message_error!(
    /// The error type of the buffer module (an unknown metadata layout name).
    MbufError
);

/// Bytes of headroom in front of the data room.
pub const HEADROOM: usize = 128;
/// Bytes of data room per buffer.
pub const DATA_ROOM: usize = 2048;
/// Metadata sizes (bytes per packet) the compact layouts support, as in the paper's sweep.
pub const META_SIZES: [usize; 7] = [0, 2, 4, 8, 16, 32, 64];

/// What a port knows about a received packet, written into its metadata at rx.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxMeta {
    /// Bytes of packet data.
    pub len: u16,
    /// Input port.
    pub port: u16,
    /// RSS hash (Toeplitz) computed by the "NIC".
    pub rss: u32,
    /// Receive timestamp, ns.
    pub ts_ns: u64,
}

/// Where per-packet metadata lives. A layout instance belongs to one worker.
///
/// Contract: a batch is `begin(n)` (false: no metadata memory, receive nothing), then
/// `rx_init` for packets `0..k` (`k ≤ n`), any reads of those packets, `release` of each
/// buffer before it returns to the pool, and `end()`. Packet `i`'s fields read back exactly
/// what `rx_init` wrote, for the fields the layout has room for: a compact record of S bytes
/// holds the data length (S ≥ 2), the port (S ≥ 4), the RSS hash (S ≥ 8) and the timestamp
/// (S ≥ 16) and zeroes the rest; fields it has no room for read as 0. Nothing allocates.
pub trait Layout: Send + Sized + 'static {
    /// Name as the CLI spells it.
    const NAME: &'static str;
    /// Metadata bytes per packet.
    const META_BYTES: usize;
    /// State shared by all workers' instances (e.g. the metadata block pool).
    type Shared: Send + Sync;
    /// Builds the shared state for batches of at most `max_batch` packets and `workers`.
    fn shared(max_batch: usize, workers: usize) -> Self::Shared;
    /// A worker's instance.
    fn new(shared: Arc<Self::Shared>, max_batch: usize) -> Self;
    /// A buffer pool of `count` elements in this layout's element format.
    fn mbuf_pool(count: u32) -> Pool;
    /// Starts a batch of at most `n` packets.
    fn begin(&mut self, n: usize) -> bool;
    /// Initialises packet `i`'s metadata at receive time.
    fn rx_init(&mut self, pool: &Pool, buf: &mut Buf, i: usize, rx: &RxMeta);
    /// Initialises the receive metadata of a burst: packet `start + k` is `bufs[k]`, with
    /// metadata the `k`-th of `metas` (one per buffer). [`Layout::rx_init`] on each by
    /// default; a compact layout finds its records once per burst and writes them in one
    /// pass.
    #[inline(always)]
    fn rx_init_batch(
        &mut self,
        pool: &Pool,
        bufs: &mut [Buf],
        start: usize,
        metas: impl Iterator<Item = RxMeta>,
    ) {
        for (k, (b, m)) in bufs.iter_mut().zip(metas).enumerate() {
            self.rx_init(pool, b, start + k, &m);
        }
    }
    /// Packet `i`'s data length.
    fn data_len(&self, pool: &Pool, buf: &Buf, i: usize) -> u16;
    /// Packet `i`'s RSS hash.
    fn rss(&self, pool: &Pool, buf: &Buf, i: usize) -> u32;
    /// Packet `i`'s receive timestamp.
    fn ts_ns(&self, pool: &Pool, buf: &Buf, i: usize) -> u64;
    /// The data lengths of a batch's packets `0..bufs.len()`: `out[i]` is
    /// [`Layout::data_len`] of `bufs[i]`; `out` has one entry per buffer (panics otherwise).
    /// One pass over the batch: a compact layout reads its records in order, without a
    /// lookup of its block per packet.
    #[inline(always)]
    fn data_len_batch(&self, pool: &Pool, bufs: &[Buf], out: &mut [u16]) {
        assert_eq!(out.len(), bufs.len(), "one output per buffer");
        for (i, (b, o)) in bufs.iter().zip(out.iter_mut()).enumerate() {
            *o = self.data_len(pool, b, i);
        }
    }
    /// The RSS hashes of a batch's packets, as [`Layout::data_len_batch`] for [`Layout::rss`].
    #[inline(always)]
    fn rss_batch(&self, pool: &Pool, bufs: &[Buf], out: &mut [u32]) {
        assert_eq!(out.len(), bufs.len(), "one output per buffer");
        for (i, (b, o)) in bufs.iter().zip(out.iter_mut()).enumerate() {
            *o = self.rss(pool, b, i);
        }
    }
    /// The receive timestamps of a batch's packets, as [`Layout::data_len_batch`] for
    /// [`Layout::ts_ns`].
    #[inline(always)]
    fn ts_batch(&self, pool: &Pool, bufs: &[Buf], out: &mut [u64]) {
        assert_eq!(out.len(), bufs.len(), "one output per buffer");
        for (i, (b, o)) in bufs.iter().zip(out.iter_mut()).enumerate() {
            *o = self.ts_ns(pool, b, i);
        }
    }
    /// Per-buffer work before the buffer returns to the pool (DPDK's `prefree_seg`).
    fn release(&mut self, pool: &Pool, buf: &mut Buf);
    /// Ends the batch.
    fn end(&mut self);
    /// Returns everything the instance holds (end of the worker).
    fn finish(&mut self);
}

/// The layouts by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MetaKind {
    /// [`Dpdk`].
    Dpdk,
    /// [`CompactAlloc`].
    CompactAlloc,
    /// [`CompactConst`].
    CompactConst,
}

impl MetaKind {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            MetaKind::Dpdk => "dpdk",
            MetaKind::CompactAlloc => "compact-alloc",
            MetaKind::CompactConst => "compact-constant",
        }
    }
}

impl std::str::FromStr for MetaKind {
    type Err = MbufError;
    fn from_str(s: &str) -> Result<Self, MbufError> {
        match s {
            "dpdk" => Ok(MetaKind::Dpdk),
            "compact-alloc" => Ok(MetaKind::CompactAlloc),
            "compact-constant" | "compact-const" => Ok(MetaKind::CompactConst),
            o => Err(format!(
                "unknown metadata layout {o:?} (known: dpdk, compact-alloc, compact-constant)"
            )
            .into()),
        }
    }
}

/// The write accessors of a compact layout whose type has `fn recs_mut(&mut self) ->
/// Option<&mut [u8]>` (the batch's records, packet `i`'s at `i × S`; `None` without a
/// block, when nothing is written): one packet's record, or a burst's in one pass.
macro_rules! compact_writes {
    () => {
        #[inline(always)]
        fn rx_init(&mut self, _pool: &Pool, _buf: &mut Buf, i: usize, rx: &RxMeta) {
            if let Some(d) = self.recs_mut() {
                write_record::<S>(&mut d[i * S..(i + 1) * S], rx);
            }
        }

        #[inline(always)]
        fn rx_init_batch(
            &mut self,
            _pool: &Pool,
            bufs: &mut [Buf],
            start: usize,
            metas: impl Iterator<Item = RxMeta>,
        ) {
            if let Some(d) = self.recs_mut() {
                write_records::<S>(d, start, bufs.len(), metas);
            }
        }
    };
}
pub(crate) use compact_writes;

/// The read accessors of a compact layout whose type has `fn rec(&self, i) -> &[u8]`
/// (packet `i`'s S-byte record) and `fn recs(&self) -> &[u8]` (the batch's records, packet
/// `i`'s at `i × S`): length, RSS hash and timestamp at their record offsets, per packet and
/// for a whole batch in one pass over the records.
macro_rules! compact_reads {
    () => {
        #[inline(always)]
        fn data_len_batch(&self, _pool: &Pool, bufs: &[Buf], out: &mut [u16]) {
            read_fields::<S, 2, u16>(self.recs(), bufs.len(), 0, out, u16::from_le_bytes);
        }

        #[inline(always)]
        fn rss_batch(&self, _pool: &Pool, bufs: &[Buf], out: &mut [u32]) {
            read_fields::<S, 4, u32>(self.recs(), bufs.len(), 4, out, u32::from_le_bytes);
        }

        #[inline(always)]
        fn ts_batch(&self, _pool: &Pool, bufs: &[Buf], out: &mut [u64]) {
            read_fields::<S, 8, u64>(self.recs(), bufs.len(), 8, out, u64::from_le_bytes);
        }

        #[inline(always)]
        fn data_len(&self, _pool: &Pool, _buf: &Buf, i: usize) -> u16 {
            u16::from_le_bytes(read_field::<S, 2>(self.rec(i), 0))
        }

        #[inline(always)]
        fn rss(&self, _pool: &Pool, _buf: &Buf, i: usize) -> u32 {
            u32::from_le_bytes(read_field::<S, 4>(self.rec(i), 4))
        }

        #[inline(always)]
        fn ts_ns(&self, _pool: &Pool, _buf: &Buf, i: usize) -> u64 {
            u64::from_le_bytes(read_field::<S, 8>(self.rec(i), 8))
        }

        #[inline(always)]
        fn release(&mut self, _pool: &Pool, _buf: &mut Buf) {}
    };
}
pub(crate) use compact_reads;

/// Writes the compact record of `S` bytes for `rx` into `rec` (exactly `S` bytes).
#[inline(always)]
pub(crate) fn write_record<const S: usize>(rec: &mut [u8], rx: &RxMeta) {
    let mut f = [0u8; 16];
    f[0..2].copy_from_slice(&rx.len.to_le_bytes());
    f[2..4].copy_from_slice(&rx.port.to_le_bytes());
    f[4..8].copy_from_slice(&rx.rss.to_le_bytes());
    f[8..16].copy_from_slice(&rx.ts_ns.to_le_bytes());
    let head = if S < 16 { S } else { 16 };
    let rec: &mut [u8; S] = rec.try_into().expect("record of S bytes");
    rec[..head].copy_from_slice(&f[..head]);
    if S > 16 {
        rec[16..].fill(0);
    }
}

/// Writes the `S`-byte records of a burst's packets `start..start + n` in a compact layout's
/// record area `recs` (packet `i`'s at `i × S`), [`write_record`] for each of `metas`.
#[inline(always)]
pub(crate) fn write_records<const S: usize>(
    recs: &mut [u8],
    start: usize,
    n: usize,
    metas: impl Iterator<Item = RxMeta>,
) {
    if S == 0 {
        return;
    }
    for (rec, m) in recs[start * S..(start + n) * S]
        .chunks_exact_mut(S)
        .zip(metas)
    {
        write_record::<S>(rec, &m);
    }
}

/// Reads the field at `off` (`N` bytes) of a compact record of `S` bytes; 0 if the record
/// has no room for it.
#[inline(always)]
pub(crate) fn read_field<const S: usize, const N: usize>(rec: &[u8], off: usize) -> [u8; N] {
    let mut out = [0u8; N];
    if off + N <= S {
        out.copy_from_slice(&rec[off..off + N]);
    }
    out
}

/// Field `off` (`N` bytes) of each of the first `n` records of `recs` (records of `S`
/// bytes, packet `i`'s at `i × S`) into `out[i]`, converted by `f`; 0 for a field the record
/// has no room for ([`read_field`] per record). Panics unless `out` has `n` entries and
/// `recs` holds `n` records.
#[inline(always)]
pub(crate) fn read_fields<const S: usize, const N: usize, T>(
    recs: &[u8],
    n: usize,
    off: usize,
    out: &mut [T],
    f: impl Fn([u8; N]) -> T,
) {
    assert_eq!(out.len(), n, "one output per buffer");
    if S == 0 || off + N > S {
        out.fill_with(|| f([0; N]));
        return;
    }
    for (r, o) in recs[..n * S].chunks_exact(S).zip(out.iter_mut()) {
        *o = f(read_field::<S, N>(r, off));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<L: Layout>() {
        let shared = Arc::new(L::shared(64, 1));
        let pool = L::mbuf_pool(256);
        let mut l = L::new(shared, 64);
        let mut cache = PoolCache::new(32);
        for round in 0..5u64 {
            let mut bufs = Vec::with_capacity(64);
            assert!(l.begin(64));
            assert!(cache.get_bulk(&pool, 64, &mut bufs));
            let rx = |i: usize| RxMeta {
                len: 60 + i as u16,
                port: 3,
                rss: 0x0101_0101 * i as u32 + round as u32,
                ts_ns: (round << 40) + i as u64,
            };
            if round % 2 == 0 {
                for (i, b) in bufs.iter_mut().enumerate() {
                    l.rx_init(&pool, b, i, &rx(i));
                }
            } else {
                // Two bursts, the second from position 23: the batch writer's records must
                // be the per-packet ones, at the burst's positions (every field depends on
                // the round, so a record left from the last round fails below).
                let (a, b) = bufs.split_at_mut(23);
                l.rx_init_batch(&pool, a, 0, (0..23).map(rx));
                l.rx_init_batch(&pool, b, 23, (23..64).map(rx));
            }
            for (i, b) in bufs.iter().enumerate() {
                let s = L::META_BYTES;
                let want = rx(i);
                let len = if s >= 2 { want.len } else { 0 };
                let rss = if s >= 8 { want.rss } else { 0 };
                let ts = if s >= 16 { want.ts_ns } else { 0 };
                assert_eq!(l.data_len(&pool, b, i), len, "{} S={s}", L::NAME);
                assert_eq!(l.rss(&pool, b, i), rss, "{} S={s}", L::NAME);
                assert_eq!(l.ts_ns(&pool, b, i), ts, "{} S={s}", L::NAME);
            }
            // The batch readers give the per-packet reads, for the whole batch and a prefix.
            for n in [64, 37, 0] {
                let (mut lens, mut rss, mut ts) = (vec![9; n], vec![9; n], vec![9; n]);
                l.data_len_batch(&pool, &bufs[..n], &mut lens);
                l.rss_batch(&pool, &bufs[..n], &mut rss);
                l.ts_batch(&pool, &bufs[..n], &mut ts);
                for (i, b) in bufs[..n].iter().enumerate() {
                    let s = L::META_BYTES;
                    assert_eq!(lens[i], l.data_len(&pool, b, i), "{} S={s} n={n}", L::NAME);
                    assert_eq!(rss[i], l.rss(&pool, b, i), "{} S={s} n={n}", L::NAME);
                    assert_eq!(ts[i], l.ts_ns(&pool, b, i), "{} S={s} n={n}", L::NAME);
                }
            }
            for b in bufs.iter_mut() {
                l.release(&pool, b);
            }
            l.end();
            cache.put_bulk(&pool, &mut bufs);
        }
        l.finish();
    }

    #[test]
    fn every_layout_reads_back_what_rx_wrote() {
        round_trip::<Dpdk>();
        round_trip::<CompactAlloc<0>>();
        round_trip::<CompactAlloc<2>>();
        round_trip::<CompactAlloc<4>>();
        round_trip::<CompactAlloc<8>>();
        round_trip::<CompactAlloc<16>>();
        round_trip::<CompactAlloc<32>>();
        round_trip::<CompactAlloc<64>>();
        round_trip::<CompactConst<0>>();
        round_trip::<CompactConst<2>>();
        round_trip::<CompactConst<16>>();
        round_trip::<CompactConst<64>>();
        assert_eq!("compact-constant".parse(), Ok(MetaKind::CompactConst));
        assert!("mbuf".parse::<MetaKind>().is_err());
    }
}
