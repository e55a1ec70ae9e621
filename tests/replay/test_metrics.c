// SPDX-License-Identifier: GPL-2.0
/* Histogram percentiles against a brute-force reference; the interval set against a bitmap. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine/hist.h"
#include "replay/engine/rangeset.h"

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as hist_quantile defines it. */
static uint64_t ref_quantile(const uint64_t *sorted, size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);

	rank = rank < 1 ? 1 : rank > n ? n : rank;
	return sorted[rank - 1];
}

struct dist_case {
	char name[32];
	unsigned shape;		/* 0 uniform small, 1 log-uniform ns..s, 2 bimodal, 3 constant */
	size_t n;
};

static struct dist_case dists[] = {
	{ "uniform-small", 0, 1000 },
	{ "log-uniform", 1, 100000 },
	{ "bimodal", 2, 50000 },
	{ "constant", 3, 10 },
	{ "one", 1, 1 },
};

ParameterizedTestParameters(hist, quantiles)
{
	return cr_make_param_array(struct dist_case, dists, sizeof(dists) / sizeof(dists[0]));
}

ParameterizedTest(struct dist_case *c, hist, quantiles)
{
	static const double qs[] = { 0, 0.01, 0.5, 0.9, 0.99, 0.999, 1 };
	uint64_t *v = malloc(c->n * sizeof(*v)), s = 88172645463325252ull;
	struct hist h;

	cr_assert_not_null(v);
	hist_init(&h);
	for (size_t i = 0; i < c->n; i++) {
		uint64_t r = rng_next(&s);

		switch (c->shape) {
		case 0: v[i] = r % 200; break;
		case 1: v[i] = (uint64_t)exp((double)(r % 20000) / 20000.0 * log(1e10)); break;
		case 2: v[i] = r % 2 ? 9000000 + r % 100000 : 50000 + r % 1000; break;
		default: v[i] = 123456789; break;
		}
		cr_assert_eq(hist_add(&h, v[i]), 0);
	}
	qsort(v, c->n, sizeof(*v), cmp_u64);
	cr_assert_eq(h.n, c->n);
	cr_assert_eq(h.min, v[0]);
	cr_assert_eq(h.max, v[c->n - 1]);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		uint64_t want = ref_quantile(v, c->n, qs[k]), got = hist_quantile(&h, qs[k]);
		double tol = (double)want / 64.0 + 1.0;

		cr_expect(fabs((double)got - (double)want) <= tol, "%s q=%g: %lu vs reference %lu", c->name,
			  qs[k], got, want);
	}
	hist_free(&h);
	free(v);
}

Test(hist, bucket_ranges_tile_the_line)
{
	uint64_t prev_hi = 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t lo, hi;

		hist_bucket_range(i, &lo, &hi);
		if (i)
			cr_assert_eq(lo, prev_hi + 1, "bucket %u starts at %lu", i, lo);
		cr_assert_eq(hist_bucket(lo), i);
		cr_assert_eq(hist_bucket(hi), i);
		prev_hi = hi;
	}
	cr_assert_eq(prev_hi, UINT64_MAX);
}

Test(hist, empty_is_zero)
{
	struct hist h;

	hist_init(&h);
	cr_assert_eq(hist_quantile(&h, 0.99), 0);
	hist_free(&h);
	hist_free(NULL);
}

/* ---- interval set vs a bitmap of 4K blocks ---- */
#define NBLK 4096

struct iv_case {
	char name[32];
	unsigned ops;
	unsigned max_len;	/* blocks */
	unsigned remove_pct;
};

static struct iv_case ivs[] = {
	{ "small-adds", 3000, 4, 0 },
	{ "long-adds", 500, 300, 0 },
	{ "mixed", 5000, 64, 40 },
	{ "mostly-remove", 5000, 128, 70 },
};

ParameterizedTestParameters(rangeset, bitmap)
{
	return cr_make_param_array(struct iv_case, ivs, sizeof(ivs) / sizeof(ivs[0]));
}

ParameterizedTest(struct iv_case *c, rangeset, bitmap)
{
	static bool bm[NBLK];
	struct rangeset *s = rangeset__new();
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	memset(bm, 0, sizeof(bm));
	cr_assert_not_null(s);
	for (unsigned i = 0; i < c->ops; i++) {
		uint64_t a = rng_next(&seed) % NBLK, len = 1 + rng_next(&seed) % c->max_len, ref = 0, blocks = 0;
		bool rm = rng_next(&seed) % 100 < c->remove_pct;
		int64_t got;

		if (a + len > NBLK)
			len = NBLK - a;
		for (uint64_t b = a; b < a + len; b++) {
			ref += rm ? bm[b] : !bm[b];
			bm[b] = !rm;
		}
		got = rm ? rangeset__remove(s, a * 4096, len * 4096) : rangeset__add(s, a * 4096, len * 4096);
		cr_assert_eq(got, (int64_t)(ref * 4096), "%s op %u (%s %lu+%lu): %ld vs %lu", c->name, i,
			     rm ? "remove" : "add", a, len, got, ref * 4096);
		for (uint64_t b = 0; b < NBLK; b++)
			blocks += bm[b];
		cr_assert_eq(rangeset__bytes(s), blocks * 4096);
	}
	/* Walk the intervals: they are disjoint, non-adjacent, and match the bitmap. */
	{
		uint64_t from = 0, off, len, runs = 0;

		while (rangeset__next(s, from, &off, &len)) {
			cr_assert(off % 4096 == 0 && len % 4096 == 0);
			for (uint64_t b = off / 4096; b < (off + len) / 4096; b++)
				cr_assert(bm[b]);
			if (off / 4096)
				cr_assert_not(bm[off / 4096 - 1], "adjacent intervals not merged");
			if ((off + len) / 4096 < NBLK)
				cr_assert_not(bm[(off + len) / 4096]);
			runs++;
			from = off + len;
		}
		cr_assert_eq(runs, rangeset__count(s));
	}
	{
		uint64_t a = 100, len = 1000, ref = 0;

		for (uint64_t b = a; b < a + len; b++)
			ref += bm[b];
		cr_assert_eq(rangeset__overlap(s, a * 4096, len * 4096), ref * 4096);
	}
	rangeset__free(s);
}

Test(rangeset, memory_is_intervals_not_inserts)
{
	struct rangeset *s = rangeset__new();

	for (uint64_t i = 0; i < 200000; i++)
		cr_assert_geq(rangeset__add(s, (i % 1000) * 8192, 8192), 0);
	cr_assert_eq(rangeset__count(s), 1);
	cr_assert_eq(rangeset__bytes(s), 1000 * 8192);
	rangeset__clear(s);
	cr_assert_eq(rangeset__count(s), 0);
	rangeset__free(s);
	rangeset__free(NULL);
}
