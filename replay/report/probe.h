/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the report takes from one cell's replay, each figure from one place:
 *
 *  - report_cell__from_metrics(): every replay figure the engine's metrics
 *    core already measures (RESULT.md): counts, bytes, unique bytes, errors,
 *    latency (the histogram itself, whose percentiles fill the table and
 *    whose buckets draw the chart), command sizes, device time in discard,
 *    peak rates, foreground stall against the twin, write p99, makespan.
 *  - report_probe: an engine observer (replay/engine/engine.h) for what only the
 *    report draws or derives, over replay time:
 *     - the timeline: discard commands, bytes and device time completed per bin;
 *     - free not yet trimmed: bytes freed (FREE records, else INTENT records when
 *       the trace has no FREE layer) minus the bytes of the discards that
 *       completed without error since (as the reclaim figures of
 *       replay/engine/metrics.c), clamped at 0 -- an approximation that
 *       ignores reallocation;
 *     - workload end: the later of the last trace record and the last foreground
 *       completion (discards still draining after it do not delay the workload);
 *     - foreground held: wall time during which at least one foreground command
 *       waited to start (union of [submit, start) intervals; overlapping waits
 *       count once, unlike a sum of per-command stalls);
 *     - foreground queueing: sum of start - submit over foreground commands,
 *       the cell's stall where the engine has no discard-free twin (real targets);
 *     - recorded serial: the trace's own discard commands (ISSUE/DONE) never
 *       overlapped, each issued after the previous one completed: a submitter
 *       that waited for each (seed 001's XFS);
 *     - the trace's own FITRIM wait: the union of [submit, done) of the discards
 *       covering ranges of its FITRIM INTENT records (an fstrim the recorded
 *       command ran, which waited in the ioctl for them); the set of ranges not
 *       yet matched is an ivset, bounded by the free extents FITRIM named.
 *    FREE records flagged prealloc (unused preallocations) do not count as freed.
 *    No allocation per event: the series are fixed arrays; the held intervals
 *    use ranges.h, which grows only with disjoint extents.
 * REPORT-SCHEMA.md repeats the definitions.
 */
#ifndef TRIMSIM_REPORT_PROBE_H
#define TRIMSIM_REPORT_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/engine/engine.h"
#include "replay/report/cell.h"

struct report_probe;

/* cell is borrowed until finish; legacy_prealloc: engine_cfg.legacy_prealloc. NULL + errno. */
struct report_probe *report_probe__new(struct report_cell *cell, bool legacy_prealloc);
/* The observer the engine calls (engine_cfg.observer): start, record and done hooks. */
void report_probe__observer(struct report_probe *p, struct engine_observer *ob);
/*
 * After the replay, once the cell's wall_ns, makespan_ns and CH_TWIN are set
 * (report_cell__from_metrics, the engine's span): the series over the whole
 * replay, untrimmed bytes, workload end, held time, recorded serial, and the
 * foreground queueing time as the stall when there is no twin.
 */
void report_probe__finish(struct report_probe *p);
void report_probe__destroy(struct report_probe *p);

/*
 * The engine's figures into the cell (after metrics__finish); twin: foreground
 * was measured on a discard-free twin (engine__has_twin), so the stall and
 * baseline write p99 are the engine's. Sets CH_TWIN, CH_WRITE_P99.
 */
void report_cell__from_metrics(struct report_cell *c, const struct metrics *m, bool twin);

/* Command-size bucket of a byte count (SIZE_BUCKETS, SIZE_BASE). */
unsigned cell_size_bucket(uint64_t bytes);

#endif
