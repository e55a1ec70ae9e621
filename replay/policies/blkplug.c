// SPDX-License-Identifier: GPL-2.0
/*
 * blk-plug: block-layer merging of discard bios inside one blk_plug
 * (Linux 6.12), for filesystems that issue many discards under a plug
 * (xfs_discard_extents()).
 *
 * - block/blk-merge.c: blk_attempt_plug_merge(): a new bio is only tried
 *   against the last request in the plug list;
 * - blk_try_merge() / block/blk.h: blk_discard_mergable(): on a device with
 *   max_discard_segments > 1 any discard merges as one more range
 *   (bio_attempt_discard_merge(): while segments < max_discard_segments and
 *   the total stays within max_discard_sectors); otherwise only a contiguous
 *   back or front merge within max_discard_sectors;
 * - block/blk-mq.c: blk_add_rq_to_plug(): the plug is flushed when it holds
 *   BLK_MAX_REQUEST_COUNT (32) requests or its last request has at least
 *   BLK_PLUG_FLUSH_SIZE (128 KiB) when a new one is added.
 * The plug spans the requests the previous stage emits at one instant; it is
 * flushed when time moves on (blk_finish_plug()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/kstages.h"

struct plug_cfg {
	bool enable;
	uint32_t segments;	/* 0: the device's max_discard_segments */
	uint64_t max;		/* 0: the device's discard_max_bytes */
	uint32_t max_rq;
	uint64_t flush_size;
};

static const struct opt_spec plug_opts[] = {
	{ "enable", OPT_BOOL, offsetof(struct plug_cfg, enable), 0, 1, "1",
	  "0: no merging, every bio is its own request" },
	{ "segments", OPT_U32, offsetof(struct plug_cfg, segments), 0, 4096, "0",
	  "max_discard_segments; 0 = from the trace's device table (1 if unknown)" },
	{ "max", OPT_BYTES, offsetof(struct plug_cfg, max), 0, 0, "0",
	  "max_discard_sectors in bytes; 0 = the device's discard_max_bytes (4 GiB if unknown)" },
	{ "max_rq", OPT_U32, offsetof(struct plug_cfg, max_rq), 1, 4096, "32",
	  "requests that flush the plug (BLK_MAX_REQUEST_COUNT)" },
	{ "flush_size", OPT_BYTES, offsetof(struct plug_cfg, flush_size), 0, 0, "128K",
	  "a last request this large flushes the plug when the next is added (BLK_PLUG_FLUSH_SIZE)" },
	{ NULL },
};

struct plug_rq {
	struct policy_event ev;		/* ev.segs points at segs */
	uint64_t end;			/* single-range: end of the range */
	struct target_seg *segs;	/* grown by doubling up to segments, kept across flushes */
	uint32_t cap;
};

struct plug_state {
	struct plug_cfg cfg;
	struct plug_rq *rq;		/* max_rq requests */
	uint32_t n;
	uint64_t time;			/* the plug's instant */
	uint64_t bios, requests, merged;
};

static void plug_destroy(void *priv)
{
	struct plug_state *s = priv;

	for (uint32_t i = 0; s->rq && i < s->cfg.max_rq; i++)
		free(s->rq[i].segs);
	free(s->rq);
}

static int plug_init(void *priv, const struct policy_env *env, struct policy_props *props,
		     char *err, size_t errlen)
{
	struct plug_state *s = priv;

	(void)props, (void)err, (void)errlen;
	if (!s->cfg.segments)
		s->cfg.segments = POLICY_ENV_DEV(env, max_discard_segments, 1);
	if (!s->cfg.max)
		s->cfg.max = POLICY_ENV_DEV(env, discard_max_bytes, 4ull << 30);
	/*
	 * Range arrays grow with the merges that happen, not with the limit: a
	 * device may allow 65535 segments (traces/bounds.c) and 4096 requests may
	 * be plugged, but only as many ranges as bios were pushed are ever held.
	 */
	s->rq = calloc(s->cfg.max_rq, sizeof(*s->rq));
	return s->rq ? 0 : -ENOMEM;
}

static int plug_flush_all(struct plug_state *s, uint64_t now, struct policy_out *out)
{
	int err = 0;

	for (uint32_t i = 0; i < s->n && !err; i++) {
		struct policy_event *ev = &s->rq[i].ev;

		ev->time_ns = now;
		if (ev->nr_segs <= 1) {
			ev->segs = NULL;
			ev->nr_segs = 0;
			ev->length = ev->bytes;
		}
		err = policy_out__emit(out, ev);
	}
	s->n = 0;
	return err;
}

/* Room for one more range in rq (its ranges stay where ev.segs points). */
static int rq_room(struct plug_state *s, struct plug_rq *rq)
{
	uint32_t cap = rq->cap ? rq->cap * 2 : 4;
	struct target_seg *n;

	if (rq->ev.nr_segs < rq->cap)
		return 0;
	if (cap > s->cfg.segments)
		cap = s->cfg.segments;
	if (!(n = realloc(rq->segs, cap * sizeof(*n))))
		return -ENOMEM;
	rq->segs = n;
	rq->cap = cap;
	rq->ev.segs = n;
	return 0;
}

/* bio_attempt_discard_merge() or a contiguous back/front merge into the last request: 1, 0 or -errno. */
static int try_merge(struct plug_state *s, const struct policy_event *ev)
{
	struct plug_rq *rq;
	int err;

	if (!s->n || ev->nr_segs > 1)
		return 0;
	rq = &s->rq[s->n - 1];
	if (rq->ev.bytes + ev->length > s->cfg.max || rq->ev.bytes + ev->length > TS_MAX_BYTES)
		return 0;
	if (s->cfg.segments > 1) {
		if (rq->ev.nr_segs >= s->cfg.segments)
			return 0;
		if ((err = rq_room(s, rq)))
			return err;
		rq->segs[rq->ev.nr_segs++] = (struct target_seg){ ev->offset, ev->length };
	} else if (rq->end == ev->offset) {
		rq->end += ev->length;
	} else if (ev->offset + ev->length == rq->ev.offset) {
		rq->ev.offset = ev->offset;
	} else {
		return 0;
	}
	rq->ev.bytes += ev->length;
	rq->ev.count += ev->count;
	if (ev->freed_ns < rq->ev.freed_ns)
		rq->ev.freed_ns = ev->freed_ns;
	s->merged++;
	return 1;
}

static int plug_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct plug_state *s = priv;
	struct plug_rq *rq;
	int err;

	s->bios++;
	if (!s->cfg.enable) {
		s->requests++;
		return policy_out__emit(out, ev);
	}
	if (s->n && ev->time_ns != s->time && (err = plug_flush_all(s, s->time > ev->time_ns ?
								    s->time : ev->time_ns, out)))
		return err;
	s->time = ev->time_ns;
	if ((err = try_merge(s, ev)))
		return err < 0 ? err : 0;
	if (ev->nr_segs > 1 || ev->length > s->cfg.max) {
		/* Not mergeable: goes out on its own, after what is plugged. */
		if ((err = plug_flush_all(s, ev->time_ns, out)))
			return err;
		s->requests++;
		return policy_out__emit(out, ev);
	}
	/* blk_add_rq_to_plug() */
	if (s->n && (s->n >= s->cfg.max_rq || s->rq[s->n - 1].ev.bytes >= s->cfg.flush_size) &&
	    (err = plug_flush_all(s, ev->time_ns, out)))
		return err;
	rq = &s->rq[s->n];
	rq->ev = *ev;
	rq->ev.segs = rq->segs;
	rq->ev.nr_segs = 0;
	if ((err = rq_room(s, rq)))
		return err;
	rq->ev.nr_segs = 1;
	rq->ev.bytes = ev->length;
	rq->segs[0] = (struct target_seg){ ev->offset, ev->length };
	rq->end = ev->offset + ev->length;
	s->n++;
	s->requests++;
	return 0;
}

static uint64_t plug_next_deadline(void *priv)
{
	struct plug_state *s = priv;

	return s->n ? s->time : UINT64_MAX;
}

/* Time moved on past the plug's instant (tick), or the trace ended (flush): blk_finish_plug(). */
static int plug_finish(void *priv, uint64_t now, struct policy_out *out)
{
	return plug_flush_all(priv, now, out);
}

static const struct policy_stat plug_stats[] = {
	POLICY_STAT(struct plug_state, bios, "bios"),
	POLICY_STAT(struct plug_state, requests, "requests"),
	POLICY_STAT(struct plug_state, merged, "merged"),
	POLICY_STAT(struct plug_state, cfg.segments, "segments"),
	{ NULL },
};

const struct policy_stage_ops stage_blk_plug = {
	.name = "blk-plug",
	.help = "block-layer plug merging of discard bios issued at one instant (last request only)",
	.follows = "block/blk-merge.c: blk_attempt_plug_merge(), bio_attempt_discard_merge(); "
		   "block/blk-mq.c: blk_add_rq_to_plug() (Linux 6.12)",
	POLICY_CONFIG(plug_opts, struct plug_state, cfg),
	.positional = "segments",
	.init = plug_init,
	.push = plug_push,
	.tick = plug_finish,
	.next_deadline = plug_next_deadline,
	.flush = plug_finish,
	.stats = plug_stats,
	.destroy = plug_destroy,
};
