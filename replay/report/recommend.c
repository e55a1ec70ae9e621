// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim recommend: the search (recommend.h, RECOMMEND.md).
 *
 * Each (trace, profile) starts from a coarse grid of every family that applies
 * (each knob's kernel default and the ends of its ladder), replays it as the
 * cells of one report (the same report, matrix runner and verdict compare
 * uses), keeps the Pareto front, then replays the ladder neighbours of every
 * front member until no new setting comes up or the budget is spent. A cell
 * is deterministic in (trace bytes, policy, profile, seed), so cells are
 * cached by a hash of those (in memory, and in --cache DIR when given).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traces/opts.h"
#include "traces/output.h"
#include "traces/trace.h"
#include "traces/util.h"
#include "replay/report/cellid.h"
#include "replay/report/plan.h"
#include "replay/report/rec_int.h"

#define DMAX { "dmax", { "dev", "256M", "16M", "1M", "128K" }, 0, 0x1fu }

static const struct rec_family families[] = {
	{ "none", NULL, "none", false, { { 0 } } },
	{ "as-recorded", NULL, "as-recorded", false, { DMAX } },
	/* fs.xfs.xfssyncd_centisecs paces the CIL checkpoints (xfs_log_worker), default 3000 */
	{ "xfs", "xfs", "xfs", false,
	  { { "commit", { "5s", "15s", "30s", "60s", "120s" }, 2, 1u << 0 | 1u << 2 | 1u << 4 }, DMAX } },
	/* mount -o commit=N: jbd2's commit interval, after which ext4 discards the transaction's frees */
	{ "ext4", "ext4", "ext4", false,
	  { { "commit", { "1s", "5s", "15s", "30s", "60s" }, 1, 1u << 0 | 1u << 1 | 1u << 4 }, DMAX } },
	/* /sys/fs/btrfs/UUID/discard/{iops_limit,kbps_limit,max_discard_size} (fs/btrfs/sysfs.c) */
	{ "btrfs", "btrfs", "btrfs-async", false,
	  { { "iops_limit", { "10", "100", "1000", "10000", "0" }, 2, 1u << 1 | 1u << 2 | 1u << 4 },
	    { "kbps_limit", { "1024", "10240", "102400", "0" }, 3, 1u << 3 },
	    { "max_discard_size", { "4M", "16M", "64M", "256M", "1G" }, 2, 1u << 2 }, DMAX } },
	/* /sys/fs/f2fs/DEV/discard_granularity (blocks) and min_discard_issue_time (ms) */
	{ "f2fs", "f2fs", "f2fs", false,
	  { { "granularity", { "1", "4", "16", "64", "512" }, 2, 1u << 0 | 1u << 2 | 1u << 4 },
	    { "min_interval", { "10ms", "50ms", "200ms", "1s" }, 1, 1u << 1 }, DMAX } },
	/* sysctl vfs.ffs.dotrimcons */
	{ "ufs", "ufs", NULL, false, { { NULL, { "ufs", "ufs-trimcons" }, 0, 3u }, DMAX } },
	/* fstrim.timer OnCalendar=, fstrim --minimum */
	{ "fstrim", NULL, "fstrim", true,
	  { { "interval", { "1h", "1d", "1w" }, 2, 7u },
	    { "minlen", { "4K", "16K", "64K", "256K", "1M" }, 0, 1u << 0 | 1u << 2 | 1u << 4 } } },
};

const struct rec_family *rec_families(size_t *n)
{
	*n = sizeof(families) / sizeof(families[0]);
	return families;
}

unsigned rec_nvals(const struct rec_knob *k)
{
	unsigned n = 0;

	while (n < REC_VALS && k->vals[n])
		n++;
	return n;
}

static unsigned nknobs(const struct rec_family *f)
{
	unsigned n = 0;

	while (n < REC_KNOBS && (f->knobs[n].key || f->knobs[n].vals[0]))
		n++;
	return n;
}

void rec_cand_spec(const struct rec_cand *c, char *buf, size_t len)
{
	const struct rec_family *f = &families[c->fam];
	unsigned nk = nknobs(f), opts = 0;
	const char *dmax = NULL;
	size_t at;

	at = (size_t)snprintf(buf, len, "%s", f->preset ? f->preset : "");
	for (unsigned k = 0; k < nk; k++) {
		const struct rec_knob *kb = &f->knobs[k];
		const char *v = kb->vals[c->idx[k]];

		if (!kb->key)
			at = (size_t)snprintf(buf, len, "%s", v);
		else if (!strcmp(kb->key, "dmax"))
			dmax = c->idx[k] != kb->def ? v : NULL;
		else
			at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s=%s", opts++ ? "," : "(",
					       kb->key, v);
	}
	if (opts)
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, ")");
	if (dmax)
		snprintf(buf + at, at < len ? len - at : 0, "|split(max=%s)", dmax);
}

bool rec_dominates(const struct rec_obj *a, const struct rec_obj *b)
{
	const double x[] = { a->trim_ns, a->added_ns, a->reclaim, a->wp99, a->rp99, a->wa };
	const double y[] = { b->trim_ns, b->added_ns, b->reclaim, b->wp99, b->rp99, b->wa };
	bool better = false;

	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++) {
		if (x[i] > y[i])
			return false;
		better |= x[i] < y[i];
	}
	return better;
}

/* ---- the cache: cells by their id (cellid.h) ---- */

/* The trace's digest, once per path. */
static int trace_hash(struct rec_run *rr, const char *path, uint64_t *h, char *err, size_t errlen)
{
	int e;

	for (size_t i = 0; i < rr->ntraces; i++)
		if (!strcmp(rr->traces[i].path, path)) {
			*h = rr->traces[i].hash;
			return 0;
		}
	if ((e = cell_trace_digest(path, h, err, errlen)))
		return e;
	if (rr->ntraces < REC_MAX_TRACES) {
		snprintf(rr->traces[rr->ntraces].path, sizeof(rr->traces[0].path), "%s", path);
		rr->traces[rr->ntraces++].hash = *h;
	}
	return 0;
}

static uint64_t cell_key(uint64_t trace, const char *policy, uint64_t profile, uint64_t seed)
{
	return cell_id(&(struct cell_ident){ .trace = trace, .policy = policy, .profile = profile, .seed = seed });
}

static struct rec_cached *cache_find(struct rec_run *rr, uint64_t key, const char *policy, const char *profile)
{
	for (size_t i = 0; i < rr->ncache; i++) {
		struct rec_cached *e = &rr->cache[i];

		if (e->key == key && !strcmp(e->cell.policy, policy) && !strcmp(e->cell.profile, profile))
			return e;
	}
	return NULL;
}

static int cache_add(struct rec_run *rr, uint64_t key, const struct report_cell *c)
{
	if (grow_array((void **)&rr->cache, &rr->cache_cap, rr->ncache + 1, sizeof(*rr->cache)))
		return -ENOMEM;
	rr->cache[rr->ncache].key = key;
	memcpy(&rr->cache[rr->ncache++].cell, c, sizeof(*c));
	return 0;
}

/* A cell from --cache DIR (cell_result_load()); a file that is not this cell's is not there. */
static bool disk_load(struct rec_run *rr, uint64_t key, const char *policy, struct report_cell *c)
{
	char path[4200], err[256];

	if (!rr->o.cache_dir)
		return false;
	cell_result_path(rr->o.cache_dir, key, path, sizeof(path));
	return !cell_result_load(path, key, c, err, sizeof(err)) && !strcmp(c->policy, policy);
}

/* Best effort: a cache that cannot be written costs a replay next time, nothing else. */
static void disk_store(struct rec_run *rr, uint64_t key, const struct report_cell *c)
{
	char err[256];

	if (rr->o.cache_dir)
		cell_result_store(rr->o.cache_dir, key, c, err, sizeof(err));
}

/* ---- one round: replay the settings not yet known ---- */

static bool is_filled(void *arg, size_t i)
{
	return ((const bool *)arg)[i];
}

static int run_round(struct rec_run *rr, struct rec_result *res, uint64_t th, uint64_t ph, char *err,
		     size_t errlen)
{
	char **specs = calloc(res->n ? res->n : 1, sizeof(*specs));
	bool *filled = calloc(res->n ? res->n : 1, sizeof(*filled));
	char *trace = res->trace, *profile = res->profile;
	struct matrix_opts mo = rr->o.m;
	struct report *r = NULL;
	int e = -ENOMEM;

	if (!specs || !filled)
		goto out;
	for (size_t i = 0; i < res->n; i++) {
		char s[REC_SPEC];

		rec_cand_spec(&res->cands[i], s, sizeof(s));
		if (!(specs[i] = strdup(s)))
			goto out;
	}
	if (!(r = report__new(&trace, 1, specs, res->n, &profile, 1, 1, rr->o.m.seed)))
		goto out;
	for (size_t i = 0; i < res->n; i++) {
		struct report_cell *c = report__cell(r, i), keep = *c;
		uint64_t key = cell_key(th, specs[i], ph, rr->o.m.seed);
		struct rec_cached *hit = cache_find(rr, key, specs[i], profile);

		if (hit || disk_load(rr, key, specs[i], c)) {
			if (hit)
				memcpy(c, &hit->cell, sizeof(*c));
			else if ((e = cache_add(rr, key, c)))
				goto out;
			/* the identity is this report's */
			memcpy(c->trace, keep.trace, sizeof(c->trace));
			memcpy(c->profile, keep.profile, sizeof(c->profile));
			c->index = keep.index;
			filled[i] = true;
		}
	}
	mo.filled = is_filled;
	mo.arg = filled;
	if ((e = report_run_matrix(r, &mo))) {
		ts_errf(err, errlen, e, "%s", e == -EINTR ? "interrupted" : strerror(-e));
		goto out;
	}
	for (size_t i = 0; i < res->n; i++) {
		const struct report_cell *c = report__cell_c(r, i);
		uint64_t key = cell_key(th, specs[i], ph, rr->o.m.seed);

		if (filled[i])
			continue;
		res->ran++;
		if ((e = cache_add(rr, key, c)))
			goto out;
		if (!c->status)	/* a failure (a signal, no memory) is not the cell's answer */
			disk_store(rr, key, c);
	}
	if ((e = report__finish(r)))
		goto out;
	report__destroy(res->r);
	res->r = r;
	r = NULL;
	e = 0;
out:
	if (e == -ENOMEM && !err[0])
		ts_errf(err, errlen, e, "out of memory");
	report__destroy(r);
	for (size_t i = 0; specs && i < res->n; i++)
		free(specs[i]);
	free(specs);
	free(filled);
	return e;
}

/* ---- the settings to try ---- */

static bool applies(const struct rec_family *f, const char *fs)
{
	if (!fs[0] || !strcmp(fs, "any"))
		return true;
	if (!f->fs)	/* FreeBSD's UFS has no FITRIM timer */
		return !f->periodic || strcmp(fs, "ufs");
	return !strcmp(f->fs, fs);
}

static bool has(const struct rec_result *res, const struct rec_cand *c)
{
	for (size_t i = 0; i < res->n; i++)
		if (res->cands[i].fam == c->fam && !memcmp(res->cands[i].idx, c->idx, sizeof(c->idx)))
			return true;
	return false;
}

/* 1 added, 0 already there, -ENOMEM. */
static int add(struct rec_result *res, const struct rec_cand *c)
{
	if (has(res, c))
		return 0;
	if (grow_array((void **)&res->cands, &res->cap, res->n + 1, sizeof(*res->cands)))
		return -ENOMEM;
	res->cands[res->n++] = *c;
	return 1;
}

/* Every combination of a family's knob values (all of them, or the coarse ones). */
static int cartesian(struct rec_result *res, uint16_t fam, bool coarse)
{
	const struct rec_family *f = &families[fam];
	unsigned nk = nknobs(f);
	struct rec_cand c = { .fam = fam };
	int e;

	for (;;) {
		bool ok = true;
		unsigned k;

		for (k = 0; k < nk; k++)
			ok &= !coarse || (f->knobs[k].coarse >> c.idx[k] & 1);
		if (ok && (e = add(res, &c)) < 0)
			return e;
		for (k = 0; k < nk; k++) {	/* the next combination: an odometer */
			if (++c.idx[k] < rec_nvals(&f->knobs[k]))
				break;
			c.idx[k] = 0;
		}
		if (k == nk)
			return 0;
	}
}

/* First round: each family that applies, at the kernel's defaults. */
static int seed_defaults(struct rec_result *res)
{
	int e;

	for (uint16_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		struct rec_cand c = { .fam = i };

		for (unsigned k = 0; k < nknobs(&families[i]); k++)
			c.idx[k] = (uint8_t)families[i].knobs[k].def;
		if (applies(&families[i], res->fs) && (e = add(res, &c)) < 0)
			return e;
	}
	return 0;
}

/*
 * Then the coarse grid (or the whole grid) of every family whose default setting
 * applied: a family the trace cannot feed (its source layer has no record, e.g. FREE
 * on a blktrace import) does not apply with any knob value, and is not replayed again.
 */
static int seed_settings(struct rec_result *res, bool grid)
{
	size_t n0 = res->n;
	int e;

	for (size_t i = 0; i < n0; i++)
		if (!report__cell_c(res->r, i)->na[0] && (e = cartesian(res, res->cands[i].fam, !grid)))
			return e;
	return 0;
}

/*
 * The ladder neighbours of every front member; how many were new (budget permitting), or -ENOMEM.
 * An inert commit knob (rec_evaluate()) is not moved: its values replay alike.
 */
static int refine(struct rec_result *res, unsigned budget)
{
	size_t n0 = res->n;
	int added = 0, e;

	for (size_t i = 0; i < n0; i++) {
		const struct rec_family *f = &families[res->cands[i].fam];

		if (!res->front[i])
			continue;
		for (unsigned k = 0; k < nknobs(f); k++)
			for (int d = -1; d <= 1 && !(res->inert >> res->cands[i].fam & 1 &&
						      (int)k == rec_knob_index(f, "commit")); d += 2) {
				struct rec_cand c = res->cands[i];
				int v = c.idx[k] + d;

				if (v < 0 || v >= (int)rec_nvals(&f->knobs[k]) || res->n >= budget)
					continue;
				c.idx[k] = (uint8_t)v;
				if ((e = add(res, &c)) < 0)
					return e;
				added += e;
			}
	}
	return added;
}

/*
 * Whether the filesystem itself discarded online while the trace was recorded: an INTENT
 * on the replayed device that FITRIM did not ask for (xfs_discard_extent, ext4_discard_blocks
 * from ext4_issue_discard). Reads up to the first one; a trace that does not read through
 * to its end says no more than what it read.
 */
static bool recorded_online(struct trace_reader *r, const struct ts_device *d)
{
	const struct ts_record *recs;
	ssize_t n;

	while (d && (n = trace_reader__batch(r, &recs, 4096)) > 0)
		for (ssize_t i = 0; i < n; i++)
			if (recs[i].kind == TS_INTENT && !(recs[i].flags & TS_F_FITRIM) && recs[i].dev == d->dev)
				return true;
	return false;
}

/*
 * The replayed device of the trace: its filesystem, name and mount point (for the settings);
 * with scan, whether it was recorded with online discard (for the rule, not for a plan).
 */
static int describe_trace(struct rec_result *res, const char *fs, bool scan, char *err, size_t errlen)
{
	struct trace_reader *r = trace_reader__open(res->trace, err, errlen);
	const struct ts_device *d;

	if (!r)
		return errno ? -errno : -EINVAL;
	d = trace_reader__replay_device(r);
	snprintf(res->fs, sizeof(res->fs), "%s", fs ? fs : d ? d->fs : "");
	snprintf(res->trace_fs, sizeof(res->trace_fs), "%s", d ? d->fs : "");
	snprintf(res->dev, sizeof(res->dev), "%s", d && d->name[0] && !strchr(d->name, ':') ? d->name : "DEV");
	snprintf(res->mount, sizeof(res->mount), "%s", d && d->mount[0] ? d->mount : "MOUNTPOINT");
	/* the filesystem the trace was recorded on, whatever --fs tries (the twin rule, rec_pick.c) */
	if (scan && d && recorded_online(r, d))
		snprintf(res->online_fs, sizeof(res->online_fs), "%s", d->fs);
	trace_reader__close(r);
	return 0;
}

/* An earlier search of res's trace read it through for describe_trace(): its answer is res's (1 trace, N profiles). */
static bool scanned_before(const struct rec_run *rr, struct rec_result *res)
{
	for (size_t i = 0; i + 1 < rr->nres; i++)
		if (!strcmp(rr->res[i].trace, res->trace)) {
			memcpy(res->online_fs, rr->res[i].online_fs, sizeof(res->online_fs));
			return true;
		}
	return false;
}

int rec_run__search(struct rec_run *rr, const char *trace, const char *profile, char *err, size_t errlen)
{
	struct rec_result *res, *nr = realloc(rr->res, (rr->nres + 1) * sizeof(*nr));
	uint64_t th, ph;
	int e;

	if (!nr)
		return ts_errf(err, errlen, -ENOMEM, "out of memory");
	rr->res = nr;
	res = &rr->res[rr->nres++];
	*res = (struct rec_result){ .pick = SIZE_MAX, .next = SIZE_MAX, .recorded = SIZE_MAX };
	snprintf(res->trace, sizeof(res->trace), "%s", trace);
	snprintf(res->profile, sizeof(res->profile), "%s", profile);
	err[0] = 0;
	if ((e = describe_trace(res, rr->o.fs, !scanned_before(rr, res), err, errlen)) ||
	    (e = trace_hash(rr, trace, &th, err, errlen)) || (e = cell_profile_digest(profile, &ph, err, errlen)))
		return e;
	if ((e = seed_defaults(res)))
		return ts_errf(err, errlen, e, "out of memory");
	for (;;) {
		res->rounds++;
		if ((e = run_round(rr, res, th, ph, err, errlen)))
			return e;
		rec_evaluate(res);
		if (res->rounds == 1)
			e = seed_settings(res, rr->o.grid);
		else if (rr->o.grid || res->pick == SIZE_MAX)
			break;
		else
			e = refine(res, rr->o.budget);
		if (e < 0)
			return ts_errf(err, errlen, e, "out of memory");
		if (!e && res->rounds > 1)
			break;
	}
	return 0;
}

int rec_plan(const struct rec_opts *o, const char *trace, const char *profile, struct plan *p, char *err,
	     size_t errlen)
{
	struct rec_result res = { .r = NULL };
	char spec[REC_SPEC];
	size_t n0;
	int e;

	snprintf(res.trace, sizeof(res.trace), "%s", trace);
	if ((e = describe_trace(&res, o->fs, false, err, errlen)))
		return e;
	if ((e = seed_defaults(&res)))
		goto out;
	n0 = res.n;
	/* every family that applies to the filesystem, not only those the trace feeds: that takes a replay */
	for (size_t i = 0; i < n0; i++)
		if ((e = cartesian(&res, res.cands[i].fam, !o->grid)))
			goto out;
	for (size_t i = 0; i < res.n && !e; i++) {
		rec_cand_spec(&res.cands[i], spec, sizeof(spec));
		e = plan__add(p, trace, spec, profile, err, errlen);
	}
out:
	if (e == -ENOMEM && !err[0])
		ts_errf(err, errlen, e, "out of memory");
	free(res.cands);
	return e;
}

struct rec_run *rec_run__new(const struct rec_opts *o)
{
	struct rec_run *rr = calloc(1, sizeof(*rr));

	if (rr)
		rr->o = *o;
	return rr;
}

const char *rec_run__last_cut(const struct rec_run *rr)
{
	return rr->nres && rr->res[rr->nres - 1].r ? report__trace_cut(rr->res[rr->nres - 1].r, 0) : NULL;
}

void rec_run__destroy(struct rec_run *rr)
{
	if (!rr)
		return;
	for (size_t i = 0; i < rr->nres; i++) {
		report__destroy(rr->res[i].r);
		free(rr->res[i].cands);
		free(rr->res[i].obj);
		free(rr->res[i].front);
		free(rr->res[i].weigh);
	}
	free(rr->res);
	free(rr->cache);
	free(rr);
}
