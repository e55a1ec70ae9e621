// SPDX-License-Identifier: GPL-2.0
/* FIFO of policy events with owned segment copies (evq.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/evq.h"
#include "traces/util.h"

void evq_init(struct evq *q)
{
	memset(q, 0, sizeof(*q));
}

void evq_free(struct evq *q)
{
	if (!q)
		return;
	free(q->items);
	free(q->segs);
	evq_init(q);
}

/* Moves live segments to the front once the dead prefix is at least half the store. */
static void compact_segs(struct evq *q)
{
	size_t shift = q->seg_head;

	if (!shift || shift < q->seg_used - shift)
		return;
	memmove(q->segs, q->segs + shift, (q->seg_used - shift) * sizeof(*q->segs));
	for (size_t i = 0; i < q->n; i++) {
		struct evq_item *it = &q->items[(q->head + i) & (q->cap - 1)];

		if (it->ev.nr_segs > 1)
			it->seg -= shift;
	}
	q->seg_used -= shift;
	q->seg_head = 0;
}

int evq__push(struct evq *q, const struct policy_event *ev)
{
	struct evq_item *it;
	int ret;

	if (q->n == q->cap &&
	    (ret = grow_ring((void **)&q->items, &q->cap, &q->head, q->n, sizeof(*q->items))))
		return ret;
	it = &q->items[(q->head + q->n) & (q->cap - 1)];
	it->ev = *ev;
	it->ev.segs = NULL;
	it->seg = 0;
	if (ev->nr_segs > 1) {
		compact_segs(q);
		ret = grow_array((void **)&q->segs, &q->seg_cap, q->seg_used + ev->nr_segs,
				 sizeof(*q->segs));
		if (ret)
			return ret;
		memcpy(q->segs + q->seg_used, ev->segs, ev->nr_segs * sizeof(*q->segs));
		it->seg = q->seg_used;
		q->seg_used += ev->nr_segs;
	}
	q->n++;
	q->bytes += ev->bytes;
	return 0;
}

void evq__pop(struct evq *q)
{
	struct evq_item *it;

	if (!q->n)
		return;
	it = &q->items[q->head];
	q->bytes -= it->ev.bytes;
	if (it->ev.nr_segs > 1)
		q->seg_head = it->seg + it->ev.nr_segs;
	q->head = (q->head + 1) & (q->cap - 1);
	if (!--q->n) {
		q->head = 0;
		q->seg_head = q->seg_used = 0;
	}
}

void evq__clear(struct evq *q)
{
	q->n = q->head = 0;
	q->seg_head = q->seg_used = 0;
	q->bytes = 0;
}
