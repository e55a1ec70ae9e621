// SPDX-License-Identifier: GPL-2.0
/*
 * The reclaim delay (RESULT.md `reclaim`): byte-seconds of freed space the device
 * has not been told about. Hand-computed timelines through the metrics core, then
 * the engine on a corpus trace: `none` holds every freed byte to the end, `xfs`
 * (discard after each checkpoint) far less.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/common/helpers.h"
#include "replay/engine/engine.h"
#include "replay/engine/metrics.h"
#include "traces/trace.h"

#define S 1000000000ull

/* One event of a timeline: a free (bytes > 0, intent or not) or a discard unmapping `trim` bytes. */
struct rev {
	uint64_t t;
	uint64_t freed, trim;
	bool intent, error;
};

struct reclaim_case {
	char name[80];
	struct rev ev[6];
	uint64_t end;
	char source[8];
	double byte_s;
	uint64_t left;
};

static struct reclaim_case cases[] = {
	{ .name = "nothing freed", .end = 10 * S, .source = "none", .byte_s = 0 },
	{ .name = "freed, never trimmed: bytes x time to the end",
	  .ev = { { .t = 1 * S, .freed = 100 }, { .t = 4 * S, .freed = 50 } }, .end = 10 * S,
	  .source = "free", .byte_s = 100 * 9 + 50 * 6, .left = 150 },
	{ .name = "trimmed 2 s after the free",
	  .ev = { { .t = 1 * S, .freed = 100 }, { .t = 3 * S, .trim = 100 } }, .end = 10 * S,
	  .source = "free", .byte_s = 200 },
	{ .name = "a failed discard unmaps nothing",
	  .ev = { { .t = 1 * S, .freed = 100 }, { .t = 3 * S, .trim = 100, .error = true } }, .end = 5 * S,
	  .source = "free", .byte_s = 400, .left = 100 },
	{ .name = "trimming space freed before the trace does not go negative",
	  .ev = { { .t = 0, .trim = 1000 }, { .t = 2 * S, .freed = 100 }, { .t = 4 * S, .trim = 100 } },
	  .end = 6 * S, .source = "free", .byte_s = 0 },
	{ .name = "INTENT counts when the trace has no FREE",
	  .ev = { { .t = 1 * S, .freed = 10, .intent = true }, { .t = 2 * S, .trim = 10 } }, .end = 3 * S,
	  .source = "intent", .byte_s = 10 },
	{ .name = "FREE wins over INTENT",
	  .ev = { { .t = 1 * S, .freed = 10, .intent = true }, { .t = 1 * S, .freed = 30 } }, .end = 2 * S,
	  .source = "free", .byte_s = 30, .left = 30 },
};

ParameterizedTestParameters(reclaim, timeline)
{
	return cr_make_param_array(struct reclaim_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct reclaim_case *c, reclaim, timeline)
{
	struct metrics *m = metrics__new();
	json_t *o = json_object(), *r;
	struct target_seg seg = { .offset = 0, .length = 4096 };

	cr_assert_not_null(m);
	for (size_t i = 0; i < 6 && (c->ev[i].freed || c->ev[i].trim); i++) {
		const struct rev *e = &c->ev[i];

		if (e->freed) {
			cr_assert_eq(metrics__freed(m, e->t, e->intent, e->freed), 0);
			continue;
		}
		struct metrics_cmd mc = { .submit_ns = e->t, .ready_ns = e->t, .bytes = e->trim, .segs = &seg,
					  .nr_segs = 1, .count = 1, .op = TS_OP_DISCARD, .klass = TC_DISCARD };
		struct target_done d = { .submit_ns = e->t, .start_ns = e->t, .done_ns = e->t, .bytes = e->trim,
					 .freed = e->error ? 0 : e->trim, .error = e->error ? -EIO : 0,
					 .op = TS_OP_DISCARD, .klass = TC_DISCARD };

		cr_assert_eq(metrics__submit(m, &mc), 0);
		cr_assert_eq(metrics__done(m, &mc, &d), 0);
	}
	cr_assert_eq(metrics__finish(m, c->end, 0), 0);
	cr_assert_eq(metrics__to_json(m, o), 0);
	r = json_object_get(o, "reclaim");
	cr_assert_str_eq(json_string_value(json_object_get(r, "source")), c->source, "%s", c->name);
	cr_expect_float_eq(json_real_value(json_object_get(r, "byte_s")), c->byte_s, 1e-9, "%s: %g", c->name,
			   json_real_value(json_object_get(r, "byte_s")));
	cr_expect_eq(json_integer_value(json_object_get(r, "untrimmed_bytes")), (json_int_t)c->left, "%s", c->name);
	json_decref(o);
	metrics__free(m);
}

/*
 * The area is summed in an integer while that is exact (metrics.c, struct lsum): past
 * 2^64, and with products past 2^64, it must still be the long double sum the
 * reclaim figures always were, to the bit.
 */
struct big_case {
	char name[48];
	uint64_t bytes, step;	/* bytes freed at each step, time between steps */
	int steps;
};

ParameterizedTestParameters(reclaim, area_past_2_64)
{
	static struct big_case big[] = {
		{ "sum passes 2^64", 1ull << 30, (1ull << 28) + 3, 40 },
		{ "a product passes 2^64", 1ull << 45, 1ull << 20, 8 },
		{ "small terms, long run", 4096 * 3 + 1, 977, 3000 },
	};

	return cr_make_param_array(struct big_case, big, sizeof(big) / sizeof(big[0]));
}

ParameterizedTest(struct big_case *c, reclaim, area_past_2_64)
{
	struct metrics *m = metrics__new();
	json_t *o = json_object();
	long double ref = 0;
	uint64_t t = 0, held = 0;

	cr_assert_not_null(m);
	for (int i = 0; i < c->steps; i++) {
		cr_assert_eq(metrics__freed(m, t, false, c->bytes), 0);
		held += c->bytes;
		t += c->step;
		ref += (long double)held * (long double)c->step;	/* what the next free integrates */
	}
	cr_assert_eq(metrics__finish(m, t, 0), 0);
	cr_assert_eq(metrics__to_json(m, o), 0);
	cr_assert_eq(json_real_value(json_object_get(json_object_get(o, "reclaim"), "byte_s")), (double)(ref / 1e9L),
		     "%s: %.17g vs %.17g", c->name, json_real_value(json_object_get(json_object_get(o, "reclaim"), "byte_s")),
		     (double)(ref / 1e9L));
	if (c->steps == 40)
		cr_assert_gt(ref, 0x1p64L);	/* the case reaches the long double part */
	json_decref(o);
	metrics__free(m);
}

static json_t *replay_json(const char *policy)
{
	char cmd[2048], out[512];
	json_t *j;

	snprintf(out, sizeof(out), "%s/r.json", th_dir());
	snprintf(cmd, sizeof(cmd), "%s replay %s/traces/corpus/xfs-discard-rmlarge.tsim -p '%s' -M nvme -o %s "
		 ">/dev/null", th_trimsim(), th_src(), policy, out);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	cr_assert_not_null(j = json_load_file(out, 0, NULL));
	return j;
}

static double jnum(json_t *o, const char *a, const char *b)
{
	return json_number_value(json_object_get(json_object_get(o, a), b));
}

TestSuite(reclaim_engine, .init = th_dir_init, .fini = th_dir_fini);

/* The corpus's XFS rm of large files: 1.10 GiB freed over a 2.69 s trace. */
Test(reclaim_engine, none_holds_everything_xfs_much_less)
{
	json_t *none = replay_json("none"), *xfs = replay_json("xfs");
	double freed = jnum(none, "reclaim", "freed_bytes");

	cr_assert_gt(freed, 1e9);
	cr_expect_float_eq(jnum(none, "reclaim", "untrimmed_bytes"), freed, 0.5);
	/* every byte waits from its free to the end: at most freed x span */
	cr_expect_leq(jnum(none, "reclaim", "byte_s"), freed * jnum(none, "records", "span_ns") / 1e9);
	cr_expect_eq(jnum(xfs, "reclaim", "untrimmed_bytes"), 0);
	cr_expect_lt(jnum(xfs, "reclaim", "byte_s"), jnum(none, "reclaim", "byte_s") / 5, "%g vs %g",
		     jnum(xfs, "reclaim", "byte_s"), jnum(none, "reclaim", "byte_s"));
	json_decref(none);
	json_decref(xfs);
}

extern const struct target_ops fixed_target_ops;

static void ignore_record(void *arg, const struct ts_record *rec)
{
	(void)arg;
	(void)rec;
}

/*
 * as-recorded: the FREE records only the reclaim figures count skip the event loop
 * and their frees wait (engine.c, dfree_apply()); an observer with a record hook
 * turns that off. The integral must be the same either way: 600 FREEs in a row
 * (more than the 256 that wait), then FREEs between discards whose completions
 * (1 ms later) fall between later FREEs (it fails when a waiting free reaches the
 * metrics only at the next record that runs the loop, after such completions).
 */
Test(reclaim_engine, deferred_frees_integrate_as_in_time_order)
{
	static struct ts_record r[3000];
	static const struct engine_observer ob = { .record = ignore_record };
	struct metrics_totals t[2];

	for (size_t i = 0; i < 3000; i++) {
		bool discard = i >= 600 && i % 7 == 3;

		r[i] = (struct ts_record){ .time_ns = S + i * 100000, .kind = discard ? TS_ISSUE : TS_FREE,
					   .op = discard ? TS_OP_DISCARD : TS_OP_NONE, .offset = i * 65536,
					   .length = discard ? 262144 : 4096, .dev = 1 };
	}
	for (int k = 0; k < 2; k++) {
		struct engine_cfg cfg = {
			.policy = "as-recorded", .target = &fixed_target_ops, .target_arg = "discard=1ms",
			.timing = TIMING_TRACE, .speed = 1.0, .seed = 1, .observer = k ? &ob : NULL,
		};
		char err[1024];
		struct engine *e = engine__new(&cfg, err, sizeof(err));

		cr_assert_not_null(e, "%s", err);
		cr_assert_eq(engine__feed(e, r, 3000), 0, "%s", engine__error(e));
		cr_assert_eq(engine__finish(e), 0, "%s", engine__error(e));
		metrics__totals(engine__metrics(e), &t[k]);
		engine__free(e);
	}
	cr_assert_gt(t[0].reclaim_byte_s, 0);
	cr_expect_eq(t[0].reclaim_freed, t[1].reclaim_freed);
	cr_expect_eq(t[0].reclaim_byte_s, t[1].reclaim_byte_s, "%.17g deferred vs %.17g in the loop",
		     t[0].reclaim_byte_s, t[1].reclaim_byte_s);
}
