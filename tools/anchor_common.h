/*
 * What pktlab's C anchor drivers (dpdk_lpm_bench.c, poptrie_ref_bench.c) share with `pktlab
 * lpm bench`: the `hash:N` next hop of DESIGN.md and Marsaglia's xor128 traffic, defined once.
 * Our own code; header-only (static functions), included by each driver.
 */
#ifndef PKTLAB_ANCHOR_COMMON_H
#define PKTLAB_ANCHOR_COMMON_H

#include <stdint.h>

/* The splitmix64 finaliser (pktlab::util::splitmix64). */
static inline uint64_t splitmix64(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* `hash:N` of an IPv4 prefix: 1 + splitmix64(addr ^ len << 56) % N. */
static inline uint32_t hash_nexthop_v4(uint32_t addr, unsigned len, uint32_t n)
{
	return 1 + (uint32_t)(splitmix64((uint64_t)addr ^ ((uint64_t)len << 56)) % n);
}

/* Marsaglia's xor128 (pktlab::util::Xor128); xor128_new() is his published seed (stream 0). */
struct xor128 {
	uint32_t x, y, z, w;
};

static inline struct xor128 xor128_new(void)
{
	struct xor128 s = {123456789, 362436069, 521288629, 88675123};
	return s;
}

static inline uint32_t xor128_next(struct xor128 *s)
{
	uint32_t t = s->x ^ (s->x << 11);
	s->x = s->y;
	s->y = s->z;
	s->z = s->w;
	s->w = s->w ^ (s->w >> 19) ^ (t ^ (t >> 8));
	return s->w;
}

#endif
