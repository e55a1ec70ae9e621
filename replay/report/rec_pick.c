// SPDX-License-Identifier: GPL-2.0
/*
 * recommend: the objectives of each setting, the Pareto front and the choice
 * (RECOMMEND.md, "The rule"). The verdict on the group is the report's own
 * (report_judge(), verdict.c): it decides which objective leads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "traces/opts.h"
#include "replay/report/rec_int.h"

int rec_knob_index(const struct rec_family *f, const char *key)
{
	for (unsigned k = 0; k < REC_KNOBS; k++)
		if (f->knobs[k].key && !strcmp(f->knobs[k].key, key))
			return (int)k;
	return -1;
}

const char *rec_knob_value(const struct rec_cand *c, const char *key)
{
	size_t nf;
	const struct rec_family *f = &rec_families(&nf)[c->fam];
	int k = rec_knob_index(f, key);

	return k < 0 ? NULL : f->knobs[k].vals[c->idx[k]];
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
	o->rp99 = isnan(c->read_p99_inflation) ? 1.0 : c->read_p99_inflation;
	o->wa = c->have & CH_WA ? c->write_amp : 0;
	o->reclaim_known = c->reclaim_freed > 0;
	/*
	 * nothing ever tells the device: nodiscard, or a setting that sent no discard that
	 * completed (as-recorded on a trace recorded with nodiscard), whose integral up to the
	 * trace's end would otherwise read as a finite delay that beats fstrim's
	 */
	if (c->none || (o->reclaim_known && c->cmds == c->errors))
		o->reclaim = INFINITY;
	else if (!o->reclaim_known)
		o->reclaim = 0;		/* unknown alike for every setting: it decides nothing */
	else
		o->reclaim = c->reclaim_byte_s + (f->periodic ? (double)c->reclaim_freed * fstrim_wait_s(cand) : 0);
}

/*
 * The sort key of the rule: a tie on one objective falls through to the next; the last
 * keys are the leading objectives' exact figures, so of two settings the rule calls equal
 * the one with the better figures is taken, not the one replayed first.
 */
#define NKEY 10
struct key {
	double k[NKEY];
};

static int key_cmp(const struct key *a, const struct key *b)
{
	for (size_t i = 0; i < NKEY; i++)
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

static bool is_none(const struct rec_result *res, size_t i)
{
	return report__cell_c(res->r, i)->none;
}

static bool replayed_clean(const struct report_cell *c)
{
	return report_cell_ok(c) && !c->errors;
}

/*
 * A setting of the trace's own filesystem that applies as what the trace was recorded with
 * (its online discard on, every other knob at the kernel's default or an inert commit knob)
 * is the as-recorded setting with the same discard_max_bytes: the same commands on the same
 * system. Its emulation (the trace's frees through the preset) is a second, less direct
 * replay of that setting, so the recorded commands stand for it, unless as-recorded did not
 * replay cleanly. (Without this the rule told an admin to apply `mount -o discard` to a trace
 * recorded with it, and counted what the emulation differs by as a saving.)
 */
static bool recorded_twin(const struct rec_result *res, size_t i)
{
	size_t nf;
	const struct rec_family *fams = rec_families(&nf), *f = &fams[res->cands[i].fam];
	const char *dmax = rec_knob_value(&res->cands[i], "dmax");

	if (!res->online_fs[0] || !f->fs || f->periodic || strcmp(f->fs, res->online_fs) || !dmax)
		return false;
	for (unsigned k = 0; k < REC_KNOBS; k++) {
		const struct rec_knob *kb = &f->knobs[k];
		bool inert = kb->key && !strcmp(kb->key, "commit") && (res->inert >> res->cands[i].fam & 1);

		if ((kb->key || kb->vals[0]) && (!kb->key || strcmp(kb->key, "dmax")) &&
		    res->cands[i].idx[k] != kb->def && !inert)
			return false;
	}
	for (size_t j = 0; j < res->n; j++) {
		const char *jd = rec_knob_value(&res->cands[j], "dmax");

		if (!strcmp(fams[res->cands[j].fam].name, "as-recorded") && jd && !strcmp(jd, dmax) &&
		    replayed_clean(report__cell_c(res->r, j)))
			return true;
	}
	return false;
}

/*
 * A setting the rule can weigh: it replayed, none of its discards failed (a discard that
 * failed fast costs no TRIM time and trims nothing: no cheap setting; verdict.c ranks them
 * alike), and it is not a second replay of the recorded setting (recorded_twin()).
 * Once per setting, in rec_evaluate(): res->weigh.
 */
static bool weighable(const struct rec_result *res, size_t i)
{
	return replayed_clean(report__cell_c(res->r, i)) && !recorded_twin(res, i);
}

static bool eligible(const struct rec_result *res, size_t i, bool front_only)
{
	return res->weigh[i] && (!front_only || res->front[i]);
}

/* Within 10% of the least: a tie. */
static double near(double v, double least)
{
	return v <= least * 1.1 ? 0 : v;
}

/*
 * The rule (RECOMMEND.md):
 *  - discard matters: the least time added to the workload, where anything within
 *    REC_TIE_NS or REPORT_MATTERS_SHARE of the wall time of nodiscard's zero is a tie;
 *    among the tied, a setting that trims before nodiscard, then the least device time
 *    in TRIM (within 10%), then the least reclaim delay;
 *  - the trace cannot tell: the least device time in TRIM (within 10%), then reclaim;
 *  - discard does not matter: the least reclaim delay (within 10%), then TRIM time.
 * Then the fewest knobs changed from the kernel's defaults, write amplification, p99
 * write inflation, p99 read inflation, and last the leading objectives' exact figures.
 */
static struct key key_of(const struct rec_result *res, size_t i, double tol, double trim_min, double rec_min)
{
	const struct rec_obj *o = &res->obj[i];
	double ch = changes(&res->cands[i]);

	switch (res->why) {
	case RW_MATTERS:
		if (o->added_ns > tol)
			return (struct key){ { o->added_ns } };
		return (struct key){ { 0, is_none(res, i), near(o->trim_ns, trim_min), near(o->reclaim, rec_min), ch,
				       o->wa, o->wp99, o->rp99, o->trim_ns, o->reclaim } };
	case RW_UNTOLD:
		return (struct key){ { near(o->trim_ns, trim_min), near(o->reclaim, rec_min), ch, o->wa, o->wp99,
				       o->rp99, o->added_ns, o->trim_ns, o->reclaim } };
	default:
		return (struct key){ { near(o->reclaim, rec_min), near(o->trim_ns, trim_min), ch, o->wa, o->wp99,
				       o->rp99, o->added_ns, o->reclaim, o->trim_ns } };
	}
}

/* Time added within this of nodiscard's zero is a tie: REC_TIE_NS or REPORT_MATTERS_SHARE of the wall time. */
static double tie_ns(const struct rec_result *res)
{
	const struct report_cell *c0 = report__cell_c(res->r, 0);
	double wall = (double)(c0->wall_ns ? c0->wall_ns : c0->makespan_ns);

	return fmax((double)REC_TIE_NS, REPORT_MATTERS_SHARE * wall);
}

/* The best setting by the rule, skipping `skip` and settings with its objectives; SIZE_MAX if none. */
static size_t best(const struct rec_result *res, size_t skip, bool front_only)
{
	double tol = tie_ns(res), trim_min = INFINITY, rec_min = INFINITY;
	size_t b = SIZE_MAX;
	struct key kb = { { 0 } };

	/* the least TRIM time and reclaim delay among the settings that trim (and, if it matters, tie on time) */
	for (size_t i = 0; i < res->n; i++) {
		const struct rec_obj *o = &res->obj[i];

		if (!eligible(res, i, front_only) || is_none(res, i) || (res->why == RW_MATTERS && o->added_ns > tol))
			continue;
		trim_min = fmin(trim_min, o->trim_ns);
		rec_min = fmin(rec_min, o->reclaim);
	}
	for (size_t i = 0; i < res->n; i++) {
		struct key k;

		if (!eligible(res, i, front_only) ||
		    (skip != SIZE_MAX && (i == skip || !memcmp(&res->obj[i], &res->obj[skip], sizeof(res->obj[i])))))
			continue;
		k = key_of(res, i, tol, trim_min, rec_min);
		if (b == SIZE_MAX || key_cmp(&k, &kb) < 0) {
			b = i;
			kb = k;
		}
	}
	return b;
}

/* Settings i and j are one family and differ in knob k only. */
static bool differ_in_only(const struct rec_cand *a, const struct rec_cand *b, int k)
{
	if (a->fam != b->fam || a->idx[k] == b->idx[k])
		return false;
	for (int x = 0; x < REC_KNOBS; x++)
		if (x != k && a->idx[x] != b->idx[x])
			return false;
	return true;
}

/*
 * A family's commit knob is inert when every two replayed settings that differ in it
 * alone have the same figures (and two such settings exist): the xfs and ext4 stages
 * time their discards by the trace's journal/log commit records and use commit= only
 * until the first one (replay/policies/xfs.c, ext4.c), so on a recorded trace the knob
 * usually changes nothing, and the replay cannot say which value to set.
 */
static void find_inert(struct rec_result *res)
{
	size_t nf;
	const struct rec_family *fams = rec_families(&nf);

	res->inert = 0;
	for (size_t f = 0; f < nf && f < 32; f++) {
		int k = rec_knob_index(&fams[f], "commit");
		bool pair = false, same = true;

		for (size_t i = 0; k >= 0 && i < res->n && same; i++)
			for (size_t j = i + 1; j < res->n && same; j++) {
				if (res->cands[i].fam != f || !differ_in_only(&res->cands[i], &res->cands[j], k) ||
				    !report_cell_ok(report__cell_c(res->r, i)) ||
				    !report_cell_ok(report__cell_c(res->r, j)))
					continue;
				pair = true;
				same = !memcmp(&res->obj[i], &res->obj[j], sizeof(res->obj[i]));
			}
		if (k >= 0 && pair && same)
			res->inert |= 1u << f;
	}
}

/*
 * a beats b by more than the rule calls a tie on some objective: time added by more than
 * tol, TRIM time or reclaim delay by more than 10% (near()), any other by any amount.
 */
static bool beats_beyond_tie(const struct rec_obj *a, const struct rec_obj *b, double tol)
{
	return b->added_ns - a->added_ns > tol || b->trim_ns > a->trim_ns * 1.1 || b->reclaim > a->reclaim * 1.1 ||
	       b->wp99 > a->wp99 || b->rp99 > a->rp99 || b->wa > a->wa;
}

/* Of two settings with the same figures, the front shows this one: fewer knobs changed, then the earlier. */
static bool shown_before(const struct rec_result *res, size_t j, size_t i)
{
	double cj = changes(&res->cands[j]), ci = changes(&res->cands[i]);

	return cj < ci || (cj == ci && j < i);
}

void rec_evaluate(struct rec_result *res)
{
	free(res->obj);
	free(res->front);
	free(res->weigh);
	res->obj = calloc(res->n ? res->n : 1, sizeof(*res->obj));
	res->front = calloc(res->n ? res->n : 1, sizeof(*res->front));
	res->weigh = calloc(res->n ? res->n : 1, sizeof(*res->weigh));
	res->pick = res->next = res->recorded = SIZE_MAX;
	res->fstrim_na = false;
	res->fs_na[0] = '\0';
	if (!res->obj || !res->front || !res->weigh)
		return;
	for (size_t i = 0; i < res->n; i++) {
		const struct report_cell *c = report__cell_c(res->r, i);
		size_t nf;
		const struct rec_family *f = &rec_families(&nf)[res->cands[i].fam];

		objectives(c, &res->cands[i], &res->obj[i]);
		res->fstrim_na |= f->periodic && c->na[0];
		if (!f->periodic && f->fs && !strcmp(f->fs, res->trace_fs) && c->na[0] && !res->fs_na[0])
			snprintf(res->fs_na, sizeof(res->fs_na), "`%s` (%s's own online discard) was not tried (%s)", f->preset,
				 f->fs, c->na);
		if (!strcmp(c->policy, "as-recorded") && report_cell_ok(c))
			res->recorded = i;
	}
	double tol = res->n ? tie_ns(res) : 0;	/* cell 0 holds the wall time */

	find_inert(res);	/* before weighing: an inert knob decides which settings are the recorded one */
	for (size_t i = 0; i < res->n; i++)
		res->weigh[i] = weighable(res, i);
	for (size_t i = 0; i < res->n; i++) {
		bool in = res->weigh[i];

		for (size_t j = 0; j < res->n && in; j++) {
			if (j == i || !res->weigh[j])
				continue;
			/*
			 * dominated by more than a tie (one dominated only within the rule's ties stays: the
			 * rule may prefer it for its fewer knobs changed), or the same figures as another
			 * setting shown first: one of each on the front, the one the rule's last tie-break
			 * would pick, so the front names what the recommendation and its next best name
			 */
			in = !(rec_dominates(&res->obj[j], &res->obj[i]) &&
			       beats_beyond_tie(&res->obj[j], &res->obj[i], tol)) &&
			     !(shown_before(res, j, i) && !memcmp(&res->obj[j], &res->obj[i], sizeof(res->obj[i])));
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
	else if (res->j.matters == RM_UNWEIGHED)
		res->why = RW_UNWEIGHED;	/* no recommendation: nothing says whether discard matters */
	else
		res->why = RW_NOT;
	if (res->why == RW_UNWEIGHED)
		return;
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
