/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-emulating stage kinds, listed in
 * policy_kernel_stages[] (presets.c). PRESETS.md documents each one: the
 * kernel file and function it follows, its tunables, what a trace cannot show.
 */
#ifndef TRIMSIM_KSTAGES_H
#define TRIMSIM_KSTAGES_H

#include "replay/policies/policy.h"

extern const struct policy_stage_ops stage_ufs;		/* ufs.c */
extern const struct policy_stage_ops stage_xfs_cil;	/* xfs.c */
extern const struct policy_stage_ops stage_blk_plug;	/* blkplug.c */
extern const struct policy_stage_ops stage_ext4_mb;	/* ext4.c */
extern const struct policy_stage_ops stage_btrfs_async;	/* btrfs.c */
extern const struct policy_stage_ops stage_f2fs;	/* f2fs.c */
extern const struct policy_stage_ops stage_fstrim;	/* fstrim.c */

/* A single-range discard request, emitted at time t. */
static inline int kstage_emit(struct policy_out *out, uint64_t t, uint64_t off, uint64_t len,
			      uint64_t ino, uint64_t freed_ns, uint32_t count, uint32_t dev, uint16_t flags)
{
	struct policy_event ev = {
		.time_ns = t, .offset = off, .length = len, .ino = ino,
		.freed_ns = freed_ns < t ? freed_ns : t, .bytes = len, .count = count ? count : 1,
		.dev = dev, .flags = flags, .src_kind = TS_FREE,
	};

	return policy_out__emit(out, &ev);
}

/* True for the start-of-recording free-space snapshot record. */
static inline bool kstage_is_snapshot(const struct ts_record *r)
{
	return r->kind == TS_META && r->op == TS_META_FREESPACE && !(r->flags & TS_F_SNAP_END);
}

static inline bool kstage_is_commit(const struct ts_record *r)
{
	return r->kind == TS_META && r->op == TS_META_COMMIT;
}

#endif
