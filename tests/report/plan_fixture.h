/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A corpus sweep (traces x presets x profiles) made twice: in process by
 * `trimsim compare`, and as a plan (--plan) whose cells something else runs
 * (trimsim cell, GNU parallel, a Slurm array); pf_merge_same() merges the plan
 * and checks the JSON report is byte-identical. Shared by tests/report/test_plan.c
 * and tests/live/test_slurm.c.
 */
#ifndef TRIMSIM_TESTS_PLAN_FIXTURE_H
#define TRIMSIM_TESTS_PLAN_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

struct pf_sweep {
	const char *traces[4];		/* corpus file names */
	const char *policies, *profiles;
	unsigned per_task;
};

/* The sweep's arguments: "T1 T2 -p P -M M" with the corpus paths. */
static inline void pf_args(const struct pf_sweep *s, char *buf, size_t len)
{
	size_t at = 0;

	for (size_t i = 0; i < 4 && s->traces[i]; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s/traces/corpus/%s ", th_src(), s->traces[i]);
	snprintf(buf + at, len - at, "-p '%s' -M '%s' -j 2", s->policies, s->profiles);
}

/* In process into th_dir()/inproc.json, and the plan into th_dir()/plan (extra: "--slurm"...). */
static inline void pf_prepare(const struct pf_sweep *s, const char *extra)
{
	char args[2048], cmd[4096], *err = NULL;
	int st;

	pf_args(s, args, sizeof(args));
	snprintf(cmd, sizeof(cmd), "%s compare %s -q -o %s/inproc.json", th_trimsim(), args, th_dir());
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 0, "%s: exit %d: %s", cmd, st, err);
	free(err);
	err = NULL;
	snprintf(cmd, sizeof(cmd), "%s compare %s --plan %s/plan --per-task %u %s", th_trimsim(), args, th_dir(),
		 s->per_task, extra);
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 0, "%s: exit %d: %s", cmd, st, err);
	free(err);
}

/* compare --merge gives the in-process report, byte for byte. */
static inline void pf_merge_same(void)
{
	char cmd[2048], a[600], b[600], *err = NULL, *x, *y;
	size_t nx, ny;
	int st;

	snprintf(cmd, sizeof(cmd), "%s compare --merge %s/plan -q -o %s/merged.json", th_trimsim(), th_dir(), th_dir());
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 0, "%s: exit %d: %s", cmd, st, err);
	free(err);
	snprintf(a, sizeof(a), "%s/inproc.json", th_dir());
	snprintf(b, sizeof(b), "%s/merged.json", th_dir());
	x = th_slurp(a, &nx);
	y = th_slurp(b, &ny);
	cr_assert(x && y && nx > 1000, "both reports written");
	cr_assert(nx == ny && !memcmp(x, y, nx), "the merged report differs from compare's (%zu vs %zu bytes)", ny,
		  nx);
	free(x);
	free(y);
}

#endif
