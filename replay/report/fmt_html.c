// SPDX-License-Identifier: GPL-2.0
/*
 * The compare HTML report (the page skeleton and stylesheet: html.c). It leads
 * with the decision: the decision table and the heatmap of added time
 * (fmt_html_lead.c), after a table of contents. Then per trace: the policies
 * that do not apply in one line with the reason, the trace's heatmap, and
 * behind closed <details> every figure (table cells carry the raw number in
 * data-raw) and, per profile, the charts: latency CDF per policy, command-size
 * histogram (bars), discard timeline, free space not yet trimmed over time --
 * only those with something to draw. The verdict sentences come last, collapsed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "traces/figure.h"
#include "traces/opts.h"
#include "replay/report/html.h"
#include "replay/report/report_int.h"
#include "replay/report/svg.h"

static void esc(FILE *f, const char *s) { html_esc(f, s); }

static void cells_table(const struct report *r, FILE *f, size_t t)
{
	size_t ncol;
	const struct report_col *cols = report_columns(&ncol);
	char buf[64], raw[64];

	fprintf(f, "<table class=\"cells\" id=\"table-%zu\">\n<thead><tr><th class=\"l\">policy</th>"
		"<th class=\"l\">profile</th>", t);
	for (size_t k = 0; k < ncol; k++) {
		fprintf(f, "<th title=\"");
		esc(f, cols[k].help);
		fprintf(f, "\" data-key=\"%s\">%s</th>", cols[k].key, cols[k].head);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t p = 0; p < r->np; p++)
		for (size_t m = 0; m < r->nm; m++) {
			const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

			if (!c->status && c->na[0])	/* said once, in the trace's n/a line */
				continue;
			fprintf(f, "<tr%s><td class=\"l\">", c->none ? " class=\"none\"" : "");
			esc(f, c->policy);
			fputs("</td><td class=\"l\">", f);
			esc(f, c->profile);
			fputs("</td>", f);
			if (c->status) {
				fprintf(f, "<td class=\"l\" colspan=\"%zu\">error: ", ncol);
				esc(f, c->error);
				fputs("</td></tr>\n", f);
				continue;
			}
			for (size_t k = 0; k < ncol; k++) {
				double v = cols[k].get(c);

				report_raw_value(cols[k].kind, v, raw, sizeof(raw));
				fprintf(f, "<td data-key=\"%s\" data-raw=\"%s\">", cols[k].key, raw);
				esc(f, report_fmt_value(cols[k].kind, v, buf, sizeof(buf)));
				fputs("</td>", f);
			}
			fputs("</tr>\n", f);
		}
	fputs("</tbody>\n</table>\n", f);
}

/*
 * Latency CDF from the engine's histogram (the one the table's percentiles come
 * from): the cumulative share of discards at each non-empty bucket's upper end.
 */
static double lat_x(unsigned b, bool upper)
{
	uint64_t lo, hi;

	hist_bucket_range(b, &lo, &hi);
	return upper ? (double)hi + 1 : lo ? (double)lo : ((double)hi + 1) / 2;	/* a log axis has no 0 */
}

static void chart_cdf(const struct report *r, FILE *f, size_t t, size_t m)
{
	struct svg_chart ch = { .logx = true, .xfmt = SAX_NS, .yfmt = SAX_COUNT, .x0 = INFINITY, .x1 = 0,
				.y0 = 0, .y1 = 1 };
	double *x = malloc((HIST_BUCKETS + 1) * sizeof(*x)), *y = malloc((HIST_BUCKETS + 1) * sizeof(*y));
	char id[64];

	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		for (unsigned b = 0; report_cell_ok(c) && b < HIST_BUCKETS; b++)
			if (c->lat.buckets[b]) {
				ch.x0 = fmin(ch.x0, lat_x(b, false));
				ch.x1 = fmax(ch.x1, lat_x(b, true));
			}
	}
	if (isinf(ch.x0))	/* no discard completed: no chart */
		goto out;
	snprintf(id, sizeof(id), "cdf-%zu-%zu", t, m);
	svg__begin(&ch, f, id, "latency-cdf", "discard latency CDF", "latency (submit to completion)",
		   "share of discards");
	for (size_t p = 0; x && y && p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];
		uint64_t cum = 0;
		size_t n = 0;

		if (!report_cell_ok(c) || !c->lat.count)
			continue;
		for (unsigned b = 0; b < HIST_BUCKETS; b++) {
			if (!c->lat.buckets[b])
				continue;
			if (!n) {
				x[n] = lat_x(b, false);
				y[n++] = 0;
			}
			cum += c->lat.buckets[b];
			x[n] = lat_x(b, true);
			y[n++] = (double)cum / (double)c->lat.count;
		}
		svg__series(&ch, x, y, n, c->policy, p, false);
	}
	svg__end(&ch);
out:
	free(x);
	free(y);
}

/* Command sizes: a histogram, so bars, one slice of each size bucket per policy that discarded. */
static void chart_sizes(const struct report *r, FILE *f, size_t t, size_t m)
{
	struct svg_chart ch = { .logx = true, .xfmt = SAX_BYTES, .yfmt = SAX_PCT, .x0 = INFINITY, .x1 = 0,
				.y0 = 0, .y1 = 0 };
	size_t nk = 0, k = 0;
	char id[64];

	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		nk += report_cell_ok(c) && c->cmds;
		for (unsigned b = 0; report_cell_ok(c) && c->cmds && b < SIZE_BUCKETS; b++)
			if (c->size_hist[b]) {
				ch.x0 = fmin(ch.x0, (double)(SIZE_BASE << b) / 2);
				ch.x1 = fmax(ch.x1, (double)(SIZE_BASE << b));
				ch.y1 = fmax(ch.y1, 100.0 * c->size_hist[b] / c->cmds);
			}
	}
	if (!nk)
		return;
	snprintf(id, sizeof(id), "sizes-%zu-%zu", t, m);
	svg__begin(&ch, f, id, "size-histogram", "discard command sizes", "command size (bucket)",
		   "share of commands");
	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];
		double lo[SIZE_BUCKETS], hi[SIZE_BUCKETS], y[SIZE_BUCKETS];
		size_t n = 0;

		if (!report_cell_ok(c) || !c->cmds)
			continue;
		for (unsigned b = 0; b < SIZE_BUCKETS; b++)
			if (c->size_hist[b]) {
				lo[n] = (double)(SIZE_BASE << b) / 2;
				hi[n] = (double)(SIZE_BASE << b);
				y[n++] = 100.0 * c->size_hist[b] / c->cmds;
			}
		svg__bars(&ch, lo, hi, y, n, c->policy, p, k++, nk);
	}
	svg__end(&ch);
}

/* A cell's line in the timeline (it discarded) or in the free-not-yet-trimmed chart (the trace frees). */
static bool drawn(const struct report_cell *c, bool untrimmed)
{
	return report_cell_ok(c) && (untrimmed ? c->have & CH_UNTRIMMED : c->cmds);
}

/* Whether profile m of trace t has any chart to draw. */
static bool any_chart(const struct report *r, size_t t, size_t m)
{
	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		if (drawn(c, false) || drawn(c, true))
			return true;
	}
	return false;
}

/* Timeline (discards per second) or free-not-yet-trimmed (bytes) over replay time; only cells with a line. */
static void chart_time(const struct report *r, FILE *f, size_t t, size_t m, bool untrimmed)
{
	struct svg_chart ch = { .xfmt = SAX_SECONDS, .yfmt = untrimmed ? SAX_BYTES : SAX_COUNT };
	size_t n = 0;
	char id[64];

	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];
		const struct cell_series *s = &c->series;

		if (!drawn(c, untrimmed))
			continue;
		n++;
		ch.x1 = fmax(ch.x1, s->nbins * (double)s->bin_ns / 1e9);
		for (unsigned b = 0; b < s->nbins; b++)
			ch.y1 = fmax(ch.y1, untrimmed ? (double)s->untrimmed[b] : s->cmds[b] / (s->bin_ns / 1e9));
	}
	if (!n)
		return;
	ch.y1 *= 1.05;
	snprintf(id, sizeof(id), "%s-%zu-%zu", untrimmed ? "untrimmed" : "timeline", t, m);
	svg__begin(&ch, f, id, untrimmed ? "untrimmed" : "discard-timeline",
		   untrimmed ? "freed, not yet trimmed" : "discard timeline", "replay time",
		   untrimmed ? "bytes" : "discard commands per second");
	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];
		const struct cell_series *s = &c->series;
		double x[SERIES_BINS], y[SERIES_BINS];

		if (!drawn(c, untrimmed))
			continue;
		for (unsigned b = 0; b < s->nbins; b++) {
			x[b] = (b + (untrimmed ? 1.0 : 0.5)) * s->bin_ns / 1e9;
			y[b] = untrimmed ? (double)s->untrimmed[b] : s->cmds[b] / (s->bin_ns / 1e9);
		}
		svg__series(&ch, x, y, s->nbins, c->policy, p, false);
	}
	svg__end(&ch);
}

static void runs_html(const struct report *r, FILE *f)
{
	size_t n;
	const struct report_cmp *x = report__comparisons(r, &n);
	char s[512], v[4][32];

	if (!n)
		return;
	fputs("<h2 id=\"runs\">Repeated runs</h2>\n<p>The tables above give each cell's mean of its runs (the charts, its last run); "
	      "here, the mean and spread of every run.</p>\n<table class=\"runs\">\n<thead><tr><th class=\"l\">policy</th>"
	      "<th class=\"l\">reference</th><th class=\"l\">profile</th><th class=\"l\">metric</th><th>N</th><th>mean</th>"
	      "<th>stddev</th><th>ref mean</th><th>ref stddev</th><th class=\"l\">verdict</th>"
	      "</tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct report_cell *a = &r->cells[x[i].ref], *c = &r->cells[x[i].cell];

		fputs("<tr><td class=\"l\">", f);
		esc(f, c->policy);
		fputs("</td><td class=\"l\">", f);
		esc(f, a->policy);
		fputs("</td><td class=\"l\">", f);
		esc(f, c->profile);
		fig_format(FIG_NS, stat_mean(&x[i].a_cell) * 1e9, v[0], sizeof(v[0]));
		fig_format(FIG_NS, stat_stddev(&x[i].a_cell) * 1e9, v[1], sizeof(v[1]));
		fig_format(FIG_NS, stat_mean(&x[i].a_ref) * 1e9, v[2], sizeof(v[2]));
		fig_format(FIG_NS, stat_stddev(&x[i].a_ref) * 1e9, v[3], sizeof(v[3]));
		fprintf(f, "</td><td class=\"l\">%s</td><td>%zu</td>", x[i].metric, x[i].a_cell.n);
		for (int k = 0; k < 4; k++) {
			fputs("<td>", f);
			esc(f, v[k]);
			fputs("</td>", f);
		}
		fputs("<td class=\"l\">", f);
		report_cmp_sentence(r, &x[i], s, sizeof(s));
		html_esc_code(f, s);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

static void toc(const struct report *r, FILE *f, size_t nv)
{
	size_t nc;

	report__comparisons(r, &nc);
	fprintf(f, "<nav class=\"toc\" id=\"toc\"><b>Contents</b>: <a href=\"#decision\">Decision</a>"
		"<a href=\"#heatmap\">Added time</a><a href=\"#traces\">Per trace (%zu)</a>"
		"<a href=\"#verdicts\">Verdict sentences (%zu)</a>%s</nav>\n", r->nt, nv,
		nc ? "<a href=\"#runs\">Repeated runs</a>" : "");
}

static void trace_section(const struct report *r, FILE *f, size_t t)
{
	char d[32];

	fprintf(f, "<section id=\"trace-%zu\">\n<h2>", t);
	esc(f, report_basename(r->traces[t]));
	fputs("</h2>\n<p>wall time ", f);
	esc(f, fmt_duration(report_trace_wall(r, t), d, sizeof(d)));
	fprintf(f, "; %zu policies x %zu profiles. <a href=\"#decision\">Decision</a></p>\n", r->np, r->nm);
	if (report__trace_cut(r, t)) {
		fputs("<p class=\"truncated\">truncated: ", f);
		esc(f, report__trace_cut(r, t));
		fputs("; these figures cover only those</p>\n", f);
	}
	if (r->nm) {
		char *na = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&na, &len);

		if (m) {
			report_na_list(r, t, m);
			fclose(m);
		}
		if (na && *na) {
			fputs("<p class=\"na\">Do not apply: ", f);
			html_esc_code(f, na);
			fputs("</p>\n", f);
		}
		free(na);
	}
	if (r->nt > 1)	/* one trace: the heatmap above is this one */
		report_html_heatmap(r, f, t);
	fputs("<details class=\"figures\"><summary>every figure (table)</summary>\n", f);
	cells_table(r, f, t);
	fputs("</details>\n<div class=\"cd\">\n", f);
	for (size_t m = 0; m < r->nm; m++) {
		if (!any_chart(r, t, m))
			continue;
		fputs("<details class=\"cell-charts\"><summary>charts on ", f);
		esc(f, r->profiles[m]);
		fputs("</summary>\n<div class=\"charts\">\n", f);
		chart_cdf(r, f, t, m);
		chart_sizes(r, f, t, m);
		chart_time(r, f, t, m, false);
		chart_time(r, f, t, m, true);
		fputs("</div>\n</details>\n", f);
	}
	fputs("</div>\n</section>\n", f);
}

int report__write_html(const struct report *r, FILE *f)
{
	size_t nv;
	const char *const *v = report__verdicts(r, &nv);

	html_begin(f, "trimsim compare");
	fprintf(f, "<p class=\"params\">%zu trace(s) x %zu policies x %zu profile(s), seed %llu, runs %u. "
		"Generated by trimsim %s.</p>\n", r->nt, r->np, r->nm, (unsigned long long)r->seed, r->runs,
		TRIMSIM_VERSION);
	toc(r, f, nv);
	fputs("<div class=\"top\">\n", f);
	report_html_decision(r, f);
	fputs("<div>\n", f);
	report_html_heatmap(r, f, SIZE_MAX);
	html_heat_legend(f);
	fputs("</div>\n</div>\n<h2 id=\"traces\">Per trace</h2>\n", f);
	for (size_t t = 0; t < r->nt; t++)
		trace_section(r, f, t);
	fprintf(f, "<details id=\"verdicts\"><summary>Verdict sentences (%zu)</summary>\n<ul class=\"verdicts\">\n",
		nv);
	for (size_t i = 0; i < nv; i++) {
		fputs("<li>", f);
		html_esc_code(f, v[i]);
		fputs(".</li>\n", f);
	}
	fputs("</ul>\n</details>\n", f);
	runs_html(r, f);
	return html_end(f);
}
