/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Drives a kernel-emulating preset or stage through policy__new() with
 * synthetic record streams and captures what it emits (tests/replay/test_presets*.c).
 */
#ifndef TRIMSIM_PRESETS_HARNESS_H
#define TRIMSIM_PRESETS_HARNESS_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/policy.h"

#define K 1024ull
#define MIB (1024ull * 1024)
#define MS 1000000ull
#define S 1000000000ull
#define CAP_KEEP 64

struct cap_ev { uint64_t t, off, len, bytes, freed; uint32_t nsegs, count; };

struct cap {
	struct cap_ev ev[CAP_KEEP];	/* the first CAP_KEEP events */
	size_t n;			/* all events */
	uint64_t bytes;
	uint64_t max_len;
};

static inline int cap_sink(void *arg, const struct policy_event *ev)
{
	struct cap *c = arg;

	if (c->n < CAP_KEEP)
		c->ev[c->n] = (struct cap_ev){ ev->time_ns, ev->offset, ev->length, ev->bytes, ev->freed_ns,
					       ev->nr_segs, ev->count };
	c->n++;
	c->bytes += ev->bytes;
	if (ev->length > c->max_len)
		c->max_len = ev->length;
	return 0;
}

struct harness {
	struct policy *p;
	struct cap cap;
	struct ts_device dev;
	uint64_t last;
};

/* devsize 0: no device table entry (stages use their defaults). */
static inline struct harness *h_new(const char *spec, uint64_t devsize, uint32_t segs)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct policy_env env = { .devno = 0, .start_ns = 0 };
	char err[1024];

	cr_assert_not_null(h);
	if (devsize) {
		h->dev.size = devsize;
		h->dev.max_discard_segments = segs;
		h->dev.discard_max_bytes = 2ull << 30;
		h->dev.fs_block_size = 4096;
		env.dev = &h->dev;
	}
	h->p = policy__new(spec, &env, cap_sink, &h->cap, err, sizeof(err));
	cr_assert_not_null(h->p, "%s: %s", spec, err);
	return h;
}

static inline void h_rec(struct harness *h, uint8_t kind, uint8_t op, uint64_t t, uint64_t off,
			 uint64_t len, uint64_t ino, uint16_t flags)
{
	struct ts_record r = { .time_ns = t, .offset = off, .length = len, .ino = ino, .kind = kind,
			       .op = op, .flags = flags, .dev = 1 };

	cr_assert_eq(policy__record(h->p, &r), 0, "%s", policy__error(h->p));
	h->last = t;
}

static inline void h_free(struct harness *h, uint64_t t, uint64_t off, uint64_t len, uint64_t ino)
{
	h_rec(h, TS_FREE, TS_OP_NONE, t, off, len, ino, 0);
}

static inline void h_alloc(struct harness *h, uint64_t t, uint64_t off, uint64_t len)
{
	h_rec(h, TS_ALLOC, TS_OP_NONE, t, off, len, 0, 0);
}

static inline void h_commit(struct harness *h, uint64_t t)
{
	h_rec(h, TS_META, TS_META_COMMIT, t, 0, 0, 1, 0);
}

static inline void h_snapshot(struct harness *h, uint64_t off, uint64_t len)
{
	h_rec(h, TS_META, TS_META_FREESPACE, 0, off, len, 0, 0);
}

/* A record that only moves time (a marker). */
static inline void h_mark(struct harness *h, uint64_t t)
{
	h_rec(h, TS_META, TS_META_MARK, t, 0, 0, 0, 0);
}

static inline void h_end(struct harness *h, uint64_t t)
{
	cr_assert_eq(policy__flush(h->p, t), 0, "%s", policy__error(h->p));
}

static inline void h_free_all(struct harness *h)
{
	policy__destroy(h->p);
	free(h);
}

#define EXPECT_EV(h, i, T, OFF, LEN)                                                              \
	do {                                                                                     \
		cr_assert_lt((size_t)(i), (h)->cap.n, "event %d missing (%zu events)", (int)(i), (h)->cap.n); \
		cr_expect_eq((h)->cap.ev[i].t, (uint64_t)(T), "ev %d: time %lu != %lu", (int)(i),       \
			     (unsigned long)(h)->cap.ev[i].t, (unsigned long)(T));                   \
		cr_expect_eq((h)->cap.ev[i].off, (uint64_t)(OFF), "ev %d: off %lu != %lu", (int)(i),    \
			     (unsigned long)(h)->cap.ev[i].off, (unsigned long)(OFF));               \
		cr_expect_eq((h)->cap.ev[i].len, (uint64_t)(LEN), "ev %d: len %lu != %lu", (int)(i),    \
			     (unsigned long)(h)->cap.ev[i].len, (unsigned long)(LEN));               \
	} while (0)

#endif
