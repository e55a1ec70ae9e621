#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: man.sh TRIMSIM OUTDIR VERSION
# Writes OUTDIR/trimsim.1 and OUTDIR/trimsim-CMD.1 for every command `TRIMSIM --help`
# lists, each from that command's own --help text (replay/cli/man.awk).
set -eu
bin=$1 out=$2 version=$3
here=$(dirname "$0")
# The page date: SOURCE_DATE_EPOCH, else the last commit's, else today (reproducible builds).
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}
date=$(date -u -d "@$epoch" +%Y-%m-%d)
# "commands:" lines of the top-level help: "  NAME   summary".
cmds=$("$bin" --help | awk '/^commands:$/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { exit }')
[ -n "$cmds" ] || { echo "man.sh: no commands in '$bin --help'" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out"/trimsim*.1
"$bin" --help | awk -v cmd= -v see="$(echo $cmds)" -v version="$version" -v date="$date" \
	-v summary="record, replay and compare discard (TRIM) policies on SSD models and devices" \
	-f "$here/man.awk" > "$out/trimsim.1"
for c in $cmds; do
	summary=$("$bin" --help | awk -v c="$c" '/^commands:$/ { on = 1; next } on && $1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
	"$bin" "$c" --help | awk -v cmd="$c" -v version="$version" -v date="$date" -v summary="$summary" \
		-f "$here/man.awk" > "$out/trimsim-$c.1"
done
