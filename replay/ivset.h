/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of byte ranges kept as merged, disjoint intervals (a treap keyed by
 * start). Memory grows with the number of disjoint intervals, never with the
 * number of insertions. Used for unique discarded bytes (metrics) and for
 * free-space tracking (fstrim emulation).
 */
#ifndef TRIMSIM_IVSET_H
#define TRIMSIM_IVSET_H

#include <stdbool.h>
#include <stdint.h>

struct ivset;

struct ivset *ivset__new(void);
void ivset__free(struct ivset *s);
/* Adds [off, off+len); returns the bytes that were not covered before, or -ENOMEM. */
int64_t ivset__add(struct ivset *s, uint64_t off, uint64_t len);
/* Removes [off, off+len); returns the bytes that were covered, or -ENOMEM. */
int64_t ivset__remove(struct ivset *s, uint64_t off, uint64_t len);
/* Bytes of [off, off+len) the set covers. */
uint64_t ivset__overlap(const struct ivset *s, uint64_t off, uint64_t len);
/* The first interval that ends after `from` (clipped to start at >= from); false if none. */
bool ivset__next(const struct ivset *s, uint64_t from, uint64_t *off, uint64_t *len);
uint64_t ivset__bytes(const struct ivset *s);
uint64_t ivset__count(const struct ivset *s);
void ivset__clear(struct ivset *s);

#endif
