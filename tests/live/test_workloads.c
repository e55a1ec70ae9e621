// SPDX-License-Identifier: GPL-2.0
/*
 * tracer/workloads: the rm-tree workload recorded by `trimsim record` and by the scripts'
 * fallback (tracefs instance + trace-cmd extract + import --from trace-cmd), on XFS and ext4:
 * both traces hold a FREE per file and the discards online discard made, and the same
 * number of bytes freed (the same tree is deleted; where the fs placed it may differ between
 * runs, so offsets are compared in test_import_tracecmd.c, on one run seen both ways).
 * Every run, also a failing one, leaves no loop device and no mount behind. Root only.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "traces/trace.h"

TestSuite(workloads, .fini = th_dir_fini);

/* No loop device on WORKDIR's image, nothing mounted on WORKDIR/mnt. */
static void assert_torn_down(const char *workdir)
{
	char cmd[1024], *out = NULL;

	snprintf(cmd, sizeof(cmd), "losetup -j '%s/disk.img'", workdir);
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert_str_eq(out, "", "loop device left behind: %s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "findmnt '%s/mnt'", workdir);
	cr_assert_neq(th_run(cmd, NULL, NULL), 0, "%s/mnt still mounted", workdir);
}

struct rec4 { uint64_t off, len, ino, flags; };

static int cmp4(const void *a, const void *b)
{
	const struct rec4 *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* FREE records of a trace, sorted. */
static struct rec4 *frees(const char *path, size_t *n)
{
	char err[512];
	struct trace_reader *r = trace_reader__open(path, err, sizeof(err));
	struct rec4 *v = NULL;
	size_t cap = 0;
	struct ts_record rec;
	int ret;

	cr_assert_not_null(r, "%s", err);
	*n = 0;
	while ((ret = trace_reader__next(r, &rec)) == 1) {
		if (rec.kind != TS_FREE)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			v = realloc(v, cap * sizeof(*v));
			cr_assert_not_null(v);
		}
		v[(*n)++] = (struct rec4){ rec.offset, rec.length, rec.ino, rec.flags };
	}
	cr_assert_eq(ret, 0, "%s", trace_reader__error(r));
	trace_reader__close(r);
	qsort(v, *n, sizeof(*v), cmp4);
	return v;
}

static void run_workload(const char *fs, bool fallback, const char *out)
{
	char cmd[2048], work[600], *err = NULL;

	snprintf(work, sizeof(work), "%s/w%d", th_dir(), fallback);
	snprintf(cmd, sizeof(cmd),
		 "TRIMSIM='%s' WORKDIR='%s' TRIMSIM_RECORD_FALLBACK=%d "
		 "bash '%s/tracer/workloads/rm_tree.sh' -f %s -m discard -n 300 -s 1G -o '%s' >/dev/null",
		 th_trimsim(), work, fallback, th_src(), fs, out);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s: %s", cmd, err);
	free(err);
	assert_torn_down(work);
}

struct fs_param { char fs[8]; };

ParameterizedTestParameters(workloads, recorder_and_fallback_agree)
{
	static struct fs_param p[] = { { "xfs" }, { "ext4" } };

	return cr_make_param_array(struct fs_param, p, sizeof(p) / sizeof(p[0]));
}

ParameterizedTest(struct fs_param *p, workloads, recorder_and_fallback_agree, .timeout = 180)
{
	const char *skip = th_live_skip_reason();
	char a[600], b[600], cmd[700];
	struct rec4 *va, *vb;
	size_t na, nb;
	uint64_t ba = 0, bb = 0;

	if (skip)
		cr_skip("%s", skip);
	snprintf(cmd, sizeof(cmd), "'%s' record --help >/dev/null 2>&1", th_trimsim());
	if (th_run(cmd, NULL, NULL))
		cr_skip("trimsim record is not built");
	if (th_run("command -v trace-cmd && command -v perl && command -v mkfs.xfs", NULL, NULL))
		cr_skip("trace-cmd, perl or mkfs.xfs missing");
	th_dir_init();
	snprintf(a, sizeof(a), "%s/record.tsim", th_dir());
	snprintf(b, sizeof(b), "%s/fallback.tsim", th_dir());
	run_workload(p->fs, false, a);
	run_workload(p->fs, true, b);
	va = frees(a, &na);
	vb = frees(b, &nb);
	for (size_t i = 0; i < na; i++)
		ba += va[i].len;
	for (size_t i = 0; i < nb; i++)
		bb += vb[i].len;
	cr_assert_gt(na, 300, "%s: a FREE per file at least (recorder)", p->fs);
	cr_assert_gt(nb, 300, "%s: a FREE per file at least (fallback)", p->fs);
	cr_assert_float_eq((double)ba, (double)bb, 0.02 * (double)ba, "%s: bytes freed, recorder %llu vs import %llu",
			   p->fs, (unsigned long long)ba, (unsigned long long)bb);
	free(va);
	free(vb);
}

Test(workloads, failure_tears_down, .timeout = 60)
{
	const char *skip = th_live_skip_reason();
	char cmd[2048], work[600], out[600], *err = NULL;

	if (skip)
		cr_skip("%s", skip);
	th_dir_init();
	snprintf(work, sizeof(work), "%s/w", th_dir());
	snprintf(out, sizeof(out), "%s/never.tsim", th_dir());
	/* mount fails after the loop device and mkfs: the trap must still detach it. */
	snprintf(cmd, sizeof(cmd),
		 "TRIMSIM='%s' WORKDIR='%s' bash '%s/tracer/workloads/rm_tree.sh' -f ext4 -m no_such_option -n 10 "
		 "-s 64M -o '%s' >/dev/null", th_trimsim(), work, th_src(), out);
	cr_assert_neq(th_run(cmd, NULL, &err), 0, "a bad mount option must fail");
	free(err);
	assert_torn_down(work);
	cr_assert_neq(access(out, F_OK), 0, "no trace written");
}
