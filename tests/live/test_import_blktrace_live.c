// SPDX-License-Identifier: GPL-2.0
/*
 * blktrace against trimsim record on the same discard workload: blktrace's per-CPU
 * files imported with --from blktrace must hold the same discard commands (count, bytes) as
 * the recorder's ISSUE records. On this project's VM blktrace cannot open its debugfs files
 * ("Operation not permitted"), so the test skips with blktrace's own message; it runs where
 * blktrace works. debugfs is mounted first where it is not (a fresh boot here), and unmounted
 * again, so that the skip gives blktrace's real reason, not "Debugfs is not mounted".
 * Root only; the loop device is always detached and blktrace stopped.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common/helpers.h"

#define DEBUGFS "/sys/kernel/debug"

static char loopdev[64];
static pid_t tracer;
static bool mounted_debugfs;

static void cleanup(void)
{
	char cmd[256];

	if (tracer > 0) {
		kill(tracer, SIGINT);
		waitpid(tracer, NULL, 0);
	}
	tracer = 0;
	if (loopdev[0]) {
		snprintf(cmd, sizeof(cmd), "losetup -d '%s'", loopdev);
		th_run(cmd, NULL, NULL);
	}
	loopdev[0] = 0;
	if (mounted_debugfs && umount(DEBUGFS) == 0)
		mounted_debugfs = false;
	th_dir_fini();
}

TestSuite(blktrace_live, .fini = cleanup);

static json_t *info(const char *path)
{
	char cmd[1024], *out = NULL;
	json_error_t je;
	json_t *j;

	snprintf(cmd, sizeof(cmd), "'%s' info --json '%s'", th_trimsim(), path);
	cr_assert_eq(th_run(cmd, &out, NULL), 0, "info %s", path);
	j = json_loads(out, 0, &je);
	cr_assert_not_null(j, "%s", je.text);
	free(out);
	return j;
}

static long long discards(json_t *j, const char *what)
{
	return json_integer_value(json_object_get(json_object_get(json_object_get(j, "ops"), "discard"), what));
}

Test(blktrace_live, import_matches_record, .timeout = 60)
{
	const char *skip = th_live_skip_reason();
	char cmd[2048], errpath[600], *out = NULL, *err = NULL;
	json_t *a, *b;
	int status;

	if (skip)
		cr_skip("%s", skip);
	if (th_run("command -v blktrace && command -v blkdiscard", NULL, NULL))
		cr_skip("blktrace or blkdiscard missing");
	snprintf(cmd, sizeof(cmd), "'%s' record --help", th_trimsim());
	if (th_run(cmd, NULL, NULL))
		cr_skip("trimsim record is not built");
	if (access(DEBUGFS "/block", F_OK) && mount("debugfs", DEBUGFS, "debugfs", 0, NULL) == 0)
		mounted_debugfs = true;
	th_dir_init();
	snprintf(cmd, sizeof(cmd), "truncate -s 256M '%s/img' && losetup -f --show '%s/img'", th_dir(), th_dir());
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	snprintf(loopdev, sizeof(loopdev), "%.*s", (int)strcspn(out, "\n"), out);
	free(out);

	snprintf(errpath, sizeof(errpath), "%s/blktrace.err", th_dir());
	tracer = fork();
	cr_assert_geq(tracer, 0);
	if (tracer == 0) {
		if (!freopen(errpath, "w", stderr) || !freopen("/dev/null", "w", stdout) || chdir(th_dir()))
			_exit(127);
		execlp("blktrace", "blktrace", "-d", loopdev, "-o", "bt", (char *)NULL);
		_exit(127);
	}
	sleep(1);
	if (waitpid(tracer, &status, WNOHANG) == tracer) {
		char *msg = th_slurp(errpath, NULL);

		char reason[300];

		tracer = 0;
		if (msg)
			msg[strcspn(msg, "\n")] = 0;
		snprintf(reason, sizeof(reason), "%s", msg && msg[0] ? msg : "it exited at once");
		free(msg);
		cleanup();	/* Criterion does not run .fini after cr_skip */
		cr_skip("blktrace cannot trace here: %s", reason);
	}
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && '%s' record -o rec.tsim -d '%s' -- sh -c 'blkdiscard -o 0 -l 64M %s && "
		 "blkdiscard -o 100M -l 3M %s && blkdiscard -o 200M -l 4K %s'",
		 th_dir(), th_trimsim(), loopdev, loopdev, loopdev, loopdev);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "record: %s", err);
	free(err);
	kill(tracer, SIGINT);
	waitpid(tracer, NULL, 0);
	tracer = 0;
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' import --from blktrace bt.blktrace.* -o bt.tsim", th_dir(), th_trimsim());
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "import: %s", err);
	free(err);
	snprintf(cmd, sizeof(cmd), "%s/rec.tsim", th_dir());
	a = info(cmd);
	snprintf(cmd, sizeof(cmd), "%s/bt.tsim", th_dir());
	b = info(cmd);
	cr_assert_gt(discards(a, "records"), 0);
	cr_assert_eq(discards(b, "records"), discards(a, "records"), "discard commands");
	cr_assert_eq(discards(b, "bytes"), discards(a, "bytes"), "discard bytes");
	cr_assert_eq(discards(a, "bytes"), (64 + 3) * 1048576 + 4096);
	json_decref(a);
	json_decref(b);
}
