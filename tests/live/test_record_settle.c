// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim record's free-space balance when a discard outlasts the command: ext4
 * -o discard marks discarded blocks free only when the discard completes, so an
 * end snapshot taken before then misses them. By default the recorder waits for
 * the filesystem's discard work (at most --settle, 30 s) and the balance is 0;
 * with a shorter --settle the summary must say that commands were still in flight
 * rather than put the whole remainder on "metadata the events do not show". The
 * device is a loop device over slowfs, whose fallocate (the loop driver's discard)
 * sleeps 4 s.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/live/live.h"

TestSuite(record_settle, .init = lv_init, .fini = lv_fini, .timeout = 120);

/* rm of an 8 MiB file on ext4 -o discard over 4 s discards, recorded with ARGS; its stderr. */
static char *record_rm(const char *args)
{
	const char *dev;
	char cmd[4096], out[600], mnt[200], *err = NULL;	/* lv_path()'s buffers are reused */
	int rc;

	snprintf(mnt, sizeof(mnt), "%s", lv_path("mnt"));

	lv_tmpfs(lv_path("tmpfs"), 80);
	snprintf(cmd, sizeof(cmd), "truncate -s 64M '%s'", lv_path("tmpfs/back.img"));
	lv_sh(cmd);
	lv_slowfs(lv_path("tmpfs/back.img"), lv_path("slow"), 4000);
	dev = lv_loop(lv_path("slow/disk"), NULL);
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F -E nodiscard '%s' && mkdir -p '%s' && mount -o discard '%s' '%s'",
		 dev, mnt, dev, mnt);
	lv_sh(cmd);
	lv_push(LV_MOUNT, mnt);
	snprintf(cmd, sizeof(cmd), "head -c 8M /dev/urandom > '%s/f' && sync", mnt);
	lv_sh(cmd);
	snprintf(out, sizeof(out), "%s", lv_path("r.tsim"));
	/* the command ends 1 s into the commit's discards (sync waits for them; its own wait is not the point) */
	snprintf(cmd, sizeof(cmd), "%s record %s -o '%s' -m '%s' -- sh -c 'rm %s/f; sync & sleep 1'", th_trimsim(),
		 args, out, mnt, mnt);
	rc = th_run(cmd, NULL, &err);
	cr_assert_eq(rc, 0, "%s: exit %d: %s", cmd, rc, err ? err : "");
	cr_log_info("%s", err);
	cr_assert_not_null(strstr(err, "end snapshot"), "%s", err);
	return err;
}

Test(record_settle, inflight_discard_named_in_the_balance)
{
	char *err = record_rm("--settle 2s");

	cr_assert_not_null(strstr(err, "of device commands still in flight at the end snapshot)"), "%s", err);
	free(err);
}

/* The default settle waits out the discards (it gave up 2 s after the command, remainder -8 MiB). */
Test(record_settle, default_settle_waits_for_the_discard)
{
	char *err = record_rm("");

	cr_assert_not_null(strstr(err, "remainder 0 "), "%s", err);
	cr_assert_null(strstr(err, "still in flight"), "%s", err);
	free(err);
}
