// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML reports lead with the decision (issue 18), as headless Chromium lays
 * them out at 1400x900: a screenshot of the fold; the decision table and the
 * heatmap of added time inside the first 900 px; a table of contents whose
 * links, like the decision table's, find their targets; the charts behind
 * closed <details>; the page under a tenth of the old report's height.
 *
 * `make demo` takes minutes, too long for a test, so this replays a fixed
 * subset of the corpus (six traces: XFS, ext4 and btrfs; a trace that cannot
 * tell, traces where discard matters and where it does not) through the demo's
 * nine policies and five profiles. Before this report led with the decision,
 * its page was 33,826 px tall at 1400 px wide (trimsim 0e2c574; the whole demo:
 * 161,229 px).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "tests/report/chromium.h"

#define BEFORE_PX	33826.0

static const char subset[] = "xfs-discard-rmlarge.tsim ext4-discard-rmlarge.tsim btrfs-discard-rmtree.tsim "
			     "xfs-fstrim-pass.tsim ext4-discard-db.tsim xfs-discard-db.tsim";
static const char policies[] = "as-recorded,xfs,ext4,ufs,ufs-trimcons,btrfs-async,fstrim,sort-merge-async,none";
static const char profiles[] = "sata-sf2281,sata-good,nvme,sdcard,ftl-sata";

TestSuite(fold, .init = th_dir_init, .fini = th_dir_fini, .timeout = 600);

static const char *plain(void)
{
	const char *bin = getenv("TRIMSIM_PLAIN");

	return bin && *bin ? bin : th_trimsim();
}

static void xmllint(const char *path)
{
	char cmd[800], *err = NULL;

	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s'", path);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "xmllint: %s", err ? err : "");
	cr_assert(!err || !*err, "xmllint said: %s", err);
	free(err);
}

/* Every in-page link of the table of contents and the decision table finds its target; returns how many. */
static size_t links_found(json_t *layout)
{
	json_t *l;
	size_t i;

	json_array_foreach(json_object_get(layout, "links"), i, l)
		cr_assert(json_is_true(json_object_get(l, "found")), "link %s has no target",
			  json_string_value(json_object_get(l, "href")));
	return json_array_size(json_object_get(layout, "links"));
}

static void above_the_fold(json_t *layout, const char *id)
{
	double b[4];

	chromium_box(layout, id, b);
	cr_assert(b[0] >= 0 && b[1] >= 0, "#%s starts at %g,%g", id, b[0], b[1]);
	cr_assert_leq(b[2], CHROMIUM_W, "#%s ends at x %g, past the window's %d px", id, b[2], CHROMIUM_W);
	cr_assert_leq(b[3], CHROMIUM_H, "#%s ends at y %g, below the fold (%d px)", id, b[3], CHROMIUM_H);
	cr_assert_gt(b[3] - b[1], 8, "#%s is empty", id);
}

static void screenshot(const char *html)
{
	char arg[800], png[700], *err = NULL;
	unsigned w = 0, h = 0;

	snprintf(png, sizeof(png), "%s/fold.png", th_dir());
	snprintf(arg, sizeof(arg), "--screenshot='%s'", png);
	cr_assert_eq(chromium(arg, html, NULL, &err), 0, "chromium: %s", err);
	free(err);
	cr_assert(png_size(png, &w, &h), "no screenshot at %s", png);
	cr_assert(w == CHROMIUM_W && h == CHROMIUM_H, "screenshot %ux%u", w, h);
}

Test(fold, compare_report_opens_with_the_decision)
{
	char cmd[2000], html[700], *out = NULL, *err = NULL;

	snprintf(html, sizeof(html), "%s/r.html", th_dir());
	snprintf(cmd, sizeof(cmd), "cd '%s/traces/corpus' && '%s' compare %s -p '%s' -M %s -j 2 -q -o '%s'", th_src(),
		 plain(), subset, policies, profiles, html);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s: %s", cmd, err);
	free(err);
	xmllint(html);
	screenshot(html);

	json_t *lay = chromium_layout(html);

	above_the_fold(lay, "decision");
	above_the_fold(lay, "heatmap");
	above_the_fold(lay, "toc");
	/* the TOC's 4 links and one per trace in the decision table */
	cr_assert_eq(links_found(lay), 4 + 6);
	double h = json_number_value(json_object_get(lay, "height"));

	cr_assert_lt(h, BEFORE_PX / 10, "the page is %g px tall (before: %g px)", h, BEFORE_PX);
	cr_assert_leq(json_number_value(json_object_get(lay, "width")), CHROMIUM_W, "the page scrolls sideways");
	json_decref(lay);

	/* the DOM: charts and the figures only inside closed <details>, none empty, the histogram as bars */
	cr_assert_eq(chromium("--dump-dom", html, &out, &err), 0, "%s", err);
	cr_assert_null(strstr(out, "<details open"), "a <details> is open");
	size_t charts = 0;

	for (const char *p = out; (p = strstr(p, "<svg ")); p++, charts++) {
		const char *end = strstr(p, "</svg>"), *d = p;

		cr_assert_not_null(end);
		cr_assert(memmem(p, (size_t)(end - p), "<g class=\"series\"", 17) ||
			  memmem(p, (size_t)(end - p), "<g class=\"bars\"", 15), "an empty chart: %.300s", p);
		/* the innermost enclosing <details> is still open in the text before the chart */
		while (d > out && strncmp(d, "<details", 8) && strncmp(d, "</details>", 10))
			d--;
		cr_assert(!strncmp(d, "<details", 8), "a chart outside <details>: %.200s", p);
		if (memmem(p, strcspn(p, ">"), "data-chart=\"size-histogram\"", 27))
			cr_assert_null(memmem(p, (size_t)(end - p), "<polyline", 9), "a histogram drawn as lines");
	}
	cr_assert_gt(charts, 0);
	free(out);
	free(err);
}

Test(fold, recommend_report_leads_with_the_recommendations)
{
	char cmd[2000], html[700], cmp[700], *err = NULL;

	/* a trace name that needs escaping: the page stays well-formed and shows the name as it is */
	snprintf(html, sizeof(html), "%s/rec.html", th_dir());
	snprintf(cmd, sizeof(cmd), "cp '%s/traces/corpus/xfs-discard-rmlarge.tsim' '%s/r&d <1>.tsim' && cd '%s' && "
		 "'%s' recommend 'r&d <1>.tsim' -M sata-sf2281,nvme -j 2 -q -o '%s'", th_src(), th_dir(), th_dir(),
		 plain(), html);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s: %s", cmd, err);
	free(err);
	xmllint(html);
	char *page = th_slurp(html, NULL);

	cr_assert(page && strstr(page, ">r&amp;d &lt;1&gt;.tsim</a>"), "%s", page);
	free(page);

	json_t *lay = chromium_layout(html);
	double rec[4], front[4];

	chromium_box(lay, "recommendations", rec);
	chromium_box(lay, "fronts", front);
	cr_assert_lt(rec[1], CHROMIUM_H / 4, "the recommendations start at %g px", rec[1]);
	cr_assert_lt(rec[3], front[1], "the fronts come after the recommendations");
	/* TOC (2) and one link per trace x device row to its front */
	cr_assert_eq(links_found(lay), 2 + 2);
	json_decref(lay);

	/* one page skeleton: the same stylesheet as compare's report */
	char *a = th_slurp(html, NULL), *b;

	snprintf(cmp, sizeof(cmp), "%s/c.html", th_dir());
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' compare 'r&d <1>.tsim' -p xfs,none -M nvme -q -o '%s'", th_dir(),
		 plain(), cmp);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	b = th_slurp(cmp, NULL);
	cr_assert(a && b);
	const char *sa = strstr(a, "<style>"), *sb = strstr(b, "<style>");

	cr_assert(sa && sb);
	cr_assert_eq(strcspn(sa, "\n"), strcspn(sb, "\n"));
	cr_assert_eq(strncmp(sa, sb, strcspn(sa, "\n")), 0, "two stylesheets");
	cr_assert(strstr(b, ">r&amp;d &lt;1&gt;.tsim</a>"), "%s", b);
	free(a);
	free(b);
}
