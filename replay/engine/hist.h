/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear latency histogram (HDR-style): values below 128 are exact,
 * above that each power of two has 64 linear buckets, so a quantile is within
 * 1/64 (1.6 %) of the true value. 3776 buckets, allocated on first use.
 */
#ifndef TRIMSIM_HIST_H
#define TRIMSIM_HIST_H

#include <errno.h>
#include <stdint.h>
#include <jansson.h>

#define HIST_SUB_BITS	6
#define HIST_BUCKETS	(58 * 64 + 64)

struct hist {
	uint64_t n, min, max;
	unsigned __int128 sum;	/* exact (a long double sum was too, below 2^64, but slower to add) */
	uint64_t *b;
};

void hist_init(struct hist *h);
void hist_free(struct hist *h);
int hist_alloc(struct hist *h);	/* the buckets, on first use: 0 or -ENOMEM */
/* Nearest-rank quantile q in [0,1], as the bucket's midpoint clamped to [min, max]; 0 if empty. */
uint64_t hist_quantile(const struct hist *h, double q);
static inline double hist_mean(const struct hist *h) { return h->n ? (double)((long double)h->sum / h->n) : 0; }
/*
 * {"count","min_U","mean_U","p50_U","p99_U","p999_U","max_U","sum_U"}: the keys carry the unit
 * of the values ("ns" for latencies, "bytes" for command sizes).
 */
json_t *hist_json(const struct hist *h, const char *unit);
/* Bucket index of v and the range [lo, hi] a bucket holds (for tests and CDF plots). */
static inline unsigned hist_bucket(uint64_t v)
{
	unsigned msb, shift;

	if (v < (2u << HIST_SUB_BITS))
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	shift = msb - HIST_SUB_BITS;
	return (shift << HIST_SUB_BITS) + (unsigned)(v >> shift);
}

/* Inline: the engine adds several values per command. 0 or -ENOMEM. */
static inline int hist_add(struct hist *h, uint64_t v)
{
	if (__builtin_expect(!h->b, 0) && hist_alloc(h))
		return -ENOMEM;
	h->b[hist_bucket(v)]++;
	h->n++;
	h->sum += v;
	if (v < h->min)	/* branches, not a load, a select and a store each: a new extreme is rare */
		h->min = v;
	if (v > h->max)
		h->max = v;
	return 0;
}
void hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi);

#endif
