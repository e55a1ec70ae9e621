/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A loop device of our own with ext4 mounted -o discard, and optionally a tiny
 * tmpfs to record into, for the crash-safety, privilege and valgrind tests.
 * lfs_down() always unmounts and detaches what lfs_up() created (Criterion
 * runs .fini after a failed assertion too).
 */
#ifndef TRIMSIM_TEST_RELIAB_LIVE_FS_H
#define TRIMSIM_TEST_RELIAB_LIVE_FS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

struct lfs {
	char dir[128], loop[64], mnt[192], small[192];
	bool attached, mounted, small_mounted;
};

static struct lfs lfs;

/*
 * A discard storm on the mounted fs: files written, removed, fstrim, ROUNDS times. The shell's
 * builtin printf writes each file (N spaces): the same sizes as a process per file, without the fork.
 */
#define LFS_STORM "for r in $(seq %2$d); do mkdir %1$s/d; i=0; while [ $i -lt 400 ]; do " \
	"printf %%$((i %% 5 * 3000 + 100))s \"\" > %1$s/d/f$i; i=$((i+1)); done; sync; " \
	"rm -rf %1$s/d; sync; fstrim %1$s; done"

static void lfs_up(bool small_tmpfs)
{
	const char *why = th_live_skip_reason();
	char cmd[1024], *out = NULL;

	memset(&lfs, 0, sizeof(lfs));
	if (why)
		cr_skip_test("%s", why);
	th_dir_init();
	snprintf(lfs.dir, sizeof(lfs.dir), "%s", th_dir());
	snprintf(lfs.mnt, sizeof(lfs.mnt), "%s/mnt", lfs.dir);
	snprintf(lfs.small, sizeof(lfs.small), "%s/small", lfs.dir);
	snprintf(cmd, sizeof(cmd), "truncate -s 128M %1$s/img && mkdir %1$s/mnt %1$s/small && chmod 755 %1$s && "
		 "losetup -f --show %1$s/img", lfs.dir);
	cr_assert_eq(th_run(cmd, &out, NULL), 0, "losetup failed");
	snprintf(lfs.loop, sizeof(lfs.loop), "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	lfs.attached = true;
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F %1$s && mount -o discard %1$s %2$s", lfs.loop, lfs.mnt);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "mkfs/mount on %s failed", lfs.loop);
	lfs.mounted = true;
	if (small_tmpfs) {
		snprintf(cmd, sizeof(cmd), "mount -t tmpfs -o size=256k,mode=0777 trimsim-full %s", lfs.small);
		cr_assert_eq(th_run(cmd, NULL, NULL), 0, "tmpfs mount failed");
		lfs.small_mounted = true;
	}
}

static void lfs_down(void)
{
	char cmd[512];

	if (lfs.small_mounted) {
		snprintf(cmd, sizeof(cmd), "umount %1$s || umount -l %1$s", lfs.small);
		if (th_run(cmd, NULL, NULL))
			fprintf(stderr, "warning: could not unmount %s\n", lfs.small);
	}
	if (lfs.mounted) {
		snprintf(cmd, sizeof(cmd), "umount %1$s || umount -l %1$s", lfs.mnt);
		if (th_run(cmd, NULL, NULL))
			fprintf(stderr, "warning: could not unmount %s\n", lfs.mnt);
	}
	if (lfs.attached) {
		snprintf(cmd, sizeof(cmd), "losetup -d %s", lfs.loop);
		if (th_run(cmd, NULL, NULL))
			fprintf(stderr, "warning: could not detach %s\n", lfs.loop);
	}
	th_dir_fini();
	memset(&lfs, 0, sizeof(lfs));
}

#endif
