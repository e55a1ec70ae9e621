// SPDX-License-Identifier: GPL-2.0
/*
 * xfs-cil: XFS online discard (-o discard), Linux 6.12.
 *
 * - fs/xfs/xfs_extent_busy.c: xfs_extent_busy_insert(): every freed extent
 *   becomes one busy extent of the running checkpoint; adjacent ones are not
 *   merged.
 * - xfs_extent_busy_reuse(): an allocation overlapping a busy extent of an
 *   uncommitted checkpoint trims it (a busy extent trimmed to length 0 is
 *   dropped by xfs_extent_busy_clear()). Emulated on ALLOC records.
 * - fs/xfs/xfs_log_cil.c: xlog_cil_committed(): when the checkpoint commits,
 *   xfs_extent_busy_sort() orders the list by AG then block (device order)
 *   and xfs_extent_busy_clear(do_discard) keeps the extents to discard.
 * - fs/xfs/libxfs/xfs_bmap.c: xfs_bmap_del_extent_real() frees an extent with
 *   XFS_FREE_EXTENT_SKIP_DISCARD when it is unwritten or the caller passed
 *   XFS_BMAPI_NODISCARD, which xfs_free_eofblocks() (fs/xfs/xfs_bmap_util.c)
 *   does for the post-EOF speculative preallocation it trims at close; the
 *   busy extent is then cleared without a discard (xfs_extent_busy_clear()).
 *   A FREE flagged prealloc (an ext4 trace's unused preallocation) is that
 *   post-EOF case and always skipped.
 *   The trace does not carry the flag; unwritten=1 infers it: a FREE none of
 *   whose bytes was written (ISSUE/BIO write records, `record --io`) since it
 *   was allocated, out of an allocation of which some other part was written
 *   (so it was file data, not a metadata block, which is discarded).
 * - fs/xfs/xfs_discard.c: xfs_discard_extents(): one __blkdev_issue_discard()
 *   per busy extent (tracepoint xfs_discard_extent, our INTENT), all under one
 *   blk_plug and submitted without waiting. Block-layer plug merging is the
 *   next stage, blk-plug.
 * Commit points: META_COMMIT records; a trace without them falls back to
 * xfs_log_worker(), which forces the log every xfs_syncd_centisecs (30 s),
 * until the first commit record is seen.
 * Checkpoint boundaries (push_flush): xlog_cil_push_work() switches to a new
 * CIL context when the push starts, long before the commit callback; frees
 * after that belong to the next checkpoint. No tracepoint marks the switch,
 * but the push's first iclog goes out with REQ_PREFLUSH (XLOG_ICL_NEED_FLUSH),
 * so the first cache flush on the device after a commit cuts the checkpoint
 * (needs the trace's ISSUE records, `record --io`). push_flush=auto (default)
 * does so on a trace of an XFS device, where the flushes are XFS's own log
 * writes; on other traces (an ext4 trace's flushes are jbd2's) it does not.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/ivset.h"
#include "replay/policies/kstages.h"

enum { PF_OFF, PF_ON, PF_AUTO };
static const char *const xfs_push_flush[] = { "0", "1", "auto", NULL };

struct xfs_cfg {
	uint64_t commit;
	unsigned push_flush;	/* PF_* */
	bool unwritten;
};

static const struct opt_spec xfs_opts[] = {
	{ "commit", OPT_DURATION, offsetof(struct xfs_cfg, commit), 1e6, 86400e9, "30s",
	  "checkpoint interval used while the trace shows no META_COMMIT (xfs_syncd_centisecs)" },
	{ "push_flush", OPT_ENUM, offsetof(struct xfs_cfg, push_flush), 0, 0, "auto",
	  "the first cache flush after a commit starts the next checkpoint (the push's first iclog): "
	  "1, 0, or auto (1 on a trace of an XFS device)", xfs_push_flush },
	{ "unwritten", OPT_BOOL, offsetof(struct xfs_cfg, unwritten), 0, 1, "1",
	  "no discard for a free never written since its allocation (unwritten / post-EOF preallocation)" },
	{ NULL },
};

struct xfs_state {
	struct xfs_cfg cfg;
	struct ivset *busy;	/* the running checkpoint: val = freed_ns, aux = ino */
	struct ivset *pushing;	/* the checkpoint being pushed (push_flush) */
	struct ivset *allocs;	/* allocated in the trace: val = ALLOC seq, aux = 1 once written */
	struct ivset *fresh;	/* allocated in the trace, not written since: val = ALLOC seq */
	uint64_t start_ns, deadline;
	uint32_t dev;
	uint16_t flags;
	bool push_cuts;		/* push_flush, auto resolved */
	bool seen_commit, cut;
	uint64_t frees, commits, extents, reused_bytes, pushes;
	uint64_t alloc_seq, skipped, skipped_bytes, prealloc;
};

static void xfs_destroy(void *priv)
{
	struct xfs_state *s = priv;

	ivset__destroy(s->busy);
	ivset__destroy(s->pushing);
	ivset__destroy(s->allocs);
	ivset__destroy(s->fresh);
}

static int xfs_init(void *priv, const struct policy_env *env, struct policy_props *props,
		    char *err, size_t errlen)
{
	struct xfs_state *s = priv;

	(void)err, (void)errlen;
	if (!(s->busy = ivset__new(false)) || !(s->pushing = ivset__new(false)) ||
	    !(s->allocs = ivset__new(false)) || !(s->fresh = ivset__new(false)))
		return -ENOMEM;
	if (s->cfg.push_flush == PF_AUTO)
		s->push_cuts = env->dev && !strcmp(env->dev->fs, "xfs");
	else
		s->push_cuts = s->cfg.push_flush == PF_ON;
	s->start_ns = env->start_ns;
	s->dev = env->devno;
	s->deadline = UINT64_MAX;
	props->source = PS_FREE;
	/* xlog_cil_committed() runs from the log's I/O completion work and does not wait for them */
	props->waiter = PW_WORKER;
	return 0;
}

struct discard_walk {
	struct xfs_state *s;
	uint64_t now;
	struct policy_out *out;
};

static int discard_one(void *arg, const struct iv *v)
{
	struct discard_walk *w = arg;

	w->s->extents++;
	return kstage_emit(w->out, w->now, v->start, v->end - v->start, v->aux, v->val, 1, w->s->dev, w->s->flags);
}

/* xlog_cil_committed(): sort (the set is in device order) and discard each busy extent. */
static int discard_set(struct xfs_state *s, struct ivset *set, uint64_t now, struct policy_out *out)
{
	struct discard_walk w = { s, now, out };
	int err;

	if (!ivset__count(set))
		return 0;
	s->commits++;
	if ((err = ivset__walk(set, discard_one, &w)))
		return err;
	ivset__clear(set);
	return 0;
}

/* A commit record: the checkpoint being pushed, else the running one. */
static int commit(struct xfs_state *s, uint64_t now, struct policy_out *out)
{
	bool cut = s->cut;

	s->cut = false;
	if (cut)
		return discard_set(s, s->pushing, now, out);
	s->deadline = UINT64_MAX;
	return discard_set(s, s->busy, now, out);
}

/* Timer or end of trace: the log is forced, every checkpoint commits. */
static int commit_all(struct xfs_state *s, uint64_t now, struct policy_out *out)
{
	int err = discard_set(s, s->pushing, now, out);

	s->cut = false;
	s->deadline = UINT64_MAX;
	return err ? err : discard_set(s, s->busy, now, out);
}

/* A written allocation: some byte of the allocations overlapping [off, end) was written since. */
static bool alloc_written(const struct xfs_state *s, uint64_t off, uint64_t end)
{
	struct iv v;

	for (uint64_t pos = off; pos < end && ivset__next(s->allocs, pos, &v) && v.start < end; pos = v.end)
		if (v.aux)
			return true;
	return false;
}

/*
 * xfs_bmap_del_extent_real(): SKIP_DISCARD for an unwritten extent or an
 * XFS_BMAPI_NODISCARD caller (xfs_free_eofblocks()). Inferred: never written
 * since allocated, and part of a data allocation (another part was written).
 */
static bool skip_discard(const struct xfs_state *s, uint64_t off, uint64_t len)
{
	return s->cfg.unwritten && ivset__covered(s->fresh, off, len) == len && alloc_written(s, off, off + len);
}

/* Space written: the allocations it falls in hold data, their written part is no longer fresh. */
static int note_write(struct xfs_state *s, uint64_t off, uint64_t len)
{
	uint64_t end = off + len, pos = off;
	struct iv v;
	int err;

	while (pos < end && ivset__next(s->allocs, pos, &v) && v.start < end) {
		pos = v.end;
		if (!v.aux && (err = ivset__add(s->allocs, v.start, v.end - v.start, v.val, 1)))
			return err;
	}
	return ivset__remove(s->fresh, off, len);
}

static int xfs_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct xfs_state *s = priv;
	bool skip;
	int err;

	(void)out;
	s->frees++;
	s->dev = ev->dev;
	s->flags = ev->flags & (uint16_t)~TS_F_PREALLOC;
	if (!s->seen_commit && s->deadline == UINT64_MAX) {
		/* The next xfs_log_worker() run after this free. */
		uint64_t since = ev->time_ns > s->start_ns ? ev->time_ns - s->start_ns : 0;

		s->deadline = s->start_ns + (since / s->cfg.commit + 1) * s->cfg.commit;
	}
	/*
	 * An unused preallocation given back (TS_F_PREALLOC, ext4 traces) is XFS's post-EOF
	 * speculative preallocation trimmed by xfs_free_eofblocks(): XFS_BMAPI_NODISCARD.
	 */
	s->prealloc += !!(ev->flags & TS_F_PREALLOC);
	skip = (ev->flags & TS_F_PREALLOC) || skip_discard(s, ev->offset, ev->length);
	if ((err = ivset__remove(s->fresh, ev->offset, ev->length)) ||
	    (err = ivset__remove(s->allocs, ev->offset, ev->length)))
		return err;
	if (skip) {	/* busy, but xfs_extent_busy_clear() will not discard it */
		s->skipped++;
		s->skipped_bytes += ev->length;
		return 0;
	}
	return ivset__add(s->busy, ev->offset, ev->length, ev->freed_ns, ev->ino);
}

/* Every record kind xfs_observe() reads (its ops' observe_kinds): keep the two in step. */
#define XFS_OBSERVES (1u << TS_ALLOC | 1u << TS_ISSUE | 1u << TS_BIO | 1u << TS_META)

static int xfs_observe(void *priv, const struct ts_record *r, struct policy_out *out)
{
	struct xfs_state *s = priv;

	if (r->kind == TS_ALLOC && r->length) {
		uint64_t before = ivset__bytes(s->busy) + ivset__bytes(s->pushing);
		int err = ivset__remove(s->busy, r->offset, r->length);

		if (!err)
			err = ivset__remove(s->pushing, r->offset, r->length);
		s->reused_bytes += before - ivset__bytes(s->busy) - ivset__bytes(s->pushing);
		if (!err && s->cfg.unwritten && !(err = ivset__add(s->allocs, r->offset, r->length, ++s->alloc_seq, 0)))
			err = ivset__add(s->fresh, r->offset, r->length, s->alloc_seq, 0);
		return err;
	}
	if (s->cfg.unwritten && (r->kind == TS_ISSUE || r->kind == TS_BIO) && r->op == TS_OP_WRITE && r->length)
		return note_write(s, r->offset, r->length);
	if (s->push_cuts && !s->cut && r->kind == TS_ISSUE && ivset__count(s->busy) &&
	    (r->op == TS_OP_FLUSH || (r->op == TS_OP_WRITE && (r->flags & TS_F_PREFLUSH)))) {
		struct ivset *t = s->pushing;	/* xlog_cil_push_work(): a new context */

		s->pushing = s->busy;
		s->busy = t;
		s->cut = true;
		s->pushes++;
		return 0;
	}
	if (kstage_is_commit(r)) {
		s->seen_commit = true;
		return commit(s, r->time_ns, out);
	}
	return 0;
}

static uint64_t xfs_next_deadline(void *priv)
{
	return ((struct xfs_state *)priv)->deadline;
}

static int xfs_tick(void *priv, uint64_t now, struct policy_out *out)
{
	struct xfs_state *s = priv;

	return now >= s->deadline ? commit_all(s, now, out) : 0;
}

/* Unmount forces the log: everything still busy is committed and discarded. */
static int xfs_flush(void *priv, uint64_t now, struct policy_out *out)
{
	return commit_all(priv, now, out);
}

static const struct policy_stat xfs_stats[] = {
	POLICY_STAT(struct xfs_state, frees, "frees"),
	POLICY_STAT(struct xfs_state, prealloc, "prealloc_frees"),
	POLICY_STAT(struct xfs_state, commits, "checkpoints"),
	POLICY_STAT(struct xfs_state, pushes, "pushes_seen"),
	POLICY_STAT(struct xfs_state, extents, "busy_extents_discarded"),
	POLICY_STAT(struct xfs_state, reused_bytes, "busy_bytes_reused"),
	POLICY_STAT(struct xfs_state, skipped, "skip_discard_frees"),
	POLICY_STAT(struct xfs_state, skipped_bytes, "skip_discard_bytes"),
	POLICY_STAT(struct xfs_state, push_cuts, "push_flush_cuts"),
	POLICY_STAT(struct xfs_state, seen_commit, "commit_records"),
	{ NULL },
};

const struct policy_stage_ops stage_xfs_cil = {
	.name = "xfs-cil",
	.help = "XFS: freed extents stay busy until their CIL checkpoint commits, then one discard each, sorted",
	.follows = "fs/xfs/xfs_log_cil.c: xlog_cil_committed(); fs/xfs/xfs_extent_busy.c: "
		   "xfs_extent_busy_insert()/_sort()/_reuse(); fs/xfs/libxfs/xfs_bmap.c: "
		   "xfs_bmap_del_extent_real() (SKIP_DISCARD); fs/xfs/xfs_discard.c: xfs_discard_extents() (Linux 6.12)",
	POLICY_CONFIG(xfs_opts, struct xfs_state, cfg),
	.positional = "commit",
	.init = xfs_init,
	.observe = xfs_observe,
	.observe_kinds = XFS_OBSERVES,
	.push = xfs_push,
	.tick = xfs_tick,
	.next_deadline = xfs_next_deadline,
	.flush = xfs_flush,
	.stats = xfs_stats,
	.destroy = xfs_destroy,
};
