// SPDX-License-Identifier: GPL-2.0
/* Terminal table and CSV: the same columns (report_columns()), two spellings. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "traces/figure.h"
#include "replay/report/report_int.h"

/* Every figure through the one formatter (traces/figure.h). */
char *report_fmt_value(enum col_kind k, double v, char *buf, size_t len)
{
	static const enum fig_kind fig[] = {
		[CK_COUNT] = FIG_COUNT, [CK_BYTES] = FIG_BYTES, [CK_NS] = FIG_NS, [CK_SNS] = FIG_DELTA_NS,
		[CK_RATIO] = FIG_RATIO, [CK_SHARE] = FIG_SHARE, [CK_RATE] = FIG_RATE, [CK_BYTE_RATE] = FIG_BYTE_RATE,
	};

	return fig_format(fig[k], v, buf, len);
}

#define CELLW 16

static size_t width_of(const struct report *r, size_t col_policy)
{
	size_t w = col_policy ? strlen("policy") : strlen("profile");

	for (size_t i = 0; i < (col_policy ? r->np : r->nm); i++) {
		size_t n = strlen(col_policy ? r->policies[i] : r->profiles[i]);

		if (n > w)
			w = n;
	}
	return w;
}

static void runs_line(FILE *f, const struct report_cell *c, const char *metric, const double *v)
{
	struct stat_acc a;
	char s[5][32];

	stat_acc__init(&a);
	for (uint32_t k = 0; k < c->runs.n; k++)
		stat_acc__add(&a, v[k]);
	fprintf(f, "    %-24s %-16s %-10s %4zu %12s %12s %12s %12s %12s\n", c->policy, c->profile, metric, a.n,
		fig_format(FIG_NS, a.min * 1e9, s[0], sizeof(s[0])), fig_format(FIG_NS, a.max * 1e9, s[1], sizeof(s[1])),
		fig_format(FIG_NS, stat_median(v, c->runs.n) * 1e9, s[2], sizeof(s[2])),
		fig_format(FIG_NS, stat_mean(&a) * 1e9, s[3], sizeof(s[3])),
		fig_format(FIG_NS, stat_stddev(&a) * 1e9, s[4], sizeof(s[4])));
}

/* ministat's columns for every cell with repeated runs. */
static void runs_section(const struct report *r, FILE *f)
{
	bool any = false;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		if (c->status || c->runs.n < 2)
			continue;
		if (!any)
			fprintf(f, "\nruns (the table above and the verdict give each cell's mean of its runs; here, every run):"
				"\n    %-24s %-16s %-10s %4s %12s %12s %12s %12s %12s\n", "policy",
				"profile", "metric", "N", "Min", "Max", "Median", "Avg", "Stddev");
		any = true;
		runs_line(f, c, "makespan", c->runs.makespan_s);
		runs_line(f, c, "in-trim", c->runs.discard_s);
	}
}

/* Column widths: the widest of the heading and every value shown. */
static void col_widths(const struct report *r, const struct report_col *cols, size_t ncol, int *w)
{
	char buf[CELLW + 8];

	for (size_t k = 0; k < ncol; k++) {
		w[k] = (int)strlen(cols[k].head);
		for (size_t i = 0; cols[k].table && i < r->ncells; i++) {
			const struct report_cell *c = &r->cells[i];
			int n = !report_cell_ok(c) ? 0 : (int)strlen(report_fmt_value(cols[k].kind, cols[k].get(c), buf,
									       sizeof(buf)));

			if (n > w[k])
				w[k] = n;
		}
	}
}

int report__write_table(const struct report *r, FILE *f)
{
	size_t ncol, wp = width_of(r, 1), wm = width_of(r, 0), nv;
	const struct report_col *cols = report_columns(&ncol);
	const char *const *v = report__verdicts(r, &nv);
	char buf[CELLW + 8], d[32];
	int w[64];

	if (ncol > 64)
		return -EINVAL;
	col_widths(r, cols, ncol, w);
	fprintf(f, "trimsim compare: %zu trace%s x %zu polic%s x %zu profile%s, seed %" PRIu64 "\n", r->nt,
		r->nt == 1 ? "" : "s", r->np, r->np == 1 ? "y" : "ies", r->nm, r->nm == 1 ? "" : "s", r->seed);
	for (size_t t = 0; t < r->nt; t++) {
		fprintf(f, "\n== %s (wall time %s)\n", r->traces[t],
			fmt_duration(report_trace_wall(r, t), d, sizeof(d)));
		if (report__trace_cut(r, t))
			fprintf(f, "truncated: %s; these figures cover only those\n", report__trace_cut(r, t));
		fprintf(f, "%-*s  %-*s", (int)wp, "policy", (int)wm, "profile");
		for (size_t k = 0; k < ncol; k++)
			if (cols[k].table)
				fprintf(f, " %*s", w[k], cols[k].head);
		fputc('\n', f);
		for (size_t p = 0; p < r->np; p++)
			for (size_t m = 0; m < r->nm; m++) {
				const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

				fprintf(f, "%-*s  %-*s", (int)wp, c->policy, (int)wm, c->profile);
				if (c->status) {
					fprintf(f, " error: %s\n", c->error);
					continue;
				}
				if (c->na[0]) {
					fprintf(f, " n/a: %s\n", c->na);
					continue;
				}
				for (size_t k = 0; k < ncol; k++)
					if (cols[k].table)
						fprintf(f, " %*s", w[k], report_fmt_value(cols[k].kind, cols[k].get(c),
											  buf, sizeof(buf)));
				fputc('\n', f);
			}
	}
	fprintf(f, "\ncolumns: in-trim = device time in discard;\n"
		"         fgwait-sum = sum of foreground waits: the extra wait of every foreground command because "
		"of discard,\n           added up over commands that wait at the same time, so it can exceed the "
		"wall time (it is not wall time);\n"
		"         wp99x = p99 write latency vs `none`;\n"
		"         added = wall time discard adds to the workload (later end, longer held-up time, or its "
		"own wait\n           for the discards; not the sum above);\n         share = added / wall time.\n");
	runs_section(r, f);
	fprintf(f, "\nverdict:\n");
	for (size_t i = 0; i < nv; i++)
		fprintf(f, "  - %s.\n", v[i]);
	return ferror(f) ? -EIO : 0;
}

/* RFC 4180: quote fields holding commas, quotes or newlines. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* The raw number: integers exactly, doubles round-trip (%.17g); empty when unknown. */
void report_raw_value(enum col_kind k, double v, char *buf, size_t len)
{
	if (isnan(v))
		buf[0] = 0;
	else if (k == CK_RATIO || k == CK_SHARE)
		snprintf(buf, len, "%.17g", v);
	else
		snprintf(buf, len, "%.0f", v);
}

int report__write_csv(const struct report *r, FILE *f)
{
	size_t ncol;
	const struct report_col *cols = report_columns(&ncol);
	char buf[64];

	fputs("trace,policy,profile,status,error", f);
	for (size_t k = 0; k < ncol; k++)
		fprintf(f, ",%s", cols[k].key);
	fputs(",not_applicable\r\n", f);
	for (size_t i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];

		csv_field(f, c->trace);
		fputc(',', f);
		csv_field(f, c->policy);
		fputc(',', f);
		csv_field(f, c->profile);
		fprintf(f, ",%s,", c->status ? "error" : c->na[0] ? "n/a" : "ok");
		csv_field(f, c->status ? c->error : "");
		for (size_t k = 0; k < ncol; k++) {
			buf[0] = 0;
			if (report_cell_ok(c))
				report_raw_value(cols[k].kind, cols[k].get(c), buf, sizeof(buf));
			fprintf(f, ",%s", buf);
		}
		fputc(',', f);
		csv_field(f, c->status ? "" : c->na);
		fputs("\r\n", f);
	}
	return ferror(f) ? -EIO : 0;
}
