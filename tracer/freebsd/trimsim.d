#!/usr/sbin/dtrace -qs
/*
 * trimsim.d: record UFS frees and disk commands on FreeBSD for
 * `trimsim import --from dtrace` (SPDX-License-Identifier: GPL-2.0).
 *
 *   dtrace -qs trimsim.d -o ufs.txt        (root; kldload dtraceall)
 *
 * Prints the line format of tracer/freebsd/README.md, version 1, parsed by
 * traces/import/dtrace.c:
 *   trimsim-dtrace 1
 *   fs DEV FSIZE BSIZE MOUNT                      once per filesystem
 *   free T DEV INO OFFSET BYTES                   the filesystem freed an extent
 *   start T DISK CMD OFFSET BYTES                 a disk command started
 *   done T DISK CMD OFFSET BYTES ERROR LATENCY    it completed
 * T is DTrace's `timestamp` (ns since boot); CMD is read, write, delete
 * (BIO_DELETE: TRIM/UNMAP/deallocate) or flush. Each line is printed by one
 * printf, so per-CPU buffers never split a line; they do interleave lines out of
 * time order, which the importer sorts (or use dtrace -x temporal).
 *
 * Written against FreeBSD 13/14 sources; not run by the project (no FreeBSD
 * machine): tests/traces/test_dtrace_script.c checks that every line this file
 * can print is accepted by the importer. Limits: tracer/freebsd/README.md.
 */

#pragma D option quiet
#pragma D option switchrate=10hz
#pragma D option bufsize=16m
#pragma D option dynvarsize=16m

/* sys/sys/vnode.h: enum vtype { VNON, VREG, VDIR, VBLK, VCHR, ... } */
inline int TSIM_VCHR = 4;
/* sys/sys/bio.h: bio_cmd values */
inline int TSIM_BIO_READ = 1;
inline int TSIM_BIO_WRITE = 2;
inline int TSIM_BIO_DELETE = 3;
inline int TSIM_BIO_FLUSH = 5;

BEGIN
{
	printf("trimsim-dtrace 1\n");
}

/*
 * Frees: sys/ufs/ffs/ffs_alloc.c: ffs_blkfree(ump, fs, devvp, bno, size, inum,
 * vtype, dephd, key) is called once per block or fragment (size <= fs_bsize)
 * a file releases (ffs_truncate(), ffs_indirtrunc(), ffs_realloccg(), softdep
 * handle_workitem_freeblocks()). Its entry is the moment the filesystem lets
 * go of the extent, before any TRIM:
 *  - with the disk able to delete (UM_CANDELETE), ffs_blkfree() queues the
 *    range for a BIO_DELETE and only after that completes does
 *    ffs_blkfree_trim_task() call ffs_blkfree_cg() to mark it free in the
 *    cylinder group; ffs_blkfree_cg() therefore fires after the discard and is
 *    not the free this records;
 *  - with vfs.ffs.dotrimcons=1 (FreeBSD 12+), ffs_blkrelease_start() hands the
 *    truncation a key and ffs_blkfree() grows one run per key from adjacent
 *    blocks; ffs_blkrelease_finish() sends the last run. What the disk then got
 *    is in the io:::start lines below (cmd delete); the free lines are the
 *    input the replay policies `ufs` and `ufs-trimcons` consolidate
 *    themselves (replay/policies/ufs.c).
 * A snapshot may claim the block instead (ffs_snapblkfree() returns non-zero,
 * ffs_blkfree() returns without freeing it): the free is printed at
 * ffs_blkfree's return, only when no snapshot claimed it. devvp of type VREG
 * is a snapshot file's own copy, not the disk: skipped.
 */
fbt::ffs_blkfree:entry
/args[2]->v_type == TSIM_VCHR/
{
	self->ts = timestamp;
	self->ump = args[0];
	self->fs = args[1];
	self->bno = args[3];
	self->size = args[4];
	self->ino = args[5];
	self->claimed = 0;
}

fbt::ffs_snapblkfree:return
/self->ts && arg1 != 0/
{
	self->claimed = 1;
}

/* The filesystem's geometry, once per mount (keyed by its struct ufsmount). */
fbt::ffs_blkfree:return
/self->ts && !self->claimed && !tsim_fs_seen[self->ump]/
{
	tsim_fs_seen[self->ump] = 1;
	printf("fs %s %d %d %s\n", stringof(self->ump->um_dev->si_name), self->fs->fs_fsize,
	    self->fs->fs_bsize, stringof(self->ump->um_mountp->mnt_stat.f_mntonname));
}

/* fs_fsize is the fragment size: bno counts fragments from the start of the partition. */
fbt::ffs_blkfree:return
/self->ts && !self->claimed/
{
	printf("free %u %s %u %d %d\n", self->ts, stringof(self->ump->um_dev->si_name), self->ino,
	    self->bno * self->fs->fs_fsize, self->size);
}

fbt::ffs_blkfree:return
/self->ts/
{
	self->ts = 0;
	self->ump = 0;
	self->fs = 0;
	self->bno = 0;
	self->size = 0;
	self->ino = 0;
	self->claimed = 0;
}

/*
 * Disk commands: the io provider's SDT probes in sys/kern/subr_devstat.c,
 * fired in devstat_start_transaction_bio_t0() (io:::start) and
 * devstat_end_transaction_bio_bt() (io:::done) with arg0 the struct bio and
 * arg1 the struct devstat (translated to devinfo_t: dev_name "ada", dev_minor
 * the unit number). sys/geom/geom_disk.c: g_disk_start() starts a transaction
 * on the disk driver's devstat (disk_create(): name and unit, e.g. ada 0) for
 * each bio it hands the driver, one per d_maxsize piece of a read, write or
 * delete, and for flushes; g_disk_done() ends it. These are the commands the
 * disk saw, in disk offsets (bio_offset, bio_length). sys/geom/geom_io.c:
 * g_io_request() and g_io_deliver() also fire io:::start/done for GEOM
 * providers with statistics (partitions such as ada0p2, mirrors), whose
 * devstat has unit -1 (g_new_providerf(): devstat_new_entry(name, -1, ...)):
 * skipped, or every command would be counted at each GEOM layer. io:::start
 * without a bio (devstat_start_transaction(), arg0 NULL) carries nothing.
 * Latency is io:::done's time minus io:::start's for the same bio; a bio whose
 * start was not seen (started before tracing) prints no done line.
 */
io:::start
/arg0 != 0 && args[1]->dev_minor >= 0 && (((struct bio *)arg0)->bio_cmd == TSIM_BIO_READ ||
    ((struct bio *)arg0)->bio_cmd == TSIM_BIO_WRITE || ((struct bio *)arg0)->bio_cmd == TSIM_BIO_DELETE ||
    ((struct bio *)arg0)->bio_cmd == TSIM_BIO_FLUSH)/
{
	tsim_start[arg0] = timestamp;
}

io:::start
/arg0 != 0 && args[1]->dev_minor >= 0 && ((struct bio *)arg0)->bio_cmd == TSIM_BIO_READ/
{
	printf("start %u %s%d read %d %d\n", timestamp, args[1]->dev_name, args[1]->dev_minor,
	    ((struct bio *)arg0)->bio_offset, ((struct bio *)arg0)->bio_length);
}

io:::start
/arg0 != 0 && args[1]->dev_minor >= 0 && ((struct bio *)arg0)->bio_cmd == TSIM_BIO_WRITE/
{
	printf("start %u %s%d write %d %d\n", timestamp, args[1]->dev_name, args[1]->dev_minor,
	    ((struct bio *)arg0)->bio_offset, ((struct bio *)arg0)->bio_length);
}

io:::start
/arg0 != 0 && args[1]->dev_minor >= 0 && ((struct bio *)arg0)->bio_cmd == TSIM_BIO_DELETE/
{
	printf("start %u %s%d delete %d %d\n", timestamp, args[1]->dev_name, args[1]->dev_minor,
	    ((struct bio *)arg0)->bio_offset, ((struct bio *)arg0)->bio_length);
}

io:::start
/arg0 != 0 && args[1]->dev_minor >= 0 && ((struct bio *)arg0)->bio_cmd == TSIM_BIO_FLUSH/
{
	printf("start %u %s%d flush %d %d\n", timestamp, args[1]->dev_name, args[1]->dev_minor,
	    ((struct bio *)arg0)->bio_offset, ((struct bio *)arg0)->bio_length);
}

io:::done
/arg0 != 0 && tsim_start[arg0] && ((struct bio *)arg0)->bio_cmd == TSIM_BIO_READ/
{
	printf("done %u %s%d read %d %d %d %u\n", timestamp, args[1]->dev_name, args[1]->dev_minor,
	    ((struct bio *)arg0)->bio_offset, ((struct bio *)arg0)->bio_length,
	    ((struct bio *)arg0)->bio_error, timestamp - tsim_start[arg0]);
}

io:::done
/arg0 != 0 && tsim_start[arg0] && ((struct bio *)arg0)->bio_cmd == TSIM_BIO_WRITE/
{
	printf("done %u %s%d write %d %d %d %u\n", timestamp, args[1]->dev_name, args[1]->dev_minor,
	    ((struct bio *)arg0)->bio_offset, ((struct bio *)arg0)->bio_length,
	    ((struct bio *)arg0)->bio_error, timestamp - tsim_start[arg0]);
}

io:::done
/arg0 != 0 && tsim_start[arg0] && ((struct bio *)arg0)->bio_cmd == TSIM_BIO_DELETE/
{
	printf("done %u %s%d delete %d %d %d %u\n", timestamp, args[1]->dev_name, args[1]->dev_minor,
	    ((struct bio *)arg0)->bio_offset, ((struct bio *)arg0)->bio_length,
	    ((struct bio *)arg0)->bio_error, timestamp - tsim_start[arg0]);
}

io:::done
/arg0 != 0 && tsim_start[arg0] && ((struct bio *)arg0)->bio_cmd == TSIM_BIO_FLUSH/
{
	printf("done %u %s%d flush %d %d %d %u\n", timestamp, args[1]->dev_name, args[1]->dev_minor,
	    ((struct bio *)arg0)->bio_offset, ((struct bio *)arg0)->bio_length,
	    ((struct bio *)arg0)->bio_error, timestamp - tsim_start[arg0]);
}

io:::done
/arg0 != 0 && tsim_start[arg0]/
{
	tsim_start[arg0] = 0;
}
