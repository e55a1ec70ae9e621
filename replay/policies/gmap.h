/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block group number -> index, for the stages that keep per-group state
 * (ext4.c, btrfs.c). Only the groups records touch are held, so an offset far
 * out on a large (or unknown-size) device costs one entry, not an array up to
 * its group number. Open addressing with linear probing; O(1) per lookup.
 */
#ifndef TRIMSIM_GMAP_H
#define TRIMSIM_GMAP_H

#include <stddef.h>
#include <stdint.h>

#define GMAP_NONE UINT32_MAX

struct gmap {
	uint64_t *key;
	uint32_t *val;		/* GMAP_NONE: empty slot */
	size_t cap, n;		/* cap: 0 or a power of two */
};

/* The index stored for key, GMAP_NONE if none. */
uint32_t gmap__find(const struct gmap *m, uint64_t key);
/* Stores key -> val (key not yet present); 0 or -ENOMEM. */
int gmap__add(struct gmap *m, uint64_t key, uint32_t val);
/* Empties the map; memory is kept unless it is far larger than what was held. */
void gmap__clear(struct gmap *m);
void gmap__fini(struct gmap *m);

#endif
