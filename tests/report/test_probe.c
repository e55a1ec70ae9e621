// SPDX-License-Identifier: GPL-2.0
/*
 * What a cell takes from a replay, on inputs whose answers are known: the
 * engine's figures (report_cell__from_metrics), the probe's series through
 * its observer hooks, and the range union the held time uses.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>

#include "replay/engine/metrics.h"
#include "replay/report/probe.h"
#include "replay/report/ranges.h"

struct rng_case {
	char name[32];
	uint64_t r[8][2];	/* offset, length */
	int n;
	uint64_t unique;
	size_t extents;
};

ParameterizedTestParameters(ranges, union)
{
	static struct rng_case cases[] = {
		{ .name = "disjoint", .r = { { 0, 10 }, { 20, 10 } }, .n = 2, .unique = 20, .extents = 2 },
		{ .name = "same twice", .r = { { 100, 50 }, { 100, 50 } }, .n = 2, .unique = 50, .extents = 1 },
		{ .name = "touching", .r = { { 0, 10 }, { 10, 10 } }, .n = 2, .unique = 20, .extents = 1 },
		{ .name = "nested", .r = { { 0, 100 }, { 10, 10 }, { 50, 5 } }, .n = 3, .unique = 100, .extents = 1 },
		{ .name = "chain", .r = { { 30, 10 }, { 0, 15 }, { 10, 25 } }, .n = 3, .unique = 40, .extents = 1 },
		{ .name = "zero length", .r = { { 5, 0 }, { 7, 1 } }, .n = 2, .unique = 1, .extents = 1 },
	};
	return cr_make_param_array(struct rng_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct rng_case *c, ranges, union)
{
	struct ranges *r = ranges__new();
	uint64_t total = 0;

	cr_assert_not_null(r);
	for (int i = 0; i < c->n; i++) {
		cr_assert_eq(ranges__add(r, c->r[i][0], c->r[i][1]), 0);
		total += c->r[i][1];
	}
	cr_assert_eq(ranges__unique(r), c->unique, "%s: %lu", c->name, (unsigned long)ranges__unique(r));
	cr_assert_eq(ranges__total(r), total);
	cr_assert_eq(ranges__extents(r), c->extents, "%s", c->name);
	ranges__destroy(r);
}

Test(ranges, many_overlapping_stays_bounded)
{
	struct ranges *r = ranges__new();

	/* 200k discards of the same 1000 extents: memory stays at ~1000 extents */
	for (int k = 0; k < 200; k++)
		for (uint64_t i = 0; i < 1000; i++)
			cr_assert_eq(ranges__add(r, i * 8192, 4096), 0);
	cr_assert_eq(ranges__unique(r), 1000 * 4096);
	cr_assert_eq(ranges__total(r), 200ull * 1000 * 4096);
	cr_assert_eq(ranges__extents(r), 1000);
	ranges__destroy(r);
	ranges__destroy(NULL);
}

struct cmd_spec {
	uint64_t t, start, done, bytes;
	uint8_t op;
	uint32_t nr_segs;		/* discards: ranges of bytes / nr_segs each from off (0: one range) */
	uint64_t off;
};

/* One command through the metrics core and the observer, as the engine runs it. */
static void cmd(struct metrics *m, const struct engine_observer *ob, const struct cmd_spec *c)
{
	bool discard = c->op == TS_OP_DISCARD;
	uint32_t n = c->nr_segs ? c->nr_segs : 1;
	struct target_seg segs[8];
	struct metrics_cmd mc = { .submit_ns = c->t, .ready_ns = c->t, .bytes = c->bytes, .segs = segs,
				  .nr_segs = c->nr_segs, .count = 1, .op = c->op,
				  .klass = discard ? TC_DISCARD : TC_FOREGROUND };
	struct target_done d = { .submit_ns = c->t, .start_ns = c->start, .done_ns = c->done, .bytes = c->bytes,
				 .freed = discard ? c->bytes : 0, .op = c->op, .klass = mc.klass, .dev_cmds = 1 };

	for (uint32_t i = 0; i < n; i++)
		segs[i] = (struct target_seg){ c->off + i * (c->bytes / n), c->bytes / n };
	cr_assert_eq(metrics__submit(m, &mc), 0);
	cr_assert_eq(metrics__done(m, &mc, &d), 0);
	if (ob)
		ob->done(ob->arg, &d);
}

struct lat_case {
	char name[24];
	uint64_t lat[6];
	unsigned n;
	unsigned reps;
};

ParameterizedTestParameters(cell, latency_is_the_engines_histogram)
{
	static struct lat_case cases[] = {
		{ .name = "1..1000 ms", .lat = { 1000000 }, .n = 1, .reps = 1000 },
		{ .name = "sub-128 ns exact", .lat = { 0, 1, 127 }, .n = 3, .reps = 7 },
		{ .name = "spread", .lat = { 90, 4096, 65535, 9000000, 2000000000 }, .n = 5, .reps = 13 },
	};
	return cr_make_param_array(struct lat_case, cases, sizeof(cases) / sizeof(cases[0]));
}

/* The table's p50/p99/max and the chart's buckets are one histogram: the engine's. */
ParameterizedTest(struct lat_case *lc, cell, latency_is_the_engines_histogram)
{
	struct metrics *m = metrics__new();
	struct report_cell *c = calloc(1, sizeof(*c));
	uint64_t t = 0, k = 0;

	for (unsigned r = 0; r < lc->reps; r++)
		for (unsigned i = 0; i < lc->n; i++, k++) {
			uint64_t lat = lc->n == 1 ? lc->lat[0] * (r + 1) : lc->lat[i];

			cmd(m, NULL, &(struct cmd_spec){ .t = t, .start = t, .done = t + lat, .bytes = 4096,
							  .op = TS_OP_DISCARD, .off = k * 4096 });
			t += lat + 1;
		}
	cr_assert_eq(metrics__finish(m, t, 0), 0);
	report_cell__from_metrics(c, m, false);

	const struct hist *h = metrics__latency(m, TS_OP_DISCARD);
	uint64_t sum = 0;

	cr_assert_eq(c->lat.count, (uint64_t)lc->n * lc->reps, "%s", lc->name);
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		cr_assert_eq(c->lat.buckets[b], h->b[b], "%s: bucket %u", lc->name, b);
		sum += c->lat.buckets[b];
	}
	cr_assert_eq(sum, c->lat.count);
	cr_assert_eq(c->lat_p50_ns, hist_quantile(h, 0.50), "%s", lc->name);
	cr_assert_eq(c->lat_p99_ns, hist_quantile(h, 0.99), "%s", lc->name);
	cr_assert_eq(c->lat_max_ns, h->max);
	cr_assert_eq(c->lat.min_ns, h->min);
	cr_assert_eq(c->lat.sum_ns, (uint64_t)h->sum);
	if (lc->n == 1) {	/* 1..1000 ms: within a bucket (1/64) of the true quantiles */
		cr_assert_float_eq((double)c->lat_p50_ns, 500e6, 500e6 / 64);
		cr_assert_float_eq((double)c->lat_p99_ns, 990e6, 990e6 / 64);
		cr_assert_eq(c->lat_max_ns, 1000000000);
	}
	metrics__free(m);
	free(c);
}

/* Command sizes: the engine's byte histogram folded into power-of-two buckets, exactly. */
Test(cell, size_buckets_from_the_engines_histogram)
{
	static const uint64_t sizes[] = { 1, 511, 512, 513, 4095, 4096, 4097, 65536, 131071, 131072,
					  (1ull << 20) - 1, 1ull << 20, 3ull << 29, 1ull << 40 };
	struct metrics *m = metrics__new();
	struct report_cell *c = calloc(1, sizeof(*c));
	uint64_t want[SIZE_BUCKETS] = { 0 }, t = 0;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (unsigned r = 0; r <= i; r++, t += 10) {
			cmd(m, NULL, &(struct cmd_spec){ .t = t, .start = t, .done = t + 5, .bytes = sizes[i],
							  .op = TS_OP_DISCARD, .nr_segs = r % 2 ? 0 : 1 });
			want[cell_size_bucket(sizes[i])]++;
		}
	cr_assert_eq(metrics__finish(m, t, 0), 0);
	report_cell__from_metrics(c, m, false);
	for (unsigned b = 0; b < SIZE_BUCKETS; b++)
		cr_assert_eq(c->size_hist[b], want[b], "bucket %u: %lu, want %lu", b, (unsigned long)c->size_hist[b],
			     (unsigned long)want[b]);
	cr_assert_eq(cell_size_bucket(511), 0);
	cr_assert_eq(cell_size_bucket(512), 1);
	cr_assert_eq(cell_size_bucket(1023), 1);
	cr_assert_eq(cell_size_bucket(1024), 2);
	metrics__free(m);
	free(c);
}

Test(probe, sizes_peak_series_untrimmed)
{
	struct report_cell *c = calloc(1, sizeof(*c));
	struct report_probe *p = report_probe__new(c, false);
	struct metrics *m = metrics__new();
	struct engine_observer ob;
	uint64_t t = 1000;

	cr_assert_not_null(p);
	report_probe__observer(p, &ob);
	ob.start(ob.arg, 1000, 1000);
	/* 1 GiB freed at t=0, then 3000 discards of 64 KiB, 1 ms each, serial, over 3 s */
	struct ts_record fr = { .time_ns = 1000, .length = 1ull << 30, .kind = TS_FREE };

	ob.record(ob.arg, &fr);
	for (int i = 0; i < 3000; i++) {
		cmd(m, &ob, &(struct cmd_spec){ .t = t, .start = t, .done = t + 1000000, .bytes = 65536,
						 .op = TS_OP_DISCARD, .off = (uint64_t)i * 65536 });
		t += 1000000;
	}
	/* the first two ranges again, as one two-range command: no unique byte */
	cmd(m, &ob, &(struct cmd_spec){ .t = t, .start = t, .done = t, .bytes = 131072, .op = TS_OP_DISCARD,
					 .nr_segs = 2 });
	cr_assert_eq(metrics__finish(m, t, 1000), 0);
	report_cell__from_metrics(c, m, false);
	c->wall_ns = 0;
	report_probe__finish(p);
	cr_assert_eq(c->cmds, 3001);
	cr_assert_eq(c->bytes, 3000ull * 65536 + 131072);
	cr_assert_eq(c->unique_bytes, 3000ull * 65536);
	cr_assert_eq(c->size_hist[cell_size_bucket(65536)], 3000);
	cr_assert_eq(c->size_hist[cell_size_bucket(131072)], 1);
	cr_assert_eq(c->peak_cmds_s, 1000);
	cr_assert_eq(c->peak_bytes_s, 1000ull * 65536);
	cr_assert_eq(c->discard_ns, 3000ull * 1000000);
	cr_assert_eq(c->makespan_ns, 3000ull * 1000000);
	cr_assert_eq(c->lat_p50_ns, 1000000);
	cr_assert(c->have & CH_UNTRIMMED);
	/* the series covers 3 s within SERIES_BINS bins; the last bin: 1 GiB - 3000 * 64 KiB - 128 KiB again */
	cr_assert_leq(c->series.nbins, SERIES_BINS);
	cr_assert_geq((uint64_t)c->series.nbins * c->series.bin_ns, 3000000000ull);
	cr_assert_eq(c->series.untrimmed[c->series.nbins - 1], (1ull << 30) - 3002ull * 65536);
	cr_assert_eq(c->series.untrimmed[0], (1ull << 30) - (c->series.bin_ns / 1000000 - 1) * 65536,
		     "bin 0 (%lu ns): %lu", (unsigned long)c->series.bin_ns, (unsigned long)c->series.untrimmed[0]);
	uint64_t sum = 0;

	for (unsigned b = 0; b < c->series.nbins; b++)
		sum += c->series.cmds[b];
	cr_assert_eq(sum, 3001);
	report_probe__destroy(p);
	report_probe__destroy(NULL);
	metrics__free(m);
	free(c);
}

/* Records are on trace time, completions on engine time: start gives both origins. */
Test(probe, two_clocks_one_replay_time)
{
	struct report_cell *c = calloc(1, sizeof(*c));
	struct report_probe *p = report_probe__new(c, false);
	struct engine_observer ob;
	struct ts_record fr = { .time_ns = 5000000000ull + 2500000, .length = 1 << 20, .kind = TS_FREE };
	struct target_done d = { .submit_ns = 7000000000ull + 3000000, .start_ns = 7000000000ull + 3000000,
				 .done_ns = 7000000000ull + 4500000, .bytes = 1 << 18, .freed = 1 << 18,
				 .op = TS_OP_DISCARD, .klass = TC_DISCARD };

	report_probe__observer(p, &ob);
	ob.start(ob.arg, 5000000000ull, 7000000000ull);	/* a real target's clock read 7 s at the first record */
	ob.record(ob.arg, &fr);
	ob.done(ob.arg, &d);
	c->makespan_ns = 5000000;
	report_probe__finish(p);
	cr_assert_eq(c->series.bin_ns, 1000000);
	cr_assert_eq(c->series.nbins, 6);
	cr_assert_eq(c->series.untrimmed[2], 1 << 20, "freed in bin 2 (2.5 ms)");
	cr_assert_eq(c->series.untrimmed[3], 1 << 20);
	cr_assert_eq(c->series.cmds[4], 1, "done in bin 4 (4.5 ms)");
	cr_assert_eq(c->series.busy_ns[4], 1500000);
	cr_assert_eq(c->series.untrimmed[4], (1 << 20) - (1 << 18));
	report_probe__destroy(p);
	free(c);
}

struct fg_case {
	char name[16];
	bool twin;
	uint64_t stall;		/* fg_stall_ns the cell must show */
};

ParameterizedTestParameters(probe, foreground_stall_and_write_p99)
{
	static struct fg_case cases[] = {
		{ .name = "queueing", .twin = false, .stall = 5000000 },	/* the probe's start - submit */
		{ .name = "twin", .twin = true, .stall = 99 * 20000 + 5020000 },	/* the engine's, per command */
	};
	return cr_make_param_array(struct fg_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct fg_case *fc, probe, foreground_stall_and_write_p99)
{
	struct report_cell *c = calloc(1, sizeof(*c));
	struct report_probe *p = report_probe__new(c, false);
	struct metrics *m = metrics__new();
	struct engine_observer ob;

	report_probe__observer(p, &ob);
	ob.start(ob.arg, 0, 0);
	for (int i = 0; i < 100; i++) {
		uint64_t t = (uint64_t)i * 1000000, wait = i == 99 ? 5000000 : 0;

		cmd(m, &ob, &(struct cmd_spec){ .t = t, .start = t + wait, .done = t + wait + 100000, .bytes = 4096,
						 .op = TS_OP_WRITE });
		if (fc->twin)	/* the twin took 80 us for each */
			cr_assert_eq(metrics__baseline(m, TS_OP_WRITE, wait + 100000, 80000), 0);
	}
	cr_assert_eq(metrics__finish(m, 100000000, 0), 0);
	report_cell__from_metrics(c, m, fc->twin);
	c->wall_ns = 99000000;
	report_probe__finish(p);
	cr_assert_eq(c->fg_cmds, 100);
	cr_assert_eq(c->fg_stall_ns, fc->stall, "%s: %lu", fc->name, (unsigned long)c->fg_stall_ns);
	cr_assert_eq(!!(c->have & CH_TWIN), fc->twin);
	cr_assert(c->have & CH_WRITE_P99);
	cr_assert_float_eq((double)c->write_p99_ns, 100000.0, 100000.0 / 64);
	if (fc->twin)
		cr_assert_float_eq((double)c->write_p99_base_ns, 80000.0, 80000.0 / 64);
	cr_assert_eq(c->fg_held_ns, 5000000);
	cr_assert_eq(c->workload_ns, 99000000 + 5100000, "the last write completes after the last record");
	cr_assert_eq(c->cmds, 0);
	cr_assert_not(c->have & CH_UNTRIMMED);
	report_probe__destroy(p);
	metrics__free(m);
	free(c);
}

/*
 * The untrimmed series counts what the discards told the device, as the
 * result's reclaim figures do (metrics.c): a discard a model found already
 * unmapped (freed 0: repeated, or below its granularity) still told it. It
 * subtracted target_done.freed, so the chart kept every byte freed on sdcard
 * (242 MB for ext4-discard-churn as-recorded) where reclaim.untrimmed_bytes
 * said 99 MB.
 */
Test(probe, untrimmed_counts_discarded_bytes_as_reclaim_does)
{
	struct report_cell *c = calloc(1, sizeof(*c));
	struct report_probe *p = report_probe__new(c, false);
	struct engine_observer ob;
	struct ts_record fr = { .time_ns = 1000000, .length = 1 << 20, .kind = TS_FREE };
	struct target_done d = { .submit_ns = 2000000, .start_ns = 2000000, .done_ns = 2500000,
				 .bytes = 1 << 18, .freed = 0, .op = TS_OP_DISCARD, .klass = TC_DISCARD };

	report_probe__observer(p, &ob);
	ob.start(ob.arg, 0, 0);
	ob.record(ob.arg, &fr);
	ob.done(ob.arg, &d);
	c->makespan_ns = 4000000;
	report_probe__finish(p);
	cr_assert_eq(c->series.bin_ns, 1000000);
	cr_assert_eq(c->series.untrimmed[1], 1 << 20);
	cr_assert_eq(c->series.untrimmed[2], (1 << 20) - (1 << 18), "%lu", (unsigned long)c->series.untrimmed[2]);
	report_probe__destroy(p);
	free(c);
}
