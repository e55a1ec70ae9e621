// SPDX-License-Identifier: GPL-2.0
/* trimsim compare: bad input gives one line naming the option, exit 2, and no output file. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "replay/cli.h"
#include "replay/report/report.h"

struct bad_case {
	char args[256];		/* after "trimsim compare"; TRACE is replaced by a readable file */
	char msg[128];		/* expected in stderr */
	int status;		/* exit status, 0 = 2 (usage) */
};

TestSuite(compare_cli, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(compare_cli, bad_input)
{
	static struct bad_case cases[] = {
		{ .args = "TRACE -p 'xfs,fstrim(interval=1w' -M nvme", .msg = "--policies 'xfs,fstrim(interval=1w': the '(' at column 11 is not closed" },
		{ .args = "TRACE -p 'xfs)' -M nvme", .msg = "--policies 'xfs)': unbalanced ')' at column 4" },
		{ .args = "TRACE -p 'xfs,,none' -M nvme", .msg = "--policies 'xfs,,none': empty item at column 5" },
		{ .args = "TRACE -M nvme", .msg = "no policies given" },
		{ .args = "TRACE -p xfs", .msg = "no device profiles given" },
		{ .args = "-p xfs -M nvme", .msg = "no TRACE given" },
		{ .args = "TRACE -p xfs -M nvme --runs 0", .msg = "--runs '0': expected an integer in 1..64" },
		{ .args = "TRACE -p xfs -M nvme --runs 65", .msg = "--runs '65': expected an integer in 1..64" },
		{ .args = "TRACE -p xfs -M nvme --jobs x", .msg = "--jobs 'x': expected an integer" },
		{ .args = "TRACE -p xfs -M nvme --format pdf", .msg = "--format 'pdf': expected table, json, csv, html or summary" },
		{ .args = "TRACE -p xfs -M nvme --bogus", .msg = "unknown option '--bogus'" },
		{ .args = "TRACE -p xfs -M nvme --seed", .msg = "option '--seed' needs a value" },
		/* unknown or malformed policies and profiles fail before any cell runs, on one line */
		{ .args = "TRACE -p 'xfs,nosuchpolicy' -M nvme",
		  .msg = "--policies 'nosuchpolicy': policy: unknown stage or preset 'nosuchpolicy' (stages: source," },
		{ .args = "TRACE -p 'xfs(bogus=1)' -M nvme",
		  .msg = "--policies 'xfs(bogus=1)': policy: preset 'xfs' has no option 'bogus' (options: " },
		{ .args = "TRACE -p xfs -M nvme,nosuch", .msg = "--models 'nosuch': unknown profile 'nosuch' (known: " },
		/* a profile's overrides after the first are its own, not profiles ("unknown profile 'qd=0'") */
		{ .args = "TRACE -p xfs -M 'nvme:trim_base=1ms,qd=0'",
		  .msg = "--models 'nvme:trim_base=1ms,qd=0': models/profiles/nvme.json: override: option 'qd': 0 is out" },
		{ .args = "TRACE -p xfs -M 'model:nvme:trim_base=-1'",
		  .msg = "--models 'model:nvme:trim_base=-1': models/profiles/nvme.json: override: option 'trim_base'" },
		/* bad traces: exit 1 (bad input), the reader's message with the file and offset */
		{ .args = "/nonexistent/t.tsim -p xfs -M nvme", .msg = "/nonexistent/t.tsim: No such file or directory",
		  .status = 1 },
		{ .args = "TRACE -p xfs -M nvme", .msg = "/etc/hostname: byte 0: bad magic (not a trimsim trace)",
		  .status = 1 },
	};
	return cr_make_param_array(struct bad_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_case *c, compare_cli, bad_input)
{
	char cmd[2048], args[1024], out[600], *err = NULL, *o = NULL;
	const char *t = strstr(c->args, "TRACE");

	snprintf(out, sizeof(out), "%s/r.json", th_dir());
	if (t)
		snprintf(args, sizeof(args), "%.*s/etc/hostname%s", (int)(t - c->args), c->args, t + 5);
	else
		snprintf(args, sizeof(args), "%s", c->args);
	snprintf(cmd, sizeof(cmd), "%s compare -o %s %s", th_trimsim(), out, args);
	int st = th_run(cmd, &o, &err);

	cr_assert_eq(st, c->status ? c->status : 2, "%s: exit %d, stderr %s", cmd, st, err);
	cr_assert(err && strstr(err, c->msg), "%s: stderr '%s', want '%s'", cmd, err, c->msg);
	cr_assert_eq(th_lines(err), 1, "one line, got: %s", err);
	cr_assert(!o || !*o, "nothing on stdout: %s", o);
	cr_assert_neq(access(out, F_OK), 0, "no output file left behind");
	free(err);
	free(o);
}

Test(compare_cli, help)
{
	char cmd[600], *o = NULL;

	snprintf(cmd, sizeof(cmd), "%s compare --help", th_trimsim());
	cr_assert_eq(th_run(cmd, &o, NULL), 0);
	cr_assert(strstr(o, "usage: trimsim compare TRACE..."));
	cr_assert(strstr(o, "commas inside parentheses belong to"));
	free(o);
}

/* The format list of --help is the format table: every row, its extensions and its help line. */
Test(compare_cli, help_lists_the_format_table)
{
	size_t n;
	const struct report_format_ops *f = report_formats(&n);
	char cmd[600], *o = NULL;

	snprintf(cmd, sizeof(cmd), "%s compare --help", th_trimsim());
	cr_assert_eq(th_run(cmd, &o, NULL), 0);
	cr_assert_geq(n, 5);
	for (size_t i = 0; i < n; i++) {
		char line[256], exts[32] = "(stdout)";

		if (f[i].exts[0])	/* ".html .htm" */
			snprintf(exts, sizeof(exts), "%s%s%s", f[i].exts[0], f[i].exts[1] ? " " : "",
				 f[i].exts[1] ? f[i].exts[1] : "");
		snprintf(line, sizeof(line), "\n  %-9s %-12s %s\n", f[i].name, exts, f[i].help);
		cr_assert(strstr(o, line), "--help lacks the row '%s' as the table has it:\n%s", f[i].name, o);
		cr_assert_eq(report_format_by_name(f[i].name), &f[i]);
		for (size_t j = 0; j < REPORT_FORMAT_EXTS && f[i].exts[j]; j++)
			cr_assert_eq(report_format_by_ext(f[i].exts[j]), &f[i], "%s", f[i].exts[j]);
	}
	cr_assert_null(report_format_by_name("pdf"));
	cr_assert_null(report_format_by_ext(".xlsx"));
	free(o);
}

/* -M LIST: top-level commas split items, except before a "key=value" that belongs to the item before it. */
struct split_case {
	char list[96];
	size_t n;
	char want[4][64];
};

ParameterizedTestParameters(compare_cli, models_list)
{
	static struct split_case cases[] = {
		{ "nvme,sata-sf2281", 2, { "nvme", "sata-sf2281" } },
		{ "sata-sf2281:trim_base=5ms,qd=1,nvme", 2, { "sata-sf2281:trim_base=5ms,qd=1", "nvme" } },
		{ "nvme,model:sdcard:qd=1,jitter=0.1", 2, { "nvme", "model:sdcard:qd=1,jitter=0.1" } },
		{ "file:/tmp/x.img,qd=4,nvme:qd=2", 2, { "file:/tmp/x.img,qd=4", "nvme:qd=2" } },
		/* no item before it with options: an item of its own (an unknown profile, said so) */
		{ "nvme,qd=1", 2, { "nvme", "qd=1" } },
		{ "qd=1,nvme", 2, { "qd=1", "nvme" } },
	};
	return cr_make_param_array(struct split_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct split_case *c, compare_cli, models_list)
{
	char *v[8], err[256] = "";
	size_t n = 0;

	cr_assert_eq(cli_split_models(c->list, v, &n, 8, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(n, c->n, "%s: %zu items", c->list, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_str_eq(v[i], c->want[i], "%s: item %zu", c->list, i);
		free(v[i]);
	}
}
