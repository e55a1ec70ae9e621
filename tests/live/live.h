/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live-test scaffolding: loop devices, mounts and slowfs instances this test
 * created, undone in reverse order by lv_fini() (call it from .fini, so it
 * runs on failure too). Only what we set up here is ever detached.
 */
#ifndef TRIMSIM_TESTS_LIVE_H
#define TRIMSIM_TESTS_LIVE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tests/common/helpers.h"

enum lv_kind { LV_LOOP, LV_MOUNT, LV_FUSE, LV_DM };

struct lv_undo {
	enum lv_kind kind;
	char what[256];
};

static struct lv_undo lv_stack[16];
static int lv_n;

static inline void lv_init(void)
{
	const char *why = th_live_skip_reason();

	lv_n = 0;
	if (why)
		cr_skip_test("%s", why);
	th_dir_init();
}

static inline void lv_push(enum lv_kind k, const char *what)
{
	cr_assert_lt(lv_n, 16);
	lv_stack[lv_n].kind = k;
	snprintf(lv_stack[lv_n++].what, sizeof(lv_stack[0].what), "%s", what);
}

static inline void lv_fini(void)
{
	char cmd[2400];

	while (lv_n > 0) {
		struct lv_undo *u = &lv_stack[--lv_n];

		if (u->kind == LV_LOOP)
			snprintf(cmd, sizeof(cmd), "losetup -d '%s' 2>/dev/null", u->what);
		else if (u->kind == LV_MOUNT)
			snprintf(cmd, sizeof(cmd), "umount '%s' 2>/dev/null || umount -l '%s'", u->what,
				 u->what);
		else if (u->kind == LV_DM)
			snprintf(cmd, sizeof(cmd), "dmsetup remove '%s' 2>/dev/null", u->what);
		else
			snprintf(cmd, sizeof(cmd), "fusermount3 -u '%s' 2>/dev/null || umount -l '%s'",
				 u->what, u->what);
		th_run(cmd, NULL, NULL);
	}
	th_dir_fini();
}

/* Criterion does not run .fini after a skip: undo first. */
#define lv_skip(...) do { lv_fini(); cr_skip_test(__VA_ARGS__); } while (0)

/* Waits up to 5 s for a device node (partitions appear asynchronously). */
static inline void lv_wait_node(const char *path)
{
	int i;

	for (i = 0; i < 500 && access(path, F_OK); i++)
		usleep(10000);
	cr_assert_eq(access(path, F_OK), 0, "%s never appeared", path);
}

/* "$(th_dir)/name" */
static const char *lv_path(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", th_dir(), name);
	return buf[i];
}

/* Runs cmd, asserts exit 0, returns trimmed stdout (static buffer). */
static const char *lv_sh(const char *cmd)
{
	static char buf[1024];
	char *out = NULL, *err = NULL;
	char msg[600];
	int rc = th_run(cmd, &out, &err);

	snprintf(buf, sizeof(buf), "%s", out ? out : "");
	snprintf(msg, sizeof(msg), "%s", err ? err : "");
	buf[strcspn(buf, "\n")] = '\0';
	free(out);
	free(err);
	cr_assert_eq(rc, 0, "%s: exit %d: %s", cmd, rc, msg);
	return buf;
}

/* A file of size bytes filled with incompressible data (all blocks allocated). */
static inline void lv_mkfile(const char *path, unsigned mib)
{
	char cmd[2400];

	snprintf(cmd, sizeof(cmd), "head -c %uM /dev/urandom > '%s' && sync '%s'", mib, path, path);
	lv_sh(cmd);
}

/* losetup -f --show [flags] file: the new loop device, undone at fini. */
static const char *lv_loop(const char *file, const char *flags)
{
	static char dev[4][64];
	static int i;
	char cmd[2400];

	i = (i + 1) % 4;
	snprintf(cmd, sizeof(cmd), "losetup -f --show %s '%s'", flags ? flags : "", file);
	snprintf(dev[i], sizeof(dev[i]), "%s", lv_sh(cmd));
	lv_push(LV_LOOP, dev[i]);
	return dev[i];
}

static inline void lv_mount(const char *dev, const char *dir)
{
	char cmd[2400];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && mount '%s' '%s'", dir, dev, dir);
	lv_sh(cmd);
	lv_push(LV_MOUNT, dir);
}

/* A device-mapper linear target over dev (a holder of dev), undone at fini. */
static inline void lv_dm_linear(const char *name, const char *dev, unsigned long long sectors)
{
	char cmd[2400];

	if (th_run("dmsetup version >/dev/null 2>&1", NULL, NULL))
		lv_skip("device-mapper is not available in this kernel");
	snprintf(cmd, sizeof(cmd), "dmsetup create '%s' --table '0 %llu linear %s 0'", name, sectors, dev);
	lv_sh(cmd);
	lv_push(LV_DM, name);
}

/*
 * A tmpfs of our own: a backing file there punches holes without writeback,
 * so slowfs's injected delay is the only cost (on ext4, punching freshly
 * written delalloc data first writes it back: ext4_punch_hole() in fs/ext4/inode.c).
 */
static inline void lv_tmpfs(const char *dir, unsigned mib)
{
	char cmd[2400];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && mount -t tmpfs -o size=%um trimsim-test '%s'", dir, mib, dir);
	lv_sh(cmd);
	lv_push(LV_MOUNT, dir);
}

/*
 * slowfs over backing at dir with delay_ms per fallocate; the file is dir/disk.
 * It runs SCHED_FIFO so that parallel builds on the machine do not add their
 * scheduling delay to the injected one.
 */
static inline void lv_slowfs(const char *backing, const char *dir, unsigned delay_ms)
{
	char cmd[2400];

	snprintf(cmd, sizeof(cmd), "test -x '%s/slowfs' || { echo 'build/slowfs missing (make test builds it)'; exit 1; }; "
		 "mkdir -p '%s' && chrt -f 10 '%s/slowfs' '%s' '%s' %u", th_build(), dir, th_build(), backing, dir,
		 delay_ms);
	lv_sh(cmd);
	lv_push(LV_FUSE, dir);
}

/*
 * A slow-TRIM device: a loop device over slowfs (delay_ms a discard) over a file of
 * `size` (truncate(1)'s form) on a tmpfs of tmpfs_mib MiB. Its path; undone by lv_fini().
 */
static inline const char *lv_slow_loop(unsigned tmpfs_mib, const char *size, unsigned delay_ms)
{
	char img[600], cmd[700];

	lv_tmpfs(lv_path("mem"), tmpfs_mib);
	snprintf(img, sizeof(img), "%s/img", lv_path("mem"));
	snprintf(cmd, sizeof(cmd), "truncate -s %s '%s'", size, img);
	lv_sh(cmd);
	lv_slowfs(img, lv_path("slow"), delay_ms);
	snprintf(img, sizeof(img), "%s/disk", lv_path("slow"));
	return lv_loop(img, NULL);
}

static inline long long lv_blocks(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "stat %s", path);
	return (long long)st.st_blocks;
}

#endif
