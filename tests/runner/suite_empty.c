// SPDX-License-Identifier: GPL-2.0
/*
 * For tests/runner/test_run_sh.c: a suite with no test at all, as a source
 * file emptied by a merge builds (tests/traces/test_badinput.c ran as "Tested:
 * 0" for a day and the run passed). run.sh must fail it.
 */
#include <criterion/criterion.h>
