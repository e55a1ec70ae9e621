/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACES_EXT4FREE_H
#define TRACES_EXT4FREE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * ext4_free_blocks()'s flags that keep a partial first or last cluster
 * (EXT4_FREE_BLOCKS_NOFREE_FIRST_CLUSTER, _LAST_CLUSTER in fs/ext4/ext4.h): the
 * values they have had since Linux 3.2, and the names the tracepoint's print
 * format gives them (show_free_flags() in include/trace/events/ext4.h). The
 * recorder and the trace-cmd importer read the running (or traced) kernel's
 * values from that format.
 */
#define TS_EXT4_NOFREE_FIRST 0x10u
#define TS_EXT4_NOFREE_LAST 0x20u
#define TS_EXT4_NOFREE_FIRST_NAME "1ST_CLUSTER"
#define TS_EXT4_NOFREE_LAST_NAME "LAST_CLUSTER"

/*
 * What ext4_free_blocks() (fs/ext4/mballoc.c) frees of [*off, *off + *len) on a
 * bigalloc filesystem of cluster bytes (a power of two; offsets on the
 * filesystem): its tracepoint fires before it rounds the range to whole
 * clusters, in at an end whose flag (nofree_first, nofree_last; 0: the kernel
 * has none) is in flags, out otherwise (a partial cluster another extent still
 * uses is not freed: ext4_remove_blocks() frees it alone once it is not).
 * false: nothing is freed.
 */
bool ts_ext4_free_clusters(uint64_t cluster, uint32_t nofree_first, uint32_t nofree_last, uint32_t flags,
			   uint64_t *off, uint64_t *len);

#endif
