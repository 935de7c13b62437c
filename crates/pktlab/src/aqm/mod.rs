//! Active queue management: the [`Aqm`] trait and one discipline per file.
//!
//! A discipline *owns* the packets it queues, so per-flow schedulers (DRR, FQ-CoDel) fit the
//! same contract as single FIFOs (DropTail, RED): [`Aqm::enqueue`] sees the whole packet
//! (including its flow id) and decides to keep it, drop it, or drop *other* packets;
//! [`Aqm::dequeue`] chooses which packet leaves next and may drop at dequeue time (CoDel).
//! Every dropped packet is handed back through a [`Drops`] sink so the caller can count
//! losses per flow. Disciplines never allocate per packet once their buffers reached their
//! high-water mark.
//!
//! The drop/mark *decisions* of RED, SRED, ZL-RED and CHOKe are also available apart from
//! the queues, for a queue the caller owns: [`decide`] ([`RedDecider`], [`SredDecider`],
//! [`ZlRedDecider`], [`ChokeDecider`]); the queues here are built on them.
//!
//! The disciplines here: [`DropTail`] (tail-drop FIFO), [`Red`] (Floyd & Jacobson 1993,
//! with the gentle variant), [`Sred`] (Ott, Lakshman & Wong 1999), [`ZlRed`] (paper 002), and
//! the comparators [`Choke`] (Pan, Prabhakar & Psounis 2000), [`Drr`] (Shreedhar & Varghese
//! 1995) and [`FqCodel`] (RFC 8290 / RFC 8289). [`Discipline`] is the enum used for static dispatch by
//! simulators; new disciplines add a variant.

pub mod choke;
pub mod decide;
pub mod droptail;
pub mod drr;
mod error;
pub mod fifo;
pub mod fq_codel;
pub mod occurrence;
pub mod red;
pub mod sred;
pub mod zlred;

/// A test packet of flow `.0`, 1,000 bytes (the disciplines' unit tests share it).
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TestPkt(pub u32);

#[cfg(test)]
impl AqmPacket for TestPkt {
    fn flow(&self) -> u32 {
        self.0
    }
    fn bytes(&self) -> u32 {
        1000
    }
}

/// A test packet of flow `.0`, 1,000 bytes, ECN-capable if `.1`; `.2` records a CE mark
/// (the ECN tests share it).
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EcnPkt(pub u32, pub bool, pub bool);

#[cfg(test)]
impl AqmPacket for EcnPkt {
    fn flow(&self) -> u32 {
        self.0
    }
    fn bytes(&self) -> u32 {
        1000
    }
    fn ecn_capable(&self) -> bool {
        self.1
    }
    fn mark_ce(&mut self) {
        self.2 = true;
    }
}

pub use choke::{Choke, ChokeDecider};
pub use decide::{Arrival, Decide, QueueState, QueueView, Verdict};
pub use droptail::DropTail;
pub use drr::Drr;
pub use error::AqmError;
pub use fq_codel::{FqCodel, FqCodelParams};
pub use red::{Red, RedDecider, RedParams};
pub use sred::{FlowKey, Sred, SredDecider, SredParams};
pub use zlred::{ZlRed, ZlRedDecider, ZlRedParams};

/// Time in integer nanoseconds (the same unit as `netsim`).
pub type Nanos = u64;

/// What a discipline needs to know about a packet.
pub trait AqmPacket: Copy {
    /// Flow identifier (e.g. a hash of the 5-tuple, or the simulator's flow index).
    fn flow(&self) -> u32;
    /// Size on the wire in bytes.
    fn bytes(&self) -> u32;
    /// The (source, destination) address pair as one 64-bit id (paper 002's flow id for
    /// SRED/ZL-RED); defaults to [`AqmPacket::flow`] (one host pair per flow).
    #[inline]
    fn src_dst(&self) -> u64 {
        self.flow() as u64
    }
    /// True if the packet is ECN-capable (RFC 3168 ECT, or already CE): a discipline's early
    /// (probabilistic) decision then marks it with [`AqmPacket::mark_ce`] and queues it
    /// instead of dropping it. Forced (buffer-full) drops stay drops. Defaults to false.
    #[inline]
    fn ecn_capable(&self) -> bool {
        false
    }
    /// Sets Congestion Experienced (only called when [`AqmPacket::ecn_capable`]).
    #[inline]
    fn mark_ce(&mut self) {}
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropKind {
    /// The buffer was full (or the discipline's hard limit was reached).
    Forced,
    /// A probabilistic / early drop decided by the discipline (RED, SRED, …).
    Early,
}

/// Sink for dropped packets; the caller drains it after each call. Its buffer is reused, so
/// it does not allocate in steady state.
#[derive(Debug)]
pub struct Drops<P> {
    /// Dropped packets since the last [`Drops::clear`], with the reason.
    pub pkts: Vec<(P, DropKind)>,
}

impl<P> Default for Drops<P> {
    fn default() -> Self {
        Drops {
            pkts: Vec::with_capacity(8),
        }
    }
}

impl<P> Drops<P> {
    /// Records a drop.
    #[inline]
    pub fn push(&mut self, p: P, kind: DropKind) {
        self.pkts.push((p, kind));
    }
    /// Forgets the recorded drops (keeps the buffer).
    #[inline]
    pub fn clear(&mut self) {
        self.pkts.clear();
    }
}

/// Counters every discipline keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AqmStats {
    /// Packets offered to `enqueue`.
    pub arrivals: u64,
    /// Packets dropped because the buffer was full.
    pub forced_drops: u64,
    /// Packets dropped early (probabilistically).
    pub early_drops: u64,
    /// Packets handed out by `dequeue`.
    pub departures: u64,
    /// ECN-capable packets marked CE instead of being dropped early (RFC 3168).
    pub marks: u64,
}

/// The contract of a queueing discipline attached to an output link.
///
/// * `enqueue(pkt, now, drops)`: a packet arrives at time `now`; the discipline either
///   stores it or pushes it to `drops` (it may also push previously queued packets).
/// * `dequeue(now, drops)`: the link is free; return the next packet to transmit (the
///   discipline chooses which, e.g. round robin over flows), or `None` if empty.
/// * `len_pkts` / `len_bytes`: current backlog.
///
/// Implementations must be deterministic given their seed and must not panic on any input.
pub trait Aqm<P: AqmPacket> {
    /// Offers a packet arriving at `now`.
    fn enqueue(&mut self, pkt: P, now: Nanos, drops: &mut Drops<P>);
    /// Takes the next packet to send at `now`, if any.
    fn dequeue(&mut self, now: Nanos, drops: &mut Drops<P>) -> Option<P>;
    /// Backlog in packets.
    fn len_pkts(&self) -> usize;
    /// Backlog in bytes.
    fn len_bytes(&self) -> u64;
    /// Counters since creation.
    fn stats(&self) -> AqmStats;
    /// Short name (`droptail`, `red`, …).
    fn name(&self) -> &'static str;
    /// A discipline-specific congestion estimate for time series (RED: the average queue);
    /// defaults to the instantaneous length in packets.
    fn avg_estimate(&self) -> f64 {
        self.len_pkts() as f64
    }
    /// The discipline's estimate of the number of active flows (SRED/ZL-RED: 1/P(t)), if it
    /// has one.
    fn flow_estimate(&self) -> Option<f64> {
        None
    }
}

/// Which discipline to build, with its parameters (parsed from the CLI's `--aqm` list).
#[derive(Clone, Debug, PartialEq)]
pub enum AqmSpec {
    /// Tail-drop FIFO of `buffer` packets.
    DropTail,
    /// RED with the given parameters (its hard limit is the buffer).
    Red(RedParams),
    /// SRED with the given parameters.
    Sred(SredParams),
    /// ZL-RED with the given parameters.
    ZlRed(ZlRedParams),
    /// CHOKe with RED's thresholds.
    Choke(RedParams),
    /// DRR with this quantum (bytes).
    Drr(u32),
    /// FQ-CoDel.
    FqCodel(FqCodelParams),
}

/// Parameters for every discipline, from which [`AqmSpec::parse_with`] picks.
#[derive(Clone, Debug, PartialEq)]
pub struct AqmParamSet {
    /// RED.
    pub red: RedParams,
    /// SRED.
    pub sred: SredParams,
    /// ZL-RED (its `sred` part is used as is).
    pub zlred: ZlRedParams,
    /// CHOKe's RED thresholds.
    pub choke: RedParams,
    /// DRR quantum, bytes (0 is an error; [`AqmParamSet::default`] uses 1514).
    pub drr_quantum: u32,
    /// FQ-CoDel.
    pub fq_codel: FqCodelParams,
}

impl Default for AqmParamSet {
    fn default() -> Self {
        AqmParamSet {
            red: RedParams::default(),
            sred: SredParams::default(),
            zlred: ZlRedParams::default(),
            choke: RedParams::default(),
            drr_quantum: 1514,
            fq_codel: FqCodelParams::default(),
        }
    }
}

impl AqmSpec {
    /// Parses a discipline name (`droptail`, `red`), with RED taking `red` as default
    /// parameters.
    pub fn parse(name: &str, red: RedParams) -> Result<Self, AqmError> {
        Self::parse_with(
            name,
            &AqmParamSet {
                red,
                ..AqmParamSet::default()
            },
        )
    }

    /// Parses a discipline name, taking its parameters from `ps`.
    pub fn parse_with(name: &str, ps: &AqmParamSet) -> Result<Self, AqmError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "droptail" | "fifo" => Ok(AqmSpec::DropTail),
            "red" => Ok(AqmSpec::Red(ps.red.clone())),
            "sred" => Ok(AqmSpec::Sred(ps.sred.clone())),
            "zlred" | "zl-red" => Ok(AqmSpec::ZlRed(ps.zlred.clone())),
            "choke" => Ok(AqmSpec::Choke(ps.choke.clone())),
            "drr" => Ok(AqmSpec::Drr(ps.drr_quantum)),
            "fq_codel" | "fq-codel" | "fqcodel" => Ok(AqmSpec::FqCodel(ps.fq_codel.clone())),
            other => Err(AqmError::UnknownDiscipline {
                name: other.to_string(),
                known: Self::KNOWN,
            }),
        }
    }

    /// The names [`AqmSpec::parse_with`] accepts.
    pub const KNOWN: &'static str = "droptail, red, sred, zlred, choke, drr, fq_codel";

    /// Short name.
    pub fn name(&self) -> &'static str {
        match self {
            AqmSpec::DropTail => "droptail",
            AqmSpec::Red(_) => "red",
            AqmSpec::Sred(_) => "sred",
            AqmSpec::ZlRed(_) => "zlred",
            AqmSpec::Choke(_) => "choke",
            AqmSpec::Drr(_) => "drr",
            AqmSpec::FqCodel(_) => "fq_codel",
        }
    }

    /// Builds the discipline for a buffer of `buffer` packets on a link whose typical packet
    /// transmission time is `pkt_time` (RED's idle-time correction).
    pub fn build<P: AqmPacket>(
        &self,
        buffer: usize,
        pkt_time: Nanos,
        seed: u64,
    ) -> Result<Discipline<P>, AqmError> {
        Ok(match self {
            AqmSpec::DropTail => Discipline::DropTail(DropTail::new(buffer)?),
            AqmSpec::Red(p) => Discipline::Red(Red::new(p.clone(), buffer, pkt_time, seed)?),
            AqmSpec::Sred(p) => Discipline::Sred(Sred::new(p.clone(), buffer, seed)?),
            AqmSpec::ZlRed(p) => Discipline::ZlRed(ZlRed::new(p.clone(), buffer, seed)?),
            AqmSpec::Choke(p) => Discipline::Choke(Choke::new(p.clone(), buffer, pkt_time, seed)?),
            AqmSpec::Drr(q) => Discipline::Drr(Drr::new(buffer, *q)?),
            AqmSpec::FqCodel(p) => Discipline::FqCodel(FqCodel::new(p.clone(), buffer, seed)?),
        })
    }
}

/// Static dispatch over the disciplines (no virtual call per packet).
#[derive(Debug)]
pub enum Discipline<P> {
    /// See [`DropTail`].
    DropTail(DropTail<P>),
    /// See [`Red`].
    Red(Red<P>),
    /// See [`Sred`].
    Sred(Sred<P>),
    /// See [`ZlRed`].
    ZlRed(ZlRed<P>),
    /// See [`Choke`].
    Choke(Choke<P>),
    /// See [`Drr`].
    Drr(Drr<P>),
    /// See [`FqCodel`].
    FqCodel(FqCodel<P>),
}

macro_rules! dispatch {
    ($s:expr, $q:ident => $e:expr) => {
        match $s {
            Discipline::DropTail($q) => $e,
            Discipline::Red($q) => $e,
            Discipline::Sred($q) => $e,
            Discipline::ZlRed($q) => $e,
            Discipline::Choke($q) => $e,
            Discipline::Drr($q) => $e,
            Discipline::FqCodel($q) => $e,
        }
    };
}

impl<P: AqmPacket> Aqm<P> for Discipline<P> {
    #[inline]
    fn enqueue(&mut self, pkt: P, now: Nanos, drops: &mut Drops<P>) {
        dispatch!(self, q => q.enqueue(pkt, now, drops))
    }
    #[inline]
    fn dequeue(&mut self, now: Nanos, drops: &mut Drops<P>) -> Option<P> {
        dispatch!(self, q => q.dequeue(now, drops))
    }
    #[inline]
    fn len_pkts(&self) -> usize {
        dispatch!(self, q => q.len_pkts())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        dispatch!(self, q => q.len_bytes())
    }
    fn stats(&self) -> AqmStats {
        dispatch!(self, q => q.stats())
    }
    fn name(&self) -> &'static str {
        dispatch!(self, q => q.name())
    }
    fn avg_estimate(&self) -> f64 {
        dispatch!(self, q => q.avg_estimate())
    }
    fn flow_estimate(&self) -> Option<f64> {
        dispatch!(self, q => q.flow_estimate())
    }
}

#[cfg(test)]
mod ecn_tests {
    use super::*;
    use crate::aqm::EcnPkt as Pk;

    /// 25 % overload for a while, then drain; returns (stats, CE-marked departures).
    fn overload(q: &mut Discipline<Pk>, ect: bool) -> (AqmStats, u64) {
        let mut d = Drops::default();
        let mut ce = 0;
        for i in 0..60_000u64 {
            let now = i * 100_000; // 0.1 ms per arrival
            q.enqueue(Pk((i % 200) as u32, ect, false), now, &mut d);
            if i % 5 != 4 {
                if let Some(p) = q.dequeue(now, &mut d) {
                    ce += p.2 as u64;
                }
            }
            d.clear();
        }
        (q.stats(), ce)
    }

    #[test]
    fn ecn_capable_packets_are_marked_instead_of_dropped_early() {
        let ps = AqmParamSet::default();
        for name in [
            "red", "sred", "zlred", "choke", "fq_codel", "droptail", "drr",
        ] {
            let spec = AqmSpec::parse_with(name, &ps).unwrap();
            let (plain, _) = overload(&mut spec.build(1000, 100_000, 7).unwrap(), false);
            let (ecn, ce) = overload(&mut spec.build(1000, 100_000, 7).unwrap(), true);
            assert_eq!(plain.marks, 0, "{name}: no marks without ECT");
            match name {
                "droptail" | "drr" => {
                    assert_eq!(ecn.marks, 0, "{name} never drops early");
                    assert_eq!(ecn.early_drops, plain.early_drops);
                }
                _ => {
                    assert!(plain.early_drops > 0, "{name}: drops early without ECN");
                    assert!(ecn.marks > 0, "{name}: marks with ECN: {ecn:?}");
                    assert!(ce > 0 && ce <= ecn.marks, "{name}: CE leaves the queue");
                    if name != "choke" {
                        // CHOKe still drops matched pairs; the others only mark.
                        assert_eq!(ecn.early_drops, 0, "{name}: {ecn:?}");
                    }
                }
            }
        }
    }
}
