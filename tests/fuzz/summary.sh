#!/bin/sh
# One line from a libFuzzer log: tests/fuzz/summary.sh NAME LOG
#   NAME: N execs in S s, cov E edges, ft F, corpus C inputs[, CRASH: first error line]
n=$1 log=$2
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
crash=$(grep -m1 -E '^==[0-9]+==ERROR|^SUMMARY: |runtime error|ALARM: working on the last Unit|out-of-memory' "$log")
echo "$n: ${execs:-?} execs in ${secs:-?} s, cov ${cov:-?} edges, ft ${ft:-?}, corpus ${corp:-?} inputs${crash:+, CRASH: $crash}"
