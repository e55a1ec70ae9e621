/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of byte ranges kept as merged, disjoint intervals (a treap keyed by
 * start). Memory grows with the number of disjoint intervals, never with the
 * number of insertions. Its one user is covmap.c, for the partly covered 4 KiB
 * granules of the unique-bytes map (the policies keep their sets in ivset.h).
 */
#ifndef TRIMSIM_RANGESET_H
#define TRIMSIM_RANGESET_H

#include <stdbool.h>
#include <stdint.h>

struct rangeset;

struct rangeset *rangeset__new(void);
void rangeset__free(struct rangeset *s);
/* Adds [off, off+len); returns the bytes that were not covered before, or -ENOMEM. */
int64_t rangeset__add(struct rangeset *s, uint64_t off, uint64_t len);
/* Removes [off, off+len); returns the bytes that were covered, or -ENOMEM. */
int64_t rangeset__remove(struct rangeset *s, uint64_t off, uint64_t len);
/* Bytes of [off, off+len) the set covers. */
uint64_t rangeset__overlap(const struct rangeset *s, uint64_t off, uint64_t len);
/* The first interval that ends after `from` (clipped to start at >= from); false if none. */
bool rangeset__next(const struct rangeset *s, uint64_t from, uint64_t *off, uint64_t *len);
uint64_t rangeset__bytes(const struct rangeset *s);
uint64_t rangeset__count(const struct rangeset *s);
void rangeset__clear(struct rangeset *s);

#endif
