// SPDX-License-Identifier: GPL-2.0
/* The coverage map (unique discarded bytes) against the coalescing ivset, and its memory bound. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine/covmap.h"
#include "replay/policies/ivset.h"

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct cov_case {
	char name[32];
	uint64_t space;		/* offsets in [0, space) */
	uint64_t unit;		/* offsets and lengths are multiples of unit */
	uint64_t max_len;	/* in units */
	unsigned ops;
};

static struct cov_case covs[] = {
	{ .name = "aligned-4k", .space = 64ull << 20, .unit = 4096, .max_len = 64, .ops = 20000 },
	{ .name = "aligned-4k-long", .space = 64ull << 20, .unit = 4096, .max_len = 20000, .ops = 3000 },
	{ .name = "sectors", .space = 4ull << 20, .unit = 512, .max_len = 40, .ops = 20000 },
	{ .name = "bytes", .space = 256ull << 10, .unit = 1, .max_len = 9000, .ops = 20000 },
	{ .name = "odd-sizes", .space = 16ull << 20, .unit = 1536, .max_len = 3000, .ops = 10000 },
	{ .name = "wide-64bit", .space = 1ull << 62, .unit = 4096, .max_len = 1ull << 22, .ops = 4000 },
	{ .name = "wide-unaligned", .space = 1ull << 62, .unit = 3, .max_len = 1ull << 32, .ops = 4000 },
	{ .name = "leaf-edges", .space = 1ull << 30, .unit = 16ull << 20, .max_len = 3, .ops = 3000 },
};

ParameterizedTestParameters(covmap, against_ivset)
{
	return cr_make_param_array(struct cov_case, covs, sizeof(covs) / sizeof(covs[0]));
}

ParameterizedTest(struct cov_case *c, covmap, against_ivset)
{
	struct covmap *m = covmap__new();
	struct ivset *ref = ivset__new(true);
	uint64_t seed = 0x2545f4914f6cdd1dull;

	cr_assert(m && ref);
	for (unsigned i = 0; i < c->ops; i++) {
		uint64_t off = rng_next(&seed) % (c->space / c->unit) * c->unit;
		uint64_t len = (1 + rng_next(&seed) % c->max_len) * c->unit;
		int64_t want, got;

		if (!strcmp(c->name, "leaf-edges"))	/* straddle 16 MiB leaves by a few bytes either way */
			off += (rng_next(&seed) % 3) * 4096 - 4096 + (rng_next(&seed) % 2) * 512;
		if (off > c->space)
			off = 0;
		if (len > c->space - off)
			len = c->space - off;
		want = (int64_t)(len - ivset__covered(ref, off, len));
		cr_assert_eq(ivset__add(ref, off, len, 0, 0), 0);
		got = covmap__add(m, off, len);
		cr_assert_eq(got, want, "%s op %u: add %lu+%lu: %ld, want %ld", c->name, i, off, len, got, want);
		cr_assert_eq(covmap__bytes(m), ivset__bytes(ref), "%s op %u", c->name, i);
		if (i % 16 == 0) {
			uint64_t qo = rng_next(&seed) % c->space, ql = 1 + rng_next(&seed) % (c->space - qo);

			cr_assert_eq(covmap__overlap(m, qo, ql), ivset__covered(ref, qo, ql),
				     "%s op %u: overlap %lu+%lu", c->name, i, qo, ql);
		}
	}
	cr_assert_eq(covmap__overlap(m, 0, c->space), ivset__bytes(ref));
	covmap__free(m);
	ivset__destroy(ref);
}

/* Re-adding what is covered allocates nothing: memory follows the address space, not the adds. */
Test(covmap, memory_follows_space_not_adds)
{
	struct covmap *m = covmap__new();
	uint64_t seed = 7, mem1 = 0;

	cr_assert_not_null(m);
	for (unsigned pass = 0; pass < 3; pass++) {
		uint64_t s = seed;

		for (unsigned i = 0; i < 100000; i++)
			cr_assert_geq(covmap__add(m, (rng_next(&s) % (256ull << 18)) * 4096, 4096), 0);
		if (!pass)
			mem1 = covmap__mem(m);
		else
			cr_assert_eq(covmap__mem(m), mem1, "pass %u grew memory", pass);
	}
	/* 256 GiB at one bit per 4 KiB is 8 MiB of leaves; with the inner nodes well under 9 MiB. */
	cr_assert_leq(mem1, 9ull << 20, "%zu bytes", (size_t)mem1);
	covmap__free(m);
	covmap__free(NULL);
}

/* A whole-device discard costs no bitmap: covered subtrees collapse. */
Test(covmap, full_ranges_collapse)
{
	struct covmap *m = covmap__new();

	cr_assert_not_null(m);
	cr_assert_eq(covmap__add(m, 12345, 100), 100);
	cr_assert_eq(covmap__add(m, 1ull << 40, 4096), 4096);
	cr_assert_eq(covmap__add(m, 0, 1ull << 62), (int64_t)((1ull << 62) - 100 - 4096));
	cr_assert_eq(covmap__bytes(m), 1ull << 62);
	cr_assert_leq(covmap__mem(m), 16384, "%zu bytes", covmap__mem(m));
	cr_assert_eq(covmap__add(m, (1ull << 62) - 1, 2), 1);
	cr_assert_eq(covmap__add(m, UINT64_MAX - 10, 100), 10);	/* clipped at the end of the 64-bit space */
	cr_assert_eq(covmap__overlap(m, 0, 1ull << 62), 1ull << 62);
	covmap__free(m);
}

/* Pieces of one granule fill it: 8 sectors in shuffled order, then the whole granule adds nothing. */
Test(covmap, pieces_fill_a_granule)
{
	static const unsigned order[8] = { 5, 0, 7, 2, 3, 6, 1, 4 };
	struct covmap *m = covmap__new();

	cr_assert_not_null(m);
	for (unsigned i = 0; i < 8; i++) {
		cr_assert_eq(covmap__add(m, 8192 + order[i] * 512, 512), 512);
		cr_assert_eq(covmap__add(m, 8192 + order[i] * 512, 512), 0);
	}
	cr_assert_eq(covmap__add(m, 8192, 4096), 0);
	cr_assert_eq(covmap__add(m, 4096, 3 * 4096), 2 * 4096);
	cr_assert_eq(covmap__bytes(m), 3 * 4096);
	covmap__free(m);
}

/* Batched adds (prefetching) count exactly what single adds count, across batch edges and leaf collapses. */
Test(covmap, add_many_equals_add)
{
	struct covmap *one = covmap__new(), *many = covmap__new();
	static struct covmap_range r[5000];
	uint64_t seed = 99, fresh = 0, sum = 0;

	cr_assert(one && many);
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		uint64_t unit = i % 3 ? 4096 : 512;

		r[i].offset = rng_next(&seed) % ((64ull << 20) / unit) * unit;
		r[i].length = (1 + rng_next(&seed) % 600) * unit;
	}
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i += 77) {
		size_t n = sizeof(r) / sizeof(r[0]) - i < 77 ? sizeof(r) / sizeof(r[0]) - i : 77;

		cr_assert_eq(covmap__add_many(many, r + i, n, &fresh), 0);
		for (size_t k = 0; k < n; k++)
			sum += (uint64_t)covmap__add(one, r[i + k].offset, r[i + k].length);
		cr_assert_eq(covmap__bytes(many), covmap__bytes(one));
	}
	cr_assert_eq(covmap__bytes(one), sum);
	cr_assert_eq(covmap__overlap(many, 0, 1ull << 30), covmap__bytes(one));
	covmap__free(one);
	covmap__free(many);
}

/*
 * Small ranges inside one leaf take add_many's path that counts up through the
 * parents from the leaf it found: 4 GiB (a root of 256 leaves) in shuffled 32 KiB
 * ranges, batches of 100, the last range alone, so that it fills its leaf and the
 * leaf fills the root on that path. Counts as single adds do; all of it collapses.
 */
Test(covmap, add_many_fills_up_the_tree)
{
	struct covmap *one = covmap__new(), *many = covmap__new();
	const size_t n = (4ull << 30) / 32768;
	uint32_t *perm = malloc(n * sizeof(*perm));
	uint64_t seed = 5, fresh, sum_many = 0, sum_one = 0;

	cr_assert(one && many && perm);
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rng_next(&seed) % (i + 1);
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < n;) {
		struct covmap_range r[100];
		size_t m = i + 1 == n ? 1 : (n - 1 - i < 100 ? n - 1 - i : 100);

		for (size_t k = 0; k < m; k++) {
			r[k] = (struct covmap_range){ (uint64_t)perm[i + k] * 32768, 32768 };
			sum_one += (uint64_t)covmap__add(one, r[k].offset, r[k].length);
		}
		cr_assert_eq(covmap__add_many(many, r, m, &fresh), 0);
		sum_many += fresh;
		cr_assert_eq(covmap__bytes(many), covmap__bytes(one), "after range %zu", i);
		i += m;
	}
	cr_assert_eq(sum_many, 4ull << 30);
	cr_assert_eq(sum_one, 4ull << 30);
	cr_assert_eq(covmap__overlap(many, 0, 8ull << 30), 4ull << 30);
	cr_assert_eq(covmap__mem(many), 0, "%zu bytes left after the root filled", covmap__mem(many));
	cr_assert_eq(covmap__mem(one), 0);
	free(perm);
	covmap__free(one);
	covmap__free(many);
}
