// SPDX-License-Identifier: GPL-2.0
/* report_probe: fills a report_cell from what a replay sees (see probe.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay/report/probe.h"
#include "replay/report/ranges.h"

#define FIRST_BIN_NS 1000000ull	/* 1 ms; doubles until the replay fits */

struct report_probe {
	struct report_cell *c;
	struct ranges *uniq;
	struct ranges *held;		/* foreground [submit, start) intervals */
	struct cell_lat wlat;		/* foreground write latency */
	uint64_t start_ns, last_rec_ns;
	uint64_t fg_last_done;		/* latest foreground completion */
	bool held_lost;			/* out of memory for the held intervals: fg_held_ns is a lower bound */
	uint64_t freed, intended, trimmed;
	bool saw_free, saw_intent;
	/* the trace's own discard commands: serial if none was issued while another was in flight */
	uint64_t rec_discards;
	unsigned rec_inflight;
	bool rec_overlap;
	/* free-not-yet-trimmed, two candidate sources, value at the end of each bin */
	uint64_t unt_free[SERIES_BINS], unt_intent[SERIES_BINS];
	uint8_t touched[SERIES_BINS];
	/* peak rate over aligned seconds */
	uint64_t sec, sec_cmds, sec_bytes;
};

unsigned cell_lat_bucket(uint64_t ns)
{
	if (ns < LAT_BASE_NS)
		return 0;
	double b = 1.0 + floor(log2((double)ns / LAT_BASE_NS) * LAT_PER_OCT);

	return b >= LAT_BUCKETS - 1 ? LAT_BUCKETS - 1 : (unsigned)b;
}

uint64_t cell_lat_bucket_upper(unsigned b)
{
	return (uint64_t)(LAT_BASE_NS * exp2((double)b / LAT_PER_OCT));
}

static uint64_t bucket_lower(unsigned b)
{
	return b ? cell_lat_bucket_upper(b - 1) : 0;
}

void cell_lat_add(struct cell_lat *l, uint64_t ns)
{
	if (!l->count || ns < l->min_ns)
		l->min_ns = ns;
	l->count++;
	l->sum_ns += ns;
	if (ns > l->max_ns)
		l->max_ns = ns;
	l->buckets[cell_lat_bucket(ns)]++;
}

uint64_t cell_lat_quantile(const struct cell_lat *l, double q)
{
	if (!l->count)
		return 0;
	double rank = q * l->count, seen = 0;

	for (unsigned b = 0; b < LAT_BUCKETS; b++) {
		if (!l->buckets[b])
			continue;
		if (seen + l->buckets[b] >= rank) {
			double lo = bucket_lower(b), hi = cell_lat_bucket_upper(b);
			double v = lo + (hi - lo) * (rank - seen) / l->buckets[b];

			if (v < l->min_ns)
				v = l->min_ns;
			return v > l->max_ns ? l->max_ns : (uint64_t)v;
		}
		seen += l->buckets[b];
	}
	return l->max_ns;
}

unsigned cell_size_bucket(uint64_t bytes)
{
	unsigned b = 0;

	while (b < SIZE_BUCKETS - 1 && bytes >= (SIZE_BASE << b))
		b++;
	return b;
}

struct report_probe *report_probe__new(struct report_cell *cell, uint64_t start_ns)
{
	struct report_probe *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->uniq = ranges__new();
	p->held = ranges__new();
	if (!p->uniq || !p->held) {
		ranges__destroy(p->uniq);
		ranges__destroy(p->held);
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->c = cell;
	p->start_ns = p->last_rec_ns = start_ns;
	cell->series.bin_ns = FIRST_BIN_NS;
	return p;
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

static unsigned bin_of(struct report_probe *p, uint64_t t)
{
	uint64_t rel = t > p->start_ns ? t - p->start_ns : 0;

	while (rel / p->c->series.bin_ns >= SERIES_BINS)
		fold(p);
	unsigned b = (unsigned)(rel / p->c->series.bin_ns);

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

void report_probe__record(struct report_probe *p, const struct ts_record *rec)
{
	if (rec->time_ns > p->last_rec_ns)
		p->last_rec_ns = rec->time_ns;
	if ((rec->kind == TS_ISSUE || rec->kind == TS_DONE) && rec->op == TS_OP_DISCARD) {
		if (rec->kind == TS_DONE) {
			p->rec_inflight -= p->rec_inflight > 0;
		} else {
			p->rec_discards++;
			p->rec_overlap |= p->rec_inflight++ > 0;
		}
		return;
	}
	if (rec->kind == TS_FREE && (rec->flags & TS_F_PREALLOC))
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
	note_untrimmed(p, rec->time_ns);
}

int report_probe__discard_ranges(struct report_probe *p, uint64_t offset, uint64_t length,
				 const struct target_seg *segs, uint32_t nr_segs)
{
	int err;

	if (!segs || nr_segs <= 1)
		return ranges__add(p->uniq, offset, length);
	for (uint32_t i = 0; i < nr_segs; i++)
		if ((err = ranges__add(p->uniq, segs[i].offset, segs[i].length)))
			return err;
	return 0;
}

static void peak_close_second(struct report_probe *p)
{
	struct report_cell *c = p->c;

	if (p->sec_cmds > c->peak_cmds_s)
		c->peak_cmds_s = p->sec_cmds;
	if (p->sec_bytes > c->peak_bytes_s)
		c->peak_bytes_s = p->sec_bytes;
}

static void discard_done(struct report_probe *p, const struct target_done *d)
{
	struct report_cell *c = p->c;
	uint64_t sec = (d->done_ns - (d->done_ns > p->start_ns ? p->start_ns : d->done_ns)) / 1000000000ull;
	unsigned b = bin_of(p, d->done_ns);
	uint64_t busy = d->done_ns > d->start_ns ? d->done_ns - d->start_ns : 0;

	c->cmds++;
	c->bytes += d->bytes;
	c->discard_ns += busy;
	cell_lat_add(&c->lat, d->done_ns > d->submit_ns ? d->done_ns - d->submit_ns : 0);
	c->size_hist[cell_size_bucket(d->bytes)]++;
	c->series.cmds[b]++;
	c->series.bytes[b] += d->bytes;
	c->series.busy_ns[b] += busy;
	if (sec != p->sec) {
		peak_close_second(p);
		p->sec = sec;
		p->sec_cmds = p->sec_bytes = 0;
	}
	p->sec_cmds++;
	p->sec_bytes += d->bytes;
	if (d->error)
		c->errors++;
	else {
		p->trimmed += d->freed;
		note_untrimmed(p, d->done_ns);
	}
}

void report_probe__done(struct report_probe *p, const struct target_done *d)
{
	struct report_cell *c = p->c;

	if (d->klass == TC_DISCARD) {
		discard_done(p, d);
		return;
	}
	c->fg_cmds++;
	c->fg_stall_ns += d->start_ns > d->submit_ns ? d->start_ns - d->submit_ns : 0;
	if (d->done_ns > p->fg_last_done)
		p->fg_last_done = d->done_ns;
	if (d->start_ns > d->submit_ns && ranges__add(p->held, d->submit_ns, d->start_ns - d->submit_ns))
		p->held_lost = true;
	if (d->op == TS_OP_WRITE)
		cell_lat_add(&p->wlat, d->done_ns > d->submit_ns ? d->done_ns - d->submit_ns : 0);
}

void report_probe__finish(struct report_probe *p, uint64_t end_ns)
{
	struct report_cell *c = p->c;
	struct cell_series *s = &c->series;
	bool use_free = p->saw_free || !p->saw_intent;
	uint64_t last = 0;

	peak_close_second(p);
	bin_of(p, end_ns);	/* the series spans the whole replay */
	for (unsigned i = 0; i < s->nbins; i++) {
		if (p->touched[i])
			last = use_free ? p->unt_free[i] : p->unt_intent[i];
		s->untrimmed[i] = last;
	}
	if (p->saw_free || p->saw_intent)
		c->have |= CH_UNTRIMMED;
	c->unique_bytes = ranges__unique(p->uniq);
	c->fg_held_ns = ranges__unique(p->held);
	c->lat_p50_ns = cell_lat_quantile(&c->lat, 0.50);
	c->lat_p99_ns = cell_lat_quantile(&c->lat, 0.99);
	c->lat_max_ns = c->lat.max_ns;
	if (p->wlat.count) {
		c->write_p99_ns = cell_lat_quantile(&p->wlat, 0.99);
		c->have |= CH_WRITE_P99;
	}
	c->wall_ns = p->last_rec_ns - p->start_ns;
	c->rec_serial = p->rec_discards >= 2 && !p->rec_overlap;
	c->makespan_ns = end_ns > p->start_ns ? end_ns - p->start_ns : 0;
	c->workload_ns = p->fg_last_done > p->start_ns ? p->fg_last_done - p->start_ns : 0;
	if (c->workload_ns < c->wall_ns)
		c->workload_ns = c->wall_ns;
}

void report_probe__destroy(struct report_probe *p)
{
	if (!p)
		return;
	ranges__destroy(p->uniq);
	ranges__destroy(p->held);
	free(p);
}
