/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs the cells of a report: jobs forked workers, each handed cell after cell
 * (an index through a pipe), replay a cell and send its report_cell back
 * through a pipe as bytes (the struct is plain data); the parent puts it at the
 * cell's index, so the result never depends on which worker ran it or finished
 * first. A worker that dies fails only the cell it was running; another takes
 * its place. Model cells run in parallel, cells on real devices or files one at
 * a time, alone, each in a fresh process. compare and recommend share it.
 */
#ifndef TRIMSIM_REPORT_MATRIX_H
#define TRIMSIM_REPORT_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct report;
struct progress;

struct matrix_opts {
	unsigned jobs;		/* model cells at once (at least 1) */
	unsigned runs;		/* runs per real-time cell */
	unsigned qd;		/* --qd, 0: each target its own */
	uint64_t seed;
	bool destructive;
	/* optional: true for a cell already filled (a cache hit), which is not run */
	bool (*filled)(void *arg, size_t cell);
	void *arg;
	bool isolate;		/* one process per model cell too (slower: a fork, pipe and wait each) */
	struct progress *progress;	/* optional: told of each cell done (progress.h) */
};

/* The defaults compare and recommend share: --jobs the online CPUs, one run, seed 1. */
void report_matrix_defaults(struct matrix_opts *m);
/* The long options compare and recommend both take, with the same letters (getopt.h's struct option rows). */
#define REPORT_MATRIX_LOPTS                                                                                        \
	{ "models", required_argument, NULL, 'M' }, { "model", required_argument, NULL, 'M' },                   \
	{ "jobs", required_argument, NULL, 'j' }, { "seed", required_argument, NULL, 's' },                      \
	{ "format", required_argument, NULL, 'f' }, { "json", no_argument, NULL, 'J' },                           \
	{ "output", required_argument, NULL, 'o' }, { "quiet", no_argument, NULL, 'q' },                          \
	{ "help", no_argument, NULL, 'h' }, { "plan", required_argument, NULL, 'P' },                             \
	{ "slurm", no_argument, NULL, 'S' }, { "per-task", required_argument, NULL, 'K' }

/* --plan DIR [--slurm] [--per-task N]: write the cells out instead of running them (plan.h). */
struct matrix_plan {
	const char *dir;	/* NULL: run the cells here */
	unsigned per_task;	/* 0: the plan's default */
	bool slurm;
};

struct option;
/* A command's grammar, for report_matrix_args(). */
struct matrix_cli {
	const char *cmd;		/* "compare" */
	const char *shortopts;
	const struct option *lopts;
	void (*usage)(FILE *f);
	/* the command's own option c: 0, -errno with err set, or 1 when c is not its own */
	int (*own)(int c, const char *arg, void *ctx, char *err, size_t errlen);
	void *ctx;
	char **traces;			/* the operands go here (at most max_traces) */
	size_t *nt, max_traces;
	const char *const *merge;	/* NULL, or --merge DIR's: set after the options, no operand is wanted */
	struct matrix_plan *plan;	/* --plan, --slurm, --per-task */
};

/*
 * argv's options (getopt_long): each goes to cli->own, then the matrix options
 * apply to m (after report_matrix_defaults(m)): 'j' --jobs, 's' --seed, 'r' --runs,
 * 'Q' --qd, 'D' --destructive; and cli->plan's 'P' --plan, 'S' --slurm, 'K' --per-task
 * (--slurm and --per-task need --plan); anything else is a usage error printed in one line
 * (cli_getopt_error(), with usage), err left empty. Then the operands as traces
 * (report_take_traces()). 0, or -errno (a bad value: err names the option).
 */
int report_matrix_args(const struct matrix_cli *cli, int argc, char **argv, struct matrix_opts *m, char *err,
		       size_t errlen);
/* An integer option in lo..hi: 0, or -EINVAL with a message naming opt. */
int report_parse_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *err,
		      size_t errlen);

/*
 * One cell, in this process: c (its identity set, report_cell__init()) replayed
 * with o's seed, runs, qd and destructive into c (jobs, filled and progress do not
 * apply). 0, or -errno with the message in err and c->error. What each worker of
 * report_run_matrix() runs with a cell index; `trimsim cell` too.
 */
struct report_cell;
int report_run_one(struct report_cell *c, const struct matrix_opts *o, char *err, size_t errlen);

/* Every cell of r not filled: 0, -EINTR when a signal stopped the sweep, or -errno. Failed cells carry their error. */
int report_run_matrix(struct report *r, const struct matrix_opts *o);

/* The operands argv[first..argc) as traces (at most max): 0, or -errno with a one-line message. */
int report_take_traces(int argc, char **argv, int first, char **traces, size_t *nt, size_t max, char *err,
		       size_t errlen);
/*
 * Every trace opens (header and device table parse) before any cell runs, so bad
 * input fails early. Each cell reads its trace anew: a pipe or "-" is copied once
 * first (trace_reader__spool()), before the workers fork. 0 or -errno, err set.
 */
int report_open_traces(char *const *traces, size_t nt, char *err, size_t errlen);

#endif
