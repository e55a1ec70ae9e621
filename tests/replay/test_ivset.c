// SPDX-License-Identifier: GPL-2.0
/* The extent set under the kernel-emulating stages, against a bitmap oracle. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/ivset.h"

#define UNITS 2048

struct ivcase { bool coalesce; unsigned seed; unsigned ops; };

static struct ivcase ivcases[] = {
	{ .coalesce = true, .seed = 1, .ops = 20000 },
	{ .coalesce = true, .seed = 7, .ops = 20000 },
	{ .coalesce = false, .seed = 3, .ops = 20000 },
	{ .coalesce = false, .seed = 11, .ops = 20000 },
};

ParameterizedTestParameters(ivset, random_against_bitmap)
{
	return cr_make_param_array(struct ivcase, ivcases, sizeof(ivcases) / sizeof(ivcases[0]));
}

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) & 0xffffff;
}

/* Walks the set: disjoint, ordered, coalesced where asked, and equal to the bitmap. */
static void check(const struct ivset *set, const bool *bit, bool coalesce)
{
	uint64_t pos = 0, prev_end = 0, bytes = 0;
	size_t n = 0;
	bool have_prev = false;
	struct iv v;
	bool seen[UNITS] = { false };

	while (ivset__next(set, pos, &v)) {
		cr_assert_lt(v.start, v.end);
		cr_assert_leq(v.end, UNITS);
		if (have_prev) {
			cr_assert_geq(v.start, prev_end, "overlap at %lu", (unsigned long)v.start);
			if (coalesce)
				cr_assert_gt(v.start, prev_end, "touching extents not joined at %lu",
					     (unsigned long)v.start);
		}
		for (uint64_t u = v.start; u < v.end; u++)
			seen[u] = true;
		bytes += v.end - v.start;
		prev_end = v.end;
		have_prev = true;
		pos = v.end;
		n++;
	}
	for (unsigned u = 0; u < UNITS; u++)
		cr_assert_eq(seen[u], bit[u], "unit %u: set %d, oracle %d", u, seen[u], bit[u]);
	cr_assert_eq(ivset__count(set), n);
	cr_assert_eq(ivset__bytes(set), bytes);
}

ParameterizedTest(struct ivcase *c, ivset, random_against_bitmap)
{
	struct ivset *set = ivset__new(c->coalesce);
	bool bit[UNITS] = { false };
	unsigned s = c->seed;

	cr_assert_not_null(set);
	for (unsigned i = 0; i < c->ops; i++) {
		uint64_t a = rnd(&s) % UNITS, len = 1 + rnd(&s) % 64;

		if (a + len > UNITS)
			len = UNITS - a;
		if (rnd(&s) % 3) {
			cr_assert_eq(ivset__add(set, a, len, i, i), 0);
			memset(bit + a, 1, len);
		} else {
			cr_assert_eq(ivset__remove(set, a, len), 0);
			memset(bit + a, 0, len);
		}
		if (i % 1000 == 0) {
			uint64_t q = rnd(&s) % UNITS, ql = 1 + rnd(&s) % 200, want = 0;

			check(set, bit, c->coalesce);
			if (q + ql > UNITS)
				ql = UNITS - q;
			for (uint64_t u = q; u < q + ql; u++)
				want += bit[u];
			cr_assert_eq(ivset__covered(set, q, ql), want);
		}
	}
	check(set, bit, c->coalesce);
	ivset__destroy(set);
}

Test(ivset, coalescing_keeps_earliest_value)
{
	struct ivset *set = ivset__new(true);
	struct iv v;

	ivset__add(set, 10, 10, 5, 1);
	ivset__add(set, 0, 10, 9, 2);		/* touches: joined */
	ivset__add(set, 30, 5, 1, 3);
	cr_assert_eq(ivset__count(set), 2);
	cr_assert(ivset__next(set, 0, &v));
	cr_assert_eq(v.start, 0);
	cr_assert_eq(v.end, 20);
	cr_assert_eq(v.val, 5);
	cr_assert_eq(v.aux, 2);
	cr_assert(ivset__find_le(set, 29, &v));
	cr_assert_eq(v.start, 0);
	cr_assert(ivset__get(set, 30, &v));
	cr_assert_eq(ivset__erase(set, 30), 1);
	cr_assert_eq(ivset__erase(set, 30), 0);
	cr_assert(!ivset__next(set, 20, &v));
	ivset__clear(set);
	cr_assert_eq(ivset__count(set), 0);
	ivset__destroy(set);
	ivset__destroy(NULL);
}

Test(ivset, exact_keeps_neighbours_apart)
{
	struct ivset *set = ivset__new(false);
	struct iv v;

	ivset__add(set, 0, 4, 1, 0);
	ivset__add(set, 4, 4, 2, 0);
	ivset__add(set, 2, 4, 3, 0);		/* cuts both */
	cr_assert_eq(ivset__count(set), 3);
	cr_assert(ivset__get(set, 2, &v));
	cr_assert_eq(v.end, 6);
	cr_assert_eq(v.val, 3);
	cr_assert(ivset__get(set, 6, &v));
	cr_assert_eq(v.val, 2);
	ivset__destroy(set);
}
