/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metrics core every target shares (RESULT.md documents the JSON).
 * The engine calls submit and done in time order; nothing here reads a clock.
 */
#ifndef TRIMSIM_METRICS_H
#define TRIMSIM_METRICS_H

#include <stdint.h>
#include <jansson.h>
#include "replay/engine/hist.h"
#include "replay/targets/target.h"

/* What the engine knows about a command when it submits it. */
struct metrics_cmd {
	uint64_t submit_ns;
	uint64_t ready_ns;	/* when it was ready to go (before dispatch queueing) */
	uint64_t freed_ns;	/* discard: earliest free time of its bytes (0 unknown) */
	uint64_t bytes;
	const struct target_seg *segs;	/* every range (at least one) */
	uint32_t nr_segs;
	uint32_t count;		/* policy requests it carries */
	uint8_t op;		/* enum ts_op */
	uint8_t klass;		/* enum target_class */
};

struct metrics;

struct metrics *metrics__new(void);
void metrics__free(struct metrics *m);
int metrics__submit(struct metrics *m, const struct metrics_cmd *c);
/* A completion; c is what was submitted. */
int metrics__done(struct metrics *m, const struct metrics_cmd *c, const struct target_done *d);
/*
 * The trace freed bytes at engine time t_ns (a FREE record, or an INTENT one when
 * intent): the reclaim delay counts them until discards unmap as many (RESULT.md,
 * `reclaim`). Calls in time order with the completions.
 */
int metrics__freed(struct metrics *m, uint64_t t_ns, bool intent, uint64_t bytes);
/* The same foreground command on the discard-free shadow target took base_ns (and lat_ns here). */
int metrics__baseline(struct metrics *m, uint8_t op, uint64_t lat_ns, uint64_t base_ns);
/*
 * End of the run: the last record's engine time; origin_ns is the engine time
 * of the first. Unique bytes are complete only after it (0 or -ENOMEM).
 */
int metrics__finish(struct metrics *m, uint64_t end_ns, uint64_t origin_ns);
/* The "discard", "foreground", "reclaim", "latency", "device", "makespan_ns" members into obj. */
int metrics__to_json(const struct metrics *m, json_t *obj);

/* The run's totals (RESULT.md names), for the compare report: complete after metrics__finish. */
struct metrics_totals {
	uint64_t d_cmds;		/* discard.commands */
	uint64_t d_requests;		/* discard.requests */
	uint64_t d_bytes;		/* discard.bytes */
	uint64_t d_unique;		/* discard.unique_bytes */
	uint64_t d_errors;		/* discard.errors */
	uint64_t d_busy_ns;		/* discard.busy_ns */
	uint64_t d_held_ns;		/* discard.held_ns */
	uint64_t d_waited_ns;		/* discard.waited_ns */
	uint64_t d_peak_cmds_s;		/* discard.peak_commands_per_s */
	uint64_t d_peak_bytes_s;	/* discard.peak_bytes_per_s */
	uint64_t fg_cmds;		/* foreground.commands */
	uint64_t stall_ns;		/* foreground.stall_ns */
	uint64_t makespan_ns;		/* makespan_ns */
	uint64_t reclaim_freed;		/* reclaim.freed_bytes */
	double reclaim_byte_s;		/* reclaim.byte_s */
};
void metrics__totals(const struct metrics *m, struct metrics_totals *t);

/* Accessors for the summary table and tests. */
uint64_t metrics__discard_cmds(const struct metrics *m);
uint64_t metrics__discard_bytes(const struct metrics *m);
uint64_t metrics__unique_bytes(const struct metrics *m);
uint64_t metrics__makespan(const struct metrics *m);
/* Commands submitted (discard and foreground). */
uint64_t metrics__commands(const struct metrics *m);
/* Commands that completed with an error; summary gets "ENOSPC 3280, EIO 2" (errno order). */
uint64_t metrics__failed(const struct metrics *m, char *summary, size_t len);
/* Histograms by op (enum ts_op; NULL past TS_OP_MAX): latency (done - submit, RESULT.md latency.OP) */
const struct hist *metrics__latency(const struct metrics *m, unsigned op);
/* foreground: done - ready, what the application waited (foreground.latency.OP) */
const struct hist *metrics__fg_latency(const struct metrics *m, unsigned op);
/* foreground on the discard-free twin (foreground.baseline_latency.OP) */
const struct hist *metrics__twin_latency(const struct metrics *m, unsigned op);
/* Bytes per discard command (discard.command_bytes). */
const struct hist *metrics__command_bytes(const struct metrics *m);

#endif
