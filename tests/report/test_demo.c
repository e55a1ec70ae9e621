// SPDX-License-Identifier: GPL-2.0
/*
 * make demo's script (replay/report/demo.sh) from a clean output directory:
 * it prints the table and the verdict, writes report.html and report.json, and
 * the verdict it prints is the one in the JSON; report.html opens with the
 * decision table and the heatmap above the fold of a 1400x900 window; then it
 * prints the recommendation per trace and device and writes recommend.html.
 * Two profiles keep it short; the synthetic traces stand in when traces/corpus/
 * is empty.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/report/agree.h"
#include "tests/report/chromium.h"
#include "tests/common/helpers.h"

TestSuite(demo, .init = th_dir_init, .fini = th_dir_fini);

Test(demo, prints_table_and_verdict_writes_reports, .timeout = 300)
{
	char cmd[3000], path[700], *out = NULL, *err = NULL;
	const char *bin = getenv("TRIMSIM_PLAIN");

	snprintf(cmd, sizeof(cmd), "TRIMSIM='%s' DEMO_PROFILES=sata-sf2281,nvme DEMO_JOBS=2 "
		 "DEMO_RECOMMEND='xfs-discard-rmtree.tsim ext4-discard-rmtree.tsim btrfs-discard-rmtree.tsim' "
		 "%s/replay/report/demo.sh %s/out",
		 bin && *bin ? bin : th_trimsim(), th_src(), th_dir());
	int st = th_run(cmd, &out, &err);

	cr_assert_eq(st, 0, "demo failed: %s\n%s", err, out);
	/* the terminal gets the compact view; the table and the verdict are in report.txt */
	snprintf(path, sizeof(path), "%s/out/report.txt", th_dir());
	char *txt = th_slurp(path, NULL);

	cr_assert_not_null(txt, "no report.txt");
	cr_assert(strstr(txt, "trimsim compare: "), "%s", txt);
	cr_assert(strstr(txt, "\nverdict:\n"), "%s", txt);
	cr_assert_null(strstr(out, "\nverdict:\n"), "the terminal shows the compact view: %s", out);
	cr_assert(strstr(out, " in TRIM"), "%s", out);
	cr_assert(strstr(out, "discard matters") || strstr(out, "discard does not matter"), "%s", out);
	cr_assert_lt(th_lines(out), th_lines(txt), "compact: %s", out);
	cr_assert(strstr(out, "/out/report.txt\n") && strstr(out, "/out/report.html\n") &&
		  strstr(out, "/out/report.json\n"), "%s", out);
	snprintf(path, sizeof(path), "%s/out/report.html", th_dir());
	cr_assert_eq(access(path, R_OK), 0, "no report.html");
	json_t *lay = chromium_layout(path);
	double box[4];

	for (const char *const *id = (const char *const[]){ "decision", "heatmap", "toc", NULL }; *id; id++) {
		chromium_box(lay, *id, box);
		cr_assert(box[1] >= 0 && box[3] <= CHROMIUM_H && box[2] <= CHROMIUM_W, "#%s at %g,%g..%g,%g", *id, box[0],
			  box[1], box[2], box[3]);
	}
	json_decref(lay);
	/* recommend: one line per trace and device (three traces of the corpus, or both synthetic ones) */
	size_t pairs = strstr(out, "synthetic traces") ? 2 * 2 : 3 * 2, uses = 0;

	for (const char *p = out; (p = strstr(p, ": use ")); p++)
		uses++;
	for (const char *p = out; (p = strstr(p, ": no recommendation: ")); p++)
		uses++;
	cr_assert_eq(uses, pairs, "%s", out);
	cr_assert(strstr(out, " on sata-sf2281: use ") && strstr(out, " on nvme: use "), "%s", out);
	cr_assert(strstr(out, "/out/recommend.html\n") && strstr(out, "/out/recommend.txt\n"), "%s", out);
	snprintf(path, sizeof(path), "%s/out/recommend.html", th_dir());
	char *rh = th_slurp(path, NULL);

	cr_assert(rh && strstr(rh, "<table class=\"recs\" id=\"recommendations\">"), "no recommend.html");
	free(rh);
	snprintf(path, sizeof(path), "%s/out/report.json", th_dir());
	char *js = th_slurp(path, NULL);

	cr_assert_not_null(js, "no report.json");
	agree_verdicts(txt, js);
	cr_assert_gt(agree_ratios(js), 0, "the demo ranks policies: %s", txt);
	if (strstr(out, "synthetic traces")) {
		/* seed 001 on the SandForce model; seed 002 says discard does not matter */
		cr_assert(strstr(js, "demo-rm-xfs.tsim on sata-sf2281, discard matters"), "%s", out);
		cr_assert(strstr(js, "demo-build-ext4.tsim: discard does not matter on any of the 2 profiles"), "%s", out);
	}
	free(js);
	free(txt);
	free(out);
	free(err);
}
