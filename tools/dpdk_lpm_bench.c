/*
 * dpdk_lpm_bench — the DPDK side of pktlab's dir24_8 comparison (docs/results/lpm.md).
 *
 * pktlab's own code, linking the system DPDK (Debian `libdpdk-dev`); nothing of DPDK is
 * copied. It loads the same routing table as `pktlab lpm bench`, assigns the same next hops
 * (`hash:N` = 1 + splitmix64(addr ^ len << 56) % N, DESIGN.md), builds DPDK's rte_lpm and
 * rte_fib (DIR24_8, 4-byte next hops) with one add per route (timed), and times lookups of
 * the same traffic as pktlab:
 *   random    Marsaglia's xor128 from his published seed, one output per address
 *             (pktlab `--traffic random --seed 1`, thread 0);
 *   prefixes  a table prefix chosen as xor128 % routes (file order), host bits from the
 *             next xor128 output (pktlab `--traffic prefixes`).
 * Addresses are generated on the fly in batches of BATCH and looked up with
 * rte_lpm_lookup_bulk / rte_fib_lookup_bulk (pktlab: lookup_batch), or one by one with
 * rte_lpm_lookup (BATCH = 1; pktlab: --batch 1). The checksum (sum of next hops, 0 for no
 * route) must equal pktlab's `checksum` for the same lookups.
 *
 * Build (outside the repository; ANCHORS = any directory of your own for anchor builds):
 *   gcc -O3 -march=native tools/dpdk_lpm_bench.c $(pkg-config --cflags --libs libdpdk) \
 *       -o "$ANCHORS/dpdk_lpm_bench"
 * Run:
 *   dpdk_lpm_bench --no-huge --no-pci -m 1024 --no-telemetry -l 1 -- \
 *       TABLE NH_N TRAFFIC LOOKUPS ROUNDS BATCH [lpm|fib|both]
 * Prints one JSON object per line: the build, then one per round and structure.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_fib.h>
#include <rte_lpm.h>

#include "anchor_common.h"

static double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* Time this thread spent on a CPU (as pktlab's on-CPU rate, from the same kernel counter). */
static double oncpu(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

struct route {
	uint32_t addr;
	uint8_t len;
	uint32_t nh;
};

/* Reads `prefix/len` (text) or `prefix<TAB>asn` (pyasn) lines, gzip or plain. */
static struct route *load(const char *path, uint32_t n_nh, size_t *count, size_t *skipped)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "zcat -f '%s'", path);
	FILE *f = popen(cmd, "r");
	if (!f) {
		fprintf(stderr, "%s: cannot open\n", path);
		exit(1);
	}
	size_t cap = 1 << 20, n = 0;
	struct route *r = malloc(cap * sizeof(*r));
	char line[512];
	*skipped = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == ';' || line[0] == '\n')
			continue;
		char *tok = strtok(line, " \t\n");
		if (!tok)
			continue;
		char *slash = strchr(tok, '/');
		char *lenstr = NULL;
		if (slash) {
			*slash = 0;
			lenstr = slash + 1;
		} else {
			lenstr = strtok(NULL, " \t\n"); /* pyasn: prefix<TAB>len<TAB>asn */
		}
		struct in_addr a;
		if (!lenstr || inet_pton(AF_INET, tok, &a) != 1) {
			(*skipped)++;
			continue;
		}
		int len = atoi(lenstr);
		uint32_t addr = ntohl(a.s_addr);
		if (len < 0 || len > 32 || (len < 32 && (addr & (0xFFFFFFFFu >> len)))) {
			(*skipped)++;
			continue;
		}
		if (n == cap) {
			cap *= 2;
			r = realloc(r, cap * sizeof(*r));
		}
		r[n].addr = addr;
		r[n].len = (uint8_t)len;
		r[n].nh = hash_nexthop_v4(addr, len, n_nh);
		n++;
	}
	pclose(f);
	*count = n;
	return r;
}

enum traffic { RANDOM, PREFIXES };

static inline void gen(enum traffic t, struct xor128 *s, const struct route *r, size_t n,
		       uint32_t *a, int k)
{
	for (int i = 0; i < k; i++) {
		if (t == RANDOM) {
			a[i] = xor128_next(s);
		} else {
			const struct route *p = &r[xor128_next(s) % n];
			uint32_t host = p->len == 0 ? 0xFFFFFFFFu : (0xFFFFFFFFu >> p->len);
			if (p->len == 32)
				host = 0;
			a[i] = p->addr | (xor128_next(s) & host);
		}
	}
}

int main(int argc, char **argv)
{
	int e = rte_eal_init(argc, argv);
	if (e < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	argc -= e;
	argv += e;
	if (argc < 7) {
		fprintf(stderr, "usage: dpdk_lpm_bench EAL -- TABLE NH_N TRAFFIC LOOKUPS ROUNDS BATCH [lpm|fib|both]\n");
		return 1;
	}
	const char *path = argv[1];
	uint32_t n_nh = (uint32_t)atoi(argv[2]);
	enum traffic tr = strcmp(argv[3], "prefixes") == 0 ? PREFIXES : RANDOM;
	uint64_t lookups = strtoull(argv[4], NULL, 0);
	int rounds = atoi(argv[5]);
	int batch = atoi(argv[6]);
	const char *which = argc > 7 ? argv[7] : "both";
	int do_lpm = strcmp(which, "fib") != 0, do_fib = strcmp(which, "lpm") != 0;
	if (batch < 1 || batch > 4096 || n_nh < 1) {
		fprintf(stderr, "BATCH must be 1..4096, NH_N >= 1\n");
		return 1;
	}
	size_t n, skipped;
	double t0 = now();
	struct route *r = load(path, n_nh, &n, &skipped);
	size_t deep = 0;
	for (size_t i = 0; i < n; i++)
		deep += r[i].len > 24;
	fprintf(stderr, "%s: %zu routes (%zu longer than /24), %zu skipped, read in %.2f s\n", path,
		n, deep, skipped, now() - t0);

	struct rte_lpm *lpm = NULL;
	struct rte_fib *fib = NULL;
	if (do_lpm) {
		struct rte_lpm_config c = {
			.max_rules = (uint32_t)n + 16, .number_tbl8s = (uint32_t)deep + 256, .flags = 0};
		lpm = rte_lpm_create("pktlab_lpm", 0, &c);
		if (!lpm) {
			fprintf(stderr, "rte_lpm_create failed\n");
			return 1;
		}
		t0 = now();
		double c0 = oncpu();
		for (size_t i = 0; i < n; i++)
			if (rte_lpm_add(lpm, r[i].addr, r[i].len, r[i].nh) < 0) {
				fprintf(stderr, "rte_lpm_add failed at route %zu\n", i);
				return 1;
			}
		printf("{\"structure\":\"rte_lpm\",\"routes\":%zu,\"build_s\":%.3f,\"build_oncpu_s\":%.3f}\n",
		       n, now() - t0, oncpu() - c0);
		fflush(stdout);
	}
	if (do_fib) {
		struct rte_fib_conf c;
		memset(&c, 0, sizeof(c));
		c.type = RTE_FIB_DIR24_8;
		c.default_nh = 0;
		c.max_routes = (int)n + 16;
		c.dir24_8.nh_sz = RTE_FIB_DIR24_8_4B;
		c.dir24_8.num_tbl8 = (uint32_t)deep + 256;
		fib = rte_fib_create("pktlab_fib", 0, &c);
		if (!fib) {
			fprintf(stderr, "rte_fib_create failed\n");
			return 1;
		}
		t0 = now();
		double c1 = oncpu();
		for (size_t i = 0; i < n; i++)
			if (rte_fib_add(fib, r[i].addr, r[i].len, r[i].nh) < 0) {
				fprintf(stderr, "rte_fib_add failed at route %zu\n", i);
				return 1;
			}
		printf("{\"structure\":\"rte_fib\",\"routes\":%zu,\"build_s\":%.3f,\"build_oncpu_s\":%.3f}\n",
		       n, now() - t0, oncpu() - c1);
		fflush(stdout);
	}

	static uint32_t addrs[4096], hops[4096];
	static uint64_t hops64[4096];
	for (int round = 1; round <= rounds; round++) {
		for (int s = 0; s < 2; s++) {
			if ((s == 0 && !lpm) || (s == 1 && !fib))
				continue;
			struct xor128 st = xor128_new();
			uint64_t sum = 0, done = 0;
			double start = now(), cpu0 = oncpu();
			while (done < lookups) {
				int k = (int)((lookups - done) < (uint64_t)batch ? (lookups - done) : (uint64_t)batch);
				gen(tr, &st, r, n, addrs, k);
				if (s == 0 && batch == 1) {
					uint32_t h;
					if (rte_lpm_lookup(lpm, addrs[0], &h) == 0)
						sum += h;
				} else if (s == 0) {
					rte_lpm_lookup_bulk(lpm, addrs, hops, k);
					for (int i = 0; i < k; i++)
						if (hops[i] & RTE_LPM_LOOKUP_SUCCESS)
							sum += hops[i] & 0x00FFFFFF;
				} else {
					rte_fib_lookup_bulk(fib, addrs, hops64, k);
					for (int i = 0; i < k; i++)
						sum += hops64[i];
				}
				done += k;
			}
			double secs = now() - start, cpu = oncpu() - cpu0;
			printf("{\"structure\":\"%s\",\"round\":%d,\"traffic\":\"%s\",\"batch\":%d,"
			       "\"lookups\":%" PRIu64 ",\"mlps\":%.2f,\"mlps_oncpu\":%.2f,"
			       "\"checksum\":%" PRIu64 "}\n",
			       s == 0 ? "rte_lpm" : "rte_fib", round, argv[3], batch, lookups,
			       lookups / secs / 1e6, lookups / cpu / 1e6, sum);
			fflush(stdout);
		}
	}
	return 0;
}
