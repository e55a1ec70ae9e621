// SPDX-License-Identifier: GPL-2.0
/* Redundancy analysis of one trace (see redundancy.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "traces/figure.h"
#include "traces/opts.h"
#include "traces/util.h"
#include "replay/report/ranges.h"
#include "replay/report/redundancy.h"

static const char *const layer_names[RL_MAX] = { "FREE", "INTENT", "BIO", "ISSUE" };

struct redund_dev {
	uint32_t dev;
	uint64_t records[RL_MAX];
	struct ranges *set[RL_MAX];
};

struct redund {
	struct redund_dev *d;
	size_t n, cap, hit;
};

struct redund *redund__new(void)
{
	return calloc(1, sizeof(struct redund));
}

static bool is_discard(unsigned op)
{
	return op == TS_OP_DISCARD || op == TS_OP_SECURE_ERASE;
}

/* Which layer a record counts in, or -1. */
static int layer_of(const struct ts_record *rec)
{
	switch (rec->kind) {
	case TS_FREE: return RL_FREE;
	case TS_INTENT: return RL_INTENT;
	case TS_BIO: return is_discard(rec->op) ? RL_BIO : -1;
	case TS_ISSUE: return is_discard(rec->op) ? RL_ISSUE : -1;
	default: return -1;
	}
}

static struct redund_dev *dev_slot(struct redund *r, uint32_t dev)
{
	if (r->n && r->d[r->hit].dev == dev)
		return &r->d[r->hit];
	for (size_t i = 0; i < r->n; i++)
		if (r->d[i].dev == dev) {
			r->hit = i;
			return &r->d[i];
		}
	if (grow_array((void **)&r->d, &r->cap, r->n + 1, sizeof(*r->d)))
		return NULL;
	struct redund_dev *d = &r->d[r->n];

	*d = (struct redund_dev){ .dev = dev };
	for (int l = 0; l < RL_MAX; l++)
		if (!(d->set[l] = ranges__new())) {
			while (l--)
				ranges__destroy(d->set[l]);
			return NULL;
		}
	r->hit = r->n++;
	return d;
}

int redund__add(struct redund *r, const struct ts_record *rec)
{
	int l = layer_of(rec);
	struct redund_dev *d;

	if (l < 0)
		return 0;
	if (!(d = dev_slot(r, rec->dev)))
		return -ENOMEM;
	d->records[l]++;
	return ranges__add(d->set[l], rec->offset, rec->length);
}

size_t redund__ndevs(const struct redund *r) { return r->n; }
uint32_t redund__dev(const struct redund *r, size_t i) { return r->d[i].dev; }

void redund__figures(struct redund *r, size_t i, enum redund_layer l, struct redund_figures *out)
{
	struct redund_dev *d = &r->d[i];

	out->records = d->records[l];
	out->total = ranges__total(d->set[l]);
	out->unique = ranges__unique(d->set[l]);
	out->extents = ranges__extents(d->set[l]);
}

int redund__print(struct redund *r, FILE *f)
{
	char dev[32], t[32], u[32], o[32], q[32];

	fprintf(f, "redundancy (bytes named per layer vs distinct bytes):\n");
	if (!r->n)
		fprintf(f, "  no FREE, INTENT or discard records\n");
	for (size_t i = 0; i < r->n; i++) {
		fprintf(f, "  device %s\n    %-7s %10s %12s %12s %12s %10s\n", ts_dev_str(r->d[i].dev, dev, sizeof(dev)),
			"layer", "records", "total", "unique", "overlap", "redund");
		for (int l = 0; l < RL_MAX; l++) {
			struct redund_figures x;

			redund__figures(r, i, l, &x);
			if (!x.records)
				continue;
			fprintf(f, "    %-7s %10" PRIu64 " %12s %12s %12s %10s\n", layer_names[l], x.records,
				fmt_bytes(x.total, t, sizeof(t)), fmt_bytes(x.unique, u, sizeof(u)),
				fmt_bytes(x.total - x.unique, o, sizeof(o)),
				fig_format(FIG_RATIO, x.unique ? (double)x.total / (double)x.unique : NAN, q, sizeof(q)));
		}
	}
	return ferror(f) ? -EIO : 0;
}

json_t *redund__json(struct redund *r)
{
	json_t *devs = json_array();
	char dev[32];

	if (!devs)
		return NULL;
	for (size_t i = 0; i < r->n; i++) {
		json_t *layers = json_object();

		for (int l = 0; layers && l < RL_MAX; l++) {
			struct redund_figures x;

			redund__figures(r, i, l, &x);
			if (!x.records)
				continue;
			json_object_set_new(layers, layer_names[l], json_pack("{s:I,s:I,s:I,s:I,s:I,s:o}",
				"records", (json_int_t)x.records, "total_bytes", (json_int_t)x.total,
				"unique_bytes", (json_int_t)x.unique, "overlap_bytes", (json_int_t)(x.total - x.unique),
				"extents", (json_int_t)x.extents,
				"redundancy", x.unique ? json_real((double)x.total / (double)x.unique) : json_null()));
		}
		json_array_append_new(devs, json_pack("{s:s,s:o}", "dev", ts_dev_str(r->d[i].dev, dev, sizeof(dev)),
						      "layers", layers));
	}
	return json_pack("{s:o}", "devices", devs);
}

void redund__destroy(struct redund *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		for (int l = 0; l < RL_MAX; l++)
			ranges__destroy(r->d[i].set[l]);
	free(r->d);
	free(r);
}
