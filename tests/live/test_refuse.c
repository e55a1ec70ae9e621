// SPDX-License-Identifier: GPL-2.0
/*
 * Every refusal of the device target: its exact one-line message, and the
 * device's bytes untouched (checksum of the backing image before and after).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fcntl.h>
#include <libgen.h>
#include <string.h>

#include "tests/live/live.h"
#include "replay/targets/realdev.h"
#include "traces/opts.h"

#define MIB (1024ull * 1024)

TestSuite(refuse, .init = lv_init, .fini = lv_fini, .timeout = 60);

enum refuse_kind {
	RK_MOUNTED, RK_PART_MOUNTED, RK_WHOLE_DISK_MOUNTED, RK_HOLDER, RK_WHOLE_DISK_HELD, RK_TOO_SMALL,
	RK_NOT_DESTRUCTIVE, RK_NOT_BLOCK, RK_EXCL_BUSY, RK_FILE_ON_BDEV, RK_READ_ONLY,
};

struct refuse_case {
	char name[32];
	enum refuse_kind kind;
};

static struct refuse_case cases[] = {
	{ .name = "mounted", .kind = RK_MOUNTED },
	{ .name = "partition mounted", .kind = RK_PART_MOUNTED },
	{ .name = "whole disk mounted", .kind = RK_WHOLE_DISK_MOUNTED },
	{ .name = "dm holder", .kind = RK_HOLDER },
	{ .name = "whole disk held", .kind = RK_WHOLE_DISK_HELD },
	{ .name = "too small", .kind = RK_TOO_SMALL },
	{ .name = "no --destructive", .kind = RK_NOT_DESTRUCTIVE },
	{ .name = "not a block device", .kind = RK_NOT_BLOCK },
	{ .name = "opened exclusively", .kind = RK_EXCL_BUSY },
	{ .name = "file target on bdev", .kind = RK_FILE_ON_BDEV },
	{ .name = "read-only", .kind = RK_READ_ONLY },
};

/* An MBR with one Linux partition from sector 2048 to the end (no sfdisk needed). */
static void write_mbr(const char *img, unsigned mib)
{
	uint8_t mbr[512] = { 0 };
	uint32_t start = 2048, count = mib * 2048 - start;
	FILE *f = fopen(img, "r+b");

	cr_assert_not_null(f);
	mbr[446 + 4] = 0x83;
	memcpy(mbr + 446 + 8, &start, 4);	/* little-endian host */
	memcpy(mbr + 446 + 12, &count, 4);
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	cr_assert_eq(fwrite(mbr, 1, sizeof(mbr), f), sizeof(mbr));
	fclose(f);
}

/*
 * The partition: the kernel reads the MBR if it was built with a partition
 * parser (CONFIG_MSDOS_PARTITION); this VM's kernel has none, so add it with
 * BLKPG (addpart) as a fallback. Either way the kernel gets a real partition.
 */
static void add_partition(const char *dev, const char *part, unsigned mib)
{
	char cmd[300];
	int i;

	for (i = 0; i < 20 && access(part, F_OK); i++)
		usleep(10000);
	if (access(part, F_OK)) {
		snprintf(cmd, sizeof(cmd), "addpart %s 1 2048 %u", dev, mib * 2048 - 2048);
		lv_sh(cmd);
	}
	lv_wait_node(part);
}

static const char *md5(const char *path)
{
	static char buf[2][64];
	static int i;
	char cmd[600];

	i = !i;
	snprintf(cmd, sizeof(cmd), "md5sum < '%s'", path);
	snprintf(buf[i], sizeof(buf[i]), "%s", lv_sh(cmd));
	return buf[i];
}

static const char *dm_kernel_name(const char *dmname)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "basename $(readlink -f /dev/mapper/%s)", dmname);
	return lv_sh(cmd);
}

ParameterizedTestParameters(refuse, one_line_and_untouched)
{
	return cr_make_param_array(struct refuse_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct refuse_case *p, refuse, one_line_and_untouched)
{
	const char *img = lv_path("disk.img"), *dev, *target;
	struct target_env env = { .seed = 1, .qd = 2, .destructive = true, .quiet = true };
	const struct target_ops *ops = &device_target_ops;
	char want[1024], err[1024] = "", a[32], b[32], base[64], dm[64], sum[64], part[80];
	void *priv = (void *)1;
	int excl = -1, rc;

	lv_mkfile(img, 16);
	if (p->kind == RK_PART_MOUNTED || p->kind == RK_WHOLE_DISK_HELD)
		write_mbr(img, 16);
	dev = lv_loop(img, p->kind == RK_PART_MOUNTED || p->kind == RK_WHOLE_DISK_HELD ||
			   p->kind == RK_WHOLE_DISK_MOUNTED ? "-P" : p->kind == RK_READ_ONLY ? "-r" : NULL);
	snprintf(base, sizeof(base), "%s", dev + 5);
	snprintf(part, sizeof(part), "%sp1", dev);
	if (p->kind == RK_PART_MOUNTED || p->kind == RK_WHOLE_DISK_HELD)
		add_partition(dev, part, 16);
	snprintf(dm, sizeof(dm), "trimsim-test-%d", (int)getpid());
	target = dev;
	switch (p->kind) {
	case RK_MOUNTED:
		snprintf(want, sizeof(want), "mkfs.ext4 -q -F %s >/dev/null", dev);
		lv_sh(want);
		lv_mount(dev, lv_path("mnt"));
		snprintf(want, sizeof(want), "%s: mounted on %s; refusing to touch it", dev, lv_path("mnt"));
		break;
	case RK_PART_MOUNTED:
		snprintf(want, sizeof(want), "mkfs.ext4 -q -F %sp1 >/dev/null", dev);
		lv_sh(want);
		snprintf(want, sizeof(want), "%sp1", dev);
		lv_mount(want, lv_path("mnt"));
		snprintf(want, sizeof(want), "%s: its partition %sp1 is mounted on %s; refusing to touch it",
			 dev, base, lv_path("mnt"));
		break;
	case RK_WHOLE_DISK_MOUNTED:
		snprintf(want, sizeof(want), "mkfs.ext4 -q -F %s >/dev/null", dev);
		lv_sh(want);
		lv_mount(dev, lv_path("mnt"));
		add_partition(dev, part, 16);
		target = part;
		snprintf(want, sizeof(want), "%s: its whole disk %s is mounted on %s; refusing to touch it",
			 part, base, lv_path("mnt"));
		break;
	case RK_HOLDER:
		lv_dm_linear(dm, dev, 16 * 2048);
		snprintf(want, sizeof(want), "%s: held by %s (holders); refusing to touch it", dev,
			 dm_kernel_name(dm));
		break;
	case RK_WHOLE_DISK_HELD:
		lv_dm_linear(dm, dev, 16 * 2048);
		target = part;
		snprintf(want, sizeof(want), "%s: its whole disk %s is held by %s (holders); refusing to touch it",
			 part, base, dm_kernel_name(dm));
		break;
	case RK_TOO_SMALL:
		env.trace_extent = 64 * MIB;
		snprintf(want, sizeof(want), "%s: %s is smaller than the trace's extent (%s); refusing", dev,
			 fmt_bytes(16 * MIB, a, sizeof(a)), fmt_bytes(64 * MIB, b, sizeof(b)));
		break;
	case RK_NOT_DESTRUCTIVE:
		env.destructive = false;
		snprintf(want, sizeof(want), "%s: replaying to a block device destroys its data; "
			 "add --destructive to allow it", dev);
		break;
	case RK_NOT_BLOCK:
		target = img;
		snprintf(want, sizeof(want), "%s: not a block device (use --file for a regular file)", img);
		break;
	case RK_EXCL_BUSY:
		excl = open(dev, O_RDONLY | O_EXCL);
		cr_assert_geq(excl, 0);
		snprintf(want, sizeof(want), "%s: busy (opened exclusively elsewhere); refusing to touch it", dev);
		break;
	case RK_FILE_ON_BDEV:
		ops = &file_target_ops;
		snprintf(want, sizeof(want), "%s: not a regular file (use --device for a block device)", dev);
		break;
	case RK_READ_ONLY:	/* the kernel opens it O_RDWR; every command would then fail with EPERM */
		snprintf(want, sizeof(want), "%s: read-only (/sys/class/block/%s/ro is 1), so every write and "
			 "discard would fail; refusing", dev, base);
		break;
	}
	snprintf(sum, sizeof(sum), "%s", md5(img));
	rc = ops->open(target, &env, &priv, err, sizeof(err));
	if (excl >= 0)
		close(excl);
	cr_assert_lt(rc, 0, "%s: open succeeded", p->name);
	cr_assert_null(priv);
	cr_assert_str_eq(err, want, "%s", p->name);
	cr_assert_null(strchr(err, '\n'));
	cr_assert_str_eq(md5(img), sum, "%s: the device changed", p->name);
}
