/* SPDX-License-Identifier: GPL-2.0 */
/*
 * f2fs's pending discard commands (fs/f2fs/segment.c: dcc->pend_list[],
 * plist_idx(), MAX_PLIST_NUM = 512 buckets by length in blocks), for the
 * f2fs-discard stage.
 *
 * Pending space is a coalescing extent set; each extent is cut from its start
 * into commands of at most max_cmd bytes (discard_max_bytes, as
 * __update_discard_tree_range() does). Every command of at least one block
 * whose bucket is >= granularity - 1 is eligible. plist__select() returns
 * the eligible commands in issue order, larger bucket first, then lower
 * offset (our stand-in for each bucket's FIFO), in O(k log n): each bucket
 * keeps its commands in an offset-ordered set, stored as runs (the full
 * max_cmd commands of one extent are one run, its shorter tail another), and
 * a bitmap says which buckets hold any.
 */
#ifndef TRIMSIM_PLIST_H
#define TRIMSIM_PLIST_H

#include <stddef.h>
#include <stdint.h>

#include "replay/policies/ivset.h"

#define PLIST_NUM	512u	/* MAX_PLIST_NUM */

struct plist;

/* block: fs block size; max_cmd: largest command (>= block); granularity: in blocks, 1..PLIST_NUM.
 * NULL with errno set on failure. */
struct plist *plist__new(uint64_t block, uint64_t max_cmd, uint32_t granularity);
void plist__destroy(struct plist *p);	/* accepts NULL */

/* Coalescing add (val = the smallest joined, as in ivset). 0 or -ENOMEM. */
int plist__add(struct plist *p, uint64_t start, uint64_t len, uint64_t val);
/* Removes [start, start+len) from the pending space. 0 or -ENOMEM. */
int plist__remove(struct plist *p, uint64_t start, uint64_t len);

/* Up to max eligible commands in issue order into pick[] ({start, end, val of the extent, 0}); the count. */
uint32_t plist__select(const struct plist *p, struct iv *pick, uint32_t max);

size_t plist__count(const struct plist *p);	/* pending extents */
uint64_t plist__bytes(const struct plist *p);

#endif
