// SPDX-License-Identifier: GPL-2.0
/*
 * For tests/runner/test_run_sh.c: every test passes and Criterion prints its
 * synthesis, then the runner process exits 3 (as a crash in a destructor or a
 * sanitizer's exit code would).
 */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void exit_3(void)
{
	fflush(NULL);
	_exit(3);
}

/* Report hooks run in the runner only, after the last test: exit 3 once Criterion is done. */
ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	(void)stats;
	atexit(exit_3);
}

Test(runner_exit, passes)
{
	cr_assert_eq(1 + 1, 2);
}
