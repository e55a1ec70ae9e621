/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_probe: watches one cell's replay and fills a report_cell.
 *
 * The engine (or anything that replays) calls it with what it sees:
 *  - every trace record it reads (FREE / INTENT build free-space-not-yet-trimmed),
 *  - the ranges of every discard command it submits (unique bytes),
 *  - every completion (latency histograms, sizes, timeline, peak rate, stalls).
 * report_probe__finish() turns the sums into the cell's figures.
 *
 * Definitions (REPORT-SCHEMA.md repeats them):
 *  - discard latency: done - submit of a discard command;
 *  - device time in discard: sum of done - start over discard commands;
 *  - foreground stall: sum of start - submit over foreground commands
 *    (time they queued); versus `none` this is the stall discard caused;
 *  - free not yet trimmed: bytes freed (FREE records, else INTENT records when
 *    the trace has no FREE layer) minus bytes the device unmapped since, clamped
 *    at 0 -- an approximation that ignores reallocation;
 *  - peak discard rate: most commands (bytes) completed within one aligned
 *    second of replay time;
 *  - workload end: the later of the last trace record and the last foreground
 *    completion (discards still draining after it do not delay the workload);
 *  - foreground held: wall time during which at least one foreground command
 *    waited to start (union of [submit, start) intervals; overlapping waits
 *    count once, unlike a sum of per-command stalls);
 *  - recorded serial: the trace's own discard commands (ISSUE/DONE) never
 *    overlapped, each issued after the previous one completed: a submitter
 *    that waited for each (seed 001's XFS).
 * FREE records flagged prealloc (unused preallocations) do not count as freed.
 * No allocation per event: histograms and series are fixed arrays; unique
 * bytes use ranges.h, which grows only with disjoint extents.
 */
#ifndef TRIMSIM_REPORT_PROBE_H
#define TRIMSIM_REPORT_PROBE_H

#include <stdint.h>

#include "traces/trace.h"
#include "replay/targets/target.h"
#include "replay/report/cell.h"

struct report_probe;

/* start_ns: time origin of the replay (first record). cell is borrowed until finish. NULL + errno. */
struct report_probe *report_probe__new(struct report_cell *cell, uint64_t start_ns);
void report_probe__record(struct report_probe *p, const struct ts_record *rec);
/* A discard command was submitted: its ranges (segs may be NULL for a single range). */
int report_probe__discard_ranges(struct report_probe *p, uint64_t offset, uint64_t length,
				 const struct target_seg *segs, uint32_t nr_segs);
void report_probe__done(struct report_probe *p, const struct target_done *d);
/* end_ns: replay end. Fills counts, percentiles, series, unique bytes, makespan, wall time. */
void report_probe__finish(struct report_probe *p, uint64_t end_ns);
void report_probe__destroy(struct report_probe *p);

/* Histogram helpers (shared with the renderers). */
unsigned cell_lat_bucket(uint64_t ns);
uint64_t cell_lat_bucket_upper(unsigned b);	/* exclusive upper bound of bucket b, ns */
/* q in [0,1]; interpolated within the bucket, clamped to max. 0 if empty. */
uint64_t cell_lat_quantile(const struct cell_lat *l, double q);
void cell_lat_add(struct cell_lat *l, uint64_t ns);
unsigned cell_size_bucket(uint64_t bytes);

#endif
