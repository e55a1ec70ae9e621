// SPDX-License-Identifier: GPL-2.0
/* FreeBSD DTrace import: a sample in the line format of tracer/freebsd/README.md, and malformed lines. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "traces/import/importer.h"

extern const struct importer_ops importer_dtrace;

/* Out of time order on purpose (per-CPU buffers): the importer sorts. */
static const char sample[] =
	"# dtrace -qs trimsim.d\n"
	"trimsim-dtrace 1\n"
	"fs ada0p2 4096 32768 /usr/obj dir\n"
	"free 1000 ada0p2 77 08192 32768\n"
	"free 1500 ada0p2 77 40960 4096\n"
	"start 2000 ada0 delete 1056768 32768\n"
	"free 1200 ada0p2 78 1048576 65536\n"
	"\n"
	"start 2100 ada0 write 4096 8192\n"
	"done 2900 ada0 write 4096 8192 0 800\n"
	"done 9000 ada0 delete 1056768 32768 5 7000\n"
	"start 9100 ada0 flush 0 0\n"
	"done 9200 ada0 flush 0 0 0 100\n";

static int run(const char *text, const char *kv, struct import_sink **sink, char *path, size_t plen,
	       char *err, size_t errlen)
{
	char opts[32] = { 0 };
	char *files[1];
	int ret;

	snprintf(path, plen, "%s/ufs.txt", th_dir());
	cr_assert_eq(th_write(path, text, strlen(text)), 0);
	cr_assert_leq(importer_dtrace.opts_size, sizeof(opts));
	cr_assert_eq(opts__defaults(importer_dtrace.opts, opts, err, errlen), 0);
	cr_assert_eq(opts__parse_kv(importer_dtrace.opts, opts, kv, ',', err, errlen), 0, "%s", err);
	*sink = import_sink__new();
	cr_assert_not_null(*sink);
	files[0] = path;
	ret = importer_dtrace.run(opts, files, 1, *sink, err, errlen);
	return ret;
}

TestSuite(dtrace_import, .init = th_dir_init, .fini = th_dir_fini);

Test(dtrace_import, sample)
{
	struct import_sink *sink;
	struct ts_record r[16];
	const struct ts_device *d;
	char path[256], err[256] = "";
	size_t nd;

	cr_assert_eq(run(sample, "partition_start=1M", &sink, path, sizeof(path), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(import_sink__count(sink), 9);
	cr_assert_eq(import_sink__read(sink, 0, r, 16), 9);
	for (int i = 1; i < 9; i++)
		cr_assert_leq(r[i - 1].time_ns, r[i].time_ns, "sorted by time");
	/* free 1000, free 1200, free 1500, start 2000, ... */
	cr_assert_eq(r[0].kind, TS_FREE);
	cr_assert_eq(r[0].flags & TS_F_FS_MASK, TS_FS_UFS);
	cr_assert_eq(r[0].ino, 77);
	cr_assert_eq(r[0].offset, 8192 + 1048576);
	cr_assert_eq(r[0].length, 32768);
	cr_assert_eq(r[1].ino, 78);
	cr_assert_eq(r[1].time_ns, 1200);
	cr_assert_eq(r[3].kind, TS_ISSUE);
	cr_assert_eq(r[3].op, TS_OP_DISCARD);
	cr_assert_eq(r[3].offset, 1056768, "disk offsets are not shifted");
	cr_assert_eq(r[5].kind, TS_DONE);
	cr_assert_eq(r[5].op, TS_OP_WRITE);
	cr_assert_eq(r[5].latency_ns, 800);
	cr_assert_eq(r[6].op, TS_OP_DISCARD);
	cr_assert_eq(r[6].latency_ns, 7000);
	cr_assert_eq(r[6].flags & TS_F_ERROR, TS_F_ERROR);
	cr_assert_eq(r[7].op, TS_OP_FLUSH);
	cr_assert_neq(r[0].dev, r[3].dev, "fs partition and disk are two devices");
	d = import_sink__devices(sink, &nd);
	cr_assert_eq(nd, 2);
	cr_assert_str_eq(d[0].name, "ada0p2");
	cr_assert_str_eq(d[0].fs, "ufs");
	cr_assert_eq(d[0].fs_block_size, 4096);
	cr_assert_str_eq(d[0].mount, "/usr/obj dir");
	cr_assert_str_eq(d[1].name, "ada0");
	cr_assert_eq(TS_DEV_MAJOR(d[1].dev), 4000);
	import_sink__free(sink);
}

struct bad {
	char text[160];
	char expect[80];
};

ParameterizedTestParameters(dtrace_import, malformed)
{
	static struct bad p[] = {
		{ .text = "free 1 ada0 2 3 4\n", .expect = ":1: expected 'trimsim-dtrace 1'" },
		{ .text = "trimsim-dtrace 2\n", .expect = ":1: expected 'trimsim-dtrace 1'" },
		{ .text = "\n# c\n", .expect = ":2: no 'trimsim-dtrace 1' line" },
		{ .text = "trimsim-dtrace 1\nfree 10 ada0p2 5 4096\n",
		  .expect = ":2: expected 'free TIME DEV INO OFFSET BYTES'" },
		{ .text = "trimsim-dtrace 1\nfree 10 ada0p2 5 4096 8192 9\n", .expect = ":2: expected 'free" },
		{ .text = "trimsim-dtrace 1\nfree 10 ada0p2 -5 4096 8192\n", .expect = ":2: expected 'free" },
		{ .text = "trimsim-dtrace 1\n\nstart 10 ada0 delete 0x10 8192\n", .expect = ":3: expected 'start" },
		{ .text = "trimsim-dtrace 1\nstart 10 ada0 erase 0 8192\n",
		  .expect = ":2: CMD must be read, write, delete or flush" },
		{ .text = "trimsim-dtrace 1\ndone 10 ada0 write 0 8192 0\n",
		  .expect = ":2: expected 'done TIME DISK CMD OFFSET BYTES ERROR LATENCY'" },
		{ .text = "trimsim-dtrace 1\nfs ada0p2 0 32768 /\n",
		  .expect = ":2: expected 'fs DEV FSIZE BSIZE MOUNT'" },
		{ .text = "trimsim-dtrace 1\nstart 1 ada0 read 0 512\nbogus line\n", .expect = ":3: unknown line" },
		{ .text = "trimsim-dtrace 1\nstart 99999999999999999999 ada0 read 0 512\n",
		  .expect = ":2: expected 'start" },
	};
	return cr_make_param_array(struct bad, p, sizeof(p) / sizeof(p[0]));
}

ParameterizedTest(struct bad *p, dtrace_import, malformed)
{
	struct import_sink *sink;
	char path[256], err[256] = "";

	cr_assert_neq(run(p->text, "", &sink, path, sizeof(path), err, sizeof(err)), 0, "accepted: %s", p->text);
	cr_assert(strstr(err, path), "names the file: %s", err);
	cr_assert(strstr(err, p->expect), "expected '%s' in '%s'", p->expect, err);
	cr_assert_eq(import_sink__count(sink), 0, "nothing reaches the sink on error");
	import_sink__free(sink);
}
