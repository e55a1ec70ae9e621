// SPDX-License-Identifier: GPL-2.0
/*
 * Sweeps as plans (replay/report/plan.h): compare --plan, trimsim cell, compare
 * --merge give the in-process report byte for byte -- task by task, after a run
 * killed halfway and resumed, and through GNU parallel -- and bad plans, inputs
 * and results fail on one line naming the cell, with nothing merged. (Usage
 * errors of the plan options: tests/replay/test_cli_grammar.c.)
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "tests/report/plan_fixture.h"

TestSuite(plan, .init = th_dir_init, .fini = th_dir_fini);

/* three traces (ext4, xfs, btrfs) x three presets x two profiles: 18 cells */
static const struct pf_sweep sweep = {
	.traces = { "ext4-discard-sqlite.tsim", "xfs-fstrim-rmtree.tsim", "btrfs-async-rmtree.tsim" },
	.policies = "xfs,ext4,none", .profiles = "nvme,sata-sf2281", .per_task = 4,
};

static size_t results(void)
{
	char cmd[600], *o = NULL;
	size_t n;

	snprintf(cmd, sizeof(cmd), "ls %s/plan/cells | grep -c '^[0-9a-f]*\\.cell$'", th_dir());
	th_run(cmd, &o, NULL);
	n = o ? strtoul(o, NULL, 10) : 0;
	free(o);
	return n;
}

/* Every task by its index, as a Slurm array would run them; then again: nothing runs twice. */
Test(plan, tasks_then_merge)
{
	char cmd[2048], *err = NULL;
	int st;

	pf_prepare(&sweep, "");
	snprintf(cmd, sizeof(cmd), "for i in $(cat %s/plan/tasks); do %s cell %s/plan --index $i || exit 1; done",
		 th_dir(), th_trimsim(), th_dir());
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 0, "exit %d: %s", st, err);
	cr_assert_eq(th_lines(err), 18, "one line per cell: %s", err);
	free(err);
	err = NULL;
	cr_assert_eq(results(), 18);
	pf_merge_same();
	snprintf(cmd, sizeof(cmd), "%s cell %s/plan --all 2>&1 | grep -c 'done before$'", th_trimsim(), th_dir());
	st = th_run(cmd, &err, NULL);
	cr_assert(err && atoi(err) == 18, "a second run runs nothing: %s", err);
	free(err);
	err = NULL;
	/* -q: no line for a cell done before */
	snprintf(cmd, sizeof(cmd), "%s cell %s/plan --all -q", th_trimsim(), th_dir());
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 0, "exit %d: %s", st, err);
	cr_expect_eq(th_lines(err), 0, "%s", err);
	free(err);
	cr_assert_eq(results(), 18);
}

/* A run killed (SIGKILL) once half the cells are done, then run again: it resumes, the report is the same. */
Test(plan, killed_and_resumed)
{
	char cmd[2048], *err = NULL;
	size_t before;
	int st;

	pf_prepare(&sweep, "");
	snprintf(cmd, sizeof(cmd),
		 "%s cell %s/plan --all 2>/dev/null & pid=$!; "
		 "while [ $(ls %s/plan/cells | grep -c '\\.cell$') -lt 9 ] && kill -0 $pid 2>/dev/null; do sleep 0.02; done; "
		 "kill -KILL $pid; wait $pid; exit 0",
		 th_trimsim(), th_dir(), th_dir());
	cr_assert_eq(th_run(cmd, NULL, NULL), 0);
	before = results();
	cr_assert_geq(before, 9, "killed after 9 results");
	if (before < 18) {	/* not all there: the merge names what is missing and merges nothing */
		snprintf(cmd, sizeof(cmd), "%s compare --merge %s/plan -q -o %s/merged.json", th_trimsim(), th_dir(),
			 th_dir());
		st = th_run(cmd, NULL, &err);
		cr_assert_eq(st, 1, "exit %d: %s", st, err);
		cr_assert(strstr(err, "cells have no result: cell "), "%s", err);
		cr_assert_eq(th_lines(err), 1, "%s", err);
		free(err);
		err = NULL;
	}
	snprintf(cmd, sizeof(cmd), "%s cell %s/plan --all 2>&1 | grep -c 'done before$'", th_trimsim(), th_dir());
	st = th_run(cmd, &err, NULL);
	cr_assert(err && (size_t)atoi(err) == before, "the resumed run skips the %zu done: %s", before, err);
	free(err);
	cr_assert_eq(results(), 18);
	pf_merge_same();
}

/* GNU parallel, local jobs, with the documented --joblog/--resume line; a second run runs nothing. */
Test(plan, gnu_parallel)
{
	char cmd[2048], path[600], *err = NULL, *log;
	size_t n1, n2;
	int st;

	if (th_run("command -v parallel >/dev/null", NULL, NULL))
		cr_skip_test("GNU parallel is not installed (make deps-test installs it)");
	pf_prepare(&sweep, "");
	snprintf(cmd, sizeof(cmd), "cd %s && parallel --will-cite --joblog plan/joblog --resume -j 2 %s cell plan "
		 "--index {} :::: plan/tasks", th_dir(), th_trimsim());
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 0, "exit %d: %s", st, err);
	free(err);
	pf_merge_same();
	snprintf(path, sizeof(path), "%s/plan/joblog", th_dir());
	log = th_slurp(path, &n1);
	cr_assert(log && th_lines(log) == 1 + 5, "a header and 5 tasks: %s", log);
	free(log);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0);
	log = th_slurp(path, &n2);
	cr_assert_eq(n1, n2, "--resume ran nothing again");
	free(log);
}

/* Arrays, not pointers: Criterion hands each test a copy of its parameters. */
struct bad_case {
	char mutate[160];	/* sh, in th_dir(), after a plan of t.tsim x {xfs, none} x nvme ran whole */
	char run[8];		/* "merge" or "cell" */
	char msg[100];		/* in the one line of stderr */
};

ParameterizedTestParameters(plan, bad_input)
{
	static struct bad_case cases[] = {
		{ .mutate = "sed -i 's/\"trimsim_version\": \"[^\"]*\"/\"trimsim_version\": \"0.0.1\"/' plan/plan.json",
		  .run = "merge", .msg = "plan/plan.json: a plan of trimsim 0.0.1 (trimsim-plan/1), this is trimsim" },
		{ .mutate = "sed -i 's/\"trimsim_version\": \"[^\"]*\"/\"trimsim_version\": \"0.0.1\"/' plan/plan.json",
		  .run = "cell", .msg = "plan/plan.json: a plan of trimsim 0.0.1" },
		{ .mutate = "rm plan/cells/*.cell; printf x | dd of=t.tsim bs=1 seek=3000 conv=notrunc 2>/dev/null",
		  .run = "cell", .msg = ", xfs, nvme): trace t.tsim: digest " },
		{ .mutate = "mkdir plan/cells/hostb && cp plan/cells/*.cell plan/cells/hostb/",
		  .run = "merge", .msg = ", xfs, nvme): two results, " },
		{ .mutate = "for f in plan/cells/*.cell; do printf x | dd of=$f bs=1 seek=5000 conv=notrunc 2>/dev/null; done",
		  .run = "merge", .msg = ".cell: checksum mismatch (damaged)" },
		{ .mutate = "for f in plan/cells/*.cell; do truncate -s 1000 $f; done",
		  .run = "merge", .msg = ".cell: truncated or too long" },
		{ .mutate = "set -- plan/cells/*.cell; mv $1 x; mv $2 $1; mv x $2",
		  .run = "merge", .msg = ".cell: holds another cell's result" },
		{ .mutate = "rm $(ls plan/cells/*.cell | head -1)",
		  .run = "merge", .msg = "1 of 2 cells have no result: cell " },
		{ .mutate = "sed -i '2s/\"none\"/\"ext4\"/' plan/cells.jsonl",
		  .run = "cell", .msg = "plan/cells.jsonl:2: the id does not match the cell's inputs (edited?)" },
	};
	return cr_make_param_array(struct bad_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_case *c, plan, bad_input)
{
	char cmd[2048], out[600], *err = NULL;
	int st;

	snprintf(cmd, sizeof(cmd), "cd %s && cp %s/traces/corpus/ext4-discard-sqlite.tsim t.tsim && "
		 "%s compare t.tsim -p xfs,none -M nvme --plan plan -q && %s cell plan --all 2>/dev/null && { %s; }",
		 th_dir(), th_src(), th_trimsim(), th_trimsim(), c->mutate);
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 0, "%s: exit %d: %s", cmd, st, err);
	free(err);
	err = NULL;
	snprintf(out, sizeof(out), "%s/r.json", th_dir());
	if (!strcmp(c->run, "merge"))
		snprintf(cmd, sizeof(cmd), "cd %s && %s compare --merge plan -q -o %s", th_dir(), th_trimsim(), out);
	else
		snprintf(cmd, sizeof(cmd), "cd %s && %s cell plan --all", th_dir(), th_trimsim());
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 1, "%s: exit %d: %s", cmd, st, err);
	cr_assert(err && strstr(err, c->msg), "%s: stderr '%s', want '%s'", cmd, err, c->msg);
	cr_assert_eq(th_lines(err), 1, "one line: %s", err);
	cr_assert_neq(access(out, F_OK), 0, "nothing merged");
	free(err);
}

/*
 * recommend --plan: the searches' first two rounds as cells; once they ran,
 * recommend --cache DIR/cells finds them done, replays only the refinement and
 * recommends what it recommends without them.
 */
Test(plan, recommend_rounds_then_cache)
{
	char cmd[4096], t[600], *plain = NULL, *cached = NULL, *err = NULL;
	int st;

	snprintf(t, sizeof(t), "%s/traces/corpus/xfs-discard-sqlite.tsim", th_src());
	/* emmc: the search refines past the plan (on nvme, since the CIL pacing replays alike, it does not) */
	snprintf(cmd, sizeof(cmd), "cd %s && %s recommend %s -M emmc --plan rp -q && %s cell rp --all 2>/dev/null",
		 th_dir(), th_trimsim(), t, th_trimsim());
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 0, "exit %d: %s", st, err);
	free(err);
	snprintf(cmd, sizeof(cmd), "cd %s && %s recommend %s -M emmc --json > plain.json && %s recommend %s -M emmc "
		 "--json --cache rp/cells > cached.json && grep -h '\"cells_replayed\"' plain.json cached.json",
		 th_dir(), th_trimsim(), t, th_trimsim(), t);
	cr_assert_eq(th_run(cmd, &plain, NULL), 0);
	cr_assert(strstr(plain, "\"cells_replayed\": 33,\n") && strstr(plain, "\"cells_replayed\": 3,\n"),
		  "33 replayed without the plan's cells, 3 with them: %s", plain);
	snprintf(cmd, sizeof(cmd), "cd %s && grep -v '\"cells_replayed\"' plain.json > a && "
		 "grep -v '\"cells_replayed\"' cached.json > b && cmp a b", th_dir());
	cr_assert_eq(th_run(cmd, &cached, NULL), 0, "the same recommendation: %s", cached);
	free(plain);
	free(cached);
}

/*
 * Staged traces: the plan made where the traces were, the traces then only in
 * another folder (a node without the shared filesystem): --traces reads them
 * there, by file name, checked against the plan's digests.
 */
Test(plan, staged_traces)
{
	char cmd[4096], a[600], b[600], *err = NULL, *x, *y;
	size_t nx, ny;
	int st;

	snprintf(cmd, sizeof(cmd), "cd %s && mkdir src stage && cp %s/traces/corpus/ext4-discard-sqlite.tsim "
		 "%s/traces/corpus/btrfs-async-rmtree.tsim src/ && "
		 "%s compare src/*.tsim -p xfs,none -M nvme -q -o inproc.json && "
		 "%s compare src/*.tsim -p xfs,none -M nvme --plan plan -q && mv src/*.tsim stage/ && "
		 "%s cell plan --all --traces stage && %s compare --merge plan -q -o merged.json",
		 th_dir(), th_src(), th_src(), th_trimsim(), th_trimsim(), th_trimsim(), th_trimsim());
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 0, "exit %d: %s", st, err);
	free(err);
	snprintf(a, sizeof(a), "%s/inproc.json", th_dir());
	snprintf(b, sizeof(b), "%s/merged.json", th_dir());
	x = th_slurp(a, &nx);
	y = th_slurp(b, &ny);
	cr_assert(x && y && nx == ny && !memcmp(x, y, nx), "the same report from staged traces");
	free(x);
	free(y);
	/* a staged file that is another trace is refused, naming the cell */
	snprintf(cmd, sizeof(cmd), "cd %s && rm plan/cells/*.cell && cp stage/btrfs-async-rmtree.tsim "
		 "stage/ext4-discard-sqlite.tsim && %s cell plan --all --traces stage", th_dir(), th_trimsim());
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 1, "exit %d: %s", st, err);
	cr_assert(strstr(err, "cell 2 (") && strstr(err, "stage/ext4-discard-sqlite.tsim: digest "), "%s", err);
	cr_assert_eq(th_lines(err), 3, "cells 0 and 1 (btrfs) done, then the one line: %s", err);
	free(err);
}
