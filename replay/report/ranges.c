// SPDX-License-Identifier: GPL-2.0
/* Union of byte ranges (see ranges.h). */
#include <errno.h>
#include <stdlib.h>

#include "replay/report/ranges.h"

struct extent {
	uint64_t start, end;	/* [start, end) */
};

struct ranges {
	struct extent *v;
	size_t n, cap;
	size_t merged;		/* v[0..merged) is sorted and disjoint */
	uint64_t total;
};

struct ranges *ranges__new(void)
{
	struct ranges *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->cap = 4096;
	r->v = malloc(r->cap * sizeof(*r->v));
	if (!r->v) {
		free(r);
		return NULL;
	}
	return r;
}

static int cmp_extent(const void *a, const void *b)
{
	const struct extent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* Sort and merge overlapping or touching extents in place. */
static void compact(struct ranges *r)
{
	size_t w = 0;

	if (r->merged == r->n)
		return;
	qsort(r->v, r->n, sizeof(*r->v), cmp_extent);
	for (size_t i = 0; i < r->n; i++) {
		if (w && r->v[i].start <= r->v[w - 1].end) {
			if (r->v[i].end > r->v[w - 1].end)
				r->v[w - 1].end = r->v[i].end;
		} else {
			r->v[w++] = r->v[i];
		}
	}
	r->n = r->merged = w;
}

int ranges__add(struct ranges *r, uint64_t offset, uint64_t length)
{
	if (!length)
		return 0;
	if (r->n == r->cap) {
		compact(r);
		/* Still more than half full after merging: grow, so compaction stays amortized. */
		if (r->n > r->cap / 2) {
			struct extent *nv = realloc(r->v, 2 * r->cap * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			r->v = nv;
			r->cap *= 2;
		}
	}
	uint64_t end = offset + length < offset ? UINT64_MAX : offset + length;

	r->v[r->n++] = (struct extent){ offset, end };
	r->total += length;
	return 0;
}

uint64_t ranges__unique(struct ranges *r)
{
	uint64_t u = 0;

	compact(r);
	for (size_t i = 0; i < r->n; i++)
		u += r->v[i].end - r->v[i].start;
	return u;
}

uint64_t ranges__total(const struct ranges *r)
{
	return r->total;
}

size_t ranges__extents(struct ranges *r)
{
	compact(r);
	return r->n;
}

void ranges__destroy(struct ranges *r)
{
	if (!r)
		return;
	free(r->v);
	free(r);
}
