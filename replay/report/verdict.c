// SPDX-License-Identifier: GPL-2.0
/*
 * Verdict sentences, computed from the cells' numbers only (so they can be
 * checked against the JSON): per (trace, profile) who spends the most device
 * time in TRIM and by how much, what fstrim costs, which policy is cheapest,
 * and -- seed 002 -- whether discard matters at all for this workload.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/figure.h"
#include "traces/opts.h"
#include "traces/util.h"
#include "replay/report/report_int.h"

static int say(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int say(struct report *r, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (grow_array((void **)&r->verdicts, &r->verdicts_cap, r->nverdicts + 1, sizeof(*r->verdicts)))
		return -ENOMEM;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);

	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	r->verdicts[r->nverdicts++] = s;
	return 0;
}

static char *ratio_str(double x, char *buf, size_t len)
{
	return fig_format(FIG_RATIO, x, buf, len);
}

static char *pct_str(double share, char *buf, size_t len)
{
	return fig_format(FIG_SHARE, share, buf, len);
}

/* "12% of the 3.93 s wall time", or "83x the 3.93 s wall time" from 200% on (FIG_SHARE's multiple). */
static char *share_str(double share, const char *wall, char *buf, size_t len)
{
	char p[32];

	snprintf(buf, len, "%s%s the %s wall time", pct_str(share, p, sizeof(p)), fig_share_of(share), wall);
	return buf;
}

/* "on sata-sf2281" or "rm.tsim on sata-sf2281" when there are several traces. */
static void where(const struct report *r, size_t t, size_t m, char *buf, size_t len)
{
	if (r->nt > 1)
		snprintf(buf, len, "%s on %s", report_basename(r->traces[t]), r->profiles[m]);
	else
		snprintf(buf, len, "on %s", r->profiles[m]);
}

/*
 * Periodic batched discard (fstrim / FITRIM): its cost comes once per interval,
 * not with the workload, so it gets its own sentence and is left out of the
 * "does discard matter for this workload" comparison.
 */
bool report_is_fstrim(const struct report_cell *c)
{
	const char *p = c->policy;

	return (!strncmp(p, "fstrim", 6) && (p[6] == 0 || p[6] == '(')) || strstr(c->pipeline, "fitrim(");
}

/* interval=... from the policy as given, its first positional argument, or the expanded pipeline. */
static bool fstrim_interval(const struct report_cell *c, char *buf, size_t len)
{
	const char *policy = c->policy;
	const char *a = strstr(policy, "interval=");
	uint64_t ns;

	if (a)
		a += strlen("interval=");
	else if (!strncmp(policy, "fstrim(", 7) && !strchr(policy, '='))
		a = policy + 7;
	else if ((a = strstr(c->pipeline, "interval=")))
		a += strlen("interval=");
	if (!a)
		return false;
	size_t n = strcspn(a, ",)");

	if (n >= len)
		return false;
	memcpy(buf, a, n);
	buf[n] = 0;
	return parse_duration(buf, &ns) == 0;
}

static const char *interval_words(const char *iv)
{
	static const struct { const char *iv, *words; } names[] = {
		{ "1w", "once a week" }, { "1d", "once a day" }, { "1h", "once an hour" },
		{ "7d", "once a week" }, { "24h", "once a day" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(iv, names[i].iv))
			return names[i].words;
	return NULL;
}

/* A policy that failed the same way on every profile of a trace: said once, by trace_errors(). */
static bool fails_everywhere(const struct report *r, size_t t, size_t p)
{
	const struct report_cell *c0 = &r->cells[report__at(r, t, p, 0)];

	if (!c0->status || r->nm < 2)
		return false;
	for (size_t m = 1; m < r->nm; m++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		if (!c->status || strcmp(c->error, c0->error))
			return false;
	}
	return true;
}

static int trace_errors(struct report *r, size_t t)
{
	int err = 0;

	for (size_t p = 0; p < r->np && !err; p++)
		if (fails_everywhere(r, t, p))
			err = say(r, "%s%s`%s` failed on every profile: %s", r->nt > 1 ? report_basename(r->traces[t]) : "",
				  r->nt > 1 ? ": " : "", r->policies[p], r->cells[report__at(r, t, p, 0)].error);
	return err;
}

static int group_errors(struct report *r, size_t t, size_t m, const char *w)
{
	int err = 0;

	for (size_t p = 0; p < r->np && !err; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		if (c->status && !fails_everywhere(r, t, p))
			err = say(r, "%s, `%s` failed: %s", w, c->policy, c->error);
	}
	return err;
}

/*
 * A device that rejects discards (hdd-nodiscard): say it once, not as a zero cost. When only
 * some failed, name the policies: their TRIM time is not ranked (a discard that failed fast
 * is not a cheap one, report_trim_ranked()).
 */
static int rejected(struct report *r, const struct report_judgement *j, size_t t, size_t m, const char *w)
{
	char who[512] = "";
	size_t o = 0;

	if (!j->errors)
		return 0;
	if (j->all_rejected)
		return say(r, "%s, the device rejects every discard (all %llu commands of %zu policies failed): no "
			   "policy can trim it", w, (unsigned long long)j->errors, j->discarding);
	for (size_t p = 0; p < r->np && o < sizeof(who); p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		if (report_cell_ok(c) && c->errors)
			o += (size_t)snprintf(who + o, sizeof(who) - o, "%s`%s` %llu of %llu", o ? ", " : "",
					      c->policy, (unsigned long long)c->errors, (unsigned long long)c->cmds);
	}
	return say(r, "%s, %llu of %llu discard commands failed (%s): a policy whose discards failed is not "
		   "ranked by its TRIM time", w, (unsigned long long)j->errors, (unsigned long long)j->cmds, who);
}

/* A cell whose TRIM time ranks it: it discards, every discard completed, and it is no periodic fstrim. */
bool report_trim_ranked(const struct report_cell *c)
{
	return report_cell_ok(c) && c->cmds && !c->errors && !report_is_fstrim(c);
}

/* Policies of a group in TRIM-time order, most first (ties: matrix order). */
static size_t ranked(const struct report *r, size_t t, size_t m, const struct report_cell **out)
{
	size_t n = 0;

	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];
		size_t k = n++;

		if (!report_trim_ranked(c)) {
			n--;
			continue;
		}
		for (; k && out[k - 1]->discard_ns < c->discard_ns; k--)
			out[k] = out[k - 1];
		out[k] = c;
	}
	return n;
}

/* Applicable policies that could discard and issued nothing (not `none`, not fstrim). */
static void idle_list(const struct report *r, size_t t, size_t m, char *buf, size_t len)
{
	size_t o = 0, n = 0;

	buf[0] = 0;
	for (size_t p = 0; p < r->np && o < len; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		if (!report_cell_ok(c) || c->cmds || c->none || report_is_fstrim(c))
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s`%s`", n++ ? ", " : "; ", c->policy);
	}
	if (n && o < len)
		snprintf(buf + o, len - o, " issue%s no discard", n > 1 ? "" : "s");
}

/*
 * The ranking by device time in TRIM: the most expensive policy with its ratio
 * to the cheapest that discards (named, the "`xfs` spends 6 min 12 s in
 * TRIM, 52x `ext4`"), then every policy in between with its ratio to the same
 * cheapest one. Ratios are discard_time_ns over the cheapest's, as in the JSON.
 */
static int trim_time(struct report *r, size_t t, size_t m, const char *w)
{
	const struct report_cell **rk = calloc(r->np ? r->np : 1, sizeof(*rk));
	const struct report_cell *hi, *lo;
	char d1[32], d2[32], x[32], idle[512], mid[1024] = "";
	size_t n, o = 0;
	int err;

	if (!rk)
		return -ENOMEM;
	n = ranked(r, t, m, rk);
	idle_list(r, t, m, idle, sizeof(idle));
	if (!n) {
		err = idle[0] ? say(r, "%s, no policy discards%s", w, idle + 1) : 0;
		goto out;
	}
	hi = rk[0];
	lo = rk[n - 1];
	fmt_duration(hi->discard_ns, d1, sizeof(d1));
	if (lo == hi || !lo->discard_ns) {
		err = say(r, "%s, `%s` spends %s in TRIM (%llu commands)%s", w, hi->policy, d1,
			  (unsigned long long)hi->cmds, idle);
		goto out;
	}
	fmt_duration(lo->discard_ns, d2, sizeof(d2));
	if ((double)hi->discard_ns < 1.1 * (double)lo->discard_ns) {
		err = say(r, "%s, every policy that discards spends about the same time in TRIM: %s (`%s`, %llu "
			  "commands) to %s (`%s`, %llu commands)%s", w, d2, lo->policy, (unsigned long long)lo->cmds,
			  d1, hi->policy, (unsigned long long)hi->cmds, idle);
		goto out;
	}
	for (size_t i = 1; i + 1 < n && o < sizeof(mid); i++)
		o += (size_t)snprintf(mid + o, sizeof(mid) - o, "%s`%s` %s", i > 1 ? ", " : "; in between: ",
				      rk[i]->policy, ratio_str((double)rk[i]->discard_ns / (double)lo->discard_ns,
							       x, sizeof(x)));
	err = say(r, "%s, `%s` spends %s in TRIM (%llu commands), %s `%s` (%s, %llu commands), the cheapest%s%s", w,
		  hi->policy, d1, (unsigned long long)hi->cmds,
		  ratio_str((double)hi->discard_ns / (double)lo->discard_ns, x, sizeof(x)),
		  lo->policy, d2, (unsigned long long)lo->cmds, mid, idle);
out:
	free(rk);
	return err;
}

static int fstrim_cost(struct report *r, size_t t, size_t m, const char *w)
{
	int err = 0;

	for (size_t p = 0; p < r->np && !err; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];
		char d[32], iv[32];
		const char *words;

		if (!report_cell_ok(c) || !report_is_fstrim(c))
			continue;
		fmt_duration(c->discard_ns, d, sizeof(d));
		if (!fstrim_interval(c, iv, sizeof(iv)))
			err = say(r, "%s, `%s` costs %s of device time (%llu commands)", w, c->policy, d,
				  (unsigned long long)c->cmds);
		else if ((words = interval_words(iv)))
			err = say(r, "%s, `%s` costs %s (%llu commands) %s", w, c->policy, d,
				  (unsigned long long)c->cmds, words);
		else
			err = say(r, "%s, `%s` costs %s (%llu commands) every %s", w, c->policy, d,
				  (unsigned long long)c->cmds, iv);
	}
	return err;
}

/* A cell whose added time means something: it ran, had input, discards, and is not a periodic fstrim. */
bool report_weighed(const struct report_cell *c)
{
	return report_cell_ok(c) && !c->none && !isnan(c->share) && !report_is_fstrim(c);
}

/* A cell that discards on a trace that cannot show whether the workload waited for it. */
bool report_untold(const struct report_cell *c)
{
	return report_weighed(c) && c->cmds && c->wait_basis == CWB_UNKNOWN;
}

/* Why the added time is what it is, when it is the workload's own wait for the discards. */
static const char *wait_note(const struct report_cell *c)
{
	if (c->end_wait == CEW_FITRIM)
		return " (the trace's own fstrim waits in FITRIM until its discards complete, which go after every "
		       "discard sent before them: it ends when the last completes)";
	if (c->end_wait == CEW_OWN)
		return " (the recorded command waits for the discards it submitted itself, which go one at a time "
		       "after every discard sent before them: it ends when the last completes)";
	if (!c->discard_wait_ns || c->discard_wait_ns != c->added_ns)
		return "";
	if (c->fitrim_wait)
		return " (the trace's own fstrim waits in FITRIM until its discards complete)";
	if (c->own_wait)
		return " (the recorded command submitted its discards itself, one at a time, and waited for each)";
	if (c->wait_basis == CWB_QUEUE)
		return " (its discards waited for room in a full queue, and the workload with them)";
	if (c->waiter == CW_UNKNOWN && !c->serial_qd)
		return " (the trace has no foreground I/O and its discards went out one at a time, each after the "
		       "previous completed: the workload waited for each)";
	return " (the workload waits for each discard)";
}

/*
 * The trace cannot tell (DESIGN.md, the verdict): no foreground I/O, and discards a background
 * worker sent (or an unknown submitter that never waited for them). Say so, with the TRIM time
 * against the trace span, instead of calling discard harmless.
 */
static int untold_sentence(struct report *r, size_t t, size_t m, const char *w, const struct report_cell *known)
{
	const struct report_cell *u = NULL;
	char d[32], span[32], x[192] = "", s[96], k[320] = "";

	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		if (report_untold(c) && (!u || c->discard_ns > u->discard_ns))
			u = c;
	}
	fmt_duration(u->discard_ns, d, sizeof(d));
	fmt_duration(u->wall_ns, span, sizeof(span));
	if (u->wall_ns) {
		double q = (double)u->discard_ns / (double)u->wall_ns;

		if (q >= 2)
			snprintf(x, sizeof(x), ", %s the %s trace span", ratio_str(q, s, sizeof(s)), span);
		else
			snprintf(x, sizeof(x), ", %s of the %s trace span", pct_str(q, s, sizeof(s)), span);
	}
	if (known)
		snprintf(k, sizeof(k), "; the policies whose waits it shows add at most %s (`%s`)",
			 pct_str(known->share, s, sizeof(s)), known->policy);
	return say(r, "%s, the trace cannot tell whether discard matters: it has no foreground I/O, and `%s` %s; "
		   "`%s` spends %s in TRIM%s%s", w, u->policy,
		   u->waiter == CW_WORKER ? "discards from a background worker (the workload would feel it only "
					    "through the device)" :
		   u->rec_others ? "sends discards the trace says the filesystem's own workers submitted, not "
				   "the recorded command (no discard BIO of it flagged workload)" :
					    "sends discards nothing is known to wait for (no full queue, not one "
					    "at a time)",
		   u->policy, d, x, k);
}

void report_judge(const struct report *r, size_t t, size_t m, struct report_judgement *j)
{
	bool unknown = false;

	*j = (struct report_judgement){ 0 };
	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		if (report_cell_ok(c)) {
			j->cmds += c->cmds;
			j->errors += c->errors;
			j->discarding += c->cmds > 0;
		}
		unknown |= report_untold(c);
		if (!report_weighed(c) || c->wait_basis == CWB_UNKNOWN)
			continue;
		if (!j->worst || c->share > j->worst->share)
			j->worst = c;
		if (report_trim_ranked(c) && (!j->best || c->added_ns < j->best->added_ns ||
				(c->added_ns == j->best->added_ns && c->discard_ns < j->best->discard_ns)))
			j->best = c;
	}
	j->all_rejected = j->cmds && j->errors == j->cmds;
	if ((!j->worst || j->worst->share < REPORT_MATTERS_SHARE) && unknown)
		j->matters = RM_UNTOLD;
	else if (!j->worst)
		j->matters = RM_UNWEIGHED;
	else
		j->matters = j->worst->share < REPORT_MATTERS_SHARE ? RM_NOT : RM_MATTERS;
}

/* Seed 002: say plainly when no policy changes the workload's time; say when the trace cannot tell. */
static int matters(struct report *r, const struct report_judgement *j, size_t t, size_t m, const char *w)
{
	const struct report_cell *worst = j->worst, *best = j->best;
	char a[32], b[32], s1[96], s2[96], wall[32];

	if (j->matters == RM_UNTOLD)
		return untold_sentence(r, t, m, w, worst);
	if (j->matters == RM_UNWEIGHED)
		return 0;
	fmt_duration(worst->wall_ns ? worst->wall_ns : worst->makespan_ns, wall, sizeof(wall));
	/* nothing added by any policy: there is no worst to name */
	if (j->matters == RM_NOT && !worst->added_ns)
		return say(r, "%s, discard does not matter for this workload: no policy adds time to its %s wall time",
			   w, wall);
	if (j->matters == RM_NOT)
		return say(r, "%s, discard does not matter for this workload: no policy adds %s or more "
			   "to its %s wall time (worst `%s`: %s)", w,
			   pct_str(REPORT_MATTERS_SHARE, s1, sizeof(s1)), wall, worst->policy,
			   pct_str(worst->share, s2, sizeof(s2)));
	fmt_duration(worst->added_ns, a, sizeof(a));
	if (!best || best == worst)
		return say(r, "%s, discard matters: `%s` adds %s, %s%s", w, worst->policy, a,
			   share_str(worst->share, wall, s1, sizeof(s1)), wait_note(worst));
	fmt_duration(best->added_ns, b, sizeof(b));
	if (!best->added_ns)
		return say(r, "%s, discard matters: `%s` adds %s, %s%s; `%s` discards without adding anything", w,
			   worst->policy, a, share_str(worst->share, wall, s1, sizeof(s1)), wait_note(worst),
			   best->policy);
	return say(r, "%s, discard matters: `%s` adds %s, %s%s; the cheapest policy that discards, `%s`, "
		   "adds %s (%s)", w, worst->policy, a, share_str(worst->share, wall, s1, sizeof(s1)), wait_note(worst),
		   best->policy, b,
		   best->share >= 2.0 ? share_str(best->share, wall, s2, sizeof(s2)) : pct_str(best->share, s2, sizeof(s2)));
}

static int redundancy(struct report *r, size_t t, size_t m, const char *w)
{
	int err = 0;

	for (size_t p = 0; p < r->np && !err; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];
		char x[32], b[32];

		if (!report_cell_ok(c) || isnan(c->redundancy) || c->redundancy < 1.10)
			continue;
		err = say(r, "%s, `%s` discards %s the bytes it covers (%s discarded more than once)", w,
			  c->policy, ratio_str(c->redundancy, x, sizeof(x)),
			  fmt_bytes(c->bytes - c->unique_bytes, b, sizeof(b)));
	}
	return err;
}

/* Write amplification where the target models an FTL: without discard, and the best and worst policy. */
static int write_amp(struct report *r, size_t t, size_t m, const char *w)
{
	const struct report_cell *none = NULL, *best = NULL, *worst = NULL;

	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		if (!report_cell_ok(c) || !(c->have & CH_WA))
			continue;
		if (c->none) {
			none = c;
			continue;
		}
		if (!best || c->write_amp < best->write_amp)
			best = c;
		if (!worst || c->write_amp > worst->write_amp)
			worst = c;
	}
	if (!none && !best)
		return 0;
	if (!best)
		return say(r, "%s, write amplification is %.2f without discard", w, none->write_amp);
	if (!none && fabs(worst->write_amp - best->write_amp) < 0.005)
		return say(r, "%s, write amplification is %.2f with every policy", w, best->write_amp);
	if (!none)
		return say(r, "%s, write amplification is %.2f with `%s` and %.2f with `%s`", w, best->write_amp,
			   best->policy, worst->write_amp, worst->policy);
	if (fabs(none->write_amp - best->write_amp) < 0.005 && fabs(worst->write_amp - best->write_amp) < 0.005)
		return say(r, "%s, write amplification is %.2f with or without discard", w, none->write_amp);
	if (best == worst)
		return say(r, "%s, write amplification is %.2f without discard and %.2f with `%s`", w,
			   none->write_amp, best->write_amp, best->policy);
	if (fabs(worst->write_amp - best->write_amp) < 0.005)
		return say(r, "%s, write amplification is %.2f without discard and %.2f with every policy that "
			   "discards", w, none->write_amp, best->write_amp);
	return say(r, "%s, write amplification is %.2f without discard, %.2f with `%s` (best) and %.2f with `%s` "
		   "(worst)", w, none->write_amp, best->write_amp, best->policy, worst->write_amp, worst->policy);
}

void report_cmp_sentence(const struct report *r, const struct report_cmp *x, char *buf, size_t len)
{
	const struct report_cell *a = &r->cells[x->ref], *c = &r->cells[x->cell];
	const char *what = strcmp(x->metric, "discard_s") ? "makespan" : "device time in discard";
	char w[160], pct[96] = "";

	where(r, c->index / (r->np * r->nm), c->index % r->nm, w, sizeof(w));
	if (!x->d.valid) {
		snprintf(buf, len, "%s, `%s` vs `%s`, %s: fewer than %d runs, no t-test", w, c->policy, a->policy, what,
			 STAT_MIN_N);
		return;
	}
	if (!x->d.differ) {
		snprintf(buf, len, "%s, `%s` vs `%s` (%zu runs each), %s: no difference proven at %.0f%% confidence",
			 w, c->policy, a->policy, x->a_cell.n, what, x->d.conf * 100);
		return;
	}
	if (!isnan(x->d.pct))
		snprintf(pct, sizeof(pct), "%+.3g%% +/- %.3g%%, ", x->d.pct, x->d.pct_pm);
	snprintf(buf, len, "%s, `%s` vs `%s` (%zu runs each), %s differs at %.0f%% confidence: %+.6g s +/- %.6g s "
		 "(%sStudent's t, pooled s = %.6g)", w, c->policy, a->policy, x->a_cell.n, what, x->d.conf * 100,
		 x->d.diff, x->d.plusminus, pct, x->d.pooled_s);
}

/*
 * Seed 002 across profiles: when no cell of a trace reaches the threshold on any
 * profile, one sentence says so for the trace (the per-profile details would only
 * repeat it). Returns 1 when it said so.
 */
static int trace_never_matters(struct report *r, size_t t)
{
	const struct report_cell *worst = NULL;
	char s1[32], s2[32], wall[32], name[300];
	size_t n = 0, profiles = 0;

	for (size_t m = 0; m < r->nm; m++) {
		bool counted = false;

		for (size_t p = 0; p < r->np; p++) {
			const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

			if (report_untold(c))
				return 0;	/* that profile gets its own "cannot tell" */
			if (!report_weighed(c))
				continue;
			if (c->share >= REPORT_MATTERS_SHARE)
				return 0;
			n++;
			if (!counted) {	/* a profile whose cells all failed says nothing */
				counted = true;
				profiles++;
			}
			if (!worst || c->share > worst->share)
				worst = c;
		}
	}
	if (!worst || profiles < 2)
		return 0;
	snprintf(name, sizeof(name), "%s", r->nt > 1 ? report_basename(r->traces[t]) : "this workload");
	fmt_duration(worst->wall_ns ? worst->wall_ns : worst->makespan_ns, wall, sizeof(wall));
	if (!worst->added_ns)	/* nothing added anywhere: no worst to name */
		return say(r, "%s: discard does not matter on any of the %zu profiles: no policy adds time to the %s "
			   "wall time", name, profiles, wall) ? -ENOMEM : 1;
	return say(r, "%s: discard does not matter on any of the %zu profiles: no policy adds %s or more to the "
		   "%s wall time (worst `%s` on %s: %s)", name, profiles, pct_str(REPORT_MATTERS_SHARE, s1, sizeof(s1)),
		   wall, worst->policy, worst->profile, pct_str(worst->share, s2, sizeof(s2))) ? -ENOMEM : 1;
}

/* The most runs a cell of (t, m) has: with --runs N a cell's figures are the runs' means (runcell.c). */
static uint32_t group_runs(const struct report *r, size_t t, size_t m)
{
	uint32_t n = 0;

	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[(t * r->np + p) * r->nm + m];

		n = !c->status && c->runs.n > n ? c->runs.n : n;
	}
	return n;
}

static int group(struct report *r, size_t t, size_t m, bool brief)
{
	struct report_judgement j;
	char w[400];
	uint32_t runs = group_runs(r, t, m);
	int err;

	where(r, t, m, w, sizeof(w));
	/* the figures compared below are the runs' means (runcell.c): say so */
	if (runs > 1)
		snprintf(w + strlen(w), sizeof(w) - strlen(w), " (each policy's mean of %u runs)", runs);
	report_judge(r, t, m, &j);
	if ((err = group_errors(r, t, m, w)) || (err = rejected(r, &j, t, m, w)))
		return err;
	if (j.all_rejected)
		return 0;
	/* brief: "does not matter" was said once for the trace; the figures per profile still are */
	if ((err = trim_time(r, t, m, w)) || (err = fstrim_cost(r, t, m, w)) ||
	    (!brief && (err = matters(r, &j, t, m, w))) || (err = redundancy(r, t, m, w)))
		return err;
	return write_amp(r, t, m, w);
}

int report_verdicts_build(struct report *r)
{
	bool realtime = false;
	int err = 0;

	for (size_t i = 0; i < r->ncells; i++)
		realtime |= r->cells[i].realtime;
	for (size_t t = 0; t < r->nt && !err; t++) {
		int brief;

		if ((err = trace_errors(r, t)))
			return err;
		brief = trace_never_matters(r, t);

		if (brief < 0)
			return brief;
		for (size_t m = 0; m < r->nm && !err; m++)
			err = group(r, t, m, brief);
	}
	for (size_t i = 0; i < r->ncmps && !err; i++) {
		char s[512];

		report_cmp_sentence(r, &r->cmps[i], s, sizeof(s));
		err = say(r, "%s", s);
	}
	if (!err && r->runs > 1 && !realtime)
		err = say(r, "model targets are deterministic: %u runs would be identical by construction, "
			  "so each cell ran once and no t-test applies", r->runs);
	return err;
}
