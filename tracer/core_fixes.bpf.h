/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, in one place, chosen with CO-RE
 * (bpf_core_field_exists and ___old/___new struct flavours), never by version number.
 * Each entry names the kernel change it works around.
 */
#ifndef TRIMSIM_CORE_FIXES_BPF_H
#define TRIMSIM_CORE_FIXES_BPF_H

#include <bpf/bpf_core_read.h>

/*
 * xfs:xfs_discard_extent. Before Linux 6.13 the event class xfs_discard_class
 * took (mp, agno, agbno, len); the xfs_group conversion of 6.13 turned it into
 * (struct xfs_group *xg, agbno, len) and added a `type` field
 * (XG_TYPE_AG = 0, XG_TYPE_RTG = 1): fs/xfs/xfs_trace.h, DECLARE_EVENT_CLASS(xfs_discard_class). Realtime group
 * discards go to the rt device, which we do not trace: skip them. Older kernels
 * have no `type` and only AG discards.
 */
struct trace_event_raw_xfs_discard_class___new {
	__u8 type;
} __attribute__((preserve_access_index));

static __always_inline bool xfs_discard_is_rt(void *ctx)
{
	struct trace_event_raw_xfs_discard_class___new *n = ctx;

	if (!bpf_core_field_exists(n->type))
		return false;
	return BPF_CORE_READ(n, type) != 0;
}

/*
 * struct request lost rq_disk in Linux 5.17 ("block: remove the ->rq_disk
 * field in struct request"); the disk is rq->q->disk since.
 */
struct request___old {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *rq_disk(struct request *rq)
{
	struct request___old *o = (void *)rq;

	if (bpf_core_field_exists(o->rq_disk))
		return BPF_CORE_READ(o, rq_disk);
	return BPF_CORE_READ(rq, q, disk);
}

/*
 * struct bio: bi_bdev replaced bi_disk + bi_partno in Linux 5.12
 * ("block: store a block_device pointer in struct bio").
 */
struct bio___old {
	struct gendisk *bi_disk;
	__u8 bi_partno;
} __attribute__((preserve_access_index));

static __always_inline __u32 kdev(__u32 major, __u32 minor)
{
	return (major << 20) | (minor & 0xfffff);
}

static __always_inline __u32 bio_dev(struct bio *bio)
{
	struct bio___old *o = (void *)bio;

	if (bpf_core_field_exists(o->bi_disk)) {
		struct gendisk *d = BPF_CORE_READ(o, bi_disk);

		return kdev(BPF_CORE_READ(d, major),
			    BPF_CORE_READ(d, first_minor) + BPF_CORE_READ(o, bi_partno));
	}
	return BPF_CORE_READ(bio, bi_bdev, bd_dev);
}

/*
 * BTF-enabled block tracepoints lost their request_queue argument in Linux 5.11
 * (the "block: remove the request_queue argument to the block_* tracepoint"
 * series, include/trace/events/block.h). The user side reads the prototype of btf_trace_block_rq_issue
 * from the running kernel's BTF and sets blk_tp_has_q (record.c, probe_kernel).
 * Declared in trimsim.bpf.c.
 */

/*
 * __blkdev_issue_discard lost its `flags` argument in Linux 5.19 ("block: decouple
 * REQ_OP_SECURE_ERASE from REQ_OP_DISCARD"); the first three arguments (bdev, sector,
 * nr_sects) did not move, which is all we read.
 */

#endif
