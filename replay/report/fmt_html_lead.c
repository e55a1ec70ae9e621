// SPDX-License-Identifier: GPL-2.0
/*
 * What the compare HTML report leads with (fmt_html.c writes the page): the
 * decision table -- one row per trace, one cell per device profile, from the
 * verdict's judgement of each (trace, profile) group (report_judge(),
 * verdict.c): the compared policy that adds the least time and what it adds,
 * the worst (what each adds, and its share of the wall time, on hover), and
 * whether discard matters -- and the heatmaps of added time, device x policy,
 * over every trace and per trace.
 */
#include <math.h>
#include <string.h>

#include "traces/opts.h"
#include "replay/report/html.h"
#include "replay/report/report_int.h"

/* The mark, class and words of a verdict (a device that rejects every discard has its own cell). */
static const struct {
	const char *mark, *cls, *words;
} matters_look[] = {
	[RM_MATTERS] = { "&#9679;", "m", "discard matters" },
	[RM_NOT] = { "&#9675;", "n", "discard does not matter" },
	[RM_UNTOLD] = { "?", "u", "the trace cannot tell" },
	[RM_UNWEIGHED] = { "-", "u", "nothing to weigh" },
};

/* The discarding policy with the least device time in TRIM (what a trace that cannot tell is judged by). */
static const struct report_cell *least_trim(const struct report *r, size_t t, size_t m)
{
	const struct report_cell *lo = NULL;

	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		/* a policy whose discards failed spent no TRIM time on trimming: not the least (verdict.c) */
		if (report_trim_ranked(c) && (!lo || c->discard_ns < lo->discard_ns))
			lo = c;
	}
	return lo;
}

/* A figure for one fprintf with others: formatted (traces/figure.h), then XML-escaped ("<0.001%"). */
static const char *hdur(uint64_t ns, char *buf, size_t len)
{
	char raw[32];

	return html_escs(fmt_duration(ns, raw, sizeof(raw)), buf, len);
}

static const char *hval(enum col_kind k, double v, char *buf, size_t len)
{
	char raw[32];

	return html_escs(report_fmt_value(k, v, raw, sizeof(raw)), buf, len);
}

/* " +1.3 ms" (" +0" when nothing is added). */
static void added(FILE *f, const struct report_cell *c)
{
	char d[32];

	fputs(" +", f);
	html_esc(f, c->added_ns ? fmt_duration(c->added_ns, d, sizeof(d)) : "0");
}

/* The hover text: what the best and the worst add, and their shares of the wall time. */
static void cell_title(FILE *f, const struct report_judgement *j)
{
	char d[32], s[32];

	fputs(" title=\"", f);
	if (j->best) {
		fputs("least: ", f);
		html_esc(f, j->best->policy);
		fprintf(f, " adds %s (%s%s the wall time)", hdur(j->best->added_ns, d, sizeof(d)),
			hval(CK_SHARE, j->best->share, s, sizeof(s)), fig_share_of(j->best->share));
	}
	if (j->worst && j->worst != j->best) {
		fputs("; worst: ", f);
		html_esc(f, j->worst->policy);
		fprintf(f, " adds %s (%s%s the wall time)", hdur(j->worst->added_ns, d, sizeof(d)),
			hval(CK_SHARE, j->worst->share, s, sizeof(s)), fig_share_of(j->worst->share));
	}
	fputs("\"", f);
}

static void decision_cell(const struct report *r, FILE *f, size_t t, size_t m)
{
	struct report_judgement j;
	const struct report_cell *lo;
	char d[32];

	report_judge(r, t, m, &j);
	if (j.all_rejected) {
		fprintf(f, "<td class=\"x\" data-matters=\"rejected\" title=\"the device rejects every discard (%llu "
			"commands)\">&#10005; rejects discard</td>", (unsigned long long)j.errors);
		return;
	}
	fprintf(f, "<td class=\"%s\" data-matters=\"%s\"", matters_look[j.matters].cls, matters_look[j.matters].words);
	if (j.matters == RM_UNTOLD || j.matters == RM_UNWEIGHED) {
		lo = least_trim(r, t, m);
		fprintf(f, "><span class=\"b\">%s ", matters_look[j.matters].mark);
		if (lo) {
			fputs("<b>", f);
			html_esc(f, lo->policy);
			fputs("</b> ", f);
			html_esc(f, fmt_duration(lo->discard_ns, d, sizeof(d)));
			fputs(" in TRIM</span>", f);
		} else {
			fputs("no policy discards</span>", f);
		}
	} else {
		cell_title(f, &j);
		fprintf(f, "><span class=\"b\">%s ", matters_look[j.matters].mark);
		if (j.best) {
			fputs("<b>", f);
			html_esc(f, j.best->policy);
			fputs("</b>", f);
			added(f, j.best);
		} else {
			fputs("no policy discards", f);
		}
		fputs("</span>", f);
		if (j.worst && j.worst != j.best) {
			fputs(" <span class=\"w\">&#183; ", f);
			html_esc(f, j.worst->policy);
			fputs("</span>", f);
		}
	}
	if (j.errors)
		fprintf(f, " (%llu failed)", (unsigned long long)j.errors);
	fputs("</td>", f);
}

void report_html_decision(const struct report *r, FILE *f)
{
	char d[32];

	fputs("<table class=\"decide\" id=\"decision\">\n<caption><b>Decision</b> per trace and device: "
	      "<b>the compared policy that adds the least time</b> and what it adds <span class=\"w\">&#183; the "
	      "worst</span> (hover: what each adds); &#9679; discard matters (a policy adds 1% of the wall time or "
	      "more), &#9675; it does not, ? the trace cannot tell (least TRIM time)</caption>\n<thead><tr><th class=\"l\">trace</th><th>wall time</th>", f);
	for (size_t m = 0; m < r->nm; m++) {
		fputs("<th class=\"l\">", f);
		html_esc(f, r->profiles[m]);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t t = 0; t < r->nt; t++) {
		fprintf(f, "<tr><td class=\"l\"><a href=\"#trace-%zu\">", t);
		html_esc(f, report_basename(r->traces[t]));
		fprintf(f, "</a>%s</td><td>%s</td>", report__trace_cut(r, t) ? " (truncated)" : "",
			hdur(report_trace_wall(r, t), d, sizeof(d)));
		for (size_t m = 0; m < r->nm; m++)
			decision_cell(r, f, t, m);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

/* Over every trace: policy p on profile m adds the sum of its added time over the sum of the wall times. */
static void heat_all_cell(const struct report *r, FILE *f, size_t p, size_t m)
{
	uint64_t add = 0, wall = 0;
	size_t k = 0, u = 0, na = 0, periodic = 0, none = 0;
	char a[32], w[32], s[32], v[32];

	for (size_t t = 0; t < r->nt; t++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		na += !c->status && c->na[0];
		periodic += report_cell_ok(c) && report_is_fstrim(c);
		none += report_cell_ok(c) && c->none;
		if (report_untold(c)) {
			u++;
		} else if (report_weighed(c)) {
			k++;
			add += c->added_ns;
			wall += c->wall_ns ? c->wall_ns : c->makespan_ns;
		}
	}
	if (!k && none) {
		fputs("<td class=\"hn\" title=\"the baseline: never discards\">0</td>", f);
		return;
	}
	if (!k) {
		fprintf(f, "<td class=\"hn\" title=\"%s\">%s</td>", periodic ? "periodic fstrim: its cost comes once per "
			"interval (see each trace's verdict)" : u ? "the traces cannot tell whether the workload waits" :
			na == r->nt ? "does not apply to any trace" : "not weighed", periodic ? "periodic" : u ? "?" :
			na == r->nt ? "n/a" : "-");
		return;
	}
	double share = wall ? (double)add / (double)wall : NAN;

	fprintf(f, "<td class=\"%s\" data-added-ns=\"%llu\" title=\"adds %s over %zu of %zu traces: %s%s their %s "
		"wall time\">%s</td>", html_heat(share), (unsigned long long)add, hdur(add, a, sizeof(a)), k, r->nt,
		hval(CK_SHARE, share, s, sizeof(s)), fig_share_of(share), hdur(wall, w, sizeof(w)),
		hval(CK_SHARE, share, v, sizeof(v)));
}

/* One trace's cell: what policy p adds on profile m. */
static void heat_cell(const struct report *r, FILE *f, size_t t, size_t p, size_t m)
{
	const struct report_cell *c = &r->cells[report__at(r, t, p, m)];
	char d[32], s[32];

	if (c->status) {
		fputs("<td class=\"hn\" title=\"", f);
		html_esc(f, c->error);
		fputs("\">error</td>", f);
	} else if (c->none) {
		fputs("<td class=\"hn\" title=\"the baseline: never discards\">0</td>", f);
	} else if (report_cell_ok(c) && report_is_fstrim(c)) {
		fprintf(f, "<td class=\"hn\" title=\"periodic fstrim: %s in TRIM once per interval\">periodic</td>",
			hdur(c->discard_ns, d, sizeof(d)));
	} else if (report_untold(c)) {
		fprintf(f, "<td class=\"hn\" title=\"the trace cannot tell whether the workload waits; %s in TRIM\">"
			"? %s in TRIM</td>", hdur(c->discard_ns, d, sizeof(d)), d);
	} else if (report_weighed(c)) {
		fprintf(f, "<td class=\"%s\" data-added-ns=\"%llu\" title=\"%s%s the wall time\">%s</td>",
			html_heat(c->share), (unsigned long long)c->added_ns,
			hval(CK_SHARE, c->share, s, sizeof(s)), fig_share_of(c->share),
			c->added_ns ? hdur(c->added_ns, d, sizeof(d)) : "0");
	} else {
		fputs("<td class=\"hn\">-</td>", f);
	}
}

/* Whether policy p applies to trace t (t == SIZE_MAX: to any trace). */
static bool applies(const struct report *r, size_t t, size_t p)
{
	for (size_t u = t == SIZE_MAX ? 0 : t; u < r->nt && (t == SIZE_MAX || u == t); u++)
		for (size_t m = 0; m < r->nm; m++) {
			const struct report_cell *c = &r->cells[report__at(r, u, p, m)];

			if (c->status || !c->na[0])
				return true;
		}
	return false;
}

/* Device rows x policy columns (policies that apply); t == SIZE_MAX: over every trace. */
void report_html_heatmap(const struct report *r, FILE *f, size_t t)
{
	if (t == SIZE_MAX)
		fputs("<table class=\"heat\" id=\"heatmap\">\n<caption><b>Added time</b> over every trace, device x "
		      "policy: what a policy adds over the traces' wall time (hover: the sums)</caption>\n", f);
	else
		fprintf(f, "<table class=\"heat\" id=\"heat-%zu\">\n<caption>added time, device x policy</caption>\n", t);
	fputs("<thead><tr><th class=\"l\">device</th>", f);
	for (size_t p = 0; p < r->np; p++) {
		if (!applies(r, t, p))
			continue;
		fputs("<th>", f);
		html_esc(f, r->policies[p]);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t m = 0; m < r->nm; m++) {
		fputs("<tr><td class=\"l\">", f);
		html_esc(f, r->profiles[m]);
		fputs("</td>", f);
		for (size_t p = 0; p < r->np; p++) {
			if (!applies(r, t, p))
				continue;
			if (t == SIZE_MAX)
				heat_all_cell(r, f, p, m);
			else
				heat_cell(r, f, t, p, m);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}
