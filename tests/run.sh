#!/bin/sh
# Runs Criterion suites and prints one closing line:
#   "tests: N passed, N failed, N skipped"
# followed by "; failed suites: A B" when any suite failed. A suite fails when
# a test fails, when it exits non-zero or is killed (a crash, LeakSanitizer's
# exit at the end of a test process), when Criterion prints no synthesis, or
# when it holds no test at all, run or skipped (a source file emptied by a merge
# ran as 0 of 0),
# when its output holds a sanitizer report (AddressSanitizer, LeakSanitizer,
# UndefinedBehaviorSanitizer "runtime error") or "crashed during its setup or
# teardown", even if Criterion counted every test as passed. A suite that
# failed only that way counts as one failed test. Exit status 1 if any failed.
# Usage: tests/run.sh SUITE...   (suites under a live/ directory run one test at a time)
#
# Two lanes: the live suites one after another (each one test at a time: they are
# mostly waiting on devices), beside them the other suites one after another (each
# on every core, as Criterion runs them). The live lane is this script again, with
# RUN_SH_LANE naming the file its counts go to; its output follows the other lane's.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# suite PATH TALLY: runs one suite, prints its output, adds "pass fail skip [PATH]" to TALLY.
suite() {
	t=$1 tally=$2 log=$tmp/log
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
	why=
	if [ -z "$tested" ]; then
		why="no Criterion synthesis"; pass=0 fail=0
	elif [ "$tested" -eq 0 ] && [ "$skip" -eq 0 ]; then
		why="no test in the suite"
	elif [ "$fail" -ne 0 ]; then
		why="$fail failing"
	fi
	[ "$st" -ne 0 ] && why="${why:+$why, }exit $st"
	reports=$(grep -cE 'Sanitizer|runtime error|crashed during its setup or teardown' "$log")
	[ "$reports" -ne 0 ] && why="${why:+$why, }$reports sanitizer/teardown report lines"
	bad=
	if [ -n "$why" ]; then
		echo "$t: FAILED ($why)"
		[ "$fail" -eq 0 ] && fail=1
		bad=$t
	fi
	echo "$pass $fail $skip $bad" >>"$tally"
}

# lane unit|live TALLY SUITE...: the suites of that lane, one after another.
lane() {
	which=$1 tally=$2
	shift 2
	for t in "$@"; do
		case $t in */live/*) [ "$which" = live ] || continue ;; *) [ "$which" = unit ] || continue ;; esac
		suite "$t" "$tally"
	done
}

if [ -n "${RUN_SH_LANE:-}" ]; then	# the live lane of another run.sh: its counts only
	lane live "$RUN_SH_LANE" "$@"
	exit 0
fi

units=0 lives=0
for t in "$@"; do
	case $t in */live/*) lives=$((lives + 1)) ;; *) units=$((units + 1)) ;; esac
done
: >"$tmp/unit"
: >"$tmp/live"
if [ "$units" -gt 0 ] && [ "$lives" -gt 0 ]; then
	# an asynchronous command starts with SIGINT and SIGQUIT ignored: env gives the live suites the defaults
	RUN_SH_LANE=$tmp/live env --default-signal=INT,QUIT sh "$0" "$@" >"$tmp/live.out" 2>&1 &
	lane unit "$tmp/unit" "$@"
	wait
	cat "$tmp/live.out"
else
	lane unit "$tmp/unit" "$@"
	lane live "$tmp/live" "$@"
fi

passed=0 failed=0 skipped=0 bad=
while read -r p f s b; do
	[ -n "$p" ] || continue
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	[ -n "$b" ] && bad="$bad $b"
done <<END
$(cat "$tmp/unit" "$tmp/live")
END
ran=$(grep -c . "$tmp/live")
if [ "$ran" -ne "$lives" ]; then	# the lane itself failed (env, sh): its suites must not just vanish
	echo "tests/run.sh: the live lane ran $ran of its $lives suites"
	failed=$((failed + 1)); bad="$bad (live lane)"
fi
if [ -n "$bad" ]; then
	echo "tests: $passed passed, $failed failed, $skipped skipped; failed suites:$bad"
	exit 1
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit 0
