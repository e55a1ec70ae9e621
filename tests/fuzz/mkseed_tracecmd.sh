#!/bin/sh
# Small real trace.dat seeds for tests/fuzz/fuzz_import_tracecmd (tests/fuzz/README.md): writes
# OUTDIR/extract.dat (trace-cmd extract: version 7, zstd), v6.dat and v7.dat (trace-cmd convert,
# uncompressed); the seeds are block-v7-zstd.dat, block-v6.dat and block-v7.dat.
# A tracefs instance with an 8 KiB-per-CPU buffer records block_rq_insert/issue/complete of one
# loop device (filter on dev) while dd writes and blkdiscard discards; then trace-cmd extract
# writes the instance's buffer. extract saves every event format of the kernel (101 systems),
# /proc/kallsyms (5 MB) and the whole saved_cmdlines; to keep the seed small it runs in a private
# mount namespace where events/ is a copy of the kernel's own header_page, header_event, ftrace/
# and block_bio_queue + block_rq_* formats (the importer's), /proc/kallsyms is empty and saved_cmdlines holds the lines of the traced tasks.
set -e
T=/sys/kernel/tracing
I=$T/instances/tcseed
out=${1:?usage: tests/fuzz/mkseed_tracecmd.sh OUTDIR (root; run under flock /tmp/trimsim-live.lock)}
work=$(mktemp -d /tmp/tcseed.XXXXXX)
mkdir -p $out
truncate -s 16M $work/img
LOOP=$(losetup -f --show $work/img)
trap 'losetup -d $LOOP; rmdir $I 2>/dev/null || true; rm -rf $work' EXIT
mkdir -p $I
echo 8 > $I/buffer_size_kb
MAJ=$(( $(stat -c %t $LOOP | sed 's/^/0x/') ))
MIN=$(( $(stat -c %T $LOOP | sed 's/^/0x/') ))
DEV=$(( (MAJ << 20) | MIN ))
for e in block_rq_insert block_rq_issue block_rq_complete; do
	echo "dev == $DEV" > $I/events/block/$e/filter
	echo 1 > $I/events/block/$e/enable
done
echo 1 > $I/tracing_on
taskset -c 0 dd if=/dev/urandom of=$LOOP bs=64k count=2 oflag=direct status=none
blkdiscard -o 0 -l 1M $LOOP
taskset -c 0 blkdiscard -o 4M -l 64k $LOOP
taskset -c 0 dd if=/dev/zero of=$LOOP bs=4k count=1 seek=100 oflag=direct,sync status=none
blkdiscard -o 8M -l 4M $LOOP
echo 0 > $I/tracing_on
for e in block_rq_insert block_rq_issue block_rq_complete; do echo 0 > $I/events/block/$e/enable; done
# the formats trace-cmd saves, limited to what the seed needs
mkdir -p $work/events
cp $T/events/header_page $T/events/header_event $T/events/enable $work/events/
for sys in ftrace block; do
	for d in $T/events/$sys/*/; do
		e=$(basename $d)
		case $sys/$e in block/block_bio_queue|block/block_rq_*) ;; block/*) continue;; esac
		mkdir -p $work/events/$sys/$e
		cp $d/format $work/events/$sys/$e/
	done
	cp $T/events/$sys/enable $work/events/$sys/ 2>/dev/null || true
done
pids=$(cat $I/trace | sed -n 's/^ *[^ ].*-\([0-9]*\) *\[.*/\1/p' | sort -u)
for p in $pids; do grep "^$p " $T/saved_cmdlines || true; done > $work/cmdlines
: > $work/kallsyms
unshare -m --propagation private sh -c "
	mount --bind $work/events $T/events &&
	mount --bind $work/kallsyms /proc/kallsyms &&
	mount --bind $work/cmdlines $T/saved_cmdlines &&
	cd $out && trace-cmd extract -B tcseed -o extract.dat"
cd $out
trace-cmd convert -i extract.dat --file-version 6 --compression none -o v6.dat
trace-cmd convert -i extract.dat --file-version 7 --compression none -o v7.dat
trace-cmd dump --summary -i extract.dat; ls -la
