//! The simulation proper: events, agents, access links, and [`run`].

use super::*;
use crate::aqm::{Aqm, Discipline, Drops};
use crate::netsim::engine::{EventQueue, SimRng};
use crate::netsim::link::{Link, Pipe, Tx};
use crate::netsim::sink::{SinkAction, TcpSink};
use crate::netsim::tcp::{AckInfo, TcpKind, TcpSender};
use crate::netsim::udp::CbrSource;
use crate::netsim::NetsimError;
use crate::netsim::{tx_time, Packet, PktKind, Time, MS, SEC};
use crate::util::splitmix64;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Clone, Copy, Debug)]
pub(super) enum Ev {
    Start(u32),
    /// The access link of this flow finished serialising a packet ([`AccessLink`], ns-3 order).
    AccessDone(u32),
    AtRouter(Packet),
    BottleneckDone,
    AtReceiver(Packet),
    AtSender(Packet),
    Rto(u32),
    Pace(u32, Time),
    DelAck(u32, u32),
    UdpTick(u32),
    Sample,
    WarmupEnd,
}

enum Agent {
    Tcp(Box<(TcpSender, TcpSink)>),
    Udp(CbrSource),
}

/// A host's access link towards the router: an unbounded FIFO of bandwidth `bw` and delay
/// `τ`. Arrival times are those of [`Pipe`] in both orders; what differs is *when* the arrival
/// event enters the event queue, which decides the order of two arrivals at the same
/// nanosecond (the queue breaks ties by insertion order):
///
/// * default: at send time, even for a packet waiting behind its host's previous one — its
///   arrival is scheduled before those of packets other hosts send while it waits;
/// * `ns3_order`: when its serialisation starts, like ns-3, whose point-to-point device starts
///   the next queued packet from its transmit-complete event and schedules the packet's
///   reception then (`PointToPointNetDevice::TransmitStart` → `PointToPointChannel::
///   TransmitStart`). One extra event per packet.
pub(super) struct AccessLink {
    pipe: Pipe,
    ns3_order: bool,
    /// ns-3 order: packets waiting for the transmitter.
    waiting: std::collections::VecDeque<Packet>,
    /// ns-3 order: a packet is being serialised.
    busy: bool,
}

impl AccessLink {
    pub(super) fn new(bw_bps: u64, delay: Time, ns3_order: bool) -> Self {
        AccessLink {
            pipe: Pipe::new(bw_bps, delay),
            ns3_order,
            waiting: std::collections::VecDeque::new(),
            busy: false,
        }
    }

    /// The host hands packet `p` to its access link at `now`.
    #[inline]
    pub(super) fn send(&mut self, ev: &mut EventQueue<Ev>, p: Packet, now: Time) {
        if !self.ns3_order {
            let at = self.pipe.send(p.size, now);
            ev.push(at, Ev::AtRouter(p));
        } else if self.busy {
            self.waiting.push_back(p);
        } else {
            self.start(ev, p, now);
        }
    }

    /// ns-3 order: serialisation of `p` starts now; schedule its end and its arrival.
    #[inline]
    fn start(&mut self, ev: &mut EventQueue<Ev>, p: Packet, now: Time) {
        let (start, at) = self.pipe.send_timed(p.size, now);
        debug_assert_eq!(start, now);
        self.busy = true;
        ev.push(at - self.pipe.delay, Ev::AccessDone(p.flow));
        ev.push(at, Ev::AtRouter(p));
    }

    /// ns-3 order: the transmitter is free; start the next waiting packet.
    #[inline]
    pub(super) fn done(&mut self, ev: &mut EventQueue<Ev>, now: Time) {
        self.busy = false;
        if let Some(p) = self.waiting.pop_front() {
            self.start(ev, p, now);
        }
    }
}

struct Flow {
    kind: FlowKind,
    agent: Agent,
    sacks: std::collections::VecDeque<([(u32, u32); 3], u8)>,
    up: AccessLink,
    down: Pipe,
    delivered: u64,
    delivered_at_warmup: u64,
    arrivals: u64,
    drops: u64,
}

/// Runs the dumbbell.
pub fn run(cfg: &DumbbellConfig) -> Result<DumbbellResult, NetsimError> {
    run_until_stopped(cfg, &AtomicBool::new(false))
}

/// Events between two reads of the stop flag of [`run_until_stopped`] (a few ms of simulation).
const STOP_POLL_EVENTS: u64 = 1 << 16;

/// [`run`] that ends early with [`NetsimError::Stopped`] once `stop` is set (read every
/// 65,536 events, a few milliseconds): how a caller interrupts a long simulation (Python's
/// Ctrl-C) without killing the process.
pub fn run_until_stopped(
    cfg: &DumbbellConfig,
    stop: &AtomicBool,
) -> Result<DumbbellResult, NetsimError> {
    cfg.validate()?;
    let n = cfg.tcp_flows() + cfg.udp;
    let mut rng = SimRng::new(cfg.seed);
    let mss = cfg.tcp.mss as u64;
    let data_size = cfg.tcp.mss + cfg.tcp.header;
    let pkt_time = tx_time(data_size, cfg.bottleneck_bw_bps);
    let q: Discipline<Packet> =
        cfg.aqm
            .build(cfg.buffer as usize, pkt_time, splitmix64(cfg.seed ^ 0xA9))?;
    let mut bneck = Link::new(cfg.bottleneck_bw_bps, cfg.bottleneck_delay, q);
    let mut back = Pipe::new(cfg.bottleneck_bw_bps, cfg.bottleneck_delay);
    let mut ev: EventQueue<Ev> = EventQueue::new();
    let mut flows = Vec::with_capacity(n as usize);
    for i in 0..n {
        let kind = cfg.kind_of(i);
        let (agent, delay) = match kind {
            FlowKind::Reno | FlowKind::Vegas | FlowKind::Cubic | FlowKind::Bbr => {
                let k = match kind {
                    FlowKind::Vegas if !cfg.vegas_uses_reno => TcpKind::Vegas,
                    FlowKind::Cubic => TcpKind::Cubic,
                    FlowKind::Bbr => TcpKind::Bbr,
                    _ => TcpKind::Reno,
                };
                let d = if kind == FlowKind::Vegas {
                    cfg.vegas_delay
                } else {
                    cfg.reno_delay
                };
                (
                    Agent::Tcp(Box::new((
                        TcpSender::new(i, k, &cfg.tcp),
                        TcpSink::with_sack(cfg.tcp.rwnd, cfg.tcp.delayed_ack, cfg.tcp.sack),
                    ))),
                    d,
                )
            }
            FlowKind::Udp => (
                Agent::Udp(CbrSource::new(i, data_size, cfg.udp_rate_bps)?),
                cfg.udp_delay,
            ),
        };
        flows.push(Flow {
            kind,
            agent,
            sacks: std::collections::VecDeque::with_capacity(if cfg.tcp.sack { 256 } else { 0 }),
            up: AccessLink::new(cfg.access_bw_bps, delay, cfg.ns3_order),
            down: Pipe::new(cfg.access_bw_bps, delay),
            delivered: 0,
            delivered_at_warmup: 0,
            arrivals: 0,
            drops: 0,
        });
        let start = (rng.next_f64() * cfg.start_spread as f64) as Time;
        ev.push(start, Ev::Start(i));
    }
    ev.push(cfg.warmup, Ev::WarmupEnd);
    let tcp_flows = cfg.tcp_flows() as usize;
    let mut series = cfg.sample_every.map(|_| Series {
        tcp_flows,
        ..Series::default()
    });
    if series.is_some() {
        ev.push(0, Ev::Sample);
    }
    let mut drop_once = cfg.drop_once.clone();

    let mut out: Vec<Packet> = Vec::with_capacity(64);
    let mut drops: Drops<Packet> = Drops::default();
    let mut measuring = false;
    let (mut q_area, mut q_last) = (0u128, 0 as Time);
    let (mut delay_sum, mut delay_n) = (0u128, 0u64);
    let (mut tx_bytes, mut early, mut forced) = (0u64, 0u64, 0u64);
    let marks_at = |q: &Discipline<Packet>| q.stats().marks;
    let mut marks_at_warmup = 0u64;
    let sack = cfg.tcp.sack;
    let ack_size = cfg.tcp.ack_size;
    let (mut est_sum, mut est_n) = (0.0f64, 0u64);

    macro_rules! send_out {
        ($f:expr, $now:expr) => {{
            let f: &mut Flow = $f;
            for p in out.drain(..) {
                f.up.send(&mut ev, p, $now);
            }
        }};
    }
    macro_rules! timer {
        ($f:expr, $i:expr) => {
            if let Agent::Tcp(b) = &mut $f.agent {
                if let Some(t) = b.0.take_timer() {
                    ev.push(t, Ev::Rto($i));
                }
                if let Some(t) = b.0.take_pace_timer() {
                    ev.push(t, Ev::Pace($i, t));
                }
            }
        };
    }
    macro_rules! ack_to {
        ($i:expr, $a:expr, $now:expr) => {{
            let f = &mut flows[$i as usize];
            let mut bits = 0;
            if let Agent::Tcp(b) = &f.agent {
                if b.1.ece() {
                    bits = crate::netsim::ecn::ECE;
                }
                if sack {
                    let bl = b.1.sack_blocks();
                    let mut a = [(0u32, 0u32); 3];
                    a[..bl.len()].copy_from_slice(bl);
                    f.sacks.push_back((a, bl.len() as u8));
                }
            }
            let t1 = back.send(ack_size, $now);
            let t2 = f.down.send(ack_size, t1);
            ev.push(
                t2,
                Ev::AtSender(Packet {
                    flow: $i,
                    seq: $a,
                    size: ack_size,
                    kind: PktKind::Ack,
                    ecn: bits,
                    enq_at: $now,
                }),
            );
        }};
    }
    macro_rules! schedule_tx {
        ($tx:expr, $now:expr) => {{
            let tx: Tx = $tx;
            if measuring {
                delay_sum += ($now - tx.pkt.enq_at) as u128;
                delay_n += 1;
                tx_bytes += tx.pkt.size as u64;
            }
            ev.push(tx.done, Ev::BottleneckDone);
            ev.push(tx.arrive, Ev::AtReceiver(tx.pkt));
        }};
    }

    while let Some((now, e)) = ev.pop_until(cfg.duration) {
        if ev.events().is_multiple_of(STOP_POLL_EVENTS) && stop.load(Ordering::Relaxed) {
            return Err(NetsimError::Stopped);
        }
        match e {
            Ev::AccessDone(i) => flows[i as usize].up.done(&mut ev, now),
            Ev::AtRouter(p) => {
                let f = &mut flows[p.flow as usize];
                if measuring {
                    f.arrivals += 1;
                    q_area += bneck.queue.len_pkts() as u128 * (now - q_last) as u128;
                    q_last = now;
                }
                if !drop_once.is_empty() && p.kind == PktKind::Data {
                    if let Some(k) = drop_once.iter().position(|&x| x == (p.flow, p.seq)) {
                        drop_once.swap_remove(k);
                        if measuring {
                            f.drops += 1;
                            forced += 1;
                        }
                        continue;
                    }
                }
                let tx = bneck.arrive(p, now, &mut drops);
                if measuring {
                    if let Some(e) = bneck.queue.flow_estimate() {
                        est_sum += if e > 0.0 { 1.0 / e } else { 0.0 };
                        est_n += 1;
                    }
                }
                for &(d, kind) in &drops.pkts {
                    if measuring {
                        flows[d.flow as usize].drops += 1;
                        match kind {
                            crate::aqm::DropKind::Early => early += 1,
                            crate::aqm::DropKind::Forced => forced += 1,
                        }
                    }
                }
                drops.clear();
                if let Some(tx) = tx {
                    schedule_tx!(tx, now);
                }
            }
            Ev::BottleneckDone => {
                if measuring {
                    q_area += bneck.queue.len_pkts() as u128 * (now - q_last) as u128;
                    q_last = now;
                }
                let tx = bneck.tx_done(now, &mut drops);
                for &(d, _) in &drops.pkts {
                    if measuring {
                        flows[d.flow as usize].drops += 1;
                        early += 1;
                    }
                }
                drops.clear();
                if let Some(tx) = tx {
                    schedule_tx!(tx, now);
                }
            }
            Ev::AtReceiver(p) => {
                let i = p.flow;
                let f = &mut flows[i as usize];
                match &mut f.agent {
                    Agent::Tcp(b) => {
                        let sink = &mut b.1;
                        let before = sink.rcv_nxt();
                        let act = sink.on_data_ecn(p.seq, p.ecn);
                        f.delivered += (sink.rcv_nxt() - before) as u64 * mss;
                        match act {
                            SinkAction::Ack(a) => ack_to!(i, a, now),
                            SinkAction::StartTimer(g) => {
                                ev.push(now + cfg.tcp.delack_timeout, Ev::DelAck(i, g))
                            }
                            SinkAction::Wait => {}
                        }
                    }
                    Agent::Udp(_) => f.delivered += (p.size - cfg.tcp.header) as u64,
                }
            }
            Ev::AtSender(p) => {
                let f = &mut flows[p.flow as usize];
                if let Agent::Tcp(b) = &mut f.agent {
                    let mut a = AckInfo::cumulative(p.seq);
                    a.ece = p.ecn & crate::netsim::ecn::ECE != 0;
                    if sack {
                        if let Some((bl, n)) = f.sacks.pop_front() {
                            (a.sack, a.nsack) = (bl, n);
                        }
                    }
                    b.0.on_ack_info(&a, now, &mut out);
                }
                timer!(f, p.flow);
                send_out!(f, now);
            }
            Ev::Pace(i, at) => {
                let f = &mut flows[i as usize];
                if let Agent::Tcp(b) = &mut f.agent {
                    b.0.on_pace(at, now, &mut out);
                }
                timer!(f, i);
                send_out!(f, now);
            }
            Ev::Rto(i) => {
                let f = &mut flows[i as usize];
                if let Agent::Tcp(b) = &mut f.agent {
                    b.0.on_timer(now, now, &mut out);
                }
                timer!(f, i);
                send_out!(f, now);
            }
            Ev::DelAck(i, g) => {
                if let Agent::Tcp(b) = &mut flows[i as usize].agent {
                    if let Some(a) = b.1.on_delack_timer(g) {
                        ack_to!(i, a, now);
                    }
                }
            }
            Ev::Start(i) => {
                let f = &mut flows[i as usize];
                match &mut f.agent {
                    Agent::Tcp(b) => b.0.start(now, &mut out),
                    Agent::Udp(_) => ev.push(now, Ev::UdpTick(i)),
                }
                timer!(f, i);
                send_out!(f, now);
            }
            Ev::UdpTick(i) => {
                let f = &mut flows[i as usize];
                if let Agent::Udp(s) = &mut f.agent {
                    let (p, next) = s.next(now);
                    f.up.send(&mut ev, p, now);
                    ev.push(next, Ev::UdpTick(i));
                }
            }
            Ev::Sample => {
                if let (Some(s), Some(dt)) = (series.as_mut(), cfg.sample_every) {
                    s.t.push(now as f64 / SEC as f64);
                    s.queue.push(bneck.queue.len_pkts() as u32);
                    s.avg.push(bneck.queue.avg_estimate());
                    for f in &flows[..tcp_flows] {
                        if let Agent::Tcp(b) = &f.agent {
                            s.cwnd.push(b.0.cwnd() as f32);
                        }
                    }
                    ev.push(now + dt, Ev::Sample);
                }
            }
            Ev::WarmupEnd => {
                measuring = true;
                marks_at_warmup = marks_at(&bneck.queue);
                q_last = now;
                for f in flows.iter_mut() {
                    f.delivered_at_warmup = f.delivered;
                }
            }
        }
    }
    let end = cfg.duration;
    q_area += bneck.queue.len_pkts() as u128 * (end - q_last) as u128;
    let span = (end - cfg.warmup) as f64 / SEC as f64;

    let mut res_flows = Vec::with_capacity(flows.len());
    for (i, f) in flows.iter().enumerate() {
        let (st, cw) = match &f.agent {
            Agent::Tcp(b) => (b.0.stats, b.0.cwnd()),
            Agent::Udp(_) => (Default::default(), 0.0),
        };
        res_flows.push(FlowResult {
            id: i as u32,
            kind: f.kind,
            goodput_mbps: (f.delivered - f.delivered_at_warmup) as f64 * 8.0 / span / 1e6,
            loss_rate: ratio(f.drops, f.arrivals),
            arrivals: f.arrivals,
            drops: f.drops,
            sent: st.sent,
            fast_retransmits: st.fast_retransmits,
            retransmits: st.retransmits,
            ecn_reductions: st.ecn_reductions,
            timeouts: st.timeouts,
            final_cwnd: cw,
        });
    }
    let mean = |k: FlowKind| {
        let v: Vec<f64> = res_flows
            .iter()
            .filter(|f| f.kind == k)
            .map(|f| f.goodput_mbps)
            .collect();
        if v.is_empty() {
            0.0
        } else {
            v.iter().fold(0.0, |a, b| a + b) / v.len() as f64
        }
    };
    let loss = |k: Option<FlowKind>| {
        let (d, a) = res_flows
            .iter()
            .filter(|f| k.is_none_or(|k| f.kind == k))
            .fold((0, 0), |(d, a), f| (d + f.drops, a + f.arrivals));
        ratio(d, a)
    };
    let tcp: Vec<f64> = res_flows
        .iter()
        .filter(|f| f.kind != FlowKind::Udp)
        .map(|f| f.goodput_mbps)
        .collect();
    // fold from +0.0: an empty f64 `sum()` is −0.0, which would print as "-0.0".
    let tcp_sum: f64 = tcp.iter().fold(0.0, |a, b| a + b);
    let sq: f64 = tcp.iter().map(|x| x * x).sum();
    let all_sum: f64 = res_flows
        .iter()
        .map(|f| f.goodput_mbps)
        .fold(0.0, |a, b| a + b);
    let shares = FlowKind::ALL
        .iter()
        .filter_map(|&k| {
            let fs: Vec<&FlowResult> = res_flows.iter().filter(|f| f.kind == k).collect();
            if fs.is_empty() {
                return None;
            }
            let total = fs.iter().map(|f| f.goodput_mbps).fold(0.0, |a, b| a + b);
            Some(KindShare {
                kind: k,
                flows: fs.len() as u32,
                total_mbps: total,
                mean_mbps: total / fs.len() as f64,
                share: if all_sum > 0.0 { total / all_sum } else { 0.0 },
                loss_rate: loss(Some(k)),
            })
        })
        .collect();
    let vegas_sum: f64 = res_flows
        .iter()
        .filter(|f| f.kind == FlowKind::Vegas)
        .map(|f| f.goodput_mbps)
        .fold(0.0, |a, b| a + b);
    Ok(DumbbellResult {
        events: ev.events(),
        reno_mbps: mean(FlowKind::Reno),
        vegas_mbps: mean(FlowKind::Vegas),
        udp_mbps: mean(FlowKind::Udp),
        vegas_share: if tcp_sum > 0.0 {
            vegas_sum / tcp_sum
        } else {
            0.0
        },
        jain: if sq > 0.0 {
            tcp_sum * tcp_sum / (tcp.len() as f64 * sq)
        } else {
            0.0
        },
        utilization: tx_bytes as f64 * 8.0 / (cfg.bottleneck_bw_bps as f64 * span),
        loss_rate: loss(None),
        reno_loss_rate: loss(Some(FlowKind::Reno)),
        vegas_loss_rate: loss(Some(FlowKind::Vegas)),
        mean_queue_pkts: q_area as f64 / (end - cfg.warmup) as f64,
        mean_queue_delay_ms: if delay_n > 0 {
            delay_sum as f64 / delay_n as f64 / MS as f64
        } else {
            0.0
        },
        early_drops: early,
        forced_drops: forced,
        flows: res_flows,
        flow_estimate: (est_n > 0 && est_sum > 0.0).then(|| est_n as f64 / est_sum),
        shares,
        ecn_marks: marks_at(&bneck.queue) - marks_at_warmup,
        series,
    })
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}
