// SPDX-License-Identifier: GPL-2.0
/* Log-linear histogram (hist.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "replay/engine/hist.h"

void hist_init(struct hist *h)
{
	*h = (struct hist){ .min = UINT64_MAX };
}

void hist_free(struct hist *h)
{
	if (!h)
		return;
	free(h->b);
	hist_init(h);
}

void hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi)
{
	unsigned shift;

	if (idx < (2u << HIST_SUB_BITS)) {
		*lo = *hi = idx;
		return;
	}
	shift = (idx >> HIST_SUB_BITS) - 1;
	*lo = (uint64_t)(idx - (shift << HIST_SUB_BITS)) << shift;
	*hi = *lo + ((1ull << shift) - 1);
}

int hist_alloc(struct hist *h)
{
	if (!h->b && !(h->b = calloc(HIST_BUCKETS, sizeof(*h->b))))
		return -ENOMEM;
	return 0;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return 0;
	rank = (uint64_t)ceil(q * (double)h->n);
	rank = rank < 1 ? 1 : rank > h->n ? h->n : rank;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t lo, hi, mid;

		if (!h->b[i] || (seen += h->b[i]) < rank)
			continue;
		hist_bucket_range(i, &lo, &hi);
		mid = lo + (hi - lo) / 2;
		return mid < h->min ? h->min : mid > h->max ? h->max : mid;
	}
	return h->max;
}

/* "min" + "_" + unit: "min_ns", "p99_bytes". */
static void set_fig(json_t *o, const char *name, const char *unit, uint64_t v)
{
	char key[32];

	snprintf(key, sizeof(key), "%s_%s", name, unit);
	json_object_set_new(o, key, json_integer((json_int_t)v));
}

json_t *hist_json(const struct hist *h, const char *unit)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "count", json_integer((json_int_t)h->n));
	set_fig(o, "min", unit, h->n ? h->min : 0);
	set_fig(o, "max", unit, h->max);
	set_fig(o, "mean", unit, (uint64_t)llround(hist_mean(h)));
	set_fig(o, "sum", unit, h->sum);
	set_fig(o, "p50", unit, hist_quantile(h, 0.50));
	set_fig(o, "p99", unit, hist_quantile(h, 0.99));
	set_fig(o, "p999", unit, hist_quantile(h, 0.999));
	return o;
}
