// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "tests/common/helpers.h"

/*
 * LeakSanitizer asks this at each process's exit. The code under test runs in Criterion's
 * workers (BoxFort children: BXFI_MAP in their environment), where leak detection stays on
 * (tests/runner/suite_leak.c checks it is reported). The runner process is Criterion's own:
 * under load its libcriterion 2.4.1 left a 48-byte calloc of its own once (frames #0 calloc,
 * #1 libcriterion.so.3+0x1a332, after every test of test_bounds had passed), which aborted a
 * suite with nothing of ours in the report. Leaks there are not ours to fix.
 */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return getenv("BXFI_MAP") == NULL;
}

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

const char *th_trimsim(void) { return env_or("TRIMSIM", "build/san/trimsim"); }
const char *th_src(void) { return env_or("TRIMSIM_SRC", "."); }
const char *th_build(void) { return env_or("TRIMSIM_BUILD", "build"); }

#define TH_TMPL "/tmp/trimsim-test.XXXXXX"

/* The scratch directory of this test process ("" when none). */
static char th_scratch[sizeof(TH_TMPL)];

void th_dir_init(void)
{
	static bool at_exit;
	char tmpl[] = TH_TMPL;

	th_dir_fini();
	/* Criterion skips .fini after cr_skip_test(); the test process still exits through exit() */
	if (!at_exit)
		at_exit = !atexit(th_dir_fini);
	cr_assert_not_null(mkdtemp(tmpl), "mkdtemp %s: %s", TH_TMPL, strerror(errno));
	memcpy(th_scratch, tmpl, sizeof(tmpl));
}

void th_dir_fini(void)
{
	if (th_scratch[0])
		th_rmtree(th_scratch);
	th_scratch[0] = 0;
}

const char *th_dir(void)
{
	cr_assert(th_scratch[0], "th_dir(): the suite has no th_dir_init (.init = th_dir_init)");
	return th_scratch;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	if (remove(path))
		fprintf(stderr, "warning: could not remove %s: %s\n", path, strerror(errno));
	return 0;
}

void th_rmtree(const char *dir)
{
	if (!dir || strncmp(dir, "/tmp/", 5))
		return;
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);	/* never into a file system mounted below */
}

const char *th_cut_corpus(const char *name, size_t bytes)
{
	static char out[600];
	char src[600];
	size_t len;
	char *buf;

	snprintf(src, sizeof(src), "%s/traces/corpus/%s", th_src(), name);
	snprintf(out, sizeof(out), "%s/cut-%s", th_dir(), name);
	cr_assert_not_null(buf = th_slurp(src, &len), "%s", src);
	cr_assert_eq(th_write(out, buf, len < bytes ? len : bytes), 0, "%s", out);
	free(buf);
	return out;
}

char *th_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			char *nb = realloc(buf, cap = (cap ? cap * 2 : 131072));

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, 65536, f);

		n += r;
		if (r < 65536)
			break;
	}
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

int th_write(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -errno;
	if (fwrite(buf, 1, len, f) != len) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}

int th_run(const char *cmd, char **out, char **err)
{
	char tmpl[] = TH_TMPL, *dir = mkdtemp(tmpl), full[8192], po[300], pe[300];
	int st, ret;

	if (!dir)
		return -1;
	snprintf(po, sizeof(po), "%s/out", dir);
	snprintf(pe, sizeof(pe), "%s/err", dir);
	snprintf(full, sizeof(full), "( %s ) >'%s' 2>'%s' </dev/null", cmd, po, pe);
	st = system(full);
	if (st == -1)
		ret = -1;
	else if (WIFEXITED(st))
		ret = WEXITSTATUS(st);
	else
		ret = 128 + WTERMSIG(st);
	if (out)
		*out = th_slurp(po, NULL);
	if (err)
		*err = th_slurp(pe, NULL);
	th_rmtree(dir);
	return ret;
}

size_t th_lines(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

const char *th_live_skip_reason(void)
{
	if (geteuid() != 0)
		return "live tests need root (loop devices, mount, BPF)";
	if (access("/dev/loop-control", F_OK))
		return "no /dev/loop-control: loop devices unavailable";
	return NULL;
}
