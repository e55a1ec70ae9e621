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

struct walked {
	struct iv v[UNITS];
	size_t n;
};

static int collect(void *arg, const struct iv *v)
{
	struct walked *w = arg;

	cr_assert_lt(w->n, UNITS);
	w->v[w->n++] = *v;
	return 0;
}

static int stop_at_third(void *arg, const struct iv *v)
{
	(void)v;
	return ++*(int *)arg == 3 ? -42 : 0;
}

/*
 * Walks the set: disjoint, ordered, coalesced where asked, and equal to the
 * bitmap; ivset__walk() visits the same extents in the same order as
 * ivset__next(), and stops at its callback's first non-zero.
 */
static void check(const struct ivset *set, const bool *bit, bool coalesce)
{
	uint64_t pos = 0, prev_end = 0, bytes = 0;
	size_t n = 0;
	bool have_prev = false;
	struct iv v;
	bool seen[UNITS] = { false };
	static struct walked w;
	int calls = 0;

	w.n = 0;
	cr_assert_eq(ivset__walk(set, collect, &w), 0);
	cr_assert_eq(ivset__walk(set, stop_at_third, &calls), ivset__count(set) >= 3 ? -42 : 0);
	cr_assert_eq(calls, ivset__count(set) >= 3 ? 3 : (int)ivset__count(set));
	while (ivset__next(set, pos, &v)) {
		cr_assert_lt(n, w.n, "walk ended early");
		cr_assert(!memcmp(&w.v[n], &v, sizeof(v)), "walk and next differ at extent %zu", n);
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
	cr_assert_eq(w.n, n);
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

/* Coalescing: memory follows the disjoint extents, never the number of adds. */
Test(ivset, coalescing_holds_extents_not_adds)
{
	struct ivset *set = ivset__new(true);

	cr_assert_not_null(set);
	for (uint64_t i = 0; i < 200000; i++)
		cr_assert_eq(ivset__add(set, (i % 1000) * 8192, 8192, 0, 0), 0);
	cr_assert_eq(ivset__count(set), 1);
	cr_assert_eq(ivset__bytes(set), 1000 * 8192);
	ivset__destroy(set);
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

/* ---- rbsim: red-black invariants under random inserts and erases ---- */
#include "replay/policies/rbsim.h"

static int rb_check(struct rbsim *s, uint32_t n, uint32_t parent, uint64_t lo, uint64_t hi, size_t *count)
{
	const struct rbnode *e;
	int lh, rh;

	if (!n)
		return 1;
	e = rbsim__node(s, n);
	(*count)++;
	cr_assert_eq(e->parent, parent, "node %u: parent %u, expected %u", n, e->parent, parent);
	cr_assert(e->start >= lo && e->start < hi, "node %u out of order", n);
	if (e->red && parent)
		cr_assert(!rbsim__node(s, parent)->red, "red node %u under a red parent", n);
	lh = rb_check(s, e->left, n, lo, e->start, count);
	rh = rb_check(s, e->right, n, e->start + 1, hi, count);
	cr_assert_eq(lh, rh, "black heights differ under node %u", n);
	return lh + !e->red;
}

Test(rbsim, random_inserts_and_erases_keep_invariants)
{
	struct rbsim *s = rbsim__new();
	uint32_t root = 0, keys[4096];
	size_t nkeys = 0, count;
	unsigned r = 5;

	cr_assert_not_null(s);
	for (int i = 0; i < 20000; i++) {
		if (nkeys < 3000 && (nkeys == 0 || rnd(&r) % 3)) {
			uint64_t key = rnd(&r) % 1000000;
			uint32_t n = root, parent = 0, node;
			bool left = false, dup = false;

			while (n) {
				const struct rbnode *e = rbsim__node(s, n);

				parent = n;
				if (key == e->start) {
					dup = true;
					break;
				}
				left = key < e->start;
				n = left ? e->left : e->right;
			}
			if (dup)
				continue;
			cr_assert_neq(node = rbsim__alloc(s), 0);
			rbsim__node(s, node)->start = key;
			rbsim__insert(s, &root, parent, left, node);
			keys[nkeys++] = node;
		} else {
			size_t k = rnd(&r) % nkeys;

			rbsim__erase(s, &root, keys[k]);
			keys[k] = keys[--nkeys];
		}
		if (i % 500 == 0) {
			count = 0;
			cr_assert(!root || !rbsim__node(s, root)->red, "red root");
			rb_check(s, root, 0, 0, UINT64_MAX, &count);
			cr_assert_eq(count, nkeys);
		}
	}
	count = 0;
	for (uint32_t n = rbsim__first(s, root), prev = 0; n; prev = n, n = rbsim__next(s, n)) {
		if (prev)
			cr_assert_lt(rbsim__node(s, prev)->start, rbsim__node(s, n)->start);
		cr_assert_eq(rbsim__prev(s, n), prev);
		count++;
	}
	cr_assert_eq(count, nkeys);
	rbsim__destroy(s);
	rbsim__destroy(NULL);
}

/* lib/rbtree.c shape for ascending inserts 1..7: root 2 (left 1), 4 red on its right over 3 and 6, 6 over red 5 and 7. */
Test(rbsim, ascending_inserts_shape)
{
	struct rbsim *s = rbsim__new();
	uint32_t root = 0, id[8] = { 0 };

	for (uint64_t k = 1; k <= 7; k++) {
		uint32_t n = root, parent = 0, node = rbsim__alloc(s);

		while (n) {
			parent = n;
			n = rbsim__node(s, n)->right;
		}
		rbsim__node(s, node)->start = k;
		rbsim__insert(s, &root, parent, false, node);
		id[k] = node;
	}
	cr_assert_eq(rbsim__node(s, root)->start, 2);
	cr_assert_eq(rbsim__node(s, rbsim__node(s, root)->right)->start, 4);
	cr_assert_eq(rbsim__node(s, id[4])->right, id[6]);
	cr_assert(rbsim__node(s, id[7])->red);
	rbsim__destroy(s);
}
