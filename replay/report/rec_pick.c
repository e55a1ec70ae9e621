// SPDX-License-Identifier: GPL-2.0
/*
 * recommend: the objectives of each setting, the Pareto front and the choice
 * (RECOMMEND.md, "The rule"). The verdict on the group is the report's own
 * (report_judge(), verdict.c): it decides which objective leads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../traces/opts.h"
#include "rec_int.h"

const char *rec_knob_value(const struct rec_cand *c, const char *key)
{
	size_t nf;
	const struct rec_family *f = &rec_families(&nf)[c->fam];

	for (unsigned k = 0; k < REC_KNOBS; k++)
		if (f->knobs[k].key && !strcmp(f->knobs[k].key, key))
			return f->knobs[k].vals[c->idx[k]];
	return NULL;
}

/*
 * A periodic fstrim leaves each freed byte untrimmed until the next pass: on
 * average half an interval, which a trace shorter than the interval cannot show
 * (its replay trims at the end of the trace). That wait is added to the replay's.
 */
static double fstrim_wait_s(const struct rec_cand *c)
{
	const char *iv = rec_knob_value(c, "interval");
	uint64_t ns;

	return iv && !parse_duration(iv, &ns) ? (double)ns / 2e9 : 0;
}

static void objectives(const struct report_cell *c, const struct rec_cand *cand, struct rec_obj *o)
{
	size_t nf;
	const struct rec_family *f = &rec_families(&nf)[cand->fam];

	o->trim_ns = (double)c->discard_ns;
	o->added_ns = (double)c->added_ns;
	o->wp99 = isnan(c->write_p99_inflation) ? 1.0 : c->write_p99_inflation;
	o->wa = c->have & CH_WA ? c->write_amp : 0;
	o->reclaim_known = c->reclaim_freed > 0;
	if (c->none)
		o->reclaim = INFINITY;	/* nothing ever tells the device */
	else if (!o->reclaim_known)
		o->reclaim = 0;		/* unknown alike for every setting: it decides nothing */
	else
		o->reclaim = c->reclaim_byte_s + (f->periodic ? (double)c->reclaim_freed * fstrim_wait_s(cand) : 0);
}

/* The sort key of the rule: a tie on the leading objective falls through to the next. */
struct key {
	double k[6];
};

static int key_cmp(const struct key *a, const struct key *b)
{
	for (size_t i = 0; i < 6; i++)
		if (a->k[i] != b->k[i])
			return a->k[i] < b->k[i] ? -1 : 1;
	return 0;
}

/* Knobs away from the kernel's default: the last tie-break prefers what the admin need not change. */
static double changes(const struct rec_cand *c)
{
	size_t nf;
	const struct rec_family *f = &rec_families(&nf)[c->fam];
	unsigned n = 0;

	for (unsigned k = 0; k < REC_KNOBS; k++)
		n += (f->knobs[k].key || f->knobs[k].vals[0]) && c->idx[k] != f->knobs[k].def;
	return n;
}

static struct key key_of(const struct rec_result *res, size_t i, double lead_min, double tol)
{
	const struct rec_obj *o = &res->obj[i];
	double ch = changes(&res->cands[i]);

	switch (res->why) {
	case RW_MATTERS:	/* within the tie: as good on time */
		return (struct key){ { o->added_ns <= lead_min + tol ? 0 : o->added_ns, o->reclaim, o->trim_ns,
				       o->wa, o->wp99, ch } };
	case RW_UNTOLD:
		return (struct key){ { o->trim_ns <= lead_min * 1.1 ? 0 : o->trim_ns, o->reclaim, o->wa, o->wp99,
				       o->added_ns, ch } };
	default:
		return (struct key){ { o->reclaim <= lead_min * 1.1 ? 0 : o->reclaim, o->trim_ns, o->wa, o->wp99,
				       o->added_ns, ch } };
	}
}

static double lead(const struct rec_result *res, const struct rec_obj *o)
{
	return res->why == RW_MATTERS ? o->added_ns : res->why == RW_UNTOLD ? o->trim_ns : o->reclaim;
}

static bool is_none(const struct rec_result *res, size_t i)
{
	return report__cell_c(res->r, i)->none;
}

/* The best setting by the rule, skipping `skip` and settings with its objectives; SIZE_MAX if none. */
static size_t best(const struct rec_result *res, size_t skip, bool front_only)
{
	double lead_min = INFINITY, tol = 0;
	size_t b = SIZE_MAX;
	struct key kb = { { 0 } };

	for (size_t i = 0; i < res->n; i++)
		if (report_cell_ok(report__cell_c(res->r, i)) && (!front_only || res->front[i]) && !is_none(res, i) &&
		    lead(res, &res->obj[i]) < lead_min)
			lead_min = lead(res, &res->obj[i]);
	if (res->why == RW_MATTERS) {
		const struct report_cell *c = report__cell_c(res->r, 0);
		double wall = (double)(c->wall_ns ? c->wall_ns : c->makespan_ns);

		lead_min = 0;	/* nodiscard adds nothing: the floor */
		tol = fmax((double)REC_TIE_NS, REPORT_MATTERS_SHARE * wall);
	}
	for (size_t i = 0; i < res->n; i++) {
		struct key k;

		if (!report_cell_ok(report__cell_c(res->r, i)) || (front_only && !res->front[i]) ||
		    (skip != SIZE_MAX && (i == skip || !memcmp(&res->obj[i], &res->obj[skip], sizeof(res->obj[i])))))
			continue;
		k = key_of(res, i, lead_min, tol);
		if (b == SIZE_MAX || key_cmp(&k, &kb) < 0) {
			b = i;
			kb = k;
		}
	}
	return b;
}

void rec_evaluate(struct rec_result *res)
{
	free(res->obj);
	free(res->front);
	res->obj = calloc(res->n ? res->n : 1, sizeof(*res->obj));
	res->front = calloc(res->n ? res->n : 1, sizeof(*res->front));
	res->pick = res->next = res->recorded = SIZE_MAX;
	res->fstrim_na = false;
	if (!res->obj || !res->front)
		return;
	for (size_t i = 0; i < res->n; i++) {
		const struct report_cell *c = report__cell_c(res->r, i);
		size_t nf;
		const struct rec_family *f = &rec_families(&nf)[res->cands[i].fam];

		objectives(c, &res->cands[i], &res->obj[i]);
		res->fstrim_na |= f->periodic && c->na[0];
		if (!strcmp(c->policy, "as-recorded") && report_cell_ok(c))
			res->recorded = i;
	}
	for (size_t i = 0; i < res->n; i++) {
		bool in = report_cell_ok(report__cell_c(res->r, i));

		for (size_t j = 0; j < res->n && in; j++) {
			if (j == i || !report_cell_ok(report__cell_c(res->r, j)))
				continue;
			/* dominated, or the same figures as an earlier member: one of each on the front */
			in = !rec_dominates(&res->obj[j], &res->obj[i]) &&
			     !(j < i && res->front[j] && !memcmp(&res->obj[j], &res->obj[i], sizeof(res->obj[i])));
		}
		res->front[i] = in;
	}
	report_judge(res->r, 0, 0, &res->j);
	if (res->j.all_rejected)
		res->why = RW_REJECTED;
	else if (res->j.matters == RM_MATTERS)
		res->why = RW_MATTERS;
	else if (res->j.matters == RM_UNTOLD)
		res->why = RW_UNTOLD;
	else
		res->why = RW_NOT;
	if (res->why == RW_REJECTED) {
		for (size_t i = 0; i < res->n; i++)
			if (is_none(res, i))
				res->pick = i;
		return;
	}
	res->pick = best(res, SIZE_MAX, true);
	if (res->pick == SIZE_MAX)
		res->why = RW_NOTHING;
	else
		res->next = best(res, res->pick, false);
}
