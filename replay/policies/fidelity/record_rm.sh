#!/bin/bash
# Fidelity experiment for the xfs and ext4 presets (PRESETS.md, "Measured fidelity").
# Records an `rm -rf` of a directory tree on a fresh loop-device filesystem mounted with
# -o discard, through a private tracefs instance (nothing else on the machine is touched),
# and writes the raw tracefs text; tracefs2jsonl.py turns it into a trimsim trace.
#
#   sudo ./record_rm.sh xfs|ext4 TREE OUTDIR
#
# Needs root, tracefs, mkfs.xfs / mkfs.ext4. Always unmounts and detaches what it created.
set -u
FS=${1:?xfs or ext4}; TREE=${2:?directory to copy and remove}; OUT=${3:?output directory}
INST=/sys/kernel/tracing/instances/trimsim_fidelity_$$
IMG=$OUT/$FS.img; MNT=$OUT/mnt; LOOP=""
cleanup() {
	[ -d $INST ] && echo 0 > $INST/tracing_on
	mountpoint -q $MNT && umount $MNT
	[ -n "$LOOP" ] && losetup -d $LOOP
	[ -d $INST ] && rmdir $INST
	rm -f $IMG
}
trap cleanup EXIT
mkdir -p $OUT $MNT
truncate -s 4G $IMG
LOOP=$(losetup -f --show $IMG) || exit 1
case $FS in
xfs)	mkfs.xfs -q -f $LOOP || exit 1
	EVENTS="xfs/xfs_free_extent xfs/xfs_discard_extent xfs/xlog_iclog_callbacks_start" ;;
ext4)	mkfs.ext4 -q -F $LOOP || exit 1
	EVENTS="ext4/ext4_free_blocks ext4/ext4_discard_blocks jbd2/jbd2_end_commit" ;;
*)	echo "unknown fs $FS" >&2; exit 1 ;;
esac
mount -o discard $LOOP $MNT || exit 1
cp -a "$TREE" $MNT/tree && sync && sleep 2
DEVHEX=$(stat -c '%t:%T' $LOOP); MAJ=$((16#${DEVHEX%:*})); MIN=$((16#${DEVHEX#*:}))
[ $FS = xfs ] && xfs_info $MNT > $OUT/$FS.info
[ $FS = ext4 ] && dumpe2fs -h $LOOP > $OUT/$FS.info 2>/dev/null
echo "dev $MAJ:$MIN" >> $OUT/$FS.info
mkdir $INST && echo 65536 > $INST/buffer_size_kb && echo mono > $INST/trace_clock
F="dev == $(( (MAJ << 20) | MIN ))"
for e in $EVENTS block/block_rq_issue; do
	echo "$F" > $INST/events/$e/filter && echo 1 > $INST/events/$e/enable || exit 1
done
echo 1 > $INST/tracing_on
rm -rf $MNT/tree; sync
sleep 35; sync; sleep 2		# let the last checkpoint / commit and its discards finish
echo 0 > $INST/tracing_on
cat $INST/trace > $OUT/$FS.trace.txt
grep -h overrun $INST/per_cpu/cpu*/stats >> $OUT/$FS.info
