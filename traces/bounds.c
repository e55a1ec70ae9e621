// SPDX-License-Identifier: GPL-2.0
/*
 * The ranges every trace value must lie in (traces/FORMAT.md, "Bounds").
 * A trace comes from anywhere, so the reader and the writer refuse what a
 * Linux kernel cannot report, once, here; everything downstream (policy
 * stages, device models, exporters) then computes with values in range:
 *
 * - times and latencies: ktime_t is s64 (include/linux/ktime.h), so no
 *   monotonic time reaches 2^63 ns (TS_MAX_NS);
 * - offsets, lengths and their end: loff_t is s64 (bdev_nr_bytes(),
 *   include/linux/blkdev.h), so nothing on a block device lies at or past
 *   2^63 bytes (TS_MAX_BYTES); an extent must also lie on its device
 *   (block/blk-core.c: bio_check_eod());
 * - the device table's geometry: what struct queue_limits
 *   (include/linux/blkdev.h) and the filesystems' superblock checks allow.
 *
 * A size of 0 means unknown: the device's records are then bounded by
 * TS_MAX_BYTES alone, and every stage must stay bounded without it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "traces/trace.h"
#include "traces/trace_int.h"
#include "traces/util.h"

/* blk_validate_block_size(): 512 .. BLK_MAX_BLOCK_SIZE (SZ_64K since Linux 6.15, PAGE_SIZE before). */
#define BLOCK_MIN	512u
#define BLOCK_MAX	65536u
/* struct queue_limits: max_discard_sectors is unsigned int (sysfs shows it << SECTOR_SHIFT). */
#define DISCARD_MAX_BYTES	((uint64_t)UINT32_MAX << 9)
/* struct queue_limits: max_discard_segments is unsigned short. */
#define DISCARD_MAX_SEGMENTS	65535u
/* fs/xfs/libxfs/xfs_format.h: XFS_MAX_AG_BYTES (1 TiB); xfs_validate_sb_common() refuses larger AGs. */
#define XFS_AG_MAX_BYTES	(1ull << 40)

/* ---- records ---- */

int ts_record_check(const struct ts_record *r, char *why, size_t len)
{
	if (r->kind < TS_FREE || r->kind > TS_KIND_MAX)
		return ts_errf(why, len, -EBADMSG, "unknown kind %u", r->kind);
	if (r->kind == TS_META ? (r->op < 1 || r->op > TS_META_MAX) : r->op > TS_OP_MAX)
		return ts_errf(why, len, -EBADMSG, "unknown %s %u", r->kind == TS_META ? "META subtype" : "op",
			       r->op);
	if (r->time_ns > TS_MAX_NS)
		return ts_errf(why, len, -EBADMSG, "time %" PRIu64 " ns is past the kernel's ktime_t range "
			       "(2^63 - 1 ns)", r->time_ns);
	if (r->latency_ns > TS_MAX_NS)
		return ts_errf(why, len, -EBADMSG, "latency %" PRIu64 " ns is past the kernel's ktime_t range "
			       "(2^63 - 1 ns)", r->latency_ns);
	if (r->offset + r->length < r->offset)
		return ts_errf(why, len, -EBADMSG, "offset %" PRIu64 " + length %" PRIu64 " overflows",
			       r->offset, r->length);
	if (r->offset + r->length > TS_MAX_BYTES)
		return ts_errf(why, len, -EBADMSG, "offset %" PRIu64 " + length %" PRIu64 " ends past 2^63 - 1 "
			       "bytes (loff_t: no block device reaches that far)", r->offset, r->length);
	return 0;
}

/* Records that place bytes on the device: every kind but META, and META freespace (a free extent). */
static bool has_extent(const struct ts_record *r)
{
	return r->kind != TS_META || r->op == TS_META_FREESPACE;
}

/* The device table by dev, for the per-record check: sorted, so a header of many devices costs log n. */
struct ts_devmap {
	const struct ts_device *d;
	size_t n, hint;
	bool bounds;		/* some device has a size or a partition start */
	struct devkey { uint32_t dev; uint32_t idx; } *key;
};

static int cmp_key(const void *a, const void *b)
{
	const struct devkey *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

struct ts_devmap *ts_devmap__new(const struct ts_device *d, size_t n, char *err, size_t errlen)
{
	struct ts_devmap *m = calloc(1, sizeof(*m));
	char name[24];

	if (!m || (n && !(m->key = calloc(n, sizeof(*m->key))))) {
		ts_devmap__free(m);
		ts_errf(err, errlen, -ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	m->d = d;
	m->n = n;
	for (size_t i = 0; i < n; i++) {
		m->key[i] = (struct devkey){ d[i].dev, (uint32_t)i };
		m->bounds |= d[i].size || d[i].partition_start;
	}
	if (n)	/* m->key is NULL for an empty table: qsort(NULL, 0) is undefined */
		qsort(m->key, n, sizeof(*m->key), cmp_key);
	for (size_t i = 1; i < n; i++)
		if (m->key[i].dev == m->key[i - 1].dev) {
			ts_errf(err, errlen, -EINVAL, "header devices[%u]: dev %s repeats devices[%u]", m->key[i].idx,
				ts_dev_str(m->key[i].dev, name, sizeof(name)), m->key[i - 1].idx);
			ts_devmap__free(m);
			errno = EINVAL;
			return NULL;
		}
	return m;
}

void ts_devmap__free(struct ts_devmap *m)
{
	if (!m)
		return;
	free(m->key);
	free(m);
}

bool ts_devmap__bounds(const struct ts_devmap *m)
{
	return m->bounds;
}

static const struct ts_device *find_dev(struct ts_devmap *m, uint32_t dev)
{
	size_t lo = 0, hi = m->n;

	if (m->hint < m->n && m->key[m->hint].dev == dev)
		return &m->d[m->key[m->hint].idx];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->key[mid].dev < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->n || m->key[lo].dev != dev)
		return NULL;
	m->hint = lo;
	return &m->d[m->key[lo].idx];
}

void ts_devmap__span(struct ts_devmap *m, uint32_t dev, uint64_t *lo, uint64_t *hi)
{
	const struct ts_device *d = m->bounds ? find_dev(m, dev) : NULL;

	*lo = d ? d->partition_start : 0;
	*hi = d && d->size ? d->partition_start + d->size : TS_MAX_BYTES;
}

/*
 * A record of a partition lies on the whole disk at [partition_start,
 * partition_start + size] (the recorder adds the start: FORMAT.md, "Device
 * table"). A record without bytes may sit anywhere up to the end: a flush
 * request carries sector 0 (blk_rq_trace_sector()).
 */
int ts_devmap__check(struct ts_devmap *m, const struct ts_record *r, char *why, size_t len)
{
	const struct ts_device *dev;
	uint64_t lo, hi;
	char name[24];

	if (!m->bounds || !has_extent(r) || !(dev = find_dev(m, r->dev)))
		return 0;
	lo = dev->partition_start;
	hi = dev->size ? lo + dev->size : TS_MAX_BYTES;
	if ((r->length && r->offset < lo) || r->offset + r->length > hi) {
		ts_dev_str(r->dev, name, sizeof(name));
		if (!lo)
			return ts_errf(why, len, -ERANGE, "offset %" PRIu64 " + length %" PRIu64 " is past the end "
				       "of %s (%" PRIu64 " bytes)", r->offset, r->length, name, dev->size);
		return ts_errf(why, len, -ERANGE, "offset %" PRIu64 " + length %" PRIu64 " is outside %s "
			       "(bytes %" PRIu64 "..%" PRIu64 " of the disk: partition_start + size)",
			       r->offset, r->length, name, lo, hi);
	}
	return 0;
}

/* ---- the device table ---- */

static bool pow2_in(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v >= lo && v <= hi && !(v & (v - 1));
}

static int block_size(const char *field, uint64_t v, char *why, size_t len)
{
	if (v && !pow2_in(v, BLOCK_MIN, BLOCK_MAX))
		return ts_errf(why, len, -EINVAL, "device field \"%s\": %" PRIu64 " is not a power of two "
			       "in 512..65536 (blk_validate_block_size())", field, v);
	return 0;
}

/*
 * The physical block size has no upper bound in the kernel, only a power of
 * two (blk_validate_limits()): SCSI reports up to 2^15 logical blocks per
 * physical one (drivers/scsi/sd.c: logical_blocks_per_physical_block_exponent).
 */
static int physical_size(uint64_t v, char *why, size_t len)
{
	if (v && !pow2_in(v, BLOCK_MIN, 1ull << 31))
		return ts_errf(why, len, -EINVAL, "device field \"physical_block_size\": %" PRIu64 " is not a "
			       "power of two from 512 (blk_validate_limits())", v);
	return 0;
}

/* Strings go into the JSON header, and JSON is UTF-8 (RFC 8259, section 8.1). */
static int utf8_field(const char *field, const char *s, char *why, size_t len)
{
	size_t bad = ts_utf8_invalid(s);

	if (bad != (size_t)-1)
		return ts_errf(why, len, -EINVAL, "device field \"%s\": byte %zu is not valid UTF-8 (a trace "
			       "header is JSON text)", field, bad);
	return 0;
}

int ts_device_check(const struct ts_device *d, char *why, size_t len)
{
	int ret;

	if ((ret = utf8_field("name", d->name, why, len)) || (ret = utf8_field("fs", d->fs, why, len)) ||
	    (ret = utf8_field("mount", d->mount, why, len)))
		return ret;
	if (d->size > TS_MAX_BYTES)
		return ts_errf(why, len, -EINVAL, "device field \"size\": %" PRIu64 " is past the largest device "
			       "Linux addresses (2^63 - 1 bytes, loff_t)", d->size);
	if (d->partition_start > TS_MAX_BYTES - d->size)
		return ts_errf(why, len, -EINVAL, "device field \"partition_start\": %" PRIu64 " + size %" PRIu64
			       " ends past 2^63 - 1 bytes (loff_t)", d->partition_start, d->size);
	if ((ret = block_size("logical_block_size", d->logical_block_size, why, len)) ||
	    (ret = physical_size(d->physical_block_size, why, len)) ||
	    (ret = block_size("fs_block_size", d->fs_block_size, why, len)))
		return ret;
	/* blk_validate_limits() raises the physical block size to the logical one. */
	if (d->physical_block_size && d->physical_block_size < d->logical_block_size)
		return ts_errf(why, len, -EINVAL, "device field \"physical_block_size\": %u is below "
			       "logical_block_size %u", d->physical_block_size, d->logical_block_size);
	/* set_blocksize() (block/bdev.c) refuses a block size below the device's logical block size. */
	if (d->fs_block_size && d->fs_block_size < d->logical_block_size)
		return ts_errf(why, len, -EINVAL, "device field \"fs_block_size\": %u is below "
			       "logical_block_size %u (no filesystem mounts so)", d->fs_block_size,
			       d->logical_block_size);
	if (d->discard_granularity > UINT32_MAX)
		return ts_errf(why, len, -EINVAL, "device field \"discard_granularity\": %" PRIu64 " does not fit "
			       "the kernel's unsigned int (struct queue_limits)", d->discard_granularity);
	if (d->discard_max_bytes && (d->discard_max_bytes % 512 || d->discard_max_bytes > DISCARD_MAX_BYTES))
		return ts_errf(why, len, -EINVAL, "device field \"discard_max_bytes\": %" PRIu64 " is not a "
			       "multiple of 512 up to %" PRIu64 " (max_discard_sectors is an unsigned int of "
			       "sectors)", d->discard_max_bytes, DISCARD_MAX_BYTES);
	if (d->max_discard_segments > DISCARD_MAX_SEGMENTS)
		return ts_errf(why, len, -EINVAL, "device field \"max_discard_segments\": %u is above 65535 "
			       "(struct queue_limits holds an unsigned short)", d->max_discard_segments);
	if (d->xfs_agblocks) {
		if (d->fs[0] && strcmp(d->fs, "xfs"))
			return ts_errf(why, len, -EINVAL, "device field \"xfs_agblocks\": set on a filesystem of "
				       "type \"%s\"", d->fs);
		if (!d->fs_block_size)
			return ts_errf(why, len, -EINVAL, "device field \"xfs_agblocks\": needs fs_block_size");
		if (d->xfs_agblocks > XFS_AG_MAX_BYTES / d->fs_block_size)
			return ts_errf(why, len, -EINVAL, "device field \"xfs_agblocks\": %" PRIu64 " blocks of %u "
				       "bytes is above XFS's 1 TiB allocation group (XFS_MAX_AG_BYTES)",
				       d->xfs_agblocks, d->fs_block_size);
		if (d->size && d->xfs_agblocks * d->fs_block_size > d->size)
			return ts_errf(why, len, -EINVAL, "device field \"xfs_agblocks\": %" PRIu64 " blocks of %u "
				       "bytes is larger than the device (%" PRIu64 " bytes)", d->xfs_agblocks,
				       d->fs_block_size, d->size);
	}
	return 0;
}

int ts_devices_check(const struct ts_device *d, size_t n, char *err, size_t errlen)
{
	char why[400];
	int ret;

	for (size_t i = 0; i < n; i++)
		if ((ret = ts_device_check(&d[i], why, sizeof(why))))
			return ts_errf(err, errlen, ret, "header devices[%zu]: %s", i, why);
	return 0;
}
