// SPDX-License-Identifier: GPL-2.0
/*
 * The cell runner (replay/report/matrix.h): long-lived workers handed cell
 * after cell give the same report, byte for byte, as one process per cell
 * (isolate), as one worker, and as each cell run on its own in this process
 * (report_run_one, what `trimsim cell` calls); a cell marked filled is
 * left as it was; more workers than cells is fine; a worker killed in a cell
 * fails that cell alone and another worker runs the rest.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "replay/report/matrix.h"
#include "replay/report/report.h"

TestSuite(matrix, .timeout = 120);

#define NT 2
#define NP 3
#define NM 2

static struct report *new_report(void)
{
	static char t0[512], t1[512];
	char *traces[NT] = { t0, t1 };
	char *policies[NP] = { "xfs", "none", "ext4" }, *profiles[NM] = { "nvme", "sata-sf2281" };
	struct report *r;

	snprintf(t0, sizeof(t0), "%s/traces/corpus/xfs-discard-rmlarge.tsim", th_src());
	snprintf(t1, sizeof(t1), "%s/traces/corpus/ext4-discard-db.tsim", th_src());
	cr_assert_not_null(r = report__new(traces, NT, policies, NP, profiles, NM, 1, 1));
	cr_assert_eq(report__ncells(r), NT * NP * NM);
	return r;
}

/* The report as JSON (after report__finish). */
static char *json_of(struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(report__finish(r), 0);
	cr_assert_eq(report__write_json(r, f), 0);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static bool odd(void *arg, size_t i)
{
	(void)arg;
	return i % 2;
}

struct mcase {
	char name[24];
	unsigned jobs;
	bool isolate;
	bool in_process;	/* report_run_one() for each cell, no worker */
};

static struct mcase cases[] = {
	{ "one worker", 1, false, false },
	{ "more workers than cells", 64, false, false },
	{ "a process per cell", 2, true, false },
	{ "in this process", 0, false, true },
};

ParameterizedTestParameters(matrix, same_report)
{
	return cr_make_param_array(struct mcase, cases, sizeof(cases) / sizeof(cases[0]));
}

/* Each way against two workers, each running cell after cell (compare's default). */
ParameterizedTest(struct mcase *c, matrix, same_report)
{
	struct report *ref = new_report(), *r = new_report();
	struct matrix_opts o = { .jobs = 2, .runs = 1, .seed = 1 };
	char *a, *b, msg[256];

	cr_assert_eq(report_run_matrix(ref, &o), 0);
	o.jobs = c->jobs;
	o.isolate = c->isolate;
	if (c->in_process) {
		for (size_t i = 0; i < report__ncells(r); i++)
			cr_assert_eq(report_run_one(report__cell(r, i), &o, msg, sizeof(msg)), 0, "cell %zu: %s", i, msg);
	} else {
		cr_assert_eq(report_run_matrix(r, &o), 0);
	}
	for (size_t i = 0; i < report__ncells(r); i++) {
		cr_expect_eq(report__cell_c(r, i)->status, 0, "%s: cell %zu: %s", c->name, i,
			     report__cell_c(r, i)->error);
		cr_expect_gt(report__cell_c(r, i)->wall_ns, 0, "%s: cell %zu replayed", c->name, i);
	}
	a = json_of(ref);
	b = json_of(r);
	cr_expect_str_eq(a, b, "%s", c->name);
	free(a);
	free(b);
	report__destroy(ref);
	report__destroy(r);
}

/* Cells the caller filled (recommend's cache hits) are not run: they keep what the caller put there. */
Test(matrix, filled_cells_kept)
{
	struct report *r = new_report();
	struct matrix_opts o = { .jobs = 2, .runs = 1, .seed = 1, .filled = odd };

	for (size_t i = 1; i < report__ncells(r); i += 2)
		report__cell(r, i)->cmds = 4242;
	cr_assert_eq(report_run_matrix(r, &o), 0);
	for (size_t i = 0; i < report__ncells(r); i++) {
		const struct report_cell *c = report__cell_c(r, i);

		if (i % 2)
			cr_expect(c->cmds == 4242 && c->wall_ns == 0, "cell %zu was run", i);
		else
			cr_expect(c->wall_ns > 0 && c->cmds != 4242, "cell %zu was not run", i);
	}
	report__destroy(r);
}

/* The first child of this process that appears (a worker), killed with SIGKILL once it has run a while. */
static void *kill_first_worker(void *arg)
{
	char path[64], buf[64] = "";
	struct timespec t = { 0, 20000000 };
	pid_t pid = 0;

	(void)arg;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", getpid(), getpid());
	for (int i = 0; i < 3000 && !pid; i++) {
		FILE *f = fopen(path, "r");

		if (f && fgets(buf, sizeof(buf), f))
			pid = atoi(buf);
		if (f)
			fclose(f);
		if (!pid)
			nanosleep(&t, NULL);
	}
	t.tv_nsec = 100000000;	/* inside its first cell, which takes much longer */
	nanosleep(&t, NULL);
	if (pid > 0)
		kill(pid, SIGKILL);
	return NULL;
}

/*
 * One worker, three long cells (91 GiB of discards cut at 128K: ~750,000 commands each, on three
 * profiles), the worker killed inside one (the first, unless a machine runs it in under 100 ms):
 * that cell fails and says so, a new worker runs the others.
 */
Test(matrix, killed_worker_fails_its_cell_only)
{
	static char t0[512];
	char *traces[1] = { t0 }, *policies[1] = { "as-recorded|split(max=128K)" };
	char *profiles[3] = { "sata-sf2281", "sdcard", "emmc" };
	struct matrix_opts o = { .jobs = 1, .runs = 1, .seed = 1 };
	struct report *r;
	pthread_t th;
	size_t failed = 0;

	snprintf(t0, sizeof(t0), "%s/traces/corpus/ext4-discard-rmtree.tsim", th_src());
	cr_assert_not_null(r = report__new(traces, 1, policies, 1, profiles, 3, 1, 1));
	cr_assert_eq(pthread_create(&th, NULL, kill_first_worker, NULL), 0);
	cr_assert_eq(report_run_matrix(r, &o), 0);
	cr_assert_eq(pthread_join(th, NULL), 0);
	for (size_t i = 0; i < report__ncells(r); i++) {
		const struct report_cell *c = report__cell_c(r, i);

		if (c->status) {
			failed++;
			cr_expect_eq(c->status, -EIO);
			cr_expect_str_eq(c->error, "worker killed by signal 9");
		} else {
			cr_expect_gt(c->wall_ns, 0, "cell %zu ran in another worker", i);
		}
	}
	cr_expect_eq(failed, 1);
	report__destroy(r);
}
