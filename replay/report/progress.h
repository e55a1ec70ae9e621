/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The progress of a sweep (compare, recommend) on stderr when it is a terminal:
 * a header line at once, before any cell finishes (what runs: how many cells,
 * on how many workers), then one line redrawn in place at most every
 * PROGRESS_REDRAW_NS: cells done/total, elapsed, ETA; the last state stays on
 * the screen when the sweep ends. Nothing at all when stderr is not a terminal
 * or the command is quiet (a pipe, a log file, a script get the report only).
 *
 * recommend does not know its cells in advance (the search adds them round by
 * round): it counts parts (one search per trace x profile), and the ETA comes
 * from the parts done. Every function accepts NULL (no progress).
 */
#ifndef TRIMSIM_REPORT_PROGRESS_H
#define TRIMSIM_REPORT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PROGRESS_REDRAW_NS 200000000ull

struct progress;

/*
 * Progress on f, for cmd ("compare"): NULL when f is not a terminal or quiet
 * (errno 0), or out of memory (errno ENOMEM); either way the sweep runs without.
 */
struct progress *progress__new(FILE *f, const char *cmd, bool quiet);
/* The header line, "trimsim CMD: " and the text, printed at once. */
void progress__header(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Cells the sweep will run (compare: all of them, known up front): the ETA follows them. */
void progress__cells_total(struct progress *p, size_t total);
/* One cell done. */
void progress__cell(struct progress *p);
/* recommend: part `done` of `total` (done ones before it) starts; label says which ("t.tsim on nvme"). */
void progress__part(struct progress *p, size_t done, size_t total, const char *label);
/* The line, whole: "12/99 cells, 0:03 elapsed, ETA 0:21" (no redraw throttle, no terminal codes). */
void progress__line(const struct progress *p, char *buf, size_t len);
/* Erases the line, so that a message can be printed on stderr; the next change draws it again. */
void progress__clear(struct progress *p);
/* Draws the last state and ends its line; frees p. */
void progress__destroy(struct progress *p);

#endif
