/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Coverage map: which bytes of a device have been covered at least once, and
 * how many (exact). The metrics core counts unique discarded bytes with it.
 *
 * Whole 4 KiB granules live in a bitmap trie (a radix tree whose leaves are
 * 4096-bit bitmaps; a subtree that is fully covered collapses to one "full"
 * marker, an untouched one is NULL). Pieces of a granule (ranges that are not
 * 4 KiB aligned) are kept exactly in an ivset until their granule fills.
 * Memory is bounded by the address space the ranges touch (one bit per 4 KiB,
 * less where whole subtrees are covered), never by how many ranges were added:
 * a 256 GiB device costs at most ~8.5 MiB however long the trace.
 */
#ifndef TRIMSIM_COVMAP_H
#define TRIMSIM_COVMAP_H

#include <stddef.h>
#include <stdint.h>

struct covmap;

struct covmap *covmap__new(void);
void covmap__free(struct covmap *c);
/* Adds [off, off+len); the bytes not covered before, or -ENOMEM (the set is then incomplete). */
int64_t covmap__add(struct covmap *c, uint64_t off, uint64_t len);
struct covmap_range {
	uint64_t offset, length;
};

/*
 * Adds n ranges in order, loading each one's bitmap word a few ranges ahead
 * (random offsets cost a cache miss each; this overlaps them). *fresh (may be
 * NULL): the bytes not covered before. 0 or -ENOMEM.
 */
int covmap__add_many(struct covmap *c, const struct covmap_range *r, size_t n, uint64_t *fresh);
/* Bytes covered. */
uint64_t covmap__bytes(const struct covmap *c);
/* Bytes of [off, off+len) covered. */
uint64_t covmap__overlap(const struct covmap *c, uint64_t off, uint64_t len);
/* Heap bytes the map holds (tests: memory does not grow with repeated ranges). */
size_t covmap__mem(const struct covmap *c);

#endif
