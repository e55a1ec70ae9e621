// SPDX-License-Identifier: GPL-2.0
/*
 * Which device a trace.dat's records are on when the filesystem is on a partition.
 *
 * The filesystem's tracepoints name the partition: xfs events `__entry->dev =
 * mp->m_super->s_dev` (fs/xfs/xfs_trace.h), ext4 `sb->s_dev` / `inode->i_sb->s_dev`
 * (include/trace/events/ext4.h), jbd2_end_commit `journal->j_fs_dev->bd_dev`
 * (include/trace/events/jbd2.h); their block numbers count from the partition's start.
 * The block layer's name its whole disk: submit_bio_noacct() (block/blk-core.c) remaps a
 * partition's bio in blk_partition_remap() (bi_sector += bd_start_sect, BIO_REMAPPED)
 * before submit_bio_noacct_nocheck() traces block_bio_queue with dev = bio_dev(bio) =
 * disk_devt(bio->bi_bdev->bd_disk) (include/linux/bio.h), and block_rq_issue/complete take
 * `rq->q->disk ? disk_devt(rq->q->disk) : 0` and blk_rq_pos() (include/trace/events/block.h):
 * the disk's dev_t and sectors on the whole disk. A command without bytes has no position (a
 * flush request, sector -1; the data-less end of a PREFLUSH write, "WS () 0 + 0").
 *
 * `trimsim record` writes the partition as one device: its dev_t, its start in the header,
 * the disk's commands inside it named by the partition (the eBPF backend's want() in
 * tracer/trimsim.bpf.c: flushes included), every offset on the whole disk. The importer
 * does the same once it has seen every record: a filesystem device that no block record
 * names, while others do, is a partition, and its disk is the --device's (sysfs) or, with
 * --partition-start, the one device with block records and no filesystem's. Where the
 * start is nowhere (neither option), the import stops: the filesystem's offsets would lack
 * it and its commands would sit on another device.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/util.h"
#include "traces/import/importer.h"
#include "traces/import/tcpart.h"

struct tc_dev {
	uint32_t dev;
	uint64_t fs, block;	/* records of the filesystem's, of the block layer's */
};

struct tc_devs {
	struct tc_dev *v;
	size_t n, cap;
};

struct tc_devs *tc_devs__new(void)
{
	return calloc(1, sizeof(struct tc_devs));
}

void tc_devs__free(struct tc_devs *t)
{
	if (!t)
		return;
	free(t->v);
	free(t);
}

static bool is_block(const struct ts_record *r)
{
	return r->kind == TS_BIO || r->kind == TS_ISSUE || r->kind == TS_DONE;
}

static bool is_fs(const struct ts_record *r)
{
	return r->kind == TS_FREE || r->kind == TS_ALLOC || r->kind == TS_INTENT ||
	       (r->kind == TS_META && r->op == TS_META_COMMIT);
}

int tc_devs__note(struct tc_devs *t, const struct ts_record *r)
{
	size_t i;

	if (!is_block(r) && !is_fs(r))
		return 0;	/* META lost: no device */
	for (i = 0; i < t->n && t->v[i].dev != r->dev; i++)
		;
	if (i == t->n) {
		if (grow_array((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)))
			return -ENOMEM;
		t->v[t->n++] = (struct tc_dev){ .dev = r->dev };
	}
	if (is_block(r))
		t->v[i].block++;
	else
		t->v[i].fs++;
	return 0;
}

/* Devices by what names them: a filesystem only (a partition's), block records only (a disk's), block records. */
enum which { FS_ONLY, BLOCK_ONLY, ANY_BLOCK };

static bool is(const struct tc_dev *d, enum which w)
{
	return w == FS_ONLY ? d->fs && !d->block : w == BLOCK_ONLY ? !d->fs && d->block : d->block != 0;
}

/* How many devices are w, the first of them in *first, and "7:1" or "7:1, 8:0, 8:16, ..." in buf. */
static size_t list(const struct tc_devs *t, enum which w, uint32_t *first, char *buf, size_t len)
{
	size_t n = 0, at = 0;
	char name[24];

	buf[0] = 0;
	*first = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!is(&t->v[i], w))
			continue;
		if (!n)
			*first = t->v[i].dev;
		if (++n <= 3 && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", n > 1 ? ", " : "",
					       ts_dev_str(t->v[i].dev, name, sizeof(name)));
		else if (n == 4 && at < len)
			at += (size_t)snprintf(buf + at, len - at, ", ...");
	}
	return n;
}

/* The disk's commands inside the partition, and those without bytes (no position: the eBPF recorder's choice), are the partition's. */
struct remap {
	uint32_t disk, part;
	uint64_t lo, hi;	/* the partition on the disk, bytes */
	uint64_t left;		/* records still on the disk */
};

static void remap_one(void *arg, struct ts_record *r)
{
	struct remap *m = arg;

	if (r->dev != m->disk)
		return;
	if (is_block(r) && (!r->length || (r->offset >= m->lo && r->offset < m->hi)))
		r->dev = m->part;
	else
		m->left++;
}

int tc_part__resolve(const struct tc_part *p, const struct tc_devs *t, struct import_sink *sink,
		     const char *path, char *err, size_t errlen)
{
	char parts[96], disks[96], blocks[96], name[24];
	uint32_t x, disk, any;
	size_t nparts = list(t, FS_ONLY, &x, parts, sizeof(parts));
	size_t ndisks = list(t, BLOCK_ONLY, &disk, disks, sizeof(disks));
	struct remap m = { .part = x, .lo = p->start, .hi = UINT64_MAX };
	struct ts_device *d;
	int ret;

	if (nparts && list(t, ANY_BLOCK, &any, blocks, sizeof(blocks))) {
		/* a filesystem whose commands the block layer names by another device: on a partition */
		if (p->dev ? nparts > 1 || x != p->dev : !p->start)
			return ts_errf(err, errlen, -EINVAL, "%s: filesystem events on %s, block events only on other "
				       "devices (%s): a filesystem on a partition, whose start the trace does not hold; "
				       "give --device PARTITION or --partition-start BYTES", path, parts, blocks);
		if (nparts > 1)
			return ts_errf(err, errlen, -EINVAL, "%s: filesystem events on %zu devices that no block event "
				       "names (%s), and --partition-start is one partition's start; give --device "
				       "PARTITION", path, nparts, parts);
	} else if (p->dev && p->disk != p->dev) {
		m.part = p->dev;	/* --device is a partition: its disk's commands inside it are its own */
	} else {
		return 0;		/* no partition: every record is on the device it names */
	}
	if (p->dev) {
		disk = p->disk != p->dev ? p->disk : 0;
		ndisks = disk != 0;
	} else if (ndisks > 1) {
		return ts_errf(err, errlen, -EINVAL, "%s: block events on %zu devices without filesystem events (%s): "
			       "which one holds the partition %s is not in the trace; give --device PARTITION",
			       path, ndisks, disks, ts_dev_str(m.part, name, sizeof(name)));
	}
	if (ndisks) {
		m.disk = disk;
		if (p->size && p->size <= UINT64_MAX - p->start)
			m.hi = p->start + p->size;
		if ((ret = import_sink__rewrite(sink, remap_one, &m)))
			return ts_errf(err, errlen, ret, "%s: %s", path, strerror(-ret));
		if (!m.left)
			import_sink__drop_device(sink, m.disk);
	}
	if (!(d = import_sink__device(sink, m.part)))
		return ts_errf(err, errlen, -ENOMEM, "%s: out of memory", path);
	d->partition_start = p->start;
	return 0;
}
