/* SPDX-License-Identifier: GPL-2.0 */
/* The plan's insides, shared by plan.c (make, write, read) and plan_run.c (run, merge). */
#ifndef TRIMSIM_REPORT_PLAN_INT_H
#define TRIMSIM_REPORT_PLAN_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "replay/report/plan.h"

struct plan_input {
	char *name;		/* trace path or profile spec, as given */
	uint64_t digest;	/* cellid.h */
};

struct plan_cell {
	uint64_t id;
	uint32_t trace, profile;	/* indices into the plan's traces and profiles */
	char *policy;
};

struct plan {
	char command[16];		/* "compare" or "recommend" */
	uint64_t seed;
	unsigned qd, runs, per_task;
	char base[PATH_MAX];		/* the directory the plan was made in: relative trace paths start there */
	char dir[PATH_MAX];		/* plan__load(): the plan's directory, absolute */
	struct plan_input *traces, *profiles;
	size_t nt, nm;
	char **policies;		/* compare: the axis, in order */
	size_t np;
	struct plan_cell *cells;
	size_t n, cap;
	bool *checked;			/* plan__run(): traces, then profiles, whose digest was checked */
};

#endif
