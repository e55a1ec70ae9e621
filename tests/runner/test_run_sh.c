// SPDX-License-Identifier: GPL-2.0
/*
 * tests/run.sh itself: a suite that leaks, trips UBSan or exits non-zero fails
 * the run and is named in the closing line, even when Criterion counted every
 * test as passed (issue 14: a leak in tests/models/test_profiles.c failed
 * `make test` without a failed test or a name), and a suite with no test at
 * all fails too (a merge emptied tests/traces/test_badinput.c). The suites are
 * tests/runner/suite_*.c (runner.mk builds them for this test only); "live/NAME"
 * is the same suite under a live/ directory (a symlink), which run.sh runs in its
 * second lane, beside the others: its counts and its name still reach the closing
 * line, after those of the other lane, and a lane that cannot start fails the run.
 */
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

/* Arrays, not pointers: Criterion copies the table into each test's process. */
struct run_case {
	char suites[64];	/* suite names under build/san/tests/runner/, space separated */
	int rc;
	char closing[160];	/* the closing line, %1$s the suite directory, %2$s its live/ twin */
	char output[64];	/* also in the output */
	bool broken_env;	/* an env(1) that fails first in PATH: the live lane cannot start */
};

ParameterizedTestParameters(run_sh, closing_line)
{
	static struct run_case cases[] = {
		{ .suites = "suite_clean", .rc = 0, .closing = "tests: 1 passed, 0 failed, 0 skipped",
		  .output = "[PASS] runner_clean::allocates_and_frees" },
		{ .suites = "suite_clean suite_leak", .rc = 1,
		  .closing = "tests: 2 passed, 1 failed, 0 skipped; failed suites: %s/suite_leak",
		  .output = "ERROR: LeakSanitizer: detected memory leaks" },
		{ .suites = "suite_ubsan suite_clean", .rc = 1,
		  .closing = "tests: 2 passed, 1 failed, 0 skipped; failed suites: %s/suite_ubsan",
		  .output = "runtime error: signed integer overflow" },
		{ .suites = "suite_exit", .rc = 1,
		  .closing = "tests: 1 passed, 1 failed, 0 skipped; failed suites: %s/suite_exit",
		  .output = "suite_exit: FAILED (exit 3)" },
		{ .suites = "suite_empty suite_clean", .rc = 1,
		  .closing = "tests: 1 passed, 1 failed, 0 skipped; failed suites: %s/suite_empty",
		  .output = "suite_empty: FAILED (no test in the suite)" },
		{ .suites = "suite_skip suite_clean", .rc = 0, .closing = "tests: 1 passed, 0 failed, 1 skipped",
		  .output = "[SKIP] runner_skip::skips: not here: the reason" },
		{ .suites = "suite_leak suite_clean suite_exit", .rc = 1,
		  .closing = "tests: 3 passed, 2 failed, 0 skipped; failed suites: %1$s/suite_leak %1$s/suite_exit",
		  .output = "suite_leak: FAILED (exit 1" },
		{ .suites = "live/suite_exit suite_leak live/suite_skip suite_clean", .rc = 1,
		  .closing = "tests: 3 passed, 2 failed, 1 skipped; failed suites: %1$s/suite_leak %2$s/suite_exit",
		  .output = "live/suite_exit: FAILED (exit 3)" },
		{ .suites = "live/suite_clean live/suite_skip", .rc = 0, .closing = "tests: 1 passed, 0 failed, 1 skipped",
		  .output = "[SKIP] runner_skip::skips: not here: the reason" },
		{ .suites = "suite_clean live/suite_clean", .rc = 1,
		  .closing = "tests: 1 passed, 1 failed, 0 skipped; failed suites: (live lane)",
		  .output = "the live lane ran 0 of its 1 suites", .broken_env = true },
	};

	return cr_make_param_array(struct run_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct run_case *c, run_sh, closing_line, .init = th_dir_init, .fini = th_dir_fini, .timeout = 60)
{
	char dir[512], live[600], cmd[4096], want[1024], suites[2048] = "", *out = NULL, *last;
	const char *s = c->suites;
	size_t len = 0;
	int rc;

	snprintf(dir, sizeof(dir), "%s/san/tests/runner", th_build());
	snprintf(live, sizeof(live), "%s/live", th_dir());
	cr_assert_eq(symlink(dir, live), 0);
	while (*s) {
		size_t n = strcspn(s, " ");

		if (!strncmp(s, "live/", 5))
			len += (size_t)snprintf(suites + len, sizeof(suites) - len, " '%s/%.*s'", live, (int)n - 5,
						s + 5);
		else
			len += (size_t)snprintf(suites + len, sizeof(suites) - len, " '%s/%.*s'", dir, (int)n, s);
		s += n + (s[n] == ' ');
	}
	/*
	 * The sanitizer settings of the Makefile's TEST_ENV, whatever this suite
	 * runs under; BXFI_MAP would make the inner suites take themselves for
	 * Criterion's sandboxed test processes.
	 */
	if (c->broken_env) {
		snprintf(cmd, sizeof(cmd), "mkdir '%1$s/bin' && printf '#!/bin/sh\\nexit 125\\n' > '%1$s/bin/env' && "
			 "chmod +x '%1$s/bin/env'", th_dir());
		cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	}
	snprintf(cmd, sizeof(cmd), "unset BXFI_MAP GMON_OUT_PREFIX; %s%s%sASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "
		 "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 '%s/tests/run.sh'%s 2>&1",
		 c->broken_env ? "PATH='" : "", c->broken_env ? th_dir() : "", c->broken_env ? "/bin':$PATH " : "",
		 th_src(), suites);
	rc = th_run(cmd, &out, NULL);
	cr_assert_not_null(out);
	cr_assert_eq(rc, c->rc, "%s: exit %d, expected %d:\n%s", c->suites, rc, c->rc, out);
	cr_assert(strstr(out, c->output), "%s: no '%s' in:\n%s", c->suites, c->output, out);
	len = strlen(out);
	while (len && out[len - 1] == '\n')
		out[--len] = 0;
	last = strrchr(out, '\n');
	last = last ? last + 1 : out;
	snprintf(want, sizeof(want), c->closing, dir, live);
	cr_assert_str_eq(last, want, "%s", c->suites);
	free(out);
}
