// SPDX-License-Identifier: GPL-2.0
/*
 * For tests/runner/test_run_sh.c: the test passes, but a process it starts (as
 * tests start trimsim) overflows a signed int: UndefinedBehaviorSanitizer
 * prints "runtime error" into the suite's output and stops that process.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int big = INT_MAX;

Test(runner_ubsan, child_overflows)
{
	pid_t pid = fork();
	int st = 0;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		big = big + 1;
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(!WIFEXITED(st) || WEXITSTATUS(st), "UBSan let the overflow pass");
}
