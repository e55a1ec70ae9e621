// SPDX-License-Identifier: GPL-2.0
/* Each generic stage, driven through a pipeline with a capturing sink. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "replay/policies/policy.h"

#define K 1024ull
#define S 1000000000ull
#define MAXEV 16

struct in_rec { uint64_t t, off, len; uint8_t kind; };
struct out_ev { uint64_t t, off, len, bytes; uint32_t nsegs; };

struct stage_case {
	char policy[128];
	struct in_rec in[MAXEV];
	size_t nin;
	struct out_ev out[MAXEV];
	size_t nout;
};

struct capture { struct out_ev ev[64]; size_t n; };

static int capture_sink(void *arg, const struct policy_event *ev)
{
	struct capture *c = arg;

	cr_assert_lt(c->n, 64);
	c->ev[c->n++] = (struct out_ev){ ev->time_ns, ev->offset, ev->length, ev->bytes,
					 ev->nr_segs };
	return 0;
}

static struct stage_case cases[] = {
	{ .policy = "source(intent)", .nin = 2,
	  .in = { { 0, 0, 4 * K }, { 10, 8 * K, 4 * K } },
	  .nout = 2, .out = { { 0, 0, 4 * K, 4 * K }, { 10, 8 * K, 4 * K, 4 * K } } },
	{ .policy = "source(free)", .nin = 2,
	  .in = { { 0, 0, 4 * K, TS_FREE }, { 10, 8 * K, 4 * K, TS_INTENT } },
	  .nout = 1, .out = { { 0, 0, 4 * K, 4 * K } } },
	{ .policy = "source(none)", .nin = 1, .in = { { 0, 0, 4 * K } }, .nout = 0 },
	{ .policy = "min(8K)", .nin = 3,
	  .in = { { 0, 0, 4 * K }, { 1, 8 * K, 8 * K }, { 2, 64 * K, 16 * K } },
	  .nout = 2, .out = { { 1, 8 * K, 8 * K, 8 * K }, { 2, 64 * K, 16 * K, 16 * K } } },
	{ .policy = "split(max=8K)", .nin = 1, .in = { { 5, 0, 20 * K } },
	  .nout = 3, .out = { { 5, 0, 8 * K, 8 * K }, { 5, 8 * K, 8 * K, 8 * K }, { 5, 16 * K, 4 * K, 4 * K } } },
	{ .policy = "align(4K)", .nin = 2, .in = { { 0, 1000, 10000 }, { 1, 100, 200 } },
	  .nout = 1, .out = { { 0, 4096, 4096, 4096 } } },
	{ .policy = "batch(window=1s)", .nin = 3,
	  .in = { { 0, 0, 4 * K }, { S / 2, 4 * K, 4 * K }, { 2 * S, 8 * K, 4 * K } },
	  .nout = 3, .out = { { S, 0, 4 * K, 4 * K }, { S, 4 * K, 4 * K, 4 * K }, { 3 * S, 8 * K, 4 * K, 4 * K } } },
	{ .policy = "batch(window=1s,count=2)", .nin = 3,
	  .in = { { 0, 0, 4 * K }, { 10, 4 * K, 4 * K }, { 20, 8 * K, 4 * K } },
	  .nout = 3, .out = { { 10, 0, 4 * K, 4 * K }, { 10, 4 * K, 4 * K, 4 * K }, { S + 20, 8 * K, 4 * K, 4 * K } } },
	{ .policy = "batch(1s) | sort", .nin = 3,
	  .in = { { 0, 12 * K, 4 * K }, { 1, 4 * K, 4 * K }, { 2, 8 * K, 4 * K } },
	  .nout = 3, .out = { { S, 4 * K, 4 * K, 4 * K }, { S, 8 * K, 4 * K, 4 * K }, { S, 12 * K, 4 * K, 4 * K } } },
	{ .policy = "batch(1s) | sort | merge", .nin = 3,
	  .in = { { 0, 8 * K, 4 * K }, { 1, 0, 4 * K }, { 2, 4 * K, 4 * K } },
	  .nout = 1, .out = { { S, 0, 12 * K, 12 * K } } },
	{ .policy = "batch(1s) | merge", .nin = 3,	/* unsorted: only adjacent arrivals coalesce */
	  .in = { { 0, 8 * K, 4 * K }, { 1, 0, 4 * K }, { 2, 4 * K, 4 * K } },
	  .nout = 2, .out = { { S, 8 * K, 4 * K, 4 * K }, { S, 0, 8 * K, 8 * K } } },
	{ .policy = "batch(1s) | sort | merge(max=8K)", .nin = 3,
	  .in = { { 0, 8 * K, 4 * K }, { 1, 0, 4 * K }, { 2, 4 * K, 4 * K } },
	  .nout = 2, .out = { { S, 0, 8 * K, 8 * K }, { S, 8 * K, 4 * K, 4 * K } } },
	{ .policy = "batch(1s) | sort | merge(segments=4)", .nin = 3,
	  .in = { { 0, 32 * K, 4 * K }, { 1, 0, 4 * K }, { 2, 16 * K, 4 * K } },
	  .nout = 1, .out = { { S, 0, 4 * K, 12 * K, 3 } } },
	{ .policy = "batch(1s) | sort | merge(segments=4,gap=8K)", .nin = 3,
	  .in = { { 0, 0, 4 * K }, { 1, 8 * K, 4 * K }, { 2, 32 * K, 4 * K } },
	  .nout = 2, .out = { { S, 0, 4 * K, 8 * K, 2 }, { S, 32 * K, 4 * K, 4 * K } } },
	{ .policy = "batch(1s) | sort | merge(segments=4) | min(8K)", .nin = 3,
	  .in = { { 0, 0, 4 * K }, { 1, 8 * K, 8 * K }, { 2, 32 * K, 16 * K } },
	  .nout = 1, .out = { { S, 8 * K, 8 * K, 24 * K, 2 } } },
	{ .policy = "delay(2s)", .nin = 2, .in = { { 0, 0, 4 * K }, { S, 4 * K, 4 * K } },
	  .nout = 2, .out = { { 2 * S, 0, 4 * K, 4 * K }, { 3 * S, 4 * K, 4 * K, 4 * K } } },
	{ .policy = "rate(iops=2)", .nin = 3, .in = { { 0, 0, 4 * K }, { 0, 4 * K, 4 * K }, { 0, 8 * K, 4 * K } },
	  .nout = 3, .out = { { 0, 0, 4 * K, 4 * K }, { S / 2, 4 * K, 4 * K, 4 * K }, { S, 8 * K, 4 * K, 4 * K } } },
	{ .policy = "rate(bps=4K)", .nin = 2, .in = { { 0, 0, 4 * K }, { 0, 4 * K, 8 * K } },
	  .nout = 2, .out = { { 0, 0, 4 * K, 4 * K }, { S, 4 * K, 8 * K, 8 * K } } },
	{ .policy = "sort-merge-async(window=1s,max=1M)", .nin = 2, .in = { { 0, 4 * K, 4 * K }, { 1, 0, 4 * K } },
	  .nout = 1, .out = { { S, 0, 8 * K, 8 * K } } },
};

ParameterizedTestParameters(stages, table)
{
	return cr_make_param_array(struct stage_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct stage_case *c, stages, table)
{
	struct capture cap = { .n = 0 };
	char err[1024];
	struct policy *p = policy__new(c->policy, NULL, capture_sink, &cap, err, sizeof(err));
	uint64_t end = 0;

	cr_assert_not_null(p, "%s: %s", c->policy, err);
	for (size_t i = 0; i < c->nin; i++) {
		struct ts_record r = { .time_ns = c->in[i].t, .offset = c->in[i].off, .length = c->in[i].len,
				       .kind = c->in[i].kind ? c->in[i].kind : TS_INTENT, .op = TS_OP_DISCARD,
				       .dev = 1 };

		cr_assert_eq(policy__record(p, &r), 0, "%s", policy__error(p));
		end = r.time_ns;
	}
	/* Let every timer fire, then end the trace. */
	cr_assert_eq(policy__advance(p, end + 100 * S), 0, "%s", policy__error(p));
	cr_assert_eq(policy__flush(p, end + 100 * S), 0, "%s", policy__error(p));
	cr_assert_eq(policy__next_deadline(p), UINT64_MAX, "%s", c->policy);
	cr_assert_eq(cap.n, c->nout, "%s: %zu events, expected %zu", c->policy, cap.n, c->nout);
	for (size_t i = 0; i < c->nout; i++) {
		const struct out_ev *g = &cap.ev[i], *w = &c->out[i];

		cr_expect_eq(g->t, w->t, "%s ev %zu: time %lu != %lu", c->policy, i, g->t, w->t);
		cr_expect_eq(g->off, w->off, "%s ev %zu: off %lu != %lu", c->policy, i, g->off, w->off);
		cr_expect_eq(g->len, w->len, "%s ev %zu: len %lu != %lu", c->policy, i, g->len, w->len);
		cr_expect_eq(g->bytes, w->bytes, "%s ev %zu: bytes %lu != %lu", c->policy, i, g->bytes, w->bytes);
		cr_expect_eq(g->nsegs, w->nsegs, "%s ev %zu: segs %u != %u", c->policy, i, g->nsegs, w->nsegs);
	}
	policy__destroy(p);
}

Test(stages, registry_valid)
{
	char err[1024];

	cr_assert_eq(policy_registry_validate(err, sizeof(err)), 0, "%s", err);
}

Test(stages, batch_flush_at_end_of_trace)
{
	struct capture cap = { .n = 0 };
	char err[512];
	struct policy *p = policy__new("batch(1h)", NULL, capture_sink, &cap, err, sizeof(err));
	struct ts_record r = { .time_ns = 7, .length = 4096, .kind = TS_INTENT };

	cr_assert_not_null(p, "%s", err);
	cr_assert_eq(policy__record(p, &r), 0);
	cr_assert_eq(cap.n, 0);
	cr_assert_eq(policy__next_deadline(p), 7 + 3600 * S);
	cr_assert_eq(policy__flush(p, 100), 0);
	cr_assert_eq(cap.n, 1);
	cr_assert_eq(cap.ev[0].t, 7 + 3600 * S, "released when the window would have closed");
	policy__destroy(p);
}

Test(stages, describe_is_canonical)
{
	char err[512];
	struct policy *p = policy__new("sort-merge-async(8)", NULL, capture_sink, NULL, err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	cr_assert_str_eq(policy__describe(p),
			 "source(layer=intent) | batch(window=1s,count=0) | sort | merge(max=64M,segments=1,gap=0) | "
			 "dispatch(qd=8)");
	cr_assert_eq(policy__props(p)->qd, 8);
	cr_assert_eq(policy__props(p)->source, PS_INTENT);
	policy__destroy(p);
}
