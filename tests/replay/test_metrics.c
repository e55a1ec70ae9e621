// SPDX-License-Identifier: GPL-2.0
/* Histogram percentiles against a brute-force reference; the interval set against a bitmap. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine/hist.h"

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

