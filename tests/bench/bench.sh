#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: every speed figure of issue 9, measured side by side in one run.
# Each measurement runs BENCH_REPS times; medians and ratios of medians are printed. Exceptions, said in
# the output: xfs on the 10M trace and compare run once (no target rests on them; they are the longest).
#   BUILD          build directory holding trimsim and bench/ (make bench sets it)
#   BENCH_EVENTS   records in the big synthetic trace (default 10000000)
#   BENCH_SMALL    records in the trace for the slower replays and fio (default 2000000)
#   BENCH_REPS     repetitions per measurement (default 7: the replays on this VM are bimodal, BENCHMARKS.md)
#   BENCH_READ_ROUNDS  interleaved rounds of section 1's read variants (default 9)
#   BENCH_FILES    files in the recorder's discard storm (default 100000)
#   BENCH_REC_REPS interleaved runs without and with the recorder in section 4 (default 7, at least BENCH_REPS)
#   BENCH_COMPARE_TIMEOUT  seconds the compare run may take (default 120)
#   BENCH_SECTIONS which sections to run (default "1 2 3 4 5 6")
#   BENCH_SWEEP_PROFILES  recommend's profiles in section 6 (default: make demo's five)
#   BENCH_SCATTER  scattered discards in section 3's second fio input (default 1000000)
#   BENCH_DIR      where inputs go (default a fresh mktemp -d under /tmp, removed at the end)
# Root-only sections print "skipped: <reason>". BENCHMARKS.md records a run.
set -u
export LC_ALL=C

BUILD=${BUILD:-$PWD/build}
T=$BUILD/trimsim
B=$BUILD/bench
N=${BENCH_EVENTS:-10000000}
NS=${BENCH_SMALL:-2000000}
REPS=${BENCH_REPS:-7}
READ_ROUNDS=${BENCH_READ_ROUNDS:-9}
FILES=${BENCH_FILES:-100000}
REC_REPS=${BENCH_REC_REPS:-$((REPS > 7 ? REPS : 7))}
CMP_TIMEOUT=${BENCH_COMPARE_TIMEOUT:-120}
PRESETS="as-recorded passthrough sort-merge-async none xfs ext4 ufs ufs-trimcons btrfs-async f2fs"

if [ -n "${BENCH_DIR:-}" ]; then
	W=$BENCH_DIR
	mkdir -p "$W" || exit 1
	keep_w=1
else
	W=$(mktemp -d /tmp/trimsim-bench.XXXXXX) || exit 1
	keep_w=0
fi
LOOP= MNT=

cleanup() {
	if [ -n "$MNT" ] && mountpoint -q "$MNT"; then
		umount "$MNT" || umount -l "$MNT"
	fi
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	LOOP= MNT=
	[ "$keep_w" = 1 ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'echo "bench: interrupted" >&2; exit 130' INT TERM

for f in "$T" "$B/gen_trace" "$B/bench_read" "$B/runstat" "$B/mkfiles"; do
	[ -x "$f" ] || { echo "bench: $f missing (run make bench)" >&2; exit 1; }
done

# ---- helpers ----

# want N: section N was asked for.
want() { [[ " ${BENCH_SECTIONS:-1 2 3 4 5 6} " == *" $1 "* ]]; }

# median V...: the middle value (the lower middle for an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# field FILE KEY: KEY=value from a runstat line.
field() { sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" "$1"; }

# calc EXPR: floating-point arithmetic.
calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }

# eng X: 12345678 -> 12.3M
eng() {
	awk -v x="$1" 'BEGIN { if (x >= 1e9) printf "%.2fG", x/1e9; else if (x >= 1e6) printf "%.2fM", x/1e6;
		else if (x >= 1e3) printf "%.1fk", x/1e3; else printf "%.0f", x }'
}

# verdict MEASURED OP TARGET: "met", or "MISSED" with how far off; OP is >= or <=.
verdict() {
	awk -v m="$1" -v op="$2" -v t="$3" 'BEGIN {
		if (op == ">=") { if (m >= t) print "met"; else printf "MISSED: %.0f%% of target (%.1fx short)\n", 100*m/t, t/m }
		else { if (m <= t) print "met"; else printf "MISSED: %.3g vs target <= %g\n", m, t } }'
}

# tinterval "X..." "Y...": the difference of the means of Y and X and its 95% half-width (Student's t,
# pooled variance; two-sided 0.975 quantiles for 1-30 degrees of freedom, 1.96 past), both in % of X's mean.
tinterval() {
	awk -v xs="$1" -v ys="$2" 'BEGIN {
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 " \
		      "2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", tq, " ")
		n = split(xs, x, " "); m = split(ys, y, " ")
		for (i = 1; i <= n; i++) mx += x[i] / n
		for (i = 1; i <= m; i++) my += y[i] / m
		for (i = 1; i <= n; i++) ss += (x[i] - mx) ^ 2
		for (i = 1; i <= m; i++) ss += (y[i] - my) ^ 2
		df = n + m - 2
		t = df < 1 ? 0 : df <= 30 ? tq[df] : 1.96
		hw = df < 1 ? 0 : t * sqrt(ss / df) * sqrt(1 / n + 1 / m)
		printf "%.6g %.6g\n", (my - mx) / mx * 100, hw / mx * 100 }'
}

# mib KIB: kibibytes as MiB with one decimal.
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

SUMMARY=
TIMES=
T_START=$(date +%s)
# section_done NAME: records how long the section since the last mark took.
T_MARK=$T_START
section_done() {
	local now
	now=$(date +%s)
	TIMES+=$(printf '  %-30s %4d s' "$1" $((now - T_MARK)))$'\n'
	echo "  ($1 took $((now - T_MARK)) s)"
	T_MARK=$now
}

# target NAME MEASURED_TEXT VERDICT: one line of the closing table.
target() { SUMMARY+=$(printf '  %-44s %-28s %s' "$1" "$2" "$3")$'\n'; }

# runs LABEL REPS CMD...: runs CMD REPS times under runstat; sets WALL CPU RSS (medians) and RC (worst).
runs() {
	local label=$1 reps=$2 i w=() c=() r=()
	shift 2
	RC=0
	for ((i = 0; i < reps; i++)); do
		"$B/runstat" "$W/stat" "$@" >"$W/out.$label" 2>"$W/err.$label"
		local rc=$?
		if [ "$rc" != 0 ]; then
			RC=$rc
			echo "  $label: exit $rc: $(head -c 300 "$W/err.$label")" | sed '/^ *$/d'

			return 1
		fi
		w+=("$(field "$W/stat" wall_s)") c+=("$(field "$W/stat" cpu_s)") r+=("$(field "$W/stat" rss_kb)")
	done
	WALL=$(median "${w[@]}") CPU=$(median "${c[@]}") RSS=$(median "${r[@]}")
}

# report LABEL EVENTS [UNIT]: one line from WALL CPU RSS; sets EPS (UNIT, default events, per wall second).
report() {
	local u=${3:-events}
	EPS=$(calc "$2 / $WALL")
	printf '  %-34s %9s %s/s  (wall %6.2f s, cpu %6.2f s = %9s %s/cpu-s, peak RSS %s MiB)\n' \
		"$1" "$(eng "$EPS")" "$u" "$WALL" "$CPU" "$(eng "$(calc "$2 / $CPU")")" "$u" "$(mib "$RSS")"
}

# ---- the machine ----

echo "trimsim bench: $(date -u '+%Y-%m-%d %H:%M UTC'), $REPS runs per figure, medians"
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)," \
	"$(awk '/MemTotal/ { printf "%.1f GiB", $2/1048576 }' /proc/meminfo), kernel $(uname -r)"
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min)"
echo "inputs: $W"

# ---- inputs ----

big=$W/big.tsim small=$W/small.tsim one=$W/one.tsim
if want 1 || want 2 || want 3 || want 5; then	# section 6 reads the corpus, 4 makes its own
	"$B/gen_trace" "$big" "$N" 1 && "$B/gen_trace" "$small" "$NS" 2 && "$B/gen_trace" "$one" 1000000 3 ||
		{ echo "bench: gen_trace failed" >&2; exit 1; }
	echo "traces: $N records ($(mib $(($(stat -c %s "$big") / 1024))) MiB), $NS and 1000000 records (gen_trace: XFS on NVMe mix)"
	section_done "inputs (gen_trace)"
fi

# ---- 1. trace reading ----
# bench_read runs every way of reading the trace (read, pread, io_uring, the mapping with and without
# populate, the mapping already populated, the plain mapped loop, the reader) in interleaved rounds and
# compares each with the plain read() loop of the same round (tests/bench/bench_read.c says what each
# does). The trace is in format version 2 (what writers write); a copy in version 1 (trimsim convert
# --format-version 1: the same bytes but for the magic and the checksum) is read by "read v1" and the
# reader, side by side. Then the same with the file's pages dropped from the cache before every run, on
# the smaller trace.
if want 1; then
	echo
	echo "== 1. trace reading: each way of getting the bytes, checked and summed, against a plain read() loop"
	echo "  ($N records, $READ_ROUNDS interleaved rounds; x read = median of the ratios to the read() loop of the same round)"
	echo "  load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	mkdir -p "$W/read"
	"$T" convert --format-version 1 "$big" "$W/big-v1.tsim" && "$T" convert --format-version 1 "$small" "$W/small-v1.tsim" ||
		{ echo "bench: convert --format-version 1 failed" >&2; exit 1; }
	if out=$("$B/bench_read" "$big" "$READ_ROUNDS" "$W/read" --v1 "$W/big-v1.tsim"); then
		echo "$out" | grep -v '^summary:'
		echo "  load after: $(cut -d' ' -f1-3 /proc/loadavg)"
		get() { echo "$out" | sed -n "s/^summary:.* $1=\([0-9.]*\).*/\1/p"; }
		cr=$(get reader_cpu_ratio) wr=$(get reader_wall_ratio) pm=$(get plainmap_cpu_ratio)
		printf '  regime: a plain loop over a mapping runs at %.2fx of read() here (page faults %s);\n' "$pm" \
			"$(awk -v r="$pm" 'BEGIN { print (r < 0.5 ? "dear" : r < 1 ? "moderate" : "cheap") }')"
		printf '  the reader at %.2fx by cpu, %.2fx by wall (format version 2; on version 1 %.2fx by cpu);\n' \
			"$cr" "$wr" "$(get reader_v1_cpu_ratio)"
		printf '  read() + check + sum %.2fx (version 1: %.2fx); the old mapped reader (map + populate) %.2fx;\n' \
			"$(get read_cpu_ratio)" "$(get read_v1_cpu_ratio)" "$(get mappop_cpu_ratio)"
		printf '  the mapping with no fault at all (map already populated) %.2fx; read() + check without the sum %.2fx\n' \
			"$(get maphot_cpu_ratio)" "$(get check_cpu_ratio)"
		printf '  the limit until 2026-12-01 (262,128-byte reads into a buffer 64 bytes past a page) %.2fx; the reader against it %.2fx\n' \
			"$(get oldlimit_cpu_ratio)" "$(get reader_oldlimit_cpu_ratio)"
		if command -v ministat >/dev/null; then
			echo "  ministat, per-round cpu ratios, the reader (x) against read() + check + sum, the reader"
			echo "  on format version 1, the mapping already populated and the old mapped reader:"
			(cd "$W/read" && ministat -A -c 95 reader.ratio read.ratio reader_v1.ratio map_hot.ratio map_pop.ratio) |
				sed 's/^/    /'
		fi
		target "reading >= 0.8x plain read() (cpu)" \
			"$(printf '%.2fx (wall %.2fx; v1 %.2fx)' "$cr" "$wr" "$(get reader_v1_cpu_ratio)")" \
			"$(verdict "$cr" ">=" 0.8)"
		target "reader >= old mapped reader (cpu)" "$(printf '%.2fx vs %.2fx' "$cr" "$(get mappop_cpu_ratio)")" \
			"$(verdict "$cr" ">=" "$(get mappop_cpu_ratio)")"
	else
		echo "  bench_read failed"
		target "reading >= 0.8x plain read() (cpu)" "failed" "-"
	fi
	echo "  pages not cached (each run after fdatasync + POSIX_FADV_DONTNEED of the file; $NS records, 5 rounds):"
	if cold=$("$B/bench_read" "$small" 5 --cold --v1 "$W/small-v1.tsim"); then
		echo "$cold" | grep -v '^summary:'
	else
		echo "  bench_read --cold failed"
	fi
	section_done "1. reading"
fi

# ---- 2. replay throughput ----
if want 2; then
	echo
	echo "== 2. replay throughput (trimsim replay -q; events = trace records; cpu = user + system)"
	runs asrec "$REPS" "$T" replay "$big" -p as-recorded -M nvme -q &&
		{ report "as-recorded, nvme ($N)" "$N"; asrec_eps=$EPS; asrec_cpu_eps=$(calc "$N / $CPU"); rss_big=$RSS; }
	[ "${asrec_eps:-}" ] && target "as-recorded on nvme >= 20M events/cpu-s" \
		"$(eng "$asrec_eps")/s ($(eng "$asrec_cpu_eps")/cpu-s)" "$(verdict "$asrec_cpu_eps" ">=" 2e7)"
	# One run: no target rests on it and it is the longest replay (~20 s on a loaded VM).
	runs xfs 1 "$T" replay "$big" -p xfs -M nvme -q && report "xfs, nvme ($N, 1 run)" "$N" &&
		target "xfs on nvme >= 12M events/cpu-s (1 run)" "$(eng "$EPS")/s ($(eng "$(calc "$N / $CPU")")/cpu-s)" \
			"$(verdict "$(calc "$N / $CPU")" ">=" 1.2e7)"
	runs ftl "$REPS" "$T" replay "$small" -p xfs -M nvme-ftl -q &&
		{ report "xfs, nvme-ftl 256 GiB FTL ($NS)" "$NS"; ftl_eps=$EPS; ftl_cpu_eps=$(calc "$NS / $CPU"); }
	[ "${ftl_eps:-}" ] && target "FTL replay >= 6M events/cpu-s" \
		"$(eng "$ftl_eps")/s ($(eng "$ftl_cpu_eps")/cpu-s)" "$(verdict "$ftl_cpu_eps" ">=" 6e6)"
	list=$(echo "$PRESETS" | tr ' ' ,)
	# One run, bounded: a preset that stalls must not hold the whole bench.
	if runs compare 1 timeout "$CMP_TIMEOUT" "$T" compare "$one" -p "$list" -M nvme --jobs 2 \
		-o "$W/compare.json"; then
		report "compare: 10 presets, nvme, --jobs 2 (10 x 1M, 1 run)" 10000000
	elif [ "$RC" = 124 ]; then
		echo "  compare: did not finish within ${CMP_TIMEOUT} s (10 presets x 1M records, --jobs 2)"
	else
		grep -E "failed|error" "$W/out.compare" | head -3 | sed 's/^ */    /'
	fi
	section_done "2. replay"
fi

# ---- 3. against a peer: fio's null engine replaying the same trace as a blktrace file ----
# Both sides replay the same I/Os: the trace's device commands (its ISSUE records) are what the blktrace
# file holds and what fio submits (its total_ios); trimsim as-recorded issues the same commands, reading
# the other records (FREE, INTENT, BIO, DONE, META) on the way. Rates are I/Os per second; the ratio is
# the inverse ratio of the times to replay the whole trace, by wall and by cpu time. Two inputs: the
# gen_trace mix exported to blktrace, and SCATTER (1M) discards at random 4 KiB-aligned offsets of a 1 TiB
# device written as blktrace and imported (issue 21: "a trace of 1M scattered discards imported from blktrace").

# vs_fio NAME TRACE BLKTRACE: fio on BLKTRACE against trimsim on TRACE; prints the ratio, adds a target line.
vs_fio() {
	local name=$1 trace=$2 bt=$3 ios fio_ok fio_wall fio_cpu fio_ios fio_eps= ts_eps= ts_cpu r rc
	local goal=">= 10x fio null-engine replay (wall, $name)"

	"$T" info "$trace" >"$W/info.$name" 2>&1
	ios=$(awk '$1 == "ISSUE" { print $2; exit }' "$W/info.$name")
	echo "  $name: $(fio --version) on $(mib $(($(stat -c %s "$bt") / 1024))) MiB of blktrace, $ios device commands"
	runs "fio-$name" "$REPS" fio --name=replay --ioengine=null --read_iolog="$bt" --replay_no_stall=1 \
		--replay_redirect="$W/fio-target" --output-format=json --output="$W/fio.$name.json"
	fio_ok=$?
	fio_wall=${WALL:-0} fio_cpu=${CPU:-0}
	fio_ios=$(grep -E '"total_ios"' "$W/fio.$name.json" 2>/dev/null | sed 's/[^0-9]//g' | awk '{s += $1} END {print s + 0}')
	[ -n "$ios" ] || { echo "  trimsim info found no ISSUE count; counting fio's total_ios"; ios=$fio_ios; }
	[ "$fio_ok" = 0 ] && report "fio null engine (blktrace replay)" "$fio_ios" I/Os && fio_eps=$EPS
	runs "ts-$name" "$REPS" "$T" replay "$trace" -p as-recorded -M nvme --timing asap -q -o "$W/asap.$name.json" &&
		report "trimsim as-recorded --timing asap" "$ios" I/Os && ts_eps=$EPS ts_cpu=$CPU
	local ts_wall=$WALL
	# the open loop (chain=0): every discard at its time, none held for an earlier one's completion, as fio
	# replays a log; as-recorded holds a discard the trace sent after the previous completed (replay/policies/chain.c)
	runs "ts0-$name" "$REPS" "$T" replay "$trace" -p 'as-recorded(chain=0)' -M nvme --timing asap -q \
		-o "$W/asap0.$name.json" && report "trimsim as-recorded(chain=0) --timing asap" "$ios" I/Os &&
		[ -n "$fio_eps" ] && printf '  ratio trimsim(chain=0)/fio: %.2fx by wall time, %.2fx by cpu time\n' \
			"$(calc "$fio_wall / $WALL")" "$(calc "$fio_cpu / $CPU")"
	WALL=$ts_wall
	[ "$fio_ios" = "$ios" ] || echo "  note: fio counted $fio_ios I/Os, the trace holds $ios device commands"
	if [ -n "$fio_eps" ] && [ -n "$ts_eps" ]; then
		r=$(calc "$fio_wall / $WALL") rc=$(calc "$fio_cpu / $ts_cpu")
		printf '  ratio trimsim/fio, same trace, same I/Os: %.2fx by wall time, %.2fx by cpu time\n' "$r" "$rc"
		target "$goal" "$(printf '%.2fx (cpu %.2fx)' "$r" "$rc")" "$(verdict "$r" ">=" 10)"
	else
		target "$goal" "failed" "-"
	fi
}

# gen_scatter FILE N: a JSON Lines trace of N discards (ISSUE, then DONE 1 us later, one every 2 us) at
# random 4 KiB-aligned offsets of a 1 TiB device, 4-64 KiB each (awk's srand(1): the same every run).
gen_scatter() {
	awk -v n="$2" 'BEGIN {
		printf "{\"trimsim\":1,\"header\":{\"cmdline\":[\"tests/bench/bench.sh\"],\"devices\":[{\"dev\":\"8:0\",\"discard_granularity\":4096,\"discard_max_bytes\":2147483648,\"fs\":\"\",\"fs_block_size\":4096,\"logical_block_size\":512,\"max_discard_segments\":1,\"name\":\"sda\",\"physical_block_size\":4096,\"rotational\":false,\"size\":1099511627776,\"xfs_agblocks\":0}],\"format\":\"trimsim\",\"host\":\"bench\",\"kernel\":\"synthetic\",\"recorder\":\"bench.sh (synthetic)\",\"start_ns\":1000000000,\"start_wall\":\"2026-01-01T00:00:00.000000000Z\",\"version\":1}}\n"
		srand(1)
		t = 1000000000
		for (i = 0; i < n; i++) {
			off = int(rand() * 268435456) * 4096
			len = 4096 * (1 + int(rand() * 16))
			printf "{\"t\":%.0f,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"8:0\",\"off\":%.0f,\"len\":%d,\"ino\":0,\"lat\":0,\"flags\":\"\"}\n", t, off, len
			printf "{\"t\":%.0f,\"kind\":\"DONE\",\"op\":\"discard\",\"dev\":\"8:0\",\"off\":%.0f,\"len\":%d,\"ino\":0,\"lat\":1000,\"flags\":\"\"}\n", t + 1000, off, len
			t += 2000
		}
		printf "{\"footer\":{\"records\":%d,\"lost\":0,\"end_ns\":%.0f}}\n", 2 * n, t
	}' >"$1"
}

if want 3; then
	SCATTER=${BENCH_SCATTER:-1000000}
	echo
	echo "== 3. against fio: fio --ioengine=null --replay_no_stall=1 on a blktrace file, trimsim on the same I/Os"
	if ! command -v fio >/dev/null; then
		echo "  skipped: fio is not installed (.ci/deps bench installs it)"
		target ">= 10x fio null-engine replay (wall)" "skipped" "-"
	else
		truncate -s 256G "$W/fio-target"
		echo "  unit: I/Os, the trace's device commands (ISSUE records) = the I/Os of the blktrace file = fio's total_ios"
		"$T" export --to blktrace "$small" -o "$W/small.blktrace" || { echo "bench: export failed" >&2; exit 1; }
		echo "  the $NS-record gen_trace mix, exported to blktrace:"
		vs_fio mix "$small" "$W/small.blktrace"
		gen_scatter "$W/scatter.jsonl" "$SCATTER" && "$T" convert "$W/scatter.jsonl" "$W/scatter.tsim" &&
			"$T" export --to blktrace "$W/scatter.tsim" -o "$W/scatter.blktrace" &&
			"$T" import --from blktrace "$W/scatter.blktrace" --device-size 1T -o "$W/scatter-imported.tsim" \
				>"$W/import.scatter" 2>&1 || { cat "$W/import.scatter" >&2; echo "bench: the scattered-discard trace failed" >&2; exit 1; }
		rm -f "$W/scatter.jsonl"
		echo "  $SCATTER scattered discards (4-64 KiB, random offsets on 1 TiB), blktrace imported by trimsim:"
		vs_fio scatter "$W/scatter-imported.tsim" "$W/scatter.blktrace"
	fi
	section_done "3. fio"
fi

# ---- 4. recorder: XFS rm -rf discard storm on a loop device ----
if want 4; then
	# The victims are made once (mkfiles, sync, umount) and the image kept: each storm starts from a copy
	# of it, written back (sync: the timed sync must not pay for the copy), mounted afresh, every inode
	# read back into the cache (du) as mkfiles leaves them; the files' data pages are not (reading them back
	# takes 10 s; rm -rf frees extents, it does not read data). The same filesystem every time, ~3 s
	# instead of the ~15 s of mkfiles + sync per storm.
	# storm_image: makes the filesystem image with FILES files; storm_setup: a fresh copy, mounted on MNT.
	storm_image() {
		truncate -s 4G "$W/disk.img" && LOOP=$(losetup -f --show "$W/disk.img") || return 1
		mkfs.xfs -q -f "$LOOP" && mkdir -p "$W/mnt" && mount -o discard "$LOOP" "$W/mnt" || return 1
		MNT=$W/mnt
		mkdir "$MNT/v" && "$B/mkfiles" "$MNT/v" "$FILES" 4096 && sync || return 1
		storm_umount
		mv "$W/disk.img" "$W/victims.img"
	}
	storm_umount() {
		if [ -n "$MNT" ]; then umount "$MNT" || umount -l "$MNT"; fi
		[ -n "$LOOP" ] && losetup -d "$LOOP"
		LOOP= MNT=
	}
	storm_setup() {
		storm_umount
		cp --sparse=always "$W/victims.img" "$W/disk.img" && sync && LOOP=$(losetup -f --show "$W/disk.img") &&
			mount -o discard "$LOOP" "$W/mnt" && MNT=$W/mnt && du -s "$MNT/v" >/dev/null
	}

	# storm RINGBUF: rm -rf under trimsim record; RINGBUF "-": not recorded, "default": the recorder's default
	# buffer, else --ringbuf-size RINGBUF. Sets SW (workload seconds), SREC (records) and SLOST (lost events).
	storm() {
		local rb=()
		SREC= SLOST=
		case $1 in default) ;; -) ;; *) rb=(--ringbuf-size "$1") ;; esac
		storm_setup || return 1
		if [ "$1" = - ]; then
			"$B/runstat" "$W/stat.storm" sh -c "rm -rf '$MNT/v' && sync" || return 1
		else
			"$T" record -o "$W/storm.tsim" -m "$MNT" "${rb[@]}" -- \
				"$B/runstat" "$W/stat.storm" sh -c "rm -rf '$MNT/v' && sync" >"$W/rec.out" 2>&1 ||
				{ echo "  trimsim record failed: $(tail -3 "$W/rec.out")"; return 1; }
			"$T" info "$W/storm.tsim" >"$W/info.out" 2>&1
			SREC=$(sed -n 's/^records: *\([0-9]*\).*/\1/p' "$W/info.out")
			SLOST=$(sed -n 's/^lost: *\([0-9]*\) events.*/\1/p' "$W/info.out")
			[ -n "$SREC" ] && [ -n "$SLOST" ] || { echo "  trimsim info: $(head -2 "$W/info.out")"; return 1; }
		fi
		SW=$(field "$W/stat.storm" wall_s)
	}

	echo
	echo "== 4. recorder: XFS -o discard, rm -rf of $FILES 4 KiB files on a loop device, then sync"
	if [ "$(id -u)" != 0 ]; then
		echo "  skipped: needs root (loop device, mount, eBPF)"
		target "recorder overhead < 5%, zero loss" "skipped (not root)" "-"
	elif ! command -v mkfs.xfs >/dev/null; then
		echo "  skipped: mkfs.xfs not installed"
		target "recorder overhead < 5%, zero loss" "skipped (no xfsprogs)" "-"
	else
		RBDEF=$("$T" record --help 2>&1 | sed -n 's/.*ring buffer size (default \([0-9]*[KMG]\).*/\1/p')
		RBDEF=${RBDEF:-16M}
		RBDEF_BYTES=$(awk -v s="$RBDEF" 'BEGIN { n = s + 0; u = substr(s, length(s));
			print n * (u == "K" ? 1024 : u == "M" ? 1048576 : u == "G" ? 1073741824 : 1) }')
		if ! storm_image; then
			echo "  skipped: making the XFS image on a loop device failed"
		else
			plain=() recd=() eps=() lost=0 recs=()
			# Interleaved: without, with, without, with... so load drifts hit both alike.
			for ((i = 0; i < REC_REPS; i++)); do
				storm - && plain+=("$SW") || break
				storm default && recd+=("$SW") recs+=("$SREC") eps+=("$(calc "$SREC / $SW")") lost=$((lost + SLOST)) || break
			done
			if [ "${#recd[@]}" = "$REC_REPS" ] && [ "${#plain[@]}" = "$REC_REPS" ]; then
				p=$(median "${plain[@]}") q=$(median "${recd[@]}") e=$(median "${eps[@]}")
				ov=$(calc "($q / $p - 1) * 100")
				printf '  workload without recording %.2f s, with (default %s ring buffer) %.2f s: overhead %+.1f%%\n' \
					"$p" "$RBDEF" "$q" "$ov"
				printf '  runs without: %s s; with: %s s (interleaved)\n' "$(printf '%.2f ' "${plain[@]}")" \
					"$(printf '%.2f ' "${recd[@]}")"
				printf '  recorded %s records per run, sustained %s events/s, lost %d over %d runs\n' \
					"$(median "${recs[@]}")" "$(eng "$e")" "$lost" "$REC_REPS"
				# The run-to-run spread of this workload here (+-5-10%) is as large as the target: a median
				# alone flipped between met and MISSED on noise (+7.1% once, -8.8% an hour before). The verdict
				# rests on the 95% interval of the difference of the means (Student's t, pooled variance, as
				# ministat computes it), in % of the mean without recording: met when its top is within 5%,
				# MISSED when its bottom is above 5%, else within the noise.
				read -r cd cw <<<"$(tinterval "${plain[*]}" "${recd[*]}")"
				printf '  95%% interval of the overhead (means, %d runs each, Student t): %+.1f%% +- %.1f%%\n' \
					"$REC_REPS" "$cd" "$cw"
				v=$(awk -v d="$cd" -v w="$cw" 'BEGIN {
					if (d + w <= 5) print "met"
					else if (d - w > 5) printf "MISSED: %+.1f%% +- %.1f%%\n", d, w
					else printf "within the noise (%+.1f%% +- %.1f%%)\n", d, w }')
				[ "$lost" = 0 ] || v="MISSED ($lost events lost)"
				target "recorder overhead < 5%, zero loss" "$(printf '%+.1f%%, lost %d' "$ov" "$lost")" "$v"
				# Smallest ring buffer with zero loss: bisect over powers of two, 64 KiB .. the default (one run each;
				# 256 KiB lost a quarter of this storm when tried, so smaller sizes are not worth the runs).
				# Invariant: 2^hi lost nothing; 2^lo lost events (or, while lo_lost=0, is untried).
				lo=16 hi=$(awk -v b="$RBDEF_BYTES" 'BEGIN { for (i = 16; 2^i < b; i++); print i }') lo_lost=0 ok=1
				[ "$lost" = 0 ] || { echo "  the default ring buffer lost events: no smaller one is sought"; ok=0; }
				while ((ok && hi - lo > 1)); do
					mid=$(((lo + hi) / 2))
					storm $((1 << mid)) || { ok=0; break; }
					printf '  --ringbuf-size %7d: %d records, lost %d\n' $((1 << mid)) "$SREC" "$SLOST"
					if [ "$SLOST" = 0 ]; then hi=$mid; else lo=$mid lo_lost=1; fi
				done
				if ((ok && !lo_lost)); then
					storm $((1 << lo)) && printf '  --ringbuf-size %7d: %d records, lost %d\n' $((1 << lo)) "$SREC" "$SLOST"
					[ "${SLOST:-1}" = 0 ] && hi=$lo
				fi
				((ok)) && printf '  smallest ring buffer that lost nothing: %d KiB (%s)\n' $(((1 << hi) / 1024)) \
					"$([ "$hi" = 16 ] && echo "the smallest tried" || echo "half of it lost events")"
			else
				target "recorder overhead < 5%, zero loss" "failed" "-"
			fi
		fi
		storm_umount
		rm -f "$W/disk.img" "$W/victims.img"
	fi
	section_done "4. recorder"
fi

# ---- 5. memory: 1M versus 10M events ----
if want 5; then
	echo
	echo "== 5. memory: peak RSS of as-recorded on nvme, 1M versus $N records"
	if [ -z "${rss_big:-}" ]; then
		runs membig 1 "$T" replay "$big" -p as-recorded -M nvme -q && rss_big=$RSS &&
			report "as-recorded, nvme ($N, 1 run)" "$N"
	fi
	if [ -n "${rss_big:-}" ]; then
		runs mem1 "$REPS" "$T" replay "$one" -p as-recorded -M nvme -q && rss_one=$RSS &&
			report "as-recorded, nvme (1000000)" 1000000
		if [ -n "${rss_one:-}" ]; then
			g=$(calc "$rss_big / $rss_one")
			printf '  peak RSS 1M: %s MiB, %s: %s MiB (x%.2f for %sx the records)\n' "$(mib "$rss_one")" \
				"$N" "$(mib "$rss_big")" "$g" "$(calc "$N / 1000000")"
			target "flat memory (1M vs ${N} RSS)" "$(printf 'x%.2f' "$g")" "$(verdict "$g" "<=" 1.25)"
		fi
	fi
	section_done "5. memory"
fi

# ---- 6. sweeps: compare over the corpus matrix, recommend on each corpus trace ----
# Cells per second of the cell runner (replay/report/matrix.c) that compare and recommend share: every
# corpus trace x every preset x every model profile, at --jobs 1 and 2 (one run each: the longest
# figures of the bench), then recommend on each corpus trace on make demo's profiles (one run each),
# its cells counted from the JSON (cells_replayed). Targets (issue 18): the old corpus's 1,782 cells in
# under 10 s on 2 cores (178 cells/s), and recommend on each corpus trace in under 30 s.
if want 6; then
	echo
	echo "== 6. sweeps: compare over the corpus matrix, recommend per corpus trace"
	SRC=$(cd "$(dirname "$0")/../.." && pwd)
	corpus=("$SRC"/traces/corpus/*.tsim)
	presets=$("$T" policies | sed -n '/^presets/,$ s/^  \([a-z0-9-]*\): .*/\1/p' | paste -sd,)
	profiles=$("$T" models | sed -n 's/^\([a-z0-9-]*\) (.*/\1/p' | paste -sd,)
	if [ ! -e "${corpus[0]}" ] || [ -z "$presets" ] || [ -z "$profiles" ]; then
		echo "  skipped: no corpus traces, presets or profiles"
	else
		ncells=$((${#corpus[@]} * $(echo "$presets" | tr , '\n' | wc -l) * $(echo "$profiles" | tr , '\n' | wc -l)))
		echo "  ${#corpus[@]} traces x $(echo "$presets" | tr , '\n' | wc -l) presets x" \
			"$(echo "$profiles" | tr , '\n' | wc -l) profiles = $ncells cells; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
		for j in 1 2; do
			if runs "sweep$j" 1 "$T" compare "${corpus[@]}" -p "$presets" -M "$profiles" --jobs "$j" -q \
				-o "$W/sweep$j.json"; then
				report "compare, corpus matrix, --jobs $j" "$ncells" cells
				eval "sweep${j}_cps=\$EPS sweep${j}_cpu=\$CPU"
			fi
		done
		if [ -n "${sweep2_cps:-}" ]; then
			[ -n "${sweep1_cps:-}" ] && printf '  --jobs 2 / --jobs 1: %.2fx by wall\n' "$(calc "$sweep2_cps / $sweep1_cps")"
			cmp -s "$W/sweep1.json" "$W/sweep2.json" && echo "  the JSON at --jobs 1 and 2: byte-identical" ||
				echo "  the JSON at --jobs 1 and 2 DIFFERS"
			# on a shared machine the wall time is the load's: what 2 idle cores would do is cells / (cpu / 2)
			target "compare corpus matrix >= 178 cells/s" \
				"$(eng "$sweep2_cps")/s (2 idle cores: $(eng "$(calc "$ncells / ($sweep2_cpu / 2)")")/s)" \
				"$(verdict "$sweep2_cps" ">=" 178.2)"
		fi
		rprof=${BENCH_SWEEP_PROFILES:-sata-sf2281,sata-good,nvme,sdcard,ftl-sata}
		echo "  recommend TRACE -M $rprof --jobs 2, each corpus trace (wall s, cpu s, cells replayed):"
		rw=0 rc=0 rn=0 worst=0 worst_t=
		for t in "${corpus[@]}"; do
			runs rec 1 "$T" recommend "$t" -M "$rprof" --jobs 2 --json -q -o "$W/rec.json" || continue
			n=$(grep -o '"cells_replayed": *[0-9]*' "$W/rec.json" | awk -F: '{ s += $2 } END { print s + 0 }')
			printf '    %-28s %6.2f %6.2f %5d\n' "$(basename "$t")" "$WALL" "$CPU" "$n"
			rw=$(calc "$rw + $WALL") rc=$(calc "$rc + $CPU") rn=$((rn + n))
			awk -v a="$WALL" -v b="$worst" 'BEGIN { exit !(a > b) }' && worst=$WALL worst_t=$(basename "$t")
		done
		if [ "$rn" -gt 0 ]; then
			WALL=$rw CPU=$rc
			report "recommend, every corpus trace" "$rn" cells
			target "recommend per corpus trace < 30 s" "worst $(printf %.1f "$worst") s ($worst_t)" \
				"$(verdict "$worst" "<=" 30)"
		fi
	fi
	section_done "6. sweeps"
fi

echo
echo "== targets (load at end: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%s' "$SUMMARY"
echo
echo "== time taken (wall)"
printf '%s' "$TIMES"
printf '  %-30s %4d s\n' "total" $(($(date +%s) - T_START))
