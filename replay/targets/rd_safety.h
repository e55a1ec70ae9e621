/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block device safety: what a device is (sysfs) and whether anyone uses it.
 * Every refusal is one line that starts with the device path; nothing is
 * opened for writing before all checks pass.
 */
#ifndef TRIMSIM_RD_SAFETY_H
#define TRIMSIM_RD_SAFETY_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct rd_bdev_info {
	char path[PATH_MAX];	/* as given */
	char name[64];		/* kernel name: loop5, loop5p1, sda */
	char disk[64];		/* whole disk: loop5, sda (== name unless a partition) */
	dev_t rdev;
	bool is_part;
	uint64_t size;		/* bytes (sysfs size * 512) */
	uint32_t lbs, pbs;	/* logical/physical block size */
	uint32_t granularity;	/* discard_granularity, 0 = no discard */
	uint64_t discard_max;	/* discard_max_bytes */
	uint32_t max_segments;	/* max_discard_segments */
	bool rotational;
	char model[160];
};

/* stat + sysfs. -ENOTBLK "PATH: not a block device", -errno otherwise. */
int rd_bdev_inspect(const char *path, struct rd_bdev_info *bi, char *err, size_t errlen);
/* Mounted (itself, a partition, or its whole disk), holders, swap: -EBUSY with the reason. */
int rd_bdev_check_unused(const struct rd_bdev_info *bi, char *err, size_t errlen);

#endif
