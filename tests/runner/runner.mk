# tests/run.sh's own test (tests/runner/test_run_sh.c) runs run.sh over the small suites
# tests/runner/suite_*.c: one clean, one skipped, one with no test, the others leaking, tripping UBSan or
# exiting non-zero while Criterion counts every test as passed. Their names do not match test_*.c, so they are built for
# that test only and never run as suites of their own.
RUNNER_SUITES := $(patsubst %.c,$(BUILD)/san/%,$(wildcard tests/runner/suite_*.c))
$(BUILD)/san/tests/runner/test_run_sh: | $(RUNNER_SUITES)
