# shellcheck shell=bash disable=SC2034
# Shared by the workload scripts: set up a loop device, mkfs and mount it with the given
# options, run a workload under `trimsim record`, and always tear down (trap on EXIT).
#
#   SCRIPT -f xfs|ext4|btrfs [-k "MKFS OPTS"] [-m "MOUNT OPTS"] [-s SIZE] [-n SCALE] [-t] -o OUT.tsim
#
#   -f FS        filesystem
#   -k OPTS      extra mkfs options (mkfs is always told not to discard the new device itself,
#                so the trace holds the workload's discards only)
#   -m OPTS      mount options, e.g. discard (default: none)
#   -s SIZE      loop device size (truncate syntax; default per workload)
#   -n SCALE     workload scale (number of files, rounds; default per workload)
#   -t           finish with an fstrim of the mount, inside the recording
#   -o OUT       the trace to write
#
# Environment: TRIMSIM (the binary; default trimsim from PATH or build/trimsim),
# WORKDIR (where the backing file lives; default a fresh directory under /tmp),
# WS_SETTLE (seconds between the two syncfs at the end; default 2).
# The recorder runs with --io (reads and writes too). If `trimsim record` is not built (or
# TRIMSIM_RECORD_FALLBACK=1), the tracefs instance + `trace-cmd extract` + `trimsim import
# --from trace-cmd` path is used.
set -euo pipefail

ws_die() { echo "${0##*/}: $*" >&2; exit 1; }

ws_trimsim() {
	if [ -n "${TRIMSIM:-}" ]; then echo "$TRIMSIM"; return; fi
	local here; here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	if [ -x "$here/build/trimsim" ]; then echo "$here/build/trimsim"; return; fi
	command -v trimsim || ws_die "trimsim not found: build it (make) or set TRIMSIM"
}

# shellcheck disable=SC2034 # WS_SCALE is the workload scripts'
WS_FS='' WS_MKFS_OPTS='' WS_MOUNT_OPTS='' WS_SIZE='' WS_SCALE='' WS_FSTRIM=0 WS_OUT=''
WS_DIR='' WS_LOOP='' WS_MNT='' WS_INST='' WS_OWN_DIR=0

ws_parse() {
	local o
	OPTIND=1
	while getopts "f:k:m:s:n:to:h" o; do
		case $o in
		f) WS_FS=$OPTARG ;;
		k) WS_MKFS_OPTS=$OPTARG ;;
		m) WS_MOUNT_OPTS=$OPTARG ;;
		s) WS_SIZE=$OPTARG ;;
		n) WS_SCALE=$OPTARG ;;
		t) WS_FSTRIM=1 ;;
		o) WS_OUT=$OPTARG ;;
		h) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//; /^set -euo/d'; exit 0 ;;
		*) ws_die "bad option (see -h)" ;;
		esac
	done
	case $WS_FS in xfs|ext4|btrfs) ;; *) ws_die "-f xfs|ext4|btrfs is required" ;; esac
	[ -n "$WS_OUT" ] || ws_die "-o OUT is required"
	[ "$(id -u)" = 0 ] || ws_die "needs root (loop devices, mount, tracing)"
	case $WS_OUT in /*) ;; *) WS_OUT=$PWD/$WS_OUT ;; esac
}

ws_teardown() {
	local rc=$?
	set +e
	if [ -n "$WS_MNT" ] && mountpoint -q "$WS_MNT"; then
		umount "$WS_MNT" || umount -l "$WS_MNT"
	fi
	[ -n "$WS_INST" ] && [ -d "$WS_INST" ] && rmdir "$WS_INST"
	[ -n "$WS_LOOP" ] && losetup -d "$WS_LOOP"
	[ "$WS_OWN_DIR" = 1 ] && [ -n "$WS_DIR" ] && rm -rf "$WS_DIR"
	exit $rc
}

# Loop device of $1 bytes (truncate syntax), mkfs without discarding, mount at $WS_MNT.
ws_setup() {
	trap ws_teardown EXIT INT TERM
	if [ -n "${WORKDIR:-}" ]; then
		WS_DIR=$WORKDIR; mkdir -p "$WS_DIR"
	else
		WS_DIR=$(mktemp -d /tmp/trimsim-wl.XXXXXX); WS_OWN_DIR=1
	fi
	WS_MNT=$WS_DIR/mnt
	mkdir -p "$WS_MNT"
	truncate -s "${WS_SIZE:-$1}" "$WS_DIR/disk.img"
	WS_LOOP=$(losetup -f --show "$WS_DIR/disk.img")
	# shellcheck disable=SC2086
	case $WS_FS in
	xfs) mkfs.xfs -q -f -K $WS_MKFS_OPTS "$WS_LOOP" ;;
	ext4) mkfs.ext4 -q -F -E nodiscard $WS_MKFS_OPTS "$WS_LOOP" ;;
	btrfs) mkfs.btrfs -q -f -K $WS_MKFS_OPTS "$WS_LOOP" ;;
	esac
	mount ${WS_MOUNT_OPTS:+-o "$WS_MOUNT_OPTS"} "$WS_LOOP" "$WS_MNT"
}

# Records "$@" (a command run with the mount as working directory) into $WS_OUT.
ws_record() {
	local ts; ts=$(ws_trimsim)
	local cmd=("$@")
	# A shell function of the workload script runs in a bash that is given its definition.
	if declare -F "$1" >/dev/null; then
		cmd=(bash -c "set -e; $(declare -f "$1"); $*")
	fi
	if [ "$WS_FSTRIM" = 1 ]; then
		# shellcheck disable=SC2016 # expanded by that sh
		cmd=(sh -c '"$@" && fstrim -v "$WS_MNT"' sh "${cmd[@]}")
	fi
	# Online discard follows the log/journal commit, from a workqueue (XFS: after the CIL
	# checkpoint, fs/xfs/xfs_discard.c; ext4: after the jbd2 commit): syncfs forces the commit
	# and two seconds (and another syncfs) let the discards complete inside the recording.
	# shellcheck disable=SC2016 # expanded by that sh
	# WS_SETTLE (seconds, default 2) makes the pause longer: btrfs -o discard=async waits
	# BTRFS_DISCARD_DELAY (120 s, fs/btrfs/discard.c) before its first discard.
	cmd=(sh -c '"$@" && sync -f "$WS_MNT" && sleep "${WS_SETTLE:-2}" && sync -f "$WS_MNT"' sh "${cmd[@]}")
	# The workload's functions run in a new bash (above): -n reaches them through the environment
	# (before this export, functions reading WS_SCALE ran at their default scale).
	export WS_MNT WS_SCALE WS_SETTLE
	sync
	if [ "${TRIMSIM_RECORD_FALLBACK:-0}" != 1 ] && "$ts" record --help >/dev/null 2>&1; then
		(cd "$WS_MNT" && "$ts" record -o "$WS_OUT" -m "$WS_MNT" --io -- "${cmd[@]}")
	else
		echo "${0##*/}: trimsim record not built: recording through a tracefs instance + trace-cmd" >&2
		ws_record_tracefs "$ts" "${cmd[@]}"
	fi
}

# Fallback: the recorder's tracepoints in a tracefs instance of our own, filtered to our
# loop device, clock mono; trace-cmd extract; trimsim import --from trace-cmd.
ws_record_tracefs() {
	local ts=$1; shift
	local t=/sys/kernel/tracing mm ma mi devt e name
	[ -d $t/instances ] || mount -t tracefs nodev $t
	mm=$(lsblk -dno MAJ:MIN "$WS_LOOP" | tr -d ' ')
	ma=${mm%:*}; mi=${mm#*:}; devt=$(( (ma << 20) | mi ))
	name=trimsim_wl_$$
	WS_INST=$t/instances/$name
	mkdir "$WS_INST"
	echo mono > "$WS_INST/trace_clock"
	echo 16384 > "$WS_INST/buffer_size_kb"
	for e in block/block_bio_queue block/block_rq_issue block/block_rq_complete \
		 xfs/xfs_free_extent xfs/xfs_discard_extent xfs/xfs_alloc_vextent_finish \
		 xfs/xlog_iclog_callbacks_start ext4/ext4_free_blocks ext4/ext4_discard_blocks \
		 ext4/ext4_trim_extent ext4/ext4_mballoc_alloc ext4/ext4_mballoc_discard \
		 jbd2/jbd2_end_commit; do
		[ -d "$WS_INST/events/$e" ] || continue
		if [ "$e" = ext4/ext4_trim_extent ]; then
			echo "dev_major == $ma && dev_minor == $mi" > "$WS_INST/events/$e/filter"
		else
			echo "dev == $devt" > "$WS_INST/events/$e/filter"
		fi
		echo 1 > "$WS_INST/events/$e/enable"
	done
	echo 1 > "$WS_INST/tracing_on"
	(cd "$WS_MNT" && "$@")
	echo 0 > "$WS_INST/tracing_on"
	(cd "$WS_DIR" && trace-cmd extract -B "$name" -o "$WS_DIR/trace.dat" >/dev/null 2>&1)
	[ -d "$WS_INST" ] && rmdir "$WS_INST"
	WS_INST=
	"$ts" import --from trace-cmd --device "$WS_LOOP" "$WS_DIR/trace.dat" -o "$WS_OUT"
}

# Deterministic synthetic source tree under $1: $2 files in nested directories, sizes drawn
# to resemble a kernel tree (most files a few KiB, a long tail to 1 MiB); seed $3.
ws_make_tree() {
	mkdir -p "$1"
	perl -e '
		use strict; my ($root, $n, $seed) = @ARGV; srand($seed);
		my @dirs = ($root); my $buf = "x" x 1048576;
		for my $i (0 .. $n - 1) {
			if ($i % 24 == 0) {
				my $parent = $dirs[int(rand(@dirs))];
				my $d = sprintf("%s/d%05d", $parent, $i / 24);
				mkdir $d or die "mkdir $d: $!"; push @dirs, $d;
			}
			my $u = rand(); my $size;
			if ($u < 0.55) { $size = 200 + int(rand(7800)) }         # .c/.h, Kconfig, Makefile
			elsif ($u < 0.88) { $size = 8192 + int(rand(24576)) }    # larger sources
			elsif ($u < 0.99) { $size = 32768 + int(rand(98304)) }   # big drivers, headers
			else { $size = 131072 + int(rand(917504)) }               # firmware, tables
			my $f = sprintf("%s/f%06d.c", $dirs[-1 - int(rand(@dirs < 8 ? @dirs : 8))], $i);
			open(my $fh, ">", $f) or die "$f: $!"; print $fh substr($buf, 0, $size); close $fh;
		}' "$1" "$2" "${3:-1}"
}

# Deterministic synthetic tree of large files under $1: $2 files, eight to a directory, sizes
# drawn like build output, media and disk images; seed $3. Sizes (byte-exact, not block-aligned):
# 50% 1-8 MiB (object archives, libraries, photos), 35% 8-32 MiB (media, debug binaries),
# 15% 32-128 MiB (VM and disk images, tarballs); uniform within each class, mean about 21 MiB.
# Each file is written sequentially in 1 MiB writes, one file at a time.
ws_make_large_tree() {
	mkdir -p "$1"
	perl -e '
		use strict; my ($root, $n, $seed) = @ARGV; srand($seed);
		my $MiB = 1048576; my $buf = "y" x $MiB; my $d;
		for my $i (0 .. $n - 1) {
			if ($i % 8 == 0) {
				$d = sprintf("%s/d%04d", $root, $i / 8);
				mkdir $d or die "mkdir $d: $!";
			}
			my $u = rand(); my $size;
			if ($u < 0.50) { $size = $MiB + int(rand(7 * $MiB)) }          # objects, libraries
			elsif ($u < 0.85) { $size = 8 * $MiB + int(rand(24 * $MiB)) }  # media, debug binaries
			else { $size = 32 * $MiB + int(rand(96 * $MiB)) }              # disk images, tarballs
			my $f = sprintf("%s/f%05d.bin", $d, $i);
			open(my $fh, ">", $f) or die "$f: $!";
			for (my $left = $size; $left > 0; $left -= $MiB) {
				print $fh ($left >= $MiB ? $buf : substr($buf, 0, $left)) or die "$f: $!";
			}
			close $fh or die "$f: $!";
		}' "$1" "$2" "${3:-1}"
}
