// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim cell: runs cells of a plan (plan.h) -- one array task of a Slurm job,
 * one job of GNU parallel, or a range by hand -- and writes each result as
 * DIR/cells/ID.cell. Cells already done are skipped, so it resumes.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/opts.h"
#include "traces/util.h"
#include "replay/cli.h"
#include "replay/report/matrix.h"
#include "replay/report/plan.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim cell DIR (--index I | --range A-B | --all) [--traces STAGE] [-q]\n"
		"\n"
		"Runs cells of the plan in DIR (written by trimsim compare ... --plan DIR, or\n"
		"recommend ... --plan DIR) and writes each result to DIR/cells/ID.cell, named by the\n"
		"cell's id: a hash of the trace's bytes, the policy, the profile's JSON, the seed and\n"
		"the trimsim version. A cell whose result is already there is skipped, so a task, an\n"
		"array or a whole sweep can be run again and resumes where it stopped; a failed cell\n"
		"is tried again. Before a cell runs, its trace and profile must have the digests the\n"
		"plan recorded, and the plan must come from this trimsim version.\n"
		"\n"
		"  --index I       task I of the plan: cells I*K .. I*K+K-1, K the plan's cells per task\n"
		"                  (--index \"$SLURM_ARRAY_TASK_ID\" in a job array, {} in GNU parallel)\n"
		"  --range A-B     cells A to B (indices in DIR/cells.jsonl; A alone: one cell)\n"
		"  --all           every cell\n"
		"  --traces STAGE  read each trace as STAGE/NAME (NAME: its file name in the plan) instead of\n"
		"                  its path, where the traces were copied to the node; relative paths in the\n"
		"                  plan otherwise start at the directory the plan was made in, when it exists\n"
		"  -q, --quiet     no line for a cell done (or done before); a failed cell still has its line\n"
		"\n"
		"Exit status: 0 every cell has its result, 1 a cell failed (its result names why; merged,\n"
		"it is a failed cell of the report) or the plan or an input does not match, 2 usage.\n"
		"\n"
		"example:\n"
		"  trimsim compare *.tsim -p xfs,ext4,none -M nvme --plan sweep --slurm\n"
		"  sbatch sweep/trimsim.sbatch                      # or, with GNU parallel:\n"
		"  parallel --joblog sweep/joblog --resume trimsim cell sweep --index {} :::: sweep/tasks\n"
		"  trimsim compare --merge sweep -o report.html\n");
}

struct cell_args {
	const char *dir, *stage;
	size_t first, last;
	bool task, range, all, quiet;
};

static int parse_range(const char *s, size_t *a, size_t *b, char *err, size_t errlen)
{
	const char *dash = strchr(s, '-');
	char lo[32];
	uint64_t x, y;

	if (!dash) {
		if (parse_u64(s, &x))
			goto bad;
		*a = *b = (size_t)x;
		return 0;
	}
	if ((size_t)(dash - s) >= sizeof(lo))
		goto bad;
	snprintf(lo, sizeof(lo), "%.*s", (int)(dash - s), s);
	if (parse_u64(lo, &x) || parse_u64(dash + 1, &y) || y < x)
		goto bad;
	*a = (size_t)x;
	*b = (size_t)y;
	return 0;
bad:
	return ts_errf(err, errlen, -EINVAL, "--range '%s': expected A-B with A <= B (cell indices) or one index", s);
}

static int parse_args(int argc, char **argv, struct cell_args *a, char *err, size_t errlen)
{
	static const struct option lopts[] = {
		{ "index", required_argument, NULL, 'i' }, { "range", required_argument, NULL, 'r' },
		{ "all", no_argument, NULL, 'a' }, { "traces", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	uint64_t v;
	int c, e;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if ((e = report_parse_uint("--index", optarg, 0, SIZE_MAX / 2, &v, err, errlen)))
				return e;
			a->first = (size_t)v;
			a->task = true;
			break;
		case 'r':
			if ((e = parse_range(optarg, &a->first, &a->last, err, errlen)))
				return e;
			a->range = true;
			break;
		case 'a':
			a->all = true;
			break;
		case 'T':
			a->stage = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		default:
			err[0] = 0;
			cli_getopt_error("cell", c, argv, usage);
			return -EINVAL;
		}
	}
	if (optind + 1 != argc)
		return ts_errf(err, errlen, -EINVAL, optind == argc ? "no plan DIR given" : "'%s': one plan DIR only",
			       argv[optind + 1 < argc ? optind + 1 : optind]);
	a->dir = argv[optind];
	if (a->task + a->range + a->all != 1)
		return ts_errf(err, errlen, -EINVAL, "which cells: one of --index I, --range A-B or --all");
	return 0;
}

int cmd_cell(int argc, char **argv)
{
	struct cell_args a = { 0 };
	struct plan *p = NULL;
	char err[1024] = "", *stage = NULL;
	int rc = 1, e;

	if (cli_wants_help(argc, argv)) {
		usage(stdout);
		return 0;
	}
	if ((e = parse_args(argc, argv, &a, err, sizeof(err)))) {
		if (err[0])
			cli_usage_error("cell", "%s", err);
		return 2;
	}
	if (!(p = plan__load(a.dir, err, sizeof(err)))) {
		fprintf(stderr, "trimsim cell: %s\n", err);
		goto out;
	}
	if (a.task && (e = plan__task(p, a.first, &a.first, &a.last, err, sizeof(err)))) {
		fprintf(stderr, "trimsim cell: %s\n", err);
		goto out;
	}
	if (a.all)
		a.last = plan__ncells(p) - 1;
	if (a.range && a.last >= plan__ncells(p)) {
		fprintf(stderr, "trimsim cell: --range %zu-%zu: the plan has cells 0..%zu\n", a.first, a.last,
			plan__ncells(p) - 1);
		goto out;
	}
	if (a.stage && !(stage = realpath(a.stage, NULL))) {
		fprintf(stderr, "trimsim cell: --traces %s: %s\n", a.stage, strerror(errno));
		goto out;
	}
	/* relative trace paths start where the plan was made (messages then name them as compare would) */
	if (plan__base(p) && chdir(plan__base(p)))
		fprintf(stderr, "trimsim cell: warning: %s: %s; relative trace paths start here\n", plan__base(p),
			strerror(errno));
	e = plan__run(p, a.first, a.last, stage, a.quiet ? NULL : stderr, err, sizeof(err));
	if (e < 0)
		fprintf(stderr, "trimsim cell: %s\n", e == -EINTR ? "interrupted" : err);
	rc = e ? 1 : 0;
out:
	free(stage);
	plan__destroy(p);
	return rc;
}
