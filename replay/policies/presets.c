// SPDX-License-Identifier: GPL-2.0
/*
 * Named presets and the kernel-emulating stage kinds (replay/policies/policy.h).
 *
 * A preset is a pipeline string; "${key}" in it is replaced by the tunable's
 * value (given as preset(key=value) or positionally, preset(value)) or its
 * default. A preset whose kernel logic cannot be written with the generic
 * stages gets its own stage kind, listed in policy_kernel_stages[] below,
 * and uses it in its pipeline ("source(free) | xfs-busy(...) | ...").
 * Each entry cites the kernel file and function it follows.
 */
#include <stddef.h>

#include "replay/policies/policy.h"
#include "replay/policies/kstages.h"

/* ---- Stage kinds with real kernel logic ---- */
const struct policy_stage_ops *const policy_kernel_stages[] = {
	&stage_xfs_cil,
	&stage_blk_plug,
	&stage_ext4_mb,
	&stage_ufs,
	&stage_btrfs_async,
	&stage_f2fs,
	&stage_fstrim,
	NULL,
};

/* ---- Presets ---- */
static const struct policy_tunable no_tunables[] = { { NULL } };

static const struct policy_tunable sort_merge_async_tunables[] = {
	{ "qd", "32", "discard commands in flight (async dispatch)" },
	{ "window", "1s", "batch window: requests collected before sorting" },
	{ "max", "64M", "largest merged discard range" },
	{ "segments", "1", "ranges per command (multi-range discard); 1 = contiguous merges only" },
	{ NULL },
};

/* Kernel-emulating presets: replay/policies/PRESETS.md has the sources and limits of each. */
static const struct policy_tunable xfs_tunables[] = {
	{ "commit", "30s", "checkpoint interval while the trace has no META_COMMIT (xfs_log_worker)" },
	{ "plug", "1", "block-layer plug merging of the discard bios (0 = off: output = INTENT stream)" },
	{ "segments", "0", "max_discard_segments for plug merging; 0 = from the trace's device table" },
	{ "qd", "0", "discards in flight (0 = the device's queue: XFS does not wait)" },
	{ "unwritten", "1", "no discard for frees never written since allocated (SKIP_DISCARD, needs --io)" },
	{ "push_flush", "auto", "the first cache flush after a commit starts the next checkpoint (1, 0, auto: 1 on "
				"an XFS trace)" },
	{ NULL },
};

static const struct policy_tunable ext4_tunables[] = {
	{ "commit", "5s", "journal commit interval while the trace has no META_COMMIT (commit=)" },
	{ "extend", "1", "Linux >= 6.6: discarded runs extend to the next allocated block of the group" },
	{ "bgsize", "0", "block group size; 0 = from the trace header" },
	{ "journal", "1", "0 = data=writeback: user data discarded at free time" },
	{ "merge", "parent", "freed-extent merging: parent (Linux >= 6.17) or neighbours (<= 6.16)" },
	{ "kworker", "0", "time the discard work spends per discard (0: all at the commit); it reads the free map "
			  "when it gets to each run" },
	{ "clock", "timer", "the discard work runs per kworker= (timer) or at the trace's INTENT records (intent)" },
	{ NULL },
};

static const struct policy_tunable ufs_tunables[] = {
	{ "bsize", "32K", "UFS block size: the unit of ffs_blkfree()" },
	{ "order", "asc", "order the blocks of one FREE extent are freed in (asc, desc)" },
	{ "release_gap", "10ms", "frees of one inode further apart are separate releases" },
	{ "qd", "0", "BIO_DELETEs in flight (GEOM is asynchronous)" },
	{ NULL },
};

static const struct policy_tunable btrfs_tunables[] = {
	{ "delay", "120s", "BTRFS_DISCARD_DELAY" },
	{ "unused_delay", "10s", "BTRFS_DISCARD_UNUSED_DELAY" },
	{ "iops_limit", "1000", "discard/iops_limit (0 = none)" },
	{ "kbps_limit", "0", "discard/kbps_limit in KiB/s (0 = none)" },
	{ "max_discard_size", "64M", "discard/max_discard_size" },
	{ "bgsize", "1G", "data block group size" },
	{ "drain", "1", "after the trace the discard work runs on until nothing is queued (0: stop at the end)" },
	{ NULL },
};

static const struct policy_tunable f2fs_tunables[] = {
	{ "granularity", "16", "discard_granularity, blocks" },
	{ "max_requests", "8", "max_discard_request per round (also the queue depth)" },
	{ "min_interval", "50ms", "min_discard_issue_time" },
	{ "mid_interval", "500ms", "mid_discard_issue_time" },
	{ "max_interval", "60s", "max_discard_issue_time" },
	{ "idle", "5s", "discard_idle_interval" },
	{ "checkpoint", "60s", "checkpoint interval while the trace has no META_COMMIT" },
	{ "io_aware", "1", "discard_io_aware: issue only when idle" },
	{ "drain", "1", "after the trace the thread runs on until nothing eligible is left (0: stop at the end)" },
	{ NULL },
};

static const struct policy_tunable fstrim_tunables[] = {
	{ "interval", "1w", "time between FITRIM passes (fstrim.timer)" },
	{ "minlen", "0", "fstrim --minimum (raised to discard_granularity)" },
	{ "first", "0", "first pass after the trace start (0 = one interval)" },
	{ "final", "1", "one more pass at the end of the trace" },
	{ "mode", "untrimmed", "untrimmed, ext4 (groups touched by frees) or xfs (all free space)" },
	{ NULL },
};

const struct policy_preset policy_presets[] = {
	{
		.name = "as-recorded",
		.help = "replay the trace's discard ISSUE records as they happened (same commands, same times)",
		.pipeline = "source(issue) | dispatch(qd=0)",
		.follows = NULL,
		.tunables = no_tunables,
	},
	{
		.name = "passthrough",
		.help = "one discard command per INTENT, serial: the next one waits for the previous (XFS 2011)",
		.pipeline = "source(intent) | dispatch(qd=1)",
		.follows = "fs/xfs/xfs_discard.c: xfs_discard_extents() (Linux 3.2: one synchronous "
			   "blkdev_issue_discard() per busy extent, from xlog_cil_committed())",
		.tunables = no_tunables,
		.waiter = PW_WORKLOAD,	/* seed 001: the rm waited for every discard */
	},
	{
		.name = "sort-merge-async",
		.help = "the fix proposed in seed 001: batch, sort, merge adjacent ranges, dispatch async",
		.pipeline = "source(intent) | batch(window=${window}) | sort | "
			    "merge(max=${max},segments=${segments}) | dispatch(qd=${qd})",
		.follows = NULL,
		.tunables = sort_merge_async_tunables,
		.waiter = PW_WORKLOAD,	/* the fs's commit path submits them, async: it waits on a full queue */
	},
	{
		.name = "none",
		.help = "never discard: the baseline every policy is compared with",
		.pipeline = "source(none)",
		.follows = NULL,
		.tunables = no_tunables,
	},
	/* ---- kernel-emulating presets ---- */
	{
		.name = "xfs",
		.help = "XFS -o discard: busy extents discarded after their checkpoint commits, sorted, one bio each, "
			"block-layer plug merging",
		.pipeline = "source(free) | xfs-cil(commit=${commit},unwritten=${unwritten},push_flush=${push_flush}) | "
			    "blk-plug(enable=${plug},segments=${segments}) | "
			    "dispatch(qd=${qd})",
		.follows = "fs/xfs/xfs_log_cil.c: xlog_cil_committed(); fs/xfs/xfs_discard.c: xfs_discard_extents(); "
			   "block/blk-merge.c: blk_attempt_plug_merge() (Linux 6.12)",
		.tunables = xfs_tunables,
	},
	{
		.name = "ext4",
		.help = "ext4 -o discard: frees merged within a transaction, discarded one at a time after the commit",
		.pipeline = "source(free) | ext4-mb(commit=${commit},extend=${extend},bgsize=${bgsize},"
			    "journal=${journal},merge=${merge},kworker=${kworker},clock=${clock}) | dispatch(qd=1)",
		.follows = "fs/ext4/mballoc.c: ext4_mb_free_metadata(), ext4_process_freed_data(), "
			   "ext4_discard_work(), ext4_try_to_trim_range() (Linux 6.12; merge=parent: Linux 6.17+)",
		.tunables = ext4_tunables,
	},
	{
		.name = "ufs",
		.help = "FreeBSD UFS without consolidation: one BIO_DELETE per freed block",
		.pipeline = "source(free) | ffs-blkfree(trimcons=0,bsize=${bsize},order=${order},release_gap=${release_gap}) | "
			    "dispatch(qd=${qd})",
		.follows = "sys/ufs/ffs/ffs_alloc.c: ffs_blkfree() (vfs.ffs.dotrimcons=0)",
		.tunables = ufs_tunables,
	},
	{
		.name = "ufs-trimcons",
		.help = "FreeBSD UFS TRIM consolidation (2018): a run grows only by an adjacent block, "
			"sent on a non-adjacent block and at the end of the file's release",
		.pipeline = "source(free) | ffs-blkfree(trimcons=1,bsize=${bsize},order=${order},release_gap=${release_gap}) | "
			    "dispatch(qd=${qd})",
		.follows = "sys/ufs/ffs/ffs_alloc.c: ffs_blkfree(), trim_lookup(), ffs_blkfree_sendtrim(), "
			   "ffs_blkrelease_finish() (FreeBSD 12, r338517)",
		.tunables = ufs_tunables,
	},
	{
		.name = "btrfs-async",
		.help = "btrfs discard=async: 120 s delay, size-filtered lists, one discard per run, iops/kbps limits, "
			"64 MiB max",
		.pipeline = "source(free) | btrfs-discard(delay=${delay},unused_delay=${unused_delay},"
			    "iops_limit=${iops_limit},kbps_limit=${kbps_limit},max_discard_size=${max_discard_size},"
			    "bgsize=${bgsize},drain=${drain}) | dispatch(qd=1)",
		.follows = "fs/btrfs/discard.c: btrfs_discard_workfn(); fs/btrfs/free-space-cache.c: "
			   "trim_no_bitmap() (Linux 6.12)",
		.tunables = btrfs_tunables,
	},
	{
		.name = "f2fs",
		.help = "f2fs -o discard: candidates at checkpoint, idle-time rounds of the largest 8, "
			"granularity 16 blocks",
		.pipeline = "source(free) | f2fs-discard(granularity=${granularity},max_requests=${max_requests},"
			    "min_interval=${min_interval},mid_interval=${mid_interval},max_interval=${max_interval},"
			    "idle=${idle},checkpoint=${checkpoint},io_aware=${io_aware},drain=${drain}) | "
			    "dispatch(qd=${max_requests})",
		.follows = "fs/f2fs/segment.c: issue_discard_thread(), __issue_discard_cmd() (Linux 6.12)",
		.tunables = f2fs_tunables,
	},
	{
		.name = "fstrim",
		.help = "periodic FITRIM: free space not trimmed since it was freed, extents >= minlen",
		.pipeline = "source(free) | fitrim(interval=${interval},minlen=${minlen},first=${first},"
			    "final=${final},mode=${mode}) | dispatch(qd=1)",
		.follows = "fs/ext4/mballoc.c: ext4_trim_fs(); fs/xfs/xfs_discard.c: xfs_trim_extents() (Linux 6.12)",
		.tunables = fstrim_tunables,
	},
	{ NULL },
};
