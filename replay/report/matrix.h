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

/* Every cell of r not filled: 0, -EINTR when a signal stopped the sweep, or -errno. Failed cells carry their error. */
int report_run_matrix(struct report *r, const struct matrix_opts *o);
/*
 * Cell i of r replayed into its report_cell, in this process: what each worker
 * does with an index (o's seed, runs, qd, destructive apply; jobs, filled and
 * progress do not). 0, or -errno with the cell's error set.
 */
int report_run_matrix_cell(struct report *r, size_t i, const struct matrix_opts *o);

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
