// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report: well-formed (xmllint), self-contained (no scripts, no
 * external references), and headless Chromium finds every table and chart.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "tests/report/chromium.h"
#include "tests/report/fixture.h"
#include "replay/report/report_int.h"

static char html[600];

static void setup(void)
{
	struct report *r = fx_report(10 * FX_S);
	char *s = fx_render(r, "html");

	th_dir_init();
	snprintf(html, sizeof(html), "%s/report.html", th_dir());
	cr_assert_eq(th_write(html, s, strlen(s)), 0);
	free(s);
	report__destroy(r);
}

TestSuite(html, .init = setup, .fini = th_dir_fini, .timeout = 120);

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

Test(html, well_formed_xml)
{
	char cmd[800], *err = NULL;

	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s'", html);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "xmllint: %s", err ? err : "");
	cr_assert(!err || !*err, "xmllint said: %s", err);
	free(err);
}

Test(html, self_contained)
{
	char *s = th_slurp(html, NULL);

	cr_assert_not_null(s);
	cr_assert_null(strstr(s, "<script"));
	cr_assert_null(strstr(s, "http://www.w3.org/1999/xhtml\" lang") ? strstr(s, "src=\"http") : NULL);
	cr_assert_null(strstr(s, "href=\"http"));
	cr_assert_null(strstr(s, "@import"));
	cr_assert_null(strstr(s, "url("));
	free(s);
}

static char *between(const char *s, const char *from, const char *to)
{
	const char *a = strstr(s, from), *b = a ? strstr(a, to) : NULL;

	cr_assert(a && b, "no %s ... %s", from, to);
	return strndup(a, (size_t)(b - a));
}

Test(html, chromium_finds_every_chart_and_table)
{
	char *out = NULL, *err = NULL;
	int st = chromium("--dump-dom", html, &out, &err);

	cr_assert_eq(st, 0, "chromium failed (%d): %s", st, err ? err : "");
	cr_assert_not_null(out);
	/* the DOM Chromium built: one table per trace, 4 charts per profile (2 profiles) */
	cr_assert_eq(count(out, "<table class=\"cells\""), 1, "%.2000s", out);
	cr_assert_eq(count(out, "data-chart=\"latency-cdf\""), 2);
	cr_assert_eq(count(out, "data-chart=\"size-histogram\""), 2);
	cr_assert_eq(count(out, "data-chart=\"discard-timeline\""), 2);
	cr_assert_eq(count(out, "data-chart=\"untrimmed\""), 2);
	/* the CDFs and timelines draw a line for each policy that discarded (xfs, ext4, fstrim); the
	   untrimmed chart one for each (none too) */
	cr_assert_geq(count(out, "<polyline"), 2 * (3 + 3 + 4));
	/* the size histogram is bars: one <rect> per bucket a policy used, and no line */
	char *sizes = between(out, "data-chart=\"size-histogram\"", "</svg>");

	cr_assert_null(strstr(sizes, "<polyline"), "%s", sizes);
	cr_assert_geq(count(sizes, "<g class=\"bars\""), 3, "%s", sizes);
	free(sizes);
	/* 8 cells: 8 body rows in the figures table */
	char *cells = between(out, "<table class=\"cells\"", "</table>");

	cr_assert_eq(count(cells, "<tr"), 9, "%s", cells);
	free(cells);
	/* the decision leads: the table, then the heatmap, both before the first trace's section */
	const char *dec = strstr(out, "id=\"decision\""), *heat = strstr(out, "id=\"heatmap\""),
		   *sec = strstr(out, "id=\"trace-0\""), *ver = strstr(out, "<ul class=\"verdicts\">");

	cr_assert(dec && heat && sec && ver && dec < heat && heat < sec && sec < ver, "%.3000s", out);
	/* one decision row (one trace), one cell per profile: discard matters on sata-sf2281, not on nvme */
	char *d = between(out, "id=\"decision\"", "</table>");

	cr_assert_eq(count(d, "<tr"), 2, "%s", d);
	cr_assert_eq(count(d, "data-matters=\"discard matters\""), 1, "%s", d);
	cr_assert_eq(count(d, "data-matters=\"discard does not matter\""), 1, "%s", d);
	free(d);
	/* the verdict sentences come last, behind a closed <details> */
	cr_assert(strstr(out, "<details id=\"verdicts\"><summary>"), "%s", out);
	cr_assert(strstr(out, "discard does not matter for this workload"));
	/* Chromium parsed SVG as SVG (namespace kept), not as unknown HTML elements */
	cr_assert(strstr(out, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	free(out);
	free(err);
}

Test(html, repeated_runs_table_is_well_formed)
{
	char *traces[] = { "a.tsim" };
	char *pols[] = { "none", "xfs & <ext4>" };	/* names that need escaping */
	char *profs[] = { "file:/tmp/x" };
	struct report *r = report__new(traces, 1, pols, 2, profs, 1, 4, 1);
	char path[700], cmd[900], *err = NULL;

	for (size_t p = 0; p < 2; p++) {
		struct report_cell *c = report__cell(r, p);

		fx_fill(c, p ? &fx_xfs : &fx_none, 1.0, FX_S);
		c->realtime = true;
		c->runs.n = 4;
		for (int k = 0; k < 4; k++) {
			c->runs.makespan_s[k] = 1.0 + p + 0.01 * k;
			c->runs.discard_s[k] = p * (0.2 + 0.01 * k);
		}
	}
	cr_assert_eq(report__finish(r), 0);
	char *s = fx_render(r, "html");

	cr_assert(strstr(s, "<table class=\"runs\">"));
	cr_assert(strstr(s, "<code>xfs &amp; &lt;ext4&gt;</code> vs <code>none</code> (4 runs each), makespan differs"),
		  "%s", s);
	snprintf(path, sizeof(path), "%s/runs.html", th_dir());
	cr_assert_eq(th_write(path, s, strlen(s)), 0);
	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s'", path);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "xmllint: %s", err ? err : "");
	free(err);
	free(s);
	report__destroy(r);
}

/*
 * A trace that cannot tell (no foreground I/O, discards from a background worker): the
 * decision names the policy with the least device time in TRIM, never one whose discards
 * failed fast (`ext4`'s 24 rejected commands made it the least before).
 */
Test(html, decision_skips_policies_whose_discards_failed)
{
	struct report *r = fx_report_ext4_rejected(true);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_not_null(f = open_memstream(&buf, &len));
	report_html_decision(r, f);
	fclose(f);
	cr_assert(strstr(buf, "data-matters=\"the trace cannot tell\""), "%s", buf);
	cr_assert(strstr(buf, "<b>xfs</b> 18 s in TRIM"), "%s", buf);
	cr_assert_null(strstr(buf, "<b>ext4</b>"), "%s", buf);
	free(buf);
	report__destroy(r);
}

/*
 * Count axes read as the tables count: "10000", not "1e+04" (the timeline's commands per bin
 * on ext4-discard-rmtree replayed one discard per freed block).
 */
Test(html, count_axes_are_plain_numbers)
{
	char cmd[1200], out[700], *s;

	snprintf(out, sizeof(out), "%s/counts.html", th_dir());
	snprintf(cmd, sizeof(cmd), "%s compare %s/traces/corpus/ext4-discard-rmtree.tsim -p ufs -M nvme -q -o '%s'",
		 th_trimsim(), th_src(), out);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	cr_assert_not_null(s = th_slurp(out, NULL));
	cr_expect_null(strstr(s, "e+0"), "a tick label in exponent notation");
	cr_expect_not_null(strstr(s, ">10000</text>"));
	free(s);
}
