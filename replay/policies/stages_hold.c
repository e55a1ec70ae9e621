// SPDX-License-Identifier: GPL-2.0
/*
 * Generic stages that hold requests: batch (time window), sort and merge
 * (act on the requests that arrive at one instant, i.e. one batch), delay
 * (fixed hold) and rate (iops / bytes-per-second pacing).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/evq.h"
#include "replay/policies/stages.h"

/* A held request goes out at its own time or now, whichever is later (never in the past). */
static int emit_held(struct policy_out *out, struct policy_event e, uint64_t now)
{
	if (e.time_ns < now)
		e.time_ns = now;
	return policy_out__emit(out, &e);
}

static int emit_all(struct evq *q, uint64_t now, struct policy_out *out)
{
	for (size_t i = 0; i < evq__len(q); i++) {
		int ret = emit_held(out, evq__get(q, i), now);

		if (ret)
			return ret;
	}
	evq__clear(q);
	return 0;
}

/* ---- batch(window, count): hold requests, release them together ---- */
struct batch_cfg { uint64_t window; uint64_t count; };
struct batch { struct batch_cfg c; struct evq q; uint64_t opened; uint64_t batches; };

static const struct opt_spec batch_opts[] = {
	{ "window", OPT_DURATION, offsetof(struct batch_cfg, window), 0, 0, "1s",
	  "a batch opens with its first request and is released this long after" },
	{ "count", OPT_U64, offsetof(struct batch_cfg, count), 0, 0, "0",
	  "release early when this many requests are held; 0 = no limit" },
	{ NULL },
};

static int batch_release(struct batch *b, uint64_t now, struct policy_out *out)
{
	if (!evq__len(&b->q))
		return 0;
	b->batches++;
	return emit_all(&b->q, now, out);
}

static int batch_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct batch *b = priv;
	int ret;

	if (!evq__len(&b->q))
		b->opened = ev->time_ns;
	if ((ret = evq__push(&b->q, ev)))
		return ret;
	if (b->c.count && evq__len(&b->q) >= b->c.count)
		return batch_release(b, ev->time_ns, out);
	return 0;
}

static uint64_t batch_deadline(void *priv)
{
	struct batch *b = priv;

	return evq__len(&b->q) ? b->opened + b->c.window : UINT64_MAX;
}

static int batch_tick(void *priv, uint64_t now, struct policy_out *out)
{
	struct batch *b = priv;

	if (evq__len(&b->q) && now >= b->opened + b->c.window)
		return batch_release(b, now, out);
	return 0;
}

/* End of trace: the batch still goes out when its window would have closed. */
static int batch_flush(void *priv, uint64_t now, struct policy_out *out)
{
	struct batch *b = priv;
	uint64_t at = b->opened + b->c.window;

	return batch_release(b, at > now ? at : now, out);
}

static const struct policy_stat batch_stats[] = {
	POLICY_STAT(struct batch, batches, "batches"),
	{ NULL },
};

static void batch_destroy(void *priv)
{
	evq_free(&((struct batch *)priv)->q);
}

const struct policy_stage_ops stage_batch = {
	.name = "batch", .help = "hold requests for a window, then release them together (one instant)",
	POLICY_CONFIG(batch_opts, struct batch, c), .positional = "window",
	.push = batch_push, .tick = batch_tick, .next_deadline = batch_deadline,
	.flush = batch_flush, .stats = batch_stats, .destroy = batch_destroy,
};

/*
 * ---- Instant groups: sort and merge act on what arrives at one instant ----
 * Requests with the same time (a released batch) are held and handled
 * together at a timer for that same instant, before the clock moves on.
 */
struct merge_cfg { uint64_t max; uint32_t segments; uint64_t gap; };
struct group {
	struct merge_cfg c;	/* merge; sort has none */
	struct evq q;
	uint64_t at;
	struct sort_key { uint64_t off; size_t idx; } *keys;
	size_t keys_cap;
	struct target_seg *segs;	/* merge: the command being built, c.segments ranges */
	uint64_t in, out_cmds;
	bool merge;
};

static int group_process(struct group *g, uint64_t now, struct policy_out *out);

static int group_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct group *g = priv;
	int ret;

	if (evq__len(&g->q) && ev->time_ns != g->at && (ret = group_process(g, ev->time_ns, out)))
		return ret;
	if (!evq__len(&g->q))
		g->at = ev->time_ns;
	g->in += ev->count;
	return evq__push(&g->q, ev);
}

static uint64_t group_deadline(void *priv)
{
	struct group *g = priv;

	return evq__len(&g->q) ? g->at : UINT64_MAX;
}

/* The instant's timer (tick) or the end of the trace (flush): handle the group held. */
static int group_run(void *priv, uint64_t now, struct policy_out *out)
{
	return group_process(priv, now, out);
}

static void group_destroy(void *priv)
{
	struct group *g = priv;

	evq_free(&g->q);
	free(g->keys);
	free(g->segs);
}

static int cmp_key(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;	/* stable */
}

static int sort_emit(struct group *g, uint64_t now, struct policy_out *out)
{
	size_t n = evq__len(&g->q);
	int ret;

	if ((ret = grow_array((void **)&g->keys, &g->keys_cap, n, sizeof(*g->keys))))
		return ret;
	for (size_t i = 0; i < n; i++)
		g->keys[i] = (struct sort_key){ evq__get(&g->q, i).offset, i };
	qsort(g->keys, n, sizeof(*g->keys), cmp_key);
	for (size_t i = 0; i < n; i++)
		if ((ret = emit_held(out, evq__get(&g->q, g->keys[i].idx), now)))
			return ret;
	g->out_cmds += n;
	return 0;
}

/* merge: the command under construction. */
struct mcmd { struct policy_event ev; uint32_t n; bool open; };

static int mcmd_emit(struct group *g, struct mcmd *c, uint64_t now, struct policy_out *out)
{
	if (!c->open)
		return 0;
	c->open = false;
	c->ev.offset = g->segs[0].offset;
	c->ev.length = g->segs[0].length;
	c->ev.nr_segs = c->n > 1 ? c->n : 0;
	c->ev.segs = c->n > 1 ? g->segs : NULL;
	g->out_cmds++;
	return emit_held(out, c->ev, now);
}

/* Adds range r of request e to the command, or says it does not fit. */
static bool mcmd_add(struct group *g, struct mcmd *c, const struct policy_event *e, struct target_seg r)
{
	struct target_seg *last;
	uint64_t end, rend = r.offset + r.length;

	if (!c->open) {
		c->ev = *e;
		c->ev.bytes = r.length;
		c->n = 1;
		g->segs[0] = r;
		c->open = true;
		return true;
	}
	if (e->dev != c->ev.dev)
		return false;
	last = &g->segs[c->n - 1];
	end = last->offset + last->length;
	if (r.offset >= last->offset && r.offset <= end) {	/* contiguous or overlapping: extend */
		uint64_t grow = rend > end ? rend - end : 0;

		if (g->c.max && c->ev.bytes + grow > g->c.max)
			return false;
		last->length += grow;
		c->ev.bytes += grow;
	} else {						/* another range of a multi-range command */
		uint64_t hole = r.offset > end ? r.offset - end : UINT64_MAX;

		if (c->n >= g->c.segments || (g->c.gap && hole > g->c.gap))
			return false;
		if (g->c.max && c->ev.bytes + r.length > g->c.max)
			return false;
		if (c->ev.bytes + r.length > TS_MAX_BYTES)	/* overlapping ranges (no sort before): keep bytes in range */
			return false;
		g->segs[c->n++] = r;
		c->ev.bytes += r.length;
	}
	if (e->freed_ns < c->ev.freed_ns)
		c->ev.freed_ns = e->freed_ns;
	c->ev.count += e->count;
	return true;
}

static int merge_emit(struct group *g, uint64_t now, struct policy_out *out)
{
	struct mcmd c = { .open = false };
	int ret;

	for (size_t i = 0; i < evq__len(&g->q); i++) {
		struct policy_event e = evq__get(&g->q, i);

		for (uint32_t k = 0; k < ev_nsegs(&e); k++) {
			struct target_seg r = ev_seg(&e, k);
			struct policy_event part = e;

			part.count = k ? 0 : e.count;
			if (mcmd_add(g, &c, &part, r))
				continue;
			if ((ret = mcmd_emit(g, &c, now, out)))
				return ret;
			mcmd_add(g, &c, &part, r);
		}
	}
	return mcmd_emit(g, &c, now, out);
}

static int group_process(struct group *g, uint64_t now, struct policy_out *out)
{
	int ret;

	if (!evq__len(&g->q))
		return 0;
	ret = g->merge ? merge_emit(g, now, out) : sort_emit(g, now, out);
	evq__clear(&g->q);
	return ret;
}

static const struct policy_stat group_stats[] = {
	POLICY_STAT(struct group, in, "requests_in"),
	POLICY_STAT(struct group, out_cmds, "commands_out"),
	{ NULL },
};

const struct policy_stage_ops stage_sort = {
	.name = "sort", .help = "order the requests released at one instant (a batch) by offset",
	.state_size = POLICY_STATE_SIZE(struct group, c),
	.push = group_push, .tick = group_run, .next_deadline = group_deadline,
	.flush = group_run, .stats = group_stats, .destroy = group_destroy,
};

static const struct opt_spec merge_opts[] = {
	{ "max", OPT_BYTES, offsetof(struct merge_cfg, max), 0, 0, "0",
	  "largest merged command in bytes; 0 = the device's discard_max_bytes (no limit if unknown)" },
	{ "segments", OPT_U32, offsetof(struct merge_cfg, segments), 0, 4096, "0",
	  "ranges per command (multi-range discard); 0 = the device's max_discard_segments (1 if unknown)" },
	{ "gap", OPT_BYTES, offsetof(struct merge_cfg, gap), 0, 0, "0",
	  "largest hole between ranges packed in one multi-range command; 0 = any" },
	{ NULL },
};

/*
 * Contiguous ranges coalesce (the block layer's back/front merge,
 * block/blk-merge.c: bio_attempt_back_merge()); separate ranges share a
 * command up to `segments`, as bio_attempt_discard_merge() does for devices
 * with max_discard_segments > 1. Ranges are taken in arrival order: sort first.
 */
static int merge_init(void *priv, const struct policy_env *env, struct policy_props *props,
		      char *err, size_t errlen)
{
	struct group *g = priv;

	(void)props, (void)err, (void)errlen;
	g->merge = true;
	if (!g->c.max)
		g->c.max = POLICY_ENV_DEV(env, discard_max_bytes, 0);
	if (!g->c.segments)
		g->c.segments = POLICY_ENV_DEV(env, max_discard_segments, 1);
	g->segs = calloc(g->c.segments, sizeof(*g->segs));
	return g->segs ? 0 : -ENOMEM;
}

const struct policy_stage_ops stage_merge = {
	.name = "merge", .help = "coalesce contiguous ranges and pack ranges into multi-range commands",
	POLICY_CONFIG(merge_opts, struct group, c), .positional = "max",
	.init = merge_init, .push = group_push, .tick = group_run, .next_deadline = group_deadline,
	.flush = group_run, .stats = group_stats, .destroy = group_destroy,
};

/* ---- delay(t): hold each request for t ---- */
struct delay_cfg { uint64_t t; };
struct delay { struct delay_cfg c; struct evq q; };
static const struct opt_spec delay_opts[] = {
	{ "t", OPT_DURATION, offsetof(struct delay_cfg, t), 0, 0, "1s", "how long each request waits" },
	{ NULL },
};

static int delay_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	(void)out;
	return evq__push(&((struct delay *)priv)->q, ev);
}

static uint64_t delay_deadline(void *priv)
{
	struct delay *d = priv;

	return evq__len(&d->q) ? evq__get(&d->q, 0).time_ns + d->c.t : UINT64_MAX;
}

/* Releases every request due by `until`, each at its own due time (>= now). */
static int delay_release(struct delay *d, uint64_t now, uint64_t until, struct policy_out *out)
{
	while (evq__len(&d->q)) {
		struct policy_event e = evq__get(&d->q, 0);
		int ret;

		if (e.time_ns + d->c.t > until)
			break;
		e.time_ns += d->c.t;
		if ((ret = emit_held(out, e, now)))
			return ret;
		evq__pop(&d->q);
	}
	return 0;
}

static int delay_tick(void *priv, uint64_t now, struct policy_out *out)
{
	return delay_release(priv, now, now, out);
}

static int delay_flush(void *priv, uint64_t now, struct policy_out *out)
{
	return delay_release(priv, now, UINT64_MAX, out);
}

static void delay_destroy(void *priv)
{
	evq_free(&((struct delay *)priv)->q);
}

const struct policy_stage_ops stage_delay = {
	.name = "delay", .help = "hold every request for a fixed time",
	POLICY_CONFIG(delay_opts, struct delay, c), .positional = "t",
	.push = delay_push, .tick = delay_tick, .next_deadline = delay_deadline,
	.flush = delay_flush, .destroy = delay_destroy,
};

/* ---- rate(iops, bps): pace commands ---- */
struct rate_cfg { double iops; uint64_t bps; };
struct rate { struct rate_cfg c; struct evq q; uint64_t next_ok; uint64_t paced; };
static const struct opt_spec rate_opts[] = {
	{ "iops", OPT_DOUBLE, offsetof(struct rate_cfg, iops), 0, 1e9, "0",
	  "commands per second at most; 0 = no limit" },
	{ "bps", OPT_BYTES, offsetof(struct rate_cfg, bps), 0, 0, "0",
	  "bytes per second at most; 0 = no limit" },
	{ NULL },
};

/* The gap a command of `bytes` opens before the next may go. */
static uint64_t rate_gap(const struct rate *r, uint64_t bytes)
{
	uint64_t g = 0;

	if (r->c.iops > 0)
		g = (uint64_t)(1e9 / r->c.iops);
	if (r->c.bps) {
		uint64_t b = (uint64_t)((double)bytes * 1e9 / (double)r->c.bps);

		g = b > g ? b : g;
	}
	return g;
}

static uint64_t rate_due(const struct rate *r)
{
	uint64_t t = evq__get(&r->q, 0).time_ns;

	return t > r->next_ok ? t : r->next_ok;
}

static int rate_release(struct rate *r, uint64_t now, uint64_t until, struct policy_out *out)
{
	while (evq__len(&r->q)) {
		struct policy_event e = evq__get(&r->q, 0);
		uint64_t due = rate_due(r);
		int ret;

		if (due > until)
			break;
		if (due > e.time_ns)
			r->paced++;
		e.time_ns = due > now ? due : now;
		r->next_ok = e.time_ns + rate_gap(r, e.bytes);
		if ((ret = policy_out__emit(out, &e)))
			return ret;
		evq__pop(&r->q);
	}
	return 0;
}

static int rate_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct rate *r = priv;
	int ret;

	if ((ret = evq__push(&r->q, ev)))
		return ret;
	return rate_release(r, ev->time_ns, ev->time_ns, out);
}

static uint64_t rate_deadline(void *priv)
{
	struct rate *r = priv;

	return evq__len(&r->q) ? rate_due(r) : UINT64_MAX;
}

static int rate_tick(void *priv, uint64_t now, struct policy_out *out)
{
	return rate_release(priv, now, now, out);
}

static int rate_flush(void *priv, uint64_t now, struct policy_out *out)
{
	return rate_release(priv, now, UINT64_MAX, out);
}

static const struct policy_stat rate_stats[] = {
	POLICY_STAT(struct rate, paced, "paced"),
	{ NULL },
};

static void rate_destroy(void *priv)
{
	evq_free(&((struct rate *)priv)->q);
}

const struct policy_stage_ops stage_rate = {
	.name = "rate", .help = "pace commands to at most iops per second and bps bytes per second",
	POLICY_CONFIG(rate_opts, struct rate, c), .positional = "iops",
	.push = rate_push, .tick = rate_tick, .next_deadline = rate_deadline,
	.flush = rate_flush, .stats = rate_stats, .destroy = rate_destroy,
};
