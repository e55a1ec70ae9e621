/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The union of byte ranges: how many distinct bytes a set of discards
 * covered (unique bytes, redundancy = total / unique, overlap = total - unique).
 *
 * The union is a coalescing ivset (replay/policies/ivset.h): memory is bounded
 * by the number of disjoint extents, not by the number of commands.
 */
#ifndef TRIMSIM_REPORT_RANGES_H
#define TRIMSIM_REPORT_RANGES_H

#include <stddef.h>
#include <stdint.h>

struct ranges;

/* NULL with errno set. */
struct ranges *ranges__new(void);
/* 0 or -ENOMEM. Zero-length ranges are ignored. */
int ranges__add(struct ranges *r, uint64_t offset, uint64_t length);
/* Bytes in the union of everything added. Compacts (does not allocate). */
uint64_t ranges__unique(struct ranges *r);
/* Bytes added in total, overlaps counted each time. */
uint64_t ranges__total(const struct ranges *r);
/* Disjoint extents in the union. */
size_t ranges__extents(struct ranges *r);
void ranges__destroy(struct ranges *r);

#endif
