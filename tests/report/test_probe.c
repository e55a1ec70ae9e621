// SPDX-License-Identifier: GPL-2.0
/* The probe's figures and the range union, on inputs whose answers are known. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>

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

Test(probe, latency_quantiles_within_bucket_resolution)
{
	struct cell_lat l = { 0 };

	/* 1..1000 ms: p50 ~ 500 ms, p99 ~ 990 ms */
	for (uint64_t i = 1; i <= 1000; i++)
		cell_lat_add(&l, i * 1000000);
	double p50 = cell_lat_quantile(&l, 0.5), p99 = cell_lat_quantile(&l, 0.99);

	cr_assert_float_eq(p50, 500e6, 500e6 * 0.025);
	cr_assert_float_eq(p99, 990e6, 990e6 * 0.025);
	cr_assert_eq(cell_lat_quantile(&l, 1.0), 1000000000);
	cr_assert_eq(l.min_ns, 1000000);
	cr_assert_eq(l.max_ns, 1000000000);
	cr_assert_eq(cell_lat_bucket(999), 0);
	cr_assert_eq(cell_lat_bucket(1000), 1);
	cr_assert_lt(cell_lat_bucket(2000), cell_lat_bucket(2100) + 1);
}

Test(probe, sizes_peak_series_untrimmed)
{
	struct report_cell *c = calloc(1, sizeof(*c));
	struct report_probe *p = report_probe__new(c, 1000);
	uint64_t t = 1000;

	cr_assert_not_null(p);
	/* 1 GiB freed at t=0, then 3000 discards of 64 KiB, 1 ms each, serial, over 3 s */
	struct ts_record fr = { .time_ns = 1000, .length = 1ull << 30, .kind = TS_FREE };

	report_probe__record(p, &fr);
	for (int i = 0; i < 3000; i++) {
		struct target_done d = { .submit_ns = t, .start_ns = t, .done_ns = t + 1000000, .bytes = 65536,
					 .freed = 65536, .op = TS_OP_DISCARD, .klass = TC_DISCARD };

		cr_assert_eq(report_probe__discard_ranges(p, (uint64_t)i * 65536, 65536, NULL, 0), 0);
		report_probe__done(p, &d);
		t += 1000000;
	}
	/* the same range again, as a two-segment command */
	struct target_seg segs[2] = { { 0, 65536 }, { 65536, 65536 } };

	cr_assert_eq(report_probe__discard_ranges(p, 0, 65536, segs, 2), 0);
	report_probe__finish(p, t);
	cr_assert_eq(c->cmds, 3000);
	cr_assert_eq(c->bytes, 3000ull * 65536);
	cr_assert_eq(c->unique_bytes, 3000ull * 65536);
	cr_assert_eq(c->size_hist[cell_size_bucket(65536)], 3000);
	cr_assert_eq(c->peak_cmds_s, 1000);
	cr_assert_eq(c->peak_bytes_s, 1000ull * 65536);
	cr_assert_eq(c->discard_ns, 3000ull * 1000000);
	cr_assert_eq(c->makespan_ns, 3000ull * 1000000);
	cr_assert_eq(c->lat_p50_ns, 1000000);
	cr_assert(c->have & CH_UNTRIMMED);
	/* the series covers 3 s within SERIES_BINS bins; the last bin: 1 GiB - 3000 * 64 KiB */
	cr_assert_leq(c->series.nbins, SERIES_BINS);
	cr_assert_geq((uint64_t)c->series.nbins * c->series.bin_ns, 3000000000ull);
	cr_assert_eq(c->series.untrimmed[c->series.nbins - 1], (1ull << 30) - 3000ull * 65536);
	cr_assert_eq(c->series.untrimmed[0], (1ull << 30) - (c->series.bin_ns / 1000000 - 1) * 65536,
		     "bin 0 (%lu ns): %lu", (unsigned long)c->series.bin_ns, (unsigned long)c->series.untrimmed[0]);
	uint64_t sum = 0;

	for (unsigned b = 0; b < c->series.nbins; b++)
		sum += c->series.cmds[b];
	cr_assert_eq(sum, 3000);
	report_probe__destroy(p);
	report_probe__destroy(NULL);
	free(c);
}

Test(probe, foreground_stall_and_write_p99)
{
	struct report_cell *c = calloc(1, sizeof(*c));
	struct report_probe *p = report_probe__new(c, 0);

	for (int i = 0; i < 100; i++) {
		uint64_t t = (uint64_t)i * 1000000, wait = i == 99 ? 5000000 : 0;
		struct target_done w = { .submit_ns = t, .start_ns = t + wait, .done_ns = t + wait + 100000,
					 .op = TS_OP_WRITE, .klass = TC_FOREGROUND };

		report_probe__done(p, &w);
	}
	report_probe__finish(p, 100000000);
	cr_assert_eq(c->fg_cmds, 100);
	cr_assert_eq(c->fg_stall_ns, 5000000);
	cr_assert(c->have & CH_WRITE_P99);
	cr_assert_float_eq((double)c->write_p99_ns, 100000.0, 100000.0 * 0.025);
	cr_assert_eq(c->cmds, 0);
	cr_assert_not(c->have & CH_UNTRIMMED);
	report_probe__destroy(p);
	free(c);
}
