// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim record on live filesystems (root, loop devices): XFS, ext4 and btrfs
 * mounted -o discard, the workload of issue 3, checked from the trace alone.
 */
#include "tests/live/record_fixture.h"

static void setup_xfs(void) { fix_up("xfs", 512); }
static void setup_ext4(void) { fix_up("ext4", 512); }
static void setup_btrfs(void) { fix_up("btrfs", 512); }
static void setup_ext4_bigalloc(void) { fix_up("ext4-bigalloc", 256); }
static void setup_xfs_part(void) { fix_up_partition("xfs", 512); }
static void setup_ext4_part(void) { fix_up_partition("ext4", 512); }

/*
 * XFS: xfs_discard_extents() issues one __blkdev_issue_discard() per busy
 * extent, right after trace_xfs_discard_extent() (fs/xfs/xfs_discard.c), so
 * every INTENT has a BIO with the same device bytes.
 */
/* XFS: every INTENT has a BIO of the same device bytes (both sorted by summarize()). */
static void expect_intents_are_bios(const struct trace_sum *s)
{
	cr_expect_eq(s->kind[TS_INTENT].count, s->kind[TS_BIO].count, "INTENT %" PRIu64 " BIO %" PRIu64,
		     s->kind[TS_INTENT].count, s->kind[TS_BIO].count);
	for (size_t i = 0; i < s->nintent && i < s->nbio; i++)
		if (s->intent[i].offset != s->bio[i].offset || s->intent[i].length != s->bio[i].length) {
			cr_expect_fail("INTENT %" PRIu64 "+%" PRIu64 " has no BIO (nearest %" PRIu64 "+%" PRIu64 ")",
				       s->intent[i].offset, s->intent[i].length, s->bio[i].offset, s->bio[i].length);
			break;
		}
}

/* Records the whole workload (create, then remove) with extra record options; summarized and checked. */
static void record_workload(const char *name, const char *extra, struct trace_sum *s)
{
	char out[256], script[1024], *err = NULL;
	int rc;

	snprintf(out, sizeof(out), "%s/%s.tsim", fx.dir, name);
	snprintf(script, sizeof(script), WL_CREATE "; " WL_REMOVE, fx.mnt);
	rc = record(out, extra, script, &err);
	cr_assert_eq(rc, 0, "record failed (%d): %s", rc, err ? err : "");
	free(err);
	summarize(out, fx.dev, s);
	print_sum(name, s);
	assert_common(s);
}

Test(record, xfs_intent_matches_bio, .init = setup_xfs, .fini = fix_down, .timeout = 120)
{
	struct trace_sum s;
	int64_t rem;

	record_workload("xfs", "", &s);
	cr_expect(s.kind[TS_FREE].count >= 3000, "FREE %" PRIu64, s.kind[TS_FREE].count);
	cr_expect(s.kind[TS_ALLOC].count >= 3000, "ALLOC %" PRIu64, s.kind[TS_ALLOC].count);
	cr_expect(s.kind[TS_INTENT].count > 0);
	cr_expect_eq(s.kind[TS_INTENT].bytes, s.kind[TS_BIO].bytes);
	cr_expect(s.fitrim > 0, "fstrim's INTENTs are not flagged FITRIM");
	/* the log worker's online discards are not the command's; fstrim's, in its own task, are */
	cr_expect_eq(s.workload, s.fitrim, "BIOs flagged workload %" PRIu64 ", FITRIM INTENTs %" PRIu64,
		     s.workload, s.fitrim);
	expect_intents_are_bios(&s);
	cr_expect_eq(s.issue[TS_OP_DISCARD].bytes, s.kind[TS_BIO].bytes,
		     "discard ISSUE bytes differ from BIO bytes");
	cr_expect(s.snap_start > 0 && s.snap_end > 0, "no GETFSMAP snapshots");
	cr_expect(llabs((long long)(balance_remainder(&s, &rem) * 1e6)) <= 10000,
		  "end snapshot != start + FREE - ALLOC: remainder %" PRId64 " B", rem);
	cr_expect_eq(s.st.lost + s.lost_meta, 0, "events lost with the default ring buffer");
	sum_free(&s);
}

/*
 * The files of WL_CREATE made, then removed by script (a format taking the mount point) while
 * recording into name: s sums the trace (checked by assert_common()); returns the bytes statfs
 * saw go free.
 */
static double record_removal(const char *name, const char *script_fmt, struct trace_sum *s)
{
	char out[256], script[1024], cmd[1024], *err = NULL;
	struct statfs before, after;
	int rc;

	snprintf(cmd, sizeof(cmd), WL_CREATE, fx.mnt);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "creating files failed");
	cr_assert_eq(statfs(fx.mnt, &before), 0);
	snprintf(out, sizeof(out), "%s/%s.tsim", fx.dir, name);
	snprintf(script, sizeof(script), script_fmt, fx.mnt);
	rc = record(out, "", script, &err);
	cr_assert_eq(rc, 0, "record failed (%d): %s", rc, err ? err : "");
	free(err);
	cr_assert_eq(statfs(fx.mnt, &after), 0);
	summarize(out, fx.dev, s);
	print_sum(name, s);
	assert_common(s);
	return ((double)after.f_bfree - (double)before.f_bfree) * (double)before.f_bsize;
}

/*
 * ext4: with -o discard, ext4_discard_work() trims the freed ranges through
 * ext4_try_to_trim_range() -> ext4_trim_extent() (fs/ext4/mballoc.c), one
 * discard bio each; FITRIM takes the same path.
 */
Test(record, ext4_intent_matches_issue, .init = setup_ext4, .fini = fix_down, .timeout = 120)
{
	struct trace_sum s;
	double freed = record_removal("ext4", WL_REMOVE, &s), diff;
	int64_t rem;

	cr_expect(s.kind[TS_INTENT].count > 0);
	cr_expect_eq(s.kind[TS_INTENT].count, s.issue[TS_OP_DISCARD].count,
		     "INTENT %" PRIu64 " != discard ISSUE %" PRIu64, s.kind[TS_INTENT].count,
		     s.issue[TS_OP_DISCARD].count);
	/* ext4_discard_work()'s online discards are a kworker's; fstrim's (ext4_trim_extent()) the command's */
	cr_expect(s.fitrim > 0, "fstrim's INTENTs are not flagged FITRIM");
	cr_expect_eq(s.workload, s.fitrim, "BIOs flagged workload %" PRIu64 ", FITRIM INTENTs %" PRIu64,
		     s.workload, s.fitrim);
	diff = (double)s.kind[TS_FREE].bytes - freed;
	fprintf(stderr, "ext4: FREE %" PRIu64 " B, statfs change %.0f B\n", s.kind[TS_FREE].bytes, freed);
	cr_expect(freed > 0 && diff <= 0.02 * freed && diff >= -0.02 * freed,
		  "FREE bytes %" PRIu64 " vs statfs %.0f: more than 2%% apart", s.kind[TS_FREE].bytes, freed);
	cr_expect(llabs((long long)(balance_remainder(&s, &rem) * 1e6)) <= 10000,
		  "remainder %" PRId64 " B", rem);
	sum_free(&s);
}

/*
 * ext4 bigalloc (16 KiB clusters): ext4_free_blocks() frees whole clusters, rounding the
 * range its tracepoint shows in or out at each end (fs/ext4/mballoc.c); the FREE records
 * are what it freed, so each is whole clusters and they add up to what statfs saw go free.
 * The free-space balance holds too: the recorder settles until no discard is in flight
 * (ext4 -o discard marks blocks free once their discard is done; rm; sync returns before).
 */
Test(record, ext4_bigalloc_frees_whole_clusters, .init = setup_ext4_bigalloc, .fini = fix_down, .timeout = 120)
{
	struct trace_sum s;
	double freed = record_removal("ext4-bigalloc", "rm -rf %s/d; sync", &s);
	int64_t rem;

	fprintf(stderr, "ext4 bigalloc: FREE %" PRIu64 " B, statfs change %.0f B\n", s.kind[TS_FREE].bytes, freed);
	cr_expect(s.kind[TS_FREE].count > 0);
	cr_expect_eq(s.free_bits & 16383, 0, "a FREE record is not whole 16 KiB clusters (bits 0x%llx)",
		     (unsigned long long)(s.free_bits & 16383));
	cr_expect(freed > 0 && (double)s.kind[TS_FREE].bytes <= 1.02 * freed &&
		  (double)s.kind[TS_FREE].bytes >= 0.98 * freed,
		  "FREE bytes %" PRIu64 " vs statfs %.0f: more than 2%% apart", s.kind[TS_FREE].bytes, freed);
	cr_expect(llabs((long long)(balance_remainder(&s, &rem) * 1e6)) <= 10000, "remainder %" PRId64 " B", rem);
	sum_free(&s);
}

/* btrfs has no fs-level discard tracepoint: the block layer still shows its discards. */
Test(record, btrfs_discards_at_the_device, .init = setup_btrfs, .fini = fix_down, .timeout = 120)
{
	struct trace_sum s;

	record_workload("btrfs", "", &s);
	cr_expect(s.issue[TS_OP_DISCARD].count > 0, "no discard ISSUE");
	cr_expect(s.done[TS_OP_DISCARD].count > 0, "no discard DONE");
	cr_expect_eq(s.kind[TS_FREE].count + s.kind[TS_INTENT].count, 0, "btrfs has no fs events");
	/*
	 * discard=sync: the command's sync(2) commits, and the commit discards the pinned extents in
	 * its task (btrfs_finish_extent_commit() -> btrfs_discard_extent()); its fstrim too
	 */
	cr_expect(s.workload > 0, "none of %" PRIu64 " BIOs is flagged workload", s.kind[TS_BIO].count);
	fprintf(stderr, "btrfs: %" PRIu64 " of %" PRIu64 " BIOs flagged workload\n", s.workload, s.kind[TS_BIO].count);
	sum_free(&s);
}

/*
 * A filesystem on a partition (1 MiB in, as on a real disk): the filesystems' tracepoints give
 * blocks relative to the partition, the block layer's sectors are on the whole disk after the
 * remap. The trace names the partition (its dev_t, start 1 MiB in the header) and puts every
 * offset on the whole device (FORMAT.md), so each record lies within the partition, XFS's
 * INTENTs still match their BIOs byte for byte, ext4's match its discard commands in number, and
 * the free-space balance (GETFSMAP snapshots, partition-relative in the kernel) holds.
 */
static void record_on_partition(const char *name, struct trace_sum *s)
{
	const struct ts_device *devs, *d = NULL;
	struct trace_reader *r;
	struct ts_record rec;
	char path[256], err[256];
	uint64_t outside = 0;
	size_t n;
	int64_t rem;

	record_removal(name, WL_REMOVE, s);
	snprintf(path, sizeof(path), "%s/%s.tsim", fx.dir, name);
	cr_assert(r = trace_reader__open(path, err, sizeof(err)), "%s", err);
	devs = trace_reader__devices(r, &n);
	for (size_t i = 0; i < n; i++)
		if (devs[i].dev == fx.dev)
			d = &devs[i];
	cr_assert_not_null(d, "the partition %s is not in the header", fx.node);
	cr_expect_eq(d->partition_start, FIX_PART_START, "partition start %" PRIu64, d->partition_start);
	cr_expect_str_eq(d->name, strrchr(fx.node, '/') + 1);
	while (trace_reader__next(r, &rec) == 1)
		if (rec.dev == fx.dev && rec.kind != TS_META && rec.length &&
		    (rec.offset < d->partition_start || rec.offset + rec.length > d->partition_start + d->size))
			outside++;
	trace_reader__close(r);
	cr_expect_eq(outside, 0, "%" PRIu64 " records outside the partition [%" PRIu64 ", +%" PRIu64 ")",
		     outside, d->partition_start, d->size);
	cr_expect(s->kind[TS_FREE].count > 0 && s->kind[TS_INTENT].count > 0);
	cr_expect(llabs((long long)(balance_remainder(s, &rem) * 1e6)) <= 10000, "remainder %" PRId64 " B", rem);
}

Test(record, xfs_on_a_partition, .init = setup_xfs_part, .fini = fix_down, .timeout = 120)
{
	struct trace_sum s;

	record_on_partition("xfs-part", &s);
	expect_intents_are_bios(&s);
	sum_free(&s);
}

Test(record, ext4_on_a_partition, .init = setup_ext4_part, .fini = fix_down, .timeout = 120)
{
	struct trace_sum s;

	record_on_partition("ext4-part", &s);
	cr_expect_eq(s.kind[TS_INTENT].count, s.issue[TS_OP_DISCARD].count);
	sum_free(&s);
}

/*
 * The tracefs backend on a partition keeps the disk's flushes, as the eBPF backend does: a flush
 * has no position (sector 0 at issue, -1 at completion), and the disk's sector 0 lay outside
 * the partition, so it dropped every one (0 flushes where eBPF recorded 8 for three sync -f).
 */
Test(record, tracefs_keeps_a_partitions_flushes, .init = setup_xfs_part, .fini = fix_down, .timeout = 120)
{
	char out[256], script[512], *err = NULL;
	struct trace_sum s;
	int rc;

	snprintf(out, sizeof(out), "%s/flush.tsim", fx.dir);
	snprintf(script, sizeof(script), "for i in 1 2 3; do echo x > %1$s/f$i; sync -f %1$s; done", fx.mnt);
	rc = record(out, "--backend tracefs", script, &err);
	cr_assert_eq(rc, 0, "record failed (%d): %s", rc, err ? err : "");
	free(err);
	summarize(out, fx.dev, &s);
	print_sum("xfs-part tracefs", &s);
	assert_common(&s);
	cr_expect_geq(s.issue[TS_OP_FLUSH].count, 3, "flush ISSUE %" PRIu64 " for three sync -f", s.issue[TS_OP_FLUSH].count);
	cr_expect_eq(s.done[TS_OP_FLUSH].count, s.issue[TS_OP_FLUSH].count);
	sum_free(&s);
}

/*
 * The tracefs backend follows the command's threads as eBPF does (sched_process_fork in time
 * order, tracer/tracefs.c): on XFS fstrim's discards are the command's, the log worker's not.
 */
Test(record, tracefs_flags_the_commands_discards, .init = setup_xfs, .fini = fix_down, .timeout = 120)
{
	struct trace_sum s;

	record_workload("xfs-tracefs", "--backend tracefs", &s);
	cr_expect(s.fitrim > 0 && s.kind[TS_BIO].count > s.fitrim, "FITRIM INTENTs %" PRIu64 ", BIOs %" PRIu64,
		  s.fitrim, s.kind[TS_BIO].count);
	cr_expect_eq(s.workload, s.fitrim, "BIOs flagged workload %" PRIu64 ", FITRIM INTENTs %" PRIu64,
		     s.workload, s.fitrim);
	sum_free(&s);
}
