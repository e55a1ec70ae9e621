// SPDX-License-Identifier: GPL-2.0
/*
 * fstrim(interval, minlen): a periodic FITRIM (fstrim.timer) over the free
 * space, no online discard.
 *
 * Free space: the META_FREESPACE start snapshot, plus FREE, minus ALLOC. A FREE
 * is free space FITRIM can see only once its transaction commits (META_COMMIT,
 * else commit= after the transaction's first free): ext4 keeps it in the group's
 * bb_free_root and the buddy marks it used until ext4_free_data_in_buddy() runs
 * from the commit callback (fs/ext4/mballoc.c), so ext4_trim_all_free() skips
 * it; xfs_trim_extents() skips busy extents (fs/xfs/xfs_discard.c). An unused
 * preallocation (TS_F_PREALLOC) is free at once (mb_free_blocks()).
 * Untrimmed: free space present at the start or freed since it was last
 * trimmed (both kernels forget trim state at mount). A pass every interval
 * (and, with final=1, one at the end of the trace) discards, in offset order,
 * one command per extent:
 *  - mode=untrimmed: every untrimmed free extent >= minlen, then marks it
 *    trimmed: nothing is trimmed twice unless freed again;
 *  - mode=ext4: fs/ext4/mballoc.c: ext4_trim_fs() / ext4_trim_all_free():
 *    groups whose EXT4_GROUP_INFO_WAS_TRIMMED flag was cleared by a free
 *    (ext4_free_data_in_buddy()) get every free extent >= minlen trimmed
 *    (ext4_try_to_trim_range()); other groups are skipped;
 *  - mode=xfs: fs/xfs/xfs_discard.c: xfs_trim_extents(): every free extent
 *    >= minlen of every AG, every pass (XFS keeps no trim state).
 * The kernels raise minlen to the device's discard_granularity
 * (ext4_trim_fs(), xfs_ioc_trim()). FITRIM discards synchronously: qd=1.
 */
#include <errno.h>
#include <stdlib.h>

#include "replay/policies/ivset.h"
#include "replay/policies/kstages.h"

enum { FM_UNTRIMMED, FM_EXT4, FM_XFS };
static const char *const fstrim_modes[] = { "untrimmed", "ext4", "xfs", NULL };

struct fstrim_cfg {
	uint64_t interval;
	uint64_t minlen;
	uint64_t first;
	bool final;
	unsigned mode;
	uint64_t group;
	uint64_t commit;
};

static const struct opt_spec fstrim_opts[] = {
	{ "interval", OPT_DURATION, offsetof(struct fstrim_cfg, interval), 1e6, 3.2e16, "1w",
	  "time between passes (fstrim.timer: weekly)" },
	{ "minlen", OPT_BYTES, offsetof(struct fstrim_cfg, minlen), 0, 0, "0",
	  "fstrim --minimum: shorter free extents are not trimmed (raised to discard_granularity)" },
	{ "first", OPT_DURATION, offsetof(struct fstrim_cfg, first), 0, 3.2e16, "0",
	  "time of the first pass after the trace start; 0 = one interval" },
	{ "final", OPT_BOOL, offsetof(struct fstrim_cfg, final), 0, 1, "1",
	  "one more pass at the end of the trace (what the workload leaves to the next fstrim)" },
	{ "mode", OPT_ENUM, offsetof(struct fstrim_cfg, mode), 0, 0, "untrimmed",
	  "untrimmed: only free space not trimmed since freed; ext4: whole groups touched by frees; "
	  "xfs: all free space every pass", fstrim_modes },
	{ "group", OPT_BYTES, offsetof(struct fstrim_cfg, group), 0, 1ull << 40, "0",
	  "ext4 block group / XFS AG size, up to 1T; 0 = from the trace header (8 x block^2, agblocks x block)" },
	{ "commit", OPT_DURATION, offsetof(struct fstrim_cfg, commit), 1e6, 86400e9, "5s",
	  "a free becomes visible to FITRIM when its transaction commits: META_COMMIT records, else this "
	  "long after the transaction's first free (jbd2's commit interval)" },
	{ NULL },
};

struct fstrim_state {
	struct fstrim_cfg cfg;
	struct ivset *free;		/* val = freed_ns */
	struct ivset *untrimmed;	/* val = freed_ns */
	struct ivset *held;		/* allocated out of untrimmed space (mode=untrimmed): val = freed_ns */
	struct ivset *pending;		/* freed in the running transaction: val = freed_ns */
	bool commits;			/* a META_COMMIT record was seen */
	uint64_t commit_at;		/* no commit record yet: when the running transaction commits */
	uint64_t next_pass, pstart;
	uint64_t last_rec;	/* time of the latest record seen: timers up to it have fired */
	uint32_t dev;
	uint16_t flags;
	uint64_t passes, discards, bytes, retrimmed, prealloc;
};

static void fstrim_destroy(void *priv)
{
	struct fstrim_state *s = priv;

	ivset__destroy(s->free);
	ivset__destroy(s->untrimmed);
	ivset__destroy(s->held);
	ivset__destroy(s->pending);
}

static int fstrim_init(void *priv, const struct policy_env *env, struct policy_props *props,
		       char *err, size_t errlen)
{
	struct fstrim_state *s = priv;
	uint64_t gran = POLICY_ENV_DEV(env, discard_granularity, 1);

	(void)err, (void)errlen;
	if (!(s->free = ivset__new(true)) || !(s->untrimmed = ivset__new(true)) ||
	    !(s->held = ivset__new(true)) || !(s->pending = ivset__new(true)))
		return -ENOMEM;
	if (s->cfg.minlen < gran)
		s->cfg.minlen = gran;
	if (!s->cfg.group) {	/* header values in range (traces/bounds.c): at most 1 TiB, no wrap */
		uint64_t bs = POLICY_ENV_DEV(env, fs_block_size, 4096);
		uint64_t agblocks = POLICY_ENV_DEV(env, xfs_agblocks, 0);

		if (s->cfg.mode == FM_XFS && agblocks)
			s->cfg.group = agblocks * bs;
		else
			s->cfg.group = 8 * bs * bs;
	}
	s->pstart = POLICY_ENV_DEV(env, partition_start, 0);
	s->dev = env->devno;
	s->next_pass = env->start_ns + (s->cfg.first ? s->cfg.first : s->cfg.interval);
	s->commit_at = UINT64_MAX;
	props->source = PS_FREE;
	props->snapshot = true;		/* a pass trims the start snapshot's free space too */
	props->waiter = PW_WORKER;	/* the fstrim process (fstrim.timer), not the workload */
	return 0;
}

static int trim(struct fstrim_state *s, uint64_t a, uint64_t b, uint64_t freed, uint64_t now,
		struct policy_out *out)
{
	uint64_t fresh = ivset__covered(s->untrimmed, a, b - a);
	int err;

	s->discards++;
	s->bytes += b - a;
	s->retrimmed += (b - a) - fresh;
	if ((err = ivset__remove(s->untrimmed, a, b - a)))
		return err;
	return kstage_emit(out, now, a, b - a, 0, freed, 1, s->dev, s->flags | TS_F_FITRIM);
}

/*
 * Group (ext4) or AG (xfs) boundaries cut free extents: the kernels walk one
 * group at a time. Bytes before the partition start form one piece of their own.
 */
static uint64_t group_start(const struct fstrim_state *s, uint64_t off)
{
	return off < s->pstart ? 0 : s->pstart + (off - s->pstart) / s->cfg.group * s->cfg.group;
}

static uint64_t group_end(const struct fstrim_state *s, uint64_t off)
{
	return off < s->pstart ? s->pstart : group_start(s, off) + s->cfg.group;
}

static int pass_untrimmed(struct fstrim_state *s, uint64_t now, struct policy_out *out)
{
	uint64_t pos = 0;
	struct iv v;
	int err;

	while (ivset__next(s->untrimmed, pos, &v)) {
		pos = v.end;
		if (v.end - v.start >= s->cfg.minlen && (err = trim(s, v.start, v.end, v.val, now, out)))
			return err;
	}
	return 0;
}

/*
 * ext4 (only groups holding untrimmed space) and xfs (all groups): every free
 * extent >= minlen, cut at group boundaries. ext4 skips from a group without
 * untrimmed space straight to the group of the next untrimmed byte (the
 * groups between hold none either), so a pass costs the extents and groups
 * it trims, not the device's size.
 */
static int pass_groups(struct fstrim_state *s, uint64_t now, struct policy_out *out)
{
	uint64_t pos = 0;
	struct iv v, u;
	int err;

	while (ivset__next(s->free, pos, &v)) {
		uint64_t a = v.start > pos ? v.start : pos;
		uint64_t g0 = group_start(s, a), gend = group_end(s, a);
		uint64_t b = v.end < gend ? v.end : gend;

		if (s->cfg.mode == FM_EXT4 && !ivset__covered(s->untrimmed, g0, gend - g0)) {
			/* EXT4_MB_GRP_WAS_TRIMMED: skip the group, and every one up to the next untrimmed byte */
			if (!ivset__next(s->untrimmed, gend, &u))
				break;
			pos = group_start(s, u.start) > gend ? group_start(s, u.start) : gend;
			continue;
		}
		if (s->cfg.mode == FM_XFS && a == v.start &&
		    (err = policy_out__pieces(out, (v.end - 1 - g0) / s->cfg.group + 1, "allocation groups")))
			return err;
		pos = b;
		if (b - a >= s->cfg.minlen && (err = trim(s, a, b, v.val, now, out)))
			return err;
	}
	if (s->cfg.mode == FM_EXT4)
		ivset__clear(s->untrimmed);	/* every visited group is flagged trimmed */
	return 0;
}

static int run_pass(struct fstrim_state *s, uint64_t now, struct policy_out *out)
{
	s->passes++;
	return s->cfg.mode == FM_UNTRIMMED ? pass_untrimmed(s, now, out) : pass_groups(s, now, out);
}

/* Adds to `to` the parts of [off, off+len) that `from` holds, with their values. */
static int copy_overlap(const struct ivset *from, struct ivset *to, uint64_t off, uint64_t len)
{
	uint64_t end = off + len, pos = off;
	struct iv v;
	int err;

	while (pos < end && ivset__next(from, pos, &v) && v.start < end) {
		uint64_t a = v.start > off ? v.start : off, b = v.end < end ? v.end : end;

		pos = v.end;
		if ((err = ivset__add(to, a, b - a, v.val, 0)))
			return err;
	}
	return 0;
}

/* An allocation out of untrimmed space: remember it, in case it comes back unused. */
static int hold_untrimmed(struct fstrim_state *s, uint64_t off, uint64_t len)
{
	return copy_overlap(s->untrimmed, s->held, off, len);
}

/* An unused preallocation [off, off+len) came back: what was untrimmed when allocated is again. */
static int restore_held(struct fstrim_state *s, uint64_t off, uint64_t len)
{
	int err = copy_overlap(s->held, s->untrimmed, off, len);

	if (err)
		return err;
	return ivset__remove(s->held, off, len);
}

/* A freed extent the allocator (and FITRIM) can see: free, and untrimmed. */
static int freed(struct fstrim_state *s, uint64_t off, uint64_t len, uint64_t freed_ns)
{
	int err;

	if ((err = ivset__add(s->free, off, len, freed_ns, 0)) || (err = ivset__remove(s->held, off, len)))
		return err;
	return ivset__add(s->untrimmed, off, len, freed_ns, 0);
}

static int commit_walk(void *arg, const struct iv *v)
{
	return freed(arg, v->start, v->end - v->start, v->val);
}

/*
 * The journal / log commit: what the transaction freed becomes free space FITRIM can see.
 * ext4 keeps a free in the group's bb_free_root and the buddy marks it used until
 * ext4_free_data_in_buddy() runs from the commit callback (fs/ext4/mballoc.c), so
 * ext4_trim_all_free() does not trim it before; xfs_trim_extents() skips busy extents
 * (fs/xfs/xfs_discard.c) until their checkpoint commits.
 */
static int commit(struct fstrim_state *s)
{
	int err = ivset__walk(s->pending, commit_walk, s);

	ivset__clear(s->pending);
	return err;
}

/*
 * A pass over nothing (no untrimmed space; for xfs, no free space) changes
 * nothing, and nothing changes until a record comes: while idle the timer
 * is parked (no deadline) and the passes it would have run are counted when
 * the next record (or the end) comes, rather than ticked one by one across
 * an idle span of the trace (2^63 ns of it at 1 ms is 9e12 ticks).
 */
static bool idle(const struct fstrim_state *s)
{
	return !ivset__count(s->cfg.mode == FM_XFS ? s->free : s->untrimmed);
}

/*
 * The parked passes at or before t: before a record at t (the pipeline fires timers up
 * to a record's time before it), and before a commit at t + 1 (it comes before a pass).
 */
static void catch_up(struct fstrim_state *s, uint64_t t)
{
	uint64_t k;

	if (!idle(s) || t < s->next_pass)
		return;
	k = (t - s->next_pass) / s->cfg.interval + 1;
	s->passes += k;
	s->next_pass += k * s->cfg.interval;	/* <= t + interval: no wrap */
}

/* A record at t: the parked passes before it are counted; the end comes at the latest. */
static void at_record(struct fstrim_state *s, uint64_t t)
{
	catch_up(s, t);
	if (t > s->last_rec)
		s->last_rec = t;
}

static int fstrim_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct fstrim_state *s = priv;
	int err;

	(void)out;
	at_record(s, ev->time_ns);
	s->dev = ev->dev;
	s->flags = ev->flags & TS_F_FS_MASK;
	if (!(ev->flags & TS_F_PREALLOC)) {	/* free once its transaction commits */
		if (!s->commits && s->commit_at == UINT64_MAX)
			s->commit_at = ev->time_ns + s->cfg.commit;	/* jbd2's t_expires */
		return ivset__add(s->pending, ev->offset, ev->length, ev->freed_ns, 0);
	}
	/*
	 * An unused preallocation was never written: it goes back at once with mb_free_blocks(),
	 * which leaves EXT4_GROUP_INFO_WAS_TRIMMED alone (only ext4_free_data_in_buddy() and
	 * ext4_mb_clear_bb() clear it, fs/ext4/mballoc.c), so mode=ext4 does not revisit the
	 * group for it; mode=untrimmed gives it back the trim state it had when allocated.
	 */
	s->prealloc++;
	if ((err = ivset__add(s->free, ev->offset, ev->length, ev->freed_ns, 0)))
		return err;
	return restore_held(s, ev->offset, ev->length);
}

static int fstrim_observe(void *priv, const struct ts_record *r, struct policy_out *out)
{
	struct fstrim_state *s = priv;
	int err;

	(void)out;
	at_record(s, r->time_ns);
	if (r->kind == TS_ALLOC && r->length) {
		if ((err = ivset__remove(s->free, r->offset, r->length)) ||
		    (s->cfg.mode == FM_UNTRIMMED && (err = hold_untrimmed(s, r->offset, r->length))))
			return err;
		return ivset__remove(s->untrimmed, r->offset, r->length);
	}
	if (kstage_is_commit(r)) {
		s->commits = true;
		s->commit_at = UINT64_MAX;
		return commit(s);
	}
	if (kstage_is_snapshot(r)) {
		if ((err = ivset__add(s->free, r->offset, r->length, r->time_ns, 0)))
			return err;
		return ivset__add(s->untrimmed, r->offset, r->length, r->time_ns, 0);
	}
	return 0;
}

static uint64_t fstrim_next_deadline(void *priv)
{
	struct fstrim_state *s = priv;
	uint64_t pass = idle(s) ? UINT64_MAX : s->next_pass;

	return s->commit_at < pass ? s->commit_at : pass;
}

static int fstrim_tick(void *priv, uint64_t now, struct policy_out *out)
{
	struct fstrim_state *s = priv;
	int err;

	if (now >= s->commit_at) {
		catch_up(s, now - 1);	/* parked passes before now trimmed nothing; one at now follows the commit */
		s->commit_at = UINT64_MAX;
		if ((err = commit(s)))
			return err;
	}
	if (now < s->next_pass)
		return 0;
	s->next_pass += s->cfg.interval;
	return run_pass(s, now, out);
}

static int fstrim_flush(void *priv, uint64_t now, struct policy_out *out)
{
	struct fstrim_state *s = priv;
	int err;

	catch_up(s, s->last_rec);	/* the end comes at the last record's time, passes up to it ran */
	/* the next fstrim comes after the running transaction has committed */
	if (!s->cfg.final)
		return 0;
	return (err = commit(s)) ? err : run_pass(s, now, out);
}

static const struct policy_stat fstrim_stats[] = {
	POLICY_STAT(struct fstrim_state, passes, "passes"),
	POLICY_STAT(struct fstrim_state, prealloc, "prealloc_frees"),
	POLICY_STAT(struct fstrim_state, discards, "discards"),
	POLICY_STAT(struct fstrim_state, bytes, "bytes"),
	POLICY_STAT(struct fstrim_state, retrimmed, "bytes_retrimmed"),
	{ NULL },
};

static int fstrim_report(void *priv, json_t *obj)
{
	struct fstrim_state *s = priv;

	json_object_set_new(obj, "free_bytes", json_integer((json_int_t)ivset__bytes(s->free)));
	json_object_set_new(obj, "untrimmed_bytes", json_integer((json_int_t)ivset__bytes(s->untrimmed)));
	return 0;
}

const struct policy_stage_ops stage_fstrim = {
	.name = "fitrim",
	.help = "periodic FITRIM: free space not yet trimmed (tracked from FREE, ALLOC and the start snapshot)",
	.follows = "fs/ext4/mballoc.c: ext4_trim_fs(), ext4_trim_all_free(); "
		   "fs/xfs/xfs_discard.c: xfs_trim_extents() (Linux 6.12)",
	POLICY_CONFIG(fstrim_opts, struct fstrim_state, cfg),
	.positional = "interval",
	.init = fstrim_init,
	.observe = fstrim_observe,
	.push = fstrim_push,
	.tick = fstrim_tick,
	.next_deadline = fstrim_next_deadline,
	.flush = fstrim_flush,
	.stats = fstrim_stats,
	.report = fstrim_report,
	.destroy = fstrim_destroy,
};
