#!/usr/bin/env python3
"""ns-3 reference for `pktlab aqm sim` (paper 002, fig. 4 dumbbell).

Bulk senders, each on its own access link (bw, delay) to one router; bottleneck router ->
receiver (BW, delay) with a FIFO (DropTail, B packets), RED or FQ-CoDel queue disc.
Senders by count: --reno (ns-3 TcpNewReno) and --vegas (TcpVegas) for the paper-002 mode,
--newreno (TcpNewReno, the same class; reported as "reno" like pktlab's --reno), --cubic
(TcpCubic, HyStart on) and --bbr (TcpBbr, v1, paced) for the modern-TCP mode.
TCP options are set to match pktlab's: MSS 1000 B, no timestamps, no delayed ACK, initial
cwnd 2, min RTO 1 s, Vegas alpha 1 / beta 3 / gamma 1, classic (not PRR) recovery, 4 MB
buffers; SACK off unless `--sack` (the modern mode turns it on by default).
Prints one JSON object (same summary fields as `pktlab aqm sim --json`, plus `shares`:
per algorithm flows, total and mean Mb/s, share of the goodput).
See tools/README.md.
"""
import argparse
import json
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--aqm", default="droptail", choices=["droptail", "red", "fq_codel"])
p.add_argument("--reno", type=int, default=None, help="TcpNewReno senders (default 10 in paper mode)")
p.add_argument("--vegas", type=int, default=None, help="TcpVegas senders (default 10 in paper mode)")
p.add_argument("--newreno", type=int, default=0, help="TcpNewReno senders (modern mode: SACK on)")
p.add_argument("--cubic", type=int, default=0, help="TcpCubic senders (modern mode: SACK on)")
p.add_argument("--bbr", type=int, default=0, help="TcpBbr senders (modern mode: SACK on)")
p.add_argument("--buffer", type=int, default=1000)
p.add_argument("--duration", type=float, default=60.0)
p.add_argument("--warmup", type=float, default=10.0)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--bw", default="45Mbps")
p.add_argument("--delay", default="20ms")
p.add_argument("--red-min", type=float, default=5)
p.add_argument("--red-max", type=float, default=15)
p.add_argument("--red-maxp", type=float, default=0.1)
p.add_argument("--red-wq", type=float, default=0.002)
p.add_argument("--sample", type=float, default=0.05, help="queue sampling step, s")
p.add_argument("--sack", action="store_true", help="enable SACK (on anyway in the modern mode)")
p.add_argument("--no-sack", action="store_true", help="disable SACK in the modern mode")
p.add_argument("--no-limited-transmit", action="store_true",
               help="turn off RFC 3042 limited transmit (ns-3 default on; pktlab has none)")
p.add_argument("--fq-quantum", type=int, default=1514, help="FQ-CoDel quantum, bytes")
p.add_argument("--fq-flows", type=int, default=1024, help="FQ-CoDel buckets")
p.add_argument("--fq-target", default="5ms")
p.add_argument("--fq-interval", default="100ms")
a = p.parse_args()
modern = a.newreno + a.cubic + a.bbr > 0
if a.reno is None:
    a.reno = 0 if modern else 10
if a.vegas is None:
    a.vegas = 0 if modern else 10
sack = (a.sack or modern) and not a.no_sack
# Sender kinds in index order; "reno" covers --reno and --newreno (both ns-3 TcpNewReno).
kinds = (["reno"] * (a.reno + a.newreno) + ["vegas"] * a.vegas + ["cubic"] * a.cubic
         + ["bbr"] * a.bbr)
if not kinds:
    sys.exit("ns3_dumbbell.py: no senders (give --reno/--vegas/--newreno/--cubic/--bbr)")
ns3_class = {"reno": "ns3::TcpNewReno", "vegas": "ns3::TcpVegas", "cubic": "ns3::TcpCubic",
             "bbr": "ns3::TcpBbr"}

try:
    from ns import ns  # noqa: E402  (slow import: cppyy compiles headers)
except ImportError as e:
    sys.exit(f"ns3_dumbbell.py: no ns-3 Python bindings ({e}); run it with $NS3_PYTHON, the python "
             "of a venv holding `pip install ns3==3.44.post0` (tools/README.md)")

t0 = time.time()
ns.RngSeedManager.SetSeed(a.seed)
ns.RngSeedManager.SetRun(1)
sd = ns.Config.SetDefault
sd("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1000))
sd("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
sd("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
sd("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 22))
sd("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 22))
sd("ns3::TcpSocketBase::Sack", ns.BooleanValue(sack))
sd("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
sd("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(not a.no_limited_transmit))
sd("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(1.0)))
# ns-3's TcpVegas defaults to Linux's alpha 2, beta 4; paper 002 / Brakmo-Peterson use 1, 3.
sd("ns3::TcpVegas::Alpha", ns.UintegerValue(1))
sd("ns3::TcpVegas::Beta", ns.UintegerValue(3))
sd("ns3::TcpVegas::Gamma", ns.UintegerValue(1))
sd("ns3::TcpL4Protocol::RecoveryType",
   ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")))

n = len(kinds)
senders = ns.NodeContainer()
senders.Create(n)
router = ns.NodeContainer()
router.Create(1)
recv = ns.NodeContainer()
recv.Create(1)
stack = ns.InternetStackHelper()
stack.Install(senders)
stack.Install(router)
stack.Install(recv)
for i in range(n):
    kind = ns3_class[kinds[i]]
    ns.Config.Set("/NodeList/%d/$ns3::TcpL4Protocol/SocketType" % senders.Get(i).GetId(),
                  ns.TypeIdValue(ns.TypeId.LookupByName(kind)))

p2p = ns.PointToPointHelper()
p2p.SetDeviceAttribute("DataRate", ns.StringValue(a.bw))
p2p.SetChannelAttribute("Delay", ns.StringValue(a.delay))
# Access links: large device queue so that losses happen only at the bottleneck.
p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.QueueSizeValue(ns.QueueSize("10000p")))
addr = ns.Ipv4AddressHelper()
sink_addr = None
for i in range(n):
    d = p2p.Install(senders.Get(i), router.Get(0))
    addr.SetBase(ns.Ipv4Address("10.%d.%d.0" % (1 + i // 250, i % 250)), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(d)
# Bottleneck: 1-packet device queue, the discipline lives in the queue disc.
p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.QueueSizeValue(ns.QueueSize("1p")))
bd = p2p.Install(router.Get(0), recv.Get(0))
tch = ns.TrafficControlHelper()
if a.aqm == "droptail":
    tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize("%dp" % a.buffer)))
elif a.aqm == "fq_codel":
    # pktlab's FQ-CoDel: shared limit B, 1024 buckets, quantum 1514, one packet dropped per
    # overflow (ns-3's and Linux's default batch is 64), CoDel "above target" needs > 1 MTU.
    sd("ns3::CoDelQueueDisc::MinBytes", ns.UintegerValue(1514))
    tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                         "MaxSize", ns.QueueSizeValue(ns.QueueSize("%dp" % a.buffer)),
                         "Flows", ns.UintegerValue(a.fq_flows),
                         "DropBatchSize", ns.UintegerValue(1),
                         "Interval", ns.StringValue(a.fq_interval),
                         "Target", ns.StringValue(a.fq_target),
                         "UseEcn", ns.BooleanValue(False))
else:
    tch.SetRootQueueDisc("ns3::RedQueueDisc",
                         "MaxSize", ns.QueueSizeValue(ns.QueueSize("%dp" % a.buffer)),
                         "MinTh", ns.DoubleValue(a.red_min), "MaxTh", ns.DoubleValue(a.red_max),
                         "LInterm", ns.DoubleValue(1.0 / a.red_maxp), "QW", ns.DoubleValue(a.red_wq),
                         "Gentle", ns.BooleanValue(True), "Wait", ns.BooleanValue(False),
                         "MeanPktSize", ns.UintegerValue(1040),
                         # The link RED sits on: its packet rate sets the idle-time decay of the
                         # average (ns-3's default is 1.5 Mb/s, i.e. 30x too slow here). Until
                         # 25 Nov 2026 this was not set; see docs/results/netsim.md.
                         "LinkBandwidth", ns.StringValue(a.bw), "LinkDelay", ns.StringValue(a.delay))
# Installed before address assignment, so Ipv4AddressHelper adds no default pfifo_fast.
qdc = tch.Install(bd.Get(0))
qd = qdc.Get(0)
if a.aqm == "fq_codel":
    # Not an attribute in ns-3 (default: the device MTU, 1500 on PPP): set before Initialize.
    qd.GetObject[ns.FqCoDelQueueDisc]().SetQuantum(a.fq_quantum)
addr.SetBase(ns.Ipv4Address("192.168.0.0"), ns.Ipv4Mask("255.255.255.0"))
bif = addr.Assign(bd)
sink_addr = bif.GetAddress(1)
ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

rng = ns.CreateObject[ns.UniformRandomVariable]()
sinks = []
for i in range(n):
    port = 5000 + i
    sh = ns.PacketSinkHelper("ns3::TcpSocketFactory",
                             ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sa = sh.Install(recv.Get(0))
    sa.Start(ns.Seconds(0.0))
    sinks.append(sa.Get(0).GetObject[ns.PacketSink]())
    bh = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(sink_addr, port).ConvertTo())
    bh.SetAttribute("MaxBytes", ns.UintegerValue(0))
    bh.SetAttribute("SendSize", ns.UintegerValue(1000))
    ba = bh.Install(senders.Get(i))
    ba.Start(ns.Seconds(rng.GetValue(0.0, 1.0)))

events_note = "ns-3 does not expose an event count cheaply"
ns.Simulator.Stop(ns.Seconds(a.warmup))
ns.Simulator.Run()
rx0 = [s.GetTotalRx() for s in sinks]
st0 = qd.GetStats()
drop0 = st0.nTotalDroppedPackets
recv0 = st0.nTotalReceivedPackets
qsum, qn = 0.0, 0
t = a.warmup
while t < a.duration - 1e-9:
    t = min(t + a.sample, a.duration)
    ns.Simulator.Stop(ns.Seconds(t) - ns.Simulator.Now())
    ns.Simulator.Run()
    qsum += qd.GetNPackets()
    qn += 1
rx1 = [s.GetTotalRx() for s in sinks]
st1 = qd.GetStats()
drops = st1.nTotalDroppedPackets - drop0
arrivals = st1.nTotalReceivedPackets - recv0
ns.Simulator.Destroy()
span = a.duration - a.warmup
good = [(r1 - r0) * 8 / span / 1e6 for r0, r1 in zip(rx0, rx1)]
tot = sum(good)


def mean_of(kind):
    g = [x for x, k in zip(good, kinds) if k == kind]
    return sum(g) / len(g) if g else 0.0


shares = []
for kind in ("reno", "vegas", "cubic", "bbr"):
    g = [x for x, k in zip(good, kinds) if k == kind]
    if g:
        shares.append({"kind": kind, "flows": len(g), "total_mbps": sum(g),
                       "mean_mbps": sum(g) / len(g), "share": sum(g) / tot if tot > 0 else 0.0})
jain = tot * tot / (len(good) * sum(g * g for g in good)) if tot > 0 else 0.0
bw = float(a.bw.replace("Mbps", "")) * 1e6
print(json.dumps({
    "tool": "ns-3 3.44 (PyPI ns3==3.44.post0)",
    "config": dict(vars(a), sack=sack),
    "wall_s": round(time.time() - t0, 3),
    "flows": [{"id": i, "kind": k, "goodput_mbps": g} for i, (g, k) in enumerate(zip(good, kinds))],
    "shares": shares,
    "summary": {
        "reno_mbps": mean_of("reno"),
        "vegas_mbps": mean_of("vegas"),
        "vegas_share": sum(g for g, k in zip(good, kinds) if k == "vegas") / tot if tot > 0 else 0.0,
        "jain": jain,
        # goodput-based (payload) utilisation of the bottleneck; wire utilisation is x1.042
        "goodput_utilization": tot * 1e6 / bw,
        "loss_rate": drops / arrivals if arrivals else 0.0,
        "mean_queue_pkts": qsum / qn if qn else 0.0,
    },
}))
