// SPDX-License-Identifier: GPL-2.0
/* The engine against the "fixed" target: dispatch depth, exact as-recorded counts, stall, determinism, memory. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "replay/engine/engine.h"

#define K 1024ull
#define MS 1000000ull
#define S 1000000000ull

extern const struct target_ops fixed_target_ops;

static struct engine *mk(const char *policy, const char *target_arg, enum engine_timing timing, bool baseline)
{
	struct engine_cfg cfg = {
		.policy = policy, .target = &fixed_target_ops, .target_arg = target_arg, .timing = timing,
		.speed = 1.0, .seed = 1, .baseline = baseline,
	};
	char err[1024];
	struct engine *e = engine__new(&cfg, err, sizeof(err));

	cr_assert_not_null(e, "%s", err);
	return e;
}

static struct ts_record rec(uint64_t t, uint8_t kind, uint8_t op, uint64_t off, uint64_t len)
{
	return (struct ts_record){ .time_ns = t, .kind = kind, .op = op, .offset = off, .length = len, .dev = 1 };
}

static void run(struct engine *e, const struct ts_record *r, size_t n)
{
	cr_assert_eq(engine__feed(e, r, n), 0, "%s", engine__error(e));
	cr_assert_eq(engine__finish(e), 0, "%s", engine__error(e));
}

struct depth_case {
	char policy[64];
	char target[64];
	uint64_t makespan;
	uint64_t cmds;
};

/* 10 separate 4K INTENTs at t=0, 1 ms per discard. */
static struct depth_case depths[] = {
	{ "passthrough", "discard=1ms,qd=32", 10 * MS, 10 },
	{ "source(intent) | dispatch(qd=4)", "discard=1ms,qd=32", 3 * MS, 10 },
	{ "source(intent) | dispatch(qd=0)", "discard=1ms,qd=32", 1 * MS, 10 },
	{ "source(intent) | dispatch(qd=0)", "discard=1ms,qd=5", 2 * MS, 10 },
	{ "sort-merge-async(window=10ms,segments=16)", "discard=1ms", 11 * MS, 1 },
	{ "none", "discard=1ms", 0, 0 },
};

ParameterizedTestParameters(engine, depth)
{
	return cr_make_param_array(struct depth_case, depths, sizeof(depths) / sizeof(depths[0]));
}

ParameterizedTest(struct depth_case *c, engine, depth)
{
	struct ts_record r[10];
	struct engine *e = mk(c->policy, c->target, TIMING_TRACE, false);

	for (int i = 0; i < 10; i++)
		r[i] = rec(0, TS_INTENT, TS_OP_DISCARD, (uint64_t)i * 64 * K, 4 * K);
	run(e, r, 10);
	cr_expect_eq(metrics__makespan(engine__metrics(e)), c->makespan, "%s: makespan %lu", c->policy,
		     metrics__makespan(engine__metrics(e)));
	cr_expect_eq(metrics__discard_cmds(engine__metrics(e)), c->cmds);
	cr_expect_eq(metrics__discard_bytes(engine__metrics(e)), c->cmds ? 40 * K : 0);
	engine__free(e);
}

Test(engine, as_recorded_count_is_exact)
{
	struct ts_record r[64];
	size_t n = 0;
	uint64_t bytes = 0;
	struct engine *e = mk("as-recorded", "discard=5ms,qd=2", TIMING_TRACE, false);

	/* 20 recorded discard commands (some overlapping), among FREE/INTENT/writes/DONEs. */
	for (int i = 0; i < 20; i++) {
		uint64_t t = (uint64_t)i * 100000;

		r[n++] = rec(t, TS_FREE, 0, (uint64_t)i * 8 * K, 8 * K);
		r[n++] = rec(t + 1, TS_INTENT, TS_OP_DISCARD, (uint64_t)i * 8 * K, 8 * K);
		r[n++] = rec(t + 2, TS_ISSUE, TS_OP_DISCARD, (uint64_t)(i % 7) * 8 * K, 8 * K);
		bytes += 8 * K;
	}
	r[n++] = rec(3 * S, TS_ISSUE, TS_OP_WRITE, 0, 4 * K);
	run(e, r, n);
	cr_assert_eq(metrics__discard_cmds(engine__metrics(e)), 20);
	cr_assert_eq(metrics__discard_bytes(engine__metrics(e)), bytes);
	cr_assert_eq(metrics__unique_bytes(engine__metrics(e)), 7 * 8 * K);
	engine__free(e);
}

Test(engine, foreground_waits_behind_serial_discards)
{
	/* qd=1 device: a discard at 0 takes 1 ms; a write ready at 0.5 ms waits 0.5 ms then takes 50 us. */
	struct ts_record r[] = {
		rec(0, TS_INTENT, TS_OP_DISCARD, 0, 4 * K),
		rec(MS / 2, TS_ISSUE, TS_OP_WRITE, 64 * K, 4 * K),
	};
	struct engine *e = mk("passthrough", "discard=1ms,write=50us,per_mib=0,qd=1", TIMING_TRACE, true);
	json_t *res, *fg;

	run(e, r, 2);
	res = engine__result(e);
	cr_assert_not_null(res);
	fg = json_object_get(res, "foreground");
	cr_assert_eq(json_integer_value(json_object_get(fg, "baseline_pairs")), 1);
	cr_assert_eq(json_integer_value(json_object_get(fg, "stall_ns")), MS / 2);
	cr_assert_float_eq(json_real_value(json_object_get(fg, "latency_inflation")), 550.0 / 50.0, 1e-9);
	cr_assert_eq(metrics__makespan(engine__metrics(e)), MS + 50000);
	json_decref(res);
	engine__free(e);
}

Test(engine, asap_ignores_gaps)
{
	struct ts_record r[] = {
		rec(0, TS_ISSUE, TS_OP_WRITE, 0, 4 * K),
		rec(10 * S, TS_ISSUE, TS_OP_WRITE, 8 * K, 4 * K),
		rec(20 * S, TS_INTENT, TS_OP_DISCARD, 0, 4 * K),
	};
	struct engine *e = mk("passthrough", "discard=1ms,write=50us,per_mib=0,qd=1", TIMING_ASAP, false);

	run(e, r, 3);
	cr_assert_eq(metrics__makespan(engine__metrics(e)), 50000 + 50000 + MS);
	engine__free(e);
}

static char *result_text(const char *policy)
{
	struct ts_record r[200];
	struct engine *e = mk(policy, "discard=2ms,write=30us,qd=4", TIMING_TRACE, true);
	json_t *res;
	char *s;

	for (int i = 0; i < 200; i++)
		r[i] = rec((uint64_t)i * 37 * 1000, i % 3 ? TS_INTENT : TS_ISSUE, i % 3 ? TS_OP_DISCARD : TS_OP_WRITE,
			   (uint64_t)((i * 7919) % 100) * 4 * K, 4 * K * (1 + i % 5));
	run(e, r, 200);
	res = engine__result(e);
	s = json_dumps(res, JSON_SORT_KEYS | JSON_INDENT(1));
	json_decref(res);
	engine__free(e);
	return s;
}

Test(engine, same_input_same_json)
{
	char *a = result_text("sort-merge-async(window=1ms,segments=8) | rate(iops=1000)");
	char *b = result_text("sort-merge-async(window=1ms,segments=8) | rate(iops=1000)");

	cr_assert_not_null(a);
	cr_assert_str_eq(a, b);
	free(a);
	free(b);
}

Test(engine, memory_does_not_grow_with_trace_length)
{
	struct engine *e = mk("batch(10ms) | sort | merge", "discard=100us,write=20us,qd=32", TIMING_TRACE, true);
	struct ts_record r[1000];
	size_t peak_after_100k = 0;

	/* 1M records: a write and a FREE/INTENT pair every 10 us, streamed in chunks. */
	for (uint64_t base = 0; base < 1000000; base += 1000) {
		for (uint64_t i = 0; i < 1000; i++) {
			uint64_t k = base + i;

			r[i] = rec(k * 10000, k % 2 ? TS_ISSUE : TS_INTENT, k % 2 ? TS_OP_WRITE : TS_OP_DISCARD,
				   (k * 4096 * 13) % (1ull << 34), 4096);
		}
		cr_assert_eq(engine__feed(e, r, 1000), 0, "%s", engine__error(e));
		if (base + 1000 == 100000)
			peak_after_100k = engine__peak_queued(e);
	}
	cr_assert_eq(engine__finish(e), 0, "%s", engine__error(e));
	cr_assert_gt(peak_after_100k, 0);
	cr_expect_leq(engine__peak_queued(e), peak_after_100k + 64, "peak %zu after 1M vs %zu after 100k",
		      engine__peak_queued(e), peak_after_100k);
	cr_expect_eq(metrics__discard_cmds(engine__metrics(e)) > 0, 1);
	engine__free(e);
}

struct speed_case {
	double speed;
	uint64_t makespan;
};

static struct speed_case speeds[] = {
	{ 1.0, 100 * MS + MS },
	{ 2.0, 50 * MS + MS },
	{ 0.5, 200 * MS + MS },
	{ 1000.0, 100 * 1000 + MS },
};

ParameterizedTestParameters(engine, speed)
{
	return cr_make_param_array(struct speed_case, speeds, sizeof(speeds) / sizeof(speeds[0]));
}

/* Trace time / speed: a discard 100 ms after the first record goes at 100 ms / speed. */
ParameterizedTest(struct speed_case *c, engine, speed)
{
	struct ts_record r[] = {
		rec(5 * S, TS_ISSUE, TS_OP_WRITE, 0, 4 * K),
		rec(5 * S + 100 * MS, TS_INTENT, TS_OP_DISCARD, 0, 4 * K),
	};
	struct engine_cfg cfg = {
		.policy = "passthrough", .target = &fixed_target_ops, .target_arg = "discard=1ms,write=10us,per_mib=0",
		.speed = c->speed, .seed = 1,
	};
	char err[512];
	struct engine *e = engine__new(&cfg, err, sizeof(err));

	cr_assert_not_null(e, "%s", err);
	run(e, r, 2);
	cr_expect_eq(metrics__makespan(engine__metrics(e)), c->makespan, "speed %g: %lu", c->speed,
		     metrics__makespan(engine__metrics(e)));
	engine__free(e);
}

/*
 * At --speed 3.5 a timer 1 ns after the first record maps to engine time 0,
 * and back to trace time 0 ns after it: the timer must still fire (it used
 * to spin forever in run_until).
 */
Test(engine, speed_rounding_still_fires_timers, .timeout = 20)
{
	struct ts_record r[] = {
		rec(5 * S, TS_ISSUE, TS_OP_WRITE, 0, 4 * K),
		rec(5 * S, TS_INTENT, TS_OP_DISCARD, 0, 4 * K),
		rec(5 * S + 7, TS_INTENT, TS_OP_DISCARD, 64 * K, 4 * K),
		rec(5 * S + 10 * MS, TS_ISSUE, TS_OP_WRITE, 0, 4 * K),
	};
	struct engine_cfg cfg = {
		.policy = "source(intent) | batch(window=1ns) | dispatch(qd=0)", .target = &fixed_target_ops,
		.target_arg = "discard=1ms", .speed = 3.5, .seed = 1,
	};
	char err[512];
	struct engine *e = engine__new(&cfg, err, sizeof(err));

	cr_assert_not_null(e, "%s", err);
	run(e, r, 4);
	cr_expect_eq(metrics__discard_cmds(engine__metrics(e)), 2);
	engine__free(e);
}

Test(engine, other_devices_are_ignored)
{
	struct ts_record r[] = {
		rec(0, TS_INTENT, TS_OP_DISCARD, 0, 4 * K),
		rec(1, TS_INTENT, TS_OP_DISCARD, 8 * K, 4 * K),
		rec(2, TS_ISSUE, TS_OP_WRITE, 0, 4 * K),
	};
	struct engine_cfg cfg = {
		.policy = "passthrough", .target = &fixed_target_ops, .target_arg = "", .speed = 1, .devno = 1,
	};
	char err[512];
	struct engine *e;

	r[1].dev = 2;
	r[2].dev = 2;
	e = engine__new(&cfg, err, sizeof(err));
	cr_assert_not_null(e, "%s", err);
	run(e, r, 3);
	cr_assert_eq(metrics__discard_cmds(engine__metrics(e)), 1);
	cr_assert_eq(metrics__latency(engine__metrics(e), TS_OP_WRITE)->n, 0);
	engine__free(e);
}

Test(engine, discards_held_past_the_end_go_after_a_busy_device_drains)
{
	/* The batch closes at 1 s, after the trace ends while the device is full of writes. */
	struct ts_record r[] = {
		rec(0, TS_INTENT, TS_OP_DISCARD, 0, 4 * K),
		rec(MS, TS_ISSUE, TS_OP_WRITE, 64 * K, 4 * K),
		rec(MS, TS_ISSUE, TS_OP_WRITE, 128 * K, 4 * K),
		rec(MS, TS_ISSUE, TS_OP_WRITE, 192 * K, 4 * K),
	};
	struct engine *e = mk("batch(1s) | dispatch(qd=4)", "write=10ms,discard=1ms,per_mib=0,qd=2", TIMING_TRACE,
			      true);

	run(e, r, 4);
	cr_assert_eq(metrics__discard_cmds(engine__metrics(e)), 1);
	cr_assert_eq(metrics__makespan(engine__metrics(e)), S + MS);
	engine__free(e);
}

Test(engine, asap_keeps_policy_delays)
{
	/*
	 * asap removes the trace's gaps (a delay that elapses between two records
	 * elapses in no time) but a delay reaching past the last record is kept.
	 */
	struct ts_record r[] = {
		rec(0, TS_INTENT, TS_OP_DISCARD, 0, 4 * K),
		rec(10 * S, TS_INTENT, TS_OP_DISCARD, 64 * K, 4 * K),
	};
	struct engine *e = mk("passthrough | delay(10ms)", "discard=1ms,write=50us,per_mib=0", TIMING_ASAP, true);

	run(e, r, 2);
	cr_assert_eq(metrics__discard_cmds(engine__metrics(e)), 2);
	/* The first discard goes at 0 (its delay elapsed in the removed gap), the second at 10 ms. */
	cr_assert_eq(metrics__makespan(engine__metrics(e)), 11 * MS);
	engine__free(e);
}

struct seen { unsigned records, submits, discards, dones; uint64_t ranges; };

static void ob_record(void *arg, const struct ts_record *r) { (void)r; ((struct seen *)arg)->records++; }
static void ob_done(void *arg, const struct target_done *d) { (void)d; ((struct seen *)arg)->dones++; }
static int ob_submit(void *arg, const struct target_cmd *c)
{
	struct seen *s = arg;

	s->submits++;
	if (c->klass == TC_DISCARD) {
		s->discards++;
		s->ranges += c->nr_segs ? c->nr_segs : 1;
	}
	return 0;
}

Test(engine, observer_sees_records_submits_and_completions)
{
	struct seen s = { 0 };
	struct engine_observer ob = { &s, ob_record, ob_submit, ob_done };
	struct engine_cfg cfg = {
		.policy = "batch(1ms) | sort | merge(segments=4)", .target = &fixed_target_ops, .target_arg = "",
		.speed = 1, .baseline = true, .observer = &ob,
	};
	struct ts_record r[] = {
		rec(0, TS_INTENT, TS_OP_DISCARD, 0, 4 * K), rec(1, TS_INTENT, TS_OP_DISCARD, 64 * K, 4 * K),
		rec(2, TS_ISSUE, TS_OP_WRITE, 8 * K, 4 * K), rec(3, TS_META, TS_META_COMMIT, 0, 0),
	};
	char err[512];
	struct engine *e = engine__new(&cfg, err, sizeof(err));

	cr_assert_not_null(e, "%s", err);
	run(e, r, 4);
	cr_assert_eq(s.records, 4);
	cr_assert_eq(s.submits, 2, "one merged discard and one write (the twin's write is not shown)");
	cr_assert_eq(s.discards, 1);
	cr_assert_eq(s.ranges, 2);
	cr_assert_eq(s.dones, 2);
	engine__free(e);
}

/* The observer's sequence, one letter per hook: S start, R record, s submit, d done. */
struct trail { char ev[32]; size_t n; uint64_t t0, e0; };

static void tr_start(void *arg, uint64_t t, uint64_t e)
{
	struct trail *s = arg;

	s->ev[s->n++] = 'S';
	s->t0 = t, s->e0 = e;
}
static void tr_record(void *arg, const struct ts_record *r) { (void)r; ((struct trail *)arg)->ev[((struct trail *)arg)->n++] = 'R'; }
static void tr_done(void *arg, const struct target_done *d) { (void)d; ((struct trail *)arg)->ev[((struct trail *)arg)->n++] = 'd'; }
static int tr_submit(void *arg, const struct target_cmd *c)
{
	(void)c;
	((struct trail *)arg)->ev[((struct trail *)arg)->n++] = 's';
	return 0;
}

Test(engine, observer_sees_the_engines_order)
{
	/*
	 * A record comes after what was due before it (the discard done at 1 ms before the
	 * write at 3 ms); a FREE, which passthrough does not read, comes after the write's
	 * completion too: the reclaim delay counts freed bytes in time order with the
	 * completions (RESULT.md reclaim), so a FREE is never a record nothing reacts to.
	 * start: the first record's trace time and the engine time it maps to.
	 */
	struct trail s = { .n = 0 };
	struct engine_observer ob = { .arg = &s, .record = tr_record, .submit = tr_submit, .done = tr_done,
				      .start = tr_start };
	struct engine_cfg cfg = {
		.policy = "passthrough", .target = &fixed_target_ops, .target_arg = "discard=1ms,write=10us,per_mib=0",
		.speed = 1, .baseline = false, .observer = &ob,
	};
	struct ts_record r[] = {
		rec(7 * S, TS_INTENT, TS_OP_DISCARD, 0, 4 * K),
		rec(7 * S + 3 * MS, TS_ISSUE, TS_OP_WRITE, 64 * K, 4 * K),
		rec(7 * S + 4 * MS, TS_FREE, TS_OP_DISCARD, 128 * K, 4 * K),
	};
	char err[512];
	struct engine *e = engine__new(&cfg, err, sizeof(err));

	cr_assert_not_null(e, "%s", err);
	run(e, r, 3);
	cr_assert_str_eq(s.ev, "SRsdRsdR");
	cr_assert_eq(s.t0, 7 * S);
	cr_assert_eq(s.e0, 0);
	engine__free(e);
}
