// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim recommend (issue 18): the search finds the grid's Pareto front on a
 * small corpus trace; seed 001's XFS trace gets nodiscard + fstrim on the
 * SandForce, with the minutes it saves, and keeps online discard on NVMe; a
 * device that rejects discard is said so; cells come back from --cache without
 * a replay; the JSON is deterministic; bad input fails in one line; p99 read
 * latency inflation is an objective.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "replay/report/recommend.h"
#include "tests/report/seed001.h"
#include "tests/report/fixture.h"
#include "replay/report/rec_int.h"

/*
 * plain: the -O2 binary without sanitizers ($TRIMSIM_PLAIN), for the tests that replay
 * a few hundred cells (the grid, seed 001's 118,185 records); the others run the
 * sanitized one through the same code.
 */
static json_t *recommend(const char *args, bool plain)
{
	char cmd[4096], *out = NULL, *err = NULL;
	const char *bin = plain ? getenv("TRIMSIM_PLAIN") : th_trimsim();
	json_t *j;

	cr_assert(bin, "TRIMSIM_PLAIN is not set (run through make)");
	snprintf(cmd, sizeof(cmd), "cd %s && %s recommend %s --json -j 2", th_dir(), bin, args);
	cr_assert_eq(th_run(cmd, &out, &err), 0, "%s: %s", cmd, err ? err : "");
	j = json_loads(out, 0, NULL);
	cr_assert_not_null(j, "%s: not JSON:\n%s", cmd, out);
	free(out);
	free(err);
	return j;
}

static const json_t *result(const json_t *rep, const char *profile)
{
	size_t i;
	const json_t *r;

	json_array_foreach(json_object_get(rep, "recommendations"), i, r)
		if (!strcmp(json_string_value(json_object_get(r, "profile")), profile))
			return r;
	cr_assert_fail("no result for %s", profile);
	return NULL;
}

static double num(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);

	return json_number_value(b ? json_object_get(v, b) : v);
}

/* Two front members are the same point when every objective is equal (cells are deterministic). */
static bool same_point(const json_t *a, const json_t *b)
{
	static const char *const keys[] = { "trim_ns", "added_ns", "reclaim", "reclaim_byte_s",
					    "write_p99_inflation", "read_p99_inflation", "write_amp" };
	const json_t *x = json_object_get(a, "objectives"), *y = json_object_get(b, "objectives");

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!json_equal(json_object_get(x, keys[i]), json_object_get(y, keys[i])))
			return false;
	return true;
}

TestSuite(recommend, .init = th_dir_init, .fini = th_dir_fini, .timeout = 300);

/*
 * The full grid of ext4's settings on the corpus's ext4 rm of large files (none, as-recorded and
 * ext4 x discard_max_bytes, fstrim schedules x minlen: 46 cells per profile) against the search:
 * every point of the grid's front is on the search's front, and the search replayed fewer cells.
 */
Test(recommend, search_front_contains_grid_front)
{
	char args[1024];
	json_t *grid, *search;

	snprintf(args, sizeof(args), "%s/traces/corpus/ext4-discard-rmlarge.tsim -M sata-sf2281,emmc", th_src());
	search = recommend(args, true);
	strncat(args, " --grid", sizeof(args) - strlen(args) - 1);
	grid = recommend(args, true);
	cr_assert_str_eq(json_string_value(json_object_get(grid, "search")), "grid");
	for (size_t k = 0; k < 2; k++) {
		const char *prof = k ? "emmc" : "sata-sf2281";
		const json_t *g = result(grid, prof), *s = result(search, prof), *gf, *sf;
		size_t i, j;

		cr_expect_lt(num(s, "settings_tried", NULL), num(g, "settings_tried", NULL), "%s", prof);
		cr_expect_eq(num(g, "settings_tried", NULL), 46, "%s", prof);
		cr_expect_gt(json_array_size(json_object_get(g, "front")), 2, "%s: a front worth searching", prof);
		json_array_foreach(json_object_get(g, "front"), i, gf) {
			bool found = false;

			json_array_foreach(json_object_get(s, "front"), j, sf)
				found |= same_point(gf, sf);
			cr_expect(found, "%s: the grid's front point `%s` is not on the search's front", prof,
				  json_string_value(json_object_get(gf, "policy")));
		}
		cr_expect_str_eq(json_string_value(json_object_get(json_object_get(g, "recommendation"), "policy")),
				 json_string_value(json_object_get(json_object_get(s, "recommendation"), "policy")),
				 "%s: same choice", prof);
	}
	json_decref(grid);
	json_decref(search);
}

/*
 * Seed 001's XFS trace, imported from blktrace: 39,395 serial discards. On the SF-2281
 * online discard as recorded costs the workload 6 min 14 s; nodiscard (+ fstrim.timer,
 * which the trace cannot replay: no FREE records) saves those minutes. On NVMe the same
 * discards, each sent after the previous completed, add 1.19 s (39,395 x ~30 us: the seed's
 * "number * duration"): nodiscard there too. Sent at their trace times into NVMe's queue
 * (the replay before the chain stage) they added 148 ms and online discard was kept.
 */
Test(recommend, seed001_xfs)
{
	char p[512], cmd[2048];
	json_t *rep;
	const json_t *r, *rec, *vs;

	snprintf(p, sizeof(p), "%s/xfs-rm.blktrace.0", th_dir());
	s1_write_blktrace(p, 39395, s1_xfs_len, 4096);
	snprintf(cmd, sizeof(cmd), "cd %s && %s import --from blktrace xfs-rm.blktrace.0 --device-size 120G "
		 "-o xfs-rm.tsim", th_dir(), th_trimsim());
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	rep = recommend("xfs-rm.tsim -M sata-sf2281,nvme --fs xfs", true);

	r = result(rep, "sata-sf2281");
	rec = json_object_get(r, "recommendation");
	cr_expect_str_eq(json_string_value(json_object_get(r, "discard")), "matters");
	cr_expect_str_eq(json_string_value(json_object_get(rec, "policy")), "none");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(rec, "settings"), "mount_options")),
			 "nodiscard");
	char *cmds = json_dumps(json_object_get(json_object_get(rec, "settings"), "commands"), 0);

	cr_expect(cmds && strstr(cmds, "fstrim.timer"), "the freed space goes back through fstrim.timer: %s", cmds);
	free(cmds);
	vs = json_object_get(rec, "versus_recorded");
	/* the seed's 6 minutes: more than 360 s of the workload's time saved */
	cr_expect(num(vs, "added_saved_ns", NULL) > 360e9 && num(vs, "added_saved_ns", NULL) < 450e9, "%.0f",
		  num(vs, "added_saved_ns", NULL));
	cr_expect(strstr(json_string_value(json_object_get(vs, "sentence")), "saves 6.24 min of the workload's "
									      "time"), "%s",
		  json_string_value(json_object_get(vs, "sentence")));

	/* NVMe: the same serial discards, 39,395 x ~30 us, are more than the 1 s a tie allows */
	r = result(rep, "nvme");
	rec = json_object_get(r, "recommendation");
	cr_expect_str_eq(json_string_value(json_object_get(r, "discard")), "matters");
	cr_expect_str_eq(json_string_value(json_object_get(rec, "policy")), "none");
	cr_expect(strstr(json_string_value(json_object_get(rec, "reason")), "adds 1.19 s"), "%s",
		  json_string_value(json_object_get(rec, "reason")));
	json_decref(rep);
}

/* A front member's objectives by its policy; NULL when it is not on the front. */
static const json_t *front_obj(const json_t *r, const char *policy)
{
	size_t i;
	const json_t *f;

	json_array_foreach(json_object_get(r, "front"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "policy")), policy))
			return json_object_get(f, "objectives");
	return NULL;
}

/*
 * p99 read latency inflation is an objective (JSON, text): a trace of 200 foreground 4 KiB
 * reads, one every 10 ms, and a 32 MiB discard before every tenth. On the SF-2281 (non-queued
 * TRIM) the reads that follow a discard wait for it: as-recorded's p99 read is 8.72 ms against
 * the discard-free twin's 113.7 us, 76.64x, while writes are untouched (there are none: 1x).
 * On NVMe (queued deallocate) the reads do not wait: 1x, the 1M split 1.0019x.
 */
/* A JSON Lines trace in the scratch directory: one loop7 device of 1 GiB with filesystem fs. */
static FILE *jsonl_open(const char *name, const char *fs)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", th_dir(), name);
	cr_assert_not_null(f = fopen(path, "w"), "%s", path);
	fprintf(f, "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"devices\":[{\"dev\":\"7:0\","
		"\"name\":\"loop7\",\"size\":1073741824,\"fs\":\"%s\",\"fs_block_size\":4096}]}}\n", fs);
	return f;
}

/* One record of that device. */
static void jsonl_rec(FILE *f, unsigned long long t, const char *kind, const char *op, unsigned long long off,
		      unsigned long long len, unsigned long long lat)
{
	fprintf(f, "{\"t\":%llu,\"kind\":\"%s\",\"op\":\"%s\",\"dev\":\"7:0\",\"off\":%llu,\"len\":%llu,"
		"\"ino\":1,\"lat\":%llu,\"flags\":\"\"}\n", t, kind, op, off, len, lat);
}

Test(recommend, read_p99_inflation)
{
	char cmd[1024], *out = NULL;
	unsigned n = 0;
	FILE *f;
	json_t *rep;
	const json_t *o;

	f = jsonl_open("rd.jsonl", "ext4");
	for (unsigned k = 0; k < 200; k++) {
		unsigned long long t = 1000000ull + k * 10000000ull;

		if (k % 10 == 0) {
			jsonl_rec(f, t, "ISSUE", "discard", (k / 10ull) << 25, 1ull << 25, 0);
			jsonl_rec(f, t + 2000000, "DONE", "discard", (k / 10ull) << 25, 1ull << 25, 2000000);
			n += 2;
		}
		jsonl_rec(f, t + 100000, "ISSUE", "read", k * 4096ull, 4096, 0);
		jsonl_rec(f, t + 200000, "DONE", "read", k * 4096ull, 4096, 100000);
		n += 2;
	}
	fprintf(f, "{\"footer\":{\"records\":%u,\"lost\":0,\"end_ns\":2001000000}}\n", n);
	cr_assert_eq(fclose(f), 0);
	rep = recommend("rd.jsonl -M sata-sf2281,nvme", false);

	cr_assert_not_null(o = front_obj(result(rep, "sata-sf2281"), "as-recorded"));
	cr_expect_float_eq(num(o, "read_p99_inflation", NULL), 8716287.0 / 113732.0, 1e-6);
	cr_expect_float_eq(num(o, "write_p99_inflation", NULL), 1.0, 1e-12);
	cr_assert_not_null(o = front_obj(result(rep, "sata-sf2281"), "none"));
	cr_expect_float_eq(num(o, "read_p99_inflation", NULL), 1.0, 1e-12);
	cr_assert_not_null(o = front_obj(result(rep, "nvme"), "as-recorded|split(max=1M)"));
	cr_expect_float_eq(num(o, "read_p99_inflation", NULL), 1.0019, 1e-4);
	json_decref(rep);

	/* the text's front table has the column */
	snprintf(cmd, sizeof(cmd), "cd %s && %s recommend rd.jsonl -M sata-sf2281 -j 2", th_dir(), th_trimsim());
	cr_assert_eq(th_run(cmd, &out, NULL), 0, "%s", cmd);
	cr_expect(strstr(out, "rp99x"), "%s", out);
	cr_expect(strstr(out, "     1x  76.6x "), "%s", out);	/* wp99x, rp99x: 76.64x in three digits */
	free(out);
}

/*
 * recommend -M nvme on a trace of 20 commands op of 2^shift bytes each (ISSUE, DONE lat later), one
 * every gap ns from 1 ms on, back to back on the device; its text output.
 */
static char *pairs_recommend(const char *name, const char *fs, const char *op, unsigned long long gap, unsigned shift,
			     unsigned long long lat)
{
	char cmd[1024], *out = NULL;
	FILE *f = jsonl_open(name, fs);

	for (unsigned long long k = 0; k < 20; k++) {
		jsonl_rec(f, 1000000 + k * gap, "ISSUE", op, k << shift, 1ull << shift, 0);
		jsonl_rec(f, 1000000 + k * gap + lat, "DONE", op, k << shift, 1ull << shift, lat);
	}
	fprintf(f, "{\"footer\":{\"records\":40,\"lost\":0,\"end_ns\":%llu}}\n", 1000000 + 20 * gap);
	cr_assert_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "cd %s && %s recommend %s -M nvme -j 2", th_dir(), th_trimsim(), name);
	cr_assert_eq(th_run(cmd, &out, NULL), 0, "%s", cmd);
	return out;
}

/*
 * A trace with device commands only (no FREE or INTENT: btrfs, an import from blktrace) cannot
 * show how soon a setting tells the device about freed space. Where discard does not matter the
 * pick then rests on TRIM time, and the reason says so instead of calling it the soonest; the
 * front table's reclaim column holds "unknown" in its width and one line under the table says why.
 * The filesystem's own setting (btrfs discard=async) cannot be replayed either, and the note of the
 * recommendation says so: before, "keep the discard setting" read as btrfs' best.
 */
Test(recommend, no_frees_reclaim_unknown)
{
	char *out = pairs_recommend("nofree.jsonl", "btrfs", "discard", 1000000000, 22, 500000), *line, *head, cmd[1024];
	ptrdiff_t col;
	unsigned rows = 0;

	cr_expect(strstr(out, "does not matter"), "%s", out);
	cr_expect(strstr(out, "the trace has no frees, so how soon a setting tells the device about freed space "
			      "cannot be measured"), "%s", out);
	cr_expect_null(strstr(out, "soonest"), "%s", out);
	cr_expect(strstr(out, "\n    reclaim unknown: the trace has no FREE or INTENT records"), "%s", out);
	/* btrfs' own online discard needs FREE records: the recommendation says it was not weighed */
	cr_expect(strstr(out, "`btrfs-async` (btrfs's own online discard) was not tried (trace has no FREE records"),
		  "%s", out);
	/* every row of the front table ends its reclaim column where the header does */
	cr_assert_not_null(head = strstr(out, "    setting "), "%s", out);
	col = strstr(head, "reclaim  wp99x") + strlen("reclaim") - head;
	for (line = strchr(head, '\n') + 1; !strncmp(line, "    ", 4) && strchr(line, '\n'); line = strchr(line, '\n') + 1) {
		const char *u = strstr(line, " unknown ");

		if (u && u < strchr(line, '\n'))
			cr_expect_eq(u + strlen(" unknown") - line, col, "%.*s", (int)(strchr(line, '\n') - line), line);
		rows += u && u < strchr(line, '\n');
	}
	cr_expect_gt(rows, 0, "%s", out);
	free(out);
	/* with --fs any the other families are n/a too; the note names the trace's own filesystem's */
	snprintf(cmd, sizeof(cmd), "cd %s && %s recommend nofree.jsonl -M nvme --fs any -j 2", th_dir(), th_trimsim());
	cr_assert_eq(th_run(cmd, &out, NULL), 0, "%s", cmd);
	cr_expect(strstr(out, "`btrfs-async` (btrfs's own online discard) was not tried"), "%s", out);
	cr_expect_null(strstr(out, "`xfs` (xfs's own"), "%s", out);
	free(out);
}

/*
 * Foreground writes only, no frees and no discards: every setting adds 0 to the workload, so there
 * is no costliest setting to name ("the costliest setting, `as-recorded`, adds 0" said before).
 */
Test(recommend, nothing_added_names_no_costliest)
{
	char *out = pairs_recommend("fgonly.jsonl", "xfs", "write", 100000000, 16, 100000);

	cr_expect(strstr(out, "discard: does not matter: no setting adds time to the workload's "), "%s", out);
	cr_expect_null(strstr(out, "costliest"), "%s", out);
	free(out);
}

/*
 * The corpus's modern XFS rm -rf (xfs-discard-rmtree: 8,462 frees of 206 MiB, which Linux 6.18
 * batches per checkpoint into 25 discard commands, ~8 MiB each): the figures decide, not a rule
 * about XFS.
 * - sata-sf2281: online discard as recorded adds 0 ns to the workload (the commands go out after
 *   the checkpoints, nobody waits) but keeps the SandForce busy 242.6 ms in TRIM; fstrim hourly
 *   with --minimum 64K also adds 0 ns and trims in 96.7 ms (reclaim delay 363 GiB-s instead of
 *   78 MiB-s), so the rule (discard matters here: cutting the commands at 128K adds 13.4 s)
 *   takes nodiscard + fstrim.timer, saving 145.8 ms of TRIM. The next best is the daily timer.
 * - nvme: discard does not matter (0 ns added by every setting): the least reclaim delay wins,
 *   online discard kept, with discard_max_bytes 16M: as-recorded|split(max=16M), 66.3 MiB-s and
 *   513.5 us in TRIM. xfs|split(max=16M) is the same setting (mount -o discard on the XFS the trace
 *   was recorded on, the CIL pacing inert, discard_max_bytes 16M), replayed a second way, from the
 *   frees through the xfs preset (60.7 MiB-s, 473.4 us): it is not offered as a change, nor is any
 *   xfs setting on the front (it was recommended over the recorded commands for those figures).
 * - The CIL pacing (commit=5s..120s) gives the same figures at every value (the trace's log
 *   commits time the discards), so an xfs recommendation where online discard is a change
 *   (xfs-nodiscard-rmtree on nvme) is the default's, xfs(commit=30s), and sets no
 *   xfssyncd_centisecs (it recommended xfs(commit=5s) and `sysctl fs.xfs.xfssyncd_centisecs=500`
 *   on no evidence).
 */
Test(recommend, xfs_rmtree_modern)
{
	char args[1024];
	json_t *rep;
	const json_t *r, *rec, *o;

	snprintf(args, sizeof(args), "%s/traces/corpus/xfs-discard-rmtree.tsim -M sata-sf2281,nvme", th_src());
	rep = recommend(args, true);

	r = result(rep, "sata-sf2281");
	rec = json_object_get(r, "recommendation");
	cr_expect_str_eq(json_string_value(json_object_get(r, "discard")), "matters");
	cr_assert_not_null(o = front_obj(r, "as-recorded"), "online discard as recorded is on the front");
	cr_expect_eq(num(o, "added_ns", NULL), 0);
	cr_expect_eq(num(o, "trim_ns", NULL), 242574638);
	cr_expect_str_eq(json_string_value(json_object_get(rec, "policy")), "fstrim(interval=1h,minlen=64K)");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(rec, "settings"), "mount_options")),
			 "nodiscard");
	cr_expect_eq(num(json_object_get(rec, "objectives"), "added_ns", NULL), 0);
	cr_expect_eq(num(json_object_get(rec, "objectives"), "trim_ns", NULL), 96733840);
	cr_expect_eq(num(json_object_get(rec, "versus_recorded"), "trim_saved_ns", NULL), 145840798);
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(rec, "next_best"), "policy")),
			 "fstrim(interval=1d,minlen=64K)");

	r = result(rep, "nvme");
	rec = json_object_get(r, "recommendation");
	cr_expect_str_eq(json_string_value(json_object_get(r, "discard")), "does-not-matter");
	cr_expect_str_eq(json_string_value(json_object_get(rec, "policy")), "as-recorded|split(max=16M)");
	cr_expect_eq(num(json_object_get(rec, "objectives"), "trim_ns", NULL), 513534);
	cr_expect_float_eq(num(json_object_get(rec, "objectives"), "reclaim_byte_s", NULL), 66298673.931, 1);
	cr_expect_null(front_obj(r, "xfs(commit=30s)|split(max=16M)"), "the recorded setting replayed again");
	cr_expect_null(front_obj(r, "xfs(commit=30s)"));
	json_decref(rep);

	snprintf(args, sizeof(args), "%s/traces/corpus/xfs-nodiscard-rmtree.tsim -M nvme", th_src());
	rep = recommend(args, true);
	rec = json_object_get(result(rep, "nvme"), "recommendation");
	cr_expect_str_eq(json_string_value(json_object_get(rec, "policy")), "xfs(commit=30s)|split(max=16M)");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(rec, "settings"), "mount_options")),
			 "discard", "online discard, recorded without");
	cr_expect_eq(json_object_size(json_object_get(json_object_get(rec, "settings"), "sysctl")), 0,
		     "no xfssyncd_centisecs: every value replayed alike");
	cr_expect(strstr(json_string_value(json_object_get(json_object_get(rec, "settings"), "note")),
			 "fs.xfs.xfssyncd_centisecs (the CIL checkpoint pacing) is left as it is"));
	json_decref(rep);
}

/*
 * A setting that another beats only within the rule's ties stays on the front, and the rule
 * takes the one with fewer knobs changed: btrfs-discard-rmtree on sdcard (no FREE records, and both
 * add less than the 1 s tie, so TRIM time decides) is recorded as is (143 ms in TRIM), not with
 * discard_max_bytes 16M (134 ms, 6% less), which it recommended before (on the recording before
 * 2026-12-07: 136.4 ms against 135.5 ms), with `echo 16777216 > .../discard_max_bytes`.
 */
Test(recommend, near_tie_keeps_fewer_knobs)
{
	char args[1024];
	json_t *rep;
	const json_t *r, *rec;

	snprintf(args, sizeof(args), "%s/traces/corpus/btrfs-discard-rmtree.tsim -M sdcard", th_src());
	rep = recommend(args, true);
	r = result(rep, "sdcard");
	rec = json_object_get(r, "recommendation");
	cr_expect_str_eq(json_string_value(json_object_get(rec, "policy")), "as-recorded");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(rec, "next_best"), "policy")),
			 "as-recorded|split(max=16M)");
	cr_expect_not_null(front_obj(r, "as-recorded|split(max=16M)"));
	cr_expect(strstr(json_string_value(json_object_get(rec, "reason")), "least device time in TRIM (within 10%)"));
	json_decref(rep);
}

/*
 * ext4 traces carry their journal commits (META_COMMIT), which time the ext4 stage's discards,
 * so commit=1s..60s replay alike on every ext4 trace of the corpus. The recommendation then
 * leaves commit= alone and says why (it said `mount -o remount,discard,commit=5`), the search
 * does not spend its budget on the knob, and the front names the setting the rule picks among
 * equals (it showed ext4(commit=1s)|split(max=1M) while the next best was
 * ext4(commit=5s)|split(max=1M), the same figures). On the trace recorded without discard,
 * where online discard is a change to make.
 */
Test(recommend, inert_commit_knob_not_recommended)
{
	char args[1024];
	json_t *rep;
	const json_t *r, *rec, *f;
	size_t i;

	snprintf(args, sizeof(args), "%s/traces/corpus/ext4-nodiscard-rmtree.tsim -M nvme,emmc", th_src());
	rep = recommend(args, true);
	r = result(rep, "nvme");
	rec = json_object_get(r, "recommendation");
	cr_expect_str_eq(json_string_value(json_object_get(rec, "policy")), "ext4(commit=5s)");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(rec, "settings"), "mount_options")),
			 "discard", "no commit=: the replay cannot tell one value from another");
	cr_expect(strstr(json_string_value(json_object_get(json_object_get(rec, "settings"), "note")),
			 "the journal commit interval (mount option commit=) is left as it is: every value replayed "
			 "(1s to 60s) gave the same figures"));
	for (size_t k = 0; k < 2; k++) {
		r = result(rep, k ? "emmc" : "nvme");
		json_array_foreach(json_object_get(r, "front"), i, f) {
			const char *p = json_string_value(json_object_get(f, "policy"));

			cr_expect(strncmp(p, "ext4(", 5) || !strncmp(p, "ext4(commit=5s)", 15),
				  "front names the default of an inert knob: %s", p);
		}
	}
	json_decref(rep);
}

/*
 * A trace recorded with the filesystem's online discard on: every setting of that filesystem's
 * family that applies as what was recorded (`mount -o discard`, its commit knob inert, any
 * discard_max_bytes) is the as-recorded setting with the same discard_max_bytes, replayed a
 * second way (the frees through the preset). The recorded commands stand for it: no ext4
 * setting is on the front or recommended, and nothing is "saved" by applying what is already
 * set. ext4-discard-rmlarge on sdcard recommended ext4(commit=5s), `mount -o remount,discard`,
 * "saves 4.6 ms of device time in TRIM" against as-recorded, at 57.5x its p99 write latency
 * against as-recorded's 2.13x; it is now as-recorded itself, with no saving to claim.
 */
Test(recommend, recorded_setting_is_not_a_change)
{
	char args[1024];
	json_t *rep;
	const json_t *r, *rec, *f;
	size_t i;

	snprintf(args, sizeof(args), "%s/traces/corpus/ext4-discard-rmlarge.tsim -M sdcard,nvme", th_src());
	rep = recommend(args, true);
	for (size_t k = 0; k < 2; k++) {
		r = result(rep, k ? "nvme" : "sdcard");
		json_array_foreach(json_object_get(r, "front"), i, f)
			cr_expect(strncmp(json_string_value(json_object_get(f, "policy")), "ext4(", 5),
				  "%s: the recorded setting's emulation on the front: %s", k ? "nvme" : "sdcard",
				  json_string_value(json_object_get(f, "policy")));
	}
	rec = json_object_get(result(rep, "sdcard"), "recommendation");
	cr_expect_str_eq(json_string_value(json_object_get(rec, "policy")), "as-recorded");
	cr_expect_null(json_object_get(rec, "versus_recorded"), "no saving against itself");
	rec = json_object_get(result(rep, "nvme"), "recommendation");
	cr_expect_str_eq(json_string_value(json_object_get(rec, "policy")), "as-recorded|split(max=16M)",
			 "a real change (discard_max_bytes) stays");
	cr_expect_not_null(json_object_get(rec, "versus_recorded"));
	json_decref(rep);

	/* --fs any tries every filesystem's settings; the recorded one's are still the recording's */
	snprintf(args, sizeof(args), "%s/traces/corpus/xfs-discard-unpack.tsim -M nvme --fs any", th_src());
	rep = recommend(args, true);
	r = result(rep, "nvme");
	json_array_foreach(json_object_get(r, "front"), i, f)
		cr_expect(strncmp(json_string_value(json_object_get(f, "policy")), "xfs(", 4), "--fs any: %s on the front",
			  json_string_value(json_object_get(f, "policy")));
	json_decref(rep);
}

/*
 * A trace recorded with no discard at all: as-recorded sends nothing, so it never tells the
 * device, like none. Its reclaim delay is "never", not the integral of the untrimmed bytes up to
 * the trace's end (505 MiB-s on ext4-nodiscard-rmtree), which beat every fstrim schedule: on
 * sdcard, where discard matters, recommend kept nodiscard ("as-recorded", 0 in TRIM) where
 * fstrim hourly adds nothing and trims.
 */
Test(recommend, nodiscard_recorded_never_trims)
{
	char args[1024];
	json_t *rep;
	const json_t *r, *rec, *o;

	snprintf(args, sizeof(args), "%s/traces/corpus/ext4-nodiscard-rmtree.tsim -M sdcard", th_src());
	rep = recommend(args, true);
	r = result(rep, "sdcard");
	cr_expect_str_eq(json_string_value(json_object_get(r, "discard")), "matters");
	rec = json_object_get(r, "recommendation");
	cr_expect_str_eq(json_string_value(json_object_get(rec, "policy")), "fstrim(interval=1h,minlen=4K)");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(rec, "settings"), "mount_options")),
			 "nodiscard");
	o = json_object_get(json_object_get(rec, "next_best"), "objectives");
	cr_assert_not_null(o);
	cr_expect_str_eq(json_string_value(json_object_get(o, "reclaim")), "never");
	json_decref(rep);
}

/*
 * A trace with nothing a setting acts on (cut short after two records: no device command, no
 * free, no discard intent; only nodiscard and fstrim's pass over the free-space snapshot replay)
 * gets no recommendation, and says why. It recommended fstrim weekly and "discard does not
 * matter for this workload".
 */
Test(recommend, nothing_to_weigh_no_recommendation)
{
	char cmd[2048], *out = NULL;

	th_dir_init();
	snprintf(cmd, sizeof(cmd), "%s recommend %s -M nvme 2>/dev/null", th_trimsim(),
		 th_cut_corpus("xfs-discard-rmtree.tsim", 1000));
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_expect_not_null(strstr(out, "  discard: no setting that discards was weighed\n  no recommendation: no setting "
				  "that discards could be weighed: the trace holds no device command, free or discard "
				  "intent for one to act on"), "%s", out);
	cr_expect_null(strstr(out, "does not matter"), "%s", out);
	free(out);
	th_dir_fini();
}

Test(recommend, rejected_device)
{
	char args[1024];
	json_t *rep;
	const json_t *r;

	snprintf(args, sizeof(args), "%s/traces/corpus/xfs-discard-rmlarge.tsim -M hdd-nodiscard", th_src());
	rep = recommend(args, false);
	r = result(rep, "hdd-nodiscard");
	cr_expect_str_eq(json_string_value(json_object_get(r, "discard")), "rejected");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r, "recommendation"), "policy")), "none");
	cr_expect(strstr(json_string_value(json_object_get(json_object_get(r, "recommendation"), "reason")),
			 "rejects discard"));
	json_decref(rep);
}

/* A second run with --cache replays nothing and says the same, byte for byte. */
Test(recommend, cache_and_determinism)
{
	char args[1024], *a, *b;
	json_t *r1, *r2;

	snprintf(args, sizeof(args), "%s/traces/corpus/xfs-discard-rmlarge.tsim -M nvme --cache %s", th_src(),
		 th_dir());
	r1 = recommend(args, false);
	r2 = recommend(args, false);
	cr_expect_gt(num(json_array_get(json_object_get(r1, "recommendations"), 0), "cells_replayed", NULL), 0);
	cr_expect_eq(num(json_array_get(json_object_get(r2, "recommendations"), 0), "cells_replayed", NULL), 0);
	json_object_del(json_array_get(json_object_get(r1, "recommendations"), 0), "cells_replayed");
	json_object_del(json_array_get(json_object_get(r2, "recommendations"), 0), "cells_replayed");
	a = json_dumps(r1, JSON_SORT_KEYS);
	b = json_dumps(r2, JSON_SORT_KEYS);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
	json_decref(r1);
	json_decref(r2);
}

struct spec_case {
	uint16_t fam;
	uint8_t idx[REC_KNOBS];
	char want[96];
};

/* families: 0 none, 1 as-recorded, 2 xfs, 3 ext4, 4 btrfs, 5 f2fs, 6 ufs, 7 fstrim */
static struct spec_case specs[] = {
	{ 0, { 0 }, "none" },
	{ 1, { 0 }, "as-recorded" },
	{ 1, { 3 }, "as-recorded|split(max=1M)" },
	{ 2, { 2, 0 }, "xfs(commit=30s)" },
	{ 3, { 0, 2 }, "ext4(commit=1s)|split(max=16M)" },
	{ 4, { 2, 3, 2, 0 }, "btrfs-async(iops_limit=1000,kbps_limit=0,max_discard_size=64M)" },
	{ 5, { 2, 1, 0 }, "f2fs(granularity=16,min_interval=50ms)" },
	{ 6, { 1, 0 }, "ufs-trimcons" },
	{ 7, { 1, 4 }, "fstrim(interval=1d,minlen=1M)" },
};

ParameterizedTestParameters(recommend_unit, spec)
{
	return cr_make_param_array(struct spec_case, specs, sizeof(specs) / sizeof(specs[0]));
}

ParameterizedTest(struct spec_case *c, recommend_unit, spec)
{
	struct rec_cand k = { .fam = c->fam };
	char buf[256];

	memcpy(k.idx, c->idx, sizeof(k.idx));
	rec_cand_spec(&k, buf, sizeof(buf));
	cr_expect_str_eq(buf, c->want);
}

Test(recommend_unit, dominance)
{
	struct rec_obj a = { .trim_ns = 1, .added_ns = 0, .reclaim = 5, .wp99 = 1 };
	struct rec_obj b = a, none = { .reclaim = INFINITY, .wp99 = 1 };

	cr_expect_not(rec_dominates(&a, &b), "equal points do not dominate");
	b.trim_ns = 2;
	cr_expect(rec_dominates(&a, &b));
	cr_expect_not(rec_dominates(&b, &a));
	cr_expect_not(rec_dominates(&none, &a), "never trimming is worse on reclaim");
	cr_expect_not(rec_dominates(&a, &none), "and better on TRIM time");
	b = a;
	b.rp99 = 2;
	a.rp99 = 1;
	cr_expect(rec_dominates(&a, &b), "p99 read inflation is an objective");
	cr_expect_not(rec_dominates(&b, &a));
}

/* The family index of name, its knobs at the kernel's defaults. */
static struct rec_cand cand_of(const char *name)
{
	size_t nf;
	const struct rec_family *f = rec_families(&nf);
	struct rec_cand c = { 0 };

	for (size_t i = 0; i < nf; i++)
		if (!strcmp(f[i].name, name)) {
			c.fam = (uint16_t)i;
			for (unsigned k = 0; k < REC_KNOBS; k++)
				c.idx[k] = (uint8_t)f[i].knobs[k].def;
			return c;
		}
	cr_assert_fail("no family %s", name);
	return c;
}

/*
 * A setting whose discards failed (fast: they cost no TRIM time and trimmed nothing) is
 * neither on the front nor chosen; before, `ext4`'s 24 rejected discards put it on the front.
 */
Test(recommend_unit, failed_discards_are_off_the_front)
{
	struct report *r = fx_report_ext4_rejected(false);
	struct rec_cand cands[3] = { cand_of("none"), cand_of("xfs"), cand_of("ext4") };
	struct rec_result res = { .r = r, .cands = cands, .n = 3 };

	rec_evaluate(&res);
	cr_assert_not_null(res.front);
	cr_expect_not(res.front[2], "a setting whose discards failed is on the front");
	cr_expect_neq(res.pick, 2);
	cr_expect_neq(res.next, 2);
	free(res.obj);
	free(res.front);
	free(res.weigh);
	report__destroy(r);
}

struct bad_case {
	char args[160];
	char msg[240];
	int rc;
};

static struct bad_case bads[] = {
	{ "T -M nvme --fs zfs", "trimsim recommend: --fs 'zfs': expected xfs, ext4, btrfs, f2fs, ufs or any; see 'trimsim recommend --help'\n", 2 },
	{ "T", "trimsim recommend: no device profiles given (-M sata-sf2281; see trimsim models); see 'trimsim recommend --help'\n", 2 },
	{ "-M nvme", "trimsim recommend: no TRACE given; see 'trimsim recommend --help'\n", 2 },
	{ "T -M nvme --budget 0", "trimsim recommend: --budget '0': expected an integer in 1..100000; see 'trimsim recommend --help'\n", 2 },
	{ "T -M nvme -o r.xlsx", "trimsim recommend: -o r.xlsx: unknown extension '.xlsx' (known: .json .txt .html; none: "
				 "--format); see 'trimsim recommend --help'\n", 2 },
	{ "T -M nvme --format xml", "trimsim recommend: --format 'xml': expected text, json or html; see 'trimsim recommend --help'\n", 2 },
	{ "T -M device:/dev/null", "trimsim recommend: --models 'device:/dev/null': recommend replays model profiles "
				   "only (measure a device with trimsim calibrate, then recommend on its profile); see 'trimsim recommend --help'\n", 2 },
	{ "T -M nvme --cache nowhere", "trimsim recommend: --cache nowhere: No such file or directory (make the directory "
				       "first)\n", 1 },
	{ "T -M nvme --cache /dev/null", "trimsim recommend: --cache /dev/null: not a directory\n", 1 },
	/* a profile that does not load is one line, as compare and replay say it (it had the --help hint) */
	{ "T -M nope.json", "trimsim recommend: --models 'nope.json': nope.json: No such file or directory\n", 2 },
};

ParameterizedTestParameters(recommend_cli, bad_input)
{
	return cr_make_param_array(struct bad_case, bads, sizeof(bads) / sizeof(bads[0]));
}

ParameterizedTest(struct bad_case *c, recommend_cli, bad_input, .init = th_dir_init, .fini = th_dir_fini)
{
	char cmd[2048], args[512], *out = NULL, *err = NULL;
	const char *t = strstr(c->args, "T");

	/* T: a corpus trace */
	if (t == c->args)
		snprintf(args, sizeof(args), "%s/traces/corpus/xfs-discard-rmlarge.tsim%s", th_src(), c->args + 1);
	else
		snprintf(args, sizeof(args), "%s", c->args);
	snprintf(cmd, sizeof(cmd), "cd %s && %s recommend %s", th_dir(), th_trimsim(), args);
	cr_expect_eq(th_run(cmd, &out, &err), c->rc, "%s", cmd);
	cr_expect_str_eq(err, c->msg);
	cr_expect_str_eq(out, "");
	free(out);
	free(err);
}

/* A trace cut short (recorder killed): recommended from the whole records, and said so on stderr. */
Test(recommend_cli, cut_trace_warns, .init = th_dir_init, .fini = th_dir_fini)
{
	char cmd[2048], *out = NULL, *err = NULL;

	snprintf(cmd, sizeof(cmd), "cd %s && head -c 8000 %s/traces/corpus/xfs-discard-rmlarge.tsim > cut.tsim && "
		 "%s recommend cut.tsim -M nvme -j 2", th_dir(), th_src(), th_trimsim());
	cr_expect_eq(th_run(cmd, &out, &err), 0, "%s: %s", cmd, err);
	cr_expect_str_eq(err, "trimsim recommend: warning: cut.tsim: byte 7976: truncated record (24 of 48 bytes); "
			      "148 whole records recovered; its figures cover only those\n");
	cr_expect(strstr(out, "recommended: "), "%s", out);
	free(out);
	free(err);
}
