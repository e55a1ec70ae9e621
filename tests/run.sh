#!/bin/sh
# Runs Criterion suites one after another and prints one closing line:
#   "tests: N passed, N failed, N skipped"
# Usage: tests/run.sh SUITE...   (suites under a live/ directory run one test at a time)
set -u
passed=0 failed=0 skipped=0 rc=0
log=$(mktemp)
for t in "$@"; do
	echo "== $t"
	case $t in */live/*) jobs=-j1 ;; *) jobs= ;; esac
	"$t" --short-filename --verbose $jobs >"$log" 2>&1
	st=$?
	grep -v "^\[RUN \]" "$log"
	line=$(grep 'Synthesis:' "$log" | tail -1)
	tested=$(echo "$line" | sed -n 's/.*Tested: \([0-9]*\).*/\1/p')
	pass=$(echo "$line" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
	fail=$(echo "$line" | sed -n 's/.*Failing: \([0-9]*\).*/\1/p')
	skip=$(grep -c '\[SKIP\]' "$log")
	if [ -z "$tested" ]; then
		echo "$t: no Criterion synthesis (exit $st)"; failed=$((failed + 1)); rc=1; continue
	fi
	passed=$((passed + pass)); failed=$((failed + fail)); skipped=$((skipped + skip))
	[ "$st" -eq 0 ] && [ "$fail" -eq 0 ] || rc=1
done
rm -f "$log"
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $rc
