// SPDX-License-Identifier: GPL-2.0
/*
 * For tests/runner/test_run_sh.c: a suite whose one test skips itself with a
 * reason (a live test on a machine without what it needs): it passes the run
 * as skipped, unlike a suite with no test at all (suite_empty.c).
 */
#include <criterion/criterion.h>

Test(runner_skip, skips)
{
	cr_skip_test("not here: the reason");
}
