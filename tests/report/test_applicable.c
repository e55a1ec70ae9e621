// SPDX-License-Identifier: GPL-2.0
/*
 * A cell whose policy reads a trace layer the trace does not have is "n/a",
 * never a row of zeros: a btrfs-like trace with block-layer records only (no
 * FREE, no INTENT: btrfs has no fs-level tracepoints) run through policies fed
 * by FREE (xfs, fstrim) and by ISSUE (as-recorded). Table, JSON and CSV say n/a
 * with the reason; no verdict sentence is about those policies.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/report/agree.h"
#include "tests/common/helpers.h"

static void write_trace(const char *path)
{
	FILE *f = fopen(path, "w");
	uint64_t t = 1000000000ull, off = 1ull << 30, n = 0;

	cr_assert_not_null(f);
	fprintf(f, "{\"trimsim\":1,\"header\":{\"devices\":[{\"dev\":\"8:0\",\"discard_granularity\":512,"
		"\"discard_max_bytes\":2147450880,\"fs\":\"btrfs\",\"fs_block_size\":4096,\"logical_block_size\":512,"
		"\"max_discard_segments\":1,\"name\":\"sda\",\"physical_block_size\":4096,\"rotational\":false,"
		"\"size\":128035676160,\"xfs_agblocks\":0}],\"format\":\"trimsim\",\"version\":1}}\n");
	for (unsigned i = 0; i < 400; i++, t += 1000000, off += 1 << 20) {
		const char *op = i % 4 ? "discard" : "write";

		fprintf(f, "{\"t\":%llu,\"kind\":\"ISSUE\",\"op\":\"%s\",\"dev\":\"8:0\",\"off\":%llu,\"len\":%u,"
			"\"ino\":0,\"lat\":0,\"flags\":\"\"}\n", (unsigned long long)t, op, (unsigned long long)off,
			1 << 20);
		fprintf(f, "{\"t\":%llu,\"kind\":\"DONE\",\"op\":\"%s\",\"dev\":\"8:0\",\"off\":%llu,\"len\":%u,"
			"\"ino\":0,\"lat\":200000,\"flags\":\"\"}\n", (unsigned long long)t + 200000, op,
			(unsigned long long)off, 1 << 20);
		n += 2;
	}
	fprintf(f, "{\"footer\":{\"records\":%llu,\"lost\":0,\"end_ns\":%llu}}\n", (unsigned long long)n,
		(unsigned long long)t);
	fclose(f);
}

static void setup(void)
{
	char src[700], cmd[2000], *err = NULL;

	th_dir_init();
	snprintf(src, sizeof(src), "%s/bt.jsonl", th_dir());
	write_trace(src);
	snprintf(cmd, sizeof(cmd), "cd %s && %s convert bt.jsonl bt.tsim", th_dir(), th_trimsim());
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s", err);
	free(err);
}

TestSuite(applicable, .init = setup, .fini = th_dir_fini, .timeout = 120);

static char *slurp_in(const char *name)
{
	char p[800];

	snprintf(p, sizeof(p), "%s/%s", th_dir(), name);
	char *s = th_slurp(p, NULL);

	cr_assert_not_null(s, "%s missing", p);
	return s;
}

#define REASON "trace has no FREE records: btrfs has no fs-level events"

Test(applicable, missing_layer_is_na_everywhere_and_silent_in_verdicts)
{
	char cmd[1500], *table = NULL, *err = NULL;

	snprintf(cmd, sizeof(cmd), "cd %s && %s compare bt.tsim -p as-recorded,xfs,fstrim,none -M sata-sf2281,nvme "
		 "-o r.json -o r.csv", th_dir(), th_trimsim());
	cr_assert_eq(th_run(cmd, &table, &err), 0, "%s", err);
	free(err);
	char *js = slurp_in("r.json"), *csv = slurp_in("r.csv"), *tcopy = strdup(table);
	json_t *root = json_loads(js, 0, NULL), *cells = json_object_get(root, "cells");

	cr_assert_eq(json_array_size(cells), 8);
	for (size_t i = 0; i < 8; i++) {
		json_t *c = json_array_get(cells, i);
		const char *pol = json_string_value(json_object_get(c, "policy"));
		bool na = !strcmp(pol, "xfs") || !strcmp(pol, "fstrim");

		cr_assert_str_eq(json_string_value(json_object_get(c, "status")), na ? "n/a" : "ok", "%s", pol);
		if (na) {
			cr_assert_str_eq(json_string_value(json_object_get(c, "not_applicable")), REASON);
			cr_assert_null(json_object_get(c, "metrics"), "%s: an n/a cell has no metrics", pol);
		} else {
			cr_assert_null(json_object_get(c, "not_applicable"));
			cr_assert_not_null(json_object_get(c, "metrics"));
		}
	}
	/* as-recorded did read its layer: 300 discards */
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_array_get(cells, 0), "metrics"),
							"discard_cmds")), 300);
	cr_assert(strstr(table, "xfs          sata-sf2281 n/a: " REASON "\n"), "%s", table);
	cr_assert(strstr(csv, ",fstrim,nvme,n/a,,"), "%s", csv);
	cr_assert(strstr(csv, "," REASON "\r\n"), "%s", csv);
	agree_check(tcopy, js, csv);
	agree_verdicts(table, js);
	json_t *v = json_object_get(root, "verdicts");

	cr_assert_gt(json_array_size(v), 0);
	for (size_t i = 0; i < json_array_size(v); i++) {
		const char *s = json_string_value(json_array_get(v, i));

		cr_assert_null(strstr(s, "`xfs`"), "verdict about an n/a cell: %s", s);
		cr_assert_null(strstr(s, "`fstrim`"), "verdict about an n/a cell: %s", s);
	}
	/* the stall column is a labelled sum of waits; the share of wall time comes from added_ns, not from it */
	cr_assert(strstr(table, " fgwait-sum ") && strstr(table, "fgwait-sum = sum of foreground waits"), "%s", table);
	for (size_t i = 0; i < 8; i++) {
		json_t *m = json_object_get(json_array_get(cells, i), "metrics");

		if (!m)
			continue;
		double wall = json_number_value(json_object_get(m, "wall_ns"));

		cr_assert_gt(wall, 0);
		cr_assert_float_eq(json_number_value(json_object_get(m, "share")),
				   json_number_value(json_object_get(m, "added_ns")) / wall, 1e-12);
	}
	json_decref(root);
	free(js);
	free(csv);
	free(tcopy);
	free(table);
}

/* replay refuses what compare marks n/a: the same reason, one line, exit 1, nothing written or touched. */
struct replay_case {
	char args[96];		/* after "replay bt.tsim" */
	int rc;
	char err[96];		/* in stderr ("" = nothing) */
};

ParameterizedTestParameters(applicable, replay_refuses_na)
{
	static struct replay_case cases[] = {
		{ .args = "-p xfs -M sata-sf2281", .rc = 1, .err = "bt.tsim: policy 'xfs' does not apply: " REASON },
		{ .args = "-p fstrim", .rc = 1, .err = "bt.tsim: policy 'fstrim' does not apply: " REASON },
		{ .args = "-p 'source(free) | dispatch(qd=1)'", .rc = 1, .err = "does not apply: " REASON },
		/* a real-time target: refused before the target is opened (disk.img is never created) */
		{ .args = "-p xfs --file disk.img", .rc = 1, .err = "bt.tsim: policy 'xfs' does not apply: " REASON },
		{ .args = "-p as-recorded -M sata-sf2281", .rc = 0, .err = "" },
		{ .args = "-p none", .rc = 0, .err = "" },
	};

	return cr_make_param_array(struct replay_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct replay_case *c, applicable, replay_refuses_na)
{
	char cmd[1500], path[700], *out = NULL, *err = NULL;
	int rc;

	snprintf(cmd, sizeof(cmd), "cd %s && %s replay bt.tsim %s -o r.json", th_dir(), th_trimsim(), c->args);
	rc = th_run(cmd, &out, &err);
	cr_assert_eq(rc, c->rc, "%s: exit %d: %s", c->args, rc, err);
	snprintf(path, sizeof(path), "%s/r.json", th_dir());
	cr_assert_eq(access(path, F_OK) == 0, c->rc == 0, "%s: r.json %s", c->args, c->rc ? "written" : "missing");
	if (c->err[0]) {
		cr_assert(strstr(err, c->err), "%s: expected '%s' in: %s", c->args, c->err, err);
		cr_assert_eq(th_lines(err), 1, "%s: one line: %s", c->args, err);
		cr_assert_str_empty(out, "%s: no result table on a refusal: %s", c->args, out);
	} else {
		cr_assert_str_empty(err, "%s: %s", c->args, err);
	}
	snprintf(path, sizeof(path), "%s/disk.img", th_dir());
	cr_assert_neq(access(path, F_OK), 0, "%s: the file target was touched", c->args);
	free(out);
	free(err);
}

/*
 * fstrim trims what is free at its pass: the free-space snapshot is its input as much as the FREE
 * records (policy_props.snapshot). On a recorded FITRIM pass with no FREE record but snapshots, fstrim
 * applies and xfs, which discards only what the trace frees, does not.
 */
Test(applicable, fstrim_reads_the_snapshot)
{
	static const struct { const char *policy; int rc; } t[] = { { "fstrim", 0 }, { "xfs", 1 } };
	char cmd[1500], *err = NULL;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s replay %s/traces/corpus/xfs-fstrim-pass.tsim -p %s -M nvme -q",
			 th_trimsim(), th_src(), t[i].policy);
		cr_assert_eq(th_run(cmd, NULL, &err), t[i].rc, "%s: %s", t[i].policy, err);
		cr_assert_eq(strstr(err, "does not apply: trace has no FREE records") != NULL, t[i].rc == 1, "%s: %s",
			     t[i].policy, err);
		free(err);
		err = NULL;
	}
}
