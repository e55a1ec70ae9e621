#!/bin/sh
# trimsim demo: the bundled corpus through the presets that matter, against the
# bundled device profiles; prints one line per trace and profile (the full table
# and verdict go to out/report.txt), writes out/report.html and out/report.json;
# then `trimsim recommend` on every trace prints the setting to use per trace and
# device and writes out/recommend.html and out/recommend.txt.
#
#   replay/report/demo.sh [OUTDIR]        (make demo runs it from the top of the tree)
#
# Environment: TRIMSIM (binary, default build/trimsim), DEMO_PROFILES (comma list, or
# "all" for every bundled profile; default: five, below), DEMO_JOBS (default: online CPUs),
# DEMO_GEN_ONLY=1 (write the synthetic traces and stop), DEMO_RECOMMEND (the traces recommend
# searches: file names under traces/corpus/, "all", or "none"; default all -- recommend
# replays some 24 settings per trace and device: the 31 corpus traces on the five profiles,
# 3,659 cells, took 13-17 s on the 2-core VM, 2026-12-07).
#
# Traces: traces/corpus/*.tsim when the corpus is there. Without it, the script
# writes two synthetic traces (JSON Lines, converted to binary) that stand for the
# seed threads, and says so:
#  - demo-rm-xfs: `rm -rf` of a kernel tree on XFS with online discard (seed 001):
#    39,395 freed extents of 13.2 KiB on average over 3 s, log commits every 30 ms,
#    the discards XFS issued (as recorded on a fast SSD) and its log writes;
#  - demo-build-ext4: a 20-minute CPU-bound build on ext4 (seed 002): a few
#    hundred frees, compiler output writes; discard cannot matter here.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TRIMSIM:-$top/build/trimsim}
out=${1:-$top/out}
policies='as-recorded,xfs,ext4,ufs,ufs-trimcons,btrfs-async,fstrim,sort-merge-async,none'
jobs=${DEMO_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}

[ -x "$bin" ] || { echo "demo: $bin not built (run make)" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out/report.html" "$out/report.json" "$out/report.txt" "$out/recommend.html" "$out/recommend.txt"

# The profiles: the bundled ones the seed threads are about -- SandForce SF-2281 and a
# good SATA SSD (seed 001), NVMe, an SD card (seed 000), an FTL with GC (seed 004) --
# so the whole corpus stays well under two minutes on two cores. DEMO_PROFILES=all
# takes every profile `trimsim models` lists (each paragraph starts "name (model):").
profiles=${DEMO_PROFILES:-sata-sf2281,sata-good,nvme,sdcard,ftl-sata}
if [ "$profiles" = all ]; then
	profiles=$("$bin" models 2>/dev/null | awk '/^[a-z0-9][a-z0-9_.-]* \(/ { print $1 }' | paste -sd, -)
fi
[ -n "$profiles" ] || { echo "demo: no device profiles (trimsim models lists none)" >&2; exit 1; }

# ---- synthetic traces (only when the corpus is absent) ----

# Header line of a JSON Lines trace: one device.
header() { # name dev size fs granularity max_bytes segments fs_block agblocks
	printf '{"trimsim":1,"header":{"cmdline":["replay/report/demo.sh"],"devices":[{"dev":"%s","discard_granularity":%s,"discard_max_bytes":%s,"fs":"%s","fs_block_size":%s,"logical_block_size":512,"max_discard_segments":%s,"name":"%s","physical_block_size":4096,"rotational":false,"size":%s,"xfs_agblocks":%s}],"format":"trimsim","host":"demo","kernel":"synthetic","recorder":"trimsim demo.sh (synthetic)","start_ns":1000000000,"start_wall":"2026-01-01T00:00:00.000000000Z","version":1}}\n' \
		"$2" "$5" "$6" "$4" "$8" "$7" "$1" "$3" "$9"
}

# Reads records as "time<TAB>json" on stdin, appends them to FILE sorted by time
# (stable), then the footer with the end time the generator left in FILE.end.
finish() { # file
	sort -t '	' -k1,1n -s | cut -f2- >"$1.body"
	n=$(wc -l <"$1.body")
	# a pipeline hides the generator's exit status: an empty body means it failed
	[ "$n" -gt 0 ] && [ -s "$1.end" ] || { echo "demo: generating $1 failed" >&2; exit 1; }
	cat "$1.body" >>"$1"
	printf '{"footer":{"records":%s,"lost":0,"end_ns":%s}}\n' "$n" "$(cat "$1.end")" >>"$1"
	rm -f "$1.body" "$1.end"
}

# awk functions of both generators: rec() writes one record behind its time (finish sorts by it);
# cmd_start() and cmd_stop() write the traced command's start and stop with the free-space snapshot
# (n free extents of len bytes, stride apart from base) before the start and after the stop, as the
# recorder does; cmd_stop() leaves the end time on stderr for finish.
gen_awk='
	function rec(t, kind, op, off, len, ino, lat, flags) {
		printf "%.0f\t{\"t\":%.0f,\"kind\":\"%s\",\"op\":\"%s\",\"dev\":\"%s\",\"off\":%.0f,\"len\":%.0f,\"ino\":%.0f,\"lat\":%.0f,\"flags\":\"%s\"}\n", t, t, kind, op, dev, off, len, ino, lat, flags
	}
	function snapshot(t, n, base, stride, len, flags,    k) {
		for (k = 0; k < n; k++) rec(t, "META", "freespace", base + k * stride, len, 0, 0, flags)
	}
	function cmd_start(t, pid, n, base, stride, len) {
		snapshot(t, n, base, stride, len, "")
		rec(t, "META", "cmd-start", 0, 0, pid, 0, "")
	}
	function cmd_stop(t, pid, n, base, stride, len) {
		rec(t, "META", "cmd-stop", 0, 0, pid, 0, "")
		snapshot(t, n, base, stride, len, "snap-end")
		printf "%.0f\n", t > "/dev/stderr"
	}'

gen_rm_xfs() {
	f=$1
	header sda 8:0 128035676160 xfs 512 2147450880 1 4096 7814144 >"$f"
	awk 'BEGIN {
		OFS = "\t"; dev = "8:0"; t0 = 1000000000; x = 42
		n = 39395			# seed 001: calls to blkdev_issue_discard() for XFS
		step = 76000			# 3 s of rm -rf
		cmd_start(t0, 4242, 4, 64 * 2^30, 12 * 2^30, 10 * 2^30)	# four large free extents
		commit = 0; pend = 0; busy = t0; nxt = 2^30
		for (i = 0; i < n; i++) {
			t = t0 + 1000 + i * step
			x = (x * 16807) % 2147483647
			blocks = 1 + (x % 6)
			if (blocks > 1 && (x % 5) == 0) blocks--
			len = blocks * 4096	# 3.3 blocks, 13.6 KiB on average
			off = nxt; nxt += len + ((x % 1000) == 0 ? 65536 : 0)	# a freshly unpacked tree: nearly contiguous
			rec(t, "FREE", "none", off, len, 100000 + int(i / 9), 0, "xfs")
			po[pend] = off; pl[pend] = len; pend++
			# log commit every 30 ms: XFS discards the busy extents after the commit
			if (t >= t0 + (commit + 1) * 30000000 || i == n - 1) {
				commit++
				ct = t + 500
				rec(ct, "META", "commit", 0, 0, commit, 0, "")
				rec(ct, "ISSUE", "write", 2^30 - 2^24 + (commit % 64) * 32768, 32768, 1201, 0, "xfs|sync|fua")
				rec(ct + 180000, "DONE", "write", 2^30 - 2^24 + (commit % 64) * 32768, 32768, 1201, 180000, "xfs|sync|fua")
				if (busy < ct) busy = ct
				for (k = 0; k < pend; k++) {
					rec(ct + 1, "INTENT", "none", po[k], pl[k], 0, 0, "xfs")
					rec(busy, "BIO", "discard", po[k], pl[k], 1201, 0, "")
					rec(busy + 2000, "ISSUE", "discard", po[k], pl[k], 1201, 0, "")
					rec(busy + 2000 + 95000, "DONE", "discard", po[k], pl[k], 1201, 95000, "")
					busy += 99000
				}
				pend = 0
			}
		}
		cmd_stop(busy > t + 1000000 ? busy : t + 1000000, 4242, 4, 64 * 2^30, 12 * 2^30, 10 * 2^30)
	}'"$gen_awk" 2>"$f.end" | finish "$f"
}

gen_build_ext4() {
	f=$1
	header nvme0n1p2 259:2 512110190592 ext4 512 2199023255040 256 4096 0 >"$f"
	awk 'BEGIN {
		OFS = "\t"; dev = "259:2"; t0 = 1000000000; x = 7
		cmd_start(t0, 777, 2, 100 * 2^30, 50 * 2^30, 40 * 2^30)
		span = 1200 * 1000000000	# seed 002: a 20-minute build, CPU-bound
		for (t = t0 + 50000000; t < t0 + span; t += 100000000) {
			x = (x * 16807) % 2147483647
			off = 10 * 2^30 + (x % 1000000) * 65536
			rec(t, "ISSUE", "write", off, 131072, 900, 0, "")
			rec(t + 60000, "DONE", "write", off, 131072, 900, 60000, "")
			if (x % 10 == 0) {	# the linker replaces an object file
				rec(t + 100, "FREE", "none", off + 2^30, 262144, 5000 + int(t / 1e9), 0, "ext4")
			}
			if ((t - t0) % 5000000000 < 100000000) rec(t + 200, "META", "commit", 0, 0, int((t - t0) / 5e9), 0, "")
		}
		cmd_stop(t0 + span, 777, 2, 100 * 2^30, 50 * 2^30, 40 * 2^30)
	}'"$gen_awk" 2>"$f.end" | finish "$f"
}

recommend=${DEMO_RECOMMEND:-all}
set -- "$top"/traces/corpus/*.tsim
if [ ! -e "$1" ]; then
	echo "demo: traces/corpus/ is empty here; using two synthetic traces (seed 001 rm -rf on XFS, seed 002 build on ext4)"
	gen_rm_xfs "$out/demo-rm-xfs.jsonl"
	gen_build_ext4 "$out/demo-build-ext4.jsonl"
	for t in demo-rm-xfs demo-build-ext4; do
		if "$bin" convert "$out/$t.jsonl" "$out/$t.tsim" 2>/dev/null; then
			rm -f "$out/$t.jsonl"
		else
			mv "$out/$t.jsonl" "$out/$t.tsim.jsonl"
			ln -sf "$t.tsim.jsonl" "$out/$t.tsim"
		fi
	done
	set -- "$out/demo-rm-xfs.tsim" "$out/demo-build-ext4.tsim"
	[ -n "${DEMO_RECOMMEND:-}" ] || recommend=all
fi
[ -z "${DEMO_GEN_ONLY:-}" ] || exit 0

echo "demo: $# trace(s) x 9 policies x $(echo "$profiles" | tr , '\n' | wc -l) profiles, $jobs jobs"
# the full table and verdict go to report.txt; the terminal gets one line per trace and profile
"$bin" compare "$@" -p "$policies" -M "$profiles" --jobs "$jobs" --format summary \
	-o "$out/report.html" -o "$out/report.json" -o "$out/report.txt"
echo "demo: the full table and verdict: $out/report.txt"
echo "demo: wrote $out/report.html"
echo "demo: wrote $out/report.json"
echo "demo: wrote $out/report.txt"

# ---- recommend: the setting to use per trace and device ----
case $recommend in
none) exit 0 ;;
all) ;;
*)
	dir=$(dirname "$1")
	set --
	for t in $recommend; do
		[ -e "$dir/$t" ] || { echo "demo: DEMO_RECOMMEND: $dir/$t: no such trace" >&2; exit 1; }
		set -- "$@" "$dir/$t"
	done ;;
esac
echo "demo: recommend: $# trace(s) x $(echo "$profiles" | tr , '\n' | wc -l) profiles (DEMO_RECOMMEND to choose)"
"$bin" recommend "$@" -M "$profiles" --jobs "$jobs" -o "$out/recommend.html" >"$out/recommend.txt"
# one line per trace and device from the text report: "== T on P (...)", "  discard: ...", "  recommended: S"
awk '/^== / { sub(/^== /, ""); sub(/ \(fs .*$/, ""); sub(/^.*\//, ""); pair = $0; next }
	/^  discard: / { d = $0; sub(/^  discard: /, "", d); sub(/:.*$/, "", d); sub(/ \(.*$/, "", d); next }
	/^  recommended: / { s = $0; sub(/^  recommended: /, "", s); printf "  %s: use %s (discard: %s)\n", pair, s, d; next }
	/^  no recommendation: / { s = $0; sub(/^  /, "", s); printf "  %s: %s\n", pair, s }' "$out/recommend.txt"
echo "demo: the settings to apply and why: $out/recommend.txt"
echo "demo: wrote $out/recommend.html"
