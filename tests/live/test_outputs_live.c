// SPDX-License-Identifier: GPL-2.0
/*
 * The outputs and signals of the commands that need root and a device, on a
 * 64 MiB loop device (tests/reliab/test_outputs.c and test_signals.c do the rest):
 *  - record -o: a new path, a regular file (rewritten in place: same inode, its
 *    mode kept), a symlink (the link stays, its target is written), a FIFO, -,
 *    a mknod'ed null (stays a device), full (ENOSPC named, non-zero exit), a
 *    dangling symlink (refused), an immutable directory (root may not write it:
 *    EPERM named), and -o - with -- CMD (refused: the command shares stdout);
 *  - calibrate -o and --svg: the same kinds; a refused path fails before the
 *    device is touched (its first MiB is unchanged);
 *  - SIGINT and SIGTERM during replay --device (paced by the trace's clock) and
 *    calibrate: exit 128 + signal before we give up after 10 s, one line on
 *    stderr, nothing left behind, and the device free again (O_EXCL opens).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "tests/live/live.h"
#include "tests/reliab/spawn.h"

TestSuite(outputs_live, .init = lv_init, .fini = lv_fini, .timeout = 300);

static const char *loop64(void)
{
	static char dev[64];	/* lv_loop()'s buffers are reused */

	lv_mkfile(lv_path("disk.img"), 64);
	snprintf(dev, sizeof(dev), "%s", lv_loop(lv_path("disk.img"), NULL));
	return dev;
}

/* A working directory under the test's own: w/ (outputs) and the logs beside it. */
static const char *workdir(void)
{
	static char w[512];	/* lv_path()'s buffers are reused */

	snprintf(w, sizeof(w), "%s", lv_path("w"));
	cr_assert_eq(mkdir(w, 0755), 0);
	return w;
}

static int run_in(const char *dir, const char *args, char **so, char **se)
{
	char sh[3000];

	/* bounded: a command that hangs fails its case instead of timing out the test (and leaking its loop) */
	snprintf(sh, sizeof(sh), "cd '%s' && umask 022 && timeout -s KILL 120 %s %s", dir, th_trimsim(), args);
	return th_run(sh, so, se);
}

/*
 * The error lines: "trimsim CMD: ..." (record and calibrate also report progress,
 * and device commands warn "trimsim: DESTROYING data on ..."). Their count; *line the last.
 */
static int error_lines(const char *se, const char *what, char *line, size_t len)
{
	char prefix[64];
	int n = 0;

	snprintf(prefix, sizeof(prefix), "trimsim %.*s:", (int)strcspn(what, " ,"), what);
	line[0] = 0;
	for (const char *p = se; p && *p;) {
		size_t l = strcspn(p, "\n");

		if (!strncmp(p, prefix, strlen(prefix))) {
			n++;
			snprintf(line, len, "%.*s", (int)l, p);
		}
		p += l + (p[l] == '\n');
	}
	return n;
}

/* what starts with the command's name ("record, full"). */
static void expect_fail(int rc, const char *se, const char *what, const char *want)
{
	char line[600];

	cr_expect_neq(rc, 0, "%s: exit 0", what);
	cr_expect_eq(error_lines(se, what, line, sizeof(line)), 1, "%s: not one error line: %s", what, se ? se : "");
	cr_expect(strstr(line, want), "%s: the error does not say '%s': %s", what, want, se ? se : "");
}

static mode_t lmode(const char *dir, const char *name)
{
	char p[700];
	struct stat s;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return lstat(p, &s) ? 0 : s.st_mode;
}

static off_t fsize(const char *dir, const char *name)
{
	char p[700];
	struct stat s;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &s) ? -1 : s.st_size;
}

static void mknods(const char *w)
{
	char p[700];

	snprintf(p, sizeof(p), "%s/null", w);
	cr_assert_eq(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0);
	snprintf(p, sizeof(p), "%s/full", w);
	cr_assert_eq(mknod(p, S_IFCHR | 0666, makedev(1, 7)), 0);
	snprintf(p, sizeof(p), "%s/fifo", w);
	cr_assert_eq(mkfifo(p, 0644), 0);
	snprintf(p, sizeof(p), "%s/real.tsim", w);
	cr_assert_eq(th_write(p, "old", 3), 0);
	snprintf(p, sizeof(p), "%s/link.tsim", w);
	cr_assert_eq(symlink("real.tsim", p), 0);
	snprintf(p, sizeof(p), "%s/dangling.tsim", w);
	cr_assert_eq(symlink("nowhere/x", p), 0);
	snprintf(p, sizeof(p), "%s/imm", w);
	cr_assert_eq(mkdir(p, 0755), 0);
}

/* chattr +i: not even root may create a file in it. Undone before the directory is removed. */
static bool immutable(const char *dir, bool on)
{
	char cmd[800];

	snprintf(cmd, sizeof(cmd), "chattr %ci '%s' 2>/dev/null", on ? '+' : '-', dir);
	return th_run(cmd, NULL, NULL) == 0;
}

Test(outputs_live, record)
{
	const char *dev = loop64(), *w = workdir();
	char args[1200], p[700], *so = NULL, *se = NULL;
	struct stat a, b;
	int rc;

	mknods(w);
#define REC(out, extra) (snprintf(args, sizeof(args), "record -o %s -d %s --duration 0.3 %s", out, dev, extra), args)
	/* new path */
	rc = run_in(w, REC("new.tsim", ""), NULL, &se);
	cr_expect_eq(rc, 0, "record, new path: exit %d: %s", rc, se ? se : "");
	cr_expect_eq(lmode(w, "new.tsim"), S_IFREG | 0644);
	free(se);
	/* a regular file: written in place (same inode), its mode kept */
	snprintf(p, sizeof(p), "%s/reg.tsim", w);
	cr_assert_eq(th_write(p, "old contents", 12), 0);
	cr_assert_eq(chmod(p, 0600), 0);
	cr_assert_eq(stat(p, &a), 0);
	rc = run_in(w, REC("reg.tsim", ""), NULL, &se);
	cr_expect_eq(rc, 0, "record, regular file: exit %d: %s", rc, se ? se : "");
	free(se);
	cr_assert_eq(stat(p, &b), 0);
	cr_expect(a.st_ino == b.st_ino && (b.st_mode & 0777) == 0600 && b.st_size > 12,
		  "record, regular file: not rewritten in place (inode %lu -> %lu, mode %o, %lld bytes)",
		  (unsigned long)a.st_ino, (unsigned long)b.st_ino, b.st_mode & 0777, (long long)b.st_size);
	/* a symlink: the link stays, its target is written */
	rc = run_in(w, REC("link.tsim", ""), NULL, &se);
	cr_expect_eq(rc, 0, "record, symlink: exit %d: %s", rc, se ? se : "");
	free(se);
	cr_expect(S_ISLNK(lmode(w, "link.tsim")) && fsize(w, "real.tsim") > 3, "record, symlink: link replaced or "
		  "target not written");
	/* a FIFO, read by cat */
	snprintf(args, sizeof(args), "record -o fifo -d %s --duration 0.3 & timeout 60 cat '%s/fifo' > '%s'; wait $!",
		 dev, w, lv_path("fifo.out"));
	rc = run_in(w, args, NULL, &se);
	cr_expect_eq(rc, 0, "record, FIFO: exit %d: %s", rc, se ? se : "");
	free(se);
	cr_expect(S_ISFIFO(lmode(w, "fifo")), "record, FIFO: no longer a FIFO");
	cr_expect_gt(fsize(th_dir(), "fifo.out"), 0, "record, FIFO: nothing read");
	/* - */
	rc = run_in(w, REC("-", ""), &so, &se);
	cr_expect_eq(rc, 0, "record, -: exit %d: %s", rc, se ? se : "");
	cr_expect(so && so[0], "record, -: nothing on stdout");
	free(so);
	free(se);
	/* character devices */
	rc = run_in(w, REC("null", ""), NULL, &se);
	cr_expect_eq(rc, 0, "record, null: exit %d: %s", rc, se ? se : "");
	free(se);
	cr_expect(S_ISCHR(lmode(w, "null")), "record: null replaced");
	rc = run_in(w, REC("full", ""), NULL, &se);
	expect_fail(rc, se, "record, full", "No space left on device");
	free(se);
	cr_expect(S_ISCHR(lmode(w, "full")), "record: full replaced");
	/* refused */
	rc = run_in(w, REC("dangling.tsim", ""), NULL, &se);
	expect_fail(rc, se, "record, dangling symlink", "dangling symbolic link");
	free(se);
	if (immutable(lv_path("w/imm"), true)) {
		rc = run_in(w, REC("imm/x.tsim", ""), NULL, &se);
		immutable(lv_path("w/imm"), false);
		expect_fail(rc, se, "record, immutable directory", "Operation not permitted");
		free(se);
	}
	rc = run_in(w, REC("-", "-- true"), NULL, &se);
	expect_fail(rc, se, "record, -o - -- CMD", "share stdout");
	free(se);
	cr_expect_eq(access(lv_path("w/imm/x.tsim"), F_OK), -1);
#undef REC
}

static char *first_mib(const char *dev)
{
	char *buf = malloc(1 << 20);
	int fd = open(dev, O_RDONLY);

	cr_assert(buf && fd >= 0);
	cr_assert_eq(pread(fd, buf, 1 << 20, 0), 1 << 20);
	close(fd);
	return buf;
}

Test(outputs_live, calibrate)
{
	const char *dev = loop64(), *w = workdir();
	char args[1200], *so = NULL, *se = NULL, *before, *after;
	int rc;

	mknods(w);
	/* refused before the device is touched */
	before = first_mib(dev);
	static const struct { const char *opt, *why; } refused[] = {
		{ "-o dangling.json", "dangling symbolic link" }, { "-o imm", "Is a directory" },
		{ "--svg dangling.svg", "dangling symbolic link" }, { "-o imm/p.json", "Operation not permitted" },
	};
	cr_assert_eq(symlink("nowhere/y", lv_path("w/dangling.json")), 0);
	cr_assert_eq(symlink("nowhere/z", lv_path("w/dangling.svg")), 0);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		bool imm = strstr(refused[i].opt, "imm/") && immutable(lv_path("w/imm"), true);

		if (strstr(refused[i].opt, "imm/") && !imm)
			continue;
		snprintf(args, sizeof(args), "calibrate --device %s --destructive --quick %s", dev, refused[i].opt);
		rc = run_in(w, args, NULL, &se);
		if (imm)
			immutable(lv_path("w/imm"), false);
		snprintf(args, sizeof(args), "calibrate %s", refused[i].opt);
		expect_fail(rc, se, args, refused[i].why);
		free(se);
	}
	after = first_mib(dev);
	cr_expect(!memcmp(before, after, 1 << 20), "calibrate wrote the device before refusing its output");
	free(before);
	free(after);
	/* -o a new path, --svg through a symlink */
	snprintf(args, sizeof(args), "calibrate --device %s --destructive --quick -o new.json --svg link.svg", dev);
	cr_assert_eq(th_write(lv_path("w/real.svg"), "old", 3), 0);
	cr_assert_eq(symlink("real.svg", lv_path("w/link.svg")), 0);
	rc = run_in(w, args, NULL, &se);
	cr_expect_eq(rc, 0, "calibrate -o new --svg symlink: exit %d: %s", rc, se ? se : "");
	free(se);
	cr_expect_eq(lmode(w, "new.json"), S_IFREG | 0644);
	cr_expect(S_ISLNK(lmode(w, "link.svg")) && fsize(w, "real.svg") > 3, "calibrate --svg symlink");
	/* -o full fails with ENOSPC; --svg through a FIFO */
	snprintf(args, sizeof(args), "calibrate --device %s --destructive --quick -o full --svg fifo & "
		 "timeout 120 cat '%s/fifo' > '%s'; wait $!", dev, w, lv_path("svg.out"));
	rc = run_in(w, args, NULL, &se);
	expect_fail(rc, se, "calibrate -o full", "No space left on device");
	free(se);
	cr_expect(S_ISCHR(lmode(w, "full")) && S_ISFIFO(lmode(w, "fifo")), "calibrate replaced full or the FIFO");
	cr_expect_gt(fsize(th_dir(), "svg.out"), 0, "calibrate --svg FIFO: nothing read");
	/* -o - and --svg to a null device */
	snprintf(args, sizeof(args), "calibrate --device %s --destructive --quick -o - --svg null", dev);
	rc = run_in(w, args, &so, &se);
	cr_expect_eq(rc, 0, "calibrate -o -: exit %d: %s", rc, se ? se : "");
	cr_expect(so && strstr(so, "\"trim_base\""), "calibrate -o -: no profile on stdout");
	cr_expect(S_ISCHR(lmode(w, "null")), "calibrate: null replaced");
	free(so);
	free(se);
	/* nothing else in the directory: no temporary left by any run */
	so = sp_listing(w);
	cr_expect_str_eq(so, "dangling.json\ndangling.svg\ndangling.tsim\nfifo\nfull\nimm\nlink.svg\nlink.tsim\n"
			 "new.json\nnull\nreal.svg\nreal.tsim\n");
	free(so);
}

/* ---- signals on real devices ---- */

/* n INTENT discards 1 ms apart on a 64 MiB device (JSON Lines). */
static void slow_trace(const char *path, unsigned n)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fprintf(f, "{\"trimsim\":1,\"header\":{\"devices\":[{\"dev\":\"7:250\",\"fs\":\"xfs\",\"logical_block_size\":512,"
		"\"name\":\"loopT\",\"size\":67108864}],\"format\":\"trimsim\",\"version\":1}}\n");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "{\"t\":%u,\"kind\":\"INTENT\",\"op\":\"discard\",\"dev\":\"7:250\",\"off\":%u,\"len\":4096,"
			"\"ino\":0,\"lat\":0,\"flags\":\"xfs\"}\n", 1000000 + i * 1000000, (i % 8192) * 8192);
	fprintf(f, "{\"footer\":{\"records\":%u,\"lost\":0,\"end_ns\":%u}}\n", n, 2000000 + n * 1000000);
	fclose(f);
}

static void stop_one(const char *what, const char *w, const char *args, const char *out, const char *dev, int sig)
{
	char tmp[600], *before = sp_listing(w), *after, *err;
	uint64_t t0;
	pid_t pid;
	int rc, fd;

	pid = sp_start(w, args, lv_path("stdout"), lv_path("stderr"));
	snprintf(tmp, sizeof(tmp), ".%s.", out);
	for (t0 = sp_now_ms(); !sp_has_prefix(w, tmp) && sp_now_ms() - t0 < 10000;)
		usleep(10000);
	usleep(500000);
	cr_assert_eq(sp_wait(pid, 0), -1, "%s: finished before the signal", what);
	kill(pid, sig);
	rc = sp_wait(pid, 10000);
	if (rc < 0)
		kill(pid, SIGKILL), waitpid(pid, NULL, 0);
	sp_kill_group(pid);
	err = th_slurp(lv_path("stderr"), NULL);
	cr_expect_eq(rc, 128 + sig, "%s, %s: exit %d%s: %s", what, strsignal(sig), rc,
		     rc < 0 ? " (still running 10 s after the signal)" : rc > SP_KILLED ? " (killed: no cleanup)" : "",
		     err ? err : "");
	cr_expect_eq(error_lines(err, what, tmp, sizeof(tmp)), 1, "%s, %s: not one error line: %s", what,
		     strsignal(sig), err ? err : "");
	free(err);
	after = sp_listing(w);
	cr_expect_str_eq(after, before, "%s, %s: left behind", what, strsignal(sig));
	free(before);
	free(after);
	fd = open(dev, O_RDWR | O_EXCL);	/* released: nobody holds it exclusively any more */
	cr_expect_geq(fd, 0, "%s, %s: %s still busy: %s", what, strsignal(sig), dev, strerror(errno));
	if (fd >= 0)
		close(fd);
}

Test(outputs_live, signals)
{
	const char *dev = loop64(), *w = workdir(), *slow;
	char args[1200];
	static const int sigs[] = { SIGINT, SIGTERM };

	/* calibrate on slowfs: every discard sleeps 20 ms, the sweep takes minutes */
	lv_tmpfs(lv_path("tmpfs"), 80);
	lv_mkfile(lv_path("tmpfs/back.img"), 64);
	lv_slowfs(lv_path("tmpfs/back.img"), lv_path("slow"), 20);
	slow = lv_loop(lv_path("slow/disk"), NULL);
	slow_trace(lv_path("w/slow.jsonl"), 2000);
	for (size_t i = 0; i < 2; i++) {
		/* 2000 discards 1 ms apart at --speed 0.01: 200 s paced by the trace's clock */
		snprintf(args, sizeof(args), "replay slow.jsonl -p passthrough --device %s --destructive --speed 0.01 "
			 "-q -o r.json", dev);
		stop_one("replay --device", w, args, "r.json", dev, sigs[i]);
		snprintf(args, sizeof(args), "calibrate --device %s --destructive -o p.json", slow);
		stop_one("calibrate", w, args, "p.json", slow, sigs[i]);
	}
}
