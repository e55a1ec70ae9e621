// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim record without a kernel: rwbs flags (tracefs backend), the
 * translation of raw events to whole-device bytes (recorder), and the CLI's
 * errors. No root needed.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "tracer/recorder.h"

/* ---- rwbs: traces/rwbs.c decodes (tests/traces/test_rwbs.c); the tracer maps its flags to TR_FL_* ---- */

struct rwbs_case {
	char rwbs[12];
	uint64_t sectors;
	uint32_t want;
};

static struct rwbs_case rwbs_cases[] = {
	{ .rwbs = "DS", .sectors = 8, .want = TS_OP_DISCARD | TR_FL_SYNC },		/* ext4's discards */
	{ .rwbs = "NS", .sectors = 2048, .want = TS_OP_WRITE_ZEROES | TR_FL_SYNC },	/* BLKZEROOUT on 6.18 */
	{ .rwbs = "N", .sectors = 0, .want = TS_OP_NONE },
	{ .rwbs = "FF", .sectors = 0, .want = TS_OP_FLUSH | TR_FL_PREFLUSH },		/* blk-mq flush request */
	{ .rwbs = "FWFSM", .sectors = 8, .want = TS_OP_WRITE | TR_FL_PREFLUSH | TR_FL_FUA | TR_FL_SYNC | TR_FL_META },
	{ .rwbs = "ZA", .sectors = 8, .want = TS_OP_NONE },
};

ParameterizedTestParameters(rwbs, decode)
{
	return cr_make_param_array(struct rwbs_case, rwbs_cases, sizeof(rwbs_cases) / sizeof(rwbs_cases[0]));
}

ParameterizedTest(struct rwbs_case *c, rwbs, decode)
{
	uint32_t got = tr_rwbs_decode(c->rwbs, sizeof(c->rwbs), c->sectors);

	cr_expect_eq(got, c->want, "rwbs \"%s\": got 0x%x, want 0x%x", c->rwbs, got, c->want);
}

/* ---- translation ---- */

#define XFS_DEV TS_DEV_MK(259, 2)	/* a partition starting at 1 MiB */
#define EXT4_DEV TS_DEV_MK(7, 3)	/* whole device, 4 KiB blocks */
#define EXT4K_DEV TS_DEV_MK(7, 4)	/* 1 KiB blocks: first data block 1 */
#define EXT4B_DEV TS_DEV_MK(7, 5)	/* bigalloc: 4 KiB blocks, 16 KiB clusters */
#define NDEVS 4

static void devs_init(struct rec_dev *d)
{
	memset(d, 0, NDEVS * sizeof(*d));
	d[0].d.dev = XFS_DEV;
	d[0].disk_dev = TS_DEV_MK(8, 0);
	d[0].d.partition_start = 1 << 20;
	d[0].start_sect = 2048;
	d[0].d.fs_block_size = 4096;
	d[0].d.xfs_agblocks = 32768;
	d[0].fs = TS_FS_XFS;
	d[1].d.dev = d[1].disk_dev = EXT4_DEV;
	d[1].d.fs_block_size = 4096;
	d[1].ext4_blocks_per_group = 32768;
	d[1].fs = TS_FS_EXT4;
	d[2].d.dev = d[2].disk_dev = EXT4K_DEV;
	d[2].d.fs_block_size = 1024;
	d[2].ext4_blocks_per_group = 8192;
	d[2].ext4_first_data_block = 1;
	d[2].fs = TS_FS_EXT4;
	d[3].d.dev = d[3].disk_dev = EXT4B_DEV;
	d[3].d.fs_block_size = 4096;
	d[3].ext4_blocks_per_group = 32768;
	d[3].ext4_cluster_bits = 2;
	d[3].ext4_nofree_first = 0x10;	/* EXT4_FREE_BLOCKS_NOFREE_FIRST_CLUSTER */
	d[3].ext4_nofree_last = 0x20;	/* EXT4_FREE_BLOCKS_NOFREE_LAST_CLUSTER */
	d[3].fs = TS_FS_EXT4;
}

struct xlate_case {
	struct tr_event ev;
	uint8_t kind, op;
	uint16_t flags;
	uint64_t offset, length, latency;
};

static struct xlate_case xlate_cases[] = {
	/* XFS: (agno * agblocks + agbno) * blocksize + partition start */
	{ .ev = { .src = TR_XFS_FREE, .dev = XFS_DEV, .agno = 2, .a = 10, .b = 3 }, .kind = TS_FREE,
	  .flags = TS_FS_XFS, .offset = (2ull * 32768 + 10) * 4096 + (1 << 20), .length = 3 * 4096 },
	{ .ev = { .src = TR_XFS_ALLOC, .dev = XFS_DEV, .agno = 0, .a = 7, .b = 1 }, .kind = TS_ALLOC,
	  .flags = TS_FS_XFS, .offset = 7 * 4096 + (1 << 20), .length = 4096 },
	{ .ev = { .src = TR_XFS_DISCARD, .dev = XFS_DEV, .agno = 1, .a = 0, .b = 256, .opfl = TR_FL_FITRIM },
	  .kind = TS_INTENT, .flags = TS_FS_XFS | TS_F_FITRIM, .offset = 32768ull * 4096 + (1 << 20),
	  .length = 256 * 4096 },
	/* ext4: absolute blocks, or group-relative clusters (ext4_group_first_block_no) */
	{ .ev = { .src = TR_EXT4_FREE, .dev = EXT4_DEV, .a = 1000, .b = 8, .ino = 12 }, .kind = TS_FREE,
	  .flags = TS_FS_EXT4, .offset = 1000 * 4096, .length = 8 * 4096 },
	{ .ev = { .src = TR_EXT4_ALLOC, .dev = EXT4_DEV, .agno = 3, .a = 5, .b = 2 }, .kind = TS_ALLOC,
	  .flags = TS_FS_EXT4, .offset = (3ull * 32768 + 5) * 4096, .length = 2 * 4096 },
	/*
	 * bigalloc: what ext4_free_blocks() frees, whole clusters of 4 blocks. ext4_remove_blocks()
	 * frees a 5-block file at 5920 as the cluster of its last block (5924, 4 blocks), then
	 * 5920 + 5 with both NOFREE flags: blocks 5920-5923.
	 */
	{ .ev = { .src = TR_EXT4_FREE, .dev = EXT4B_DEV, .a = 5920, .b = 5, .opfl = 0x30 }, .kind = TS_FREE,
	  .flags = TS_FS_EXT4, .offset = 5920 * 4096ull, .length = 4 * 4096 },
	{ .ev = { .src = TR_EXT4_FREE, .dev = EXT4B_DEV, .a = 5924, .b = 4, .opfl = 0x30 }, .kind = TS_FREE,
	  .flags = TS_FS_EXT4, .offset = 5924 * 4096ull, .length = 4 * 4096 },
	{ .ev = { .src = TR_EXT4_FREE, .dev = EXT4B_DEV, .a = 5921, .b = 8, .opfl = 0x10 }, .kind = TS_FREE,
	  .flags = TS_FS_EXT4, .offset = 5924 * 4096ull, .length = 8 * 4096 },	/* in at the start, out at the end */
	{ .ev = { .src = TR_EXT4_FREE, .dev = EXT4B_DEV, .a = 5921, .b = 2, .opfl = 0 }, .kind = TS_FREE,
	  .flags = TS_FS_EXT4, .offset = 5920 * 4096ull, .length = 4 * 4096 },	/* no flags: out at both ends */
	{ .ev = { .src = TR_EXT4_FREE, .dev = EXT4_DEV, .a = 5921, .b = 2, .opfl = 0x30 }, .kind = TS_FREE,
	  .flags = TS_FS_EXT4, .offset = 5921 * 4096ull, .length = 2 * 4096 },	/* not bigalloc: as given */
	{ .ev = { .src = TR_EXT4_PA_FREE, .dev = EXT4K_DEV, .agno = 1, .a = 0, .b = 4 }, .kind = TS_FREE,
	  .flags = TS_FS_EXT4 | TS_F_PREALLOC, .offset = (8192 + 1) * 1024, .length = 4 * 1024 },
	{ .ev = { .src = TR_EXT4_TRIM, .dev = EXT4_DEV, .agno = 1, .a = 100, .b = 50 }, .kind = TS_INTENT,
	  .flags = TS_FS_EXT4, .offset = (32768 + 100) * 4096ull, .length = 50 * 4096 },
	{ .ev = { .src = TR_EXT4_DISCARD, .dev = EXT4_DEV, .a = 9, .b = 1 }, .kind = TS_INTENT,
	  .flags = TS_FS_EXT4, .offset = 9 * 4096, .length = 4096 },
	/* block: sectors already on the whole disk */
	{ .ev = { .src = TR_RQ_ISSUE, .dev = XFS_DEV, .a = 4096, .b = 65536, .opfl = 4 | TR_FL_SYNC },
	  .kind = TS_ISSUE, .op = TS_OP_DISCARD, .flags = TS_F_SYNC, .offset = 4096 * 512, .length = 65536 },
	{ .ev = { .src = TR_RQ_DONE, .dev = XFS_DEV, .a = 0, .b = 0, .latency_ns = 777,
		  .opfl = 3 | TR_FL_PREFLUSH | TR_FL_ERROR },
	  .kind = TS_DONE, .op = TS_OP_FLUSH, .flags = TS_F_PREFLUSH | TS_F_ERROR, .latency = 777 },
	{ .ev = { .src = TR_BIO, .dev = EXT4_DEV, .a = 8, .b = 4096, .opfl = 4 }, .kind = TS_BIO,
	  .op = TS_OP_DISCARD, .offset = 4096, .length = 4096 },
	{ .ev = { .src = TR_JBD2_COMMIT, .dev = EXT4_DEV, .ino = 42 }, .kind = TS_META,
	  .op = TS_META_COMMIT, .flags = TS_FS_EXT4 },
	{ .ev = { .src = TR_XFS_LOG_DONE, .dev = XFS_DEV, .ino = 77 }, .kind = TS_META, .op = TS_META_COMMIT,
	  .flags = TS_FS_XFS },
};

TestSuite(xlate, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(xlate, one_event)
{
	return cr_make_param_array(struct xlate_case, xlate_cases, sizeof(xlate_cases) / sizeof(xlate_cases[0]));
}

/*
 * Records the events, reads the file back; returns the count read into out. *before counts
 * the records written as the events came in; then the records up to time upto are released:
 * *early counts the BIO records written by then.
 */
static size_t run_recorder_upto(const struct tr_event *evs, size_t n, uint64_t upto, uint64_t *before,
				uint64_t *early, struct ts_record *out, size_t max)
{
	struct rec_dev devs[NDEVS];
	char path[256], err[256];
	json_t *h = trace_header__new(0, NULL);
	struct trace_writer *w;
	struct trace_reader *rd;
	struct recorder *r;
	size_t got = 0;

	cr_assert_not_null(h);
	devs_init(devs);
	snprintf(path, sizeof(path), "%s/t.tsim", th_dir());
	w = trace_writer__open(path, h, TW_BINARY, TW_ATOMIC, err, sizeof(err));
	cr_assert(w, "%s", err);
	r = recorder__new(w, devs, NDEVS);
	cr_assert(r);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(recorder__event(r, &evs[i]), 0);
	*before = 0;
	for (unsigned k = 1; k <= TS_KIND_MAX; k++)
		*before += recorder__stats(r)[k].count;
	cr_assert_eq(recorder__release(r, upto), 0);
	*early = recorder__stats(r)[TS_BIO].count;
	cr_assert_eq(recorder__release(r, UINT64_MAX), 0);
	cr_assert_eq(trace_writer__close(w, 1, err, sizeof(err)), 0, "%s", err);
	rd = trace_reader__open(path, err, sizeof(err));
	cr_assert(rd, "%s", err);
	while (got < max && trace_reader__next(rd, &out[got]) == 1)
		got++;
	trace_reader__close(rd);
	recorder__free(r);
	json_decref(h);
	return got;
}

/* The same, every record within REC_HOLD_NS of the first: none is written before the end. */
static size_t run_recorder(const struct tr_event *evs, size_t n, struct ts_record *out, size_t max)
{
	uint64_t before, early;
	size_t got = run_recorder_upto(evs, n, UINT64_MAX, &before, &early, out, max);

	cr_expect_eq(before, 0, "%llu records written before their release", (unsigned long long)before);
	return got;
}

ParameterizedTest(struct xlate_case *c, xlate, one_event)
{
	struct ts_record rec;

	c->ev.time_ns = 1000;
	cr_assert_eq(run_recorder(&c->ev, 1, &rec, 1), 1, "src %u produced no record", c->ev.src);
	cr_expect_eq(rec.kind, c->kind, "src %u: kind %u", c->ev.src, rec.kind);
	cr_expect_eq(rec.op, c->op, "src %u: op %u", c->ev.src, rec.op);
	cr_expect_eq(rec.flags, c->flags, "src %u: flags 0x%x, want 0x%x", c->ev.src, rec.flags, c->flags);
	cr_expect_eq(rec.offset, c->offset, "src %u: offset %llu, want %llu", c->ev.src,
		     (unsigned long long)rec.offset, (unsigned long long)c->offset);
	cr_expect_eq(rec.length, c->length, "src %u: length", c->ev.src);
	cr_expect_eq(rec.latency_ns, c->latency);
	cr_expect_eq(rec.dev, c->ev.dev);
	cr_expect_eq(rec.time_ns, 1000);
}

/* ext4_trim_extent then ext4_discard_blocks of the same range: one INTENT. Unknown devices and sources: none. */
Test(xlate, ext4_trim_discard_once_and_foreign_dropped)
{
	struct tr_event evs[] = {
		{ .src = TR_EXT4_TRIM, .dev = EXT4_DEV, .agno = 0, .a = 16, .b = 4 },
		{ .src = TR_EXT4_DISCARD, .dev = EXT4_DEV, .a = 16, .b = 4 },
		{ .src = TR_EXT4_DISCARD, .dev = EXT4_DEV, .a = 16, .b = 4 },	/* a second, real one */
		{ .src = TR_XFS_FREE, .dev = TS_DEV_MK(8, 1), .a = 1, .b = 1 },
		{ .src = 0, .dev = EXT4_DEV, .a = 1, .b = 1 },
		{ .src = TR_SRC_MAX + 1, .dev = EXT4_DEV, .a = 1, .b = 1 },
	};
	struct ts_record out[8];

	cr_assert_eq(run_recorder(evs, 6, out, 8), 2);
	cr_expect(out[0].kind == TS_INTENT && out[1].kind == TS_INTENT);
	cr_expect_eq(out[0].offset, 16 * 4096);
	cr_expect_eq(out[1].offset, 16 * 4096);
}

/*
 * Events reach the recorder slightly out of time order (an eBPF event is stamped after its
 * place in the ring is reserved); the file is in time order, and a record is written only
 * once it is released (1500 ns: those stamped up to then). 300 events, every third 25 ns earlier than the one before it, so the
 * hold's ring grows past its first 64 slots while records wait.
 */
Test(xlate, out_of_order_events_written_in_time_order)
{
	enum { N = 300 };
	struct tr_event evs[N];
	struct ts_record out[N + 1];
	uint64_t before, early;
	size_t got, below = 0;

	for (size_t i = 0; i < N; i++) {
		evs[i] = (struct tr_event){ .src = TR_BIO, .dev = EXT4_DEV, .a = 8 * i, .b = 4096, .opfl = 1 };
		evs[i].time_ns = 1000 + 10 * i - (i % 3 == 2 ? 25 : 0);
		below += evs[i].time_ns <= 1500;
	}
	got = run_recorder_upto(evs, N, 1500, &before, &early, out, N + 1);
	cr_expect_eq(before, 0);
	cr_expect_eq(early, below, "released up to 1500 ns: %llu records written, want %zu",
		     (unsigned long long)early, below);
	cr_assert_eq(got, N);
	for (size_t i = 1; i < got; i++)
		cr_assert(out[i].time_ns >= out[i - 1].time_ns, "record %zu steps back: %llu after %llu", i,
			  (unsigned long long)out[i].time_ns, (unsigned long long)out[i - 1].time_ns);
}

/* A record goes out once an event REC_HOLD_NS younger has come in, without waiting for a flush. */
Test(xlate, event_time_releases_older_records)
{
	struct tr_event evs[] = {
		{ .time_ns = 1000, .src = TR_BIO, .dev = EXT4_DEV, .a = 8, .b = 4096, .opfl = 1 },
		{ .time_ns = 2000, .src = TR_BIO, .dev = EXT4_DEV, .a = 16, .b = 4096, .opfl = 1 },
		{ .time_ns = 1500 + REC_HOLD_NS, .src = TR_BIO, .dev = EXT4_DEV, .a = 24, .b = 4096, .opfl = 1 },
	};
	struct ts_record out[4];
	uint64_t before, early;

	cr_assert_eq(run_recorder_upto(evs, 3, 0, &before, &early, out, 4), 3);
	cr_expect_eq(before, 1, "%llu written as events came in, want the one 300 ms older than the last",
		     (unsigned long long)before);
	cr_expect(out[0].time_ns == 1000 && out[1].time_ns == 2000 && out[2].time_ns == 1500 + REC_HOLD_NS);
}

/* bigalloc: a free that lies inside a cluster another extent keeps frees nothing (ext4_free_blocks() returns). */
Test(xlate, ext4_bigalloc_free_of_a_kept_cluster_is_none)
{
	struct tr_event evs[] = {
		{ .src = TR_EXT4_FREE, .dev = EXT4B_DEV, .a = 5921, .b = 2, .opfl = 0x10 },	/* NOFREE_FIRST */
		{ .src = TR_EXT4_FREE, .dev = EXT4B_DEV, .a = 5920, .b = 3, .opfl = 0x20 },	/* NOFREE_LAST */
		{ .src = TR_EXT4_FREE, .dev = EXT4B_DEV, .a = 5920, .b = 4, .opfl = 0x30 },	/* whole: freed */
	};
	struct ts_record out[4];

	cr_assert_eq(run_recorder(evs, 3, out, 4), 1);
	cr_expect_eq(out[0].offset, 5920 * 4096ull);
	cr_expect_eq(out[0].length, 4 * 4096);
}

/* ---- command line ---- */

struct cli_case {
	char args[128];
	int status;
	char msg[64];
};

static struct cli_case cli_cases[] = {
	{ .args = "-m /", .status = 2, .msg = "-o FILE is required" },
	{ .args = "-o x --backend foo", .status = 2, .msg = "--backend 'foo'" },
	{ .args = "-o x --duration soon", .status = 2, .msg = "--duration 'soon'" },
	{ .args = "-o x --settle later", .status = 2, .msg = "--settle 'later': expected a duration" },
	{ .args = "-o x --ringbuf-size 12", .status = 2, .msg = "--ringbuf-size '12'" },
	{ .args = "-o x --bogus", .status = 2, .msg = "'--bogus'" },
	{ .args = "-o x stray", .status = 2, .msg = "unexpected 'stray'" },
};

ParameterizedTestParameters(cli, errors)
{
	return cr_make_param_array(struct cli_case, cli_cases, sizeof(cli_cases) / sizeof(cli_cases[0]));
}

ParameterizedTest(struct cli_case *c, cli, errors)
{
	char cmd[512], *err = NULL;
	int rc;

	snprintf(cmd, sizeof(cmd), "%s record %s", th_trimsim(), c->args);
	rc = th_run(cmd, NULL, &err);
	cr_expect_eq(rc, c->status, "%s: exit %d", c->args, rc);
	cr_expect(err && strstr(err, c->msg) && th_lines(err) == 1, "%s: stderr: %s", c->args, err);
	free(err);
}

Test(cli, help_has_an_example)
{
	char cmd[256], *out = NULL;

	snprintf(cmd, sizeof(cmd), "%s record --help", th_trimsim());
	cr_expect_eq(th_run(cmd, &out, NULL), 0);
	cr_expect(out && strstr(out, "example:") && strstr(out, "--backend"), "%s", out);
	free(out);
}
