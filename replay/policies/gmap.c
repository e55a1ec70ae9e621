// SPDX-License-Identifier: GPL-2.0
/* Block group number -> index (gmap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/gmap.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ (h >> 31)) & (cap - 1);
}

uint32_t gmap__find(const struct gmap *m, uint64_t key)
{
	if (!m->cap)
		return GMAP_NONE;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->val[i] == GMAP_NONE)
			return GMAP_NONE;
		if (m->key[i] == key)
			return m->val[i];
	}
}

static void put(struct gmap *m, uint64_t key, uint32_t val)
{
	size_t i = slot_of(key, m->cap);

	while (m->val[i] != GMAP_NONE)
		i = (i + 1) & (m->cap - 1);
	m->key[i] = key;
	m->val[i] = val;
	m->n++;
}

/* A table of cap slots, all empty; the old entries moved in. */
static int resize(struct gmap *m, size_t cap)
{
	struct gmap old = *m;

	m->key = malloc(cap * sizeof(*m->key));
	m->val = malloc(cap * sizeof(*m->val));
	if (!m->key || !m->val) {
		free(m->key);
		free(m->val);
		*m = old;
		return -ENOMEM;
	}
	memset(m->val, 0xff, cap * sizeof(*m->val));
	m->cap = cap;
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.val[i] != GMAP_NONE)
			put(m, old.key[i], old.val[i]);
	free(old.key);
	free(old.val);
	return 0;
}

int gmap__add(struct gmap *m, uint64_t key, uint32_t val)
{
	int ret;

	if ((m->n + 1) * 2 > m->cap && (ret = resize(m, m->cap ? m->cap * 2 : 64)))
		return ret;
	put(m, key, val);
	return 0;
}

void gmap__clear(struct gmap *m)
{
	/* Emptying costs the table's size: a table much larger than its last use starts small again. */
	if (m->cap > 256 && m->n * 8 < m->cap) {
		gmap__fini(m);
		return;
	}
	if (m->cap)
		memset(m->val, 0xff, m->cap * sizeof(*m->val));
	m->n = 0;
}

void gmap__fini(struct gmap *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}
