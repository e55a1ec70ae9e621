// SPDX-License-Identifier: GPL-2.0
/*
 * Issue/completion pairing for importers that see only the two events
 * (blktrace D/C, block:block_rq_issue/complete). Open addressing with
 * backward-shift deletion; grows only with the number of requests in flight.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "traces/import/importer.h"

struct slot {
	uint64_t offset, t_ns, len;
	uint32_t dev;
	uint8_t op;
	uint8_t used;
};

struct inflight {
	struct slot *s;
	size_t cap, n;	/* cap is a power of two */
};

static size_t hash(uint32_t dev, uint64_t offset, unsigned op, size_t cap)
{
	uint64_t h = offset * 0x9e3779b97f4a7c15ull ^ ((uint64_t)dev << 8 | op) * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

struct inflight *inflight__new(void)
{
	struct inflight *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cap = 1024;
	t->s = calloc(t->cap, sizeof(*t->s));
	if (!t->s) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void inflight__free(struct inflight *t)
{
	if (!t)
		return;
	free(t->s);
	free(t);
}

static void put(struct slot *s, size_t cap, const struct slot *v)
{
	size_t i = hash(v->dev, v->offset, v->op, cap);

	while (s[i].used)
		i = (i + 1) & (cap - 1);
	s[i] = *v;
}

static int grow(struct inflight *t)
{
	size_t cap = t->cap * 2;
	struct slot *ns = calloc(cap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->s[i].used)
			put(ns, cap, &t->s[i]);
	free(t->s);
	t->s = ns;
	t->cap = cap;
	return 0;
}

int inflight__issue(struct inflight *t, uint32_t dev, uint64_t offset, unsigned op, uint64_t t_ns, uint64_t len)
{
	struct slot v = { .offset = offset, .t_ns = t_ns, .len = len, .dev = dev, .op = (uint8_t)op, .used = 1 };

	if ((t->n + 1) * 2 > t->cap && grow(t))
		return -ENOMEM;
	put(t->s, t->cap, &v);
	t->n++;
	return 0;
}

int inflight__complete(struct inflight *t, uint32_t dev, uint64_t offset, unsigned op, uint64_t *t_ns, uint64_t *len)
{
	size_t mask = t->cap - 1, i = hash(dev, offset, op, t->cap), j;

	while (t->s[i].used && !(t->s[i].dev == dev && t->s[i].offset == offset && t->s[i].op == op))
		i = (i + 1) & mask;
	if (!t->s[i].used)
		return 0;
	*t_ns = t->s[i].t_ns;
	*len = t->s[i].len;
	/* Backward-shift deletion keeps every probe chain unbroken. */
	for (j = (i + 1) & mask; t->s[j].used; j = (j + 1) & mask) {
		size_t home = hash(t->s[j].dev, t->s[j].offset, t->s[j].op, t->cap);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			t->s[i] = t->s[j];
			i = j;
		}
	}
	memset(&t->s[i], 0, sizeof(t->s[i]));
	t->n--;
	return 1;
}

size_t inflight__pending(const struct inflight *t)
{
	return t->n;
}
