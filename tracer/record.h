/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events shared by the kernel side (trimsim.bpf.c), the tracefs backend
 * (tracefs.c) and the user side (record.c). Raw, as the kernel reports them:
 * fs-relative units are translated to whole-device bytes in user space
 * (record.c), where the superblock geometry is known.
 *
 * Only __u64/__u32, ordered so there is no padding (56 bytes).
 */
#ifndef TRIMSIM_TRACER_RECORD_H
#define TRIMSIM_TRACER_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Where an event came from; decides the units of a/b/c (record.c). */
enum tr_src {
	TR_EXT4_FREE = 1,	/* a = fs block, b = count (blocks), ino; opfl = ext4_free_blocks() flags */
	TR_EXT4_ALLOC = 2,	/* agno = group, a = cluster in group, b = clusters, ino */
	TR_EXT4_DISCARD = 3,	/* a = fs block, b = count (blocks); also follows every TR_EXT4_TRIM */
	TR_EXT4_TRIM = 4,	/* agno = group, a = cluster in group, b = clusters (discard work or FITRIM) */
	TR_EXT4_PA_FREE = 5,	/* agno = group, a = cluster in group, b = clusters: unused preallocation released */
	TR_XFS_FREE = 6,	/* agno, a = agbno, b = fs blocks */
	TR_XFS_ALLOC = 7,	/* agno, a = agbno, b = fs blocks */
	TR_XFS_DISCARD = 8,	/* agno, a = agbno, b = fs blocks */
	TR_BIO = 9,		/* a = whole-disk sector, b = bytes, ino = pid */
	TR_RQ_ISSUE = 10,	/* a = whole-disk sector, b = bytes, ino = pid; dev = whole disk */
	TR_RQ_DONE = 11,	/* as ISSUE, latency_ns set (0 if the issue was not seen) */
	TR_JBD2_COMMIT = 12,	/* ino = transaction id */
	TR_XFS_LOG_DONE = 13,	/* ino = lsn: iclog written, callbacks (CIL committed, discards) start */
	TR_SRC_MAX = 13,
};

/* Op and flag bits of TR_BIO/TR_RQ_*: classified from request flags in the kernel. */
#define TR_OP_MASK	0x0fu	/* enum ts_op */
#define TR_FL_SYNC	0x10u
#define TR_FL_FUA	0x20u
#define TR_FL_PREFLUSH	0x40u
#define TR_FL_META	0x80u
#define TR_FL_ERROR	0x100u
#define TR_FL_FITRIM	0x200u	/* INTENT raised inside an FITRIM ioctl (fstrim) */
#define TR_FL_WORKLOAD	0x400u	/* BIO submitted by a thread of the recorded command */

struct tr_event {
	__u64 time_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 a;
	__u64 b;
	__u64 ino;		/* inode, pid or commit id, per src */
	__u64 latency_ns;
	__u32 src;		/* enum tr_src */
	__u32 dev;		/* kernel dev_t (major << 20 | minor) */
	__u32 agno;		/* XFS AG / ext4 group */
	__u32 opfl;		/* TR_OP_* | TR_FL_* */
};

/*
 * Device filter, keyed by kernel dev_t. A filesystem's own device maps to
 * itself; for block requests the whole disk is the key and [start, end)
 * the traced sector range of the partition (whole disk: 0, ~0).
 */
struct tr_filter {
	__u64 start;
	__u64 end;
	__u32 out_dev;		/* dev written into events from this key */
	__u32 whole;		/* 1: key is a whole disk (request events) */
};

#endif
