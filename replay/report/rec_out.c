// SPDX-License-Identifier: GPL-2.0
/*
 * recommend: what to apply (mount options, sysfs, sysctl, fstrim.timer) and the
 * renderers (text, JSON; schema in replay/report/RECOMMEND.md).
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/figure.h"
#include "traces/opts.h"
#include "replay/report/rec_int.h"

/* ---- the settings to apply ---- */

struct apply {
	json_t *o, *sysfs, *sysctl, *cmds;
	const struct rec_result *res;
	const struct rec_cand *c;
};

static void cmd(struct apply *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void cmd(struct apply *a, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		json_array_append_new(a->cmds, json_string(s));
		free(s);
	}
}

static void mount_opts(struct apply *a, const char *opts)
{
	json_object_set_new(a->o, "mount_options", json_string(opts));
	cmd(a, "mount -o remount,%s %s   # and in /etc/fstab", opts, a->res->mount);
}

static void sysfs(struct apply *a, const char *path, const char *value)
{
	json_object_set_new(a->sysfs, path, json_string(value));
	cmd(a, "echo %s > %s", value, path);
}

static void sysctl(struct apply *a, const char *key, const char *value)
{
	json_object_set_new(a->sysctl, key, json_string(value));
	cmd(a, "sysctl %s=%s", key, value);
}

static uint64_t bytes_of(const char *v)
{
	uint64_t b = 0;

	return v && !parse_bytes(v, &b) ? b : 0;
}

static uint64_t secs_of(const char *v)
{
	uint64_t ns = 0;

	return v && !parse_duration(v, &ns) ? ns / 1000000000ull : 0;
}

static void apply_none(struct apply *a)
{
	mount_opts(a, "nodiscard");
	if (a->res->fstrim_na)
		json_object_set_new(a->o, "note", json_string(
			"fstrim could not be replayed (the trace has no FREE records): enable fstrim.timer to give "
			"the freed space back; its cost is not in these figures"));
	if (a->res->fstrim_na)
		cmd(a, "systemctl enable --now fstrim.timer   # weekly; not replayed");
}

static void apply_recorded(struct apply *a)
{
	json_object_set_new(a->o, "note", json_string("keep the discard setting the trace was recorded with"));
}

/*
 * The commit knob changed no figure (rec_evaluate()): the replay cannot say which value to set, so
 * the setting leaves it alone and says why. 1 when inert.
 */
static int commit_inert(struct apply *a, const char *what)
{
	char note[320];
	size_t nf;
	const struct rec_family *f = &rec_families(&nf)[a->c->fam];
	const struct rec_knob *k = &f->knobs[rec_knob_index(f, "commit")];

	if (!(a->res->inert >> a->c->fam & 1))
		return 0;
	snprintf(note, sizeof(note), "%s is left as it is: every value replayed (%s to %s) gave the same figures, "
		 "since the trace's own commit records time the discards", what, k->vals[0],
		 k->vals[rec_nvals(k) - 1]);
	json_object_set_new(a->o, "note", json_string(note));
	return 1;
}

static void apply_xfs(struct apply *a)
{
	char v[32];

	mount_opts(a, "discard");
	if (commit_inert(a, "fs.xfs.xfssyncd_centisecs (the CIL checkpoint pacing)"))
		return;
	/* xfs_log_worker pushes the CIL every xfs_syncd_centisecs (fs/xfs/xfs_sysctl.c) */
	snprintf(v, sizeof(v), "%llu", (unsigned long long)secs_of(rec_knob_value(a->c, "commit")) * 100);
	sysctl(a, "fs.xfs.xfssyncd_centisecs", v);
}

static void apply_ext4(struct apply *a)
{
	char o[64];

	if (commit_inert(a, "the journal commit interval (mount option commit=)")) {
		mount_opts(a, "discard");
		return;
	}
	snprintf(o, sizeof(o), "discard,commit=%llu", (unsigned long long)secs_of(rec_knob_value(a->c, "commit")));
	mount_opts(a, o);
}

static void apply_btrfs(struct apply *a)
{
	static const char *const keys[] = { "iops_limit", "kbps_limit", "max_discard_size" };
	char p[128], v[32];

	mount_opts(a, "discard=async");
	for (size_t i = 0; i < 3; i++) {
		const char *x = rec_knob_value(a->c, keys[i]);

		snprintf(p, sizeof(p), "/sys/fs/btrfs/<UUID>/discard/%s", keys[i]);
		if (i == 2)
			snprintf(v, sizeof(v), "%llu", (unsigned long long)bytes_of(x));
		else
			snprintf(v, sizeof(v), "%s", x);
		sysfs(a, p, v);
	}
}

static void apply_f2fs(struct apply *a)
{
	char p[128], v[32];
	uint64_t ns = 0;

	mount_opts(a, "discard");
	snprintf(p, sizeof(p), "/sys/fs/f2fs/%s/discard_granularity", a->res->dev);
	sysfs(a, p, rec_knob_value(a->c, "granularity"));
	parse_duration(rec_knob_value(a->c, "min_interval"), &ns);
	snprintf(p, sizeof(p), "/sys/fs/f2fs/%s/min_discard_issue_time", a->res->dev);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)(ns / 1000000));
	sysfs(a, p, v);
}

static void apply_ufs(struct apply *a)
{
	size_t nf;
	const struct rec_family *f = &rec_families(&nf)[a->c->fam];

	cmd(a, "tunefs -t enable %s", a->res->dev);
	sysctl(a, "vfs.ffs.dotrimcons", strcmp(f->knobs[0].vals[a->c->idx[0]], "ufs") ? "1" : "0");
}

static void apply_fstrim(struct apply *a)
{
	static const struct { const char *iv, *cal; } cal[] = { { "1h", "hourly" }, { "1d", "daily" },
							       { "1w", "weekly" } };
	const char *iv = rec_knob_value(a->c, "interval"), *on = iv;
	uint64_t min = bytes_of(rec_knob_value(a->c, "minlen"));
	json_t *t = json_object();

	mount_opts(a, "nodiscard");
	for (size_t i = 0; i < sizeof(cal) / sizeof(cal[0]); i++)
		if (!strcmp(cal[i].iv, iv))
			on = cal[i].cal;
	json_object_set_new(t, "OnCalendar", json_string(on));
	json_object_set_new(t, "minimum_bytes", json_integer((json_int_t)min));
	json_object_set_new(a->o, "fstrim_timer", t);
	cmd(a, "systemctl edit fstrim.timer      # [Timer] OnCalendar= then OnCalendar=%s", on);
	cmd(a, "systemctl edit fstrim.service    # [Service] ExecStart= then ExecStart=/sbin/fstrim --minimum %llu %s",
	    (unsigned long long)min, a->res->mount);
	cmd(a, "systemctl enable --now fstrim.timer");
}

static const struct {
	const char *family;
	void (*fn)(struct apply *a);
} appliers[] = {
	{ "none", apply_none }, { "as-recorded", apply_recorded }, { "xfs", apply_xfs }, { "ext4", apply_ext4 },
	{ "btrfs", apply_btrfs }, { "f2fs", apply_f2fs }, { "ufs", apply_ufs }, { "fstrim", apply_fstrim },
};

static json_t *settings_json(const struct rec_result *res, const struct rec_cand *c)
{
	size_t nf;
	const struct rec_family *f = &rec_families(&nf)[c->fam];
	struct apply a = { .o = json_object(), .sysfs = json_object(), .sysctl = json_object(), .cmds = json_array(),
			   .res = res, .c = c };
	const char *dmax = rec_knob_value(c, "dmax");

	for (size_t i = 0; i < sizeof(appliers) / sizeof(appliers[0]); i++)
		if (!strcmp(appliers[i].family, f->name))
			appliers[i].fn(&a);
	/*
	 * The filesystem's own setting was not among those weighed (btrfs discard=async on a
	 * btrfs trace, which has no FREE records: replay/policies/PRESETS.md): say so, so that
	 * a pick among the rest does not read as the filesystem's best.
	 */
	if (res->fs_na[0]) {
		const char *had = json_string_value(json_object_get(a.o, "note"));
		char note[1024];

		snprintf(note, sizeof(note), "%s%s%s; its cost is not in these figures", had ? had : "", had ? "; " : "",
			 res->fs_na);
		json_object_set_new(a.o, "note", json_string(note));
	}
	if (dmax && strcmp(dmax, "dev")) {
		char p[96], v[32];

		snprintf(p, sizeof(p), "/sys/block/%s/queue/discard_max_bytes", res->dev);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)bytes_of(dmax));
		sysfs(&a, p, v);
	}
	json_object_set_new(a.o, "sysfs", a.sysfs);
	json_object_set_new(a.o, "sysctl", a.sysctl);
	json_object_set_new(a.o, "commands", a.cmds);
	return a.o;
}

/* ---- figures ---- */

/* The trace has no frees: the reclaim delay is unknown ("never" is known: none never tells the device). */
static bool reclaim_unknown(const struct rec_obj *o)
{
	return !o->reclaim_known && !isinf(o->reclaim);
}

static char *reclaim_str(const struct rec_obj *o, char *buf, size_t len)
{
	char b[32];

	if (isinf(o->reclaim))
		snprintf(buf, len, "never trimmed");
	else if (reclaim_unknown(o))
		snprintf(buf, len, "unknown");	/* the trace has no frees: rec_out's footnote and reason say so */
	else
		snprintf(buf, len, "%s-s", fmt_bytes(o->reclaim < 1.8e19 ? (uint64_t)o->reclaim : UINT64_MAX, b,
						      sizeof(b)));
	return buf;
}

static char *dur(double ns, char *buf, size_t len)
{
	return fmt_duration(ns > 0 ? (uint64_t)ns : 0, buf, len);
}

static json_t *obj_json(const struct rec_obj *o)
{
	json_t *j = json_object();

	json_object_set_new(j, "trim_ns", json_integer((json_int_t)o->trim_ns));
	json_object_set_new(j, "added_ns", json_integer((json_int_t)o->added_ns));
	json_object_set_new(j, "reclaim_byte_s", isinf(o->reclaim) || !o->reclaim_known ? json_null() :
						 json_real(o->reclaim));
	json_object_set_new(j, "reclaim", json_string(isinf(o->reclaim) ? "never" : o->reclaim_known ? "measured" :
						       "unknown"));
	json_object_set_new(j, "write_p99_inflation", json_real(o->wp99));
	json_object_set_new(j, "read_p99_inflation", json_real(o->rp99));
	json_object_set_new(j, "write_amp", o->wa > 0 ? json_real(o->wa) : json_null());
	return j;
}

static const char *why_name(enum rec_why w)
{
	static const char *const n[] = { [RW_REJECTED] = "rejected", [RW_MATTERS] = "matters",
					 [RW_NOT] = "does-not-matter", [RW_UNTOLD] = "cannot-tell",
					 [RW_NOTHING] = "nothing-replayed", [RW_UNWEIGHED] = "nothing-weighed" };

	return n[w];
}

static const char *spec(const struct rec_result *res, size_t i)
{
	return report__cell_c(res->r, i)->policy;
}

/* The reason in one sentence: which objective decided, what it costs, how far the next best is. */
static void reason(const struct rec_result *res, char *buf, size_t len)
{
	const struct rec_obj *p = &res->obj[res->pick], *n = res->next != SIZE_MAX ? &res->obj[res->next] : NULL;
	char a[32], b[32], c[64], d[64], e[32];
	size_t at = 0;

	switch (res->why) {
	case RW_REJECTED:
		snprintf(buf, len, "the device rejects discard (all %llu commands failed): no setting can trim it; "
			 "leave discard off", (unsigned long long)res->j.errors);
		return;
	case RW_MATTERS:
		if (report__cell_c(res->r, res->pick)->none) {
			snprintf(buf, len, "discard matters on this device: every setting that discards adds more than "
				 "%s or 1%% of the wall time to the workload (the least, `%s`, adds %s); nodiscard "
				 "adds nothing", dur((double)REC_TIE_NS, b, sizeof(b)), n ? spec(res, res->next) : "-",
				 dur(n ? n->added_ns : 0, a, sizeof(a)));
			return;
		}
		at = (size_t)snprintf(buf, len, "discard matters on this device; `%s` adds %s to the workload "
				      "(within %s or 1%% of the wall time of nodiscard's 0) and of those it spends the "
				      "least device time in TRIM (within 10%%): %s (reclaim delay %s)", spec(res, res->pick),
				      dur(p->added_ns, a, sizeof(a)), dur((double)REC_TIE_NS, b, sizeof(b)),
				      dur(p->trim_ns, e, sizeof(e)), reclaim_str(p, c, sizeof(c)));
		if (n)
			snprintf(buf + at, at < len ? len - at : 0, "; next best `%s` adds %s, %s in TRIM, reclaim %s",
				 spec(res, res->next), dur(n->added_ns, a, sizeof(a)), dur(n->trim_ns, e, sizeof(e)),
				 reclaim_str(n, d, sizeof(d)));
		return;
	case RW_UNTOLD:
		at = (size_t)snprintf(buf, len, "the trace cannot tell whether the workload waits for discard (no "
				      "foreground I/O, discards from a background worker); `%s` spends the least "
				      "device time in TRIM (within 10%%): %s (reclaim %s)", spec(res, res->pick),
				      dur(p->trim_ns, a, sizeof(a)), reclaim_str(p, c, sizeof(c)));
		if (n)
			snprintf(buf + at, at < len ? len - at : 0, "; next best `%s`: %s in TRIM",
				 spec(res, res->next), dur(n->trim_ns, b, sizeof(b)));
		return;
	case RW_NOT:
		if (reclaim_unknown(p)) {
			/* reclaim decides nothing (rec_pick.c): TRIM time did, and the sentence says so */
			at = (size_t)snprintf(buf, len, "discard does not matter for this workload on this device; "
					      "the trace has no frees, so how soon a setting tells the device about "
					      "freed space cannot be measured; `%s` spends the least device time in "
					      "TRIM (within 10%%): %s", spec(res, res->pick), dur(p->trim_ns, a, sizeof(a)));
			if (n)
				snprintf(buf + at, at < len ? len - at : 0, "; next best `%s`: %s in TRIM",
					 spec(res, res->next), dur(n->trim_ns, e, sizeof(e)));
			return;
		}
		at = (size_t)snprintf(buf, len, "discard does not matter for this workload on this device; `%s` "
				      "tells the device soonest about freed space (within 10%%: reclaim %s) for %s in TRIM",
				      spec(res, res->pick), reclaim_str(p, c, sizeof(c)), dur(p->trim_ns, a, sizeof(a)));
		if (n)
			snprintf(buf + at, at < len ? len - at : 0, "; next best `%s`: reclaim %s, %s in TRIM",
				 spec(res, res->next), reclaim_str(n, d, sizeof(d)), dur(n->trim_ns, e, sizeof(e)));
		return;
	case RW_NOTHING:
		snprintf(buf, len, "no setting replayed: every cell failed or does not apply to the trace");
		return;
	case RW_UNWEIGHED:
		snprintf(buf, len, "no setting that discards could be weighed: the trace holds no device command, "
			 "free or discard intent for one to act on (only nodiscard and fstrim's pass over the "
			 "free-space snapshot replayed)");
		return;
	}
}

/* The report's verdict on the group in one line (the sentences are in the JSON). */
static void judgement(const struct rec_result *res, char *buf, size_t len)
{
	const struct report_cell *w = res->j.worst;
	char a[32], b[32], c[64], e[32];

	switch (res->why) {
	case RW_REJECTED:
		snprintf(buf, len, "the device rejects it (%llu of %llu commands failed)",
			 (unsigned long long)res->j.errors, (unsigned long long)res->j.cmds);
		return;
	case RW_UNTOLD:
		snprintf(buf, len, "the trace cannot tell whether it matters (no foreground I/O; discards from a "
			 "background worker)");
		return;
	case RW_NOTHING:
		snprintf(buf, len, "nothing replayed");
		return;
	default:
		break;
	}
	if (!w) {
		snprintf(buf, len, "no setting that discards was weighed");
		return;
	}
	if (!w->added_ns && res->why != RW_MATTERS) {	/* a tie at 0 has no costliest setting */
		snprintf(buf, len, "does not matter: no setting adds time to the workload's %s",
			 dur((double)(w->wall_ns ? w->wall_ns : w->makespan_ns), b, sizeof(b)));
		return;
	}
	if (w->share >= 2)
		snprintf(c, sizeof(c), "%s the wall time", fig_format(FIG_RATIO, w->share, e, sizeof(e)));
	else
		snprintf(c, sizeof(c), "%s of the wall time", fig_format(FIG_SHARE, w->share, e, sizeof(e)));
	snprintf(buf, len, "%s: the costliest setting, `%s`, adds %s to the workload's %s (%s)",
		 res->why == RW_MATTERS ? "matters" : "does not matter (under 1% of the wall time)", w->policy,
		 dur((double)w->added_ns, a, sizeof(a)), dur((double)(w->wall_ns ? w->wall_ns : w->makespan_ns), b,
							       sizeof(b)), c);
}

/* Against what was recorded: the time the workload and the device save (negative: cost). */
static void versus_recorded(const struct rec_result *res, char *buf, size_t len)
{
	const struct rec_obj *p = &res->obj[res->pick], *r = &res->obj[res->recorded];
	double dw = r->added_ns - p->added_ns, dt = r->trim_ns - p->trim_ns;
	char a[32], b[32];

	snprintf(buf, len, "versus what was recorded (`as-recorded`): %s %s of the workload's time, %s %s of device "
		 "time in TRIM", dw >= 0 ? "saves" : "costs", dur(fabs(dw), a, sizeof(a)), dt >= 0 ? "saves" : "costs",
		 dur(fabs(dt), b, sizeof(b)));
}

static bool has_pick(const struct rec_result *res)
{
	return res->pick != SIZE_MAX && res->obj;
}

static json_t *result_json(const struct rec_result *res)
{
	json_t *o = json_object(), *front = json_array(), *v = json_array(), *rec = json_null();
	const char *const *vs;
	size_t nv;
	char buf[1024];

	vs = report__verdicts(res->r, &nv);
	for (size_t i = 0; i < nv; i++)
		json_array_append_new(v, json_string(vs[i]));
	for (size_t i = 0; res->obj && i < res->n; i++) {
		json_t *f;

		if (!res->front[i])
			continue;
		f = json_object();
		json_object_set_new(f, "policy", json_string(spec(res, i)));
		json_object_set_new(f, "objectives", obj_json(&res->obj[i]));
		json_array_append_new(front, f);
	}
	if (has_pick(res)) {
		rec = json_object();
		json_object_set_new(rec, "policy", json_string(spec(res, res->pick)));
		json_object_set_new(rec, "family", json_string(rec_families(&nv)[res->cands[res->pick].fam].name));
		json_object_set_new(rec, "settings", settings_json(res, &res->cands[res->pick]));
		json_object_set_new(rec, "objectives", obj_json(&res->obj[res->pick]));
		reason(res, buf, sizeof(buf));
		json_object_set_new(rec, "reason", json_string(buf));
		if (res->next != SIZE_MAX) {
			json_t *n = json_object();

			json_object_set_new(n, "policy", json_string(spec(res, res->next)));
			json_object_set_new(n, "objectives", obj_json(&res->obj[res->next]));
			json_object_set_new(rec, "next_best", n);
		}
		if (res->recorded != SIZE_MAX && res->recorded != res->pick && res->why != RW_REJECTED) {
			json_t *r = json_object();

			versus_recorded(res, buf, sizeof(buf));
			json_object_set_new(r, "sentence", json_string(buf));
			json_object_set_new(r, "added_saved_ns", json_integer((json_int_t)(res->obj[res->recorded].added_ns -
											 res->obj[res->pick].added_ns)));
			json_object_set_new(r, "trim_saved_ns", json_integer((json_int_t)(res->obj[res->recorded].trim_ns -
											res->obj[res->pick].trim_ns)));
			json_object_set_new(rec, "versus_recorded", r);
		}
	}
	json_object_set_new(o, "trace", json_string(res->trace));
	json_object_set_new(o, "profile", json_string(res->profile));
	json_object_set_new(o, "fs", json_string(res->fs));
	json_object_set_new(o, "discard", json_string(why_name(res->why)));
	json_object_set_new(o, "verdicts", v);
	json_object_set_new(o, "recommendation", rec);
	json_object_set_new(o, "front", front);
	json_object_set_new(o, "settings_tried", json_integer((json_int_t)res->n));
	json_object_set_new(o, "cells_replayed", json_integer((json_int_t)res->ran));
	json_object_set_new(o, "rounds", json_integer((json_int_t)res->rounds));
	return o;
}

int rec_run__write_json(const struct rec_run *rr, FILE *f)
{
	json_t *o = json_object(), *a = json_array();
	int e;

	if (!o || !a) {
		json_decref(o);
		json_decref(a);
		return -ENOMEM;
	}
	json_object_set_new(o, "schema", json_string(REC_SCHEMA));
	json_object_set_new(o, "seed", json_integer((json_int_t)rr->o.m.seed));
	json_object_set_new(o, "budget", json_integer((json_int_t)rr->o.budget));
	json_object_set_new(o, "search", json_string(rr->o.grid ? "grid" : "refine"));
	for (size_t i = 0; i < rr->nres; i++)
		json_array_append_new(a, result_json(&rr->res[i]));
	json_object_set_new(o, "recommendations", a);
	e = json_dumpf(o, f, JSON_INDENT(2) | JSON_SORT_KEYS) ? -EIO : 0;
	json_decref(o);
	if (!e && fputc('\n', f) == EOF)
		e = -EIO;
	return e;
}

/* The line under a front table whose reclaim column says "unknown"; NULL if none does. */
const char *rec_reclaim_note(const struct rec_result *res)
{
	for (size_t i = 0; i < res->n && res->obj; i++)
		if (res->front[i] && reclaim_unknown(&res->obj[i]))
			return "reclaim unknown: the trace has no FREE or INTENT records, so the delay between a free "
			       "and its discard cannot be measured";
	return NULL;
}

static void front_table(const struct rec_result *res, FILE *f)
{
	const char *note = rec_reclaim_note(res);
	int w = 7;
	char a[32], b[32], c[32], d[64], e[32], g[32];

	for (size_t i = 0; i < res->n; i++)
		if (res->front[i] && (int)strlen(spec(res, i)) > w)
			w = (int)strlen(spec(res, i));
	fprintf(f, "  front:\n    %-*s %10s %10s %22s %6s %6s %5s\n", w, "setting", "added", "in-trim", "reclaim",
		"wp99x", "rp99x", "WA");
	for (size_t i = 0; i < res->n; i++) {
		const struct rec_obj *o = &res->obj[i];

		if (!res->front[i])
			continue;
		fig_format(FIG_RATIO, o->wa > 0 ? o->wa : NAN, a, sizeof(a));
		fprintf(f, "    %-*s %10s %10s %22s %6s %6s %5s%s\n", w, spec(res, i), dur(o->added_ns, b, sizeof(b)),
			dur(o->trim_ns, c, sizeof(c)), reclaim_str(o, d, sizeof(d)),
			fig_format(FIG_RATIO, o->wp99, e, sizeof(e)), fig_format(FIG_RATIO, o->rp99, g, sizeof(g)), a,
			i == res->pick ? "  <- recommended" : "");
	}
	if (note)
		fprintf(f, "    %s\n", note);
}

int rec_run__write_text(const struct rec_run *rr, FILE *f)
{
	char buf[1024];

	for (size_t i = 0; i < rr->nres; i++) {
		const struct rec_result *res = &rr->res[i];

		fprintf(f, "%s== %s on %s (fs %s; %zu settings tried, %zu replayed, %u rounds)\n", i ? "\n" : "",
			res->trace, res->profile, res->fs[0] ? res->fs : "unknown", res->n, res->ran, res->rounds);
		judgement(res, buf, sizeof(buf));
		fprintf(f, "  discard: %s\n", buf);
		if (!has_pick(res)) {
			reason(res, buf, sizeof(buf));
			fprintf(f, "  no recommendation: %s\n", buf);
			continue;
		}
		json_t *s = settings_json(res, &res->cands[res->pick]);
		json_t *c, *note = json_object_get(s, "note");
		size_t k;

		fprintf(f, "  recommended: %s\n", spec(res, res->pick));
		json_array_foreach(json_object_get(s, "commands"), k, c)
			fprintf(f, "    %s\n", json_string_value(c));
		if (note)
			fprintf(f, "    (%s)\n", json_string_value(note));
		json_decref(s);
		reason(res, buf, sizeof(buf));
		fprintf(f, "  why: %s\n", buf);
		if (res->recorded != SIZE_MAX && res->recorded != res->pick && res->why != RW_REJECTED) {
			versus_recorded(res, buf, sizeof(buf));
			fprintf(f, "  %s\n", buf);
		}
		front_table(res, f);
	}
	return ferror(f) ? -EIO : 0;
}

/* ---- for the HTML writer (rec_html.c): the same sentences, settings and figures as text and JSON ---- */

bool rec_result_picked(const struct rec_result *res) { return has_pick(res); }
const char *rec_result_spec(const struct rec_result *res, size_t i) { return spec(res, i); }
void rec_result_reason(const struct rec_result *res, char *buf, size_t len) { reason(res, buf, len); }
void rec_result_judgement(const struct rec_result *res, char *buf, size_t len) { judgement(res, buf, len); }
void rec_result_versus(const struct rec_result *res, char *buf, size_t len) { versus_recorded(res, buf, len); }
json_t *rec_result_settings(const struct rec_result *res) { return settings_json(res, &res->cands[res->pick]); }
char *rec_obj_reclaim(const struct rec_obj *o, char *buf, size_t len) { return reclaim_str(o, buf, len); }
char *rec_ns(double ns, char *buf, size_t len) { return dur(ns, buf, len); }
