/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A synthetic comparison built as the engine builds a cell: every command goes
 * through the metrics core (submit, done) and every record and completion
 * through the report_probe's observer hooks; the cell then takes the figures
 * from the metrics (report_cell__from_metrics) and the series from the probe.
 * One trace, policies none / xfs-like (many small serial discards) / ext4-like
 * (few large ones) / fstrim(interval=1w), two profiles. Numbers are chosen so
 * every figure is known in advance.
 */
#ifndef TRIMSIM_TEST_REPORT_FIXTURE_H
#define TRIMSIM_TEST_REPORT_FIXTURE_H

#include <criterion/criterion.h>
#include <string.h>

#include "replay/engine/metrics.h"
#include "replay/report/probe.h"
#include "replay/report/report.h"

#define FX_MS 1000000ull
#define FX_S 1000000000ull

struct fx_policy {
	uint64_t ncmds;
	uint64_t size;		/* bytes per command */
	uint64_t lat_ns;	/* per command, serial */
	uint64_t fg_wait_ns;	/* each write waits this long */
	uint64_t extra_makespan_ns;	/* the workload's last write completes this much later */
	bool overlap;		/* every command covers the same range twice */
};

static const struct fx_policy fx_none = { 0 };
static const struct fx_policy fx_xfs = { 2000, 13517, 9 * FX_MS, 5 * FX_MS, 8 * FX_S };
static const struct fx_policy fx_ext4 = { 24, 21ull << 20, 20 * FX_MS, 0, 500 * FX_MS };
static const struct fx_policy fx_fstrim = { 12, 64ull << 20, 40 * FX_MS, 0, 480 * FX_MS, true };

/* One command as the engine runs it: submitted at t, started at start, done at done (metrics, then the observer). */
static inline void fx_cmd(struct metrics *m, const struct engine_observer *ob, uint8_t op, uint64_t off,
			  uint64_t len, uint64_t t, uint64_t start, uint64_t done)
{
	bool discard = op == TS_OP_DISCARD;
	struct target_seg seg = { off, len };
	struct metrics_cmd mc = { .submit_ns = t, .ready_ns = t, .bytes = len, .segs = &seg, .count = 1, .op = op,
				  .klass = discard ? TC_DISCARD : TC_FOREGROUND };
	struct target_done d = { .submit_ns = t, .start_ns = start, .done_ns = done, .bytes = len,
				 .freed = discard ? len : 0, .op = op, .klass = mc.klass, .dev_cmds = 1 };

	cr_assert_eq(metrics__submit(m, &mc), 0);
	cr_assert_eq(metrics__done(m, &mc, &d), 0);
	ob->done(ob->arg, &d);
}

/* scale: multiplies discard latencies (profile 2 is a fast SSD). Events reach the probe in time order. */
static inline void fx_fill(struct report_cell *c, const struct fx_policy *fp, double scale, uint64_t wall_ns)
{
	struct metrics *m = metrics__new();
	struct report_probe *p = report_probe__new(c, false);
	struct engine_observer ob;
	uint64_t lat = (uint64_t)(fp->lat_ns * scale), i = 0, t = 0;

	cr_assert_not_null(m);
	cr_assert_not_null(p);
	report_probe__observer(p, &ob);
	ob.start(ob.arg, 0, 0);
	/* The workload: FREE records over the wall time, 100 foreground writes; discards back to back from 0. */
	for (unsigned k = 0; k <= 100; k++) {
		struct ts_record rec = { .time_ns = k * (wall_ns / 100), .offset = k * (1ull << 20),
					 .length = 1ull << 20, .kind = TS_FREE };

		for (; i < fp->ncmds && t + lat <= rec.time_ns; i++, t += lat)
			fx_cmd(m, &ob, TS_OP_DISCARD, fp->overlap ? 0 : i * fp->size, fp->size, t, t, t + lat);
		ob.record(ob.arg, &rec);
		/* the workload's last write waits behind the discards: the workload ends late by extra */
		uint64_t wait = (uint64_t)((k < 100 ? fp->fg_wait_ns : fp->extra_makespan_ns) * scale);

		fx_cmd(m, &ob, TS_OP_WRITE, k * 4096ull, 4096, rec.time_ns, rec.time_ns + wait,
		       rec.time_ns + wait + 100000);
	}
	for (; i < fp->ncmds; i++, t += lat)
		fx_cmd(m, &ob, TS_OP_DISCARD, fp->overlap ? 0 : i * fp->size, fp->size, t, t, t + lat);
	cr_assert_eq(metrics__finish(m, wall_ns + (uint64_t)(fp->extra_makespan_ns * scale), 0), 0);
	report_cell__from_metrics(c, m, false);
	c->wall_ns = wall_ns;	/* the engine's span: the trace's first to last record */
	report_probe__finish(p);
	report_probe__destroy(p);
	metrics__free(m);
}

/* policies: none, xfs, ext4, fstrim(interval=1w,minlen=64K); profiles: slow, fast (1/100 the latency). */
static inline struct report *fx_report(uint64_t wall_ns)
{
	char *traces[] = { "/tmp/rm-kernel.tsim" };
	char *pols[] = { "none", "xfs", "ext4", "fstrim(interval=1w,minlen=64K)" };
	char *profs[] = { "sata-sf2281", "nvme" };
	const struct fx_policy *fp[] = { &fx_none, &fx_xfs, &fx_ext4, &fx_fstrim };
	struct report *r = report__new(traces, 1, pols, 4, profs, 2, 1, 42);

	cr_assert_not_null(r);
	for (size_t p = 0; p < 4; p++)
		for (size_t m = 0; m < 2; m++)
			fx_fill(report__cell(r, report__at(r, 0, p, m)), fp[p], m ? 0.01 : 1.0, wall_ns);
	cr_assert_eq(report__finish(r), 0);
	return r;
}

/*
 * none, xfs, ext4 on sata-sf2281 over a 10 s wall time, where every one of ext4's 24 discards
 * failed (fast: no TRIM time, nothing trimmed); untold: no foreground I/O and discards from a
 * background worker, a trace that cannot tell whether the workload waited. Finished.
 */
static inline struct report *fx_report_ext4_rejected(bool untold)
{
	char *traces[] = { "a.tsim" };
	char *pols[] = { "none", "xfs", "ext4" };
	char *profs[] = { "sata-sf2281" };
	const struct fx_policy *fp[] = { &fx_none, &fx_xfs, &fx_ext4 };
	struct report *r = report__new(traces, 1, pols, 3, profs, 1, 1, 1);

	cr_assert_not_null(r);
	for (size_t p = 0; p < 3; p++) {
		struct report_cell *c = report__cell(r, p);

		fx_fill(c, fp[p], 1.0, 10 * FX_S);
		if (untold) {
			c->fg_cmds = 0;
			c->waiter = CW_WORKER;
		}
	}
	report__cell(r, 2)->errors = report__cell(r, 2)->cmds;
	cr_assert_eq(report__finish(r), 0);
	return r;
}

/* Renders a format, by its --format name, into a malloc'd string. */
static inline char *fx_render(const struct report *r, const char *format)
{
	const struct report_format_ops *fmt = report_format_by_name(format);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(fmt, "no format '%s'", format);
	cr_assert_not_null(f);
	cr_assert_eq(report__write(r, fmt, f), 0);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

#endif
