// SPDX-License-Identifier: GPL-2.0
/*
 * Device-safety refusals the device target's own table (test_refuse.c) does not
 * cover, through the command line (`trimsim replay --device ... --destructive`):
 * a loop device in use as swap, and a mounted device reached through a symlink
 * (the check must follow the device number, not the path). Each: one line,
 * non-zero exit, the backing image's bytes unchanged.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "tests/reliab/live_fs.h"

static bool swapped;

static void setup(void) { lfs_up(false); }

static void teardown(void)
{
	char cmd[256];

	if (swapped) {
		snprintf(cmd, sizeof(cmd), "swapoff %s", lfs.loop);
		if (th_run(cmd, NULL, NULL))
			fprintf(stderr, "warning: could not swapoff %s\n", lfs.loop);
		swapped = false;
	}
	lfs_down();
}

static char *md5(const char *path)
{
	char cmd[512], *out = NULL;

	snprintf(cmd, sizeof(cmd), "md5sum < %s", path);
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	return out;
}

/* Replays a one-discard trace onto dev; returns stderr. */
static char *replay_onto(const char *dev, int *rc)
{
	static const char trace[] =
		"{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"devices\":[{\"dev\":\"7:0\","
		"\"name\":\"loop7\",\"size\":16777216,\"logical_block_size\":512,\"physical_block_size\":4096,"
		"\"discard_granularity\":4096,\"discard_max_bytes\":4294967296,\"max_discard_segments\":1}]}}\n"
		"{\"t\":1000,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"7:0\",\"off\":0,\"len\":1048576,"
		"\"ino\":1,\"lat\":0,\"flags\":\"\"}\n{\"footer\":{\"records\":1,\"lost\":0,\"end_ns\":2000}}\n";
	char path[300], cmd[1024], *err = NULL;

	snprintf(path, sizeof(path), "%s/t.jsonl", lfs.dir);
	cr_assert_eq(th_write(path, trace, strlen(trace)), 0);
	snprintf(cmd, sizeof(cmd), "%s replay %s -p as-recorded --device %s --destructive -q", th_trimsim(), path, dev);
	*rc = th_run(cmd, NULL, &err);
	return err;
}

Test(reliab_refuse, swap, .init = setup, .fini = teardown, .timeout = 120)
{
	char cmd[512], img[300], want[512], *before, *after, *err;
	int rc;

	/* The fixture mounted ext4 on the loop device: take it back for swap. */
	snprintf(cmd, sizeof(cmd), "umount %s", lfs.mnt);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0);
	lfs.mounted = false;
	snprintf(cmd, sizeof(cmd), "mkswap -q %1$s >/dev/null && swapon %1$s", lfs.loop);
	if (th_run(cmd, NULL, NULL))
		cr_skip_test("swapon %s failed on this system", lfs.loop);
	swapped = true;
	snprintf(img, sizeof(img), "%s/img", lfs.dir);
	before = md5(img);
	err = replay_onto(lfs.loop, &rc);
	snprintf(want, sizeof(want), "trimsim replay: %s: in use as swap; refusing to touch it\n", lfs.loop);
	cr_expect_neq(rc, 0);
	cr_expect_str_eq(err ? err : "", want);
	after = md5(img);
	cr_expect_str_eq(after, before, "the swap device changed");
	free(err);
	free(before);
	free(after);
}

Test(reliab_refuse, mounted_through_symlink, .init = setup, .fini = teardown, .timeout = 120)
{
	char cmd[512], img[300], link[300], want[700], *before, *after, *err;
	int rc;

	snprintf(link, sizeof(link), "%s/disk-link", lfs.dir);
	cr_assert_eq(symlink(lfs.loop, link), 0);
	/* Read-only, so nothing but trimsim could change the image's bytes (ext4lazyinit would). */
	snprintf(cmd, sizeof(cmd), "sync && mount -o remount,ro %s", lfs.mnt);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0);
	snprintf(img, sizeof(img), "%s/img", lfs.dir);
	before = md5(img);
	err = replay_onto(link, &rc);
	snprintf(want, sizeof(want), "trimsim replay: %s: mounted on %s; refusing to touch it\n", link, lfs.mnt);
	cr_expect_neq(rc, 0);
	cr_expect_str_eq(err ? err : "", want);
	after = md5(img);
	cr_expect_str_eq(after, before, "the mounted device changed");
	free(err);
	free(before);
	free(after);
}
