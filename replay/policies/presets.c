// SPDX-License-Identifier: GPL-2.0
/*
 * Named presets and the kernel-emulating stage kinds (replay/policy.h).
 *
 * A preset is a pipeline string; "${key}" in it is replaced by the tunable's
 * value (given as preset(key=value) or positionally, preset(value)) or its
 * default. A preset whose kernel logic cannot be written with the generic
 * stages gets its own stage kind, listed in policy_kernel_stages[] below,
 * and uses it in its pipeline ("source(free) | xfs-busy(...) | ...").
 * Each entry cites the kernel file and function it follows.
 */
#include <stddef.h>

#include "../policy.h"

/* ---- Stage kinds with real kernel logic (branch presets appends here) ---- */
const struct policy_stage_ops *const policy_kernel_stages[] = {
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
	},
	{
		.name = "sort-merge-async",
		.help = "the fix proposed in seed 001: batch, sort, merge adjacent ranges, dispatch async",
		.pipeline = "source(intent) | batch(window=${window}) | sort | "
			    "merge(max=${max},segments=${segments}) | dispatch(qd=${qd})",
		.follows = NULL,
		.tunables = sort_merge_async_tunables,
	},
	{
		.name = "none",
		.help = "never discard: the baseline every policy is compared with",
		.pipeline = "source(none)",
		.follows = NULL,
		.tunables = no_tunables,
	},
	/* ---- kernel-emulating presets (branch presets appends below) ---- */
	{ NULL },
};
