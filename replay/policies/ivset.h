/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ordered set of disjoint byte extents [start, end) with a 64-bit value
 * each: the tree's one interval set. The kernel-emulating stages keep free
 * space, untrimmed space, busy extents and pending frees in it; the coverage
 * map (replay/engine/covmap.c) its pieces of granules; the report (report/ranges.c)
 * the union of discarded ranges. A treap on a node pool that grows by doubling:
 * no allocation per event once the pool has reached its working size.
 *
 * Two flavours:
 *  - coalescing: add() unions the new extent with every extent it overlaps
 *    or touches; val becomes the smallest of the values joined (use it
 *    for "earliest free time"), aux the largest;
 *  - exact: add() first removes whatever the new extent overlaps, then
 *    stores it as given (adjacent extents stay separate: busy extents).
 */
#ifndef TRIMSIM_IVSET_H
#define TRIMSIM_IVSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iv {
	uint64_t start;
	uint64_t end;	/* exclusive */
	uint64_t val;	/* coalescing: the smallest joined */
	uint64_t aux;	/* coalescing: the largest joined */
};

struct ivset;

/* NULL with errno set on failure. */
struct ivset *ivset__new(bool coalesce);
void ivset__destroy(struct ivset *s);	/* accepts NULL */
void ivset__clear(struct ivset *s);

/* 0 or -ENOMEM. Zero-length extents are ignored. */
int ivset__add(struct ivset *s, uint64_t start, uint64_t len, uint64_t val, uint64_t aux);
/* Removes [start, start+len) from every extent it overlaps. 0 or -ENOMEM. */
int ivset__remove(struct ivset *s, uint64_t start, uint64_t len);

/* The first extent with end > pos (the one holding pos, else the next). 1 found, 0 none. */
int ivset__next(const struct ivset *s, uint64_t pos, struct iv *out);
/* Calls fn on every extent in order (fn must not change the set); stops at and returns fn's first non-zero. */
typedef int (*ivset_walk_fn)(void *arg, const struct iv *v);
int ivset__walk(const struct ivset *s, ivset_walk_fn fn, void *arg);
/* The extent with the largest start <= pos. 1 found, 0 none. */
int ivset__find_le(const struct ivset *s, uint64_t pos, struct iv *out);
/* The extent starting exactly at start. 1 found, 0 none. */
int ivset__get(const struct ivset *s, uint64_t start, struct iv *out);
/* Removes the extent starting exactly at start; 1 removed, 0 none. */
int ivset__erase(struct ivset *s, uint64_t start);

size_t ivset__count(const struct ivset *s);
uint64_t ivset__bytes(const struct ivset *s);
/* Bytes of [start, start+len) covered by the set. */
uint64_t ivset__covered(const struct ivset *s, uint64_t start, uint64_t len);

#endif
