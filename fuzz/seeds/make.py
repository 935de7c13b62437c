#!/usr/bin/env python3
"""Writes the small hand-made fuzz seeds (committed) into fuzz/seeds/<target>/.

Run from anywhere: python3 fuzz/seeds/make.py. The larger seeds from ../shared/data are
copied at run time by fuzz/seed-corpus.sh and never committed.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4_udp(src, dst, sport, dport, ttl=64, payload=b"hi"):
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, ttl, 17, 0, bytes(src), bytes(dst))
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + udp


def ipv6_tcp(src, dst, sport, dport, hl=64):
    tcp = struct.pack("!HHIIBBHHH", sport, dport, 0, 0, 0x50, 0x10, 0xFFFF, 0, 0)
    return struct.pack("!IHBB16s16s", 0x60000000, len(tcp), 6, hl, bytes(src), bytes(dst)) + tcp


ETH = b"\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02"
V4 = ipv4_udp([10, 0, 0, 1], [192, 168, 1, 1], 1000, 53)
V6 = ipv6_tcp([0x20, 1, 0xD, 0xB8] + [0] * 11 + [1], [0x20, 1, 0xD, 0xB8] + [0] * 11 + [2], 443, 5000)

# Line formats.
put("routes_text", "small.txt", "10.0.0.0/8 1\n192.168.0.0/16\t2 # c\n2001:db8::/32 3\n10.0.0.0/8 4\n")
put("routes_pyasn", "small.dat", "; comment\n1.0.0.0/24\t13335\n2001:db8::/32\tAS64512\n")
put("updates", "small.txt", "A 10.0.0.0/8 5\nW 10.0.0.0/8\nA 2001:db8::/32 1\nW 2001:db8::/32\n")

# MRT: a TABLE_DUMP_V2 PEER_INDEX_TABLE (one IPv4 peer, AS4) and a RIB_IPV4_UNICAST record
# for 10.0.0.0/8 with ORIGIN, AS_PATH [65001 65002] and NEXT_HOP 192.0.2.1.
def mrt(ty, sub, body):
    return struct.pack("!IHHI", 1400000000, ty, sub, len(body)) + body


peer_index = struct.pack("!4sH", bytes([192, 0, 2, 254]), 0) + struct.pack("!H", 1)
peer_index += struct.pack("!B4s4sI", 0x02, bytes([192, 0, 2, 1]), bytes([192, 0, 2, 1]), 65001)
attrs = struct.pack("!BBBB", 0x40, 1, 1, 0)  # ORIGIN IGP
path = struct.pack("!BBII", 2, 2, 65001, 65002)
attrs += struct.pack("!BBB", 0x40, 2, len(path)) + path
attrs += struct.pack("!BBB4s", 0x40, 3, 4, bytes([192, 0, 2, 1]))
rib = struct.pack("!IB", 0, 8) + b"\x0a" + struct.pack("!H", 1)
rib += struct.pack("!HIH", 0, 1400000000, len(attrs)) + attrs
put("routes_mrt", "tdv2.mrt", mrt(13, 1, peer_index) + mrt(13, 2, rib))

# Captures: legacy pcap (µs, Ethernet) and pcapng (one IDB, two EPBs).
def legacy(frames, lt=1):
    b = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, lt)
    for i, f in enumerate(frames):
        b += struct.pack("<IIII", 1400000000 + i, 7 * i, len(f), len(f)) + f
    return b


def ng_block(ty, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", ty, n) + body + struct.pack("<I", n)


def pcapng(frames, lt=1):
    b = ng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    b += ng_block(1, struct.pack("<HHI", lt, 0, 65535))
    for i, f in enumerate(frames):
        b += ng_block(6, struct.pack("<IIIII", 0, 0, i, len(f), len(f)) + f)
    return b


eth4 = ETH + b"\x08\x00" + V4
eth6 = ETH + b"\x86\xdd" + V6
vlan4 = ETH + b"\x81\x00\x00\x05\x08\x00" + V4
arp = ETH + b"\x08\x06" + bytes(28)
put("pcap", "eth.pcap", legacy([eth4, eth6, vlan4, arp]))
put("pcap", "raw.pcapng", pcapng([V4, V6], lt=101))

# Compact trace: magic, then zigzag ts delta, flow id, key (new flows only).
def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def key(v6, proto, sport, dport, src, dst):
    return bytes([v6, proto]) + struct.pack("!HH", sport, dport) + bytes(src).ljust(16, b"\0") + bytes(dst).ljust(16, b"\0")


c = b"PKTLFT01"
c += varint(2 * 1000) + varint(0) + key(0, 17, 1000, 53, [10, 0, 0, 1], [10, 0, 0, 2])
c += varint(2 * 5) + varint(1) + key(1, 6, 443, 5000, [0x20, 1] + [0] * 14, [0x20, 1] + [0] * 13 + [2])
c += varint(2 * 3 + 1) + varint(0)
c += varint(2 * 70000) + varint(1)
put("compact", "small.pktl", c)

# Parser: first byte picks the link type (index into the target's LINK_TYPES).
put("parse", "eth-v4", bytes([0]) + eth4)
put("parse", "eth-v6", bytes([0]) + eth6)
put("parse", "vlan-v4", bytes([0]) + vlan4)
put("parse", "raw-v4", bytes([1]) + V4)
put("parse", "sll-v6", bytes([4]) + bytes(14) + b"\x86\xdd" + V6)
put("parse", "pppoe-v4", bytes([0]) + ETH + b"\x88\x64\x11\x00\x00\x01" + struct.pack("!H", 2 + len(V4)) + b"\x00\x21" + V4)
