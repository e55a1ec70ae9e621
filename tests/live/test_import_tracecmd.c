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
#include <inttypes.h>
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

/* Enables event for device devt, and devt2 too unless 0 (a partition and its disk). */
static void enable(const char *event, unsigned devt, unsigned devt2)
{
	char path[512], filter[256];
	unsigned d[2] = { devt, devt2 ? devt2 : devt };

	snprintf(path, sizeof(path), "%s/events/%s/filter", inst, event);
	snprintf(filter, sizeof(filter), "dev == %u || dev == %u", d[0], d[1]);
	/* ext4_trim_extent has dev_major/dev_minor, not dev */
	if (strstr(event, "trim_extent"))
		snprintf(filter, sizeof(filter), "(dev_major == %u && dev_minor == %u) || (dev_major == %u && dev_minor == %u)",
			 d[0] >> 20, d[0] & 0xfffff, d[1] >> 20, d[1] & 0xfffff);
	write_file(path, filter);
	snprintf(path, sizeof(path), "%s/events/%s/enable", inst, event);
	write_file(path, "1");
}

/*
 * Our own tracefs instance (inst, named by tag), on the trace clock mono, buffer_kb a CPU
 * (0: the default), the events enabled for devt (and devt2: a partition and its disk), tracing on.
 */
static void instance_on(const char *tag, const char *const *events, size_t n, unsigned devt, unsigned devt2,
			unsigned buffer_kb)
{
	char path[512], kb[16];

	snprintf(inst, sizeof(inst), TRACEFS "/instances/trimsim_%s_%d", tag, (int)getpid());
	cr_assert_eq(mkdir(inst, 0755), 0, "instance %s", inst);
	snprintf(path, sizeof(path), "%s/trace_clock", inst);
	write_file(path, "mono");
	if (buffer_kb) {
		snprintf(path, sizeof(path), "%s/buffer_size_kb", inst);
		snprintf(kb, sizeof(kb), "%u", buffer_kb);
		write_file(path, kb);
	}
	for (size_t i = 0; i < n; i++)
		enable(events[i], devt, devt2);
	snprintf(path, sizeof(path), "%s/tracing_on", inst);
	write_file(path, "1");
}

/* Tracing off, and the instance's buffers written to dat (th_dir()/t.dat) by trace-cmd extract. */
static void instance_extract(char *dat, size_t len)
{
	char path[512], cmd[2048];

	snprintf(path, sizeof(path), "%s/tracing_on", inst);
	write_file(path, "0");
	snprintf(dat, len, "%s/t.dat", th_dir());
	snprintf(cmd, sizeof(cmd), "cd '%s' && trace-cmd extract -B '%s' -o '%s' >/dev/null 2>&1", th_dir(),
		 strrchr(inst, '/') + 1, dat);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "trace-cmd extract");
}

/* mkfs on node, mounted -o discard on th_dir()/mnt, with the tree the recorder tests remove (t/1..6, 50 files each). */
static void make_tree(const char *mkfs, const char *node)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "%s '%s' && mount -o discard '%s' '%s/mnt' && cd '%s/mnt' && mkdir t && for d in 1 2 3 4 5 6; do "
		 "mkdir t/$d; for f in $(seq 1 50); do head -c $((f * 3000 + d * 700)) /dev/zero > t/$d/$f; done; done "
		 "&& sync -f .", mkfs, node, node, th_dir(), th_dir());
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	mounted = true;
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
/* Lines of event ev (" ext4_trim_extent: ") that fstrim's own task traced. */
static size_t fstrim_trims(const char *report, const char *ev)
{
	size_t n = 0;

	for (const char *p = report; (p = strstr(p, ev)); p++) {
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
	instance_on("impexp", events, sizeof(events) / sizeof(events[0]), devt, 0, 0);

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
	instance_extract(dat, sizeof(dat));
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
	/* ext4: ext4_trim_extent announces its FITRIM extents; XFS: xfs_discard_extent traces them in fstrim's task */
	cr_assert_eq(fitrim, fstrim_trims(report, !strcmp(p->fs, "xfs") ? " xfs_discard_extent: " : " ext4_trim_extent: "),
		     "FITRIM INTENTs are the extents fstrim's own task trimmed");
	cr_assert_gt(fitrim, 0, "the workload's fstrim trimmed");
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
	char dat[512], rec[512], cmd[2048], opts[512] = { 0 }, err[512] = "", *out = NULL, *files[1];
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
	make_tree(p->mkfs, loopdev);
	instance_on("impexp2", events, sizeof(events) / sizeof(events[0]), devt, 0, 8192);
	snprintf(rec, sizeof(rec), "%s/rec.tsim", th_dir());
	snprintf(cmd, sizeof(cmd),
		 "'%s' record -d '%s' -o '%s' -- sh -c 'rm -rf %s/mnt/t && sync -f %s/mnt && sleep 2 && sync -f %s/mnt'",
		 th_trimsim(), loopdev, rec, th_dir(), th_dir(), th_dir());
	cr_assert_eq(th_run(cmd, NULL, &out), 0, "record: %s", out);
	free(out);
	instance_extract(dat, sizeof(dat));
	cr_assert_eq(sh("umount '%s/mnt'%s%s", th_dir(), "", ""), 0);
	mounted = false;

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

/*
 * A filesystem on a partition 1 MiB into the loop device (losetup -P, then BLKPG through addpart:
 * this VM's kernel has no partition table parser), recorded by `trimsim record` and a tracefs
 * instance at once. The filesystem's events name the partition, the block layer's the whole
 * disk (traces/import/tcpart.c); the import must hold what the recorder holds: one device, the
 * partition, with its start, every record on it, the same FREE and INTENT records, the same
 * discard bios. With --device and with --partition-start plus the recorder's geometry alike;
 * with neither, one line naming both options, exit 1, nothing written. Before the fix the
 * block records stayed on the disk's dev_t (two devices) and, with neither option, every fs
 * offset was 1 MiB short without a word.
 */
#define PART_START (1ull << 20)

static void import_opts(const char *key, const char *val, char *opts, struct import_sink **sink, const char *dat)
{
	char err[512] = "", *files[1] = { (char *)dat };

	if (key) {
		cr_assert_eq(opts__set(importer_tracecmd.opts, opts, key, val, err, sizeof(err)), 0, "%s", err);
		return;
	}
	*sink = import_sink__new();
	cr_assert_not_null(*sink);
	cr_assert_eq(importer_tracecmd.run(opts, files, 1, *sink, err, sizeof(err)), 0, "%s", err);
}

static uint64_t bio_bytes_of(const struct ts_record *v, size_t n, uint64_t *count)
{
	uint64_t b = 0;

	*count = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].kind == TS_BIO) {
			b += v[i].length;
			++*count;
		}
	return b;
}

/* The import against the recorder's trace va[na]: one device, the partition, and the same records, flags included. */
static void expect_as_recorded(const char *how, struct import_sink *sink, const struct ts_record *va, size_t na,
			       uint32_t part, uint64_t part_size)
{
	size_t nd, nb;
	const struct ts_device *d = import_sink__devices(sink, &nd);
	struct ts_record *vb = calloc(import_sink__count(sink) + 1, sizeof(*vb));
	uint64_t ca, cb, off = 0, elsewhere = 0;

	cr_assert_not_null(vb);
	cr_expect_eq(nd, 1, "%s: %zu devices, the recorder's trace has one", how, nd);
	cr_assert_geq(nd, 1);
	cr_expect_eq(d[0].dev, part, "%s: the device is the partition", how);
	cr_expect_eq(d[0].partition_start, PART_START, "%s: partition_start %" PRIu64, how, d[0].partition_start);
	nb = (size_t)import_sink__read(sink, 0, vb, import_sink__count(sink));
	for (size_t i = 0; i < nb; i++) {
		if (vb[i].kind == TS_META && vb[i].op == TS_META_LOST)
			continue;
		elsewhere += vb[i].dev != part;
		if (vb[i].length && (vb[i].offset < PART_START || vb[i].offset + vb[i].length > PART_START + part_size))
			off++;
	}
	cr_expect_eq(elsewhere, 0, "%s: %" PRIu64 " records name another device", how, elsewhere);
	cr_expect_eq(off, 0, "%s: %" PRIu64 " records outside the partition", how, off);
	for (unsigned kind = TS_FREE; kind <= TS_INTENT; kind += TS_INTENT - TS_FREE) {
		size_t ka, kb;
		struct key4 *a = collect((struct ts_record *)va, na, kind, &ka), *b = collect(vb, nb, kind, &kb);

		cr_expect_gt(ka, 0, "%s: recorder saw kind %u", how, kind);
		cr_expect_eq(kb, ka, "%s: kind %u: import %zu, recorder %zu", how, kind, kb, ka);
		for (size_t i = 0; i < ka && i < kb; i++)
			if (memcmp(&a[i], &b[i], sizeof(a[i]))) {
				cr_expect_fail("%s kind %u #%zu: recorder %llu+%llu flags %#llx, import %llu+%llu flags %#llx",
					       how, kind, i, (unsigned long long)a[i].a, (unsigned long long)a[i].b,
					       (unsigned long long)a[i].d, (unsigned long long)b[i].a,
					       (unsigned long long)b[i].b, (unsigned long long)b[i].d);
				break;
			}
		free(a);
		free(b);
	}
	cr_expect_eq(bio_bytes_of(vb, nb, &cb), bio_bytes_of(va, na, &ca), "%s: discard bio bytes", how);
	cr_expect_eq(cb, ca, "%s: discard bios: import %" PRIu64 ", recorder %" PRIu64, how, cb, ca);
	fprintf(stderr, "%s: %zu device(s), FREE %" PRIu64 " INTENT %" PRIu64 " BIO %" PRIu64 " ISSUE %" PRIu64 "\n",
		how, nd, import_sink__kind_count(sink, TS_FREE), import_sink__kind_count(sink, TS_INTENT),
		import_sink__kind_count(sink, TS_BIO), import_sink__kind_count(sink, TS_ISSUE));
	free(vb);
}

ParameterizedTestParameters(tracecmd_live, partition_import_matches_recorder)
{
	static struct fs_case p[] = {
		{ "xfs", "mkfs.xfs -q -f -K", "", "", "", "" },
		{ "ext4", "mkfs.ext4 -q -F -E nodiscard", "", "", "", "" },
	};
	return cr_make_param_array(struct fs_case, p, sizeof(p) / sizeof(p[0]));
}

ParameterizedTest(struct fs_case *p, tracecmd_live, partition_import_matches_recorder, .timeout = 120)
{
	static const char *const events[] = {
		"block/block_bio_queue", "block/block_rq_issue", "block/block_rq_complete",
		"xfs/xfs_free_extent", "xfs/xfs_discard_extent", "ext4/ext4_free_blocks",
		"ext4/ext4_discard_blocks", "ext4/ext4_trim_extent", "jbd2/jbd2_end_commit",
		"xfs/xlog_iclog_callbacks_start",
	};
	const char *skip = th_live_skip_reason();
	char path[512], dat[512], rec[512], part[96], cmd[2048], opts[512] = { 0 }, err[512] = "", num[32];
	char *out = NULL;
	struct import_sink *sink = NULL;
	const struct ts_device *rd;
	struct trace_reader *tr;
	struct ts_record *va;
	struct ts_device recdev;
	size_t na, nrd;
	struct stat st;
	unsigned disk, pdev;
	char msg[1024];
	int rc;

	if (skip)
		cr_skip("%s", skip);
	snprintf(cmd, sizeof(cmd), "'%s' record --help >/dev/null 2>&1", th_trimsim());
	if (!tracefs_ready() || th_run(cmd, NULL, NULL) ||
	    th_run("command -v trace-cmd && command -v mkfs.xfs && command -v addpart", NULL, NULL))
		cr_skip("needs tracefs, trimsim record, trace-cmd, mkfs.xfs and addpart");
	th_dir_init();
	cr_assert_eq(sh("truncate -s 512M '%s/img' && mkdir '%s/mnt'%s", th_dir(), th_dir(), ""), 0);
	snprintf(cmd, sizeof(cmd), "losetup -f --show -P '%s/img'", th_dir());
	cr_assert_eq(th_run(cmd, &out, NULL), 0, "losetup");
	snprintf(loopdev, sizeof(loopdev), "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	snprintf(part, sizeof(part), "%sp1", loopdev);
	snprintf(cmd, sizeof(cmd), "addpart '%s' 1 %llu %llu", loopdev, PART_START / 512, (512ull << 20) / 512 - PART_START / 512);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	for (int i = 0; i < 500 && access(part, F_OK); i++)
		usleep(10000);
	cr_assert_eq(stat(loopdev, &st), 0);
	disk = major(st.st_rdev) << 20 | minor(st.st_rdev);
	cr_assert_eq(stat(part, &st), 0, "%s", part);
	pdev = major(st.st_rdev) << 20 | minor(st.st_rdev);
	make_tree(p->mkfs, part);
	instance_on("impexp3", events, sizeof(events) / sizeof(events[0]), disk, pdev, 8192);
	snprintf(rec, sizeof(rec), "%s/rec.tsim", th_dir());
	snprintf(cmd, sizeof(cmd),
		 "'%s' record -m '%s/mnt' -o '%s' -- sh -c 'rm -rf %s/mnt/t && sync -f %s/mnt && fstrim %s/mnt && sleep 2 "
		 "&& sync -f %s/mnt'", th_trimsim(), th_dir(), rec, th_dir(), th_dir(), th_dir(), th_dir());
	rc = th_run(cmd, NULL, &out);
	snprintf(msg, sizeof(msg), "%s", out ? out : "");
	free(out);
	cr_assert_eq(rc, 0, "record: %s", msg);
	instance_extract(dat, sizeof(dat));
	cr_assert_eq(sh("umount '%s/mnt'%s%s", th_dir(), "", ""), 0);
	mounted = false;

	/* The recorder's trace: one device, the partition, and the geometry for --partition-start. */
	cr_assert_not_null(tr = trace_reader__open(rec, err, sizeof(err)), "%s", err);
	rd = trace_reader__devices(tr, &nrd);
	cr_assert_eq(nrd, 1);
	recdev = rd[0];
	trace_reader__close(tr);
	cr_assert_eq(recdev.dev, pdev);
	cr_assert_eq(recdev.partition_start, PART_START);
	va = read_all(rec, &na);

	/* (a) --device names the partition */
	cr_assert_eq(opts__defaults(importer_tracecmd.opts, opts, err, sizeof(err)), 0);
	import_opts("device", part, opts, NULL, dat);
	import_opts(NULL, NULL, opts, &sink, dat);
	expect_as_recorded("--device", sink, va, na, pdev, recdev.size);
	import_sink__free(sink);

	/* (b) the start and the geometry, no device to read */
	cr_assert_eq(opts__defaults(importer_tracecmd.opts, opts, err, sizeof(err)), 0);
	import_opts("partition_start", "1M", opts, NULL, dat);
	snprintf(num, sizeof(num), "%u", recdev.fs_block_size);
	import_opts("fs_block_size", num, opts, NULL, dat);
	if (recdev.xfs_agblocks) {
		snprintf(num, sizeof(num), "%" PRIu64, recdev.xfs_agblocks);
		import_opts("xfs_agblocks", num, opts, NULL, dat);
	}
	import_opts(NULL, NULL, opts, &sink, dat);
	expect_as_recorded("--partition-start", sink, va, na, pdev, recdev.size);
	import_sink__free(sink);
	free(va);

	/* (c) neither: the start is nowhere in the trace; one line, exit 1, nothing written */
	snprintf(cmd, sizeof(cmd), "'%s' import --from trace-cmd '%s' --fs-block-size %u %s%s -o '%s/nostart.tsim'",
		 th_trimsim(), dat, recdev.fs_block_size, recdev.xfs_agblocks ? "--xfs-agblocks " : "",
		 recdev.xfs_agblocks ? num : "", th_dir());
	rc = th_run(cmd, NULL, &out);
	snprintf(msg, sizeof(msg), "%s", out ? out : "");
	free(out);
	cr_expect_eq(rc, 1, "exit %d: %s", rc, msg);
	cr_expect(strstr(msg, dat) && strstr(msg, "a filesystem on a partition") && strstr(msg, "--device") &&
		  strstr(msg, "--partition-start") && strchr(msg, '\n') == msg + strlen(msg) - 1, "%s", msg);
	snprintf(path, sizeof(path), "%s/nostart.tsim", th_dir());
	cr_expect_neq(access(path, F_OK), 0, "nothing written");
}
