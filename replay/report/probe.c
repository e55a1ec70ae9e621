// SPDX-License-Identifier: GPL-2.0
/* What the report takes from a replay: the engine's figures and an observer's series (see probe.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "traces/trace.h"
#include "traces/util.h"
#include "replay/engine/metrics.h"
#include "replay/report/probe.h"
#include "replay/policies/ivset.h"
#include "replay/report/ranges.h"

#define FIRST_BIN_NS 1000000ull	/* 1 ms; doubles until the replay fits */

/*
 * Discards the recorded command waited for in the trace, named by ranges of its records:
 * the ranges not yet matched by a replayed discard (one takes their bytes out), the
 * discards that matched, by tag while in flight, the union of their [submit, done) and
 * the last of their completions.
 * The set holds at most the ranges the records named and no command took yet.
 */
struct own_wait {
	struct ivset *ranges;
	uint8_t *tag;			/* per tag: 1 while a matching discard is in flight on it */
	size_t cap;
	struct ranges *wait;
	uint64_t last_done;		/* the latest completion of a matching discard (engine time) */
	bool lost;			/* out of memory: the wait is a lower bound */
};

static int own_init(struct own_wait *o)
{
	o->wait = ranges__new();
	o->ranges = ivset__new(true);
	return o->wait && o->ranges ? 0 : -ENOMEM;
}

static void own_destroy(struct own_wait *o)
{
	ranges__destroy(o->wait);
	ivset__destroy(o->ranges);
	free(o->tag);
}

static void own_note(struct own_wait *o, uint64_t off, uint64_t len)
{
	if (ivset__add(o->ranges, off, len, 0, 0))
		o->lost = true;
}

/* Whether [off, off + len) covers bytes of o's ranges not matched yet; takes them out. */
static bool own_covers(struct own_wait *o, uint64_t off, uint64_t len)
{
	if (!ivset__covered(o->ranges, off, len))
		return false;
	if (ivset__remove(o->ranges, off, len))
		o->lost = true;
	return true;
}

static void own_submit(struct own_wait *o, const struct target_cmd *cmd)
{
	bool hit = false;

	if (!ivset__count(o->ranges))
		return;
	if (cmd->nr_segs)
		for (uint32_t i = 0; i < cmd->nr_segs; i++)
			hit |= own_covers(o, cmd->segs[i].offset, cmd->segs[i].length);
	else
		hit = own_covers(o, cmd->offset, cmd->length);
	if (!hit)
		return;
	if (cmd->tag >= o->cap) {
		size_t had = o->cap;

		if (grow_array((void **)&o->tag, &o->cap, (size_t)cmd->tag + 1, 1)) {
			o->lost = true;
			return;
		}
		memset(o->tag + had, 0, o->cap - had);
	}
	o->tag[cmd->tag] = 1;
}

static void own_done(struct own_wait *o, const struct target_done *d)
{
	if (d->tag >= o->cap || !o->tag[d->tag])
		return;
	o->tag[d->tag] = 0;
	if (d->done_ns > o->last_done)
		o->last_done = d->done_ns;
	if (d->done_ns > d->submit_ns && ranges__add(o->wait, d->submit_ns, d->done_ns - d->submit_ns))
		o->lost = true;
}

struct report_probe {
	struct report_cell *c;
	struct ranges *held;		/* foreground [submit, start) intervals */
	bool legacy_prealloc;
	uint64_t t0, e0;		/* the first record's trace time and engine time: replay time 0 */
	uint64_t fg_last_done;		/* latest foreground completion */
	uint64_t fg_queue_ns;		/* sum of foreground start - submit */
	bool held_lost;			/* out of memory for the held intervals: fg_held_ns is a lower bound */
	uint64_t freed, intended, trimmed;	/* trimmed: bytes of discards done without error */
	bool saw_free, saw_intent;
	/* the trace's own discard commands: serial if none was issued while another was in flight */
	uint64_t rec_discards;
	unsigned rec_inflight;
	bool rec_overlap;
	struct own_wait fit;		/* the trace's own FITRIM: INTENT records flagged fitrim */
	struct own_wait wl;		/* the recorded command's own discards: BIO records flagged workload */
	/* free-not-yet-trimmed, two candidate sources, value at the end of each bin */
	uint64_t unt_free[SERIES_BINS], unt_intent[SERIES_BINS];
	uint8_t touched[SERIES_BINS];
};

unsigned cell_size_bucket(uint64_t bytes)
{
	unsigned b = 0;

	while (b < SIZE_BUCKETS - 1 && bytes >= (SIZE_BASE << b))
		b++;
	return b;
}

struct report_probe *report_probe__new(struct report_cell *cell, bool legacy_prealloc)
{
	struct report_probe *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (!(p->held = ranges__new()) || own_init(&p->fit) || own_init(&p->wl)) {
		report_probe__destroy(p);
		errno = ENOMEM;
		return NULL;
	}
	p->c = cell;
	p->legacy_prealloc = legacy_prealloc;
	cell->series.bin_ns = FIRST_BIN_NS;
	return p;
}

static uint64_t since(uint64_t t, uint64_t origin)
{
	return t > origin ? t - origin : 0;
}

/* Halve the resolution: pair up bins until t fits. */
static void fold(struct report_probe *p)
{
	struct cell_series *s = &p->c->series;

	for (unsigned i = 0; i < SERIES_BINS / 2; i++) {
		unsigned a = 2 * i, b = 2 * i + 1;

		s->cmds[i] = s->cmds[a] + s->cmds[b];
		s->bytes[i] = s->bytes[a] + s->bytes[b];
		s->busy_ns[i] = s->busy_ns[a] + s->busy_ns[b];
		p->unt_free[i] = p->touched[b] ? p->unt_free[b] : p->unt_free[a];
		p->unt_intent[i] = p->touched[b] ? p->unt_intent[b] : p->unt_intent[a];
		p->touched[i] = p->touched[a] | p->touched[b];
	}
	for (unsigned i = SERIES_BINS / 2; i < SERIES_BINS; i++) {
		s->cmds[i] = s->bytes[i] = s->busy_ns[i] = 0;
		p->unt_free[i] = p->unt_intent[i] = 0;
		p->touched[i] = 0;
	}
	s->bin_ns *= 2;
}

/* The bin of replay time t. */
static unsigned bin_of(struct report_probe *p, uint64_t t)
{
	while (t / p->c->series.bin_ns >= SERIES_BINS)
		fold(p);
	unsigned b = (unsigned)(t / p->c->series.bin_ns);

	if (b + 1 > p->c->series.nbins)
		p->c->series.nbins = b + 1;
	return b;
}

static void note_untrimmed(struct report_probe *p, uint64_t t)
{
	unsigned b = bin_of(p, t);

	p->unt_free[b] = p->freed - (p->trimmed < p->freed ? p->trimmed : p->freed);
	p->unt_intent[b] = p->intended - (p->trimmed < p->intended ? p->trimmed : p->intended);
	p->touched[b] = 1;
}

static void on_start(void *arg, uint64_t trace_ns, uint64_t engine_ns)
{
	struct report_probe *p = arg;

	p->t0 = trace_ns;
	p->e0 = engine_ns;
}

static void on_record(void *arg, const struct ts_record *rec)
{
	struct report_probe *p = arg;

	if ((rec->kind == TS_ISSUE || rec->kind == TS_DONE) && rec->op == TS_OP_DISCARD) {
		if (rec->kind == TS_DONE) {
			p->rec_inflight -= p->rec_inflight > 0;
		} else {
			p->rec_discards++;
			p->rec_overlap |= p->rec_inflight++ > 0;
		}
		return;
	}
	if (rec->kind == TS_INTENT && (rec->flags & TS_F_FITRIM))
		own_note(&p->fit, rec->offset, rec->length);
	if (rec->kind == TS_BIO && rec->op == TS_OP_DISCARD) {
		p->c->rec_bios++;
		p->c->rec_bios_own += (rec->flags & TS_F_WORKLOAD) != 0;
	}
	if (rec->kind == TS_BIO && (rec->flags & TS_F_WORKLOAD))
		own_note(&p->wl, rec->offset, rec->length);
	if (ts_free_is_prealloc(rec, p->legacy_prealloc))
		return;	/* given back unused: never written, nothing for the device to unmap */
	if (rec->kind == TS_FREE) {
		p->freed += rec->length;
		p->saw_free = true;
	} else if (rec->kind == TS_INTENT) {
		p->intended += rec->length;
		p->saw_intent = true;
	} else {
		return;
	}
	note_untrimmed(p, since(rec->time_ns, p->t0));
}

/*
 * A discard that covers ranges the recorded command waited for: its fstrim's FITRIM, or
 * its own discards (REPORT-SCHEMA.md `discard_wait_ns`). Only traces with FITRIM or
 * workload records get past the first test of own_submit().
 */
static int on_submit(void *arg, const struct target_cmd *cmd)
{
	struct report_probe *p = arg;

	if (cmd->klass != TC_DISCARD)
		return 0;
	own_submit(&p->fit, cmd);
	own_submit(&p->wl, cmd);
	return 0;
}

static void discard_done(struct report_probe *p, const struct target_done *d)
{
	struct cell_series *s = &p->c->series;
	uint64_t done = since(d->done_ns, p->e0);
	unsigned b = bin_of(p, done);

	own_done(&p->fit, d);
	own_done(&p->wl, d);
	/* a failed discard took device time and discarded nothing (RESULT.md, "Failed commands") */
	s->busy_ns[b] += d->done_ns > d->start_ns ? d->done_ns - d->start_ns : 0;
	if (d->error)
		return;
	s->cmds[b]++;
	s->bytes[b] += d->bytes;
	/* told the device about its bytes, mapped in a model or not: metrics.c's reclaim */
	p->trimmed += d->bytes;
	note_untrimmed(p, done);
}

static void on_done(void *arg, const struct target_done *d)
{
	struct report_probe *p = arg;
	uint64_t submit = since(d->submit_ns, p->e0), start = since(d->start_ns, p->e0);
	uint64_t done = since(d->done_ns, p->e0);

	if (d->klass == TC_DISCARD) {
		discard_done(p, d);
		return;
	}
	p->fg_queue_ns += start > submit ? start - submit : 0;
	if (done > p->fg_last_done)
		p->fg_last_done = done;
	if (start > submit && ranges__add(p->held, submit, start - submit))
		p->held_lost = true;
}

void report_probe__observer(struct report_probe *p, struct engine_observer *ob)
{
	*ob = (struct engine_observer){ .arg = p, .start = on_start, .record = on_record, .submit = on_submit,
					.done = on_done };
}

void report_probe__finish(struct report_probe *p)
{
	struct report_cell *c = p->c;
	struct cell_series *s = &c->series;
	bool use_free = p->saw_free || !p->saw_intent;
	uint64_t last = 0;

	bin_of(p, c->makespan_ns);	/* the series spans the whole replay */
	for (unsigned i = 0; i < s->nbins; i++) {
		if (p->touched[i])
			last = use_free ? p->unt_free[i] : p->unt_intent[i];
		s->untrimmed[i] = last;
	}
	if (p->saw_free || p->saw_intent)
		c->have |= CH_UNTRIMMED;
	c->fg_held_ns = ranges__unique(p->held);
	if (!(c->have & CH_TWIN))
		c->fg_stall_ns = p->fg_queue_ns;
	c->rec_serial = p->rec_discards >= 2 && !p->rec_overlap;
	c->d_fitrim_ns = ranges__unique(p->fit.wait);
	c->d_own_ns = ranges__unique(p->wl.wait);
	c->d_fitrim_end_ns = p->fit.last_done ? since(p->fit.last_done, p->e0) : 0;
	c->d_own_end_ns = p->wl.last_done ? since(p->wl.last_done, p->e0) : 0;
	c->fg_end_ns = c->workload_ns = p->fg_last_done > c->trace_end_ns ? p->fg_last_done : c->trace_end_ns;
}

void report_probe__destroy(struct report_probe *p)
{
	if (!p)
		return;
	ranges__destroy(p->held);
	own_destroy(&p->fit);
	own_destroy(&p->wl);
	free(p);
}

/* ---- the engine's figures ---- */

static uint64_t p99(const struct hist *h)
{
	return hist_quantile(h, 0.99);
}

void report_cell__from_metrics(struct report_cell *c, const struct metrics *m, bool twin)
{
	const struct hist *lat = metrics__latency(m, TS_OP_DISCARD), *sizes = metrics__command_bytes(m);
	const struct hist *w = metrics__fg_latency(m, TS_OP_WRITE), *wb = metrics__twin_latency(m, TS_OP_WRITE);
	const struct hist *rd = metrics__fg_latency(m, TS_OP_READ), *rb = metrics__twin_latency(m, TS_OP_READ);
	struct metrics_totals t;

	metrics__totals(m, &t);
	c->cmds = t.d_cmds;
	c->requests = t.d_requests;
	c->errors = t.d_errors;
	c->bytes = t.d_bytes;
	c->unique_bytes = t.d_unique;
	c->discard_ns = t.d_busy_ns;
	c->peak_cmds_s = t.d_peak_cmds_s;
	c->peak_bytes_s = t.d_peak_bytes_s;
	c->d_held_ns = t.d_held_ns;
	c->d_waited_ns = t.d_waited_ns;
	c->reclaim_freed = t.reclaim_freed;
	c->reclaim_byte_s = t.reclaim_byte_s;
	c->fg_cmds = t.fg_cmds;
	c->makespan_ns = t.makespan_ns;
	c->lat = (struct cell_lat){ .count = lat->n, .min_ns = lat->n ? lat->min : 0, .max_ns = lat->max,
				    .sum_ns = lat->sum > UINT64_MAX ? UINT64_MAX : (uint64_t)lat->sum };
	if (lat->b)
		memcpy(c->lat.buckets, lat->b, sizeof(c->lat.buckets));
	c->lat_p50_ns = hist_quantile(lat, 0.50);
	c->lat_p99_ns = p99(lat);
	c->lat_max_ns = lat->n ? lat->max : 0;
	/* power-of-two size buckets: each of the histogram's buckets lies within one (hist.h) */
	memset(c->size_hist, 0, sizeof(c->size_hist));
	for (unsigned i = 0; sizes->b && i < HIST_BUCKETS; i++)
		if (sizes->b[i]) {
			uint64_t lo, hi;

			hist_bucket_range(i, &lo, &hi);
			c->size_hist[cell_size_bucket(lo)] += sizes->b[i];
		}
	if (w->n) {
		c->write_p99_ns = p99(w);
		c->have |= CH_WRITE_P99;
	}
	if (rd->n) {
		c->read_p99_ns = p99(rd);
		c->have |= CH_READ_P99;
	}
	if (twin) {
		c->have |= CH_TWIN;
		c->fg_stall_ns = t.stall_ns;
		if (wb->n)
			c->write_p99_base_ns = p99(wb);
		if (rb->n)
			c->read_p99_base_ns = p99(rb);
	}
}
