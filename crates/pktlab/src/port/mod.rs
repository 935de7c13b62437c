//! Ports: bursts of packets into and out of the mbuf pool (the NIC side of paper 001's data
//! plane, as DPDK's `rte_eth_rx_burst` / `rte_eth_tx_burst`).
//!
//! One small pair of traits, [`RxPort`] and [`TxPort`], generic over the metadata
//! [`Layout`] (so the per-packet metadata writes are monomorphised), and one file per kind:
//! * [`null`] — `null:LEN`: like DPDK's `net_null`, rx hands out buffers of LEN bytes
//!   without touching packet data, tx frees them;
//! * [`mem`] — `pcap:PATH` and `synthetic`: a capture (pcap/pcapng, read whole into memory
//!   before timing) or the embedded AGH-calibrated flow trace as 60-byte frames, replayed
//!   `repeat` times, copied into the buffers as a NIC's DMA would;
//! * [`capture`] — tx `pcap:PATH`: frames kept in memory during the run and written as a
//!   pcap (the input's link type, ns timestamps) afterwards;
//! * [`afpacket`] — `afpacket:IFACE`: live interfaces through AF_PACKET memory-mapped rings
//!   (rx fills buffers taken from the worker's [`PoolCache`], tx hands them back to it);
//! * [`afxdp`] — `afxdp:IFACE[,queue=N][,copy|zerocopy][,drv]`: live interfaces through an
//!   AF_XDP socket and an XDP program that redirects only transit IP to it (the rest goes on
//!   to the kernel);
//! * [`delay`] — a delay line in front of an afpacket tx port (`forward --delay --rate`):
//!   AQM queue, rate-paced link and propagation delay in real time;
//! * [`vhost_user`] — `vhost-user:PATH[,client]`: pktlab as the vhost-user backend (the
//!   virtual switch between CNFs), over [`virtq`]'s split rings in the frontend's memory;
//! * [`virtio_user`] — `virtio-user:PATH`: pktlab as a vhost-user frontend (a CNF's virtio
//!   NIC), for `gen`/`sink` on either side of a switch; [`virtio_stats`] counts both;
//! * [`rss`] — the Toeplitz RSS hash and redirection table that spread flows over workers.

pub mod afpacket;
pub mod afxdp;
pub mod capture;
pub mod delay;
pub mod mem;
pub mod null;
pub mod rss;
pub mod vhost_user;
pub mod virtio_stats;
pub mod virtio_user;
pub mod virtq;

use crate::mbuf::{Buf, Layout, Pool, PoolCache};
use std::path::PathBuf;

pub use afpacket::{AfPacketRx, AfPacketTx};
pub use capture::CaptureTx;
pub use mem::{MemFrames, MemRx};
pub use null::{NullRx, NullTx};
pub use vhost_user::{VhostUserRx, VhostUserTx};
pub use virtio_user::{VirtioUserRx, VirtioUserTx};

crate::util::message_error!(
    /// The error type of the port module (a port spec that does not parse, an interface that
    /// cannot be opened; the message names the port).
    PortError
);

/// What a port's burst works with: the shared buffer pool, the calling worker's pool cache
/// and its metadata layout — passed together so that every port takes one argument for them.
pub struct Bufs<'a, L: Layout> {
    /// The shared pool.
    pub pool: &'a Pool,
    /// The worker's cache of free buffers.
    pub cache: &'a mut PoolCache,
    /// The worker's metadata layout (per-batch or per-buffer metadata).
    pub layout: &'a mut L,
}

impl<'a, L: Layout> Bufs<'a, L> {
    /// Bundles a pool, a cache and a layout.
    pub fn new(pool: &'a Pool, cache: &'a mut PoolCache, layout: &'a mut L) -> Self {
        Bufs {
            pool,
            cache,
            layout,
        }
    }

    /// The three parts, borrowed apart (for a port body that uses them side by side).
    #[inline(always)]
    pub fn parts(&mut self) -> (&'a Pool, &mut PoolCache, &mut L) {
        (self.pool, &mut *self.cache, &mut *self.layout)
    }

    /// Releases every buffer of `bufs` through the layout and returns them to the cache
    /// (what every transmit port does once its frames are out); `bufs` is left empty.
    #[inline(always)]
    pub fn free_all(&mut self, bufs: &mut Vec<Buf>) {
        free_all(self.pool, self.cache, self.layout, bufs)
    }
}

/// A burst of buffers: what a port receives into or transmits from.
pub type Burst = Vec<Buf>;

/// A receive queue.
pub trait RxPort: Send {
    /// Receives up to `max` packets: takes buffers from `cache`, fills their data and calls
    /// `layout.rx_init` for batch positions `out.len()..`, appends them to `out` and returns
    /// how many. 0 means the input is exhausted (or the pool is empty), or for a live port
    /// that nothing arrived for a while (see [`RxPort::exhausted`]).
    fn rx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, out: &mut Burst, max: usize) -> usize;

    /// After a burst of 0: true if no packet will ever come (replayed input at its end, a
    /// live port told to stop), false if the port was only idle.
    fn exhausted(&self) -> bool {
        true
    }

    /// Whether the pipeline reads each packet's flow hash (`RxMeta::rss`; the data plane's
    /// flow cache is keyed by it). A port that computes the hash in software per packet
    /// (vhost-user, virtio-user, AF_XDP: their "NICs" give none) skips it when it is not
    /// wanted and writes 0; a port whose hash costs nothing per packet (a replayed trace's
    /// is computed at load, AF_PACKET's comes from the kernel) ignores the call. Ports start
    /// with the hash on. Default: ignored.
    fn want_flow_hash(&mut self, _wanted: bool) {}
}

/// A transmit queue.
pub trait TxPort: Send {
    /// Transmits every buffer of `bufs` (`lens[i]` bytes at time `ts[i]`), then returns them
    /// through `layout.release` to `cache`; `bufs` is left empty.
    fn tx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, bufs: &mut Burst, lens: &[u16], ts: &[u64]);
    /// Packets transmitted so far.
    fn packets(&self) -> u64;

    /// Lets a port that holds packets (a delay line) send what is due; the worker calls it
    /// when its receive side is idle. Default: nothing held, nothing to do.
    #[inline]
    fn poll<L: Layout>(&mut self, _c: &mut Bufs<L>) {}

    /// Sends whatever the port still holds (end of the run). Default: nothing held.
    fn finish<L: Layout>(&mut self, _c: &mut Bufs<L>) {}

    /// True if the port wants each packet's receive timestamp in `tx_burst`'s `ts` (a
    /// capture writes them); others get unspecified values there.
    fn wants_timestamps(&self) -> bool {
        false
    }
}

/// A receive port as the CLI names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RxSpec {
    /// `null:LEN`.
    Null(u16),
    /// `synthetic`: the AGH-calibrated flow trace.
    Synthetic,
    /// `pcap:PATH` (pcap or pcapng, gzip/bzip2 transparent).
    Pcap(PathBuf),
    /// `afpacket:IFACE`: a live interface.
    AfPacket(String),
    /// `vhost-user:PATH[,client]`: the switch side of a vhost-user socket.
    VhostUser(VhostSpec),
    /// `virtio-user:PATH`: a CNF's virtio NIC on a vhost-user socket.
    VirtioUser(PathBuf),
}

/// The socket of a `vhost-user:PATH[,client]` port: created and listened on, or with
/// `,client` connected to (the frontend listens).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VhostSpec {
    /// Socket path.
    pub path: PathBuf,
    /// Connect instead of listening.
    pub client: bool,
}

/// A transmit port as the CLI names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TxSpec {
    /// `null`: discard (free) every packet.
    Null,
    /// `pcap:PATH`: write what was sent to a pcap file after the run.
    Pcap(PathBuf),
    /// `afpacket:IFACE`: a live interface.
    AfPacket(String),
    /// `vhost-user:PATH[,client]`: the switch side of a vhost-user socket.
    VhostUser(VhostSpec),
    /// `virtio-user:PATH`: a CNF's virtio NIC on a vhost-user socket.
    VirtioUser(PathBuf),
}

/// The virtio ports of a spec string: `vhost-user:PATH[,client]` or `virtio-user:PATH`
/// (an error for an empty path).
fn virtio_spec(s: &str) -> Option<Result<Result<VhostSpec, PathBuf>, PortError>> {
    let empty = |k: &str| Err(format!("port {s:?}: {k} needs a socket path").into());
    if let Some(p) = s.strip_prefix("vhost-user:") {
        let (p, client) = match p.strip_suffix(",client") {
            Some(p) => (p, true),
            None => (p, false),
        };
        return Some(if p.is_empty() {
            empty("vhost-user:PATH")
        } else {
            Ok(Ok(VhostSpec {
                path: PathBuf::from(p),
                client,
            }))
        });
    }
    let p = s.strip_prefix("virtio-user:")?;
    Some(if p.is_empty() {
        empty("virtio-user:PATH")
    } else {
        Ok(Err(PathBuf::from(p)))
    })
}

impl std::fmt::Display for VhostSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = if self.client { ",client" } else { "" };
        write!(f, "vhost-user:{}{c}", self.path.display())
    }
}

/// The interface name of `afpacket:IFACE` (an error for an empty name).
fn afpacket_name(s: &str) -> Option<Result<String, PortError>> {
    let i = s.strip_prefix("afpacket:")?;
    Some(if i.is_empty() {
        Err(format!("port {s:?}: afpacket:IFACE needs an interface name").into())
    } else {
        Ok(i.to_string())
    })
}

impl std::str::FromStr for RxSpec {
    type Err = PortError;
    fn from_str(s: &str) -> Result<Self, PortError> {
        if s == "synthetic" {
            return Ok(RxSpec::Synthetic);
        }
        if let Some(l) = s.strip_prefix("null:") {
            return match l.parse::<u16>() {
                Ok(n) if (14..=crate::mbuf::DATA_ROOM as u16).contains(&n) => Ok(RxSpec::Null(n)),
                _ => Err(format!(
                    "rx port {s:?}: null:LEN needs 14 <= LEN <= {}",
                    crate::mbuf::DATA_ROOM
                )
                .into()),
            };
        }
        if let Some(p) = s.strip_prefix("pcap:") {
            return Ok(RxSpec::Pcap(PathBuf::from(p)));
        }
        if let Some(i) = afpacket_name(s) {
            return i.map(RxSpec::AfPacket);
        }
        if let Some(v) = virtio_spec(s) {
            return v.map(|v| v.map_or_else(RxSpec::VirtioUser, RxSpec::VhostUser));
        }
        Err(format!(
            "unknown rx port {s:?} (known: pcap:PATH, synthetic, null:LEN, afpacket:IFACE, vhost-user:PATH[,client], virtio-user:PATH)"
        )
        .into())
    }
}

impl std::str::FromStr for TxSpec {
    type Err = PortError;
    fn from_str(s: &str) -> Result<Self, PortError> {
        if s == "null" || s.starts_with("null:") {
            return Ok(TxSpec::Null);
        }
        if let Some(p) = s.strip_prefix("pcap:") {
            return Ok(TxSpec::Pcap(PathBuf::from(p)));
        }
        if let Some(i) = afpacket_name(s) {
            return i.map(TxSpec::AfPacket);
        }
        if let Some(v) = virtio_spec(s) {
            return v.map(|v| v.map_or_else(TxSpec::VirtioUser, TxSpec::VhostUser));
        }
        Err(format!(
            "unknown tx port {s:?} (known: null, pcap:PATH, afpacket:IFACE, vhost-user:PATH[,client], virtio-user:PATH)"
        )
        .into())
    }
}

impl std::fmt::Display for RxSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RxSpec::Null(n) => write!(f, "null:{n}"),
            RxSpec::Synthetic => f.write_str("synthetic"),
            RxSpec::Pcap(p) => write!(f, "pcap:{}", p.display()),
            RxSpec::AfPacket(i) => write!(f, "afpacket:{i}"),
            RxSpec::VhostUser(v) => v.fmt(f),
            RxSpec::VirtioUser(p) => write!(f, "virtio-user:{}", p.display()),
        }
    }
}

impl std::fmt::Display for TxSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TxSpec::Null => f.write_str("null"),
            TxSpec::Pcap(p) => write!(f, "pcap:{}", p.display()),
            TxSpec::AfPacket(i) => write!(f, "afpacket:{i}"),
            TxSpec::VhostUser(v) => v.fmt(f),
            TxSpec::VirtioUser(p) => write!(f, "virtio-user:{}", p.display()),
        }
    }
}

/// Any receive queue (static dispatch: one `match` per burst).
pub enum AnyRx {
    /// See [`NullRx`].
    Null(NullRx),
    /// See [`MemRx`].
    Mem(MemRx),
    /// See [`AfPacketRx`].
    AfPacket(AfPacketRx),
    /// See [`VhostUserRx`].
    VhostUser(VhostUserRx),
    /// See [`VirtioUserRx`].
    VirtioUser(VirtioUserRx),
}

impl RxPort for AnyRx {
    #[inline]
    fn rx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, out: &mut Burst, max: usize) -> usize {
        match self {
            AnyRx::Null(p) => p.rx_burst(c, out, max),
            AnyRx::Mem(p) => p.rx_burst(c, out, max),
            AnyRx::AfPacket(p) => p.rx_burst(c, out, max),
            AnyRx::VhostUser(p) => p.rx_burst(c, out, max),
            AnyRx::VirtioUser(p) => p.rx_burst(c, out, max),
        }
    }

    fn exhausted(&self) -> bool {
        match self {
            AnyRx::AfPacket(p) => p.exhausted(),
            AnyRx::VhostUser(p) => p.exhausted(),
            AnyRx::VirtioUser(p) => p.exhausted(),
            _ => true,
        }
    }

    fn want_flow_hash(&mut self, wanted: bool) {
        match self {
            AnyRx::VhostUser(p) => p.want_flow_hash(wanted),
            AnyRx::VirtioUser(p) => p.want_flow_hash(wanted),
            AnyRx::Null(_) | AnyRx::Mem(_) | AnyRx::AfPacket(_) => {}
        }
    }
}

/// Any transmit queue (static dispatch: one `match` per burst).
pub enum AnyTx {
    /// See [`NullTx`].
    Null(NullTx),
    /// See [`CaptureTx`].
    Capture(CaptureTx),
    /// See [`AfPacketTx`].
    AfPacket(AfPacketTx),
    /// See [`delay::DelayTx`].
    Delay(Box<delay::DelayTx>),
    /// See [`VhostUserTx`].
    VhostUser(VhostUserTx),
    /// See [`VirtioUserTx`].
    VirtioUser(VirtioUserTx),
}

impl TxPort for AnyTx {
    #[inline]
    fn tx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, bufs: &mut Burst, lens: &[u16], ts: &[u64]) {
        match self {
            AnyTx::Null(p) => p.tx_burst(c, bufs, lens, ts),
            AnyTx::Capture(p) => p.tx_burst(c, bufs, lens, ts),
            AnyTx::AfPacket(p) => p.tx_burst(c, bufs, lens, ts),
            AnyTx::Delay(p) => p.tx_burst(c, bufs, lens, ts),
            AnyTx::VhostUser(p) => p.tx_burst(c, bufs, lens, ts),
            AnyTx::VirtioUser(p) => p.tx_burst(c, bufs, lens, ts),
        }
    }
    fn packets(&self) -> u64 {
        match self {
            AnyTx::Null(p) => p.packets(),
            AnyTx::Capture(p) => p.packets(),
            AnyTx::AfPacket(p) => p.packets(),
            AnyTx::Delay(p) => p.packets(),
            AnyTx::VhostUser(p) => p.packets(),
            AnyTx::VirtioUser(p) => p.packets(),
        }
    }
    #[inline]
    fn poll<L: Layout>(&mut self, c: &mut Bufs<L>) {
        if let AnyTx::Delay(p) = self {
            p.poll(c);
        }
    }
    fn finish<L: Layout>(&mut self, c: &mut Bufs<L>) {
        if let AnyTx::Delay(p) = self {
            p.finish(c);
        }
    }
    fn wants_timestamps(&self) -> bool {
        matches!(self, AnyTx::Capture(_))
    }
}

/// Releases every buffer of `bufs` through the layout and returns them to `cache`.
#[inline(always)]
pub(crate) fn free_all<L: Layout>(
    pool: &Pool,
    cache: &mut PoolCache,
    layout: &mut L,
    bufs: &mut Vec<Buf>,
) {
    for b in bufs.iter_mut() {
        layout.release(pool, b);
    }
    cache.put_bulk(pool, bufs);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        assert_eq!("null:64".parse(), Ok(RxSpec::Null(64)));
        assert!("null:0".parse::<RxSpec>().is_err());
        assert!("null:9000".parse::<RxSpec>().is_err());
        assert_eq!("synthetic".parse(), Ok(RxSpec::Synthetic));
        assert_eq!(
            "pcap:/x/y.pcap".parse(),
            Ok(RxSpec::Pcap(PathBuf::from("/x/y.pcap")))
        );
        assert!("eth0"
            .parse::<RxSpec>()
            .unwrap_err()
            .to_string()
            .contains("unknown rx port"));
        assert_eq!("null".parse(), Ok(TxSpec::Null));
        assert_eq!("pcap:o.pcap".parse(), Ok(TxSpec::Pcap("o.pcap".into())));
        assert_eq!(
            "afpacket:veth0".parse(),
            Ok(RxSpec::AfPacket("veth0".into()))
        );
        assert_eq!(
            "afpacket:veth1".parse(),
            Ok(TxSpec::AfPacket("veth1".into()))
        );
        assert!("afpacket:"
            .parse::<TxSpec>()
            .unwrap_err()
            .to_string()
            .contains("interface name"));
        let v = |p: &str, client| VhostSpec {
            path: p.into(),
            client,
        };
        assert_eq!(
            "vhost-user:/s/a.sock".parse(),
            Ok(RxSpec::VhostUser(v("/s/a.sock", false)))
        );
        assert_eq!(
            "vhost-user:/s/b.sock,client".parse(),
            Ok(TxSpec::VhostUser(v("/s/b.sock", true)))
        );
        assert_eq!(
            "virtio-user:/s/a.sock".parse(),
            Ok(TxSpec::VirtioUser("/s/a.sock".into()))
        );
        assert!("vhost-user:"
            .parse::<RxSpec>()
            .unwrap_err()
            .to_string()
            .contains("socket path"));
        assert!("virtio-user:"
            .parse::<TxSpec>()
            .unwrap_err()
            .to_string()
            .contains("socket path"));
        for s in ["vhost-user:/s/b.sock,client", "virtio-user:/x"] {
            assert_eq!(s.parse::<RxSpec>().unwrap().to_string(), s);
        }
    }
}
