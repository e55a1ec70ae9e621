// SPDX-License-Identifier: GPL-2.0
/*
 * Extent set on a treap (see ivset.h). Nodes live in one pool addressed by
 * 32-bit index (0 = none, npool.h).
 * Priorities come from a xorshift sequence, so the shape, and with it
 * everything, is deterministic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/ivset.h"
#include "replay/policies/npool.h"

struct ivnode {
	uint64_t start, end, val, aux;
	uint32_t left, right, prio;
};

struct ivset {
	struct npool np;	/* of struct ivnode */
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
	npool__init(&s->np, sizeof(struct ivnode));
	s->rng = 0x9e3779b9u;
	return s;
}

void ivset__destroy(struct ivset *s)
{
	if (!s)
		return;
	npool__fini(&s->np);
	free(s);
}

void ivset__clear(struct ivset *s)
{
	s->root = 0;
	npool__clear(&s->np);
	s->count = 0;
	s->bytes = 0;
}

static struct ivnode *nodes(const struct ivset *s)
{
	return s->np.base;
}

static uint32_t node_alloc(struct ivset *s)
{
	uint32_t i = npool__alloc(&s->np);

	if (!i)
		return 0;
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 17;
	s->rng ^= s->rng << 5;
	nodes(s)[i].prio = s->rng;
	return i;
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
	struct ivnode *p = nodes(s);

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
	struct ivnode *p = nodes(s);
	uint32_t l, m, r;

	split(p, s->root, start, &l, &r);
	split(p, r, start + 1, &m, &r);
	if (m) {
		s->count--;
		s->bytes -= p[m].end - p[m].start;
		npool__free(&s->np, m);
	}
	s->root = merge(p, l, r);
	return m ? 1 : 0;
}

/* Node n as an interval into out: 1, or 0 for none (n == 0). */
static int get_iv(const struct ivset *s, uint32_t n, struct iv *out)
{
	const struct ivnode *v;

	if (!n)
		return 0;
	v = &nodes(s)[n];
	*out = (struct iv){ v->start, v->end, v->val, v->aux };
	return 1;
}

/*
 * The interval nearest pos from one side: the largest start <= pos, or (ge) the
 * smallest start >= pos. A node on the wanted side is a candidate, and a nearer
 * one lies towards pos; a node on the other side sends the walk towards pos.
 */
static int find_near(const struct ivset *s, uint64_t pos, bool ge, struct iv *out)
{
	const struct ivnode *p = nodes(s);
	uint32_t t = s->root, best = 0;

	while (t) {
		bool side = ge ? p[t].start >= pos : p[t].start <= pos;

		if (side)
			best = t;
		t = side == ge ? p[t].left : p[t].right;
	}
	return get_iv(s, best, out);
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
	const struct ivnode *p = nodes(s);
	uint32_t t = s->root, le = 0, gt = 0;

	while (t) {
		if (p[t].start <= pos) {
			le = t;
			t = p[t].right;
		} else {
			gt = t;
			t = p[t].left;
		}
	}
	return get_iv(s, le && p[le].end > pos ? le : gt, out);
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
	return walk(nodes(s), s->root, fn, arg);
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
