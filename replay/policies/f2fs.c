// SPDX-License-Identifier: GPL-2.0
/*
 * f2fs-discard: f2fs online discard (-o discard, the default), Linux 6.12,
 * fs/f2fs/segment.c.
 *
 * - Invalidated blocks become discard candidates at checkpoint
 *   (f2fs_clear_prefree_segments(), add_discard_addrs()); a new candidate
 *   front/back merges with adjacent pending commands
 *   (__update_discard_tree_range()), each command at most discard_max_bytes.
 * - Pending commands sit in pend_list[plist_idx(blocks)], MAX_PLIST_NUM = 512
 *   buckets by length.
 * - issue_discard_thread() with DPOLICY_BG (__init_discard_policy()): a round
 *   (__issue_discard_cmd()) walks the buckets from the largest down, never
 *   below discard_granularity (16 blocks: sub-granularity candidates stay
 *   pending), issues at most max_discard_request (8) and waits for them
 *   (__wait_all_discard_cmd()). With discard_io_aware (default on,
 *   discard_io_aware_gran = 512: every bucket) a round issues nothing unless
 *   the fs has been idle for DEF_IDLE_INTERVAL (5 s), is_idle(DISCARD_TIME).
 * - Sleep: min_discard_issue_time 50 ms after a round that issued,
 *   f2fs_time_to_wait() or mid_discard_issue_time 500 ms after a round
 *   interrupted by I/O, max_discard_issue_time 60 s when nothing was eligible.
 *   wake_up_discard_thread() at checkpoint wakes it early when idle.
 * Checkpoints: META_COMMIT records; without them every DEF_CP_INTERVAL (60 s).
 * Busy = FREE, ALLOC or foreground (non-discard) ISSUE records.
 */
#include <errno.h>
#include <stdlib.h>

#include "replay/policies/ivset.h"
#include "replay/policies/kstages.h"
#include "replay/policies/plist.h"

#define F2FS_MAX_REQ	64u

struct f2fs_cfg {
	uint32_t granularity;
	uint64_t block;
	uint32_t max_requests;
	uint64_t min_interval, mid_interval, max_interval, idle, checkpoint;
	bool io_aware;
	bool drain;
};

static const struct opt_spec f2fs_opts[] = {
	{ "granularity", OPT_U32, offsetof(struct f2fs_cfg, granularity), 1, PLIST_NUM, "16",
	  "discard_granularity in blocks: shorter candidates are never issued by the background thread" },
	{ "block", OPT_BYTES, offsetof(struct f2fs_cfg, block), 512, 1 << 20, "4K", "f2fs block size" },
	{ "max_requests", OPT_U32, offsetof(struct f2fs_cfg, max_requests), 1, F2FS_MAX_REQ, "8",
	  "max_discard_request: discards per round" },
	{ "min_interval", OPT_DURATION, offsetof(struct f2fs_cfg, min_interval), 1e6, 3600e9, "50ms",
	  "min_discard_issue_time: sleep after a round that issued" },
	{ "mid_interval", OPT_DURATION, offsetof(struct f2fs_cfg, mid_interval), 1e6, 3600e9, "500ms",
	  "mid_discard_issue_time: sleep after a round that backed off for I/O" },
	{ "max_interval", OPT_DURATION, offsetof(struct f2fs_cfg, max_interval), 1e6, 86400e9, "60s",
	  "max_discard_issue_time: sleep when nothing was eligible" },
	{ "idle", OPT_DURATION, offsetof(struct f2fs_cfg, idle), 0, 3600e9, "5s",
	  "discard_idle_interval: the fs counts as idle this long after its last operation" },
	{ "checkpoint", OPT_DURATION, offsetof(struct f2fs_cfg, checkpoint), 1e6, 86400e9, "60s",
	  "checkpoint interval while the trace shows no META_COMMIT (DEF_CP_INTERVAL)" },
	{ "io_aware", OPT_BOOL, offsetof(struct f2fs_cfg, io_aware), 0, 1, "1",
	  "discard_io_aware: issue only when the fs is idle" },
	{ "drain", OPT_BOOL, offsetof(struct f2fs_cfg, drain), 0, 1, "1",
	  "at the end of the trace the thread runs on (rounds min_interval apart) until nothing is eligible" },
	{ NULL },
};

struct f2fs_state {
	struct f2fs_cfg cfg;
	struct ivset *prefree;	/* invalidated since the last checkpoint */
	struct plist *pend;	/* discard commands waiting: val = freed_ns */
	struct iv pick[F2FS_MAX_REQ];
	uint64_t max_cmd, start_ns, thread_at, cp_at, last_busy;
	uint64_t last_rec;	/* time of the latest record seen: timers up to it have fired */
	uint32_t waiting, dev;
	uint16_t flags;
	bool seen_commit;
	bool parked;		/* the thread found nothing eligible: its wakes are no-ops until a checkpoint */
	uint64_t rounds, backoffs, discards, bytes, checkpoints, prealloc;
};

static void f2fs_destroy(void *priv)
{
	struct f2fs_state *s = priv;

	ivset__destroy(s->prefree);
	plist__destroy(s->pend);
}

static int f2fs_init(void *priv, const struct policy_env *env, struct policy_props *props,
		     char *err, size_t errlen)
{
	struct f2fs_state *s = priv;

	(void)err, (void)errlen;
	s->max_cmd = POLICY_ENV_DEV(env, discard_max_bytes, UINT64_MAX);
	if (s->max_cmd < s->cfg.block)
		s->max_cmd = s->cfg.block;
	if (!(s->prefree = ivset__new(true)) ||
	    !(s->pend = plist__new(s->cfg.block, s->max_cmd, s->cfg.granularity)))
		return -ENOMEM;
	/*
	 * The thread's clock starts at time 0 of the trace's clock, not at env->start_ns: the
	 * thread has been running (idle, last I/O long ago) since boot, so its first round is
	 * due at the first record. (The figures of PRESETS.md and the tests are measured so.)
	 */
	s->start_ns = s->last_busy = 0;
	s->thread_at = s->cfg.min_interval;	/* first wait_ms = min_discard_issue_time */
	s->cp_at = UINT64_MAX;
	s->dev = env->devno;
	props->source = PS_FREE;
	props->waiter = PW_WORKER;	/* issue_discard_thread() */
	return 0;
}

/*
 * The round's commands: the max_requests first eligible ones, larger bucket
 * first, then lower offset (commands longer than max_cmd are cut, like
 * __update_discard_tree_range()); plist.c keeps them in that order.
 */
static uint32_t select_cmds(struct f2fs_state *s)
{
	return plist__select(s->pend, s->pick, s->cfg.max_requests);
}

static bool is_idle(const struct f2fs_state *s, uint64_t now)
{
	return now - s->last_busy >= s->cfg.idle;
}

static int round_run(struct f2fs_state *s, uint64_t now, struct policy_out *out)
{
	uint32_t n;
	int err;

	s->thread_at = now + s->cfg.max_interval;
	if (!(n = select_cmds(s))) {
		s->parked = true;
		return 0;				/* issued == 0 */
	}
	s->rounds++;
	if (s->cfg.io_aware && !is_idle(s, now)) {	/* issued == -1 */
		uint64_t left = s->cfg.idle - (now - s->last_busy);

		s->backoffs++;
		s->thread_at = now + (left ? left : s->cfg.mid_interval);
		return 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct iv *c = &s->pick[i];

		if ((err = plist__remove(s->pend, c->start, c->end - c->start)))
			return err;
		s->discards++;
		s->bytes += c->end - c->start;
		if ((err = kstage_emit(out, now, c->start, c->end - c->start, 0, c->val, 1, s->dev, s->flags)))
			return err;
	}
	s->waiting = n;				/* __wait_all_discard_cmd() */
	s->thread_at = UINT64_MAX;
	return 0;
}

/*
 * A parked thread woke every max_interval and found nothing (no state
 * changes, no figures): instead of ticking through an idle span one wake at a
 * time (2^63 ns of trace is 1.5e8 wakes at 60 s), its next wake is computed
 * when candidates arrive. Wakes before now have run; one at now runs after
 * the checkpoint when the checkpoint is a timer of the same tick (due_now),
 * and has run already when a record brought it (timers fire before records).
 */
static void unpark(struct f2fs_state *s, uint64_t now, bool due_now)
{
	uint64_t k;

	if (!s->parked)
		return;
	s->parked = false;
	if (s->thread_at > now)
		return;
	k = (now - s->thread_at) / s->cfg.max_interval;
	s->thread_at += k * s->cfg.max_interval;	/* <= now */
	if (s->thread_at < now || !due_now)
		s->thread_at += s->cfg.max_interval;
}

static int checkpoint(struct f2fs_state *s, uint64_t now, bool due_now)
{
	uint64_t pos = 0;
	struct iv v;
	int err;

	s->cp_at = UINT64_MAX;
	if (!ivset__count(s->prefree))
		return 0;
	unpark(s, now, due_now);
	s->checkpoints++;
	while (ivset__next(s->prefree, pos, &v)) {
		pos = v.end;
		if ((err = plist__add(s->pend, v.start, v.end - v.start, v.val)))
			return err;
	}
	ivset__clear(s->prefree);
	/* wake_up_discard_thread(force=false) */
	if (!s->waiting && s->thread_at > now && is_idle(s, now) && select_cmds(s))
		s->thread_at = now;
	return 0;
}

static int f2fs_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct f2fs_state *s = priv;
	int err;

	(void)out;
	if (ev->flags & TS_F_PREALLOC) {
		/*
		 * An unused preallocation (ext4 traces) stands for blocks f2fs reserved as NEW_ADDR
		 * and never wrote: f2fs_truncate_data_blocks_range() (fs/f2fs/file.c) invalidates only
		 * valid data block addresses, so no discard candidate (add_discard_addrs()) is made.
		 */
		s->prealloc++;
		return 0;
	}
	s->dev = ev->dev;
	s->flags = ev->flags;
	s->last_busy = s->last_rec = ev->time_ns;
	/* Candidates are cut into max_cmd commands (__update_discard_tree_range()). */
	if (ev->length && (err = policy_out__pieces(out, (ev->length - 1) / s->max_cmd + 1, "discard commands")))
		return err;
	if (!s->seen_commit && s->cp_at == UINT64_MAX)
		s->cp_at = s->start_ns + ((ev->time_ns - s->start_ns) / s->cfg.checkpoint + 1) * s->cfg.checkpoint;
	return ivset__add(s->prefree, ev->offset, ev->length, ev->freed_ns, 0);
}

static int f2fs_observe(void *priv, const struct ts_record *r, struct policy_out *out)
{
	struct f2fs_state *s = priv;
	int err;

	(void)out;
	s->last_rec = r->time_ns > s->last_rec ? r->time_ns : s->last_rec;
	if (r->kind == TS_ALLOC && r->length) {
		s->last_busy = r->time_ns;
		if ((err = ivset__remove(s->prefree, r->offset, r->length)))
			return err;
		return plist__remove(s->pend, r->offset, r->length);
	}
	if (r->kind == TS_ISSUE && r->op != TS_OP_DISCARD)
		s->last_busy = r->time_ns;
	if (kstage_is_commit(r)) {
		s->seen_commit = true;
		return checkpoint(s, r->time_ns, false);
	}
	return 0;
}

static uint64_t f2fs_next_deadline(void *priv)
{
	struct f2fs_state *s = priv;
	uint64_t t = s->waiting || s->parked ? UINT64_MAX : s->thread_at;

	return s->cp_at < t ? s->cp_at : t;
}

static int f2fs_tick(void *priv, uint64_t now, struct policy_out *out)
{
	struct f2fs_state *s = priv;
	int err;

	if (now >= s->cp_at && (err = checkpoint(s, now, true)))
		return err;
	if (!s->waiting && now >= s->thread_at)
		return round_run(s, now, out);
	return 0;
}

/* End of trace: checkpoint, then rounds until nothing eligible is left (no completions: paced by min_interval). */
static int f2fs_flush(void *priv, uint64_t now, struct policy_out *out)
{
	struct f2fs_state *s = priv;
	uint64_t t;
	int err;

	if (!s->cfg.drain)
		return 0;
	unpark(s, s->last_rec, false);	/* the end comes at the last record: its wakes up to it have run */
	if ((err = checkpoint(s, now, false)))
		return err;
	if (s->waiting) {
		s->waiting = 0;
		s->thread_at = now + s->cfg.min_interval;
	}
	while (select_cmds(s)) {
		t = s->thread_at > now ? s->thread_at : now;
		if ((err = round_run(s, t, out)))
			return err;
		if (s->waiting) {
			s->waiting = 0;
			s->thread_at = t + s->cfg.min_interval;
		}
	}
	return 0;
}

static int f2fs_complete(void *priv, const struct policy_done *d, struct policy_out *out)
{
	struct f2fs_state *s = priv;

	(void)out;
	if (s->waiting && --s->waiting == 0)
		s->thread_at = d->done_ns + (plist__count(s->pend) ? s->cfg.min_interval : s->cfg.max_interval);
	return 0;
}

static const struct policy_stat f2fs_stats[] = {
	POLICY_STAT(struct f2fs_state, checkpoints, "checkpoints"),
	POLICY_STAT(struct f2fs_state, prealloc, "prealloc_frees"),
	POLICY_STAT(struct f2fs_state, rounds, "rounds"),
	POLICY_STAT(struct f2fs_state, backoffs, "io_backoffs"),
	POLICY_STAT(struct f2fs_state, discards, "discards"),
	POLICY_STAT(struct f2fs_state, bytes, "bytes"),
	{ NULL },
};

static int f2fs_report(void *priv, json_t *obj)
{
	struct f2fs_state *s = priv;

	json_object_set_new(obj, "pending_bytes_left",
			    json_integer((json_int_t)(plist__bytes(s->pend) + ivset__bytes(s->prefree))));
	return 0;
}

const struct policy_stage_ops stage_f2fs = {
	.name = "f2fs-discard",
	.help = "f2fs: candidates at checkpoint, background rounds of 8 largest-first, granularity, idle-aware",
	.follows = "fs/f2fs/segment.c: issue_discard_thread(), __issue_discard_cmd(), "
		   "__init_discard_policy(), __update_discard_tree_range() (Linux 6.12)",
	POLICY_CONFIG(f2fs_opts, struct f2fs_state, cfg),
	.positional = "granularity",
	.init = f2fs_init,
	.observe = f2fs_observe,
	.push = f2fs_push,
	.tick = f2fs_tick,
	.next_deadline = f2fs_next_deadline,
	.flush = f2fs_flush,
	.complete = f2fs_complete,
	.stats = f2fs_stats,
	.report = f2fs_report,
	.destroy = f2fs_destroy,
};
