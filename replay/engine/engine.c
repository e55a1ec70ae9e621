// SPDX-License-Identifier: GPL-2.0
/*
 * The replay engine (engine.h, ENGINE.md). Two lanes share one command
 * table: the real lane (policy discards + foreground I/O) and, for model
 * targets, a shadow lane (foreground only) whose latencies are the
 * discard-free baseline for stall and latency inflation.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/engine/engine_int.h"
#include "traces/util.h"

static int efail(struct engine *e, int ret, const char *fmt, const char *detail)
{
	if (!e->err[0])
		snprintf(e->err, sizeof(e->err), fmt, detail);
	return ret;
}

/* ---- time: trace ns <-> engine ns ---- */
static uint64_t scale_speed(const struct engine *e, uint64_t d)	/* d / --speed, rounded */
{
	double x = (double)d / e->cfg.speed;

	return x >= 9.2e18 ? (uint64_t)INT64_MAX : (uint64_t)llround(x);	/* llround() past 2^63 is undefined */
}

static inline uint64_t scale(const struct engine *e, uint64_t d)
{
	return e->unscaled ? d : scale_speed(e, d);
}

/* Inline: every record that runs the loop and every discard the policy emits converts its time. */
static inline uint64_t to_engine(const struct engine *e, uint64_t t)
{
	if (t == UINT64_MAX)
		return UINT64_MAX;
	if (e->cfg.timing == TIMING_ASAP)	/* keep a policy's delay relative to the current record */
		return e->lane[0].now + (t > e->last_trace ? t - e->last_trace : 0);
	return e->base + scale(e, t > e->t0 ? t - e->t0 : 0);
}

static uint64_t to_trace(const struct engine *e, uint64_t x)
{
	if (e->cfg.timing == TIMING_ASAP)
		return e->last_trace;
	x = x > e->base ? x - e->base : 0;
	if (e->cfg.speed != 1.0) {
		double y = (double)x * e->cfg.speed;

		x = y >= 9.2e18 ? (uint64_t)INT64_MAX : (uint64_t)llround(y);	/* as in scale() */
	}
	return e->t0 + x;
}

static inline void lane_sync(struct lane *l, uint64_t t)
{
	if (l->ops->clock) {	/* real-time: one reading of its clock */
		uint64_t c = l->ops->clock(l->priv);

		t = c > t ? c : t;
	}
	if (t > l->now)
		l->now = t;
}

/* The lane's earliest completion (not real-time targets), asked of the target once per submit or reap. */
static uint64_t lane_next_done(struct lane *l)
{
	if (!l->inflight)
		return UINT64_MAX;
	if (!l->next_done_ok) {
		l->next_done = l->ops->next_done(l->priv);
		l->next_done_ok = true;
	}
	return l->next_done;
}

/* ---- command table ---- */
static inline int slot_alloc(struct engine *e, size_t *tag)
{
	if (e->free_slot == SIZE_MAX) {
		int ret = grow_array((void **)&e->slots, &e->slots_cap, e->nslots + 1, sizeof(*e->slots));

		if (ret)
			return ret;
		e->slots[e->nslots].next_free = SIZE_MAX;
		e->free_slot = e->nslots++;
	}
	static const struct slot zero;	/* copied by moves: a memset here became a slow rep stos */

	*tag = e->free_slot;
	e->free_slot = e->slots[*tag].next_free;
	e->slots[*tag] = zero;
	return 0;
}

static void slot_release(struct engine *e, size_t tag)
{
	e->slots[tag].next_free = e->free_slot;
	e->free_slot = tag;
}

static void note_queued(struct engine *e)
{
	size_t q = e->nslots;

	for (unsigned i = 0; i < e->nlanes; i++)
		q += e->lane[i].fg_n + evq__len(&e->lane[i].dq);
	if (q > e->peak_q)
		e->peak_q = q;
}

/* ---- dispatch ---- */
static bool discard_room(const struct lane *l)
{
	return !l->qd || l->d_inflight < l->qd;
}

/* When the lane could next submit something (UINT64_MAX: nothing, or no room). */
static inline uint64_t lane_ready(const struct lane *l)
{
	uint64_t t = UINT64_MAX;

	if (l->inflight >= l->max)
		return t;
	if (l->fg_n)
		t = l->fg[l->fg_head].ready;
	if (evq__len(&l->dq) && discard_room(l)) {
		uint64_t d = evq__head_time(&l->dq);

		t = d < t ? d : t;
	}
	return t;
}

static int observe_submit_hook(struct engine *e, const struct target_cmd *cmd)
{
	const struct engine_observer *o = e->cfg.observer;
	int ret;

	if (!o->submit || !(ret = o->submit(o->arg, cmd)))
		return 0;
	return efail(e, ret < 0 ? ret : -EINVAL, "%s", "replay observer failed on a submit");
}

/* Inline: most replays have no observer (compare's probe is one). */
static inline int observe_submit(struct engine *e, const struct target_cmd *cmd)
{
	return e->cfg.observer ? observe_submit_hook(e, cmd) : 0;
}

/* Submits discard ev on lane l now; ready and freed: its time_ns and freed_ns in engine time. */
static inline __attribute__((always_inline)) int submit_discard(struct engine *e, struct lane *l,
								    const struct policy_event *ev, uint64_t ready,
								    uint64_t freed)
{
	/*
	 * The offset through a register: GCC would load offset and length in one
	 * 16-byte load, and a stage that just stored them apart makes it wait for the
	 * stores to reach the cache (no store forwarding).
	 */
	uint64_t off = ev->offset;
	struct target_seg one;
	struct target_cmd cmd;
	struct slot *s;
	size_t tag;
	int ret;

	__asm__("" : "+r"(off));
	one = (struct target_seg){ off, ev->length };
	cmd = (struct target_cmd){
		.submit_ns = l->now, .offset = off, .length = ev->length,
		.segs = ev->nr_segs > 1 ? ev->segs : NULL, .nr_segs = ev->nr_segs > 1 ? ev->nr_segs : 0,
		.op = TS_OP_DISCARD, .klass = TC_DISCARD, .flags = ev->flags,
	};
	if ((ret = slot_alloc(e, &tag)))
		return ret;
	s = &e->slots[tag];
	s->pending = 1;
	s->mc = (struct metrics_cmd){
		.submit_ns = l->now, .ready_ns = ready, .freed_ns = freed, .bytes = ev->bytes,
		.segs = cmd.segs ? cmd.segs : &one, .nr_segs = cmd.nr_segs, .count = ev->count,
		.op = TS_OP_DISCARD, .klass = TC_DISCARD,
	};
	cmd.tag = tag;
	if ((ret = l->ops->submit(l->priv, &cmd)))
		return efail(e, ret, "target %s: discard submit failed", l->ops->name);
	l->next_done_ok = false;
	if ((ret = observe_submit(e, &cmd)))
		return ret;
	l->inflight++;
	l->d_inflight++;
	ret = metrics__submit(e->m, &s->mc);
	s->mc.segs = NULL;
	return ret;
}

/*
 * Submits foreground command *it (the lane's next) on lane l now. Inline: *it is
 * often a struct its caller just built field by field, and a copy of it in 16-byte
 * loads would wait for those stores to reach the cache (no store forwarding).
 */
static inline __attribute__((always_inline)) int submit_fg_item(struct engine *e, struct lane *l,
								  const struct fg_item *it)
{
	struct target_seg one = { it->offset, it->length };
	struct target_cmd cmd = {
		.tag = it->tag, .submit_ns = l->now, .offset = it->offset, .length = it->length,
		.op = it->op, .klass = TC_FOREGROUND, .flags = it->flags,
	};
	struct slot *s = &e->slots[it->tag];
	int ret;

	if ((ret = l->ops->submit(l->priv, &cmd)))
		return efail(e, ret, "target %s: submit failed", l->ops->name);
	l->next_done_ok = false;
	l->inflight++;
	if (l->shadow)
		return 0;
	if ((ret = observe_submit(e, &cmd)))
		return ret;
	s->mc = (struct metrics_cmd){
		.submit_ns = l->now, .ready_ns = it->ready, .bytes = it->length, .segs = &one,
		.count = 1, .op = it->op, .klass = TC_FOREGROUND,
	};
	ret = metrics__submit(e->m, &s->mc);
	s->mc.segs = NULL;
	return ret;
}

/* Submits the oldest foreground command of the lane's queue. */
static int submit_fg(struct engine *e, struct lane *l)
{
	struct fg_item it = l->fg[l->fg_head];

	l->fg_head = (l->fg_head + 1) & (l->fg_cap - 1);
	l->fg_n--;
	return submit_fg_item(e, l, &it);
}

/* Whether the lane has room and a command ready by its now. */
static inline bool lane_due(const struct lane *l)
{
	return l->inflight < l->max && ((l->fg_n && l->fg[l->fg_head].ready <= l->now) ||
					(evq__len(&l->dq) && discard_room(l) && evq__head_time(&l->dq) <= l->now));
}

/*
 * Whether a discard ready at t would be the lane's next submission, now: it is due,
 * the lane has room, no discard waits before it and no foreground command is ready
 * (that one would go first).
 */
static inline bool lane_takes_discard(const struct lane *l, uint64_t t)
{
	return t <= l->now && !evq__len(&l->dq) && l->inflight < l->max && discard_room(l) &&
	       !(l->fg_n && l->fg[l->fg_head].ready <= l->now);
}

static int submit_due(struct engine *e, struct lane *l)
{
	while (l->inflight < l->max) {
		bool fg = l->fg_n && l->fg[l->fg_head].ready <= l->now;
		bool d = evq__len(&l->dq) && discard_room(l) && evq__head_time(&l->dq) <= l->now;
		int ret;

		if (fg && d)	/* both ready: the one that was ready first; foreground on ties */
			d = evq__head_time(&l->dq) < l->fg[l->fg_head].ready;
		if (d) {
			struct policy_event ev = evq__get(&l->dq, 0);

			ret = submit_discard(e, l, &ev, ev.time_ns, ev.freed_ns);
			evq__pop(&l->dq);
		} else if (fg)
			ret = submit_fg(e, l);
		else
			return 0;
		if (ret)
			return ret;
	}
	return 0;
}

/* Submits what is due on the lane; most calls find nothing, and return before the loop's setup. */
static inline int dispatch(struct engine *e, struct lane *l)
{
	return lane_due(l) ? submit_due(e, l) : 0;
}

static int dispatch_all(struct engine *e)
{
	for (unsigned i = 0; i < e->nloop; i++) {
		int ret = dispatch(e, &e->lane[i]);

		if (ret)
			return ret;
	}
	return 0;
}

/* ---- deferred reclaim ---- */
/* Defers a free of bytes at engine time t (intent: an INTENT record's) to dfree_apply(); the caller checked there is room. */
static inline void dfree_push(struct engine *e, uint64_t t, uint64_t bytes, bool intent)
{
	e->dfree[(e->dfree_head + e->dfree_n++) & (DEFER_FREES - 1)] =
		(struct defer_free){ .t = t, .bytes = bytes, .intent = intent };
}

/* Hands the deferred frees of engine time before t (every one: UINT64_MAX) to the metrics, oldest first. */
static int dfree_apply(struct engine *e, uint64_t t)
{
	while (e->dfree_n) {
		const struct defer_free *f = &e->dfree[e->dfree_head];
		int ret;

		if (f->t >= t && t != UINT64_MAX)
			return 0;
		if ((ret = metrics__freed(e->m, f->t, f->intent, f->bytes)))
			return efail(e, ret, "%s", "engine: out of memory");
		e->dfree_head = (e->dfree_head + 1) & (DEFER_FREES - 1);
		e->dfree_n--;
	}
	return 0;
}

/* ---- completions ---- */
/* Tells the policy discard s completed (d). */
static int policy_done(struct engine *e, const struct slot *s, const struct target_done *d)
{
	struct policy_done pd = {
		.submit_ns = to_trace(e, d->submit_ns), .done_ns = to_trace(e, d->done_ns),
		.bytes = s->mc.bytes, .count = s->mc.count, .error = d->error,
	};
	int ret = policy__complete(e->pol, &pd);

	return ret ? efail(e, ret, "%s", policy__error(e->pol)) : 0;
}

/* shadow: l->shadow, a constant where the caller knows it (twin_run()) */
static inline __attribute__((always_inline)) int complete(struct engine *e, struct lane *l,
							  const struct target_done *d, bool shadow)
{
	struct slot *s;
	int ret = 0;

	if (d->tag >= e->nslots || !(e->slots[d->tag].pending & (shadow ? 2 : 1)))
		return efail(e, -EPROTO, "target %s: completion for a command never submitted", l->ops->name);
	s = &e->slots[d->tag];
	l->inflight--;
	if (shadow) {
		s->base = d->done_ns > s->ready[1] ? d->done_ns - s->ready[1] : 0;
		s->pending &= (uint8_t)~2u;
	} else {
		s->lat = d->done_ns > s->ready[0] ? d->done_ns - s->ready[0] : 0;
		s->failed = d->error != 0;
		if (e->cfg.observer && e->cfg.observer->done)
			e->cfg.observer->done(e->cfg.observer->arg, d);
		s->pending &= (uint8_t)~1u;
		/* the frees of records before it (a completion at a record's time came before the record) */
		if (e->dfree_n && e->dfree[e->dfree_head].t < d->done_ns && (ret = dfree_apply(e, d->done_ns)))
			return ret;
		if ((ret = metrics__done(e->m, &s->mc, d)))
			return ret;
		if (s->mc.klass == TC_DISCARD) {
			l->d_inflight--;
			if (!e->done_unseen && (ret = policy_done(e, s, d)))
				return ret;
		}
	}
	if (!s->pending) {
		/* a failed command's latency is no latency of its op (metrics__done()): no pair either */
		if (s->mc.klass == TC_FOREGROUND && e->nlanes > 1 && !s->failed)
			ret = metrics__baseline(e->m, s->mc.op, s->lat, s->base);
		slot_release(e, d->tag);
	}
	return ret;
}

/* The lane with the earliest completion, if due by until; real-time: the one lane, if it has any in flight. */
static inline struct lane *reap_lane(struct engine *e, uint64_t until)
{
	struct lane *best = NULL;
	uint64_t t = UINT64_MAX;

	if (e->realtime)
		return e->lane[0].inflight ? &e->lane[0] : NULL;
	for (unsigned i = 0; i < e->nloop; i++) {
		struct lane *l = &e->lane[i];
		uint64_t n = lane_next_done(l);

		if (n < t)
			t = n, best = l;
	}
	return t <= until ? best : NULL;
}

/*
 * Reaps one completion due by until from lane l: 1, 0 or -errno. twin: l is the
 * discard-free twin beside the loop (trace timing on a model target): no clock,
 * and complete() reduced to its shadow part at compile time.
 */
static inline __attribute__((always_inline)) int reap_from_as(struct engine *e, struct lane *l, uint64_t until,
								  bool twin)
{
	struct target_done d;
	int ret;

	ret = l->ops->reap(l->priv, until, &d);
	l->next_done_ok = false;
	if (ret <= 0)
		return ret < 0 ? efail(e, ret, "target %s: reap failed", l->ops->name) : 0;
	if (twin)
		l->now = d.done_ns > l->now ? d.done_ns : l->now;	/* lane_sync() of a lane without a clock */
	else
		lane_sync(l, d.done_ns);
	if ((ret = complete(e, l, &d, twin || l->shadow)))
		return ret;
	return (ret = dispatch(e, l)) ? ret : 1;
}

static int reap_from(struct engine *e, struct lane *best, uint64_t until)
{
	return reap_from_as(e, best, until, false);
}

/* Reaps one completion due by until from whichever lane has the earliest; 1, 0 or -errno. */
static inline int reap_one(struct engine *e, uint64_t until)
{
	struct lane *best = reap_lane(e, until);

	return best ? reap_from(e, best, until) : 0;
}

/*
 * Trace timing: the twin (lane 1) runs beside the event loop. Its commands are the
 * foreground ones at their trace times and nothing else reacts to its completions
 * (they give each command's baseline latency and free its room), so run_until()
 * leaves it alone and it catches up here, before a foreground record and at the end:
 * its completions due by t in its own order, each submitting what waited for room at
 * its time, as the loop would have; the real lane's results and order are unchanged.
 */
static int twin_run(struct engine *e, uint64_t t)
{
	struct lane *l = &e->lane[1];

	while (l->inflight && lane_next_done(l) <= t) {
		int ret = reap_from_as(e, l, t, true);

		if (ret <= 0)
			return ret ? ret : efail(e, -EPROTO, "%s", "engine: the twin has no completion it announced");
	}
	return 0;
}

/* Real-time targets with nothing in flight: sleep until their clock reaches t. */
static void wait_clock(struct lane *l, uint64_t t)
{
	uint64_t c;

	while ((c = l->ops->clock(l->priv)) < t && !trimsim_stop) {
		uint64_t d = t - c;
		struct timespec ts = { (time_t)(d / 1000000000u), (long)(d % 1000000000u) };

		nanosleep(&ts, NULL);
	}
}

/* Engine time of the policy's next timer (UINT64_MAX: none, or flushed, or asap); *dl: its trace time. */
static inline uint64_t timer_due(struct engine *e, uint64_t *dl)
{
	uint64_t d;

	if (!e->timers || e->flushed || e->cfg.timing != TIMING_TRACE)
		return UINT64_MAX;
	d = policy__next_deadline(e->pol);
	if (d != e->timer_dl) {	/* converted once per deadline */
		e->timer_dl = d;
		e->timer_te = to_engine(e, d);
	}
	*dl = d;
	return e->timer_te;
}

/*
 * The loop's next stop, at the latest next: the policy's next timer (*tp, its trace time
 * *dl) or a lane's next submission, whichever comes first. Asked again after a completion
 * a stage acted on: what it queued (chain sends the discards after a late serial point at
 * their trace times plus its lag) or the deadline it set (f2fs' discard thread wakes after
 * it) may be due before the stop the loop planned; without that the loop would reap on to
 * that stop and submit or fire there, late.
 */
static inline __attribute__((always_inline)) uint64_t loop_next(struct engine *e, unsigned n, uint64_t next,
								 uint64_t *tp, uint64_t *dl)
{
	*tp = timer_due(e, dl);
	next = *tp < next ? *tp : next;
	for (unsigned i = 0; i < n; i++) {
		uint64_t r = lane_ready(&e->lane[i]);

		next = r < next ? r : next;
	}
	return next;
}

/*
 * Processes completions, policy timers and queued commands in time order up to
 * engine time T. one: a single model lane in the loop (trace timing, where the
 * twin runs beside it, and asap before the twin's first command), a constant in
 * each of run_until()'s two calls, so that there the loops over lanes and the
 * real-time waits fall away at compile time and the lane's reap is inline (not
 * reap_from()'s call). Most calls reap one completion, or none, and take time to
 * T in one pass.
 */
static inline __attribute__((always_inline)) int run_until_as(struct engine *e, uint64_t T, bool one)
{
	const unsigned n = one ? 1 : e->nloop;

	for (;;) {
		uint64_t tp, dl = UINT64_MAX, next;
		bool queued = false;
		int ret;

		if (trimsim_stop)
			return efail(e, -EINTR, "%s", "interrupted");
		next = loop_next(e, n, T, &tp, &dl);
		while ((ret = !one ? reap_one(e, next) :
			      lane_next_done(&e->lane[0]) <= next ? reap_from_as(e, &e->lane[0], next, false) : 0) == 1)
			if (e->done_acts)
				next = loop_next(e, n, next, &tp, &dl);
		if (ret < 0)
			return ret;
		if (!one && e->realtime && next != UINT64_MAX)
			wait_clock(&e->lane[0], next);
		if (next == UINT64_MAX) {
			/* Everything in flight completed; what is queued for later can go now. */
			for (unsigned i = 0; i < n; i++)
				queued |= e->lane[i].fg_n || evq__len(&e->lane[i].dq);
			if (!queued)
				return 0;
			continue;
		}
		for (unsigned i = 0; i < n; i++)
			lane_sync(&e->lane[i], next);
		/*
		 * At --speed X the round trip trace -> engine -> trace time may land
		 * a nanosecond before the deadline: the timer must still fire (else
		 * this loop never moves on).
		 */
		if (tp <= next && (ret = policy__advance(e->pol, to_trace(e, tp) > dl ? to_trace(e, tp) : dl)))
			return efail(e, ret, "%s", policy__error(e->pol));
		for (unsigned i = 0; i < n; i++)
			if ((ret = dispatch(e, &e->lane[i])))
				return ret;
		note_queued(e);
		if (next >= T && tp > T)
			return 0;
	}
}

static int run_until(struct engine *e, uint64_t T)
{
	return !e->realtime && e->nloop == 1 ? run_until_as(e, T, true) : run_until_as(e, T, false);
}

static bool anything_queued(const struct engine *e)
{
	for (unsigned i = 0; i < e->nloop; i++)
		if (e->lane[i].fg_n || evq__len(&e->lane[i].dq))
			return true;
	return false;
}

/*
 * asap: before the next record, everything queued goes (backpressure on the
 * record stream). Time moves to the next completion or the next queued
 * command's time, whichever comes first.
 */
static int asap_drain(struct engine *e)
{
	int ret;

	/*
	 * Nothing is due here unless a clock moved by itself (real time): the last
	 * drain left nothing queued, and engine__feed() dispatched whatever a record
	 * queued after it; a direct submission (engine_sink()) makes nothing due.
	 */
	if (e->realtime && (ret = dispatch_all(e)))
		return ret;
	for (;;) {
		uint64_t t = UINT64_MAX;

		/* a stage that holds requests for a completion (chain) is a queue of its own */
		if (!anything_queued(e) && !(e->done_acts && policy__waits(e->pol)))
			return 0;
		for (unsigned i = 0; i < e->nloop; i++) {
			struct lane *l = &e->lane[i];
			uint64_t r = lane_ready(l), d = !e->realtime ? lane_next_done(l) : UINT64_MAX;

			t = r < t ? r : t;
			t = d < t ? d : t;
		}
		if (t != UINT64_MAX && !e->realtime) {
			/*
			 * run_until(e, t) inline: with no policy timer on the engine's
			 * clock (asap) and t at most every lane's ready time, it is one
			 * pass: the completions due by t, every lane's clock to t, dispatch.
			 */
			if (trimsim_stop)
				return efail(e, -EINTR, "%s", "interrupted");
			while ((ret = reap_one(e, t)) == 1)
				;
			if (ret < 0)
				return ret;
			for (unsigned i = 0; i < e->nloop; i++)
				lane_sync(&e->lane[i], t);
			if ((ret = dispatch_all(e)))
				return ret;
			note_queued(e);
			continue;
		}
		if (t != UINT64_MAX) {
			if ((ret = run_until(e, t)) || (ret = dispatch_all(e)))
				return ret;
			continue;
		}
		if ((ret = reap_one(e, UINT64_MAX)) < 0)	/* real-time, no room: wait for a completion */
			return ret;
		if (!ret && trimsim_stop)	/* the wait ended on SIGINT/SIGTERM */
			return efail(e, -EINTR, "%s", "interrupted");
		if (!ret)
			return efail(e, -EPROTO, "%s", "engine: queued commands cannot be dispatched");
		if ((ret = dispatch_all(e)))
			return ret;
	}
}

/* ---- policy output and trace input ---- */
int engine_sink(void *arg, const struct policy_event *ev)
{
	struct engine *e = arg;
	struct policy_event q;
	uint64_t hold = ev->time_ns > ev->freed_ns ? scale(e, ev->time_ns - ev->freed_ns) : 0;
	uint64_t ready = to_engine(e, ev->time_ns), freed = ready > hold ? ready - hold : 0;

	if (e->sink_direct && lane_takes_discard(&e->lane[0], ready))	/* no copy of the event */
		return submit_discard(e, &e->lane[0], ev, ready, freed);
	q = *ev;
	q.time_ns = ready;
	q.freed_ns = freed;
	e->queued++;
	return evq__push(&e->lane[0].dq, &q);
}

/* The application's own I/O: submitted through the target at trace time. */
static bool is_foreground(const struct ts_record *r)
{
	if (r->kind != TS_ISSUE)
		return false;
	if (r->op == TS_OP_FLUSH)
		return true;
	return r->length && (r->op == TS_OP_READ || r->op == TS_OP_WRITE || r->op == TS_OP_WRITE_ZEROES);
}

/* Foreground command tag (record r, engine time te) on lane i: submitted now or queued (*queued). */
static inline __attribute__((always_inline)) int fg_to_lane(struct engine *e, unsigned i, size_t tag,
							    const struct ts_record *r, uint64_t te, bool *queued)
{
	struct lane *l = &e->lane[i];
	struct fg_item it;
	int ret;

	if (i >= e->nloop) {	/* the twin beside the loop: to time te, as run_until() takes the real lane */
		if ((ret = twin_run(e, te)))
			return ret;
		lane_sync(l, te);
	}
	it = (struct fg_item){
		.tag = tag, .ready = e->cfg.timing == TIMING_ASAP ? l->now : te,
		.offset = r->offset, .length = r->length, .op = r->op, .flags = r->flags,
	};
	e->slots[tag].ready[i] = it.ready;
	/*
	 * A lane with room and nothing queued takes the command now: dispatch()
	 * would submit it first (it is due: ready is the lane's now, or te, which
	 * run_until() took the real lane to). The real lane only with no discard
	 * waiting (one ready before it would go first) and not in real time (its
	 * clock moves by itself). Lanes are separate targets: their order does not matter.
	 */
	if (!l->fg_n && l->inflight < l->max && (i >= e->nloop || (!e->realtime && !evq__len(&l->dq))))
		return submit_fg_item(e, l, &it);
	*queued = true;
	if (l->fg_n == l->fg_cap &&
	    (ret = grow_ring((void **)&l->fg, &l->fg_cap, &l->fg_head, l->fg_n, sizeof(*l->fg))))
		return ret;
	l->fg[(l->fg_head + l->fg_n++) & (l->fg_cap - 1)] = it;
	return 0;
}

/*
 * r at engine time te (trace timing; asap: each lane's now). Inline in both of
 * feed_as()'s bodies: every foreground record comes through here.
 */
static inline __attribute__((always_inline)) int enqueue_fg(struct engine *e, const struct ts_record *r,
							    uint64_t te)
{
	bool queued = false;
	size_t tag;
	int ret;

	/*
	 * asap: the twin stays out of the loop until its first command. Every pass of
	 * asap_drain() takes each lane's clock to the same time, and the real lane's
	 * completions come no later, so an idle twin's clock would be the real lane's.
	 */
	if (e->twin_idle) {
		e->twin_idle = false;
		lane_sync(&e->lane[1], e->lane[0].now);
		e->nloop = e->nlanes;
	}
	if ((ret = slot_alloc(e, &tag)))
		return ret;
	e->slots[tag].pending = e->nlanes > 1 ? 3 : 1;
	e->slots[tag].mc.klass = TC_FOREGROUND;
	e->slots[tag].mc.op = r->op;
	/* lane by lane, each a constant: the real lane, then the twin */
	if ((ret = fg_to_lane(e, 0, tag, r, te, &queued)) ||
	    (e->nlanes > 1 && (ret = fg_to_lane(e, 1, tag, r, te, &queued))))
		return ret;
	e->fg_records++;
	e->queued += queued;	/* engine__feed() dispatches only when something waits */
	return e->nloop < e->nlanes ? dispatch(e, &e->lane[1]) : 0;
}

/* Records ahead of the one being fed whose device discard the target is told to load (target_ops.prefetch). */
#define PREFETCH_AHEAD 16

/* The recorded command's run (engine__wall()): its first start and last stop. */
static void note_command(struct engine *e, const struct ts_record *rec)
{
	if (rec->op == TS_META_CMD_START && !e->cmd_started) {
		e->cmd_start = rec->time_ns;
		e->cmd_started = true;
	} else if (rec->op == TS_META_CMD_STOP && (!e->cmd_stopped || rec->time_ns > e->cmd_stop)) {
		e->cmd_stop = rec->time_ns;
		e->cmd_stopped = true;
	}
}

/* The first record of the replayed device: the origins of trace and engine time. */
static void engine_start(struct engine *e, uint64_t t0)
{
	const struct engine_observer *ob = e->cfg.observer;

	e->started = true;
	e->t0 = t0;
	for (unsigned k = 0; k < e->nlanes; k++) {
		lane_sync(&e->lane[k], 0);
		e->base = e->lane[k].now > e->base ? e->lane[k].now : e->base;
	}
	if (ob && ob->start)
		ob->start(ob->arg, e->t0, e->base);
}

/*
 * The first FREE reaches the reclaim figures: from now on an INTENT record is
 * reclaim-only no more. Unless the policy wants it or an observer sees records,
 * nothing reacts to it, and the skip in engine__feed() would take it each time:
 * it joins the idle kinds.
 */
static void first_free(struct engine *e, const struct engine_observer *ob)
{
	e->free_counted = true;
	if (e->idle_kinds && !(ob && ob->record) && !(e->wanted_kinds >> TS_INTENT & 1))
		e->idle_kinds |= 1u << TS_INTENT;
}

/*
 * engine__feed(). quick: trace timing and no observer, a constant in each of
 * engine__feed()'s two calls, so that there the tests of the timing and of the
 * observer's hooks fall away at compile time (a replay's usual case).
 */
static inline __attribute__((always_inline)) int feed_as(struct engine *e, const struct ts_record *recs, size_t n,
							 bool quick)
{
	const struct engine_observer *ob = quick ? NULL : e->cfg.observer;
	const bool asap = !quick && e->cfg.timing == TIMING_ASAP;
	void (*prefetch)(void *, uint64_t, uint64_t) = e->lane[0].ops->prefetch;
	/* the records whose PREFETCH_AHEAD-th successor is in this batch (none: no prefetch hook) */
	size_t pf_n = prefetch && n > PREFETCH_AHEAD ? n - PREFETCH_AHEAD : 0;
	/* trace timing, no observer of records: an idle kind is skipped at once */
	bool idle_quick = !asap && !(ob && ob->record);
	/* ... and a FREE the policy does not want goes straight to dfree (the skip below) */
	bool free_quick = idle_quick && e->skip_idle && !(e->wanted_kinds >> TS_FREE & 1);

	e->records += n;	/* an error ends the replay: no result counts them */
	for (size_t i = 0; i < n; i++) {
		const struct ts_record *rec = &recs[i];
		const struct ts_record *rp;
		struct ts_record r;
		uint64_t queued, te, t;
		bool fg, freed, reclaim, skip;
		int ret;

		if (i < pf_n && recs[i + PREFETCH_AHEAD].kind == TS_ISSUE &&
		    recs[i + PREFETCH_AHEAD].op == TS_OP_DISCARD)
			prefetch(e->lane[0].priv, recs[i + PREFETCH_AHEAD].offset, recs[i + PREFETCH_AHEAD].length);
		if (rec->kind == TS_META)	/* the command's start and stop name no device: noted whatever is replayed */
			note_command(e, rec);
		if (e->cfg.devno && rec->dev != e->cfg.devno)
			continue;
		policy_input_count(&e->input, rec);
		if (!e->started)
			engine_start(e, rec->time_ns);
		t = rec->time_ns;
		if (t < e->last_trace) {
			e->out_of_order++;
			t = e->last_trace;
		}
		e->last_trace = t;
		/*
		 * A kind nothing could react to (idle_kinds, engine_setup.c): as below, at
		 * once; with asap only while the policy is quiet.
		 */
		if (rec->kind < 32 && (e->idle_kinds >> rec->kind & 1)) {
			if (idle_quick)
				continue;
			if (!asap) {
				if (ob && ob->record)
					ob->record(ob->arg, rec);
				continue;
			}
			if (policy__quiet(e->pol)) {
				e->drain_owed = true;
				continue;
			}
		}
		/* what the skip below does with a FREE only the reclaim figures count, without its tests */
		if (rec->kind == TS_FREE && free_quick && e->dfree_n < DEFER_FREES &&
		    !ts_free_is_prealloc(rec, e->cfg.legacy_prealloc)) {
			if (!e->free_counted)
				first_free(e, ob);
			dfree_push(e, to_engine(e, t), rec->length, false);
			continue;
		}
		rp = rec;
		if (t != rec->time_ns) {	/* out of order: the record at the time it is replayed */
			r = *rec;
			r.time_ns = t;
			rp = &r;
		}
		fg = is_foreground(rp);
		freed = (rp->kind == TS_FREE && !ts_free_is_prealloc(rp, e->cfg.legacy_prealloc)) || rp->kind == TS_INTENT;
		/*
		 * A record nothing reacts to (not foreground, not the policy's source,
		 * no stage observes, no reclaim figure counts it) changes no state: what
		 * is due before it runs before the next record that matters, in the same
		 * order. INTENT's bytes reach the report only while no FREE was counted
		 * (free_counted: the reclaim figures are FREE's once there is one); an
		 * observer of records may count them itself.
		 * Trace timing: a record only the reclaim figures count skips the loop
		 * too: its free waits in dfree (dfree_apply()) unless an observer sees
		 * records.
		 * asap: the drain before the next record does what the one before this
		 * would have, in the same order; only the trace time the policy is told
		 * for those completions differs, so the policy must not care (no
		 * completion hook, no timer pending: policy__quiet()), nor an observer see
		 * the record, nor the reclaim figures count it.
		 */
		reclaim = freed && (rp->kind == TS_FREE || (ob && ob->record) || !e->free_counted);
		if (freed && rp->kind == TS_FREE && !e->free_counted)
			first_free(e, ob);
		/* what the timing allows first: policy__wants() only for a record that could skip */
		skip = e->skip_idle && !fg &&
		       (asap ? !reclaim && !(ob && ob->record) && policy__quiet(e->pol) :
						      !reclaim || (!(ob && ob->record) && e->dfree_n < DEFER_FREES)) &&
		       ((rp->kind < 32 && !(e->wanted_kinds >> rp->kind & 1)) || !policy__wants(e->pol, rp));
		if (skip && asap) {
			e->drain_owed = true;
			continue;
		}
		if (skip) {
			if (reclaim) {
				dfree_push(e, to_engine(e, rp->time_ns), rp->length, rp->kind == TS_INTENT);
				continue;
			}
			if (ob && ob->record)
				ob->record(ob->arg, rec);
			continue;
		}
		te = asap ? 0 : to_engine(e, rp->time_ns);
		e->drain_owed = false;
		ret = asap ? asap_drain(e) : run_until(e, te);
		if (ret)
			return ret;
		if (e->dfree_n && (ret = dfree_apply(e, UINT64_MAX)))
			return ret;
		queued = e->queued;
		if (ob && ob->record)
			ob->record(ob->arg, rec);
		/* after the completions due before it: the reclaim delay integrates in time order */
		if (freed && (ret = metrics__freed(e->m, asap ? e->lane[0].now : te,
						   rp->kind == TS_INTENT, rp->length)))
			return efail(e, ret, "%s", "engine: out of memory");
		/*
		 * What the record makes the policy emit goes at once when it would be
		 * dispatched next anyway (lane_takes_discard()): not for a foreground
		 * record, whose own command, queued after, goes first on a tie.
		 */
		if (!(fg && e->fg_unseen)) {
			e->sink_direct = !fg && !e->realtime;
			ret = policy__record(e->pol, rp);
			e->sink_direct = false;
			if (ret)
				return efail(e, ret, "%s", policy__error(e->pol));
		}
		if (fg && (ret = enqueue_fg(e, rp, te)))
			return efail(e, ret, "%s", "engine: out of memory");
		/* run_until() left nothing it could dispatch: only what this record queued can go */
		if (e->queued != queued && (ret = dispatch_all(e)))
			return ret;
	}
	return 0;
}

int engine__feed(struct engine *e, const struct ts_record *recs, size_t n)
{
	return e->cfg.timing == TIMING_TRACE && !e->cfg.observer ? feed_as(e, recs, n, true) : feed_as(e, recs, n, false);
}

bool engine__source_missing(const struct engine *e, char *why, size_t len)
{
	return policy_source_missing(policy__props(e->pol), &e->input, e->cfg.dev, why, len);
}

int engine__finish(struct engine *e)
{
	int ret;

	if (e->drain_owed && (ret = asap_drain(e)))	/* the drain the skipped last records would have run */
		return ret;
	/*
	 * Trace timing: what is due by the trace's end first, in time order, as the last
	 * records would have run it had nothing skipped them (an end-of-recording snapshot
	 * after a 300 ms settle): the flush moves the pipeline's clock to the end, and a
	 * completion reaped after it reached the stages at that time (chain released the
	 * discards held behind it there: ext4-discard-churn on sata-sf2281 ended 300 ms late).
	 */
	if (e->cfg.timing == TIMING_TRACE && e->started && (ret = run_until(e, to_engine(e, e->last_trace))))
		return ret;
	if ((ret = policy__flush(e->pol, e->last_trace)))
		return efail(e, ret, "%s", policy__error(e->pol));
	e->flushed = true;
	if ((ret = dispatch_all(e)) || (ret = run_until(e, UINT64_MAX)) || (ret = dfree_apply(e, UINT64_MAX)))
		return ret;
	if (e->nloop < e->nlanes && (ret = twin_run(e, UINT64_MAX)))
		return ret;
	for (unsigned i = 0; i < e->nlanes; i++)
		if (e->lane[i].inflight || e->lane[i].fg_n || evq__len(&e->lane[i].dq))
			return efail(e, -EPROTO, "%s", "engine: commands left undone at the end");
	if ((ret = metrics__finish(e->m, e->started ? to_engine(e, e->last_trace) : 0, e->base)))
		return efail(e, ret, "%s", "replay: out of memory");
	return 0;
}
