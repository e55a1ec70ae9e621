// SPDX-License-Identifier: GPL-2.0
/* For tests/runner/test_run_sh.c: a suite tests/run.sh must count as passed. */
#include <criterion/criterion.h>
#include <stdlib.h>

Test(runner_clean, allocates_and_frees)
{
	char *p = malloc(64);

	cr_assert_not_null(p);
	free(p);
}
