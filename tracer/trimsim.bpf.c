// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim record, kernel side: what filesystems free, allocate and ask to
 * discard, what discard bios enter the block layer, and every device command
 * of interest, for the filtered devices only. Events go to one ring buffer;
 * failed reservations are counted per CPU (lost_events), never dropped silently.
 *
 * Filesystem events use classic tracepoints (their fields are already decoded
 * by the TP_fast_assign of fs/ext4 and fs/xfs trace headers); block events use
 * BTF tracepoints because ops must be classified from request flags
 * (rq->cmd_flags, bio->bi_opf), never from the rwbs string.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "tracer/record.h"
#include "tracer/core_fixes.bpf.h"

/* Settings, set between trimsim_bpf__open() and __load(). */
const volatile bool filter_on = false;	/* false: every device */
const volatile bool trace_io = false;	/* --io: reads and writes too */
const volatile bool blk_tp_has_q = false;	/* core_fixes.bpf.h: pre-5.11 block tracepoints */
const volatile __u64 wakeup_bytes = 0;	/* adaptive notification threshold; 0: wake per event */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);	/* resized by the loader (--ringbuf-size) */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);		/* kernel dev_t */
	__type(value, struct tr_filter);
} filter SEC(".maps");

/* Issue time of each traced request, to pair block_rq_complete with it. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);		/* struct request * */
	__type(value, __u64);
} inflight SEC(".maps");

/*
 * Reads a tracepoint field once into a register: without the barrier clang may
 * re-derive ctx + offset later, and the verifier rejects a modified ctx pointer.
 */
#define FIELD(x) ({ typeof(x) __v = (x); asm volatile("" : "+r"(__v)); __v; })

/* Threads inside an FITRIM ioctl (fstrim): their discards are flagged TR_FL_FITRIM. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} in_fitrim SEC(".maps");

#define FITRIM_CMD 0xc0185879u	/* _IOWR('X', 121, struct fstrim_range), include/uapi/linux/fs.h */

static __always_inline __u32 fitrim_flag(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	return bpf_map_lookup_elem(&in_fitrim, &tid) ? TR_FL_FITRIM : 0;
}

/*
 * Threads of the recorded command (trimsim record -- CMD) and of every task it starts:
 * their discard bios are flagged TR_FL_WORKLOAD (traces/FORMAT.md, "workload"). User
 * space seeds the command before it runs (bpf.c bpf_follow()); kernel_clone() fires
 * sched_process_fork for processes and threads alike (kernel/fork.c), in the parent.
 * A thread leaves at sched_process_exit (do_exit(), kernel/exit.c), so a reused id is
 * not the workload's. When the map is full a new thread goes unflagged.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);		/* thread id (task->pid) */
	__type(value, __u8);
} workload SEC(".maps");

static __always_inline __u32 workload_flag(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	return bpf_map_lookup_elem(&workload, &tid) ? TR_FL_WORKLOAD : 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptid = BPF_CORE_READ(parent, pid), ctid = BPF_CORE_READ(child, pid);
	__u8 one = 1;

	if (bpf_map_lookup_elem(&workload, &ptid))
		bpf_map_update_elem(&workload, &ctid, &one, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_process_exit)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&workload, &tid);
	return 0;
}

/* true if the event on dev at sector (~0: no sector) is traced; *out: dev to record */
static __always_inline bool want(__u32 dev, __u64 sector, __u32 *out)
{
	struct tr_filter *f;

	*out = dev;
	if (!filter_on)
		return true;
	f = bpf_map_lookup_elem(&filter, &dev);
	if (!f)
		return false;
	if (f->whole && sector != ~0ull && (sector < f->start || sector >= f->end))
		return false;
	*out = f->out_dev;
	return true;
}

/*
 * Adaptive notification (kernel/bpf/ringbuf.c, bpf_ringbuf_commit()): with flags 0
 * every record the consumer has caught up to queues an irq_work that wakes it, so a
 * storm costs a wakeup and a context switch per event. Records go in without a
 * wakeup instead; once wakeup_bytes are waiting (a quarter of the buffer, set by the
 * loader) each submit forces one. The consumer also drains on a bounded poll
 * timeout (bpf.c), so no record waits longer than that. Reserved-but-uncommitted
 * records count in BPF_RB_AVAIL_DATA (producer_pos - consumer_pos): harmless.
 */
static __always_inline __u64 submit_flags(void)
{
	if (!wakeup_bytes)
		return 0;
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									      : BPF_RB_NO_WAKEUP;
}

/*
 * An event at time t, taken by the caller before the reservation: a block request's
 * ISSUE and DONE carry the very times its latency is the difference of, and an event's
 * time does not include the wait for the ring (an interrupt or a stalled vCPU can come
 * between the two; the recorder sorts what arrives out of order, record.c hold()).
 */
static __always_inline void emit_at(__u64 t, __u32 src, __u32 dev, __u32 agno, __u64 a, __u64 b,
				    __u64 ino, __u64 lat, __u32 opfl)
{
	struct tr_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		__u32 zero = 0;
		__u64 *n = bpf_map_lookup_elem(&lost_events, &zero);

		if (n)
			*n += 1;	/* per-CPU slot: no atomics needed */
		return;
	}
	e->time_ns = t;
	e->a = a;
	e->b = b;
	e->ino = ino;
	e->latency_ns = lat;
	e->src = src;
	e->dev = dev;
	e->agno = agno;
	e->opfl = opfl;
	bpf_ringbuf_submit(e, submit_flags());
}

static __always_inline void emit(__u32 src, __u32 dev, __u32 agno, __u64 a, __u64 b,
				 __u64 ino, __u64 lat, __u32 opfl)
{
	emit_at(bpf_ktime_get_ns(), src, dev, agno, a, b, ino, lat, opfl);
}

/* ---- ext4 (fs/ext4/mballoc.c, include/trace/events/ext4.h) ---- */

/* ext4_free_blocks(): blocks returned to the free pool (after the journal commits). */
SEC("tp/ext4/ext4_free_blocks")
int ext4_free_blocks(struct trace_event_raw_ext4_free_blocks *ctx)
{
	__u32 dev;

	if (want(FIELD(ctx->dev), ~0ull, &dev))
		emit(TR_EXT4_FREE, dev, 0, FIELD(ctx->block), FIELD(ctx->count), FIELD(ctx->ino), 0,
		     FIELD(ctx->flags));
	return 0;
}

/*
 * An mballoc event's result extent (group, first cluster, clusters) of inode ino as a src
 * record; an empty one (len <= 0) is not.
 */
static __always_inline void emit_mb_result(__u32 src, __u32 kdev, __u32 group, int start, int len, __u64 ino)
{
	__u32 dev;

	if (len > 0 && want(kdev, ~0ull, &dev))
		emit(src, dev, group, start, len, ino, 0, 0);
}

/* ext4_mb_collect_stats(): a regular allocation; result is ac_b_ex (group, cluster, clusters). */
SEC("tp/ext4/ext4_mballoc_alloc")
int ext4_mballoc_alloc(struct trace_event_raw_ext4_mballoc_alloc *ctx)
{
	emit_mb_result(TR_EXT4_ALLOC, FIELD(ctx->dev), FIELD(ctx->result_group), FIELD(ctx->result_start),
		       FIELD(ctx->result_len), FIELD(ctx->ino));
	return 0;
}

/* ext4_mb_release_inode_pa(): unused blocks of an inode preallocation go back to the free pool. */
SEC("tp/ext4/ext4_mballoc_discard")
int ext4_mballoc_discard(struct trace_event_raw_ext4__mballoc *ctx)
{
	emit_mb_result(TR_EXT4_PA_FREE, FIELD(ctx->dev), FIELD(ctx->result_group), FIELD(ctx->result_start),
		       FIELD(ctx->result_len), FIELD(ctx->ino));
	return 0;
}

/* ext4_issue_discard(): online discard (-o discard) of freed blocks. */
SEC("tp/ext4/ext4_discard_blocks")
int ext4_discard_blocks(struct trace_event_raw_ext4_discard_blocks *ctx)
{
	__u32 dev;

	if (want(FIELD(ctx->dev), ~0ull, &dev))
		emit(TR_EXT4_DISCARD, dev, 0, FIELD(ctx->blk), FIELD(ctx->count), 0, 0, fitrim_flag());
	return 0;
}

/*
 * ext4_trim_extent(): a free range of a group is discarded, by FITRIM or, with
 * -o discard, by ext4_discard_work() -> ext4_try_to_trim_range() after the commit.
 */
SEC("tp/ext4/ext4_trim_extent")
int ext4_trim_extent(struct trace_event_raw_ext4__trim *ctx)
{
	__u32 dev;

	if (want(kdev(FIELD(ctx->dev_major), FIELD(ctx->dev_minor)), ~0ull, &dev))
		emit(TR_EXT4_TRIM, dev, FIELD(ctx->group), FIELD(ctx->start), FIELD(ctx->len), 0, 0,
		     fitrim_flag());
	return 0;
}

/* jbd2_journal_commit_transaction() finished: ext4 discards freed blocks after this. */
SEC("tp/jbd2/jbd2_end_commit")
int jbd2_end_commit(struct trace_event_raw_jbd2_end_commit *ctx)
{
	__u32 dev;

	if (want(FIELD(ctx->dev), ~0ull, &dev))
		emit(TR_JBD2_COMMIT, dev, 0, 0, 0, FIELD(ctx->transaction), 0, 0);
	return 0;
}

/* ---- XFS (fs/xfs/libxfs/xfs_alloc.c, fs/xfs/xfs_discard.c, fs/xfs/xfs_trace.h) ---- */

/* xfs_free_ag_extent(): an extent goes back to the free space btrees. */
SEC("tp/xfs/xfs_free_extent")
int xfs_free_extent(struct trace_event_raw_xfs_free_extent *ctx)
{
	__u32 dev;

	if (want(FIELD(ctx->dev), ~0ull, &dev))
		emit(TR_XFS_FREE, dev, FIELD(ctx->agno), FIELD(ctx->agbno), FIELD(ctx->len), 0, 0, 0);
	return 0;
}

/*
 * xfs_alloc_vextent_finish(): every successful allocation since the 6.4 allocator
 * rework. Extents taken from the AGFL (wasfromfl) were not free space: skipped.
 */
static __always_inline int xfs_alloc(struct trace_event_raw_xfs_alloc_class *ctx)
{
	__u32 dev;

	if (FIELD(ctx->len) && !FIELD(ctx->wasfromfl) && want(FIELD(ctx->dev), ~0ull, &dev))
		emit(TR_XFS_ALLOC, dev, FIELD(ctx->agno), FIELD(ctx->agbno), FIELD(ctx->len), 0, 0, 0);
	return 0;
}

SEC("tp/xfs/xfs_alloc_vextent_finish")
int xfs_alloc_vextent_finish(struct trace_event_raw_xfs_alloc_class *ctx)
{
	return xfs_alloc(ctx);
}

/* Older kernels: the per-strategy "done" events of xfs_alloc_ag_vextent_*(). */
SEC("tp/xfs/xfs_alloc_exact_done")
int xfs_alloc_exact_done(struct trace_event_raw_xfs_alloc_class *ctx)
{
	return xfs_alloc(ctx);
}

SEC("tp/xfs/xfs_alloc_near_first")
int xfs_alloc_near_first(struct trace_event_raw_xfs_alloc_class *ctx)
{
	return xfs_alloc(ctx);
}

SEC("tp/xfs/xfs_alloc_size_done")
int xfs_alloc_size_done(struct trace_event_raw_xfs_alloc_class *ctx)
{
	return xfs_alloc(ctx);
}

/* xfs_discard_extents(): online discard of busy extents after the CIL checkpoint commits. */
SEC("tp/xfs/xfs_discard_extent")
int xfs_discard_extent(struct trace_event_raw_xfs_discard_class *ctx)
{
	__u32 dev;

	if (!xfs_discard_is_rt(ctx) && want(FIELD(ctx->dev), ~0ull, &dev))
		emit(TR_XFS_DISCARD, dev, FIELD(ctx->agno), FIELD(ctx->agbno), FIELD(ctx->len), 0, 0,
		     fitrim_flag());
	return 0;
}

/* xlog_state_do_iclog_callbacks(): a log write completed; CIL callbacks (and discards) follow. */
SEC("tp/xfs/xlog_iclog_callbacks_start")
int xlog_iclog_callbacks_start(struct trace_event_raw_xlog_iclog_class *ctx)
{
	__u32 dev;

	if (want(FIELD(ctx->dev), ~0ull, &dev))
		emit(TR_XFS_LOG_DONE, dev, 0, 0, 0, FIELD(ctx->lsn), 0, 0);
	return 0;
}

/* ---- FITRIM (fs/ioctl.c -> the fs's FITRIM handler, run in the caller's thread) ---- */

struct ioctl_enter {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__u64 fd;
	__u64 cmd;
	__u64 arg;
};

SEC("tp/syscalls/sys_enter_ioctl")
int sys_enter_ioctl(struct ioctl_enter *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u8 one = 1;

	if ((__u32)FIELD(ctx->cmd) == FITRIM_CMD)
		bpf_map_update_elem(&in_fitrim, &tid, &one, BPF_ANY);
	return 0;
}

SEC("tp/syscalls/sys_exit_ioctl")
int sys_exit_ioctl(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&in_fitrim, &tid);
	return 0;
}

/* ---- block layer (block/blk-core.c, block/blk-mq.c) ---- */

/* enum ts_op from REQ_OP_* (include/linux/blk_types.h), with flag bits. */
static __always_inline __u32 classify(__u32 opf)
{
	__u32 op = opf & 0xff, r = 0;	/* REQ_OP_MASK: REQ_OP_BITS = 8 */

	if (op == bpf_core_enum_value(enum req_op, REQ_OP_READ))
		r = 1;
	else if (op == bpf_core_enum_value(enum req_op, REQ_OP_WRITE))
		r = 2;
	else if (op == bpf_core_enum_value(enum req_op, REQ_OP_FLUSH))
		r = 3;
	else if (op == bpf_core_enum_value(enum req_op, REQ_OP_DISCARD))
		r = 4;
	else if (op == bpf_core_enum_value(enum req_op, REQ_OP_SECURE_ERASE))
		r = 5;
	else if (op == bpf_core_enum_value(enum req_op, REQ_OP_WRITE_ZEROES))
		r = 6;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		r |= TR_FL_SYNC;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		r |= TR_FL_FUA;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))
		r |= TR_FL_PREFLUSH;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		r |= TR_FL_META;
	return r;
}

/* Discards, secure erase, write-zeroes and flushes always; reads and writes with --io. */
static __always_inline bool op_wanted(__u32 opfl)
{
	__u32 op = opfl & TR_OP_MASK;

	if (op >= 3)
		return true;
	return trace_io && op != 0;
}

static __always_inline __u32 rq_dev(struct request *rq)
{
	struct gendisk *d = rq_disk(rq);

	return kdev(BPF_CORE_READ(d, major), BPF_CORE_READ(d, first_minor));
}

/* blk_mq_start_request(): the driver got the command. */
static __always_inline int rq_issue(struct request *rq)
{
	__u32 opfl = classify(BPF_CORE_READ(rq, cmd_flags));
	__u64 sector = BPF_CORE_READ(rq, __sector), key = (__u64)rq, now;
	__u32 dev;

	if (!op_wanted(opfl) || !want(rq_dev(rq), sector, &dev))
		return 0;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&inflight, &key, &now, BPF_ANY);
	/* blk_rq_trace_sector(): no position (flush) is reported as sector 0 */
	emit_at(now, TR_RQ_ISSUE, dev, 0, sector == ~0ull ? 0 : sector, BPF_CORE_READ(rq, __data_len),
		bpf_get_current_pid_tgid() >> 32, 0, opfl);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue)
{
	return rq_issue((struct request *)ctx[blk_tp_has_q ? 1 : 0]);
}

/*
 * blk_update_request(): (part of) a command completed. Only requests whose
 * issue we recorded are reported, so every DONE has an ISSUE and a latency.
 */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq, *t, now = bpf_ktime_get_ns(), lat;
	__u32 opfl, dev;
	__u64 sector;

	t = bpf_map_lookup_elem(&inflight, &key);
	if (!t)
		return 0;
	lat = now - *t;
	opfl = classify(BPF_CORE_READ(rq, cmd_flags)) | (error ? TR_FL_ERROR : 0);
	sector = BPF_CORE_READ(rq, __sector);
	if (nr_bytes >= BPF_CORE_READ(rq, __data_len))
		bpf_map_delete_elem(&inflight, &key);
	if (want(rq_dev(rq), sector, &dev))
		emit_at(now, TR_RQ_DONE, dev, 0, sector == ~0ull ? 0 : sector, nr_bytes,
			bpf_get_current_pid_tgid() >> 32, lat, opfl);
	return 0;
}

/*
 * submit_bio_noacct_nocheck(): a bio entered the block layer, once (BIO_TRACE_COMPLETION),
 * after the partition remap, so bi_sector is on the whole disk.
 */
static __always_inline int bio_queue(struct bio *bio)
{
	__u32 opfl = classify(BPF_CORE_READ(bio, bi_opf)), dev;
	__u64 sector = BPF_CORE_READ(bio, bi_iter.bi_sector);

	if ((opfl & TR_OP_MASK) != 4 && (opfl & TR_OP_MASK) != 5)
		return 0;
	if (want(bio_dev(bio), sector, &dev))
		emit(TR_BIO, dev, 0, sector, BPF_CORE_READ(bio, bi_iter.bi_size),
		     bpf_get_current_pid_tgid() >> 32, 0, opfl | workload_flag());
	return 0;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(block_bio_queue)
{
	return bio_queue((struct bio *)ctx[blk_tp_has_q ? 1 : 0]);
}

/*
 * block/blk-lib.c __blkdev_issue_discard(bdev, sector, nr_sects, ...): every
 * fs and ioctl discard goes through it. Preferred over block_bio_queue where
 * fentry (or else a kprobe) loads; sector is relative to bdev's partition.
 */
static __always_inline int issue_discard(struct block_device *bdev, __u64 sector, __u64 nr)
{
	__u32 dev;

	sector += BPF_CORE_READ(bdev, bd_start_sect);
	if (want(BPF_CORE_READ(bdev, bd_dev), sector, &dev))
		emit(TR_BIO, dev, 0, sector, nr << 9, bpf_get_current_pid_tgid() >> 32, 0, 4 | workload_flag());
	return 0;
}

SEC("fentry/__blkdev_issue_discard")
int BPF_PROG(fentry_issue_discard, struct block_device *bdev, sector_t sector, sector_t nr_sects)
{
	return issue_discard(bdev, sector, nr_sects);
}

SEC("kprobe/__blkdev_issue_discard")
int BPF_KPROBE(kprobe_issue_discard, struct block_device *bdev, sector_t sector, sector_t nr_sects)
{
	return issue_discard(bdev, sector, nr_sects);
}

char LICENSE[] SEC("license") = "GPL";
