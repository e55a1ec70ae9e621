// SPDX-License-Identifier: GPL-2.0
/*
 * For tests/runner/test_run_sh.c: every test passes, but the test process
 * leaks. LeakSanitizer reports it when the process exits, Criterion says the
 * test "crashed during its setup or teardown" and still counts it as passed.
 * 64 blocks, each dropped by its own call, so that a pointer left on the stack
 * (which LeakSanitizer takes for a reference) cannot hide them all.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

static void *volatile last;

static __attribute__((noinline)) void drop_one(void)
{
	last = malloc(512);
	cr_assert_not_null(last);
	last = NULL;
}

Test(runner_leak, drops_its_blocks)
{
	for (int i = 0; i < 64; i++)
		drop_one();
	cr_assert_null(last);
}
