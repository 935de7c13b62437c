// SPDX-License-Identifier: MIT OR GPL-2.0
// pktlab's XDP program for afxdp ports: redirect to the AF_XDP socket of the receive queue
// only the packets pktlab forwards (IPv4/IPv6 unicast not addressed to this host); pass
// everything else to the kernel: ARP, IPv6 neighbour discovery (multicast or link-local
// destinations), broadcast/multicast frames, packets for the host's own addresses, VLAN
// tags and unknown EtherTypes.
//
// Built by crates/pktlab/build.rs with `clang -target bpf` against Debian's libbpf-dev
// headers; loaded by aya (crates/pktlab/src/port/afxdp.rs).
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

// Receive queue index -> AF_XDP socket.
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

// The host's IPv4 addresses (network byte order), filled by pktlab before attaching.
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} local4 SEC(".maps");

// The host's IPv6 addresses.
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct in6_addr);
	__type(value, __u8);
} local6 SEC(".maps");

// Counters: 0 redirected, 1 passed (local or not forwardable), 2 redirect failed.
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline int count(__u32 k, int verdict)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &k);
	if (c)
		*c += 1;
	return verdict;
}

SEC("xdp")
int pktlab_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > end || (eth->h_dest[0] & 1))
		return count(1, XDP_PASS);
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);
		if ((void *)(ip + 1) > end)
			return count(1, XDP_PASS);
		__u32 d = ip->daddr;
		__u8 first = bpf_ntohl(d) >> 24;
		if (first >= 224 || bpf_map_lookup_elem(&local4, &d))
			return count(1, XDP_PASS);
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		if ((void *)(ip6 + 1) > end)
			return count(1, XDP_PASS);
		struct in6_addr d = ip6->daddr;
		__u8 b0 = d.in6_u.u6_addr8[0], b1 = d.in6_u.u6_addr8[1];
		if (b0 == 0xff || (b0 == 0xfe && (b1 & 0xc0) == 0x80) ||
		    bpf_map_lookup_elem(&local6, &d))
			return count(1, XDP_PASS);
	} else {
		return count(1, XDP_PASS);
	}
	int r = bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS);
	return count(r == XDP_REDIRECT ? 0 : 2, r);
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
