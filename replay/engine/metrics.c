// SPDX-License-Identifier: GPL-2.0
/* The metrics core (metrics.h, RESULT.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine/covmap.h"
#include "replay/engine/metrics.h"
#include "traces/trace.h"

#define NS_PER_S 1000000000ull
#define UNIQUE_BATCH 256	/* discarded ranges buffered before they go into the coverage map */
#define ERRNO_SLOTS 160		/* errno values counted one by one (Linux's end at EHWPOISON, 133); the rest share the last */

struct busy {
	unsigned inflight;
	uint64_t since, total;
};

/*
 * A running union of time intervals that come roughly in start order (a discard's
 * [ready, submit) at its submit, [ready, done) at its completion): one open run and a
 * floor below which time is already counted, so an interval that starts early never
 * counts twice; what it reaches below the floor is left out (an undercount only for
 * commands released out of order). O(1) memory whatever the trace length.
 */
struct tunion {
	uint64_t s, e, floor, total;
};

static void tunion_add(struct tunion *u, uint64_t a, uint64_t b)
{
	if (a < u->floor)
		a = u->floor;
	if (b <= a)
		return;
	if (u->e <= u->s) {
		u->s = a, u->e = b;
	} else if (a > u->e) {
		u->total += u->e - u->s;
		u->floor = u->e;
		u->s = a, u->e = b;
	} else {
		u->s = a < u->s ? a : u->s;
		u->e = b > u->e ? b : u->e;
	}
}

static uint64_t tunion_ns(const struct tunion *u)
{
	return u->total + (u->e > u->s ? u->e - u->s : 0);
}

/*
 * A sum of a long double's, kept in an integer while it is below 2^64: a long double
 * holds every such integer (and every product below 2^64) exactly, so its sums were
 * these; from the first term that would pass, it goes on in long doubles as before.
 * Integer adds, not x87 loads and stores of 80-bit values, for each term.
 */
struct lsum {
	uint64_t u;
	bool is_ld;
	long double ld;		/* once is_ld */
};

static void lsum_to_ld(struct lsum *s)
{
	if (!s->is_ld) {
		s->ld = s->u;
		s->is_ld = true;
	}
}

static void lsum_add(struct lsum *s, uint64_t v)
{
	if (!s->is_ld && v <= UINT64_MAX - s->u) {
		s->u += v;
		return;
	}
	lsum_to_ld(s);
	s->ld += v;
}

/* += a x b, the product as (long double)a * (long double)b */
static void lsum_add_product(struct lsum *s, uint64_t a, uint64_t b)
{
	uint64_t p;

	if (!s->is_ld && !__builtin_mul_overflow(a, b, &p) && p <= UINT64_MAX - s->u) {
		s->u += p;
		return;
	}
	lsum_to_ld(s);
	s->ld += (long double)a * (long double)b;
}

static long double lsum_get(const struct lsum *s)
{
	return s->is_ld ? s->ld : (long double)s->u;
}

/*
 * Reclaim delay: the integral over time of freed bytes the device has not been told
 * about, max(0, freed - discarded), in byte-seconds (a discard that completed without
 * error told the device about its bytes, whether or not a model had them mapped). Kept for both fs-level layers
 * (FREE, and INTENT for traces without FREE records); the JSON reports FREE's when
 * the trace has any, as report/probe.c's untrimmed series does.
 */
struct reclaim_side {
	uint64_t freed;
	bool seen;
	struct lsum area;	/* byte-ns */
};

struct reclaim {
	struct reclaim_side side[2];	/* 0: FREE, 1: INTENT */
	uint64_t trimmed;		/* bytes of the discards that completed without error */
	uint64_t last;			/* engine time integrated up to */
};

struct rate_win {
	uint64_t sec, cmds, bytes;	/* the current one-second window */
	uint64_t sec_ns;		/* sec * NS_PER_S: t in the same window needs no division */
	uint64_t peak_cmds, peak_bytes;
	uint64_t peak_cmds_at, peak_bytes_at;
};

struct metrics {
	struct hist lat[TS_OP_MAX + 1];		/* done - submit, per op class */
	struct hist service[TS_OP_MAX + 1];	/* done - start */
	struct hist base[TS_OP_MAX + 1];	/* foreground on the shadow target: done - ready */
	struct hist app[TS_OP_MAX + 1];		/* foreground: done - ready (what the application waited) */
	struct hist free_delay;			/* discard submit - freed */
	struct hist queue_delay;		/* discard submit - ready (dispatch queueing) */
	struct hist cmd_size;			/* discard bytes per command */
	struct covmap *unique;			/* unique discarded bytes */
	struct covmap_range pend[UNIQUE_BATCH];	/* ranges not yet in unique (flushed when full and by finish) */
	unsigned npend;
	struct busy all, discard;
	struct tunion d_held;			/* discards: [ready, submit), the submitter waited for room */
	struct tunion d_waited;			/* discards: [ready, done), a synchronous submitter's wait */
	struct rate_win rate;
	struct reclaim reclaim;
	uint64_t d_cmds, d_bytes, d_requests, d_freed, d_dev_cmds, d_errors, d_segs;
	uint64_t fg_cmds, fg_bytes, fg_errors;
	uint64_t by_errno[2][ERRNO_SLOTS];	/* failed commands per class (enum target_class) and -error */
	uint64_t stall_ns, stalled_cmds, base_pairs;
	struct lsum lat_sum_pairs, base_sum_pairs;
	uint64_t end_ns, last_done;
};

/* Applies fn to every histogram m holds: the one list of them, for new and free. */
static void each_hist(struct metrics *m, void (*fn)(struct hist *))
{
	for (unsigned i = 0; i <= TS_OP_MAX; i++) {
		fn(&m->lat[i]);
		fn(&m->service[i]);
		fn(&m->base[i]);
		fn(&m->app[i]);
	}
	fn(&m->free_delay);
	fn(&m->queue_delay);
	fn(&m->cmd_size);
}

struct metrics *metrics__new(void)
{
	struct metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	each_hist(m, hist_init);
	if (!(m->unique = covmap__new())) {
		free(m);
		return NULL;
	}
	return m;
}

void metrics__free(struct metrics *m)
{
	if (!m)
		return;
	each_hist(m, hist_free);
	covmap__free(m->unique);
	free(m);
}

static void busy_up(struct busy *b, uint64_t t)
{
	if (!b->inflight++)
		b->since = t;
}

static void busy_down(struct busy *b, uint64_t t)
{
	if (b->inflight && !--b->inflight)
		b->total += t > b->since ? t - b->since : 0;
}

static void rate_add(struct rate_win *r, uint64_t t, uint64_t bytes)
{
	uint64_t sec = r->sec;

	if (t - r->sec_ns >= NS_PER_S) {	/* another second (t before sec_ns wraps): one division */
		sec = t / NS_PER_S;
		r->sec_ns = sec * NS_PER_S;
		if (sec != r->sec)
			r->sec = sec, r->cmds = r->bytes = 0;
	}
	r->cmds++;
	r->bytes += bytes;
	if (r->cmds > r->peak_cmds)
		r->peak_cmds = r->cmds, r->peak_cmds_at = sec;
	if (r->bytes > r->peak_bytes)
		r->peak_bytes = r->bytes, r->peak_bytes_at = sec;
}

static int flush_unique(struct metrics *m)
{
	int ret = covmap__add_many(m->unique, m->pend, m->npend, NULL);

	m->npend = 0;
	return ret;
}

static uint64_t untrimmed(const struct reclaim *r, unsigned k)
{
	return r->side[k].freed > r->trimmed ? r->side[k].freed - r->trimmed : 0;
}

/* Integrates up to t (no earlier than the last call: a late event counts from the last). */
static void reclaim_advance(struct reclaim *r, uint64_t t)
{
	if (t <= r->last)
		return;
	for (unsigned k = 0; k < 2; k++)
		if (untrimmed(r, k))	/* adding 0 changes nothing: no x87 work */
			lsum_add_product(&r->side[k].area, untrimmed(r, k), t - r->last);
	r->last = t;
}

int metrics__freed(struct metrics *m, uint64_t t_ns, bool intent, uint64_t bytes)
{
	struct reclaim_side *s = &m->reclaim.side[intent];

	reclaim_advance(&m->reclaim, t_ns);
	s->seen = true;
	s->freed += bytes;
	return 0;
}

int metrics__submit(struct metrics *m, const struct metrics_cmd *c)
{
	int ret = 0;

	busy_up(&m->all, c->submit_ns);
	if (c->klass != TC_DISCARD) {
		m->fg_cmds++;
		m->fg_bytes += c->bytes;
		return 0;
	}
	busy_up(&m->discard, c->submit_ns);
	m->d_cmds++;
	m->d_bytes += c->bytes;
	m->d_requests += c->count;
	m->d_segs += c->nr_segs ? c->nr_segs : 1;
	rate_add(&m->rate, c->submit_ns, c->bytes);
	for (uint32_t i = 0; i < (c->nr_segs ? c->nr_segs : 1); i++) {
		if (m->npend == UNIQUE_BATCH && (ret = flush_unique(m)))
			return ret;
		m->pend[m->npend++] = (struct covmap_range){ c->segs[i].offset, c->segs[i].length };
	}
	if (c->freed_ns && c->submit_ns >= c->freed_ns)
		ret = hist_add(&m->free_delay, c->submit_ns - c->freed_ns);
	if (!ret && c->submit_ns >= c->ready_ns)
		ret = hist_add(&m->queue_delay, c->submit_ns - c->ready_ns);
	tunion_add(&m->d_held, c->ready_ns, c->submit_ns);
	if (!ret)
		ret = hist_add(&m->cmd_size, c->bytes);
	return ret;
}

/*
 * A failed command (RESULT.md, "Failed commands") was sent and took its time: it counts
 * where the policy's output and the time spent are described (counts, bytes, rates, busy,
 * waits), and by errno; never as done work: no latency or service time of its op class
 * (an EOPNOTSUPP discard rejected at once is not a fast discard), no freed or unmapped bytes.
 */
int metrics__done(struct metrics *m, const struct metrics_cmd *c, const struct target_done *d)
{
	unsigned op = c->op <= TS_OP_MAX ? c->op : TS_OP_NONE;
	int ret;

	if (d->error)
		m->by_errno[c->klass == TC_DISCARD][-d->error > 0 && -d->error < ERRNO_SLOTS ? -d->error
										       : ERRNO_SLOTS - 1]++;
	busy_down(&m->all, d->done_ns);
	m->last_done = d->done_ns > m->last_done ? d->done_ns : m->last_done;
	if (c->klass == TC_DISCARD) {
		busy_down(&m->discard, d->done_ns);
		tunion_add(&m->d_waited, c->ready_ns, d->done_ns);
		m->d_dev_cmds += d->dev_cmds;
		m->d_errors += d->error != 0;
		if (d->error)
			return 0;
		m->d_freed += d->freed;
		reclaim_advance(&m->reclaim, d->done_ns);
		m->reclaim.trimmed += d->bytes;
	} else {
		m->fg_errors += d->error != 0;
		if (d->error)
			return 0;
		ret = hist_add(&m->app[op], d->done_ns > c->ready_ns ? d->done_ns - c->ready_ns : 0);
		if (ret)
			return ret;
	}
	if ((ret = hist_add(&m->lat[op], d->done_ns >= c->submit_ns ? d->done_ns - c->submit_ns : 0)))
		return ret;
	return hist_add(&m->service[op], d->done_ns >= d->start_ns ? d->done_ns - d->start_ns : 0);
}

int metrics__baseline(struct metrics *m, uint8_t op, uint64_t lat_ns, uint64_t base_ns)
{
	m->base_pairs++;
	lsum_add(&m->lat_sum_pairs, lat_ns);
	lsum_add(&m->base_sum_pairs, base_ns);
	/* selects, not a branch: which of the two lanes was slower is a coin toss on a mix of writes and discards */
	m->stall_ns += lat_ns > base_ns ? lat_ns - base_ns : 0;
	m->stalled_cmds += lat_ns > base_ns;
	return hist_add(&m->base[op <= TS_OP_MAX ? op : 0], base_ns);
}

int metrics__finish(struct metrics *m, uint64_t end_ns, uint64_t origin_ns)
{
	end_ns = end_ns > m->last_done ? end_ns : m->last_done;
	reclaim_advance(&m->reclaim, end_ns);
	m->end_ns = end_ns > origin_ns ? end_ns - origin_ns : 0;
	return flush_unique(m);
}

static double ratio(long double a, long double b)
{
	return b > 0 ? (double)(a / b) : 0;
}

static const char *errno_name(unsigned e, char *buf, size_t len)
{
	const char *n = e < ERRNO_SLOTS - 1 ? strerrorname_np((int)e) : NULL;

	if (n)
		return n;
	snprintf(buf, len, e < ERRNO_SLOTS - 1 ? "errno %u" : "other", e);
	return buf;
}

/* {"ENOSPC": 3280, ...}: failed commands of one class per errno; NULL when none failed. */
static json_t *errno_json(const uint64_t *by)
{
	json_t *o = NULL;
	char buf[32];

	for (unsigned e = 0; e < ERRNO_SLOTS; e++)
		if (by[e] && (o || (o = json_object())))
			json_object_set_new(o, errno_name(e, buf, sizeof(buf)), json_integer((json_int_t)by[e]));
	return o;
}

uint64_t metrics__failed(const struct metrics *m, char *summary, size_t len)
{
	uint64_t all[ERRNO_SLOTS], total = 0;
	size_t used = 0;
	char buf[32];

	if (len)
		summary[0] = '\0';
	for (unsigned e = 0; e < ERRNO_SLOTS; e++) {
		all[e] = m->by_errno[0][e] + m->by_errno[1][e];
		total += all[e];
	}
	for (unsigned e = 0; e < ERRNO_SLOTS && used < len; e++)
		if (all[e])
			used += (size_t)snprintf(summary + used, len - used, "%s%s %llu", used ? ", " : "",
						 errno_name(e, buf, sizeof(buf)), (unsigned long long)all[e]);
	return total;
}

uint64_t metrics__commands(const struct metrics *m)
{
	return m->d_cmds + m->fg_cmds;
}

static json_t *discard_json(const struct metrics *m)
{
	json_t *o = json_object();
	uint64_t uniq = covmap__bytes(m->unique);

	json_object_set_new(o, "commands", json_integer((json_int_t)m->d_cmds));
	json_object_set_new(o, "requests", json_integer((json_int_t)m->d_requests));
	json_object_set_new(o, "ranges", json_integer((json_int_t)m->d_segs));
	json_object_set_new(o, "bytes", json_integer((json_int_t)m->d_bytes));
	json_object_set_new(o, "unique_bytes", json_integer((json_int_t)uniq));
	json_object_set_new(o, "redundancy", json_real(ratio(m->d_bytes, uniq)));
	json_object_set_new(o, "mean_bytes", json_real(ratio(m->d_bytes, m->d_cmds)));
	json_object_set_new(o, "device_freed_bytes", json_integer((json_int_t)m->d_freed));
	json_object_set_new(o, "device_commands", json_integer((json_int_t)m->d_dev_cmds));
	json_object_set_new(o, "errors", json_integer((json_int_t)m->d_errors));
	if (m->d_errors)	/* only then: results without failures keep their bytes */
		json_object_set_new(o, "errors_by_errno", errno_json(m->by_errno[1]));
	json_object_set_new(o, "busy_ns", json_integer((json_int_t)m->discard.total));
	json_object_set_new(o, "held_ns", json_integer((json_int_t)tunion_ns(&m->d_held)));
	json_object_set_new(o, "waited_ns", json_integer((json_int_t)tunion_ns(&m->d_waited)));
	json_object_set_new(o, "peak_commands_per_s", json_integer((json_int_t)m->rate.peak_cmds));
	json_object_set_new(o, "peak_bytes_per_s", json_integer((json_int_t)m->rate.peak_bytes));
	json_object_set_new(o, "free_to_discard", hist_json(&m->free_delay, "ns"));
	json_object_set_new(o, "dispatch_wait", hist_json(&m->queue_delay, "ns"));
	json_object_set_new(o, "command_bytes", hist_json(&m->cmd_size, "bytes"));
	return o;
}

/* The side the reclaim figures report: FREE records when the trace has any, else INTENT. */
static unsigned reclaim_side(const struct reclaim *r)
{
	return r->side[0].seen || !r->side[1].seen ? 0 : 1;
}

static double reclaim_byte_s(const struct reclaim *r)
{
	return (double)(lsum_get(&r->side[reclaim_side(r)].area) / 1e9L);
}

static json_t *reclaim_json(const struct metrics *m)
{
	const struct reclaim *r = &m->reclaim;
	unsigned k = reclaim_side(r);
	json_t *o = json_object();

	json_object_set_new(o, "source", json_string(r->side[k].seen ? (k ? "intent" : "free") : "none"));
	json_object_set_new(o, "freed_bytes", json_integer((json_int_t)r->side[k].freed));
	json_object_set_new(o, "untrimmed_bytes", json_integer((json_int_t)untrimmed(r, k)));
	json_object_set_new(o, "byte_s", json_real(reclaim_byte_s(r)));
	return o;
}

static json_t *foreground_json(const struct metrics *m)
{
	json_t *o = json_object();

	json_object_set_new(o, "commands", json_integer((json_int_t)m->fg_cmds));
	json_object_set_new(o, "bytes", json_integer((json_int_t)m->fg_bytes));
	json_object_set_new(o, "errors", json_integer((json_int_t)m->fg_errors));
	if (m->fg_errors)
		json_object_set_new(o, "errors_by_errno", errno_json(m->by_errno[0]));
	json_object_set_new(o, "baseline_pairs", json_integer((json_int_t)m->base_pairs));
	json_object_set_new(o, "stall_ns", json_integer((json_int_t)m->stall_ns));
	json_object_set_new(o, "stalled_commands", json_integer((json_int_t)m->stalled_cmds));
	json_object_set_new(o, "latency_inflation",
			    json_real(ratio(lsum_get(&m->lat_sum_pairs), lsum_get(&m->base_sum_pairs))));
	return o;
}

int metrics__to_json(const struct metrics *m, json_t *obj)
{
	json_t *lat = json_object(), *base = json_object(), *dev = json_object(), *app = json_object();

	if (!lat || !base || !dev || !app) {
		json_decref(lat), json_decref(base), json_decref(dev), json_decref(app);
		return -ENOMEM;
	}
	for (unsigned i = 1; i <= TS_OP_MAX; i++) {
		if (m->lat[i].n) {
			json_t *h = hist_json(&m->lat[i], "ns");

			json_object_set_new(h, "service", hist_json(&m->service[i], "ns"));
			json_object_set_new(lat, ts_op_name(i), h);
		}
		if (m->base[i].n)
			json_object_set_new(base, ts_op_name(i), hist_json(&m->base[i], "ns"));
		if (m->app[i].n)
			json_object_set_new(app, ts_op_name(i), hist_json(&m->app[i], "ns"));
	}
	json_object_set_new(dev, "busy_ns", json_integer((json_int_t)m->all.total));
	json_object_set_new(dev, "utilization", json_real(ratio(m->all.total, m->end_ns)));
	json_object_set_new(obj, "discard", discard_json(m));
	json_object_set_new(obj, "foreground", foreground_json(m));
	json_object_set_new(obj, "reclaim", reclaim_json(m));
	json_object_set_new(json_object_get(obj, "foreground"), "baseline_latency", base);
	json_object_set_new(json_object_get(obj, "foreground"), "latency", app);
	json_object_set_new(obj, "latency", lat);
	json_object_set_new(obj, "device", dev);
	json_object_set_new(obj, "makespan_ns", json_integer((json_int_t)m->end_ns));
	return 0;
}

uint64_t metrics__discard_cmds(const struct metrics *m) { return m->d_cmds; }
uint64_t metrics__discard_bytes(const struct metrics *m) { return m->d_bytes; }
uint64_t metrics__unique_bytes(const struct metrics *m) { return covmap__bytes(m->unique); }
uint64_t metrics__makespan(const struct metrics *m) { return m->end_ns; }
const struct hist *metrics__latency(const struct metrics *m, unsigned op)
{
	return op <= TS_OP_MAX ? &m->lat[op] : NULL;
}

const struct hist *metrics__fg_latency(const struct metrics *m, unsigned op)
{
	return op <= TS_OP_MAX ? &m->app[op] : NULL;
}

const struct hist *metrics__twin_latency(const struct metrics *m, unsigned op)
{
	return op <= TS_OP_MAX ? &m->base[op] : NULL;
}

const struct hist *metrics__command_bytes(const struct metrics *m) { return &m->cmd_size; }

void metrics__totals(const struct metrics *m, struct metrics_totals *t)
{
	*t = (struct metrics_totals){
		.d_cmds = m->d_cmds, .d_requests = m->d_requests, .d_bytes = m->d_bytes,
		.d_unique = covmap__bytes(m->unique), .d_errors = m->d_errors, .d_busy_ns = m->discard.total,
		.d_held_ns = tunion_ns(&m->d_held), .d_waited_ns = tunion_ns(&m->d_waited),
		.d_peak_cmds_s = m->rate.peak_cmds, .d_peak_bytes_s = m->rate.peak_bytes,
		.fg_cmds = m->fg_cmds, .stall_ns = m->stall_ns, .makespan_ns = m->end_ns,
		.reclaim_freed = m->reclaim.side[reclaim_side(&m->reclaim)].freed,
		.reclaim_byte_s = reclaim_byte_s(&m->reclaim),
	};
}
