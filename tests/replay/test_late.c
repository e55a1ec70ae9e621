// SPDX-License-Identifier: GPL-2.0
/*
 * The pipeline's clock on a real-time target (policy.h, "Time"): completions
 * arrive when the device says, later than the trace planned, so a completion
 * moves the pipeline's now past the next record's trace time. Every preset
 * must take a record (or a completion) that arrives behind now and emit at
 * now, never fail with "emitted a request ... before now" (issue 14: xfs-cil
 * did, on a loop device). Driven at the policy level with recorded corpus
 * traces and a device that answers every command LAG after it was planned.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "replay/policies/policy.h"
#include "traces/trace.h"

#define MS 1000000ull
#define LAG (300 * MS)	/* a slow device: each completion 300 ms after the command was due */
#define PEND 65536

struct late_sink {
	uint64_t due[PEND];	/* completion times of commands emitted and not completed yet */
	uint64_t bytes[PEND];
	size_t head, n;
	uint64_t cmds, total;
	uint64_t lag;	/* when each command completes after it was due: LAG, or 0 on time */
};

static int late_sink(void *arg, const struct policy_event *ev)
{
	struct late_sink *s = arg;

	cr_assert_lt(s->n, (size_t)PEND);
	s->due[(s->head + s->n) % PEND] = ev->time_ns + s->lag;
	s->bytes[(s->head + s->n++) % PEND] = ev->bytes;
	s->cmds++;
	s->total += ev->bytes;
	return 0;
}

/*
 * Completes the commands emitted so far that are due by until, in order, at their time: late,
 * every one (until UINT64_MAX), so that now moves past the next record. A stage that waits
 * for completions (chain) gets them on time too.
 */
static int complete_due(struct policy *p, struct late_sink *s, uint64_t until)
{
	while (s->n && s->due[s->head] <= until) {
		struct policy_done d = { .submit_ns = s->due[s->head] - s->lag, .done_ns = s->due[s->head],
					 .bytes = s->bytes[s->head], .count = 1 };
		int ret;

		s->head = (s->head + 1) % PEND;
		s->n--;
		if ((ret = policy__complete(p, &d)))
			return ret;
	}
	return 0;
}

/* Replays trace through policy; with late, a device that completes every command LAG late. */
static int run(const char *trace, const char *policy, bool late, struct late_sink *s, char *err, size_t errlen)
{
	char path[1024];
	struct trace_reader *r;
	const struct ts_device *dev;
	const struct ts_record *recs;
	struct policy_env env = { .seed = 1 };
	struct policy *p;
	uint64_t last = 0;
	ssize_t n;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/traces/corpus/%s", th_src(), trace);
	r = trace_reader__open(path, err, errlen);
	cr_assert_not_null(r, "%s", err);
	dev = trace_reader__replay_device(r);
	env.dev = dev;
	env.devno = dev ? dev->dev : 0;
	s->lag = late ? LAG : 0;
	p = policy__new(policy, &env, late_sink, s, err, errlen);
	cr_assert_not_null(p, "%s", err);
	while (!ret && (n = trace_reader__batch(r, &recs, 4096)) > 0) {
		for (ssize_t i = 0; i < n && !ret; i++) {
			if (env.devno && recs[i].dev != env.devno)
				continue;
			ret = complete_due(p, s, late ? UINT64_MAX : recs[i].time_ns);
			if (!ret)
				ret = policy__record(p, &recs[i]);
			last = recs[i].time_ns;
		}
	}
	if (!ret)
		ret = policy__flush(p, last);
	if (!ret)
		ret = complete_due(p, s, UINT64_MAX);
	if (ret)
		snprintf(err, errlen, "%s", policy__error(p));
	policy__destroy(p);
	trace_reader__close(r);
	return ret;
}

struct late_case {
	char trace[48];
	char policy[24];
	bool same;	/* the commands do not depend on when completions come: same bytes late or not */
};

static struct late_case cases[] = {
	{ "xfs-discard-churn.tsim", "xfs", true },
	{ "xfs-discard-db.tsim", "xfs", true },
	{ "xfs-discard-rmtree.tsim", "xfs", true },
	{ "xfs-discard-churn.tsim", "as-recorded", true },
	{ "xfs-discard-churn.tsim", "passthrough", true },
	{ "xfs-discard-churn.tsim", "sort-merge-async", false },
	{ "xfs-discard-churn.tsim", "ufs", true },
	{ "xfs-discard-churn.tsim", "ufs-trimcons", true },
	{ "xfs-discard-churn.tsim", "f2fs", false },
	{ "xfs-discard-churn.tsim", "fstrim", false },
	{ "xfs-discard-churn.tsim", "btrfs-async", false },
	{ "ext4-discard-churn.tsim", "ext4", false },
	{ "ext4-discard-db.tsim", "ext4", false },
	{ "ext4-discard-churn.tsim", "f2fs", false },
	{ "ext4-fstrim-pass.tsim", "fstrim", false },
	{ "btrfs-discard-churn.tsim", "as-recorded", true },
};

ParameterizedTestParameters(late, completions_behind_now)
{
	return cr_make_param_array(struct late_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct late_case *c, late, completions_behind_now, .timeout = 120)
{
	static struct late_sink on_time, late;	/* 1 MiB each: off the stack */
	char err[1024] = "";

	memset(&on_time, 0, sizeof(on_time));
	memset(&late, 0, sizeof(late));
	cr_assert_eq(run(c->trace, c->policy, false, &on_time, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(run(c->trace, c->policy, true, &late, err, sizeof(err)), 0, "%s x %s, completions %llu ms late: %s",
		     c->trace, c->policy, LAG / MS, err);
	cr_assert_gt(on_time.cmds, 0, "%s x %s: no command at all", c->trace, c->policy);
	cr_assert_gt(late.cmds, 0, "%s x %s: no command with a late device", c->trace, c->policy);
	if (c->same) {
		cr_expect_eq(late.cmds, on_time.cmds, "%s x %s: commands", c->trace, c->policy);
		cr_expect_eq(late.total, on_time.total, "%s x %s: bytes", c->trace, c->policy);
	}
}
