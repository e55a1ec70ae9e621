// SPDX-License-Identifier: GPL-2.0
/* The FTL's L2P directory: a hash table in the dense directory's region until it is dense (ftl_dir.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "models/ftl_dir.h"

#define FIRST_BITS 10	/* 1024 slots, 8 KiB: a replay that trims what it writes stays there */
#define MIN_BITS 6	/* a region smaller than 64 slots is dense from the start */

void ftl_dir__init(struct ftl_dir *d, uint32_t *region, uint64_t n)
{
	uint32_t max_bits = 0;

	while (max_bits < 63 && (2ull << max_bits) * sizeof(uint64_t) <= n * sizeof(uint32_t))
		max_bits++;
	*d = (struct ftl_dir){ .dense = region, .n = n, .max_bits = max_bits };
	if (max_bits >= MIN_BITS) {
		d->hash = (uint64_t *)region;
		d->bits = max_bits < FIRST_BITS ? max_bits : FIRST_BITS;
	}
}

static void put(struct ftl_dir *d, uint64_t e)
{
	uint64_t mask = (1ull << d->bits) - 1, i = ftl_dir__home(e >> 32, d->bits);

	while (d->hash[i])
		i = (i + 1) & mask;
	d->hash[i] = e;
}

/* Doubles the table in place, or makes the region the dense array when the table would pass half of it. */
static int grow(struct ftl_dir *d)
{
	size_t slots = (size_t)1 << d->bits;
	uint64_t *old = malloc(slots * sizeof(*old));

	if (!old)
		return -ENOMEM;
	memcpy(old, d->hash, slots * sizeof(*old));
	memset(d->hash, 0, slots * sizeof(*old));	/* the rest of the region was never written */
	if (d->bits < d->max_bits) {
		d->bits++;
		for (size_t i = 0; i < slots; i++)
			if (old[i])
				put(d, old[i]);
	} else {
		d->hash = NULL;
		for (size_t i = 0; i < slots; i++)
			if (old[i])
				d->dense[old[i] >> 32] = (uint32_t)old[i];
	}
	free(old);
	return 0;
}

int ftl_dir__add(struct ftl_dir *d, uint64_t c, uint32_t id)
{
	int ret;

	if (d->hash && (d->count + 1) * 2 > 1ull << d->bits && (ret = grow(d)))
		return ret;
	if (!d->hash) {
		d->dense[c] = id;
		return 0;
	}
	put(d, c << 32 | id);
	d->count++;
	return 0;
}

/*
 * Backward-shift deletion: every entry after the hole in its run whose home
 * is not between the hole and itself moves into the hole, so a lookup never
 * stops early at an empty slot.
 */
void ftl_dir__del(struct ftl_dir *d, uint64_t c)
{
	uint64_t mask, i, j;

	if (!d->hash) {
		d->dense[c] = 0;
		return;
	}
	mask = (1ull << d->bits) - 1;
	for (i = ftl_dir__home(c, d->bits); d->hash[i] >> 32 != c; i = (i + 1) & mask)
		;
	for (j = (i + 1) & mask; d->hash[j]; j = (j + 1) & mask) {
		uint64_t h = ftl_dir__home(d->hash[j] >> 32, d->bits);

		if (((j - h) & mask) >= ((j - i) & mask)) {
			d->hash[i] = d->hash[j];
			i = j;
		}
	}
	d->hash[i] = 0;
	d->count--;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t *ftl_dir__list(const struct ftl_dir *d, uint64_t c0, uint64_t c1, size_t *n)
{
	size_t slots, k = 0;
	uint64_t *keys;

	if (!d->hash || !(keys = malloc((d->count + 1) * sizeof(*keys))))
		return NULL;
	slots = (size_t)1 << d->bits;
	for (size_t i = 0; i < slots; i++) {
		uint64_t c = d->hash[i] >> 32;

		if (d->hash[i] && c >= c0 && c < c1)
			keys[k++] = c;
	}
	qsort(keys, k, sizeof(*keys), cmp_u64);
	*n = k;
	return keys;
}
