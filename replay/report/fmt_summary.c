// SPDX-License-Identifier: GPL-2.0
/*
 * The compact view (--format summary): per trace, one line per profile with the
 * costliest and the cheapest policy by device time in TRIM and whether discard
 * matters for the workload (seed 002), from the same cell figures as the table
 * and the JSON (discard_time_ns, added_ns, share, wait_basis). Not applicable
 * and failed cells are counted, never ranked. Where the trace cannot tell
 * whether the workload waited (wait_basis unknown), the line says so with the
 * TRIM time against the trace span, as the verdict does.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "traces/figure.h"
#include "traces/opts.h"
#include "replay/report/report_int.h"

struct line {
	const struct report_cell *hi, *lo, *worst;	/* most / least TRIM time; largest share */
	const struct report_cell *untold;		/* most TRIM time where the trace cannot tell */
	size_t na, failed;
};

static void scan(const struct report *r, size_t t, size_t m, struct line *l)
{
	memset(l, 0, sizeof(*l));
	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		l->failed += c->status != 0;
		l->na += !c->status && c->na[0];
		if (!report_cell_ok(c) || c->none || report_is_fstrim(c))
			continue;
		if (c->cmds && c->wait_basis == CWB_UNKNOWN) {
			if (!l->untold || c->discard_ns > l->untold->discard_ns)
				l->untold = c;
		} else if (!isnan(c->share) && (!l->worst || c->share > l->worst->share)) {
			l->worst = c;
		}
		if (!c->cmds)
			continue;
		if (!l->hi || c->discard_ns > l->hi->discard_ns)
			l->hi = c;
		if (!l->lo || c->discard_ns <= l->lo->discard_ns)	/* ties as the verdict's ranking */
			l->lo = c;
	}
}

static void line_out(const struct report *r, size_t m, const struct line *l, int wm, FILE *f)
{
	char a[32], b[32], s[32];

	fprintf(f, "  %-*s ", wm, r->profiles[m]);
	if (!l->hi)
		fputs("no policy discards", f);
	else if (l->hi == l->lo)
		fprintf(f, "only `%s` discards: %s in TRIM", l->hi->policy, fmt_duration(l->hi->discard_ns, a, sizeof(a)));
	else
		fprintf(f, "worst `%s` %s in TRIM, best `%s` %s", l->hi->policy,
			fmt_duration(l->hi->discard_ns, a, sizeof(a)), l->lo->policy,
			fmt_duration(l->lo->discard_ns, b, sizeof(b)));
	if (l->worst && l->worst->share >= REPORT_MATTERS_SHARE)
		fprintf(f, "; discard matters: `%s` adds %s (%s%s the wall time)", l->worst->policy,
			fmt_duration(l->worst->added_ns, a, sizeof(a)),
			report_fmt_value(CK_SHARE, l->worst->share, s, sizeof(s)), fig_share_of(l->worst->share));
	else if (l->untold) {
		double q = l->untold->wall_ns ? (double)l->untold->discard_ns / (double)l->untold->wall_ns : NAN;

		fprintf(f, "; the trace cannot tell whether discard matters (no foreground I/O; `%s` %s in TRIM, %s%s "
			"the trace span)", l->untold->policy, fmt_duration(l->untold->discard_ns, a, sizeof(a)),
			report_fmt_value(CK_SHARE, q, s, sizeof(s)), fig_share_of(q));
	}
	else if (l->worst)
		fprintf(f, "; discard does not matter (at most %s of the wall time)",
			report_fmt_value(CK_SHARE, l->worst->share, s, sizeof(s)));
	if (l->failed)
		fprintf(f, "; %zu failed", l->failed);
	fputc('\n', f);
}

static const char *na_of(const struct report *r, size_t t, size_t p)
{
	const struct report_cell *c = &r->cells[report__at(r, t, p, 0)];

	return !c->status && c->na[0] ? c->na : NULL;
}

/* The policies that do not apply to trace t (on its first profile), grouped by reason (report_int.h). */
void report_na_list(const struct report *r, size_t t, FILE *f)
{
	bool any = false;

	for (size_t p = 0; p < r->np; p++) {
		const char *why = na_of(r, t, p);
		bool seen = false;

		for (size_t q = 0; why && q < p && !seen; q++)
			seen = na_of(r, t, q) && !strcmp(na_of(r, t, q), why);
		if (!why || seen)
			continue;
		if (any)
			fputs("; ", f);
		any = true;
		for (size_t q = p, n = 0; q < r->np; q++)
			if (na_of(r, t, q) && !strcmp(na_of(r, t, q), why))
				fprintf(f, "%s`%s`", n++ ? ", " : "", r->policies[q]);
		fprintf(f, " (%s)", why);
	}
}

static bool any_na(const struct report *r, size_t t)
{
	for (size_t p = 0; p < r->np; p++)
		if (na_of(r, t, p))
			return true;
	return false;
}

int report__write_summary(const struct report *r, FILE *f)
{
	int wm = 0;
	char d[32];

	for (size_t m = 0; m < r->nm; m++)
		if ((int)strlen(r->profiles[m]) > wm)
			wm = (int)strlen(r->profiles[m]);
	for (size_t t = 0; t < r->nt; t++) {
		fprintf(f, "%s (wall time %s)%s\n", report_basename(r->traces[t]),
			fmt_duration(report_trace_wall(r, t), d, sizeof(d)),
			report__trace_cut(r, t) ? ", truncated: cut short before its footer" : "");
		for (size_t m = 0; m < r->nm; m++) {
			struct line l;

			scan(r, t, m, &l);
			line_out(r, m, &l, wm, f);
		}
		if (r->nm && any_na(r, t)) {
			fputs("  n/a: ", f);
			report_na_list(r, t, f);
			fputc('\n', f);
		}
	}
	return ferror(f) ? -EIO : 0;
}
