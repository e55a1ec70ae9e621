// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim compare end to end on a small synthetic trace (an rm -rf on XFS with
 * online discard, as in seed 001, scaled down): deterministic JSON whatever the
 * --jobs, table / JSON / CSV agreement, the HTML in headless Chromium, the
 * verdict, --runs on models, and a failing cell that does not sink the others.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/report/agree.h"
#include "tests/report/chromium.h"
#include "tests/common/helpers.h"

static char trace[600];

#define N_FREE 3000

static void write_trace(const char *path)
{
	FILE *f = fopen(path, "w");
	uint64_t t0 = 1000000000ull, off = 1ull << 30, busy = t0, n = 0;
	unsigned x = 42;

	cr_assert_not_null(f);
	fprintf(f, "{\"trimsim\":1,\"header\":{\"devices\":[{\"dev\":\"8:0\",\"discard_granularity\":512,"
		"\"discard_max_bytes\":2147450880,\"fs\":\"xfs\",\"fs_block_size\":4096,\"logical_block_size\":512,"
		"\"max_discard_segments\":1,\"name\":\"sda\",\"physical_block_size\":4096,\"rotational\":false,"
		"\"size\":128035676160,\"xfs_agblocks\":7814144}],\"format\":\"trimsim\",\"version\":1}}\n");
#define REC(t, k, op, o, l, ino, lat, fl)                                                                  \
	do {                                                                                                \
		fprintf(f, "{\"t\":%llu,\"kind\":\"%s\",\"op\":\"%s\",\"dev\":\"8:0\",\"off\":%llu,\"len\":%llu," \
			"\"ino\":%llu,\"lat\":%llu,\"flags\":\"%s\"}\n", (unsigned long long)(t), k, op,           \
			(unsigned long long)(o), (unsigned long long)(l), (unsigned long long)(ino),               \
			(unsigned long long)(lat), fl);                                                            \
		n++;                                                                                        \
	} while (0)
	for (unsigned i = 0; i < N_FREE; i++) {
		uint64_t t = t0 + 1000 + i * 100000ull, len = 4096ull * (1 + (x = x * 1103515245u + 12345u) % 6);

		REC(t, "FREE", "none", off, len, 100 + i / 9, 0, "xfs");
		REC(t + 1, "INTENT", "none", off, len, 0, 0, "xfs");
		if (busy < t + 2)
			busy = t + 2;
		REC(busy, "ISSUE", "discard", off, len, 1201, 0, "");
		REC(busy + 90000, "DONE", "discard", off, len, 1201, 90000, "");
		busy += 95000;
		if (i % 100 == 0) {
			REC(t + 3, "META", "commit", 0, 0, i / 100, 0, "");
			REC(t + 4, "ISSUE", "write", (1ull << 29) + i * 8ull, 32768, 1201, 0, "xfs|sync|fua");
			REC(t + 4 + 150000, "DONE", "write", (1ull << 29) + i * 8ull, 32768, 1201, 150000,
			    "xfs|sync|fua");
		}
		off += len + (i % 500 == 499 ? 65536 : 0);
	}
	fprintf(f, "{\"footer\":{\"records\":%llu,\"lost\":0,\"end_ns\":%llu}}\n", (unsigned long long)n,
		(unsigned long long)busy + 100000);
	fclose(f);
}

static void setup(void)
{
	char src[700], cmd[2000];

	th_dir_init();
	snprintf(src, sizeof(src), "%s/rm.jsonl", th_dir());
	write_trace(src);
	/* the records above are not in time order (DONE ahead of the next FREE): convert sorts nothing, so sort here */
	snprintf(trace, sizeof(trace), "%s/rm.tsim", th_dir());
	snprintf(cmd, sizeof(cmd), "cd %s && head -n1 rm.jsonl > s.jsonl && sed '1d;$d' rm.jsonl | "
		 "sed 's/^{\"t\":\\([0-9]*\\)/\\1\\t&/' | sort -s -t '\t' -k1,1n | cut -f2- >> s.jsonl && "
		 "tail -n1 rm.jsonl >> s.jsonl && %s convert s.jsonl rm.tsim", th_dir(), th_trimsim());
	char *err = NULL;

	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s", err);
	free(err);
}

TestSuite(compare_run, .init = setup, .fini = th_dir_fini, .timeout = 300);

static char *slurp_in(const char *name)
{
	char p[800];

	snprintf(p, sizeof(p), "%s/%s", th_dir(), name);
	char *s = th_slurp(p, NULL);

	cr_assert_not_null(s, "%s missing", p);
	return s;
}

static int compare(const char *args, char **out, char **err)
{
	char cmd[3000];

	snprintf(cmd, sizeof(cmd), "cd %s && %s compare %s", th_dir(), th_trimsim(), args);
	return th_run(cmd, out, err);
}

#define MATRIX "rm.tsim -p 'xfs,ext4,sort-merge-async(qd=8),passthrough,none' -M sata-sf2281,nvme"

Test(compare_run, deterministic_whatever_the_jobs)
{
	char *out = NULL, *err = NULL;

	cr_assert_eq(compare(MATRIX " -j 2 -q -o a.json", &out, &err), 0, "%s", err);
	cr_assert(!out || !*out, "-q: nothing on stdout");
	free(out);
	free(err);
	cr_assert_eq(compare(MATRIX " -j 1 -q -o b.json", NULL, &err), 0, "%s", err);
	free(err);
	char *a = slurp_in("a.json"), *b = slurp_in("b.json");

	cr_assert_str_eq(a, b, "same inputs and seed, different JSON");
	free(a);
	free(b);
}

Test(compare_run, formats_agree_and_verdict)
{
	char *table = NULL, *err = NULL;

	cr_assert_eq(compare(MATRIX " -o r.json -o r.csv -o r.html", &table, &err), 0, "%s", err);
	free(err);
	char *js = slurp_in("r.json"), *csv = slurp_in("r.csv"), *tcopy = strdup(table);

	agree_verdicts(table, js);
	agree_check(tcopy, js, csv);
	/* xfs, ext4, sort-merge-async, passthrough ranked on each profile: at least worst/cheapest per profile */
	cr_assert_geq(agree_ratios(js), 2, "%s", table);
	/* seed 001: serial small TRIMs on the SandForce model cost far more than on NVMe */
	json_t *root = json_loads(js, 0, NULL);
	json_t *cells = json_object_get(root, "cells");

	cr_assert_eq(json_array_size(cells), 10);
	json_t *pt_sf = json_object_get(json_array_get(cells, 6), "metrics");	/* passthrough x sata-sf2281 */
	json_t *pt_nv = json_object_get(json_array_get(cells, 7), "metrics");

	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(cells, 6), "policy")), "passthrough");
	cr_assert_eq(json_integer_value(json_object_get(pt_sf, "discard_cmds")), N_FREE);
	cr_assert_gt(json_integer_value(json_object_get(pt_sf, "discard_time_ns")),
		     100 * json_integer_value(json_object_get(pt_nv, "discard_time_ns")));
	cr_assert(strstr(table, "on sata-sf2281, `passthrough` spends "), "%s", table);
	json_decref(root);
	free(js);
	free(csv);
	free(tcopy);
	free(table);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

Test(compare_run, html_in_chromium)
{
	char cmd[2400], *out = NULL, *err = NULL;

	cr_assert_eq(compare(MATRIX " -q -o r.html", NULL, &err), 0, "%s", err);
	free(err);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s/r.html", th_dir());
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "xmllint: %s", err);
	free(err);
	char page[700];

	snprintf(page, sizeof(page), "%s/r.html", th_dir());
	cr_assert_eq(chromium("--dump-dom", page, &out, &err), 0, "chromium: %s", err);
	cr_assert_eq(count(out, "<table class=\"cells\""), 1);
	for (const char *const *k = (const char *const[]){ "latency-cdf", "size-histogram", "discard-timeline",
							    "untrimmed", NULL }; *k; k++) {
		char needle[64];

		snprintf(needle, sizeof(needle), "data-chart=\"%s\"", *k);
		cr_assert_eq(count(out, needle), 2, "%s charts", *k);
	}
	/* 4 discarding policies x 2 profiles draw a CDF line each */
	cr_assert_geq(count(out, "<polyline"), 4 * 2);
	free(out);
	free(err);
}

Test(compare_run, runs_on_models_a_failing_cell_and_commas_in_a_policy)
{
	char *out = NULL, *err = NULL;
	/* a target that parses but cannot open fails its cells at run time, not up front */
	int st = compare("rm.tsim -p 'xfs,fstrim(interval=1d,minlen=64K),none' -M nvme,file:/nonexistent/disk.img "
			 "--runs 3 -o r.json", &out, &err);

	/* the failing cells report their error, the others still report; the exit status says something failed */
	cr_assert_eq(st, 1, "%s", err);
	cr_assert(strstr(out, "file:/nonexistent/disk.img error: /nonexistent/disk.img: No such file or directory"),
		  "%s", out);
	cr_assert(strstr(out, "model targets are deterministic: 3 runs would be identical by construction"), "%s", out);
	cr_assert(strstr(out, "on file:/nonexistent/disk.img, `none` failed: /nonexistent/disk.img: "), "%s", out);
	char *js = slurp_in("r.json");
	json_t *root = json_loads(js, 0, NULL), *cells = json_object_get(root, "cells");

	cr_assert_eq(json_array_size(cells), 6, "the comma inside parentheses does not split the policy");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(cells, 2), "policy")),
			 "fstrim(interval=1d,minlen=64K)");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(cells, 2), "status")), "ok");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(cells, 3), "status")), "error");
	cr_assert_null(json_object_get(json_array_get(cells, 0), "runs"), "a model cell runs once");
	cr_assert_eq(json_array_size(json_object_get(root, "comparisons")), 0);
	json_decref(root);
	free(js);
	free(out);
	free(err);

	/* on one profile the verdict prices the periodic fstrim in words */
	st = compare("rm.tsim -p 'fstrim(interval=1d,minlen=64K),none' -M nvme", &out, &err);
	cr_assert_eq(st, 0, "%s", err);
	cr_assert(strstr(out, "on nvme, `fstrim(interval=1d,minlen=64K)` costs "), "%s", out);
	cr_assert(strstr(out, " once a day.\n"), "%s", out);
	free(out);
	free(err);
}

/* --runs on a real-time target (a regular file: discards punch holes): ministat columns and t verdicts. */
Test(compare_run, runs_on_a_file_target)
{
	char args[1200], img[700], *out = NULL, *err = NULL;

	snprintf(img, sizeof(img), "%s/disk.img", th_dir());
	FILE *f = fopen(img, "w");

	cr_assert_not_null(f);
	cr_assert_eq(ftruncate(fileno(f), 8ll << 30), 0);
	fclose(f);
	snprintf(args, sizeof(args), "rm.tsim -p 'sort-merge-async,none' -M file:%s --runs 3 -j 1 -o r.json", img);
	int st = compare(args, &out, &err);

	cr_assert_eq(st, 0, "%s\n%s", out, err);
	cr_assert(strstr(out, "\nruns (the table above and the verdict give each cell's mean of its runs; here, every "
			      "run):\n"), "%s", out);
	/* the verdict ranks on the runs' means, and says so (it ranked on the last run) */
	snprintf(args, sizeof(args), "on file:%s (each policy's mean of 3 runs), `sort-merge-async`", img);
	cr_assert(strstr(out, args), "%s", out);
	/* ministat's columns as figures with their unit (traces/figure.h), not bare seconds */
	const char *rl = strstr(out, "sort-merge-async         file:");

	cr_assert(rl && (strstr(rl, " ms ") || strstr(rl, " us ") || strstr(rl, " s ")), "%s", out);
	cr_assert(strstr(out, "`sort-merge-async` vs `none` (3 runs each), makespan"), "%s", out);
	cr_assert(strstr(out, "`sort-merge-async` vs `none` (3 runs each), device time in discard"), "%s", out);
	char *js = slurp_in("r.json");
	json_t *root = json_loads(js, 0, NULL), *cmps = json_object_get(root, "comparisons");

	cr_assert_eq(json_array_size(cmps), 2);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_array_get(json_object_get(root, "cells"), 0),
									 "runs"), "n")), 3);
	/* the cell's figures are the means of its runs, to the rounding of a nanosecond */
	for (size_t i = 0; i < 2; i++) {
		json_t *cell = json_array_get(json_object_get(root, "cells"), i), *runs = json_object_get(cell, "runs");
		json_t *m = json_object_get(cell, "metrics");
		double d = json_real_value(json_object_get(json_object_get(runs, "discard_s_stats"), "mean")) * 1e9;
		double ms = json_real_value(json_object_get(json_object_get(runs, "makespan_s_stats"), "mean")) * 1e9;

		cr_assert_float_eq((double)json_integer_value(json_object_get(m, "discard_time_ns")), d, 1.0, "cell %zu", i);
		cr_assert_float_eq((double)json_integer_value(json_object_get(m, "makespan_ns")), ms, 1.0, "cell %zu", i);
	}
	/* a real device: discards take time every run, so the sample has spread or at least a mean > 0 */
	cr_assert_gt(json_real_value(json_object_get(json_object_get(json_array_get(cmps, 1), "policy_stats_s"), "mean")), 0);
	json_decref(root);
	free(js);
	free(out);
	free(err);
}
