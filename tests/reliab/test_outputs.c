// SPDX-License-Identifier: GPL-2.0
/*
 * Every output path of every command that writes a file, against every kind of
 * output (traces/output.h): a new path, a regular file (replaced, its mode
 * kept), - (stdout), a character device (a mknod'ed null: it stays a device),
 * a full device (ENOSPC named, non-zero exit), a FIFO (written, stays a FIFO), a
 * symlink to a file (the link stays, its target is written), symlinks planted at
 * the names a predictable temporary would take (never followed), a directory
 * nobody may write (EACCES named, nothing created), a dangling symlink, a
 * directory and a block device node (refused). After each run the working
 * directory holds exactly what it should: no temporary is ever left.
 * Also: a write error on stdout fails every command that prints, with one line
 * naming the errno; an unknown output extension is refused before anything runs.
 * record and calibrate need root and a device: tests/live/test_outputs_live.c.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "tests/reliab/spawn.h"

struct cmd {
	char name[32];
	char args[160];		/* %s: the output path */
	char out[16];		/* a file name with the extension the command wants */
};

TestSuite(outputs, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(outputs, kinds)
{
	static struct cmd t[] = {
		{ "convert", "convert t.jsonl %s", "o.tsim" },
		{ "convert --to jsonl", "convert --to jsonl t.jsonl %s", "o.jsonl" },
		{ "import dtrace", "import --from dtrace d.txt -o %s", "o.tsim" },
		{ "export blktrace", "export --to blktrace t.jsonl -o %s", "o.bt" },
		{ "export fio", "export --to fio t.jsonl -o %s", "o.log" },
		{ "replay -o", "replay t.jsonl -p xfs -M nvme -q -o %s", "o.json" },
		{ "compare -o", "compare t.jsonl -p xfs,none -M nvme -q -o %s", "o.json" },
		{ "compare -o html", "compare t.jsonl -p xfs,none -M nvme -q -o %s", "o.html" },
		{ "recommend -o", "recommend t.jsonl -M nvme -q -o %s", "o.json" },
	};
	return cr_make_param_array(struct cmd, t, sizeof(t) / sizeof(t[0]));
}

static const char trace[] =
	"{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"devices\":[{\"dev\":\"7:0\","
	"\"name\":\"loop7\",\"size\":1073741824,\"logical_block_size\":512,\"physical_block_size\":4096,"
	"\"discard_granularity\":4096,\"discard_max_bytes\":4294967296,\"max_discard_segments\":1,\"fs\":\"xfs\"}]}}\n"
	"{\"t\":1000,\"kind\":\"FREE\",\"op\":\"none\",\"dev\":\"7:0\",\"off\":4096,\"len\":8192,\"ino\":1,\"lat\":0,\"flags\":\"xfs\"}\n"
	"{\"t\":2000,\"kind\":\"INTENT\",\"op\":\"none\",\"dev\":\"7:0\",\"off\":4096,\"len\":8192,\"ino\":1,\"lat\":0,\"flags\":\"xfs\"}\n"
	"{\"t\":3000,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"7:0\",\"off\":4096,\"len\":8192,\"ino\":1,\"lat\":0,\"flags\":\"\"}\n"
	"{\"t\":9000,\"kind\":\"DONE\",\"op\":\"discard\",\"dev\":\"7:0\",\"off\":4096,\"len\":8192,\"ino\":1,\"lat\":6000,\"flags\":\"\"}\n"
	"{\"footer\":{\"records\":4,\"lost\":0,\"end_ns\":9000}}\n";
static const char dtrace[] = "trimsim-dtrace 1\nfree 1000 ada0p2 77 8192 32768\nstart 2000 ada0 delete 8192 32768\n";

/* One case: a directory d (0755) with w/ (the inputs, the command's cwd) and log/ (everything else). */
struct fx {
	char d[400];
	char w[512], log[512];
};

static void fx_up(struct fx *f)
{
	char p[700];

	snprintf(f->d, sizeof(f->d), "%s/case.XXXXXX", th_dir());
	cr_assert_not_null(mkdtemp(f->d));
	cr_assert_eq(chmod(f->d, 0755), 0);	/* nobody must reach w/ (the unwritable-directory case) */
	snprintf(f->w, sizeof(f->w), "%s/w", f->d);
	snprintf(f->log, sizeof(f->log), "%s/log", f->d);
	cr_assert_eq(mkdir(f->w, 0755), 0);
	cr_assert_eq(mkdir(f->log, 0755), 0);
	snprintf(p, sizeof(p), "%s/t.jsonl", f->w);
	cr_assert_eq(th_write(p, trace, strlen(trace)), 0);
	snprintf(p, sizeof(p), "%s/d.txt", f->w);
	cr_assert_eq(th_write(p, dtrace, strlen(dtrace)), 0);
}

static void fx_down(struct fx *f)
{
	th_rmtree(f->d);
}

/* Runs the command in w/ with out as its output; exit status, stdout and stderr. */
static int fx_run(const struct fx *f, const struct cmd *c, const char *out, const char *prefix, const char *suffix,
		  char **so, char **se)
{
	char args[400], sh[2400];

	snprintf(args, sizeof(args), c->args, out);
	snprintf(sh, sizeof(sh), "cd '%s' && umask 022 && %s %s %s %s", f->w, prefix, th_trimsim(), args, suffix);
	return th_run(sh, so, se);
}

static mode_t mode_of(const char *dir, const char *name, bool follow)
{
	char p[700];
	struct stat s;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((follow ? stat(p, &s) : lstat(p, &s)) != 0)
		return 0;
	return s.st_mode;
}

static off_t size_of(const char *dir, const char *name)
{
	char p[700];
	struct stat s;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &s) ? -1 : s.st_size;
}

/* "name1\nname2\n" sorted, from a list of names plus the inputs. */
static char *expect_listing(const char *const *extra)
{
	const char *v[16] = { "d.txt", "t.jsonl" };
	size_t n = 2, len = 0;
	char *s = calloc(1, 1024);

	for (; extra && *extra; extra++)
		v[n++] = *extra;
	for (size_t i = 0; i < n; i++)	/* insertion sort: strcmp order, as alphasort in the C locale */
		for (size_t j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			const char *t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(s + len, "%s\n", v[i]);
	return s;
}

static void expect_dir(const struct fx *f, const struct cmd *c, const char *kind, const char *const *extra)
{
	char *want = expect_listing(extra), *have = sp_listing(f->w);

	cr_expect_str_eq(have, want, "%s, %s: the directory holds something else (a temporary left?)", c->name,
			 kind);
	free(want);
	free(have);
}

static void ok_run(const struct fx *f, const struct cmd *c, const char *kind, const char *out, char **so)
{
	char *se = NULL;
	int rc = fx_run(f, c, out, "", "", so, &se);

	cr_expect_eq(rc, 0, "%s, %s: exit %d: %s", c->name, kind, rc, se ? se : "");
	free(se);
}

static void fail_run(const struct fx *f, const struct cmd *c, const char *kind, const char *out, const char *prefix,
		     const char *want)
{
	char *se = NULL;
	int rc = fx_run(f, c, out, prefix, "", NULL, &se);

	cr_expect_neq(rc, 0, "%s, %s: exit 0", c->name, kind);
	cr_expect_eq(th_lines(se), 1, "%s, %s: stderr is not one line: %s", c->name, kind, se ? se : "");
	cr_expect(se && strstr(se, want) && strstr(se, out), "%s, %s: stderr does not name %s and '%s': %s",
		  c->name, kind, out, want, se ? se : "");
	free(se);
}

static void path_in(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

ParameterizedTest(struct cmd *c, outputs, kinds, .timeout = 120)
{
	const char *ext = strrchr(c->out, '.');
	char p[700], q[700], link[32], real[32], *so = NULL, *buf;
	struct fx f;
	struct stat s;
	bool root = geteuid() == 0;

	snprintf(link, sizeof(link), "link%s", ext);
	snprintf(real, sizeof(real), "real%s", ext);

	/* a new path: created with 0666 less the umask */
	fx_up(&f);
	ok_run(&f, c, "new path", c->out, NULL);
	cr_expect_eq(mode_of(f.w, c->out, false), S_IFREG | 0644, "%s, new path: mode %o", c->name,
		     mode_of(f.w, c->out, false));
	cr_expect_gt(size_of(f.w, c->out), 0, "%s, new path: empty", c->name);
	expect_dir(&f, c, "new path", (const char *[]){ c->out, NULL });
	fx_down(&f);

	/* a regular file: replaced whole, its mode kept */
	fx_up(&f);
	path_in(p, sizeof(p), f.w, c->out);
	cr_assert_eq(th_write(p, "old", 3), 0);
	cr_assert_eq(chmod(p, 0600), 0);
	ok_run(&f, c, "regular file", c->out, NULL);
	cr_expect_eq(mode_of(f.w, c->out, false), S_IFREG | 0600, "%s, regular file: mode %o, expected it kept",
		     c->name, mode_of(f.w, c->out, false));
	buf = th_slurp(p, NULL);
	cr_expect(buf && strncmp(buf, "old", 3) && size_of(f.w, c->out) > 3, "%s, regular file: not replaced",
		  c->name);
	free(buf);
	expect_dir(&f, c, "regular file", (const char *[]){ c->out, NULL });
	fx_down(&f);

	/* - : stdout */
	fx_up(&f);
	ok_run(&f, c, "-", "-", &so);
	cr_expect(so && *so, "%s, -: nothing on stdout", c->name);
	free(so);
	so = NULL;
	expect_dir(&f, c, "-", NULL);
	fx_down(&f);

	/* a FIFO: written, still a FIFO */
	fx_up(&f);
	path_in(p, sizeof(p), f.w, "fifo");
	cr_assert_eq(mkfifo(p, 0644), 0);
	{
		char sfx[1200], *se = NULL;
		int rc;

		/* bounded: a command that replaces the FIFO leaves cat waiting for a writer */
		snprintf(sfx, sizeof(sfx), "& timeout 30 cat '%s/fifo' > '%s/fifo.out'; wait $!", f.w, f.log);
		rc = fx_run(&f, c, "fifo", "", sfx, NULL, &se);
		cr_expect_eq(rc, 0, "%s, FIFO: exit %d: %s", c->name, rc, se ? se : "");
		free(se);
	}
	cr_expect(S_ISFIFO(mode_of(f.w, "fifo", false)), "%s, FIFO: no longer a FIFO", c->name);
	cr_expect_gt(size_of(f.log, "fifo.out"), 0, "%s, FIFO: the reader got nothing", c->name);
	expect_dir(&f, c, "FIFO", (const char *[]){ "fifo", NULL });
	fx_down(&f);

	/* a symlink to a file: the link stays a link, its target is written */
	fx_up(&f);
	path_in(p, sizeof(p), f.w, real);
	cr_assert_eq(th_write(p, "old", 3), 0);
	path_in(q, sizeof(q), f.w, link);
	cr_assert_eq(symlink(real, q), 0);
	ok_run(&f, c, "symlink", link, NULL);
	cr_expect(S_ISLNK(mode_of(f.w, link, false)), "%s, symlink: the link was replaced", c->name);
	cr_expect_gt(size_of(f.w, real), 3, "%s, symlink: its target was not written", c->name);
	expect_dir(&f, c, "symlink", (const char *[]){ link, real, NULL });
	fx_down(&f);

	/* symlinks planted where a predictable temporary would go (OUT.tmp.PID, .OUT.tmp...): never followed */
	fx_up(&f);
	{
		char *last = th_slurp("/proc/sys/kernel/ns_last_pid", NULL), *v;
		long pid0 = last ? strtol(last, NULL, 10) : 0;
		int planted = 0;

		free(last);
		path_in(q, sizeof(q), f.log, "victim");
		cr_assert_eq(th_write(q, "victim", 6), 0);
		for (long pid = pid0 + 1; pid0 && pid <= pid0 + 400; pid++) {
			snprintf(p, sizeof(p), "%s/%s.tmp.%ld", f.w, c->out, pid);
			planted += !symlink(q, p);
		}
		snprintf(p, sizeof(p), "%s/%s.tmp", f.w, c->out);
		planted += !symlink(q, p);
		snprintf(p, sizeof(p), "%s/.%s.tmp", f.w, c->out);
		planted += !symlink(q, p);
		ok_run(&f, c, "planted symlinks", c->out, NULL);
		v = th_slurp(q, NULL);
		cr_expect(v && !strcmp(v, "victim"), "%s, planted symlinks: the file they point to was written",
			  c->name);
		free(v);
		cr_expect(S_ISREG(mode_of(f.w, c->out, false)), "%s, planted symlinks: no output", c->name);
		{
			char *l = sp_listing(f.w);

			cr_expect_eq((int)th_lines(l), 3 + planted, "%s, planted symlinks: %zu names for %d links, "
				     "the inputs and the output", c->name, th_lines(l), planted);
			free(l);
		}
	}
	fx_down(&f);

	/* a directory nobody may write: EACCES named, nothing created (run as nobody: root writes anywhere) */
	if (!root || !th_run("command -v setpriv", NULL, NULL)) {
		fx_up(&f);
		path_in(p, sizeof(p), f.w, "ro");
		cr_assert_eq(mkdir(p, 0555), 0);
		cr_assert_eq(chmod(p, 0555), 0);
		snprintf(q, sizeof(q), "ro/%s", c->out);
		fail_run(&f, c, "unwritable directory", q, root ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "",
			 "Permission denied");
		buf = sp_listing(p);
		cr_expect_str_eq(buf, "", "%s, unwritable directory: something was created", c->name);
		free(buf);
		expect_dir(&f, c, "unwritable directory", (const char *[]){ "ro", NULL });
		fx_down(&f);
	}

	/* refused: a dangling symlink, a directory */
	fx_up(&f);
	path_in(p, sizeof(p), f.w, link);
	cr_assert_eq(symlink("nowhere/x", p), 0);
	fail_run(&f, c, "dangling symlink", link, "", "dangling symbolic link");
	cr_expect(S_ISLNK(mode_of(f.w, link, false)), "%s, dangling symlink: replaced", c->name);
	path_in(p, sizeof(p), f.w, "dir");
	cr_assert_eq(mkdir(p, 0755), 0);
	fail_run(&f, c, "directory", "dir", "", "Is a directory");
	expect_dir(&f, c, "refused", (const char *[]){ "dir", link, NULL });
	fx_down(&f);

	if (!root)
		return;
	/* character devices (mknod'ed: the system's are never at risk): written, never replaced */
	fx_up(&f);
	path_in(p, sizeof(p), f.w, "null");
	cr_assert_eq(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0);
	path_in(p, sizeof(p), f.w, "full");
	cr_assert_eq(mknod(p, S_IFCHR | 0666, makedev(1, 7)), 0);
	path_in(p, sizeof(p), f.w, "blk");
	cr_assert_eq(mknod(p, S_IFBLK | 0600, makedev(7, 250)), 0);
	ok_run(&f, c, "/dev/null", "null", NULL);
	fail_run(&f, c, "/dev/full", "full", "", "No space left on device");
	fail_run(&f, c, "block device", "blk", "", "block device");
	path_in(p, sizeof(p), f.w, "null");
	cr_expect(!stat(p, &s) && S_ISCHR(s.st_mode) && s.st_rdev == makedev(1, 3), "%s: null is no longer the "
		  "null device", c->name);
	path_in(p, sizeof(p), f.w, "full");
	cr_expect(!stat(p, &s) && S_ISCHR(s.st_mode) && s.st_rdev == makedev(1, 7), "%s: full is no longer the "
		  "full device", c->name);
	path_in(p, sizeof(p), f.w, "blk");
	cr_expect(!stat(p, &s) && S_ISBLK(s.st_mode), "%s: the block device node was replaced", c->name);
	expect_dir(&f, c, "devices", (const char *[]){ "blk", "full", "null", NULL });
	fx_down(&f);
	/* and the system's own, after all of the above */
	cr_expect(!stat("/dev/null", &s) && S_ISCHR(s.st_mode), "/dev/null is no longer a character device");
}

/* ---- a write error on stdout: every command that prints ---- */

struct printer {
	char name[32];
	char args[160];
};

ParameterizedTestParameters(outputs, stdout_full)
{
	static struct printer t[] = {
		{ "--help", "--help" },
		{ "--version", "--version" },
		{ "info", "info t.jsonl" },
		{ "info --json", "info --json t.jsonl" },
		{ "info --redundancy", "info --redundancy t.jsonl" },
		{ "replay", "replay t.jsonl -p xfs -M nvme" },
		{ "replay -o -", "replay t.jsonl -p xfs -M nvme -q -o -" },
		{ "replay --help", "replay --help" },
		{ "compare", "compare t.jsonl -p xfs,none -M nvme" },
		{ "compare --format json", "compare t.jsonl -p xfs,none -M nvme --format json" },
		{ "compare --help", "compare --help" },
		{ "recommend", "recommend t.jsonl -M nvme" },
		{ "recommend --json", "recommend t.jsonl -M nvme --json" },
		{ "recommend --help", "recommend --help" },
		{ "policies", "policies" },
		{ "models", "models" },
		{ "convert to -", "convert t.jsonl -" },
		{ "import to -", "import --from dtrace d.txt -o -" },
		{ "export to -", "export --to fio t.jsonl -o -" },
		{ "export --help", "export --help" },
		{ "record --help", "record --help" },
		{ "calibrate --help", "calibrate --help" },
	};
	return cr_make_param_array(struct printer, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct printer *p, outputs, stdout_full, .timeout = 120)
{
	struct fx f;
	char sh[1200], *se = NULL;
	int rc;

	fx_up(&f);
	snprintf(sh, sizeof(sh), "cd '%s' && %s %s >/dev/full", f.w, th_trimsim(), p->args);
	rc = th_run(sh, NULL, &se);
	cr_expect_eq(rc, 1, "%s >/dev/full: exit %d: %s", p->name, rc, se ? se : "");
	cr_expect_eq(th_lines(se), 1, "%s >/dev/full: stderr is not one line: %s", p->name, se ? se : "");
	cr_expect(se && strstr(se, "No space left on device"), "%s >/dev/full: errno not named: %s", p->name,
		  se ? se : "");
	free(se);
	expect_dir(&f, &(struct cmd){ .name = "" }, p->name, NULL);
	fx_down(&f);
}

/* ---- an output extension no format has: refused before anything runs ---- */

struct ext_case {
	char name[32];
	char args[160];
	char msg[300];
};

ParameterizedTestParameters(outputs, unknown_extension)
{
	static struct ext_case t[] = {
		{ "compare -o", "compare t.jsonl -p xfs -M nvme -o r.xlsx",
		  "trimsim compare: -o r.xlsx: unknown extension '.xlsx' (known: .txt .json .csv .html .htm; "
		  "none: --format); see 'trimsim compare --help'\n" },
		{ "replay -o", "replay t.jsonl -p xfs -M nvme -o r.xlsx",
		  "trimsim replay: -o r.xlsx: unknown extension '.xlsx' (the result is JSON: .json); "
		  "see 'trimsim replay --help'\n" },
		{ "calibrate -o", "calibrate --device /nonexistent --destructive -o r.xlsx",
		  "trimsim calibrate: -o r.xlsx: unknown extension '.xlsx' (a profile is JSON: .json); "
		  "see 'trimsim calibrate --help'\n" },
		{ "calibrate --svg", "calibrate --device /nonexistent --destructive --svg r.xlsx",
		  "trimsim calibrate: --svg r.xlsx: unknown extension '.xlsx' (the chart is SVG: .svg); "
		  "see 'trimsim calibrate --help'\n" },
	};
	return cr_make_param_array(struct ext_case, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct ext_case *e, outputs, unknown_extension, .timeout = 120)
{
	struct fx f;
	char sh[1200], *se = NULL;
	int rc;

	fx_up(&f);
	snprintf(sh, sizeof(sh), "cd '%s' && %s %s", f.w, th_trimsim(), e->args);
	rc = th_run(sh, NULL, &se);
	cr_expect_eq(rc, 2, "%s: exit %d", e->name, rc);
	cr_expect_str_eq(se ? se : "", e->msg, "%s", e->name);
	free(se);
	expect_dir(&f, &(struct cmd){ .name = "" }, e->name, NULL);
	fx_down(&f);
}
