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
#include "replay/policies/policy.h"

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
	bool ro;		/* sysfs ro: the device's or its disk's read-only flag (bdev_read_only()) */
	char model[160];
};

/* What a run is about to do to a real target. */
struct rd_want {
	uint64_t extent;	/* highest byte offset+length it touches (0: nothing to compare) */
	bool destructive;	/* --destructive was given */
	const char *action;	/* block device refusal without --destructive ("PATH: ACTION; add
				   --destructive to allow it"); NULL: "replaying to a block device destroys its data" */
};

/*
 * The one safety routine for a block device (replay, compare, calibrate):
 * inspect, in use (mounted, held, swap, a loop device's backing; itself, its
 * partitions, its whole disk), the trace's extent against its size, read-only,
 * then --destructive. 0, or -errno with a one-line refusal that starts with PATH.
 */
int rd_check_device(const char *path, const struct rd_want *w, struct rd_bdev_info *bi, char *err, size_t errlen);
/*
 * The same for --file: a new file passes; an existing one must be a regular
 * file, not a loop device's backing file, not an active swap file, and needs
 * --destructive if it holds data (lseek(SEEK_DATA) finds any: a file of size
 * 0 or all holes does not).
 */
int rd_check_file(const char *path, const struct rd_want *w, char *err, size_t errlen);
/*
 * Highest offset+length of the records of devno (0: every device) in trace, its free-space
 * snapshots (META freespace) included, where fstrim and ext4's extension discard: one pass.
 * input (may be NULL): the records a policy could read, counted (policy_input_count()).
 */
int rd_trace_extent(const char *trace, uint32_t devno, uint64_t *ext, struct policy_input_counts *input,
		    char *err, size_t errlen);

/* stat + sysfs. -ENOTBLK "PATH: not a block device", -errno otherwise. */
int rd_bdev_inspect(const char *path, struct rd_bdev_info *bi, char *err, size_t errlen);
/* Mounted, holders, swap, a loop device's backing (itself, a partition, its whole disk): -EBUSY with the reason. */
int rd_bdev_check_unused(const struct rd_bdev_info *bi, char *err, size_t errlen);

#endif
