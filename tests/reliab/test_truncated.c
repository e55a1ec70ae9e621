// SPDX-License-Identifier: GPL-2.0
/*
 * A trace cut short (recorder killed: no footer, or a record cut in half) is
 * never taken for a whole one (issue 14). Every command that reads a trace
 * says so on stderr in one line naming the file and where it was cut:
 *   info                 summarizes the whole records, exits 1 (it checks traces);
 *   convert, export      refuse (nothing written) unless --salvage, which keeps the whole records;
 *   replay, compare      replay the whole records, warn, and flag the result:
 *                        trace.truncated in the result JSON, "truncated" in the report JSON, text and HTML.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/helpers.h"

#define SRC_TRACE "traces/corpus/xfs-discard-rmlarge.tsim"
#define REC 48

static size_t full_size;

/* whole.tsim (the corpus trace), mid.tsim (cut 20 bytes into its last record), nofoot.tsim (no footer) */
static void setup(void)
{
	char src[700], path[700], *buf;

	th_dir_init();
	snprintf(src, sizeof(src), "%s/" SRC_TRACE, th_src());
	buf = th_slurp(src, &full_size);
	cr_assert_not_null(buf, "%s", src);
	cr_assert_gt(full_size, 4 * REC);
	snprintf(path, sizeof(path), "%s/whole.tsim", th_dir());
	cr_assert_eq(th_write(path, buf, full_size), 0);
	snprintf(path, sizeof(path), "%s/nofoot.tsim", th_dir());
	cr_assert_eq(th_write(path, buf, full_size - REC), 0);
	snprintf(path, sizeof(path), "%s/mid.tsim", th_dir());
	cr_assert_eq(th_write(path, buf, full_size - 2 * REC + 20), 0);
	free(buf);
}

TestSuite(truncated, .init = setup, .fini = th_dir_fini, .timeout = 120);

struct cmd_case {
	char name[24];
	char args[128];		/* after "trimsim", in the scratch directory */
	int rc;
	char err[96];		/* in the one line on stderr; "" = stderr empty */
	char out[16];		/* a file the command writes, "" = none */
	bool out_exists;
};

#define MID_MSG "mid.tsim: byte %zu: truncated record (20 of 48 bytes)"
#define NOFOOT_MSG "nofoot.tsim: byte %zu: no footer, trace cut short"

ParameterizedTestParameters(truncated, each_command)
{
	static struct cmd_case c[] = {
		{ .name = "info", .args = "info mid.tsim", .rc = 1, .err = MID_MSG },
		{ .name = "info nofoot", .args = "info nofoot.tsim", .rc = 1, .err = NOFOOT_MSG },
		{ .name = "info whole", .args = "info whole.tsim", .rc = 0 },
		{ .name = "convert", .args = "convert mid.tsim o.jsonl", .rc = 1, .err = MID_MSG, .out = "o.jsonl" },
		{ .name = "convert --salvage", .args = "convert --salvage mid.tsim o.jsonl", .rc = 0, .out = "o.jsonl",
		  .out_exists = true },
		{ .name = "export", .args = "export --to fio mid.tsim -o o.iolog", .rc = 1, .err = MID_MSG,
		  .out = "o.iolog" },
		{ .name = "export nofoot", .args = "export --to blktrace nofoot.tsim -o o.bt", .rc = 1, .err = NOFOOT_MSG,
		  .out = "o.bt" },
		{ .name = "export --salvage", .args = "export --to fio mid.tsim -o o.iolog --salvage", .rc = 0,
		  .out = "o.iolog", .out_exists = true },
		{ .name = "export whole", .args = "export --to fio whole.tsim -o o.iolog", .rc = 0, .out = "o.iolog",
		  .out_exists = true },
		{ .name = "replay", .args = "replay mid.tsim -p as-recorded -q -o r.json", .rc = 0, .err = MID_MSG,
		  .out = "r.json", .out_exists = true },
		{ .name = "replay nofoot", .args = "replay nofoot.tsim -p xfs -q -o r.json", .rc = 0, .err = NOFOOT_MSG,
		  .out = "r.json", .out_exists = true },
		{ .name = "replay whole", .args = "replay whole.tsim -p as-recorded -q -o r.json", .rc = 0,
		  .out = "r.json", .out_exists = true },
		{ .name = "compare", .args = "compare mid.tsim -p as-recorded,none -M nvme -q -o c.json", .rc = 0,
		  .err = MID_MSG, .out = "c.json", .out_exists = true },
		{ .name = "compare whole", .args = "compare whole.tsim -p as-recorded,none -M nvme -q -o c.json", .rc = 0,
		  .out = "c.json", .out_exists = true },
	};

	return cr_make_param_array(struct cmd_case, c, sizeof(c) / sizeof(c[0]));
}

ParameterizedTest(struct cmd_case *c, truncated, each_command)
{
	char cmd[1200], want[200], path[700], *err = NULL;
	int rc;

	snprintf(cmd, sizeof(cmd), "cd %s && %s %s >/dev/null", th_dir(), th_trimsim(), c->args);
	rc = th_run(cmd, NULL, &err);
	cr_assert_eq(rc, c->rc, "%s: exit %d: %s", c->name, rc, err);
	/* the byte where the whole records end: the partial record, or the missing footer */
	snprintf(want, sizeof(want), c->err, strstr(c->err, "no footer") ? full_size - REC : full_size - 2 * REC);
	if (c->err[0]) {
		cr_assert(strstr(err, want), "%s: expected '%s' in: %s", c->name, want, err);
		cr_assert_eq(th_lines(err), 1, "%s: one line: %s", c->name, err);
	} else {
		cr_assert_str_empty(err, "%s", c->name);
	}
	if (c->out[0]) {
		snprintf(path, sizeof(path), "%s/%s", th_dir(), c->out);
		cr_assert_eq(access(path, F_OK) == 0, c->out_exists, "%s: %s %s", c->name, c->out,
			     c->out_exists ? "missing" : "left behind");
	}
	free(err);
}

static json_t *load(const char *name)
{
	char path[700];
	json_t *j;

	snprintf(path, sizeof(path), "%s/%s", th_dir(), name);
	j = json_load_file(path, 0, NULL);
	cr_assert_not_null(j, "%s", path);
	return j;
}

/* The result JSON's trace.truncated and the summary table's trace line. */
Test(truncated, replay_result_says_so)
{
	char cmd[1200], *out = NULL;
	json_t *j;

	for (int cut = 0; cut < 2; cut++) {
		snprintf(cmd, sizeof(cmd), "cd %s && %s replay %s -p as-recorded -o r.json 2>/dev/null", th_dir(),
			 th_trimsim(), cut ? "mid.tsim" : "whole.tsim");
		cr_assert_eq(th_run(cmd, &out, NULL), 0, "%s", cmd);
		j = load("r.json");
		cr_assert_eq(json_is_true(json_object_get(json_object_get(j, "trace"), "truncated")), cut);
		cr_assert_eq(strstr(out, "truncated: cut short before its footer") != NULL, cut, "%s", out);
		json_decref(j);
		free(out);
	}
}

/* Every cell of a cut trace carries "truncated": true (and none of a whole one); text and HTML say where. */
Test(truncated, compare_report_says_so)
{
	char cmd[1200], path[700], *txt, *html;
	json_t *j, *cells;
	size_t cut = 0;

	snprintf(cmd, sizeof(cmd), "cd %s && %s compare mid.tsim whole.tsim -p as-recorded,xfs,none -M nvme -q -o c.json "
		 "-o c.txt -o c.html 2>/dev/null", th_dir(), th_trimsim());
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	j = load("c.json");
	cells = json_object_get(j, "cells");
	cr_assert_eq(json_array_size(cells), 6);
	for (size_t i = 0; i < json_array_size(cells); i++) {
		json_t *c = json_array_get(cells, i), *t = json_object_get(c, "truncated");
		bool mid = !strcmp(json_string_value(json_object_get(c, "trace")), "mid.tsim");

		cr_assert(mid ? json_is_true(t) : !t, "cell %zu (%s)", i, mid ? "mid.tsim" : "whole.tsim");
		cut += mid;
	}
	cr_assert_eq(cut, 3);
	json_decref(j);
	snprintf(path, sizeof(path), "%s/c.txt", th_dir());
	txt = th_slurp(path, NULL);
	cr_assert_not_null(txt);
	snprintf(cmd, sizeof(cmd), "\n== mid.tsim (wall time ");
	cr_assert(strstr(txt, cmd), "%s", txt);
	cr_assert(strstr(strstr(txt, cmd), "\ntruncated: mid.tsim: byte "), "%s", txt);
	cr_assert_null(strstr(strstr(txt, "\n== whole.tsim"), "truncated"), "%s", txt);
	free(txt);
	snprintf(path, sizeof(path), "%s/c.html", th_dir());
	html = th_slurp(path, NULL);
	cr_assert_not_null(html);
	cr_assert(strstr(html, "<p class=\"truncated\">truncated: mid.tsim: byte "));
	free(html);
}
