// SPDX-License-Identifier: GPL-2.0
/*
 * Is this block device safe to destroy? The same questions the kernel's own
 * exclusive open answers (bd_prepare_to_claim() in block/bdev.c), asked first
 * from user space so the refusal can say why:
 *   - mounted: /proc/self/mountinfo, matched by dev_t (field 3) or by the
 *     mount source naming the device (btrfs reports an anonymous dev_t);
 *   - held: /sys/class/block/X/holders (device-mapper, md, bcache: the links
 *     bd_link_disk_holder() in block/holder.c creates);
 *   - swap: /proc/swaps;
 * for the device itself, each partition of it, and its whole disk when it is
 * a partition. The O_EXCL open that follows is the final word.
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
#include <unistd.h>
#include "../../traces/util.h"
#include "rd_safety.h"

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

static int is_swap(const char *name)
{
	char line[1024], dev[512], real[PATH_MAX], devpath[96];
	FILE *f = fopen("/proc/swaps", "re");
	int found = 0;

	if (!f)
		return 0;
	snprintf(devpath, sizeof(devpath), "/dev/%s", name);
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%511s", dev) == 1 && dev[0] == '/' && realpath(dev, real))
			found = !strcmp(real, devpath);
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

/* One device; rel says how it relates to the one asked for ("", "its partition ", ...). */
static int check_one(const char *path, const char *name, const char *rel, char *err, size_t errlen)
{
	char what[2048], who[256], subj[160] = "";
	dev_t dev = sysfs_dev(name);

	if (*rel)
		snprintf(subj, sizeof(subj), "%s%s is ", rel, name);
	if (mounted_at(name, dev, what, sizeof(what)))
		return ts_errf(err, errlen, -EBUSY, "%s: %smounted on %s; refusing to touch it",
			       path, subj, what);
	if (first_holder(name, who, sizeof(who)))
		return ts_errf(err, errlen, -EBUSY, "%s: %sheld by %s (holders); refusing to touch it",
			       path, subj, who);
	if (is_swap(name))
		return ts_errf(err, errlen, -EBUSY, "%s: %sin use as swap; refusing to touch it",
			       path, subj);
	return 0;
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
