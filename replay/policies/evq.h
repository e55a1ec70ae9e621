/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A FIFO of policy events that owns copies of their segments: what a stage
 * uses to hold requests (batch, sort, merge, delay, rate, kernel stages).
 * Storage grows by doubling and is reused; no allocation per event once warm.
 */
#ifndef TRIMSIM_EVQ_H
#define TRIMSIM_EVQ_H

#include <stddef.h>
#include <stdint.h>
#include "replay/policies/policy.h"
#include "traces/util.h"	/* grow_array() */

struct evq_item {
	struct policy_event ev;	/* ev.segs is NULL in storage; use evq__get() */
	size_t seg;		/* index of its first segment in the segment store */
};

struct evq {
	struct evq_item *items;
	size_t cap, head, n;		/* ring; cap is 0 or a power of two (64 doubled) */
	struct target_seg *segs;
	size_t seg_cap, seg_head, seg_used;	/* segments [seg_head, seg_used) are live */
	uint64_t bytes;			/* total bytes held */
};

void evq_init(struct evq *q);
void evq_free(struct evq *q);
/* Copies ev (and its segments). 0 or -ENOMEM. */
int evq__push(struct evq *q, const struct policy_event *ev);
/* The i-th held event (0 = oldest), segs pointing into the store; valid until the next push/pop (inline: one per discard). */
static inline struct policy_event evq__get(const struct evq *q, size_t i)
{
	const struct evq_item *it = &q->items[(q->head + i) & (q->cap - 1)];
	struct policy_event ev = it->ev;

	if (ev.nr_segs > 1)
		ev.segs = q->segs + it->seg;
	return ev;
}
/* Drops the oldest event. */
void evq__pop(struct evq *q);
void evq__clear(struct evq *q);
static inline size_t evq__len(const struct evq *q) { return q->n; }
/* time_ns of the oldest held event (the queue must not be empty): evq__get(q, 0).time_ns without the copy. */
static inline uint64_t evq__head_time(const struct evq *q) { return q->items[q->head].ev.time_ns; }
static inline uint64_t evq__bytes(const struct evq *q) { return q->bytes; }

/* A single-range copy of t covering [off, off+len). */
static inline struct policy_event ev_single(const struct policy_event *t, uint64_t off, uint64_t len)
{
	struct policy_event e = *t;

	e.offset = off;
	e.length = len;
	e.bytes = len;
	e.segs = NULL;
	e.nr_segs = 0;
	return e;
}

/* The i-th range of ev (single-range events have one). */
static inline struct target_seg ev_seg(const struct policy_event *ev, uint32_t i)
{
	if (ev->nr_segs > 1)
		return ev->segs[i];
	return (struct target_seg){ ev->offset, ev->length };
}

static inline uint32_t ev_nsegs(const struct policy_event *ev)
{
	return ev->nr_segs > 1 ? ev->nr_segs : 1;
}

#endif
