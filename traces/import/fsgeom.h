/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filesystem geometry an importer needs to turn fs-relative block numbers
 * into device byte offsets, read from a device's superblock.
 */
#ifndef TRIMSIM_FSGEOM_H
#define TRIMSIM_FSGEOM_H

#include <stdint.h>

#include "traces/trace.h"

struct fsgeom {
	char fs[16];			/* "xfs", "ext4", "" */
	uint32_t block_size;		/* bytes */
	uint64_t xfs_agblocks;		/* XFS: blocks per allocation group */
	uint64_t ext4_blocks_per_group;
	uint32_t ext4_first_data_block;
	uint32_t ext4_cluster_ratio;	/* blocks per cluster (bigalloc) */
	uint32_t disk_dev;		/* a partition's whole disk (sysfs); the device itself if not one */
};

/*
 * Fills d (dev, name, size, sector sizes, partition start, discard limits)
 * and g (geometry, and the disk the device is on) from the block device at path. 0 or -errno with err set.
 */
int fsgeom__probe(const char *path, struct ts_device *d, struct fsgeom *g, char *err, size_t errlen);

#endif
