/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metrics core every target shares (RESULT.md documents the JSON).
 * The engine calls submit and done in time order; nothing here reads a clock.
 */
#ifndef TRIMSIM_METRICS_H
#define TRIMSIM_METRICS_H

#include <stdint.h>
#include <jansson.h>
#include "hist.h"
#include "target.h"

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

/* Accessors for the summary table and tests. */
uint64_t metrics__discard_cmds(const struct metrics *m);
uint64_t metrics__discard_bytes(const struct metrics *m);
uint64_t metrics__unique_bytes(const struct metrics *m);
uint64_t metrics__makespan(const struct metrics *m);
/* Commands submitted (discard and foreground). */
uint64_t metrics__commands(const struct metrics *m);
/* Commands that completed with an error; summary gets "ENOSPC 3280, EIO 2" (errno order). */
uint64_t metrics__failed(const struct metrics *m, char *summary, size_t len);
const struct hist *metrics__latency(const struct metrics *m, unsigned op);

#endif
