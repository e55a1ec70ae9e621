// SPDX-License-Identifier: GPL-2.0
/*
 * chain: the trace's serial points kept in the replay.
 *
 * A discard the trace issued while none of its discards was in flight (its
 * ISSUE after the DONE of every earlier one) is, in the replay, sent no sooner
 * than every discard the pipeline sent before it has completed there too; the
 * discards after it, up to the next such point, keep their trace distance from
 * it. What the trace shows happened before (a completion, then an issue) then
 * happens before in the replay. A submitter that waits for each discard waits
 * on a slower device as it would have, instead of its discards piling up in the
 * device's queue at their trace times: blkdev_issue_discard() ends in
 * submit_bio_wait() (block/blk-lib.c), which is how btrfs discard=sync commits
 * (btrfs_discard_extent() -> btrfs_issue_discard(), fs/btrfs/extent-tree.c),
 * ext4's discard work and FITRIM (ext4_try_to_trim_range() ->
 * ext4_trim_extent() -> ext4_issue_discard(), fs/ext4/mballoc.c) and
 * BLKDISCARD send theirs. A foreground command that arrives meanwhile goes
 * between two of them, as it would on the real device.
 *
 * Where the trace's discards overlap, nothing is held. A device faster than the
 * trace's shows no lag: a discard never goes before its trace time.
 *
 * Who waited. A submitter that waits goes through submit_bio_wait(), which sets
 * REQ_SYNC (block/bio.c): blkdev_issue_discard() does (block/blk-lib.c), and a
 * trace `trimsim record` wrote on Linux 5.0 or later carries the flag
 * (ts_header_records_sync()). XFS's online discard does not wait: the log
 * worker chains a checkpoint's discards and submits them, and their completion
 * clears the busy extents from a workqueue (xlog_discard_busy_extents(),
 * fs/xfs/xfs_log_cil.c; xfs_discard_extents(), fs/xfs/xfs_discard.c since 6.6),
 * so its discards carry no REQ_SYNC and the next checkpoint's go at their time
 * however far the device is behind. With wait=auto (the default) on such a
 * trace, a serial point is held when a discard BIO since the previous one
 * showed REQ_SYNC, or when no discard BIO came since: the BIOs of its own
 * call, which blkdev_issue_discard() plugs (blk_start_plug(), block/blk-lib.c)
 * so that all of them are queued before any of their requests is issued. The
 * BIO, not the ISSUE: submit_bio_wait() marks the last bio of a split discard
 * only, and a request takes the flags of its first bio when others merge into
 * it (ext4-discard-churn: each 64 KiB discard is a bio of 3 KiB without the
 * flag and one of 61 KiB with it, and their request carries none). One
 * synchronous discard among XFS's (a BLKDISCARD, a FITRIM before 6.6) holds
 * its own point, not every later one. On a trace that does not record the flag
 * (imports, hand-made traces: seed 001's Linux 3.2 waited without it), and with
 * wait=all, every serial point is held.
 *
 * Limits. The time between a completion and the next issue is not kept when
 * the replay runs behind: whether the submitter spent it because of the
 * completion (the next extent's work) or would have spent it anyway, the trace
 * cannot say, so a late point goes at the completion itself, and a chain that
 * runs behind is short of the submitter's own time between its discards.
 * Where the trace does not record REQ_SYNC, a submitter that only found the
 * device idle of discards (XFS's log worker) is held as well. Linux 5.0 is a
 * bound on the safe side, not the release that began to set the flag. A
 * request the device issued twice and completed once (a requeue) keeps the
 * count of the trace's discards in flight above zero: no serial point is seen
 * after it, as without this stage. It must follow
 * source(issue) directly: a stage before it that holds requests moves them off
 * their ISSUE times, and none of them is then taken for a serial point.
 */
#include <errno.h>
#include <stdlib.h>

#include "replay/policies/evq.h"
#include "replay/policies/stages.h"

enum chain_wait { CW_AUTO, CW_ALL };
struct chain_cfg { bool enable; unsigned wait; };
struct chain {
	struct chain_cfg c;
	struct evq q;		/* held requests in trace order, the first a serial point (pad 1) */
	uint64_t busy;		/* the trace's discard commands in flight (ISSUE less DONE) */
	bool point;		/* the ISSUE just observed is a serial point */
	uint64_t point_t;	/* its time */
	uint64_t idle_at;	/* when the last of the pipeline's discards completed in the replay */
	uint64_t lag;		/* how far the current run of discards goes behind its trace times */
	uint64_t points, late, max_lag;	/* serial points; those sent after their trace time */
	uint64_t held_peak;	/* most requests held at once */
	bool sync_only;		/* wait=auto on a trace that records REQ_SYNC: a point waits on its run's evidence */
	bool run_bio;		/* a discard BIO came since the last serial point */
	bool run_sync;		/* ... one carried REQ_SYNC */
	uint64_t async_points;	/* serial points not held: BIOs since the last, none with REQ_SYNC */
};

static const char *const chain_waits_choices[] = { "auto", "all", NULL };

static const struct opt_spec chain_opts[] = {
	{ "enable", OPT_BOOL, offsetof(struct chain_cfg, enable), 0, 1, "1",
	  "0: every discard at its trace time, serial or not (open loop, the replay before this stage)" },
	{ "wait", OPT_ENUM, offsetof(struct chain_cfg, wait), 0, 0, "auto",
	  "which serial points wait: auto (where the trace records REQ_SYNC, those whose discard BIOs since "
	  "the previous point show a submitter that waited with submit_bio_wait(); else all), all",
	  chain_waits_choices },
	{ NULL },
};

static int chain_init(void *priv, const struct policy_env *env, struct policy_props *props,
		      char *err, size_t errlen)
{
	struct chain *s = priv;

	s->sync_only = s->c.wait == CW_AUTO && env->records_sync;
	if (props->source != PS_ISSUE) {
		snprintf(err, errlen, "keeps the order of the trace's own discard commands: it follows "
			 "source(issue)");
		return -EINVAL;
	}
	return 0;
}

static int chain_observe(void *priv, const struct ts_record *rec, struct policy_out *out)
{
	struct chain *s = priv;

	(void)out;
	if (rec->op != TS_OP_DISCARD || !rec->length)	/* what source(issue) takes (pipeline.c) */
		return 0;
	if (rec->kind == TS_BIO) {
		s->run_bio = true;
		s->run_sync |= (rec->flags & TS_F_SYNC) != 0;
	} else if (rec->kind == TS_ISSUE) {
		s->point = s->c.enable && !s->busy;
		if (s->point && s->sync_only && s->run_bio && !s->run_sync) {
			s->point = false;	/* its submitter did not go through submit_bio_wait() */
			s->async_points++;
		}
		if (!s->busy)
			s->run_bio = s->run_sync = false;
		s->point_t = rec->time_ns;
		s->busy++;
	} else if (rec->kind == TS_DONE && s->busy) {
		s->busy--;
	}
	return 0;
}

/* Sends e at its trace time plus the current lag (never before now). */
static int chain_send(struct chain *s, struct policy_event e, struct policy_out *out, uint64_t now)
{
	e.time_ns += s->lag;
	if (e.time_ns < now)
		e.time_ns = now;
	e.pad = 0;
	return policy_out__emit(out, &e);
}

/* A serial point at trace time t, every earlier discard completed: the lag of its run. */
static void chain_resolve(struct chain *s, uint64_t t)
{
	s->lag = s->idle_at > t ? s->idle_at - t : 0;
	if (s->lag) {
		s->late++;
		if (s->lag > s->max_lag)
			s->max_lag = s->lag;
	}
}

/* What the last completion freed: the serial point first, then all before the next one. */
static int chain_release(struct chain *s, uint64_t now, struct policy_out *out)
{
	bool first = true;

	while (evq__len(&s->q)) {
		struct policy_event e = evq__get(&s->q, 0);
		int ret;

		if (e.pad) {
			if (!first)
				return 0;	/* the next point waits for what this run sends */
			chain_resolve(s, e.time_ns);
		}
		first = false;
		if ((ret = chain_send(s, e, out, now)))
			return ret;
		evq__pop(&s->q);
	}
	return 0;
}

static int chain_hold(struct chain *s, const struct policy_event *ev, bool point)
{
	struct policy_event e = *ev;

	e.pad = point;
	if (evq__len(&s->q) + 1 > s->held_peak)
		s->held_peak = evq__len(&s->q) + 1;
	return evq__push(&s->q, &e);
}

static int chain_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct chain *s = priv;
	bool point = s->point && ev->src_kind == TS_ISSUE && ev->time_ns == s->point_t;

	s->point = false;
	if (point)
		s->points++;
	if (evq__len(&s->q))		/* behind a point that waits */
		return chain_hold(s, ev, point);
	if (point) {
		if (policy_out__inflight(out))
			return chain_hold(s, ev, true);
		chain_resolve(s, ev->time_ns);
	}
	return chain_send(s, *ev, out, ev->time_ns);
}

/*
 * Also after the end of the trace (no flush hook): what is held waits for a discard in
 * flight (the queue holds requests only while its first, a serial point, waits for one)
 * and goes at that one's completion.
 */
static int chain_complete(void *priv, const struct policy_done *d, struct policy_out *out)
{
	struct chain *s = priv;

	if (policy_out__inflight(out))
		return 0;
	s->idle_at = d->done_ns;
	return chain_release(s, d->done_ns, out);
}

static bool chain_waits(void *priv)
{
	return evq__len(&((struct chain *)priv)->q) != 0;
}

static const struct policy_stat chain_stats[] = {
	POLICY_STAT(struct chain, points, "serial_points"),
	POLICY_STAT(struct chain, late, "late_points"),
	POLICY_STAT(struct chain, max_lag, "max_lag_ns"),
	POLICY_STAT(struct chain, held_peak, "held_peak"),
	POLICY_STAT(struct chain, async_points, "async_points"),
	{ NULL },
};

static void chain_destroy(void *priv)
{
	evq_free(&((struct chain *)priv)->q);
}

const struct policy_stage_ops stage_chain = {
	.name = "chain",
	.help = "send a discard the trace sent after all earlier ones completed only once they complete in the replay",
	.follows = "block/blk-lib.c: blkdev_issue_discard() -> submit_bio_wait() (a submitter that waits "
		   "for each discard: btrfs discard=sync, ext4's discard work and FITRIM, BLKDISCARD), which "
		   "sets REQ_SYNC (block/bio.c); fs/xfs/xfs_log_cil.c: xlog_discard_busy_extents() (XFS does not wait)",
	POLICY_CONFIG(chain_opts, struct chain, c), .positional = "enable",
	.init = chain_init, .observe = chain_observe, .observe_kinds = 1u << TS_BIO | 1u << TS_ISSUE | 1u << TS_DONE,
	.observe_ops = 1u << TS_OP_DISCARD,
	.push = chain_push, .complete = chain_complete, .waits = chain_waits,
	.stats = chain_stats, .destroy = chain_destroy,
};
