/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The FTL's L2P directory: chunk number (logical page / 16) -> chunk id
 * (1-based; 0 = no chunk), in one zeroed region of one u32 per chunk number.
 *
 * A dense array indexed by chunk number is one random access per write into
 * 16 MiB for a 256 GiB device, and touches all of it under random writes,
 * even when a workload deletes what it writes and holds a few hundred chunks
 * at a time. So the region starts as an open-addressed hash table of
 * (chunk number, id) pairs in its first bytes (linear probing, Fibonacci
 * hashing, deletion by backward shift, no tombstones), doubled in place when
 * half full; when it would outgrow half the region it becomes the dense
 * array (more than an eighth to a quarter of the chunks mapped). The region is the
 * same size either way: the memory the FTL reports does not depend on the
 * mode.
 */
#ifndef TRIMSIM_MODELS_FTL_DIR_H
#define TRIMSIM_MODELS_FTL_DIR_H

#include <stddef.h>
#include <stdint.h>

struct ftl_dir {
	uint32_t *dense;	/* the region: n entries, indexed by chunk number once dense */
	uint64_t *hash;		/* while sparse: 2^bits slots at the start of the region, chunk << 32 | id; else NULL */
	uint64_t n;		/* chunk numbers (entries of the region) */
	uint64_t count;		/* chunks in the hash */
	uint32_t bits, max_bits;
};

/* region: n zeroed u32 entries, 8-byte aligned. */
void ftl_dir__init(struct ftl_dir *d, uint32_t *region, uint64_t n);
/* Adds chunk c (not present) with id; 0, or -ENOMEM (nothing changed) when growing fails. */
int ftl_dir__add(struct ftl_dir *d, uint64_t c, uint32_t id);
/* Removes chunk c (present). */
void ftl_dir__del(struct ftl_dir *d, uint64_t c);
/* ftl_dir__range() for a range longer than the table (NULL when dense or out of memory). */
uint64_t *ftl_dir__list(const struct ftl_dir *d, uint64_t c0, uint64_t c1, size_t *n);

static inline uint64_t ftl_dir__home(uint64_t c, uint32_t bits)
{
	return (c * 0x9e3779b97f4a7c15ull) >> (64 - bits);
}

/* The id of chunk c, 0 when it has none. */
static inline uint32_t ftl_dir__find(const struct ftl_dir *d, uint64_t c)
{
	uint64_t mask, i;

	if (!d->hash)
		return d->dense[c];
	mask = (1ull << d->bits) - 1;
	for (i = ftl_dir__home(c, d->bits);; i = (i + 1) & mask) {
		uint64_t e = d->hash[i];

		if (!e || e >> 32 == c)
			return (uint32_t)e;
	}
}

/*
 * The chunk numbers in [c0, c1) that have a chunk, ascending, in a malloc'd
 * array (*n of them), when looking each up would cost more than a pass over
 * the table; NULL when the caller should look up each (dense, a short range,
 * or no memory).
 */
static inline uint64_t *ftl_dir__range(const struct ftl_dir *d, uint64_t c0, uint64_t c1, size_t *n)
{
	return d->hash && c1 - c0 > 1ull << d->bits ? ftl_dir__list(d, c0, c1, n) : NULL;
}

#endif
