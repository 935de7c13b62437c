#!/usr/bin/env python3
"""ns-3 reference for `pktlab aqm sim` (paper 002, fig. 4 dumbbell).

Nr Reno (ns-3 TcpNewReno) + Nv TcpVegas bulk senders, each on its own access link
(bw, delay) to one router; bottleneck router -> receiver (BW, delay) with a FIFO
(DropTail, B packets) or RED queue disc. TCP options are set to match pktlab's
`--newreno` configuration: MSS 1000 B, no SACK, no timestamps, no delayed ACK,
initial cwnd 2, min RTO 1 s, Vegas alpha 1 / beta 3 / gamma 1, classic (not PRR) recovery, 4 MB buffers
(`--sack` turns SACK on, for the diagnosis in docs/results/netsim.md).
Prints one JSON object (same summary fields as `pktlab aqm sim --json`).
See tools/README.md.
"""
import argparse
import json
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--aqm", default="droptail", choices=["droptail", "red"])
p.add_argument("--reno", type=int, default=10)
p.add_argument("--vegas", type=int, default=10)
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
p.add_argument("--sack", action="store_true", help="enable SACK (pktlab has none)")
a = p.parse_args()

from ns import ns  # noqa: E402  (slow import: cppyy compiles headers)

t0 = time.time()
ns.RngSeedManager.SetSeed(a.seed)
ns.RngSeedManager.SetRun(1)
sd = ns.Config.SetDefault
sd("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1000))
sd("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
sd("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
sd("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 22))
sd("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 22))
sd("ns3::TcpSocketBase::Sack", ns.BooleanValue(a.sack))
sd("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
sd("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(1.0)))
# ns-3's TcpVegas defaults to Linux's alpha 2, beta 4; paper 002 / Brakmo-Peterson use 1, 3.
sd("ns3::TcpVegas::Alpha", ns.UintegerValue(1))
sd("ns3::TcpVegas::Beta", ns.UintegerValue(3))
sd("ns3::TcpVegas::Gamma", ns.UintegerValue(1))
sd("ns3::TcpL4Protocol::RecoveryType",
   ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")))

n = a.reno + a.vegas
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
    kind = "ns3::TcpNewReno" if i < a.reno else "ns3::TcpVegas"
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
else:
    tch.SetRootQueueDisc("ns3::RedQueueDisc",
                         "MaxSize", ns.QueueSizeValue(ns.QueueSize("%dp" % a.buffer)),
                         "MinTh", ns.DoubleValue(a.red_min), "MaxTh", ns.DoubleValue(a.red_max),
                         "LInterm", ns.DoubleValue(1.0 / a.red_maxp), "QW", ns.DoubleValue(a.red_wq),
                         "Gentle", ns.BooleanValue(True), "Wait", ns.BooleanValue(False),
                         "MeanPktSize", ns.UintegerValue(1040))
# Installed before address assignment, so Ipv4AddressHelper adds no default pfifo_fast.
qdc = tch.Install(bd.Get(0))
qd = qdc.Get(0)
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
reno = good[: a.reno]
veg = good[a.reno:]
tot = sum(good)
jain = tot * tot / (len(good) * sum(g * g for g in good)) if tot > 0 else 0.0
bw = float(a.bw.replace("Mbps", "")) * 1e6
print(json.dumps({
    "tool": "ns-3 3.44 (PyPI ns3==3.44.post0)",
    "config": vars(a),
    "wall_s": round(time.time() - t0, 3),
    "flows": [{"id": i, "kind": "reno" if i < a.reno else "vegas", "goodput_mbps": g}
              for i, g in enumerate(good)],
    "summary": {
        "reno_mbps": sum(reno) / len(reno) if reno else 0.0,
        "vegas_mbps": sum(veg) / len(veg) if veg else 0.0,
        "vegas_share": sum(veg) / tot if tot > 0 else 0.0,
        "jain": jain,
        # goodput-based (payload) utilisation of the bottleneck; wire utilisation is x1.042
        "goodput_utilization": tot * 1e6 / bw,
        "loss_rate": drops / arrivals if arrivals else 0.0,
        "mean_queue_pkts": qsum / qn if qn else 0.0,
    },
}))
