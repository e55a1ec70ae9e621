// SPDX-License-Identifier: GPL-2.0
/*
 * Self-contained HTML report: polyglot XHTML/HTML5 (well-formed XML, so
 * `xmllint --noout` checks it), inline CSS, SVG charts drawn here, no
 * scripts, no fonts, no network. Per (trace, profile): latency CDF per
 * policy, command-size histogram, discard timeline, free space not yet
 * trimmed over time. Table cells carry the raw number in data-raw.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "traces/figure.h"
#include "traces/opts.h"
#include "replay/report/report_int.h"
#include "replay/report/svg.h"

static const char css[] =
	"body{font-family:sans-serif;margin:1.5em;color:#111}"
	"table{border-collapse:collapse;font-size:13px;margin:0.5em 0}"
	"th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}"
	"td.l,th.l{text-align:left}tr.none td{color:#555}"
	SVG_CSS ".charts{display:flex;flex-wrap:wrap;gap:8px}"
	"li{margin:0.2em 0}code{background:#f2f2f2}";

static void esc(FILE *f, const char *s) { svg_escape(f, s); }

/* Backquoted names in verdicts become <code>. */
static void esc_code(FILE *f, const char *s)
{
	bool in = false;
	char one[2] = { 0, 0 };

	for (; *s; s++) {
		if (*s == '`') {
			fputs(in ? "</code>" : "<code>", f);
			in = !in;
			continue;
		}
		one[0] = *s;
		esc(f, one);
	}
	if (in)
		fputs("</code>", f);
}

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
			if (c->na[0]) {
				fprintf(f, "<td class=\"l na\" colspan=\"%zu\">n/a: ", ncol);
				esc(f, c->na);
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
	struct svg_chart ch = { .logx = true, .xfmt = SAX_NS, .yfmt = SAX_PLAIN, .x0 = INFINITY, .x1 = 0,
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
	if (isinf(ch.x0)) {
		ch.x0 = 1e3;
		ch.x1 = 1e6;
	}
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
	free(x);
	free(y);
}

static void chart_sizes(const struct report *r, FILE *f, size_t t, size_t m)
{
	struct svg_chart ch = { .logx = true, .xfmt = SAX_BYTES, .yfmt = SAX_PCT, .x0 = INFINITY, .x1 = 0,
				.y0 = 0, .y1 = 0 };
	char id[64];

	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

		for (unsigned b = 0; report_cell_ok(c) && c->cmds && b < SIZE_BUCKETS; b++)
			if (c->size_hist[b]) {
				ch.x0 = fmin(ch.x0, (double)(SIZE_BASE << b) / 2);
				ch.x1 = fmax(ch.x1, (double)(SIZE_BASE << b));
				ch.y1 = fmax(ch.y1, 100.0 * c->size_hist[b] / c->cmds);
			}
	}
	if (isinf(ch.x0)) {
		ch.x0 = 512;
		ch.x1 = 1 << 20;
	}
	ch.x0 = fmin(ch.x0, ch.x1 / 16);
	snprintf(id, sizeof(id), "sizes-%zu-%zu", t, m);
	svg__begin(&ch, f, id, "size-histogram", "discard command sizes", "command size (bucket upper bound)",
		   "share of commands");
	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];
		double x[SIZE_BUCKETS], y[SIZE_BUCKETS];
		size_t n = 0;

		if (!report_cell_ok(c) || !c->cmds)
			continue;
		for (unsigned b = 0; b < SIZE_BUCKETS; b++)
			if (c->size_hist[b]) {
				x[n] = (double)(SIZE_BASE << b);
				y[n++] = 100.0 * c->size_hist[b] / c->cmds;
			}
		svg__series(&ch, x, y, n, c->policy, p, true);
	}
	svg__end(&ch);
}

/* Timeline (discards per second) or free-not-yet-trimmed (bytes) over replay time. */
static void chart_time(const struct report *r, FILE *f, size_t t, size_t m, bool untrimmed)
{
	struct svg_chart ch = { .xfmt = SAX_SECONDS, .yfmt = untrimmed ? SAX_BYTES : SAX_PLAIN };
	char id[64];

	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];
		const struct cell_series *s = &c->series;

		if (!report_cell_ok(c))
			continue;
		ch.x1 = fmax(ch.x1, s->nbins * (double)s->bin_ns / 1e9);
		for (unsigned b = 0; b < s->nbins; b++)
			ch.y1 = fmax(ch.y1, untrimmed ? (double)s->untrimmed[b] : s->cmds[b] / (s->bin_ns / 1e9));
	}
	ch.y1 *= 1.05;
	snprintf(id, sizeof(id), "%s-%zu-%zu", untrimmed ? "untrimmed" : "timeline", t, m);
	svg__begin(&ch, f, id, untrimmed ? "untrimmed" : "discard-timeline",
		   untrimmed ? "freed, not yet trimmed" : "discard timeline", "replay time",
		   untrimmed ? "bytes" : "discard commands per second");
	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *c = &r->cells[report__at(r, t, p, m)];
		const struct cell_series *s = &c->series;
		double x[SERIES_BINS], y[SERIES_BINS];

		if (!report_cell_ok(c) || (untrimmed && !(c->have & CH_UNTRIMMED)))
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
	fputs("<h2>Repeated runs</h2>\n<table class=\"runs\">\n<thead><tr><th class=\"l\">policy</th>"
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
		fprintf(f, "</td><td class=\"l\">%s</td><td>%zu</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"l\">",
			x[i].metric, x[i].a_cell.n, fig_format(FIG_NS, stat_mean(&x[i].a_cell) * 1e9, v[0], sizeof(v[0])),
			fig_format(FIG_NS, stat_stddev(&x[i].a_cell) * 1e9, v[1], sizeof(v[1])),
			fig_format(FIG_NS, stat_mean(&x[i].a_ref) * 1e9, v[2], sizeof(v[2])),
			fig_format(FIG_NS, stat_stddev(&x[i].a_ref) * 1e9, v[3], sizeof(v[3])));
		report_cmp_sentence(r, &x[i], s, sizeof(s));
		esc_code(f, s);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

int report__write_html(const struct report *r, FILE *f)
{
	size_t nv;
	const char *const *v = report__verdicts(r, &nv);

	fprintf(f, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
		"<meta charset=\"utf-8\"/>\n<title>trimsim report</title>\n<style>%s</style>\n</head>\n<body>\n"
		"<h1>trimsim compare</h1>\n<p class=\"params\">%zu trace(s) x %zu policies x %zu profile(s), "
		"seed %llu, runs %u. Generated by trimsim %s.</p>\n", css, r->nt, r->np, r->nm,
		(unsigned long long)r->seed, r->runs, TRIMSIM_VERSION);
	fputs("<h2>Verdict</h2>\n<ul class=\"verdicts\">\n", f);
	for (size_t i = 0; i < nv; i++) {
		fputs("<li>", f);
		esc_code(f, v[i]);
		fputs(".</li>\n", f);
	}
	fputs("</ul>\n", f);
	for (size_t t = 0; t < r->nt; t++) {
		char d[32];

		fputs("<h2>", f);
		esc(f, r->traces[t]);
		fprintf(f, "</h2>\n<p>wall time %s</p>\n",
			fmt_duration(report_trace_wall(r, t), d, sizeof(d)));
		if (report__trace_cut(r, t)) {
			fputs("<p class=\"truncated\">truncated: ", f);
			esc(f, report__trace_cut(r, t));
			fputs("; these figures cover only those</p>\n", f);
		}
		cells_table(r, f, t);
		for (size_t m = 0; m < r->nm; m++) {
			fputs("<h3>", f);
			esc(f, r->profiles[m]);
			fputs("</h3>\n<div class=\"charts\">\n", f);
			chart_cdf(r, f, t, m);
			chart_sizes(r, f, t, m);
			chart_time(r, f, t, m, false);
			chart_time(r, f, t, m, true);
			fputs("</div>\n", f);
		}
	}
	runs_html(r, f);
	fputs("</body>\n</html>\n", f);
	return ferror(f) ? -EIO : 0;
}
