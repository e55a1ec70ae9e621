// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd import on a trace.dat that trace-cmd itself wrote here:
 * `trace-cmd record` fails on this VM, so the events are enabled in a tracefs
 * instance of our own (filtered to a loop device of our own, clock mono), a
 * discard workload runs (blkdiscard, then mkfs + mount -o discard, files
 * written and removed, fstrim), and `trace-cmd extract -B INSTANCE` writes the
 * file. The import is compared with `trace-cmd report` of the same file.
 * Root only; the loop device, mount and instance are always removed.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "tracer/recorder.h"
#include "traces/import/importer.h"
#include "traces/trace.h"

extern const struct importer_ops importer_tracecmd;

#define TRACEFS "/sys/kernel/tracing"

/* tracefs as the recorder finds it: mounted first where the directory is empty (a fresh boot here) */
static bool tracefs_ready(void)
{
	return !access(rec_tracefs_dir(), F_OK) && !access(TRACEFS "/instances", F_OK);
}

static char loopdev[64];
static char inst[128];
static bool mounted;

static int sh(const char *fmt, const char *a, const char *b, const char *c)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), fmt, a, b, c);
	return th_run(cmd, NULL, NULL);
}

static void cleanup(void)
{
	if (mounted)
		sh("umount '%s/mnt'%s%s", th_dir(), "", "");
	mounted = false;
	if (inst[0])
		rmdir(inst);	/* extract may already have removed it */
	inst[0] = 0;
	if (loopdev[0])
		sh("losetup -d '%s'%s%s", loopdev, "", "");
	loopdev[0] = 0;
	th_dir_fini();
}

TestSuite(tracecmd_live, .fini = cleanup);

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	cr_assert_geq(fputs(text, f), 0);
	cr_assert_eq(fclose(f), 0);
}

static void enable(const char *event, unsigned devt)
{
	char path[512], filter[64];

	snprintf(path, sizeof(path), "%s/events/%s/filter", inst, event);
	snprintf(filter, sizeof(filter), "dev == %u", devt);
	/* ext4_trim_extent has dev_major/dev_minor, not dev */
	if (strstr(event, "trim_extent"))
		snprintf(filter, sizeof(filter), "dev_major == %u && dev_minor == %u", devt >> 20, devt & 0xfffff);
	write_file(path, filter);
	snprintf(path, sizeof(path), "%s/events/%s/enable", inst, event);
	write_file(path, "1");
}

/* Lines of `trace-cmd report` naming event, optionally with rwbs op letter D. */
static size_t report_count(const char *report, const char *event, bool discard_only)
{
	size_t n = 0;
	char key[64];

	snprintf(key, sizeof(key), " %s: ", event);
	for (const char *p = report; (p = strstr(p, key)); p++) {
		const char *rwbs = p + strlen(key);

		rwbs += strspn(rwbs, " ");
		rwbs += strcspn(rwbs, " ");	/* "7,1" */
		rwbs += strspn(rwbs, " ");
		if (!discard_only || rwbs[0] == 'D' || (rwbs[0] == 'F' && rwbs[1] == 'D'))
			n++;
	}
	return n;
}

/* ext4_trim_extent lines of the fstrim task (XFS has no such event: 0). */
static size_t fstrim_trims(const char *report)
{
	size_t n = 0;

	for (const char *p = report; (p = strstr(p, " ext4_trim_extent: ")); p++) {
		const char *line = p;

		while (line > report && line[-1] != '\n')
			line--;
		n += strstr(line, "fstrim-") && strstr(line, "fstrim-") < p;
	}
	return n;
}

struct fs_case {
	char fs[8];
	char mkfs[96];
	char free_ev[32], intent_ev[32], alloc_ev[32], commit_ev[32];
};

ParameterizedTestParameters(tracecmd_live, import_matches_report)
{
	static struct fs_case p[] = {
		{ "ext4", "mkfs.ext4 -q -F -E nodiscard", "ext4_free_blocks", "ext4_discard_blocks", "ext4_mballoc_alloc",
		  "jbd2_end_commit" },
		{ "xfs", "mkfs.xfs -q -f -K", "xfs_free_extent", "xfs_discard_extent", "xfs_alloc_vextent_finish",
		  "xlog_iclog_callbacks_start" },
	};
	return cr_make_param_array(struct fs_case, p, sizeof(p) / sizeof(p[0]));
}

ParameterizedTest(struct fs_case *p, tracecmd_live, import_matches_report, .timeout = 120)
{
	static const char *const events[] = {
		"block/block_bio_queue", "block/block_rq_issue", "block/block_rq_complete",
		"xfs/xfs_free_extent", "xfs/xfs_discard_extent", "ext4/ext4_free_blocks",
		"ext4/ext4_discard_blocks", "ext4/ext4_trim_extent", "ext4/ext4_mballoc_alloc",
		"ext4/ext4_mballoc_discard", "xfs/xfs_alloc_vextent_finish", "jbd2/jbd2_end_commit",
		"xfs/xlog_iclog_callbacks_start",
	};
	const char *skip = th_live_skip_reason();
	char path[512], dat[512], cmd[1024], opts[512] = { 0 }, err[512] = "", *report = NULL, *files[1];
	char *out = NULL;
	struct import_sink *sink;
	struct ts_record r[256];
	unsigned ma, mi, devt;
	uint64_t bio_bytes = 0, fitrim = 0, issue_disc = 0, done_disc = 0, done_lat = 0, size = 512ull << 20;
	ssize_t n;
	struct stat st;

	if (skip)
		cr_skip("%s", skip);
	if (!tracefs_ready())
		cr_skip("tracefs not mounted at " TRACEFS " and it would not mount");
	if (th_run("command -v trace-cmd && command -v blkdiscard && command -v mkfs.xfs", NULL, NULL))
		cr_skip("trace-cmd, blkdiscard or mkfs.xfs missing");
	th_dir_init();
	cr_assert_eq(sh("truncate -s 512M '%s/img' && mkdir '%s/mnt'%s", th_dir(), th_dir(), ""), 0);
	snprintf(cmd, sizeof(cmd), "losetup -f --show '%s/img'", th_dir());
	cr_assert_eq(th_run(cmd, &out, NULL), 0, "losetup");
	snprintf(loopdev, sizeof(loopdev), "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	cr_assert_eq(stat(loopdev, &st), 0);
	ma = major(st.st_rdev);
	mi = minor(st.st_rdev);
	devt = ma << 20 | mi;
	snprintf(inst, sizeof(inst), TRACEFS "/instances/trimsim_impexp_%d", (int)getpid());
	cr_assert_eq(mkdir(inst, 0755), 0, "instance %s", inst);
	snprintf(path, sizeof(path), "%s/trace_clock", inst);
	write_file(path, "mono");
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		enable(events[i], devt);
	snprintf(path, sizeof(path), "%s/tracing_on", inst);
	write_file(path, "1");

	/* Workload: 64 MiB + 1 MiB of raw discards, then a filesystem with online discard. */
	cr_assert_eq(sh("blkdiscard -o 0 -l 64M '%s' && blkdiscard -o 128M -l 1M '%s'%s", loopdev, loopdev, ""), 0);
	snprintf(cmd, sizeof(cmd), "%s '%s' && mount -o discard '%s' '%s/mnt'", p->mkfs, loopdev, loopdev, th_dir());
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	mounted = true;
	snprintf(cmd, sizeof(cmd),
		 "cd '%s/mnt' && for d in 1 2 3 4; do mkdir $d; for f in 1 2 3 4 5 6 7 8 9 10; do "
		 "head -c $((f * 37 * 1024)) /dev/zero > $d/$f; done; done && sync && rm -rf 1 2 3 && sync && "
		 "fstrim . ; cd / && umount '%s/mnt'", th_dir(), th_dir());
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "workload");
	mounted = false;
	write_file(path, "0");
	snprintf(dat, sizeof(dat), "%s/t.dat", th_dir());
	snprintf(cmd, sizeof(cmd), "cd '%s' && trace-cmd extract -B '%s' -o '%s' >/dev/null 2>&1", th_dir(),
		 strrchr(inst, '/') + 1, dat);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "trace-cmd extract");
	snprintf(cmd, sizeof(cmd), "trace-cmd report -i '%s' 2>/dev/null", dat);
	cr_assert_eq(th_run(cmd, &report, NULL), 0, "trace-cmd report");

	/* Without the geometry, fs events stop the import with the record and the options to give. */
	snprintf(cmd, sizeof(cmd), "'%s' import --from trace-cmd '%s' -o '%s/nogeom.tsim'", th_trimsim(), dat, th_dir());
	cr_assert_eq(th_run(cmd, NULL, &out), 1);
	cr_assert(strstr(out, dat) && strstr(out, ": record ") && strstr(out, "--device"), "%s", out);
	free(out);
	out = NULL;
	snprintf(path, sizeof(path), "%s/nogeom.tsim", th_dir());
	cr_assert_neq(access(path, F_OK), 0, "nothing written");

	/* Import, geometry from the device's superblock. */
	cr_assert_eq(opts__defaults(importer_tracecmd.opts, opts, err, sizeof(err)), 0);
	cr_assert_eq(opts__set(importer_tracecmd.opts, opts, "device", loopdev, err, sizeof(err)), 0, "%s", err);
	sink = import_sink__new();
	cr_assert_not_null(sink);
	files[0] = dat;
	cr_assert_eq(importer_tracecmd.run(opts, files, 1, sink, err, sizeof(err)), 0, "%s", err);

	cr_assert_gt(report_count(report, "block_rq_issue", true), 0);
	cr_assert_eq(import_sink__kind_count(sink, TS_BIO), report_count(report, "block_bio_queue", true));
	cr_assert_eq(import_sink__kind_count(sink, TS_DONE), report_count(report, "block_rq_complete", false));
	cr_assert_gt(report_count(report, p->free_ev, false), 0, "%s frees traced", p->fs);
	cr_assert_eq(import_sink__kind_count(sink, TS_FREE),
		     report_count(report, p->free_ev, false) + report_count(report, "ext4_mballoc_discard", false));
	cr_assert_gt(report_count(report, p->intent_ev, false), 0, "%s discards traced", p->fs);
	/* One INTENT per discarded extent: ext4_trim_extent announces what ext4_discard_blocks traces. */
	cr_assert_eq(import_sink__kind_count(sink, TS_INTENT), report_count(report, p->intent_ev, false));
	/* ext4: every allocation; XFS: AG free-list refills and failed attempts are not extents. */
	cr_assert_gt(import_sink__kind_count(sink, TS_ALLOC), 0);
	if (!strcmp(p->fs, "ext4"))
		cr_assert_eq(import_sink__kind_count(sink, TS_ALLOC), report_count(report, p->alloc_ev, false));
	else
		cr_assert_leq(import_sink__kind_count(sink, TS_ALLOC), report_count(report, p->alloc_ev, false));
	cr_assert_gt(report_count(report, p->commit_ev, false), 0);
	cr_assert_eq(import_sink__kind_count(sink, TS_META), report_count(report, p->commit_ev, false),
		     "one META commit per %s", p->commit_ev);
	for (uint64_t pos = 0; (n = import_sink__read(sink, pos, r, 256)) > 0; pos += (uint64_t)n) {
		for (ssize_t k = 0; k < n; k++) {
			cr_assert_eq(r[k].dev, devt);
			cr_assert_leq(r[k].offset + r[k].length, size, "kind %u op %u record %llu inside the device: %llu + %llu",
				      r[k].kind, r[k].op, (unsigned long long)(pos + (uint64_t)k),
				      (unsigned long long)r[k].offset, (unsigned long long)r[k].length);
			if (r[k].kind == TS_BIO)
				bio_bytes += r[k].length;
			if (r[k].kind == TS_INTENT && (r[k].flags & TS_F_FITRIM))
				fitrim++;
			if (r[k].kind == TS_ISSUE && r[k].op == TS_OP_DISCARD)
				issue_disc++;
			if (r[k].kind == TS_DONE && r[k].op == TS_OP_DISCARD) {
				done_disc++;
				done_lat += r[k].latency_ns > 0;
			}
		}
	}
	cr_assert_eq(issue_disc, report_count(report, "block_rq_issue", true));
	cr_assert_eq(fitrim, fstrim_trims(report), "FITRIM INTENTs are the extents fstrim's own task trimmed");
	cr_assert_geq(bio_bytes, 65ull << 20, "the two blkdiscard calls alone queue 65 MiB");
	/*
	 * Every discard completion pairs with its issue. Writes need not: the flush state
	 * machine (block/blk-flush.c) completes FUA/PREFLUSH writes in steps the issue
	 * tracepoint does not mirror one to one.
	 */
	cr_assert_eq(done_disc, issue_disc);
	cr_assert_eq(done_lat, done_disc, "every discard completion paired with its issue");
	{
		size_t nd;
		const struct ts_device *d = import_sink__devices(sink, &nd);

		cr_assert_eq(nd, 1);
		cr_assert_str_eq(d[0].fs, p->fs);
		cr_assert_eq(d[0].size, size);
	}
	import_sink__free(sink);
	free(report);
}

/*
 * One workload seen both ways at once: `trimsim record` (eBPF) and a tracefs instance of ours
 * on the same loop device. The trace.dat import must give exactly the recorder's FREE records
 * (offset, length, inode, flags) and INTENT records (offset, length, flags): the importer's
 * geometry and mapping agree with the recorder's. On ext4 bigalloc both give what
 * ext4_free_blocks() frees, whole clusters (the import gave the tracepoint's range, which
 * the recorder stopped giving in 6fe99ee).
 */
struct key4 { uint64_t a, b, c, d; };

static int cmp_key4(const void *x, const void *y)
{
	return memcmp(x, y, sizeof(struct key4));
}

static struct key4 *collect(struct ts_record *v, size_t n, unsigned kind, size_t *out)
{
	struct key4 *k = calloc(n ? n : 1, sizeof(*k));

	cr_assert_not_null(k);
	*out = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].kind == kind)
			k[(*out)++] = (struct key4){ v[i].offset, v[i].length, kind == TS_FREE ? v[i].ino : 0, v[i].flags };
	qsort(k, *out, sizeof(*k), cmp_key4);
	return k;
}

static struct ts_record *read_all(const char *path, size_t *n)
{
	char err[512];
	struct trace_reader *r = trace_reader__open(path, err, sizeof(err));
	struct ts_record *v = NULL, rec;
	size_t cap = 0;
	int ret;

	cr_assert_not_null(r, "%s", err);
	*n = 0;
	while ((ret = trace_reader__next(r, &rec)) == 1) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 4096;
			v = realloc(v, cap * sizeof(*v));
			cr_assert_not_null(v);
		}
		v[(*n)++] = rec;
	}
	cr_assert_eq(ret, 0);
	trace_reader__close(r);
	return v;
}

ParameterizedTestParameters(tracecmd_live, import_matches_recorder)
{
	static struct fs_case p[] = {
		{ "ext4", "mkfs.ext4 -q -F -E nodiscard", "", "", "", "" },
		{ "xfs", "mkfs.xfs -q -f -K", "", "", "", "" },
		/* bigalloc: a FREE is the whole clusters ext4_free_blocks() frees, in both (traces/ext4free.h) */
		{ "ext4c16", "mkfs.ext4 -q -F -E nodiscard -O bigalloc -C 16384", "", "", "", "" },
	};
	return cr_make_param_array(struct fs_case, p, sizeof(p) / sizeof(p[0]));
}

ParameterizedTest(struct fs_case *p, tracecmd_live, import_matches_recorder, .timeout = 120)
{
	static const char *const events[] = {
		"block/block_bio_queue", "block/block_rq_issue", "block/block_rq_complete",
		"xfs/xfs_free_extent", "xfs/xfs_discard_extent", "ext4/ext4_free_blocks",
		"ext4/ext4_discard_blocks", "ext4/ext4_trim_extent",
	};
	const char *skip = th_live_skip_reason();
	char path[512], dat[512], rec[512], cmd[2048], opts[512] = { 0 }, err[512] = "", *out = NULL, *files[1];
	struct import_sink *sink;
	struct ts_record *va, *vb;
	size_t na, nb = 0;
	struct stat st;
	unsigned devt;

	if (skip)
		cr_skip("%s", skip);
	snprintf(cmd, sizeof(cmd), "'%s' record --help >/dev/null 2>&1", th_trimsim());
	if (!tracefs_ready() || th_run(cmd, NULL, NULL) ||
	    th_run("command -v trace-cmd && command -v mkfs.xfs", NULL, NULL))
		cr_skip("needs tracefs, trimsim record, trace-cmd and mkfs.xfs");
	th_dir_init();
	cr_assert_eq(sh("truncate -s 512M '%s/img' && mkdir '%s/mnt'%s", th_dir(), th_dir(), ""), 0);
	snprintf(cmd, sizeof(cmd), "losetup -f --show '%s/img'", th_dir());
	cr_assert_eq(th_run(cmd, &out, NULL), 0, "losetup");
	snprintf(loopdev, sizeof(loopdev), "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	cr_assert_eq(stat(loopdev, &st), 0);
	devt = major(st.st_rdev) << 20 | minor(st.st_rdev);
	snprintf(cmd, sizeof(cmd),
		 "%s '%s' && mount -o discard '%s' '%s/mnt' && cd '%s/mnt' && mkdir t && for d in 1 2 3 4 5 6; do "
		 "mkdir t/$d; for f in $(seq 1 50); do head -c $((f * 3000 + d * 700)) /dev/zero > t/$d/$f; done; done "
		 "&& sync -f .", p->mkfs, loopdev, loopdev, th_dir(), th_dir());
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	mounted = true;

	snprintf(inst, sizeof(inst), TRACEFS "/instances/trimsim_impexp2_%d", (int)getpid());
	cr_assert_eq(mkdir(inst, 0755), 0, "instance %s", inst);
	snprintf(path, sizeof(path), "%s/trace_clock", inst);
	write_file(path, "mono");
	snprintf(path, sizeof(path), "%s/buffer_size_kb", inst);
	write_file(path, "8192");
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		enable(events[i], devt);
	snprintf(path, sizeof(path), "%s/tracing_on", inst);
	write_file(path, "1");
	snprintf(rec, sizeof(rec), "%s/rec.tsim", th_dir());
	snprintf(cmd, sizeof(cmd),
		 "'%s' record -d '%s' -o '%s' -- sh -c 'rm -rf %s/mnt/t && sync -f %s/mnt && sleep 2 && sync -f %s/mnt'",
		 th_trimsim(), loopdev, rec, th_dir(), th_dir(), th_dir());
	cr_assert_eq(th_run(cmd, NULL, &out), 0, "record: %s", out);
	free(out);
	write_file(path, "0");
	cr_assert_eq(sh("umount '%s/mnt'%s%s", th_dir(), "", ""), 0);
	mounted = false;
	snprintf(dat, sizeof(dat), "%s/t.dat", th_dir());
	snprintf(cmd, sizeof(cmd), "cd '%s' && trace-cmd extract -B '%s' -o '%s' >/dev/null 2>&1", th_dir(),
		 strrchr(inst, '/') + 1, dat);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "trace-cmd extract");

	cr_assert_eq(opts__defaults(importer_tracecmd.opts, opts, err, sizeof(err)), 0);
	cr_assert_eq(opts__set(importer_tracecmd.opts, opts, "device", loopdev, err, sizeof(err)), 0, "%s", err);
	sink = import_sink__new();
	cr_assert_not_null(sink);
	files[0] = dat;
	cr_assert_eq(importer_tracecmd.run(opts, files, 1, sink, err, sizeof(err)), 0, "%s", err);
	vb = calloc(import_sink__count(sink) + 1, sizeof(*vb));
	cr_assert_not_null(vb);
	nb = (size_t)import_sink__read(sink, 0, vb, import_sink__count(sink));
	va = read_all(rec, &na);
	for (unsigned kind = TS_FREE; kind <= TS_INTENT; kind += TS_INTENT - TS_FREE) {
		size_t ka, kb;
		struct key4 *a = collect(va, na, kind, &ka), *b = collect(vb, nb, kind, &kb);

		cr_assert_gt(ka, 0, "%s: recorder saw kind %u", p->fs, kind);
		cr_assert_eq(kb, ka, "%s: kind %u: import %zu, recorder %zu", p->fs, kind, kb, ka);
		for (size_t i = 0; i < ka; i++)
			cr_assert(!memcmp(&a[i], &b[i], sizeof(a[i])),
				  "%s kind %u #%zu: recorder %llu+%llu ino %llu flags %#llx, import %llu+%llu ino %llu flags %#llx",
				  p->fs, kind, i, (unsigned long long)a[i].a, (unsigned long long)a[i].b,
				  (unsigned long long)a[i].c, (unsigned long long)a[i].d, (unsigned long long)b[i].a,
				  (unsigned long long)b[i].b, (unsigned long long)b[i].c, (unsigned long long)b[i].d);
		free(a);
		free(b);
	}
	free(va);
	free(vb);
	import_sink__free(sink);
}
