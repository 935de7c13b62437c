/*
 * Timing driver for the reference C Poptrie (pixos/poptrie), used by
 * tools/poptrie_vs_reference.sh. Our own code: it links the reference's sources, which the
 * script takes from POPTRIE_SRC (built outside this repository, never copied into it).
 *
 * Usage: poptrie_ref_bench TABLE MODE LOOKUPS [PREGEN]
 *   TABLE   `prefix/len` lines (IPv4; a second column is ignored), e.g. a zcat of rib-v4.txt.gz
 *   MODE    `random`: Marsaglia's xor128 from his published seed, generated in the loop, one
 *           scalar poptrie_lookup per address (the paper's harness, `pktlab lpm bench
 *           --traffic random --batch 1`); `pregen`: PREGEN addresses of the same stream
 *           generated before timing and cycled in place (`pktlab lpm bench --pregen PREGEN`).
 * Next hops are pktlab's `hash:16`: 1 + splitmix64(addr ^ len << 56) % 16 (DESIGN.md).
 * Prints one line: `mlps=<on-CPU million lookups/s> sum=<sum of next hops> routes=<n>
 * mismatches=<poptrie_lookup vs the reference's own radix tree on 1M addresses>`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anchor_common.h"
#include "poptrie.h"

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long parse_count(const char *s, const char *what)
{
    char *end;
    long v;
    if (strncmp(s, "2^", 2) == 0) {
        v = strtol(s + 2, &end, 10);
        if (*end || v < 0 || v > 40) {
            fprintf(stderr, "poptrie_ref_bench: %s: bad power of two %s\n", what, s);
            exit(2);
        }
        return 1L << v;
    }
    v = strtol(s, &end, 10);
    if (*end == 'K') {
        v <<= 10;
        end++;
    } else if (*end == 'M') {
        v <<= 20;
        end++;
    }
    if (*end || v <= 0) {
        fprintf(stderr, "poptrie_ref_bench: %s: bad count %s\n", what, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[2], "random") && strcmp(argv[2], "pregen"))) {
        fprintf(stderr, "usage: poptrie_ref_bench TABLE random|pregen LOOKUPS [PREGEN]\n");
        return 2;
    }
    long lookups = parse_count(argv[3], "LOOKUPS");
    int pregen_mode = strcmp(argv[2], "pregen") == 0;
    long pregen = pregen_mode ? parse_count(argc > 4 ? argv[4] : "64K", "PREGEN") : 0;

    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    struct poptrie *p = poptrie_init(NULL, 19, 22);
    if (!p) {
        fprintf(stderr, "poptrie_init failed\n");
        return 1;
    }
    char line[256];
    long lineno = 0, routes = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        unsigned a, b, c, d, len;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%u.%u.%u.%u/%u", &a, &b, &c, &d, &len) != 5 || a > 255 || b > 255
            || c > 255 || d > 255 || len > 32) {
            fprintf(stderr, "%s:%ld: not an IPv4 prefix/len\n", argv[1], lineno);
            return 2;
        }
        uint32_t addr = (a << 24) | (b << 16) | (c << 8) | d;
        if (len < 32)
            addr &= len ? ~((1u << (32 - len)) - 1) : 0;
        uintptr_t nh = hash_nexthop_v4(addr, len, 16);
        if (poptrie_route_add(p, addr, (int)len, (void *)nh) < 0) {
            fprintf(stderr, "%s:%ld: poptrie_route_add failed\n", argv[1], lineno);
            return 1;
        }
        routes++;
    }
    fclose(f);

    /* The reference's own oracle: its RIB radix tree, on 1M addresses of the stream. */
    struct xor128 v = xor128_new();
    long mismatches = 0;
    for (long i = 0; i < (1L << 20); i++) {
        uint32_t x = xor128_next(&v);
        if (poptrie_lookup(p, x) != poptrie_rib_lookup(p, x))
            mismatches++;
    }

    uint64_t sum = 0;
    struct xor128 s = xor128_new();
    double t0, t1;
    if (pregen_mode) {
        uint32_t *buf = malloc(sizeof(uint32_t) * pregen);
        if (!buf) {
            fprintf(stderr, "poptrie_ref_bench: PREGEN %ld: out of memory\n", pregen);
            return 1;
        }
        for (long i = 0; i < pregen; i++)
            buf[i] = xor128_next(&s);
        t0 = cpu_seconds();
        for (long i = 0, j = 0; i < lookups; i++) {
            sum += (uintptr_t)poptrie_lookup(p, buf[j]);
            if (++j == pregen)
                j = 0;
        }
        t1 = cpu_seconds();
        free(buf);
    } else {
        t0 = cpu_seconds();
        for (long i = 0; i < lookups; i++)
            sum += (uintptr_t)poptrie_lookup(p, xor128_next(&s));
        t1 = cpu_seconds();
    }
    printf("mlps=%.2f sum=%llu routes=%ld mismatches=%ld\n", lookups / (t1 - t0) / 1e6,
           (unsigned long long)sum, routes, mismatches);
    poptrie_release(p);
    return mismatches != 0;
}
