/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live recording fixtures: a loop device of our own with a filesystem mounted
 * -o discard, the workload of issue 3, and a per-kind summary of a trace.
 * Teardown always unmounts and detaches what setup created (Criterion runs
 * .fini after a failed assertion too).
 */
#ifndef TRIMSIM_TEST_RECORD_FIXTURE_H
#define TRIMSIM_TEST_RECORD_FIXTURE_H

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "traces/trace.h"

struct fsfix {
	char dir[128];
	char loop[64];
	char node[72];		/* what the filesystem is on: the loop device or its partition */
	char mnt[192];
	uint32_t dev;		/* kernel dev_t of node, which the trace's records name */
	bool attached, mounted;
};

static struct fsfix fx;

static void fix_skip_unless_live(void)
{
	const char *why = th_live_skip_reason();

	if (why)
		cr_skip_test("%s", why);
}

/* A loop device (losetup flags) over a sparse file of size_mb. */
static void fix_attach(unsigned size_mb, const char *flags)
{
	char cmd[1024], *out = NULL;
	int rc;

	fix_skip_unless_live();
	memset(&fx, 0, sizeof(fx));
	th_dir_init();
	snprintf(fx.dir, sizeof(fx.dir), "%s", th_dir());
	snprintf(fx.mnt, sizeof(fx.mnt), "%s/mnt", fx.dir);
	snprintf(cmd, sizeof(cmd), "truncate -s %uM %s/img && mkdir %s && losetup -f --show %s %s/img",
		 size_mb, fx.dir, fx.mnt, flags, fx.dir);
	rc = th_run(cmd, &out, NULL);
	cr_assert(rc == 0 && out && !strncmp(out, "/dev/loop", 9), "losetup failed (%d)", rc);
	snprintf(fx.loop, sizeof(fx.loop), "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	fx.attached = true;
}

/* mkfs on node, mount -o discard; fx.dev is node's. */
static void fix_mkfs(const char *fs, const char *node)
{
	char cmd[1024];
	struct stat st;
	int rc;

	snprintf(fx.node, sizeof(fx.node), "%s", node);
	cr_assert(stat(fx.node, &st) == 0, "%s", fx.node);
	fx.dev = TS_DEV_MK(major(st.st_rdev), minor(st.st_rdev));
	snprintf(cmd, sizeof(cmd), "%s %s && mount -o discard %s %s",
		 !strcmp(fs, "xfs") ? "mkfs.xfs -q -f" : !strcmp(fs, "ext4") ? "mkfs.ext4 -q -F"
			: !strcmp(fs, "ext4-bigalloc") ? "mkfs.ext4 -q -F -O bigalloc -C 16k" : "mkfs.btrfs -q -f",
		 fx.node, fx.node, fx.mnt);
	rc = th_run(cmd, NULL, NULL);
	cr_assert_eq(rc, 0, "mkfs/mount %s on %s failed", fs, fx.node);
	fx.mounted = true;
}

/* Loop device over a sparse file, mkfs, mount -o discard. */
static void fix_up(const char *fs, unsigned size_mb)
{
	fix_attach(size_mb, "");
	fix_mkfs(fs, fx.loop);
}

#define FIX_PART_START	(1ull << 20)	/* partition 1 from sector 2048, as fdisk puts it */

/*
 * The same with the filesystem on partition 1 of the loop device, from 1 MiB to the end (a
 * real disk's layout): losetup -P, and BLKPG (addpart) where the kernel has no partition
 * table parser to make it (this VM's), so the partition is the kernel's own either way.
 */
static inline void fix_up_partition(const char *fs, unsigned size_mb)
{
	char cmd[1024], part[80];
	int i;

	fix_attach(size_mb, "-P");
	snprintf(part, sizeof(part), "%sp1", fx.loop);
	snprintf(cmd, sizeof(cmd), "addpart %s 1 %llu %llu", fx.loop, FIX_PART_START / 512,
		 ((unsigned long long)size_mb << 20) / 512 - FIX_PART_START / 512);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	for (i = 0; i < 500 && access(part, F_OK); i++)
		usleep(10000);
	fix_mkfs(fs, part);
}

static void fix_down(void)
{
	char cmd[512];

	if (fx.mounted) {
		snprintf(cmd, sizeof(cmd), "umount %s || umount -l %s", fx.mnt, fx.mnt);
		if (th_run(cmd, NULL, NULL))
			fprintf(stderr, "warning: could not unmount %s\n", fx.mnt);
	}
	if (fx.attached) {
		snprintf(cmd, sizeof(cmd), "losetup -d %s", fx.loop);
		if (th_run(cmd, NULL, NULL))
			fprintf(stderr, "warning: could not detach %s\n", fx.loop);
	}
	th_dir_fini();
	memset(&fx, 0, sizeof(fx));
}

/*
 * Shell snippets of the workload: a few thousand small files, rm -rf, fstrim. Each file is
 * written by the shell's builtin printf (N spaces), not one process per file: the filesystem
 * sees the same sizes, and 3000 forks were most of a live record test's time.
 */
#define WL_CREATE "mkdir %1$s/d && i=0 && while [ $i -lt 3000 ]; do " \
	"printf %%$((i %% 7 * 3000 + 100))s \"\" > %1$s/d/f$i; i=$((i+1)); done; sync"
#define WL_REMOVE "rm -rf %1$s/d; sync; fstrim %1$s; sync"

/* Runs trimsim record with extra args over sh -c script; returns its exit status. */
static int record(const char *out, const char *extra, const char *script, char **err)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "%s record -o %s -m %s %s -- sh -c '%s'",
		 th_trimsim(), out, fx.mnt, extra, script);
	return th_run(cmd, NULL, err);
}

struct kind_sum {
	uint64_t count, bytes;
};

struct trace_sum {
	struct kind_sum kind[TS_KIND_MAX + 1];
	struct kind_sum issue[TS_OP_MAX + 1], done[TS_OP_MAX + 1];
	uint64_t snap_start, snap_end;	/* free bytes */
	uint64_t lost_meta;		/* sum of META_LOST lengths */
	uint64_t foreign;		/* records naming another device */
	uint64_t unpaired, no_latency;	/* DONE without an outstanding ISSUE / latency */
	uint64_t lat_off;		/* DONE (not a flush) whose latency is not its time less its ISSUE's */
	uint64_t fitrim;		/* INTENTs flagged FITRIM */
	uint64_t workload;		/* BIOs flagged workload: submitted by the recorded command's tasks */
	uint64_t free_bits;		/* every FREE offset and length ORed: their common alignment */
	uint64_t max_back;		/* largest step back in time between records, ns */
	struct trace_status st;
	uint64_t fs_size;
	struct ts_record *intent, *bio;	/* for one-to-one matching */
	size_t nintent, nbio;
};

static int rec_cmp(const void *a, const void *b)
{
	const struct ts_record *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->length < y->length ? -1 : x->length > y->length;
}

#define MAX_OUT 4096

static void add_rec(struct ts_record **v, size_t *n, const struct ts_record *r)
{
	if (!(*n & (*n - 1)) || !*n) {
		*v = realloc(*v, (*n ? *n * 2 : 64) * sizeof(**v));
		cr_assert(*v);
	}
	(*v)[(*n)++] = *r;
}

/* Reads a whole trace; everything about device dev. */
static void summarize(const char *path, uint32_t dev, struct trace_sum *s)
{
	struct { uint64_t off, t; uint8_t op; bool used; } out[MAX_OUT];
	size_t nout = 0, ndev;
	const struct ts_device *devs;
	struct trace_reader *r;
	struct ts_record rec;
	char err[256];
	int rc;

	memset(s, 0, sizeof(*s));
	r = trace_reader__open(path, err, sizeof(err));
	cr_assert(r, "%s", err);
	devs = trace_reader__devices(r, &ndev);
	cr_assert(ndev >= 1, "no device table in %s", path);
	for (size_t i = 0; i < ndev; i++)
		if (devs[i].dev == dev)
			s->fs_size = devs[i].size;
	for (uint64_t last = 0; (rc = trace_reader__next(r, &rec)) == 1; last = rec.time_ns > last ? rec.time_ns : last) {
		if (rec.time_ns < last && last - rec.time_ns > s->max_back)
			s->max_back = last - rec.time_ns;
		if (rec.dev != dev && !(rec.kind == TS_META && rec.dev == 0)) {
			s->foreign++;
			continue;
		}
		s->kind[rec.kind].count++;
		s->kind[rec.kind].bytes += rec.kind == TS_META ? 0 : rec.length;
		if (rec.kind == TS_FREE)
			s->free_bits |= rec.offset | rec.length;
		if (rec.kind == TS_INTENT) {
			add_rec(&s->intent, &s->nintent, &rec);
			s->fitrim += !!(rec.flags & TS_F_FITRIM);
		} else if (rec.kind == TS_BIO) {
			add_rec(&s->bio, &s->nbio, &rec);
			s->workload += !!(rec.flags & TS_F_WORKLOAD);
		} else if (rec.kind == TS_ISSUE) {
			s->issue[rec.op].count++;
			s->issue[rec.op].bytes += rec.length;
			cr_assert(nout < MAX_OUT, "too many outstanding requests");
			out[nout].off = rec.offset;
			out[nout].t = rec.time_ns;
			out[nout].op = rec.op;
			out[nout++].used = false;
		} else if (rec.kind == TS_DONE) {
			size_t i;

			s->done[rec.op].count++;
			s->done[rec.op].bytes += rec.length;
			s->no_latency += rec.latency_ns == 0;
			for (i = 0; i < nout && (out[i].used || out[i].off != rec.offset ||
						 out[i].op != rec.op); i++)
				;
			if (i == nout) {
				s->unpaired++;
			} else {
				out[i].used = true;
				/* flushes all sit at offset 0: one may pair with another's ISSUE */
				s->lat_off += rec.op != TS_OP_FLUSH && rec.latency_ns != rec.time_ns - out[i].t;
			}
			if (i < nout && nout > MAX_OUT / 2) {	/* compact */
				size_t k = 0;

				for (size_t j = 0; j < nout; j++)
					if (!out[j].used)
						out[k++] = out[j];
				nout = k;
			}
		} else if (rec.kind == TS_META && rec.op == TS_META_FREESPACE) {
			if (rec.flags & TS_F_SNAP_END)
				s->snap_end += rec.length;
			else
				s->snap_start += rec.length;
		} else if (rec.kind == TS_META && rec.op == TS_META_LOST) {
			s->lost_meta += rec.length;
		}
	}
	cr_assert_eq(rc, 0, "%s: %s", path, trace_reader__error(r));
	s->st = *trace_reader__status(r);
	trace_reader__close(r);
	if (s->nintent)
		qsort(s->intent, s->nintent, sizeof(*s->intent), rec_cmp);
	if (s->nbio)
		qsort(s->bio, s->nbio, sizeof(*s->bio), rec_cmp);
}

static void sum_free(struct trace_sum *s)
{
	free(s->intent);
	free(s->bio);
}

/* end snapshot - (start + FREE - ALLOC), as a fraction of the filesystem size. */
static double balance_remainder(const struct trace_sum *s, int64_t *bytes)
{
	*bytes = (int64_t)s->snap_end - ((int64_t)s->snap_start + (int64_t)s->kind[TS_FREE].bytes -
					 (int64_t)s->kind[TS_ALLOC].bytes);
	return s->fs_size ? (double)*bytes / (double)s->fs_size : 1.0;
}

static void print_sum(const char *what, const struct trace_sum *s)
{
	int64_t rem;
	double f = balance_remainder(s, &rem);

	fprintf(stderr, "%s: FREE %" PRIu64 " (%" PRIu64 " B), ALLOC %" PRIu64 " (%" PRIu64 " B), "
		"INTENT %" PRIu64 " (%" PRIu64 " B, %" PRIu64 " FITRIM), BIO %" PRIu64 " (%" PRIu64 " B), "
		"discard ISSUE %" PRIu64 " DONE %" PRIu64 " (%" PRIu64 " B), flush ISSUE %" PRIu64
		", lost %" PRIu64 ", free-space remainder %" PRId64 " B (%.4f%%)\n",
		what, s->kind[TS_FREE].count, s->kind[TS_FREE].bytes, s->kind[TS_ALLOC].count,
		s->kind[TS_ALLOC].bytes, s->kind[TS_INTENT].count, s->kind[TS_INTENT].bytes, s->fitrim,
		s->kind[TS_BIO].count, s->kind[TS_BIO].bytes, s->issue[TS_OP_DISCARD].count,
		s->done[TS_OP_DISCARD].count, s->done[TS_OP_DISCARD].bytes, s->issue[TS_OP_FLUSH].count,
		s->st.lost + s->lost_meta, rem, f * 100);
}

/* Every trace must pass these, whatever the filesystem. */
static void assert_common(const struct trace_sum *s)
{
	cr_expect(s->st.footer, "trace has no footer");
	cr_expect_eq(s->foreign, 0, "%" PRIu64 " records name a device outside the filter", s->foreign);
	cr_expect_eq(s->unpaired, 0, "%" PRIu64 " DONE records pair with no ISSUE", s->unpaired);
	cr_expect_eq(s->no_latency, 0, "%" PRIu64 " DONE records without a latency", s->no_latency);
	cr_expect_eq(s->lat_off, 0, "%" PRIu64 " DONE records whose latency is not the time since their ISSUE",
		     s->lat_off);
	cr_expect(s->kind[TS_DONE].count > 0, "no DONE records");
	/* records in time order: events race in the ring buffer, the recorder's hold sorts them (record.c hold()) */
	cr_expect_eq(s->max_back, 0, "a record steps back %" PRIu64 " ns in time", s->max_back);
}

#endif
