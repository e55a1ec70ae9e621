// SPDX-License-Identifier: GPL-2.0
/* Interval set as a treap of disjoint [start, end) ranges (rangeset.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine/rangeset.h"

#define CHUNK 4096

struct node {
	uint64_t start, end;
	uint32_t prio;
	struct node *l, *r;
};

struct rangeset {
	struct node *root;
	struct node *free;		/* free list through ->r */
	struct node **chunks;
	size_t nchunks, chunks_cap;
	uint64_t bytes, count;
	uint32_t rng;
};

struct rangeset *rangeset__new(void)
{
	struct rangeset *s = calloc(1, sizeof(*s));

	if (s)
		s->rng = 2463534242u;
	return s;
}

void rangeset__free(struct rangeset *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nchunks; i++)
		free(s->chunks[i]);
	free(s->chunks);
	free(s);
}

void rangeset__clear(struct rangeset *s)
{
	s->root = NULL;
	s->free = NULL;
	for (size_t i = 0; i < s->nchunks; i++)
		for (size_t k = 0; k < CHUNK; k++) {
			s->chunks[i][k].r = s->free;
			s->free = &s->chunks[i][k];
		}
	s->bytes = s->count = 0;
}

static struct node *node_new(struct rangeset *s, uint64_t start, uint64_t end)
{
	struct node *n;

	if (!s->free) {
		struct node *c;

		if (s->nchunks == s->chunks_cap) {
			size_t cap = s->chunks_cap ? s->chunks_cap * 2 : 8;
			struct node **p = realloc(s->chunks, cap * sizeof(*p));

			if (!p)
				return NULL;
			s->chunks = p;
			s->chunks_cap = cap;
		}
		if (!(c = malloc(CHUNK * sizeof(*c))))
			return NULL;
		s->chunks[s->nchunks++] = c;
		for (size_t k = 0; k < CHUNK; k++) {
			c[k].r = s->free;
			s->free = &c[k];
		}
	}
	n = s->free;
	s->free = n->r;
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 17;
	s->rng ^= s->rng << 5;
	*n = (struct node){ start, end, s->rng, NULL, NULL };
	s->count++;
	s->bytes += end - start;
	return n;
}

static void node_del(struct rangeset *s, struct node *n)
{
	s->count--;
	s->bytes -= n->end - n->start;
	n->r = s->free;
	s->free = n;
}

/* Splits t into keys < k (*l) and >= k (*r). */
static void split(struct node *t, uint64_t k, struct node **l, struct node **r)
{
	if (!t) {
		*l = *r = NULL;
	} else if (t->start < k) {
		split(t->r, k, &t->r, r);
		*l = t;
	} else {
		split(t->l, k, l, &t->l);
		*r = t;
	}
}

/* Every key of a < every key of b. */
static struct node *merge(struct node *a, struct node *b)
{
	if (!a || !b)
		return a ? a : b;
	if (a->prio > b->prio) {
		a->r = merge(a->r, b);
		return a;
	}
	b->l = merge(a, b->l);
	return b;
}

/* Detaches the rightmost node of *t. */
static struct node *pop_max(struct node **t)
{
	struct node **p = t, *m;

	if (!*t)
		return NULL;
	while ((*p)->r)
		p = &(*p)->r;
	m = *p;
	*p = m->l;
	m->l = NULL;
	return m;
}

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Frees a subtree, adding its overlap with [a, b) to *ov and widening [*lo, *hi). */
static void absorb(struct rangeset *s, struct node *t, uint64_t a, uint64_t b, uint64_t *ov,
		   uint64_t *lo, uint64_t *hi)
{
	if (!t)
		return;
	absorb(s, t->l, a, b, ov, lo, hi);
	absorb(s, t->r, a, b, ov, lo, hi);
	if (min64(t->end, b) > max64(t->start, a))
		*ov += min64(t->end, b) - max64(t->start, a);
	*lo = min64(*lo, t->start);
	*hi = max64(*hi, t->end);
	node_del(s, t);
}

/* True when no interval overlaps or touches [a, b]: the last one starting at or before b ends before a. */
static bool apart(const struct node *t, uint64_t a, uint64_t b)
{
	const struct node *best = NULL;

	while (t) {
		if (t->start <= b) {
			best = t;
			t = t->r;
		} else {
			t = t->l;
		}
	}
	return !best || best->end < a;
}

/* Treap insertion of a node that touches nothing: one descent, then one split below its place. */
static void insert(struct rangeset *s, struct node *n)
{
	struct node **p = &s->root;

	while (*p && (*p)->prio > n->prio)
		p = n->start < (*p)->start ? &(*p)->l : &(*p)->r;
	split(*p, n->start, &n->l, &n->r);
	*p = n;
}

int64_t rangeset__add(struct rangeset *s, uint64_t off, uint64_t len)
{
	uint64_t a = off, b = off + len, lo = a, hi = b, ov = 0;
	struct node *l, *m, *r, *last, *n;

	if (!len)
		return 0;
	if (apart(s->root, a, b)) {		/* the common case: a range on its own */
		if (!(n = node_new(s, a, b)))
			return -ENOMEM;
		insert(s, n);
		return (int64_t)len;
	}
	split(s->root, a, &l, &r);
	last = pop_max(&l);
	if (last && last->end >= a) {		/* touches or overlaps from the left */
		absorb(s, last, a, b, &ov, &lo, &hi);
	} else if (last) {
		l = merge(l, last);
	}
	split(r, b + 1, &m, &r);		/* starts in [a, b]: adjacent at b merges too */
	absorb(s, m, a, b, &ov, &lo, &hi);
	if (!(n = node_new(s, lo, hi))) {
		s->root = merge(l, r);		/* the absorbed ranges are lost: report it */
		return -ENOMEM;
	}
	s->root = merge(merge(l, n), r);
	return (int64_t)(len - ov);
}

int64_t rangeset__remove(struct rangeset *s, uint64_t off, uint64_t len)
{
	uint64_t a = off, b = off + len, ov = 0, lo = UINT64_MAX, hi = 0;
	struct node *l, *m, *r, *last, *keep_l = NULL, *keep_r = NULL;

	if (!len)
		return 0;
	split(s->root, a, &l, &r);
	last = pop_max(&l);
	if (last && last->end > a) {
		absorb(s, last, a, b, &ov, &lo, &hi);
	} else if (last) {
		l = merge(l, last);
	}
	split(r, b, &m, &r);			/* starts in [a, b) */
	absorb(s, m, a, b, &ov, &lo, &hi);
	if (lo < a && !(keep_l = node_new(s, lo, a)))
		goto nomem;
	if (hi > b && !(keep_r = node_new(s, b, hi)))
		goto nomem;
	s->root = merge(merge(l, keep_l), merge(keep_r, r));
	return (int64_t)ov;
nomem:
	s->root = merge(merge(l, keep_l), r);
	return -ENOMEM;
}

static uint64_t overlap(const struct node *t, uint64_t a, uint64_t b)
{
	uint64_t ov = 0;

	while (t) {
		if (t->end <= a) {
			t = t->r;
		} else if (t->start >= b) {
			t = t->l;
		} else {
			ov += min64(t->end, b) - max64(t->start, a);
			return ov + overlap(t->l, a, b) + overlap(t->r, a, b);
		}
	}
	return ov;
}

uint64_t rangeset__overlap(const struct rangeset *s, uint64_t off, uint64_t len)
{
	return len ? overlap(s->root, off, off + len) : 0;
}

bool rangeset__next(const struct rangeset *s, uint64_t from, uint64_t *off, uint64_t *len)
{
	const struct node *t = s->root, *best = NULL;

	while (t) {
		if (t->end > from) {
			best = t;
			t = t->l;
		} else {
			t = t->r;
		}
	}
	if (!best)
		return false;
	*off = max64(best->start, from);
	*len = best->end - *off;
	return true;
}

uint64_t rangeset__bytes(const struct rangeset *s) { return s->bytes; }
uint64_t rangeset__count(const struct rangeset *s) { return s->count; }
