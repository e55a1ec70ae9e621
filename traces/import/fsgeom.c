// SPDX-License-Identifier: GPL-2.0
/*
 * Superblock fields, from the on-disk formats:
 * XFS  (fs/xfs/libxfs/xfs_format.h, struct xfs_dsb, big-endian): magic "XFSB" at 0,
 *      sb_blocksize at 4, sb_agblocks at 84.
 * ext4 (fs/ext4/ext4.h, struct ext4_super_block at byte 1024, little-endian):
 *      s_first_data_block at 20, s_log_block_size at 24, s_log_cluster_size at 28,
 *      s_blocks_per_group at 32, s_magic 0xEF53 at 56.
 * btrfs (fs/btrfs/accessors.h, struct btrfs_super_block at 64 KiB, little-endian): magic
 *      "_BHRfS_M" at 0x40, sectorsize at 0x90. btrfs trace events are not imported; the
 *      type and block size only fill the device table.
 * Device limits from /sys/dev/block/MAJ:MIN (queue/ of the whole disk); a partition's
 * disk is the directory above it (/sys/dev/block/MAJ:MIN/../dev), as tracer/devices.c finds it.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "traces/util.h"
#include "traces/import/fsgeom.h"

static uint32_t be32_at(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return be32toh(v); }
static uint32_t le32_at(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return le32toh(v); }
static uint16_t le16_at(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return le16toh(v); }

/* First number in /sys/dev/block/M:m/<rel>; 0 if absent. */
static uint64_t sys_u64(unsigned ma, unsigned mi, const char *rel)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", ma, mi, rel);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* The dev_t in /sys/dev/block/M:m/<rel> ("7:1"); 0 if absent. */
static uint32_t sys_dev(unsigned ma, unsigned mi, const char *rel)
{
	char path[128];
	uint32_t dev = 0;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", ma, mi, rel);
	return ts_dev_read(path, &dev) ? 0 : dev;
}

static void probe_sysfs(unsigned ma, unsigned mi, struct ts_device *d, struct fsgeom *g)
{
	/* A partition has a "partition" file; its queue/ is its parent disk's. */
	bool part = sys_u64(ma, mi, "partition") != 0;
	const char *q = part ? "../queue" : "queue";
	char rel[64];

	g->disk_dev = part ? sys_dev(ma, mi, "../dev") : d->dev;
	d->partition_start = sys_u64(ma, mi, "start") * 512;
	snprintf(rel, sizeof(rel), "%s/logical_block_size", q);
	d->logical_block_size = (uint32_t)sys_u64(ma, mi, rel);
	snprintf(rel, sizeof(rel), "%s/physical_block_size", q);
	d->physical_block_size = (uint32_t)sys_u64(ma, mi, rel);
	snprintf(rel, sizeof(rel), "%s/discard_granularity", q);
	d->discard_granularity = sys_u64(ma, mi, rel);
	snprintf(rel, sizeof(rel), "%s/discard_max_bytes", q);
	d->discard_max_bytes = sys_u64(ma, mi, rel);
	snprintf(rel, sizeof(rel), "%s/max_discard_segments", q);
	d->max_discard_segments = (uint32_t)sys_u64(ma, mi, rel);
	snprintf(rel, sizeof(rel), "%s/rotational", q);
	d->rotational = sys_u64(ma, mi, rel) != 0;
}

static void parse_btrfs(const unsigned char *sb, struct fsgeom *g)
{
	if (!memcmp(sb + 0x40, "_BHRfS_M", 8)) {
		snprintf(g->fs, sizeof(g->fs), "btrfs");
		g->block_size = le32_at(sb + 0x90);
	}
}

static void parse_super(const unsigned char *sb, struct fsgeom *g)
{
	if (!memcmp(sb, "XFSB", 4)) {
		snprintf(g->fs, sizeof(g->fs), "xfs");
		g->block_size = be32_at(sb + 4);
		g->xfs_agblocks = be32_at(sb + 84);
		return;
	}
	if (le16_at(sb + 1024 + 56) == 0xEF53) {
		const unsigned char *e = sb + 1024;
		uint32_t log_bs = le32_at(e + 24), log_cs = le32_at(e + 28);

		if (log_bs > 6)
			return;
		snprintf(g->fs, sizeof(g->fs), "ext4");
		g->block_size = 1024u << log_bs;
		g->ext4_first_data_block = le32_at(e + 20);
		g->ext4_blocks_per_group = le32_at(e + 32);
		g->ext4_cluster_ratio = log_cs >= log_bs && log_cs - log_bs < 16 ? 1u << (log_cs - log_bs) : 1;
	}
}

int fsgeom__probe(const char *path, struct ts_device *d, struct fsgeom *g, char *err, size_t errlen)
{
	unsigned char sb[2048];
	struct stat st;
	uint64_t size = 0;
	int fd, ret = 0;
	const char *base;

	memset(g, 0, sizeof(*g));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ts_errf(err, errlen, -errno, "--device %s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISBLK(st.st_mode)) {
		ret = ts_errf(err, errlen, -ENOTBLK, "--device %s: not a block device", path);
		goto out;
	}
	if (pread(fd, sb, sizeof(sb), 0) != (ssize_t)sizeof(sb)) {
		ret = ts_errf(err, errlen, -EIO, "--device %s: offset 0: cannot read the superblock", path);
		goto out;
	}
	ioctl(fd, BLKGETSIZE64, &size);
	memset(d, 0, sizeof(*d));
	d->dev = TS_DEV_MK(major(st.st_rdev), minor(st.st_rdev));
	base = strrchr(path, '/');
	snprintf(d->name, sizeof(d->name), "%s", base ? base + 1 : path);
	d->size = size;
	probe_sysfs(major(st.st_rdev), minor(st.st_rdev), d, g);
	parse_super(sb, g);
	if (!g->fs[0] && pread(fd, sb, 256, 65536) == 256)
		parse_btrfs(sb, g);
	snprintf(d->fs, sizeof(d->fs), "%s", g->fs);
	d->fs_block_size = g->block_size;
	d->xfs_agblocks = g->xfs_agblocks;
out:
	close(fd);
	return ret;
}
