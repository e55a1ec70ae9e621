// SPDX-License-Identifier: GPL-2.0
/*
 * Traced devices: resolve -d DEV / -m MOUNTPOINT to a device, fill its header
 * entry from sysfs (block/genhd.c and block/blk-sysfs.c attributes) and from
 * the filesystem superblock, and take GETFSMAP free-space snapshots.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <endian.h>
#include <linux/fs.h>
#include <linux/fsmap.h>

#include "tracer/recorder.h"
#include "traces/ext4free.h"
#include "traces/util.h"

/* A sysfs attribute as a number; 0 if absent. */
static uint64_t sysfs_u64(const char *dir, const char *attr)
{
	char path[PATH_MAX], buf[64];
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		v = strtoull(buf, NULL, 10);
	fclose(f);
	return v;
}

/* One line of /proc/self/mountinfo (fs/proc_namespace.c show_mountinfo). */
struct mnt {
	char point[PATH_MAX];	/* the whole mount point: the trace keeps it (struct ts_device.mount) */
	char fstype[32];
	char source[PATH_MAX];
};

/* Finds the mount whose source device is rdev (match_rdev) or whose mount point is path. */
static int find_mount(dev_t rdev, const char *path, struct mnt *m)
{
	char line[3 * PATH_MAX], point[PATH_MAX], fstype[32], source[PATH_MAX];
	int found = -ENOENT;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		return -errno;
	/* A line holds a root and a mount point of up to PATH_MAX each: nothing is cut. */
	while (fgets(line, sizeof(line), f)) {
		char *dash;
		struct stat st;

		if (sscanf(line, "%*u %*u %*s %*s %4095s", point) != 1)
			continue;
		dash = strstr(line, " - ");
		if (!dash || sscanf(dash + 3, "%31s %4095s", fstype, source) != 2)
			continue;
		if (path ? strcmp(point, path) != 0
			 : (stat(source, &st) || !S_ISBLK(st.st_mode) || st.st_rdev != rdev))
			continue;
		snprintf(m->point, sizeof(m->point), "%s", point);
		snprintf(m->fstype, sizeof(m->fstype), "%s", fstype);
		snprintf(m->source, sizeof(m->source), "%s", source);
		found = 0;
		if (path)	/* the last mount on a point is the visible one */
			continue;
		break;
	}
	fclose(f);
	return found;
}

/* XFS_IOC_FSGEOMETRY_V1 (fs/xfs/libxfs/xfs_fs.h, struct xfs_fsop_geom_v1): works on the mount point. */
struct xfs_geom_v1 {
	uint32_t blocksize, rtextsize, agblocks, agcount, logblocks, sectsize, inodesize, imaxpct;
	uint64_t datablocks, rtblocks, rtextents, logstart;
	unsigned char uuid[16];
	uint32_t sunit, swidth;
	int32_t version;
	uint32_t flags, logsectsize, rtsectsize, dirblocksize;
};
#define XFS_IOC_FSGEOMETRY_V1 _IOR('X', 100, struct xfs_geom_v1)

/*
 * When the block device cannot be opened (a locked-down root device), take
 * the geometry from the mounted filesystem: XFS answers an ioctl; ext4 has
 * none, so mke2fs's defaults are assumed (a block bitmap's bits per group,
 * first data block 1 only with 1 KiB blocks) and the user is told.
 */
static int geometry_from_mount(const char *devpath, const char *mnt, struct rec_dev *rd, int why,
			       char *err, size_t errlen)
{
	struct xfs_geom_v1 g;
	struct statfs sf;
	int fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return ts_errf(err, errlen, -errno, "%s: %s", mnt, strerror(errno));
	if (rd->fs == TS_FS_XFS) {
		if (ioctl(fd, XFS_IOC_FSGEOMETRY_V1, &g))
			rc = ts_errf(err, errlen, -errno, "%s: XFS geometry: %s", mnt, strerror(errno));
		rd->d.fs_block_size = g.blocksize;
		rd->d.xfs_agblocks = g.agblocks;
	} else if (fstatfs(fd, &sf)) {
		rc = ts_errf(err, errlen, -errno, "%s: statfs: %s", mnt, strerror(errno));
	} else {
		rd->d.fs_block_size = (uint32_t)sf.f_bsize;
		rd->ext4_blocks_per_group = 8ull * (uint64_t)sf.f_bsize;
		rd->ext4_first_data_block = sf.f_bsize == 1024;
		fprintf(stderr, "trimsim record: %s: cannot read the ext4 superblock (%s); assuming %llu "
			"blocks per group for ALLOC offsets\n", devpath, strerror(why),
			(unsigned long long)rd->ext4_blocks_per_group);
	}
	close(fd);
	return rc;
}

/* The value fmt's __print_flags() gives name ("{ 0x0010,\"1ST_CLUSTER\" }"); 0 if it names none. */
static uint32_t print_flag(const char *fmt, const char *name)
{
	const char *p = strstr(fmt, name), *q = p;

	while (q && q > fmt && *q != '{')
		q--;
	return q && *q == '{' ? (uint32_t)strtoul(q + 1, NULL, 0) : 0;
}

/*
 * EXT4_FREE_BLOCKS_NOFREE_FIRST_CLUSTER and _LAST_CLUSTER (fs/ext4/ext4.h) of the running
 * kernel, from ext4_free_blocks' print format (show_free_flags() in include/trace/events/ext4.h
 * names them 1ST_CLUSTER and LAST_CLUSTER): a kernel whose format names neither rounds
 * every free out to whole clusters. Unreadable format: the values they have had since 3.2.
 */
static void ext4_free_flags(struct rec_dev *rd)
{
	char path[PATH_MAX], fmt[8192];
	FILE *f;
	size_t n;

	rd->ext4_nofree_first = TS_EXT4_NOFREE_FIRST;
	rd->ext4_nofree_last = TS_EXT4_NOFREE_LAST;
	snprintf(path, sizeof(path), "%s/events/ext4/ext4_free_blocks/format", rec_tracefs_dir());
	if (!(f = fopen(path, "re")))
		return;
	n = fread(fmt, 1, sizeof(fmt) - 1, f);
	fclose(f);
	fmt[n] = '\0';
	rd->ext4_nofree_first = print_flag(fmt, "\"" TS_EXT4_NOFREE_FIRST_NAME "\"");
	rd->ext4_nofree_last = print_flag(fmt, "\"" TS_EXT4_NOFREE_LAST_NAME "\"");
}

/* Superblock geometry: XFS (fs/xfs/libxfs/xfs_format.h xfs_dsb, big-endian) and ext4 (struct ext4_super_block). */
static int read_superblock(const char *devpath, struct rec_dev *rd, char *err, size_t errlen)
{
	unsigned char sb[2048];
	int fd = open(devpath, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 && (errno == EPERM || errno == EACCES) && rd->d.mount[0])
		return geometry_from_mount(devpath, rd->d.mount, rd, errno, err, errlen);
	if (fd < 0)
		return ts_errf(err, errlen, -errno, "%s: %s", devpath, strerror(errno));
	n = pread(fd, sb, sizeof(sb), 0);
	close(fd);
	if (n != (ssize_t)sizeof(sb))
		return ts_errf(err, errlen, -EIO, "%s: cannot read the superblock", devpath);
	if (rd->fs == TS_FS_XFS) {
		uint32_t magic, bs, agblocks;

		memcpy(&magic, sb, 4);
		memcpy(&bs, sb + 4, 4);		/* sb_blocksize */
		memcpy(&agblocks, sb + 84, 4);	/* sb_agblocks */
		if (be32toh(magic) != 0x58465342)	/* "XFSB" */
			return ts_errf(err, errlen, -EINVAL, "%s: no XFS superblock", devpath);
		rd->d.fs_block_size = be32toh(bs);
		rd->d.xfs_agblocks = be32toh(agblocks);
	} else if (rd->fs == TS_FS_EXT4) {
		const unsigned char *e = sb + 1024;
		uint32_t first, logb, logc, bpg;
		uint16_t magic;

		memcpy(&first, e + 20, 4);	/* s_first_data_block */
		memcpy(&logb, e + 24, 4);	/* s_log_block_size */
		memcpy(&logc, e + 28, 4);	/* s_log_cluster_size */
		memcpy(&bpg, e + 32, 4);	/* s_blocks_per_group */
		memcpy(&magic, e + 56, 2);
		if (le16toh(magic) != 0xef53)
			return ts_errf(err, errlen, -EINVAL, "%s: no ext4 superblock", devpath);
		rd->d.fs_block_size = 1024u << le32toh(logb);
		rd->ext4_first_data_block = le32toh(first);
		rd->ext4_blocks_per_group = le32toh(bpg);
		rd->ext4_cluster_bits = le32toh(logc) >= le32toh(logb) ? le32toh(logc) - le32toh(logb) : 0;
	}
	return 0;
}

static int fill(const char *devpath, dev_t rdev, const struct mnt *m, struct rec_dev *rd,
		char *err, size_t errlen)
{
	char sys[PATH_MAX], real[PATH_MAX], q[PATH_MAX + 16];
	unsigned ma = major(rdev), mi = minor(rdev);
	const char *base;

	memset(rd, 0, sizeof(*rd));
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", ma, mi);
	if (!realpath(sys, real))
		return ts_errf(err, errlen, -ENODEV, "%s: no %s", devpath, sys);
	base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	snprintf(rd->d.name, sizeof(rd->d.name), "%.31s", base);
	rd->d.dev = TS_DEV_MK(ma, mi);
	rd->nr_sect = sysfs_u64(real, "size");
	rd->d.size = rd->nr_sect * 512;
	snprintf(q, sizeof(q), "%s/partition", real);
	if (!access(q, F_OK)) {		/* a partition: queue and dev of the parent disk */
		char disk[PATH_MAX];

		rd->start_sect = sysfs_u64(real, "start");
		snprintf(disk, sizeof(disk), "%s", real);
		*strrchr(disk, '/') = '\0';
		snprintf(q, sizeof(q), "%s/dev", disk);
		if (ts_dev_read(q, &rd->disk_dev))
			return ts_errf(err, errlen, -ENODEV, "%s: cannot read %s", devpath, q);
		snprintf(q, sizeof(q), "%s/queue", disk);
	} else {
		rd->disk_dev = rd->d.dev;
		rd->start_sect = 0;
		snprintf(q, sizeof(q), "%s/queue", real);
	}
	rd->d.partition_start = rd->start_sect * 512;
	rd->d.logical_block_size = sysfs_u64(q, "logical_block_size");
	rd->d.physical_block_size = sysfs_u64(q, "physical_block_size");
	rd->d.discard_granularity = sysfs_u64(q, "discard_granularity");
	rd->d.discard_max_bytes = sysfs_u64(q, "discard_max_bytes");
	rd->d.max_discard_segments = sysfs_u64(q, "max_discard_segments");
	rd->d.rotational = sysfs_u64(q, "rotational") != 0;
	if (!m)
		return 0;
	snprintf(rd->d.mount, sizeof(rd->d.mount), "%s", m->point);
	snprintf(rd->d.fs, sizeof(rd->d.fs), "%.15s", m->fstype);
	rd->fs = ts_fs_from_name(m->fstype) > 0 ? (unsigned)ts_fs_from_name(m->fstype) : TS_FS_NONE;
	if (rd->fs == TS_FS_XFS || rd->fs == TS_FS_EXT4) {
		int rc = read_superblock(devpath, rd, err, errlen);

		if (!rc && rd->ext4_cluster_bits)	/* bigalloc: only there are frees rounded (record.c) */
			ext4_free_flags(rd);
		return rc;
	}
	if (rd->fs == TS_FS_BTRFS)
		rd->d.fs_block_size = 4096;	/* sectorsize; btrfs has no fs-level free/discard events here */
	return 0;
}

int rec_dev__from_path(const char *path, struct rec_dev *rd, char *err, size_t errlen)
{
	struct stat st;
	struct mnt m;

	if (stat(path, &st))
		return ts_errf(err, errlen, -errno, "-d %s: %s", path, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return ts_errf(err, errlen, -ENOTBLK, "-d %s: not a block device", path);
	return fill(path, st.st_rdev, find_mount(st.st_rdev, NULL, &m) ? NULL : &m, rd, err, errlen);
}

int rec_dev__from_mount(const char *mnt, struct rec_dev *rd, char *err, size_t errlen)
{
	char real[PATH_MAX];
	struct stat st;
	struct mnt m;

	if (!realpath(mnt, real))
		return ts_errf(err, errlen, -errno, "-m %s: %s", mnt, strerror(errno));
	if (find_mount(0, real, &m))
		return ts_errf(err, errlen, -ENOENT, "-m %s: not a mount point", mnt);
	if (stat(m.source, &st) || !S_ISBLK(st.st_mode))
		return ts_errf(err, errlen, -ENOTBLK, "-m %s: source %s is not a block device",
			       mnt, m.source);
	return fill(m.source, st.st_rdev, &m, rd, err, errlen);
}

int rec_dev__all_mounted(struct rec_dev *rds, size_t max, size_t *n, char *err, size_t errlen)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int rc = 0;

	*n = 0;
	if (!f)
		return ts_errf(err, errlen, -errno, "/proc/self/mountinfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f) && *n < max) {
		char point[256], *dash;
		struct stat st;
		size_t i;

		dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*u %*u %*s %*s %255s", point) != 1)
			continue;
		if (sscanf(dash + 3, "%*s %255s", line) != 1 || stat(line, &st) || !S_ISBLK(st.st_mode))
			continue;
		for (i = 0; i < *n && rds[i].d.dev != TS_DEV_MK(major(st.st_rdev), minor(st.st_rdev)); i++)
			;
		if (i < *n)
			continue;	/* bind mounts and subvolumes: once per device */
		rc = rec_dev__from_mount(point, &rds[*n], err, errlen);
		if (rc)
			break;
		(*n)++;
	}
	fclose(f);
	if (!rc && !*n)
		rc = ts_errf(err, errlen, -ENODEV, "no mounted block-device filesystem to trace");
	return rc;
}

#define FSMAP_BATCH 256

int rec_dev__freespace(const struct rec_dev *rd, rec_extent_fn fn, void *arg,
		       char *err, size_t errlen)
{
	struct fsmap_head *h;
	struct stat st;
	int fd, rc = 0;

	if (!rd->d.mount[0] || (rd->fs != TS_FS_XFS && rd->fs != TS_FS_EXT4))
		return -EOPNOTSUPP;
	fd = open(rd->d.mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -ENODEV;		/* unmounted meanwhile: no snapshot */
	if (fstat(fd, &st) || TS_DEV_MK(major(st.st_dev), minor(st.st_dev)) != rd->d.dev) {
		close(fd);		/* the directory is there, the filesystem is not */
		return -ENODEV;
	}
	h = calloc(1, fsmap_sizeof(FSMAP_BATCH));
	if (!h) {
		rc = ts_errf(err, errlen, -ENOMEM, "GETFSMAP: out of memory");
		goto out;
	}
	h->fmh_count = FSMAP_BATCH;
	h->fmh_keys[1].fmr_device = UINT32_MAX;	/* high key: everything (as xfs_io -c fsmap) */
	h->fmh_keys[1].fmr_flags = UINT32_MAX;
	h->fmh_keys[1].fmr_physical = UINT64_MAX;
	h->fmh_keys[1].fmr_owner = UINT64_MAX;
	h->fmh_keys[1].fmr_offset = UINT64_MAX;
	for (;;) {
		if (ioctl(fd, FS_IOC_GETFSMAP, h)) {
			rc = errno == ENOTTY || errno == EOPNOTSUPP ? -EOPNOTSUPP
				: ts_errf(err, errlen, -errno, "%s: GETFSMAP: %s", rd->d.mount,
					  strerror(errno));
			goto out;
		}
		if (!h->fmh_entries)
			break;
		for (unsigned i = 0; i < h->fmh_entries; i++) {
			const struct fsmap *m = &h->fmh_recs[i];

			if (m->fmr_owner != FMR_OWN_FREE)
				continue;
			rc = fn(arg, m->fmr_physical + rd->d.partition_start, m->fmr_length);
			if (rc)
				goto out;
		}
		if (h->fmh_recs[h->fmh_entries - 1].fmr_flags & FMR_OF_LAST)
			break;
		fsmap_advance(h);
	}
out:
	free(h);
	close(fd);
	return rc;
}
