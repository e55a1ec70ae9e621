// SPDX-License-Identifier: GPL-2.0
/*
 * Is this block device or file safe to destroy? The one safety routine of
 * every command that writes to a real target (replay, compare's cells and its
 * up-front check, calibrate: through the device and file targets' check()).
 * For a block device, the questions the kernel's own exclusive open answers
 * (bd_prepare_to_claim() in block/bdev.c), asked first so the refusal can say
 * why, and one it does not:
 *   - mounted: /proc/self/mountinfo, matched by dev_t (field 3) or by the
 *     mount source naming the device (btrfs reports an anonymous dev_t);
 *   - held: /sys/class/block/X/holders (device-mapper, md, bcache: the links
 *     bd_link_disk_holder() in block/holder.c creates);
 *   - swap: /proc/swaps;
 *   - the backing of a loop device: loop_configure() (drivers/block/loop.c)
 *     opens its backing file without claiming it and creates no holders/
 *     link, so a loop device stacked on this one (and mounted) is invisible to
 *     the checks above and to O_EXCL. Every bound loop device's
 *     loop/backing_file and LOOP_GET_STATUS64 (lo_device, lo_inode) are
 *     matched against the target, and what uses that loop device is named,
 *     recursively;
 * for the device itself, each partition of it, and its whole disk when it is
 * a partition. Then the trace's extent against the size, read-only (Linux
 * opens a read-only block device for writing, and then every write and discard
 * fails with EPERM: blkdev_write_iter() in block/fops.c, blk_ioctl_discard()
 * in block/ioctl.c), and --destructive.
 * The O_EXCL open that follows is the final word.
 * For a file (--file): not a directory or device, not a loop device's backing
 * file, not an active swap file, and --destructive when it holds data.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/loop.h>
#include "traces/opts.h"
#include "traces/trace.h"
#include "traces/util.h"
#include "replay/targets/rd_safety.h"

#define SYSB "/sys/class/block"

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int rc = -ENOENT;

	if (!f)
		return -errno;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		rc = 0;
	}
	fclose(f);
	return rc;
}

static uint64_t read_u64(const char *dir, const char *name, uint64_t def)
{
	char path[PATH_MAX + 64], buf[64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (read_line(path, buf, sizeof(buf)))
		return def;
	return strtoull(buf, NULL, 10);
}

static void read_model(struct rd_bdev_info *bi)
{
	static const char *const tries[] = { "device/model", "device/name", "device/vendor" };
	char path[PATH_MAX + 64], buf[PATH_MAX];
	size_t i;

	snprintf(path, sizeof(path), SYSB "/%s/loop/backing_file", bi->disk);
	if (!read_line(path, buf, sizeof(buf))) {
		snprintf(bi->model, sizeof(bi->model), "loop over %.140s", buf);
		return;
	}
	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		snprintf(path, sizeof(path), SYSB "/%s/%s", bi->disk, tries[i]);
		if (!read_line(path, buf, sizeof(buf)) && *buf) {
			snprintf(bi->model, sizeof(bi->model), "%.150s", buf);
			return;
		}
	}
	snprintf(bi->model, sizeof(bi->model), "unknown");
}

int rd_bdev_inspect(const char *path, struct rd_bdev_info *bi, char *err, size_t errlen)
{
	char link[64], real[PATH_MAX], tmp[PATH_MAX], q[PATH_MAX + 16];
	struct stat st;

	memset(bi, 0, sizeof(*bi));
	snprintf(bi->path, sizeof(bi->path), "%s", path);
	if (stat(path, &st))
		return ts_errf(err, errlen, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return ts_errf(err, errlen, -ENOTBLK, "%s: not a block device%s", path,
			       S_ISREG(st.st_mode) ? " (use --file for a regular file)" : "");
	bi->rdev = st.st_rdev;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(link, real))
		return ts_errf(err, errlen, -errno, "%s: no sysfs entry %s", path, link);
	snprintf(tmp, sizeof(tmp), "%s", real);
	snprintf(bi->name, sizeof(bi->name), "%s", basename(tmp));
	snprintf(q, sizeof(q), "%s/partition", real);
	bi->is_part = !access(q, F_OK);
	snprintf(tmp, sizeof(tmp), "%s", real);
	snprintf(bi->disk, sizeof(bi->disk), "%s", bi->is_part ? basename(dirname(tmp)) : bi->name);
	bi->size = read_u64(real, "size", 0) * 512;
	bi->ro = read_u64(real, "ro", 0) != 0;	/* part_ro_show(): the partition's flag or its disk's */
	snprintf(q, sizeof(q), SYSB "/%s/queue", bi->disk);
	bi->lbs = (uint32_t)read_u64(q, "logical_block_size", 512);
	bi->pbs = (uint32_t)read_u64(q, "physical_block_size", 512);
	bi->granularity = (uint32_t)read_u64(q, "discard_granularity", 0);
	bi->discard_max = read_u64(q, "discard_max_bytes", 0);
	bi->max_segments = (uint32_t)read_u64(q, "max_discard_segments", 1);
	bi->rotational = read_u64(q, "rotational", 0) != 0;
	read_model(bi);
	return 0;
}

/* Where name (or its dev_t) is mounted, into at; 1 if mounted. */
static int mounted_at(const char *name, dev_t dev, char *at, size_t atlen)
{
	char line[4096], devpath[96], mnt[2048], src[2048], real[PATH_MAX];
	unsigned maj, min;
	const char *dash;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = 0;

	if (!f)
		return 0;
	snprintf(devpath, sizeof(devpath), "/dev/%s", name);
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*u %*u %u:%u %*s %2047s", &maj, &min, mnt) != 3)
			continue;
		dash = strstr(line, " - ");
		src[0] = '\0';
		if (dash)
			sscanf(dash + 3, "%*s %2047s", src);
		if (makedev(maj, min) == dev)
			found = 1;
		else if (src[0] == '/' && realpath(src, real) && !strcmp(real, devpath))
			found = 1;
		if (found)
			snprintf(at, atlen, "%s", mnt);
	}
	fclose(f);
	return found;
}

static int first_holder(const char *name, char *who, size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int found = 0;

	snprintf(path, sizeof(path), SYSB "/%s/holders", name);
	d = opendir(path);
	if (!d)
		return 0;
	while (!found && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(who, len, "%s", de->d_name);
			found = 1;
		}
	closedir(d);
	return found;
}

/* /proc/swaps escapes blanks and backslashes in names as \ooo (seq_file's mangle_path()). */
static void unescape_octal(char *s)
{
	char *w = s;

	for (; *s; s++, w++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
		    s[3] <= '7') {
			*w = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w = *s;
		}
	}
	*w = '\0';
}

/* An active swap area on this block device (rdev) or in this file (dev, ino). */
static int is_swap(dev_t rdev, dev_t dev, ino_t ino)
{
	char line[PATH_MAX + 128], name[PATH_MAX];
	FILE *f = fopen("/proc/swaps", "re");
	struct stat st;
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%4095s", name) != 1 || name[0] != '/')
			continue;
		unescape_octal(name);
		if (stat(name, &st))
			continue;
		found = S_ISBLK(st.st_mode) ? rdev && st.st_rdev == rdev : st.st_dev == dev && st.st_ino == ino;
	}
	fclose(f);
	return found;
}

static dev_t sysfs_dev(const char *name)
{
	char path[PATH_MAX], buf[32];
	unsigned maj, min;

	snprintf(path, sizeof(path), SYSB "/%s/dev", name);
	if (read_line(path, buf, sizeof(buf)) || sscanf(buf, "%u:%u", &maj, &min) != 2)
		return 0;
	return makedev(maj, min);
}

#define STACK_MAX 8	/* loop devices stacked deeper than this are not followed */

/* What bdev_use() found: no use, one that reads "is mounted/held/in use as swap", or "backs loopN". */
enum use_kind { USE_NONE, USE_IS, USE_BACKS };

static enum use_kind bdev_use(const char *name, dev_t dev, unsigned depth, char *why, size_t len);

/*
 * A bound loop device whose backing is this block device (rdev) or this file
 * (fdev, ino): its name into who, 1 if found. Matched by the backing file's
 * path (loop/backing_file, a device node: its rdev) and by LOOP_GET_STATUS64,
 * which holds the backing inode even when the path was renamed or deleted.
 */
static int backing_of(dev_t rdev, dev_t fdev, ino_t ino, char *who, size_t len)
{
	char path[PATH_MAX], file[PATH_MAX];
	struct loop_info64 li;
	struct dirent *de;
	struct stat st;
	int found = 0, fd;
	DIR *d = opendir("/sys/block");

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", de->d_name);
		if (read_line(path, file, sizeof(file)))
			continue;	/* not bound */
		if (!stat(file, &st))
			found = S_ISBLK(st.st_mode) ? rdev && st.st_rdev == rdev
						    : !rdev && st.st_dev == fdev && st.st_ino == ino;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		if (!found && (fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) >= 0) {
			if (ino && !ioctl(fd, LOOP_GET_STATUS64, &li))
				found = li.lo_device == (uint64_t)fdev && li.lo_inode == (uint64_t)ino;
			close(fd);
		}
		if (found)
			snprintf(who, len, "%s", de->d_name);
	}
	closedir(d);
	return found;
}

/* What uses a loop device that backs the target: ", which is mounted on /mnt" (or nothing). */
static void stacked_use(const char *loop, unsigned depth, char *why, size_t len)
{
	enum use_kind u = USE_NONE;
	char use[1024];

	why[0] = '\0';
	if (depth < STACK_MAX && (u = bdev_use(loop, sysfs_dev(loop), depth + 1, use, sizeof(use))))
		snprintf(why, len, ", which %s%s", u == USE_IS ? "is " : "", use);
}

/*
 * Whether block device name (dev) is in use, the reason into why ("mounted on
 * /mnt", "held by dm-0 (holders)", "in use as swap", "backs loop7
 * (loop/backing_file), which is mounted on /mnt"); the kind of use, USE_NONE if none.
 */
static enum use_kind bdev_use(const char *name, dev_t dev, unsigned depth, char *why, size_t len)
{
	char what[2048], who[256], more[1100];
	char node[96];
	struct stat st;

	if (mounted_at(name, dev, what, sizeof(what)))
		return snprintf(why, len, "mounted on %s", what), USE_IS;
	if (first_holder(name, who, sizeof(who)))
		return snprintf(why, len, "held by %s (holders)", who), USE_IS;
	if (is_swap(dev, 0, 0))
		return snprintf(why, len, "in use as swap"), USE_IS;
	snprintf(node, sizeof(node), "/dev/%s", name);
	if (stat(node, &st) || !S_ISBLK(st.st_mode) || st.st_rdev != dev)
		st.st_dev = 0, st.st_ino = 0;
	if (backing_of(dev, st.st_dev, st.st_ino, who, sizeof(who))) {
		stacked_use(who, depth, more, sizeof(more));
		return snprintf(why, len, "backs %s (loop/backing_file)%s", who, more), USE_BACKS;
	}
	return USE_NONE;
}

/* One device; rel says how it relates to the one asked for ("", "its partition ", ...). */
static int check_one(const char *path, const char *name, const char *rel, char *err, size_t errlen)
{
	char why[3400];
	enum use_kind u = bdev_use(name, sysfs_dev(name), 0, why, sizeof(why));

	if (u == USE_NONE)
		return 0;
	if (!*rel)
		return ts_errf(err, errlen, -EBUSY, "%s: %s; refusing to touch it", path, why);
	return ts_errf(err, errlen, -EBUSY, "%s: %s%s %s%s; refusing to touch it", path, rel, name,
		       u == USE_IS ? "is " : "", why);
}

int rd_bdev_check_unused(const struct rd_bdev_info *bi, char *err, size_t errlen)
{
	char dir[PATH_MAX], part[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;
	int rc;

	rc = check_one(bi->path, bi->name, "", err, errlen);
	if (rc)
		return rc;
	if (bi->is_part)
		return check_one(bi->path, bi->disk, "its whole disk ", err, errlen);
	snprintf(dir, sizeof(dir), SYSB "/%s", bi->disk);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!rc && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(part, sizeof(part), "%s/%s/partition", dir, de->d_name);
		if (!access(part, F_OK))
			rc = check_one(bi->path, de->d_name, "its partition ", err, errlen);
	}
	closedir(d);
	return rc;
}

static const char *size_str(uint64_t v, uint64_t other, char *buf, size_t len)
{
	char a[32], b[32];

	fmt_bytes(v, a, sizeof(a));
	if (strcmp(a, fmt_bytes(other, b, sizeof(b))))
		return snprintf(buf, len, "%s", a), buf;
	return snprintf(buf, len, "%llu bytes", (unsigned long long)v), buf;	/* the same when rounded */
}

int rd_check_device(const char *path, const struct rd_want *w, struct rd_bdev_info *bi, char *err, size_t errlen)
{
	char sz[40], ext[40];
	int rc = rd_bdev_inspect(path, bi, err, errlen);

	if (!rc)
		rc = rd_bdev_check_unused(bi, err, errlen);
	if (rc)
		return rc;
	if (w->extent > bi->size)
		return ts_errf(err, errlen, -ENOSPC, "%s: %s is smaller than the trace's extent (%s); refusing", path,
			       size_str(bi->size, w->extent, sz, sizeof(sz)),
			       size_str(w->extent, bi->size, ext, sizeof(ext)));
	if (bi->ro)
		return ts_errf(err, errlen, -EROFS, "%s: read-only (%s/%s/ro is 1), so every write and discard "
			       "would fail; refusing", path, SYSB, bi->name);
	if (!w->destructive)
		return ts_errf(err, errlen, -EPERM, "%s: %s; add --destructive to allow it", path,
			       w->action ? w->action : "replaying to a block device destroys its data");
	return 0;
}

/* Data somewhere in the file: SEEK_DATA finds some (a filesystem without it reports all of it as data). */
static int holds_data(const char *path, const struct stat *st)
{
	int fd, found;

	if (!st->st_size)
		return 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return -errno;
	found = lseek(fd, 0, SEEK_DATA) >= 0 ? 1 : errno == ENXIO ? 0 : -errno;
	close(fd);
	return found;
}

int rd_check_file(const char *path, const struct rd_want *w, char *err, size_t errlen)
{
	char who[256], more[1100];
	struct stat st;
	int data;

	if (stat(path, &st)) {
		if (errno == ENOENT)
			return 0;	/* a new file: nothing to lose */
		return ts_errf(err, errlen, -errno, "%s: %s", path, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return ts_errf(err, errlen, -EINVAL, "%s: not a regular file%s", path,
			       S_ISBLK(st.st_mode) ? " (use --device for a block device)" : "");
	if (backing_of(0, st.st_dev, st.st_ino, who, sizeof(who))) {
		stacked_use(who, 0, more, sizeof(more));
		return ts_errf(err, errlen, -EBUSY, "%s: the backing file of %s (loop/backing_file)%s; "
			       "refusing to touch it", path, who, more);
	}
	if (is_swap(0, st.st_dev, st.st_ino))
		return ts_errf(err, errlen, -EBUSY, "%s: in use as swap; refusing to touch it", path);
	if ((data = holds_data(path, &st)) < 0)
		return ts_errf(err, errlen, data, "%s: %s", path, strerror(-data));
	if (data && !w->destructive)
		return ts_errf(err, errlen, -EPERM, "%s: holds data (%lld bytes, not all holes), which the replay "
			       "overwrites; add --destructive to allow it", path, (long long)st.st_size);
	return 0;
}

int rd_trace_extent(const char *trace, uint32_t devno, uint64_t *ext, struct policy_input_counts *input,
		    char *err, size_t errlen)
{
	struct trace_reader *r = trace_reader__open(trace, err, errlen);
	const struct ts_record *recs;
	ssize_t n;

	*ext = 0;
	if (!r)
		return errno ? -errno : -EIO;
	while ((n = trace_reader__batch(r, &recs, 4096)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (devno && recs[i].dev != devno)
				continue;
			if (input)
				policy_input_count(input, &recs[i]);
			/*
			 * A free-space snapshot is an extent too: fstrim and ext4's 6.6+ extension discard
			 * there (replay/policies/fstrim.c, ext4.c), past every other record. The other META
			 * records' lengths are no extents (lost events, commit ids).
			 */
			if ((recs[i].kind != TS_META || recs[i].op == TS_META_FREESPACE) &&
			    recs[i].offset + recs[i].length > *ext)
				*ext = recs[i].offset + recs[i].length;
		}
	if (n < 0)
		snprintf(err, errlen, "%s", trace_reader__error(r));
	trace_reader__close(r);
	return n < 0 ? (int)n : 0;
}
