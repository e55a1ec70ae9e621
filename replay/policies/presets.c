// SPDX-License-Identifier: GPL-2.0
/*
 * Named presets and the kernel-emulating stage kinds (replay/policies/policy.h).
 *
 * A preset is a pipeline string whose stage arguments are its defaults; its
 * arguments (preset(key=value), or positionally preset(value)) are forwarded
 * to its stages' option tables (replay/policies/policy.h), so an option is written
 * once, in its stage. A preset whose kernel logic cannot be written with the
 * generic stages gets its own stage kind, listed in policy_kernel_stages[]
 * below, and uses it in its pipeline ("source(free) | xfs-cil | ...").
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

/* ---- Presets: replay/policies/PRESETS.md has the sources and limits of the kernel-emulating ones ---- */
static const struct policy_alias xfs_aliases[] = {
	{ "plug", "blk-plug", "enable" },
	{ NULL },
};

static const struct policy_alias as_recorded_aliases[] = {
	{ "chain", "chain", "enable" },
	{ NULL },
};

static const struct policy_alias f2fs_aliases[] = {
	{ "max_requests", "dispatch", "qd" },	/* max_discard_request is also the queue depth */
	{ NULL },
};

const struct policy_preset policy_presets[] = {
	{
		.name = "as-recorded",
		.help = "replay the trace's discard ISSUE records as they happened: same commands, at their "
			"times; one sent after every earlier one completed waits for them (chain=0: never)",
		.pipeline = "source(issue) | chain | dispatch(qd=0)",
		.follows = NULL,
		.aliases = as_recorded_aliases,
	},
	{
		.name = "passthrough",
		.help = "one discard command per INTENT, serial: the next one waits for the previous (XFS 2011)",
		.pipeline = "source(intent) | dispatch(qd=1)",
		.follows = "fs/xfs/xfs_discard.c: xfs_discard_extents() (Linux 3.2: one synchronous "
			   "blkdev_issue_discard() per busy extent, from xlog_cil_committed())",
		.waiter = PW_WORKLOAD,	/* seed 001: the rm waited for every discard */
	},
	{
		.name = "sort-merge-async",
		.help = "the fix proposed in seed 001: batch, sort, merge adjacent ranges, dispatch async",
		.pipeline = "source(intent) | batch | sort | merge(max=64M,segments=1) | dispatch(qd=32)",
		.follows = NULL,
		.positional = "qd,window,max,segments",
		.waiter = PW_WORKLOAD,	/* the fs's commit path submits them, async: it waits on a full queue */
	},
	{
		.name = "none",
		.help = "never discard: the baseline every policy is compared with",
		.pipeline = "source(none)",
		.follows = NULL,
	},
	/* ---- kernel-emulating presets ---- */
	{
		.name = "xfs",
		.help = "XFS -o discard: busy extents discarded after their checkpoint commits, sorted, one bio each, "
			"block-layer plug merging",
		.pipeline = "source(free) | xfs-cil | blk-plug | dispatch(qd=0)",
		.follows = "fs/xfs/xfs_log_cil.c: xlog_cil_committed(); fs/xfs/xfs_discard.c: xfs_discard_extents(); "
			   "block/blk-merge.c: blk_attempt_plug_merge() (Linux 6.12)",
		.positional = "commit,plug,segments,qd,unwritten,push_flush",
		.aliases = xfs_aliases,
	},
	{
		.name = "ext4",
		.help = "ext4 -o discard: frees merged within a transaction, discarded one at a time after the commit",
		.pipeline = "source(free) | ext4-mb | dispatch(qd=1)",
		.follows = "fs/ext4/mballoc.c: ext4_mb_free_metadata(), ext4_process_freed_data(), "
			   "ext4_discard_work(), ext4_try_to_trim_range() (Linux 6.12; merge=parent: Linux 6.17+)",
		.positional = "commit,extend,bgsize,journal,merge,kworker,clock",
	},
	{
		.name = "ufs",
		.help = "FreeBSD UFS without consolidation: one BIO_DELETE per freed block",
		.pipeline = "source(free) | ffs-blkfree(trimcons=0) | dispatch(qd=0)",
		.follows = "sys/ufs/ffs/ffs_alloc.c: ffs_blkfree() (vfs.ffs.dotrimcons=0)",
		.positional = "bsize,order,release_gap,qd",
	},
	{
		.name = "ufs-trimcons",
		.help = "FreeBSD UFS TRIM consolidation (2018): a run grows only by an adjacent block, "
			"sent on a non-adjacent block and at the end of the file's release",
		.pipeline = "source(free) | ffs-blkfree(trimcons=1) | dispatch(qd=0)",
		.follows = "sys/ufs/ffs/ffs_alloc.c: ffs_blkfree(), trim_lookup(), ffs_blkfree_sendtrim(), "
			   "ffs_blkrelease_finish() (FreeBSD 12, r338517)",
		.positional = "bsize,order,release_gap,qd",
	},
	{
		.name = "btrfs-async",
		.help = "btrfs discard=async: 120 s delay, size-filtered lists, one discard per run, iops/kbps limits, "
			"64 MiB max",
		.pipeline = "source(free) | btrfs-discard | dispatch(qd=1)",
		.follows = "fs/btrfs/discard.c: btrfs_discard_workfn(); fs/btrfs/free-space-cache.c: "
			   "trim_no_bitmap() (Linux 6.12)",
		.positional = "delay,unused_delay,iops_limit,kbps_limit,max_discard_size,bgsize,drain",
	},
	{
		.name = "f2fs",
		.help = "f2fs -o discard: candidates at checkpoint, idle-time rounds of the largest 8, "
			"granularity 16 blocks",
		.pipeline = "source(free) | f2fs-discard | dispatch(qd=8)",
		.follows = "fs/f2fs/segment.c: issue_discard_thread(), __issue_discard_cmd() (Linux 6.12)",
		.positional = "granularity,max_requests,min_interval,mid_interval,max_interval,idle,checkpoint,io_aware,"
			      "drain",
		.aliases = f2fs_aliases,
	},
	{
		.name = "fstrim",
		.help = "periodic FITRIM: free space not trimmed since it was freed, extents >= minlen",
		.pipeline = "source(free) | fitrim | dispatch(qd=1)",
		.follows = "fs/ext4/mballoc.c: ext4_trim_fs(); fs/xfs/xfs_discard.c: xfs_trim_extents() (Linux 6.12)",
		.positional = "interval,minlen,first,final,mode",
	},
	{ NULL },
};
