// SPDX-License-Identifier: GPL-2.0
/*
 * Extent set on a treap (see ivset.h). Nodes live in one pool addressed by
 * 32-bit index (0 = none); freed nodes go on a free list through .left.
 * Priorities come from a xorshift sequence, so the shape, and with it
 * everything, is deterministic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/ivset.h"

struct ivnode {
	uint64_t start, end, val, aux;
	uint32_t left, right, prio;
};

struct ivset {
	struct ivnode *pool;	/* pool[0] unused */
	uint32_t cap;
	uint32_t used;		/* next never-used index */
	uint32_t freelist;
	uint32_t root;
	uint32_t rng;
	size_t count;
	uint64_t bytes;
	bool coalesce;
};

struct ivset *ivset__new(bool coalesce)
{
	struct ivset *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->coalesce = coalesce;
	s->used = 1;
	s->rng = 0x9e3779b9u;
	return s;
}

void ivset__destroy(struct ivset *s)
{
	if (!s)
		return;
	free(s->pool);
	free(s);
}

void ivset__clear(struct ivset *s)
{
	s->root = 0;
	s->used = 1;
	s->freelist = 0;
	s->count = 0;
	s->bytes = 0;
}

static uint32_t node_alloc(struct ivset *s)
{
	uint32_t i;

	if (s->freelist) {
		i = s->freelist;
		s->freelist = s->pool[i].left;
	} else {
		if (s->used >= s->cap) {
			uint32_t ncap = s->cap ? s->cap * 2 : 256;
			struct ivnode *p;

			if (ncap <= s->cap)
				return 0;
			p = realloc(s->pool, (size_t)ncap * sizeof(*p));
			if (!p)
				return 0;
			s->pool = p;
			s->cap = ncap;
		}
		i = s->used++;
	}
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 17;
	s->rng ^= s->rng << 5;
	s->pool[i] = (struct ivnode){ .prio = s->rng };
	return i;
}

static void node_free(struct ivset *s, uint32_t i)
{
	s->pool[i].left = s->freelist;
	s->freelist = i;
}

/* l: starts < key, r: starts >= key. */
static void split(struct ivnode *p, uint32_t t, uint64_t key, uint32_t *l, uint32_t *r)
{
	if (!t) {
		*l = *r = 0;
		return;
	}
	if (p[t].start < key) {
		split(p, p[t].right, key, &p[t].right, r);
		*l = t;
	} else {
		split(p, p[t].left, key, l, &p[t].left);
		*r = t;
	}
}

static uint32_t merge(struct ivnode *p, uint32_t l, uint32_t r)
{
	if (!l || !r)
		return l ? l : r;
	if (p[l].prio > p[r].prio) {
		p[l].right = merge(p, p[l].right, r);
		return l;
	}
	p[r].left = merge(p, l, p[r].left);
	return r;
}

/*
 * Treap insert: walk down while the nodes outrank the new one, then split
 * only the subtree it replaces. The same set as split + merge + merge (the
 * shape may differ; nothing reads the shape, only the order).
 */
static int insert_raw(struct ivset *s, uint64_t start, uint64_t end, uint64_t val, uint64_t aux)
{
	uint32_t n = node_alloc(s), *link = &s->root;
	struct ivnode *p = s->pool;

	if (!n)
		return -ENOMEM;
	p[n].start = start;
	p[n].end = end;
	p[n].val = val;
	p[n].aux = aux;
	while (*link && p[*link].prio > p[n].prio)
		link = p[*link].start < start ? &p[*link].right : &p[*link].left;
	split(p, *link, start, &p[n].left, &p[n].right);
	*link = n;
	s->count++;
	s->bytes += end - start;
	return 0;
}

int ivset__erase(struct ivset *s, uint64_t start)
{
	uint32_t l, m, r;

	split(s->pool, s->root, start, &l, &r);
	split(s->pool, r, start + 1, &m, &r);
	if (m) {
		s->count--;
		s->bytes -= s->pool[m].end - s->pool[m].start;
		node_free(s, m);
	}
	s->root = merge(s->pool, l, r);
	return m ? 1 : 0;
}

/*
 * The interval nearest pos from one side: the largest start <= pos, or (ge) the
 * smallest start >= pos. A node on the wanted side is a candidate, and a nearer
 * one lies towards pos; a node on the other side sends the walk towards pos.
 */
static int find_near(const struct ivset *s, uint64_t pos, bool ge, struct iv *out)
{
	uint32_t t = s->root, best = 0;

	while (t) {
		bool side = ge ? s->pool[t].start >= pos : s->pool[t].start <= pos;

		if (side)
			best = t;
		t = side == ge ? s->pool[t].left : s->pool[t].right;
	}
	if (!best)
		return 0;
	*out = (struct iv){ s->pool[best].start, s->pool[best].end, s->pool[best].val, s->pool[best].aux };
	return 1;
}

int ivset__find_le(const struct ivset *s, uint64_t pos, struct iv *out)
{
	return find_near(s, pos, false, out);
}

static int find_ge(const struct ivset *s, uint64_t pos, struct iv *out)
{
	return find_near(s, pos, true, out);
}

int ivset__get(const struct ivset *s, uint64_t start, struct iv *out)
{
	return find_ge(s, start, out) && out->start == start;
}

/* One descent: the extent with the largest start <= pos, and the first starting after pos. */
int ivset__next(const struct ivset *s, uint64_t pos, struct iv *out)
{
	uint32_t t = s->root, le = 0, gt = 0, best;

	while (t) {
		if (s->pool[t].start <= pos) {
			le = t;
			t = s->pool[t].right;
		} else {
			gt = t;
			t = s->pool[t].left;
		}
	}
	best = le && s->pool[le].end > pos ? le : gt;
	if (!best)
		return 0;
	*out = (struct iv){ s->pool[best].start, s->pool[best].end, s->pool[best].val, s->pool[best].aux };
	return 1;
}

static int walk(const struct ivnode *p, uint32_t t, ivset_walk_fn fn, void *arg)
{
	int err;

	while (t) {
		if ((err = walk(p, p[t].left, fn, arg)))
			return err;
		if ((err = fn(arg, &(struct iv){ p[t].start, p[t].end, p[t].val, p[t].aux })))
			return err;
		t = p[t].right;
	}
	return 0;
}

int ivset__walk(const struct ivset *s, ivset_walk_fn fn, void *arg)
{
	return walk(s->pool, s->root, fn, arg);
}

int ivset__remove(struct ivset *s, uint64_t start, uint64_t len)
{
	uint64_t end = start + len;
	struct iv v;
	int err;

	if (!len)
		return 0;
	while (ivset__next(s, start, &v) && v.start < end) {
		ivset__erase(s, v.start);
		if (v.start < start && (err = insert_raw(s, v.start, start, v.val, v.aux)))
			return err;
		if (v.end > end && (err = insert_raw(s, end, v.end, v.val, v.aux)))
			return err;
	}
	return 0;
}

int ivset__add(struct ivset *s, uint64_t start, uint64_t len, uint64_t val, uint64_t aux)
{
	uint64_t end = start + len;
	struct iv v;

	if (!len)
		return 0;
	if (!s->coalesce) {
		int err = ivset__remove(s, start, len);

		return err ? err : insert_raw(s, start, end, val, aux);
	}
	/* Join the extent touching start from the left, then everything up to end. */
	if (ivset__find_le(s, start, &v) && v.end >= start) {
		start = v.start;
		end = v.end > end ? v.end : end;
		val = v.val < val ? v.val : val;
		aux = v.aux > aux ? v.aux : aux;
		ivset__erase(s, v.start);
	}
	while (find_ge(s, start, &v) && v.start <= end) {
		end = v.end > end ? v.end : end;
		val = v.val < val ? v.val : val;
		aux = v.aux > aux ? v.aux : aux;
		ivset__erase(s, v.start);
	}
	return insert_raw(s, start, end, val, aux);
}

size_t ivset__count(const struct ivset *s)
{
	return s->count;
}

uint64_t ivset__bytes(const struct ivset *s)
{
	return s->bytes;
}

uint64_t ivset__covered(const struct ivset *s, uint64_t start, uint64_t len)
{
	uint64_t end = start + len, pos = start, n = 0;
	struct iv v;

	while (pos < end && ivset__next(s, pos, &v) && v.start < end) {
		uint64_t a = v.start > pos ? v.start : pos;
		uint64_t b = v.end < end ? v.end : end;

		n += b - a;
		pos = v.end;
	}
	return n;
}
