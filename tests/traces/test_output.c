// SPDX-License-Identifier: GPL-2.0
/*
 * traces/output.h in-process: what output__open() makes of each kind of path in
 * each mode, what commit and abort leave behind, and what a pending SIGINT does
 * to an atomic commit. The commands' end-to-end use is tests/reliab/test_outputs.c.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "traces/output.h"
#include "traces/util.h"

enum setup { S_NEW, S_REGULAR, S_SYMLINK, S_DANGLING, S_DIR, S_FIFO_NONE };

struct ocase {
	char name[40];
	enum setup setup;
	enum output_mode mode;
	int open_err;		/* expected -errno from open, 0: opens */
	char msg[60];		/* in the open error */
	bool same_inode;	/* the target keeps its inode (written in place) */
	bool stop;		/* SIGINT pending at commit */
};

TestSuite(output, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(output, kinds)
{
	static struct ocase t[] = {
		{ .name = "atomic, new", .setup = S_NEW, .mode = OUTPUT_ATOMIC },
		{ .name = "atomic, regular", .setup = S_REGULAR, .mode = OUTPUT_ATOMIC },
		{ .name = "atomic, symlink", .setup = S_SYMLINK, .mode = OUTPUT_ATOMIC },
		{ .name = "atomic, dangling", .setup = S_DANGLING, .mode = OUTPUT_ATOMIC, .open_err = -ENOENT,
		  .msg = "dangling symbolic link" },
		{ .name = "atomic, directory", .setup = S_DIR, .mode = OUTPUT_ATOMIC, .open_err = -EISDIR,
		  .msg = "Is a directory" },
		{ .name = "atomic, interrupted", .setup = S_REGULAR, .mode = OUTPUT_ATOMIC, .stop = true },
		{ .name = "stream, new", .setup = S_NEW, .mode = OUTPUT_STREAM },
		{ .name = "stream, regular", .setup = S_REGULAR, .mode = OUTPUT_STREAM, .same_inode = true },
		{ .name = "stream, symlink", .setup = S_SYMLINK, .mode = OUTPUT_STREAM, .same_inode = true },
		{ .name = "stream, interrupted", .setup = S_REGULAR, .mode = OUTPUT_STREAM, .same_inode = true,
		  .stop = true },
		{ .name = "stream, dangling", .setup = S_DANGLING, .mode = OUTPUT_STREAM, .open_err = -ENOENT,
		  .msg = "dangling symbolic link" },
	};
	return cr_make_param_array(struct ocase, t, sizeof(t) / sizeof(t[0]));
}

static size_t names_in(const char *dir)
{
	char cmd[600], *out = NULL;
	size_t n;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	n = th_lines(out);
	free(out);
	return n;
}

ParameterizedTest(struct ocase *c, output, kinds)
{
	const char *dir = th_dir();
	char path[600], real[600], err[600] = "", *got;
	struct stat before = { 0 }, after;
	struct output *o;
	size_t names;
	int rc;

	snprintf(path, sizeof(path), "%s/out", dir);
	snprintf(real, sizeof(real), "%s/real", dir);
	if (c->setup == S_REGULAR || c->setup == S_SYMLINK) {
		const char *target = c->setup == S_SYMLINK ? real : path;

		cr_assert_eq(th_write(target, "old", 3), 0);
		cr_assert_eq(chmod(target, 0600), 0);
		cr_assert_eq(stat(target, &before), 0);
		if (c->setup == S_SYMLINK)
			cr_assert_eq(symlink("real", path), 0);
	} else if (c->setup == S_DANGLING) {
		cr_assert_eq(symlink("nowhere/real", path), 0);
	} else if (c->setup == S_DIR) {
		cr_assert_eq(mkdir(path, 0755), 0);
	}
	names = names_in(dir);
	o = output__open(path, c->mode, err, sizeof(err));
	if (c->open_err) {
		cr_assert_null(o, "%s: opened", c->name);
		cr_expect_eq(-errno, c->open_err, "%s: errno %d", c->name, errno);
		cr_expect(strstr(err, c->msg) && !strncmp(err, path, strlen(path)), "%s: '%s'", c->name, err);
		cr_expect_eq(names_in(dir), names, "%s: something was created", c->name);
		return;
	}
	cr_assert_not_null(o, "%s: %s", c->name, err);
	/* atomic: a hidden temporary beside the target; stream: nothing but the target */
	cr_expect_eq(names_in(dir), names + (c->mode == OUTPUT_ATOMIC || c->setup == S_NEW), "%s: names while open",
		     c->name);
	cr_assert_eq(fputs("new contents\n", output__file(o)) < 0, 0);
	trimsim_stop = c->stop ? 2 : 0;
	rc = output__commit(o, err, sizeof(err));
	trimsim_stop = 0;
	if (c->stop && c->mode == OUTPUT_ATOMIC) {	/* interrupted: the temporary goes, the target stays */
		cr_expect_eq(rc, -EINTR, "%s: commit %d", c->name, rc);
		cr_expect(strstr(err, "interrupted"), "%s: '%s'", c->name, err);
		got = th_slurp(path, NULL);
		cr_expect_str_eq(got, "old", "%s: target changed", c->name);
		free(got);
		cr_expect_eq(names_in(dir), names, "%s: temporary left", c->name);
		return;
	}
	cr_expect_eq(rc, 0, "%s: commit: %s", c->name, err);
	got = th_slurp(path, NULL);
	cr_expect_str_eq(got, "new contents\n", "%s", c->name);
	free(got);
	cr_expect_eq(names_in(dir), names + (c->setup == S_NEW), "%s: names after commit", c->name);
	if (c->setup == S_SYMLINK) {
		cr_assert_eq(lstat(path, &after), 0);
		cr_expect(S_ISLNK(after.st_mode), "%s: the link was replaced", c->name);
	}
	if (c->setup != S_NEW) {
		cr_assert_eq(stat(path, &after), 0);
		cr_expect_eq(after.st_mode & 0777, 0600, "%s: mode %o not kept", c->name, after.st_mode & 0777);
		cr_expect_eq(after.st_ino == before.st_ino, c->same_inode, "%s: inode %s", c->name,
			     c->same_inode ? "changed (not written in place)" : "kept (not replaced atomically)");
	}
}

/* A first write error is the one named, with its errno: /dev/full says ENOSPC, not EIO. */
Test(output, write_error_names_errno)
{
	char err[300];
	struct output *o = output__open("/dev/full", OUTPUT_ATOMIC, err, sizeof(err));
	FILE *f;

	cr_assert_not_null(o, "%s", err);
	f = output__file(o);
	for (int i = 0; i < 10000; i++)
		fputs("more than one buffer of text\n", f);
	cr_expect_eq(output__error(o), ENOSPC);
	cr_expect_eq(output__commit(o, err, sizeof(err)), -ENOSPC);
	cr_expect_str_eq(err, "/dev/full: write: No space left on device");
}

/* Extensions: the file name's, never a directory's; names without one have none. */
Test(output, ext)
{
	static const struct { const char *path, *ext; } t[] = {
		{ "r.json", ".json" }, { "dir.d/r", NULL }, { "-", NULL }, { "/dev/null", NULL },
		{ ".hidden", NULL }, { "a/b.tar.gz", ".gz" }, { "r.", NULL },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *e = output__ext(t[i].path);

		if (t[i].ext)
			cr_expect(e && !strcmp(e, t[i].ext), "%s: %s", t[i].path, e ? e : "(none)");
		else
			cr_expect_null(e, "%s: %s", t[i].path, e);
	}
	cr_expect_eq(output__check_ext("-o", "R.JSON", ".json", "JSON", NULL, 0), 0);
	cr_expect_eq(output__check_ext("-o", "r.xlsx", ".json", "JSON", NULL, 0), -EINVAL);
	cr_expect_eq(output__check_ext("-o", "/dev/null", ".json", "JSON", NULL, 0), 0);
	cr_expect(output__names_stdout("-") && output__names_stdout("/dev/stdout") &&
		  output__names_stdout("/dev/fd/1") && output__names_stdout("/proc/self/fd/1"));
	cr_expect(!output__names_stdout("/dev/fd/2") && !output__names_stdout("stdout") &&
		  !output__names_stdout("/dev/fd/1x"));
}

/*
 * ts_write_all(), the one write loop of the trace writer, the output stream, the trace-cmd
 * child's frames and compare's workers: everything on success, -errno and the bytes that
 * went out on failure, and a stop (trimsim_stop) ends the retries after a signal.
 */
Test(output, write_all_counts_and_fails)
{
	char buf[200000];
	size_t done = 1;
	int p[2], full = open("/dev/full", O_WRONLY);

	memset(buf, 'x', sizeof(buf));
	cr_assert_eq(pipe(p), 0);
	cr_expect_eq(ts_write_all(p[1], buf, 10, &done), 0);
	cr_expect_eq(done, 10);
	cr_expect_eq(ts_write_all(p[1], buf, 0, &done), 0);
	cr_expect_eq(done, 0);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	cr_expect_eq(ts_write_all(p[1], buf, sizeof(buf), &done), -EPIPE);
	cr_expect_eq(done, 0);
	close(p[1]);
	signal(SIGPIPE, SIG_DFL);
	cr_assert_geq(full, 0);
	cr_expect_eq(ts_write_all(full, buf, 4096, NULL), -ENOSPC);
	close(full);
}
