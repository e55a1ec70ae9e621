/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sweep's cells, written out so that a cluster scheduler runs them (Slurm job
 * arrays, GNU parallel), and merged back into the report compare would give.
 *
 * A plan directory holds:
 *   plan.json     the trimsim version, the command, seed and --qd, the inputs with
 *                 their digests (traces: the bytes; profiles: the JSON that replays,
 *                 cellid.h), compare's axes (traces, policies, profiles in order),
 *                 cells per task and the number of tasks;
 *   cells.jsonl   one cell a line: index, id, trace, policy, profile, seed;
 *   tasks         the task indices, one a line (GNU parallel reads it: `:::: DIR/tasks`);
 *   cells/        the results, ID.cell (cellid.h), written by `trimsim cell`;
 *                 results copied back from other hosts may sit one folder down;
 *   trimsim.sbatch and logs/ (--slurm): the array job script and its per-task logs.
 * Task t runs cells [t * per_task, (t + 1) * per_task). A cell whose result is there
 * is not run again, so a task, a whole array or a sweep resumes where it stopped.
 */
#ifndef TRIMSIM_REPORT_PLAN_H
#define TRIMSIM_REPORT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/report/matrix.h"

#define PLAN_SCHEMA	"trimsim-plan/1"
/* Slurm's default MaxArraySize is 1001: plans default to at most this many tasks. */
#define PLAN_MAX_TASKS	1000
/* Array tasks running at once (the %N of --array) unless the plan has fewer. */
#define PLAN_THROTTLE	64

struct plan;
struct report;

/* A plan for command ("compare", "recommend") with o's seed, runs and qd; NULL + errno. */
struct plan *plan__new(const char *command, const struct matrix_opts *o);
/*
 * One cell (in order: its index is the number added before). Digests the trace and
 * the profile once each; traces must be files. 0, or -errno with err naming the input.
 */
int plan__add(struct plan *p, const char *trace, const char *policy, const char *profile, char *err,
	      size_t errlen);
/* compare: the report's axes, which --merge rebuilds the report from (cells added in report__at() order). */
int plan__set_axes(struct plan *p, char *const *policies, size_t np);
/*
 * Writes the plan into dir (made if missing; a dir holding another plan is refused,
 * the same plan is rewritten and keeps its results). per_task 0: enough that there
 * are at most PLAN_MAX_TASKS tasks. slurm: trimsim.sbatch and logs/ too.
 * 0, or -errno with err.
 */
int plan__write(struct plan *p, const char *dir, unsigned per_task, bool slurm, char *err, size_t errlen);

/*
 * Reads dir's plan: the same trimsim version and build, every cell's id recomputed
 * from its line and the inputs' digests. NULL + errno, err naming the file and line.
 */
struct plan *plan__load(const char *dir, char *err, size_t errlen);
size_t plan__ncells(const struct plan *p);
size_t plan__ntasks(const struct plan *p);
/* Where the plan was made, when a trace path in it is relative (they start there); else NULL. */
const char *plan__base(const struct plan *p);
/* Task t's cells: [*first, *last]; -ERANGE (err) when there is no task t. */
int plan__task(const struct plan *p, size_t t, size_t *first, size_t *last, char *err, size_t errlen);

/*
 * Runs cells first..last that have no good result yet, one after another, each
 * checked against the plan (the trace's and the profile's digests) before it runs;
 * stage: read the traces from there (by their file names) instead of their paths.
 * One line per cell into log; log NULL: only failed cells, on stderr. 0 when every cell has its result; 1 when some cell
 * failed (its result is kept: the report shows it, a rerun tries it again);
 * -EINTR on SIGINT/SIGTERM; -errno with err naming the cell (a digest mismatch).
 */
int plan__run(struct plan *p, size_t first, size_t last, const char *stage, FILE *log, char *err, size_t errlen);

/*
 * compare --merge: the report of a compare plan, from its cells' results (not yet
 * finished: report__finish()). A duplicate or damaged result is an error naming
 * the cell; missing ones too unless partial, when they become failed cells and one
 * line into warn names them. NULL + errno, err set.
 */
struct report *plan__merge(struct plan *p, bool partial, FILE *warn, char *err, size_t errlen);

void plan__destroy(struct plan *p);

#endif
