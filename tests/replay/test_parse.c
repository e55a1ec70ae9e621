// SPDX-License-Identifier: GPL-2.0
/* Policy string errors: they name the stage or option, point at the column, list what is valid. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <string.h>

#include "replay/policies/policy.h"

struct perr_case {
	char policy[96];
	char want1[96];
	char want2[96];
	int caret;		/* 0-based column the caret must point at */
};

static struct perr_case errs[] = {
	{ .policy = "batch(window=1s) | merge(maxx=4M)", .want1 = "stage 'merge' has no option 'maxx'",
	  .want2 = "options: max, segments, gap", .caret = 25 },
	{ .policy = "batch(window=fast)", .want1 = "not a valid duration", .want2 = "stage 'batch'", .caret = 13 },
	{ .policy = "bogus | sort", .want1 = "unknown stage or preset 'bogus'", .want2 = "presets: as-recorded" },
	{ .policy = "source(free) | sort(3)", .want1 = "stage 'sort' takes no bare argument", .want2 = "options: none",
	  .caret = 20 },
	{ .policy = "sort-merge-async(qd=x)", .want1 = "stage 'dispatch'", .want2 = "'x' is not a valid integer",
	  .caret = 20 },
	{ .policy = "sort-merge-async(depth=4)", .want1 = "preset 'sort-merge-async' has no option 'depth'",
	  .want2 = "options: window, count, max, segments, gap, qd", .caret = 17 },
	{ .policy = "none(1)", .want1 = "preset 'none' takes 0 bare arguments", .want2 = "none", .caret = 5 },
	{ .policy = "none(qd=1)", .want1 = "preset 'none' has no option 'qd'", .want2 = "options: none", .caret = 5 },
	{ .policy = "xfs(layer=intent)", .want1 = "preset 'xfs' has no option 'layer'", .want2 = "plug", .caret = 4 },
	{ .policy = "sort-merge-async(1,2s,3M,4,5)", .want1 = "takes 4 bare arguments",
	  .want2 = "qd,window,max,segments", .caret = 27 },
	{ .policy = "xfs(max_rq=lots)", .want1 = "stage 'blk-plug'", .want2 = "'lots' is not a valid integer",
	  .caret = 11 },
	{ .policy = "xfs(plug=maybe)", .want1 = "stage 'blk-plug'", .want2 = "enable", .caret = 9 },
	{ .policy = "batch(1s", .want1 = "expected ',' or ')'", .want2 = "batch", .caret = 8 },
	{ .policy = "batch(1s) sort", .want1 = "unexpected 's'", .want2 = "expected '('", .caret = 10 },
	{ .policy = "batch(1s) |", .want1 = "expected a stage or preset name", .want2 = "stages: source", .caret = 11 },
	{ .want1 = "empty policy", .want2 = "trimsim policies" },
	{ .policy = "source(layer=disk)", .want1 = "'disk' is not one of", .want2 = "none, free, intent, bio, issue",
	  .caret = 13 },
	{ .policy = "dispatch(qd=100000)", .want1 = "out of range", .want2 = "qd", .caret = 12 },
	{ .policy = "merge(max=)", .want1 = "option 'max' has no value", .want2 = "merge", .caret = 10 },
};

ParameterizedTestParameters(parse, errors)
{
	return cr_make_param_array(struct perr_case, errs, sizeof(errs) / sizeof(errs[0]));
}

static int null_sink(void *arg, const struct policy_event *ev)
{
	(void)arg, (void)ev;
	return 0;
}

ParameterizedTest(struct perr_case *c, parse, errors)
{
	char err[2048];
	struct policy *p = policy__new(c->policy, NULL, null_sink, NULL, err, sizeof(err));
	const char *caret, *line;

	cr_assert_null(p, "'%s' parsed", c->policy);
	cr_assert_eq(errno, EINVAL);
	cr_expect(strstr(err, c->want1), "'%s': missing '%s' in:\n%s", c->policy, c->want1, err);
	cr_expect(strstr(err, c->want2), "'%s': missing '%s' in:\n%s", c->policy, c->want2, err);
	/* Three lines: message, the policy indented by 2, the caret line. */
	line = strrchr(err, '\n');
	cr_assert_not_null(line, "%s", err);
	caret = strchr(line, '^');
	cr_assert_not_null(caret, "%s", err);
	cr_expect_eq((int)(caret - line - 3), c->caret, "'%s': caret at %d, want %d:\n%s", c->policy,
		     (int)(caret - line - 3), c->caret, err);
	cr_expect(strstr(err, c->policy), "the policy text is echoed");
}

struct pok_case {
	char policy[128];
	char desc[384];
};

static struct pok_case oks[] = {
	{ .policy = "min(64K)", .desc = "min(len=64K)" },
	{ .policy = " batch( window = 500ms ) |sort|merge(max=64M, segments=64)| min(64K) | split(max=2G) ",
	  .desc = "batch(window=500ms,count=0) | sort | merge(max=64M,segments=64,gap=0) | min(len=64K) | "
		  "split(max=2G)" },
	{ .policy = "passthrough", .desc = "source(layer=intent) | dispatch(qd=1)" },
	{ .policy = "as-recorded", .desc = "source(layer=issue) | chain(enable=true,wait=auto) | dispatch(qd=0)" },
	{ .policy = "as-recorded(chain=0)", .desc = "source(layer=issue) | chain(enable=false,wait=auto) | dispatch(qd=0)" },
	{ .policy = "source(issue) | chain(0)", .desc = "source(layer=issue) | chain(enable=false,wait=auto)" },
	{ .policy = "as-recorded(wait=all)", .desc = "source(layer=issue) | chain(enable=true,wait=all) | dispatch(qd=0)" },
	{ .policy = "none", .desc = "source(layer=none)" },
	{ .policy = "passthrough | delay(2s)", .desc = "source(layer=intent) | dispatch(qd=1) | delay(t=2s)" },
	{ .policy = "rate(100, bps=1M)", .desc = "rate(iops=100,bps=1M)" },
	/* a preset forwards its arguments to its stages' options (by name, alias or position) */
	{ .policy = "sort-merge-async(8)", .desc = "source(layer=intent) | batch(window=1s,count=0) | sort | "
		  "merge(max=64M,segments=1,gap=0) | dispatch(qd=8)" },
	{ .policy = "sort-merge-async(4,10ms,1M,16)", .desc = "source(layer=intent) | batch(window=10ms,count=0) | "
		  "sort | merge(max=1M,segments=16,gap=0) | dispatch(qd=4)" },
	{ .policy = "sort-merge-async(count=3,gap=4K)", .desc = "source(layer=intent) | batch(window=1s,count=3) | "
		  "sort | merge(max=64M,segments=1,gap=4K) | dispatch(qd=32)" },
	{ .policy = "xfs(plug=0,push_flush=0,max_rq=4,flush_size=1M)", .desc = "source(layer=free) | "
		  "xfs-cil(commit=30s,push_flush=0,unwritten=true) | blk-plug(enable=false,segments=0,max=0,max_rq=4,"
		  "flush_size=1M) | dispatch(qd=0)" },
	{ .policy = "xfs(1m,0)", .desc = "source(layer=free) | xfs-cil(commit=1m,push_flush=auto,unwritten=true) | "
		  "blk-plug(enable=false,segments=0,max=0,max_rq=32,flush_size=128K) | dispatch(qd=0)" },
	{ .policy = "f2fs(max_requests=4,block=16K)", .desc = "source(layer=free) | f2fs-discard(granularity=16,"
		  "block=16K,max_requests=4,min_interval=50ms,mid_interval=500ms,max_interval=1m,idle=5s,"
		  "checkpoint=1m,io_aware=true,drain=true) | dispatch(qd=4)" },
	{ .policy = "fstrim(1d,64K,group=1G)", .desc = "source(layer=free) | fitrim(interval=1d,minlen=64K,first=0ns,"
		  "final=true,mode=untrimmed,group=1G,commit=5s) | dispatch(qd=1)" },
	{ .policy = "as-recorded(qd=4)", .desc = "source(layer=issue) | chain(enable=true,wait=auto) | dispatch(qd=4)" },
};

ParameterizedTestParameters(parse, accepted)
{
	return cr_make_param_array(struct pok_case, oks, sizeof(oks) / sizeof(oks[0]));
}

ParameterizedTest(struct pok_case *c, parse, accepted)
{
	char err[2048];
	struct policy *p = policy__new(c->policy, NULL, null_sink, NULL, err, sizeof(err));

	cr_assert_not_null(p, "'%s': %s", c->policy, err);
	cr_expect_str_eq(policy__describe(p), c->desc);
	policy__destroy(p);
}

/* Random policy strings from the grammar's alphabet: never a crash, always a message when rejected. */
Test(parse, random_strings)
{
	static const char *const atoms[] = {
		"batch", "sort", "merge", "min", "split", "source", "dispatch", "delay", "rate", "align",
		"sort-merge-async", "none", "passthrough", "(", ")", "|", ",", "=", " ", "1s", "64K", "max",
		"qd", "window", "x", "0", "-1", "$", "${qd}", "free", "layer", "((", "))", "||", "==",
	};
	uint64_t s = 12345;

	for (int n = 0; n < 5000; n++) {
		char spec[256] = "", err[2048];
		int len = 1 + (int)((s >> 7) % 12);
		struct policy *p;

		for (int k = 0; k < len; k++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			strncat(spec, atoms[s % (sizeof(atoms) / sizeof(atoms[0]))], sizeof(spec) - strlen(spec) - 1);
		}
		err[0] = 0;
		p = policy__new(spec, NULL, null_sink, NULL, err, sizeof(err));
		if (p)
			policy__destroy(p);
		else
			cr_assert(err[0] && strstr(err, "policy"), "'%s' rejected without a message", spec);
	}
}
