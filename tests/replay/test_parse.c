// SPDX-License-Identifier: GPL-2.0
/* Policy string errors: they name the stage or option, point at the column, list what is valid. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <string.h>

#include "replay/policy.h"

struct perr_case {
	char policy[96];
	char want1[96];
	char want2[96];
	int caret;		/* 0-based column the caret must point at */
};

static struct perr_case errs[] = {
	{ "batch(window=1s) | merge(maxx=4M)", "stage 'merge' has no option 'maxx'",
	  "options: max, segments, gap", 25 },
	{ "batch(window=fast)", "not a valid duration", "stage 'batch'", 13 },
	{ "bogus | sort", "unknown stage or preset 'bogus'", "presets: as-recorded", 0 },
	{ "source(free) | sort(3)", "stage 'sort' takes no bare argument", "options: none", 20 },
	{ "sort-merge-async(qd=x)", "stage 'dispatch'", "'x' is not a valid integer", 20 },
	{ "sort-merge-async(depth=4)", "preset 'sort-merge-async' has no tunable 'depth'",
	  "tunables: qd, window, max, segments", 17 },
	{ "none(1)", "preset 'none' takes 0 arguments", "none", 5 },
	{ "batch(1s", "expected ',' or ')'", "batch", 8 },
	{ "batch(1s) sort", "unexpected 's'", "expected '('", 10 },
	{ "batch(1s) |", "expected a stage or preset name", "stages: source", 11 },
	{ "", "empty policy", "trimsim policies", 0 },
	{ "source(layer=disk)", "'disk' is not one of", "none, free, intent, bio, issue", 13 },
	{ "dispatch(qd=100000)", "out of range", "qd", 12 },
	{ "merge(max=)", "option 'max' has no value", "merge", 10 },
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
	char desc[256];
};

static struct pok_case oks[] = {
	{ "min(64K)", "min(len=64K)" },
	{ " batch( window = 500ms ) |sort|merge(max=64M, segments=64)| min(64K) | split(max=2G) ",
	  "batch(window=500ms,count=0) | sort | merge(max=64M,segments=64,gap=0) | min(len=64K) | split(max=2G)" },
	{ "passthrough", "source(layer=intent) | dispatch(qd=1)" },
	{ "as-recorded", "source(layer=issue) | dispatch(qd=0)" },
	{ "none", "source(layer=none)" },
	{ "passthrough | delay(2s)", "source(layer=intent) | dispatch(qd=1) | delay(t=2s)" },
	{ "rate(100, bps=1M)", "rate(iops=100,bps=1M)" },
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
