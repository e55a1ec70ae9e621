// SPDX-License-Identifier: GPL-2.0
/*
 * The FTL's L2P directory (models/ftl_dir.h) against a plain array kept here:
 * random adds, removes and lookups through its growth and its change to the
 * dense array, and the chunk numbers it lists for a range.
 */
#include <stdlib.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "models/ftl_dir.h"

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct dir_case {
	uint64_t n;		/* chunk numbers */
	unsigned ops;
	unsigned add_pct;	/* share of steps that add when the chunk is absent (else look up) */
	uint64_t span;		/* chunk numbers used: [0, span) */
	bool sparse_at_start, dense_at_end;
};

ParameterizedTestParameters(ftl_dir, against_array)
{
	static struct dir_case cases[] = {
		{ .n = 40, .ops = 5000, .add_pct = 60, .span = 40, .sparse_at_start = false, .dense_at_end = true },
		{ .n = 4096, .ops = 200000, .add_pct = 70, .span = 4096, .sparse_at_start = true, .dense_at_end = true },
		{ .n = 4096, .ops = 200000, .add_pct = 50, .span = 600, .sparse_at_start = true, .dense_at_end = false },
		{ .n = 1 << 20, .ops = 300000, .add_pct = 50, .span = 1 << 20, .sparse_at_start = true,
		  .dense_at_end = false },
		{ .n = 100000, .ops = 400000, .add_pct = 90, .span = 100000, .sparse_at_start = true,
		  .dense_at_end = true },
	};

	return cr_make_param_array(struct dir_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct dir_case *c, ftl_dir, against_array)
{
	uint32_t *region = calloc(c->n, sizeof(uint32_t)), *ref = calloc(c->n, sizeof(uint32_t)), next = 1;
	uint64_t s = 99 + c->n, live = 0;
	struct ftl_dir d;

	cr_assert(region && ref);
	ftl_dir__init(&d, region, c->n);
	cr_assert_eq(d.hash != NULL, c->sparse_at_start, "n %llu: sparse at start", (unsigned long long)c->n);
	for (unsigned i = 0; i < c->ops; i++) {
		uint64_t r = xorshift(&s), k = r % c->span, q = (r >> 32) % c->span;

		if (!ref[k] && (r >> 56) % 100 < c->add_pct) {
			cr_assert_eq(ftl_dir__add(&d, k, next), 0);
			ref[k] = next++;
			live++;
		} else if (ref[k] && (r >> 48) % 2) {
			ftl_dir__del(&d, k);
			ref[k] = 0;
			live--;
		}
		cr_assert_eq(ftl_dir__find(&d, k), ref[k], "step %u: chunk %llu", i, (unsigned long long)k);
		cr_assert_eq(ftl_dir__find(&d, q), ref[q], "step %u: chunk %llu", i, (unsigned long long)q);
		if (d.hash)
			cr_assert_eq(d.count, live);
	}
	for (uint64_t k = 0; k < c->n; k++)
		cr_assert_eq(ftl_dir__find(&d, k), ref[k], "chunk %llu at the end", (unsigned long long)k);
	cr_assert_eq(d.hash == NULL, c->dense_at_end, "n %llu: dense at end with %llu chunks", (unsigned long long)c->n,
		     (unsigned long long)live);
	/* Ranges: what the directory lists is exactly what the array has, ascending. */
	for (unsigned i = 0; i < 200; i++) {
		uint64_t r = xorshift(&s), c0 = r % c->n, c1 = c0 + 1 + (r >> 32) % (c->n - c0), *keys;
		size_t n = 0, k = 0;

		if (i == 0)
			c0 = 0, c1 = c->n;
		keys = ftl_dir__range(&d, c0, c1, &n);
		if (i == 0)
			cr_assert_eq(keys != NULL, d.hash != NULL && c->n > 1ull << d.bits);
		if (!keys)
			continue;
		for (uint64_t x = c0; x < c1; x++) {
			if (!ref[x])
				continue;
			cr_assert_lt(k, n, "range [%llu, %llu): chunk %llu missing", (unsigned long long)c0,
				     (unsigned long long)c1, (unsigned long long)x);
			cr_assert_eq(keys[k], x);
			k++;
		}
		cr_assert_eq(k, n);
		free(keys);
	}
	free(region);
	free(ref);
}
