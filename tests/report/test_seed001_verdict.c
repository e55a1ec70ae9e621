// SPDX-License-Identifier: GPL-2.0
/*
 * Seed 001 through the front door (issue 16): the two traces of the seed's table,
 * written as blktrace files the way the kernel traces them, imported with
 * `trimsim import --from blktrace` and compared over sata-sf2281, sata-good and nvme
 * in every format, as a user would.
 *
 * The traces are the seed's command lists (tests/models/test_seed001.c): XFS sent
 * 39,395 discards, 18,842 of 27 sectors and 20,553 of 26 (1,043,112 sectors), one
 * extent after another with a 4 KiB gap; ext4 sent 24 of 43,036 sectors. Linux 3.2
 * issued them one at a time, each after the previous completed (blkdev_issue_discard()
 * waited), as recorded on a fast device: Q, G, I, D, then C 2 us after the D, the next
 * Q 3 us after the last (the 118.2 ms XFS trace of the issue). Only discards: blktrace
 * of the discard stream, no foreground I/O.
 *
 * Before the fix every format said "discard does not matter on any of the 3 profiles"
 * (with no foreground I/O the added time was 0); the discards were the workload's own
 * wait. Now each profile reads "matters", with the 6-minute figure on the SandForce.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "tests/report/seed001.h"

static const char *dir;
static char *text, *summary, *html, *csv;
static json_t *rep;

static void run(const char *cmd, char **out)
{
	char *err = NULL;

	cr_assert_eq(th_run(cmd, out, &err), 0, "%s: %s", cmd, err ? err : "");
	free(err);
}

static void setup(void)
{
	char cmd[4096], p[512];
	size_t n;

	th_dir_init();
	dir = th_dir();
	snprintf(p, sizeof(p), "%s/xfs-rm.blktrace.0", dir);
	s1_write_blktrace(p, 39395, s1_xfs_len, 4096);
	snprintf(p, sizeof(p), "%s/ext4-rm.blktrace.0", dir);
	s1_write_blktrace(p, 24, s1_ext4_len, 32ull << 20);
	for (int k = 0; k < 2; k++) {
		const char *name = k ? "ext4-rm" : "xfs-rm";

		snprintf(cmd, sizeof(cmd), "%s import --from blktrace %s/%s.blktrace.0 --device-size 120G -o %s/%s.tsim",
			 th_trimsim(), dir, name, dir, name);
		run(cmd, NULL);
	}
	snprintf(cmd, sizeof(cmd), "cd %s && %s compare xfs-rm.tsim ext4-rm.tsim -p as-recorded,none "
		 "-M sata-sf2281,sata-good,nvme --jobs 2 -q -o r.txt -o r.json -o r.csv -o r.html",
		 dir, th_trimsim());
	run(cmd, NULL);
	snprintf(cmd, sizeof(cmd), "cd %s && %s compare xfs-rm.tsim ext4-rm.tsim -p as-recorded,none "
		 "-M sata-sf2281,sata-good,nvme --jobs 2 --format summary", dir, th_trimsim());
	run(cmd, &summary);
	snprintf(p, sizeof(p), "%s/r.txt", dir);
	cr_assert_not_null(text = th_slurp(p, &n));
	snprintf(p, sizeof(p), "%s/r.html", dir);
	cr_assert_not_null(html = th_slurp(p, &n));
	snprintf(p, sizeof(p), "%s/r.csv", dir);
	cr_assert_not_null(csv = th_slurp(p, &n));
	snprintf(p, sizeof(p), "%s/r.json", dir);
	cr_assert_not_null(rep = json_load_file(p, 0, NULL));
}

static void teardown(void)
{
	th_dir_fini();
	free(text);
	free(summary);
	free(html);
	free(csv);
	json_decref(rep);
}

TestSuite(seed001_verdict, .init = setup, .fini = teardown, .timeout = 300);

static const json_t *cell(const char *trace, const char *policy, const char *profile)
{
	size_t i;
	const json_t *c;

	json_array_foreach(json_object_get(rep, "cells"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "trace")), trace) &&
		    !strcmp(json_string_value(json_object_get(c, "policy")), policy) &&
		    !strcmp(json_string_value(json_object_get(c, "profile")), profile))
			return c;
	cr_assert_fail("no cell %s %s %s", trace, policy, profile);
	return NULL;
}

static double metric(const json_t *c, const char *key)
{
	return json_number_value(json_object_get(json_object_get(c, "metrics"), key));
}

/* The sentences every format shows: text and HTML carry the verdict list, the JSON its array. */
static const char *const verdicts[] = {
	"xfs-rm.tsim on sata-sf2281, discard matters: `as-recorded` adds 6.24 min, 3166x the 118 ms wall time",
	"xfs-rm.tsim on sata-good, discard matters: `as-recorded` adds 2 s, 16.9x the 118 ms wall time",
	"xfs-rm.tsim on nvme, discard matters: `as-recorded` adds 1.19 s, 10x the 118 ms wall time",
	"ext4-rm.tsim on sata-sf2281, discard matters: `as-recorded` adds 242 ms, 3386x the 71.5 us wall time",
	"ext4-rm.tsim on sata-good, discard matters: `as-recorded` adds 31.8 ms, 445x the 71.5 us wall time",
	"ext4-rm.tsim on nvme, discard matters: `as-recorded` adds 5.62 ms, 78.5x the 71.5 us wall time",
	"xfs-rm.tsim on sata-sf2281, `as-recorded` spends 6.24 min in TRIM (39395 commands)",
};

Test(seed001_verdict, text_and_json_verdicts)
{
	const json_t *v = json_object_get(rep, "verdicts");

	for (size_t k = 0; k < sizeof(verdicts) / sizeof(verdicts[0]); k++) {
		bool in_json = false;
		size_t i;
		const json_t *s;

		cr_expect(strstr(text, verdicts[k]), "text lacks: %s\n%s", verdicts[k], text);
		json_array_foreach(v, i, s)
			in_json |= strstr(json_string_value(s), verdicts[k]) != NULL;
		cr_expect(in_json, "JSON verdicts lack: %s", verdicts[k]);
	}
	cr_expect_null(strstr(text, "does not matter"), "%s", text);
	cr_expect_null(strstr(text, "cannot tell"), "%s", text);
}

Test(seed001_verdict, json_figures)
{
	const json_t *c = cell("xfs-rm.tsim", "as-recorded", "sata-sf2281");

	cr_assert_str_eq(json_string_value(json_object_get(c, "wait_basis")), "synchronous");
	/* 39,395 serial non-queued TRIMs: over 6 minutes (the seed), the workload's wait */
	cr_expect(metric(c, "added_ns") > 360e9 && metric(c, "added_ns") < 450e9, "%.0f", metric(c, "added_ns"));
	cr_expect_eq(metric(c, "added_ns"), metric(c, "discard_wait_ns"));
	cr_expect_float_eq(metric(c, "share"), metric(c, "added_ns") / metric(c, "wall_ns"), 1e-9);
	cr_expect_eq(metric(c, "wall_ns"), 39394 * 3000 + 2500);	/* first Q to last C */
	/*
	 * NVMe queues deallocates, but these went out one at a time, each after the previous
	 * completed: "the speed of online discard is a purely a function of number * duration"
	 * (the seed), 39,395 x the profile's ~30 us, not the 148 ms of the same commands sent
	 * at their trace times into its 256-deep queue (the replay before chain)
	 */
	c = cell("xfs-rm.tsim", "as-recorded", "nvme");
	cr_expect(metric(c, "added_ns") >= 39395 * 30000.0 && metric(c, "added_ns") < 39395 * 31000.0, "%.0f",
		  metric(c, "added_ns"));
	c = cell("ext4-rm.tsim", "as-recorded", "sata-sf2281");
	cr_expect(metric(c, "added_ns") < 1e9, "ext4's 24 discards: under a second (%.0f)", metric(c, "added_ns"));
	cr_expect(metric(c, "share") >= 0.01);
	c = cell("xfs-rm.tsim", "none", "sata-sf2281");
	cr_expect_eq(metric(c, "added_ns"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(c, "wait_basis")), "none");
}

Test(seed001_verdict, summary_csv_html)
{
	cr_expect(strstr(summary, "sata-sf2281 only `as-recorded` discards: 6.24 min in TRIM; discard matters: "
			 "`as-recorded` adds 6.24 min (3166x the wall time)"), "%s", summary);
	cr_expect(strstr(summary, "nvme        only `as-recorded` discards: 1.19 s in TRIM; discard matters: "
			 "`as-recorded` adds 1.19 s (10x the wall time)"), "%s", summary);
	cr_expect_null(strstr(summary, "does not matter"), "%s", summary);
	/* CSV: the row of the cell, added_ns = the 6-minute wait (374.2 s) */
	cr_expect(strstr(csv, "\nxfs-rm.tsim,as-recorded,sata-sf2281,ok,,39395,534073344,"), "%s", csv);
	cr_expect(strstr(csv, ",374220687831,"), "%s", csv);
	cr_expect(strstr(html, "6.24 min, 3166x the 118 ms wall time"));
	/* the table's figures through the one formatter, not raw numbers */
	cr_expect(strstr(html, ">509 MiB</td>"), "bytes in IEC units");
	cr_expect(strstr(html, ">6.24 min</td>"), "durations humanised");
	cr_expect_null(strstr(html, "does not matter"));
}
