// SPDX-License-Identifier: GPL-2.0
/* The JSON report (schema: replay/report/REPORT-SCHEMA.md, version REPORT_SCHEMA_VERSION). */
#include <errno.h>
#include <math.h>

#include <jansson.h>

#include "replay/report/report_int.h"

static const char *kind_unit(enum col_kind k)
{
	switch (k) {
	case CK_COUNT: return "count";
	case CK_BYTES: return "bytes";
	case CK_NS:
	case CK_SNS: return "ns";
	case CK_RATIO: return "ratio";
	case CK_SHARE: return "fraction";
	case CK_RATE: return "per_second";
	case CK_BYTE_RATE: return "bytes_per_second";
	}
	return "?";
}

/* Integers for counts, bytes and ns; reals for ratios; null for unknown. */
static json_t *num(enum col_kind k, double v)
{
	if (isnan(v) || isinf(v))
		return json_null();
	if (k == CK_RATIO || k == CK_SHARE)
		return json_real(v);
	return json_integer((json_int_t)llround(v));
}

static json_t *u64_array(const uint64_t *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

/* Trailing empty buckets dropped. */
static size_t used(const uint64_t *v, size_t n)
{
	while (n && !v[n - 1])
		n--;
	return n;
}

static json_t *acc_json(const struct stat_acc *a, const double *v, size_t n)
{
	return json_pack("{s:I,s:f,s:f,s:f,s:f,s:f}", "n", (json_int_t)a->n, "min", a->min, "max", a->max,
			 "median", stat_median(v, n), "mean", stat_mean(a), "stddev", stat_stddev(a));
}

static json_t *runs_json(const struct cell_runs *runs)
{
	json_t *ms = json_array(), *ds = json_array();
	struct stat_acc a, b;

	stat_acc__init(&a);
	stat_acc__init(&b);
	for (uint32_t k = 0; ms && ds && k < runs->n; k++) {
		json_array_append_new(ms, json_real(runs->makespan_s[k]));
		json_array_append_new(ds, json_real(runs->discard_s[k]));
		stat_acc__add(&a, runs->makespan_s[k]);
		stat_acc__add(&b, runs->discard_s[k]);
	}
	return json_pack("{s:I,s:o,s:o,s:o,s:o}", "n", (json_int_t)runs->n, "makespan_s", ms, "discard_s", ds,
			 "makespan_s_stats", acc_json(&a, runs->makespan_s, runs->n),
			 "discard_s_stats", acc_json(&b, runs->discard_s, runs->n));
}

/* The engine's discard latency histogram: its non-empty buckets as [lo_ns, hi_ns, count]. */
static json_t *lat_json(const struct cell_lat *l)
{
	json_t *b = json_array();

	for (unsigned i = 0; b && i < HIST_BUCKETS; i++)
		if (l->buckets[i]) {
			uint64_t lo, hi;

			hist_bucket_range(i, &lo, &hi);
			json_array_append_new(b, json_pack("[I,I,I]", (json_int_t)lo, (json_int_t)hi,
							   (json_int_t)l->buckets[i]));
		}
	return json_pack("{s:I,s:I,s:I,s:I,s:o}", "count", (json_int_t)l->count, "sum_ns", (json_int_t)l->sum_ns,
			 "min_ns", (json_int_t)l->min_ns, "max_ns", (json_int_t)l->max_ns, "buckets", b);
}

static json_t *cell_json(const struct report_cell *c)
{
	size_t ncol;
	const struct report_col *cols = report_columns(&ncol);
	const struct cell_series *s = &c->series;
	json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "trace", c->trace, "policy", c->policy, "profile", c->profile,
			      "status", c->status ? "error" : c->na[0] ? "n/a" : "ok");
	json_t *m;

	if (!o)
		return NULL;
	if (c->status) {
		json_object_set_new(o, "error", json_string(c->error));
		return o;
	}
	json_object_set_new(o, "pipeline", json_string(c->pipeline));
	if (c->cut[0])
		json_object_set_new(o, "truncated", json_true());
	if (c->na[0]) {
		json_object_set_new(o, "not_applicable", json_string(c->na));
		return o;
	}
	json_object_set_new(o, "realtime", json_boolean(c->realtime));
	json_object_set_new(o, "baseline", json_boolean(c->none));
	json_object_set_new(o, "wait_basis", json_string(report_wait_basis_name(c->wait_basis)));
	m = json_object();
	for (size_t k = 0; m && k < ncol; k++)
		json_object_set_new(m, cols[k].key, num(cols[k].kind, cols[k].get(c)));
	json_object_set_new(o, "metrics", m);
	json_object_set_new(o, "latency_hist", lat_json(&c->lat));
	json_object_set_new(o, "size_hist", json_pack("{s:I,s:o}", "base_bytes", (json_int_t)SIZE_BASE,
		"counts", u64_array(c->size_hist, used(c->size_hist, SIZE_BUCKETS))));
	json_object_set_new(o, "series", json_pack("{s:I,s:I,s:o,s:o,s:o,s:o}",
		"bin_ns", (json_int_t)s->bin_ns, "nbins", (json_int_t)s->nbins,
		"discard_cmds", u64_array(s->cmds, s->nbins), "discard_bytes", u64_array(s->bytes, s->nbins),
		"discard_busy_ns", u64_array(s->busy_ns, s->nbins),
		"untrimmed_bytes", (c->have & CH_UNTRIMMED) ? u64_array(s->untrimmed, s->nbins) : json_null()));
	if (c->runs.n)
		json_object_set_new(o, "runs", runs_json(&c->runs));
	return o;
}

static json_t *cmp_json(const struct report *r, const struct report_cmp *x)
{
	const struct report_cell *a = &r->cells[x->ref], *c = &r->cells[x->cell];
	char s[512];

	report_cmp_sentence(r, x, s, sizeof(s));
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:f,s:b,s:b,s:f,s:f,s:f,s:f,s:f,s:f,s:o,s:o,s:s}",
		"trace", c->trace, "profile", c->profile, "metric", x->metric, "reference", a->policy,
		"policy", c->policy, "confidence", x->d.conf, "valid", x->d.valid, "differ", x->d.differ,
		"t", x->d.t, "pooled_sd_s", x->d.pooled_s, "diff_s", x->d.diff, "plusminus_s", x->d.plusminus,
		"pct", isnan(x->d.pct) ? 0.0 : x->d.pct, "pct_pm", isnan(x->d.pct_pm) ? 0.0 : x->d.pct_pm,
		"reference_stats_s", acc_json(&x->a_ref, report_cmp_samples(x, a), a->runs.n),
		"policy_stats_s", acc_json(&x->a_cell, report_cmp_samples(x, c), c->runs.n), "sentence", s);
}

static json_t *str_array(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

json_t *report__json(const struct report *r)
{
	size_t ncol, nv;
	const struct report_col *cols = report_columns(&ncol);
	const char *const *v = report__verdicts(r, &nv);
	json_t *o = json_object(), *a;

	if (!o)
		return NULL;
	json_object_set_new(o, "schema", json_string("trimsim-report"));
	json_object_set_new(o, "version", json_integer(REPORT_SCHEMA_VERSION));
	json_object_set_new(o, "generator", json_string("trimsim " TRIMSIM_VERSION));
	json_object_set_new(o, "params", json_pack("{s:o,s:o,s:o,s:I,s:I,s:f,s:f}",
		"traces", str_array(r->traces, r->nt), "policies", str_array(r->policies, r->np),
		"profiles", str_array(r->profiles, r->nm), "runs", (json_int_t)r->runs, "seed", (json_int_t)r->seed,
		"matters_share", REPORT_MATTERS_SHARE, "confidence", REPORT_CONF));
	a = json_array();
	for (size_t k = 0; a && k < ncol; k++)
		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:b,s:s}", "key", cols[k].key, "head", cols[k].head,
						   "unit", kind_unit(cols[k].kind), "table", cols[k].table,
						   "help", cols[k].help));
	json_object_set_new(o, "columns", a);
	a = json_array();
	for (size_t i = 0; a && i < r->ncells; i++)
		json_array_append_new(a, cell_json(&r->cells[i]));
	json_object_set_new(o, "cells", a);
	a = json_array();
	for (size_t i = 0; a && i < r->ncmps; i++)
		json_array_append_new(a, cmp_json(r, &r->cmps[i]));
	json_object_set_new(o, "comparisons", a);
	a = json_array();
	for (size_t i = 0; a && i < nv; i++)
		json_array_append_new(a, json_string(v[i]));
	json_object_set_new(o, "verdicts", a);
	return o;
}

int report__write_json(const struct report *r, FILE *f)
{
	json_t *o = report__json(r);
	int err = 0;

	if (!o)
		return -ENOMEM;
	if (json_dumpf(o, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) || fputc('\n', f) == EOF)
		err = -EIO;
	json_decref(o);
	return err;
}
