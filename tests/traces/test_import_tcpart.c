// SPDX-License-Identifier: GPL-2.0
/*
 * traces/import/tcpart.c on records of its own: a filesystem on partition P (259:0, 1 MiB into
 * disk D, 7:0) names P in its events, the block layer names D. The partition gets D's block
 * records inside it and those without bytes; D leaves the device table when nothing is left on
 * it; where the partition's start is nowhere, or which disk holds it, one line says so.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <string.h>

#include "traces/import/importer.h"
#include "traces/import/tcpart.h"

#define P TS_DEV_MK(259, 0)
#define D TS_DEV_MK(7, 0)
#define E TS_DEV_MK(8, 0)
#define MB (1ull << 20)
#define NREC 6

struct rec { uint32_t dev; uint8_t kind, op; uint64_t off, len; };

struct part_case {
	char name[96];
	struct tc_part opt;
	struct rec in[NREC];
	uint32_t out[NREC];		/* each record's device afterwards (0: unchanged) */
	size_t ndev;			/* device entries afterwards */
	char msg[256];		/* the error, "" if none */
};

/* P's INTENT and FREE, D's discard bio and command inside P, a flush, and a read of D's sector 0. */
#define PART_TRACE(disk) { { P, TS_INTENT, 0, MB + 4096, 8192 }, { P, TS_FREE, 0, MB + 4096, 8192 }, \
	{ disk, TS_BIO, TS_OP_DISCARD, MB + 4096, 8192 }, { disk, TS_ISSUE, TS_OP_DISCARD, MB + 4096, 8192 }, \
	{ disk, TS_ISSUE, TS_OP_FLUSH, 0, 0 }, { disk, TS_ISSUE, TS_OP_READ, 0, 4096 } }

ParameterizedTestParameters(tcpart, resolve)
{
	static struct part_case p[] = {
		{ .name = "--device: D's records inside P and the flush are P's; the read of sector 0 stays on D",
		  .opt = { .dev = P, .disk = D, .start = MB, .size = 100 * MB }, .in = PART_TRACE(D),
		  .out = { P, P, P, P, P, D }, .ndev = 2 },
		{ .name = "--device: past the partition's end stays on the disk",
		  .opt = { .dev = P, .disk = D, .start = MB, .size = 4096 }, .in = PART_TRACE(D),
		  .out = { P, P, D, D, P, D }, .ndev = 2 },
		{ .name = "--partition-start: the disk is the one device with only block records",
		  .opt = { .start = MB }, .in = PART_TRACE(D), .out = { P, P, P, P, P, D }, .ndev = 2 },
		{ .name = "neither option: the start is nowhere",
		  .in = PART_TRACE(D), .msg = "t.dat: filesystem events on 259:0, block events only on other devices "
		  "(7:0): a filesystem on a partition, whose start the trace does not hold; give --device PARTITION or "
		  "--partition-start BYTES" },
		{ .name = "--device names another device than the fs events'",
		  .opt = { .dev = E, .disk = E }, .in = PART_TRACE(D), .msg = "filesystem events on 259:0" },
		{ .name = "--partition-start with two disks: which holds P is not in the trace",
		  .opt = { .start = MB }, .in = { { P, TS_FREE, 0, MB, 4096 }, { D, TS_ISSUE, TS_OP_WRITE, MB, 4096 },
						    { E, TS_ISSUE, TS_OP_WRITE, MB, 4096 } },
		  .msg = "t.dat: block events on 2 devices without filesystem events (7:0, 8:0): which one holds the "
			 "partition 259:0 is not in the trace; give --device PARTITION" },
		{ .name = "a whole-disk fs: its commands are its own, nothing changes",
		  .in = { { D, TS_FREE, 0, 4096, 4096 }, { D, TS_ISSUE, TS_OP_DISCARD, 4096, 4096 } },
		  .out = { D, D }, .ndev = 1 },
		{ .name = "no block records: nothing says partition, nothing changes",
		  .in = { { P, TS_FREE, 0, 4096, 4096 }, { P, TS_INTENT, 0, 4096, 4096 } }, .out = { P, P }, .ndev = 1 },
	};
	return cr_make_param_array(struct part_case, p, sizeof(p) / sizeof(p[0]));
}

ParameterizedTest(struct part_case *c, tcpart, resolve)
{
	struct import_sink *sink = import_sink__new();
	struct tc_devs *seen = tc_devs__new();
	struct ts_record got[NREC];
	const struct ts_device *d;
	char err[512] = "";
	size_t n = 0, nd;
	int ret;

	cr_assert(sink && seen);
	for (; n < NREC && c->in[n].dev; n++) {
		struct ts_record r = { .time_ns = n, .dev = c->in[n].dev, .kind = c->in[n].kind, .op = c->in[n].op,
				       .offset = c->in[n].off, .length = c->in[n].len };

		cr_assert_not_null(import_sink__device(sink, r.dev));
		cr_assert_eq(tc_devs__note(seen, &r), 0);
		cr_assert_eq(import_sink__record(sink, &r), 0);
	}
	ret = tc_part__resolve(&c->opt, seen, sink, "t.dat", err, sizeof(err));
	if (c->msg[0]) {
		cr_expect_eq(ret, -EINVAL, "%s", c->name);
		cr_expect(strstr(err, c->msg) != NULL, "%s: %s", c->name, err);
	} else {
		cr_assert_eq(ret, 0, "%s: %s", c->name, err);
		cr_assert_eq(import_sink__read(sink, 0, got, n), (ssize_t)n);
		for (size_t i = 0; i < n; i++)
			cr_expect_eq(got[i].dev, c->out[i], "%s: record %zu on %#x, expected %#x", c->name, i,
				     got[i].dev, c->out[i]);
		d = import_sink__devices(sink, &nd);
		cr_expect_eq(nd, c->ndev, "%s: %zu devices", c->name, nd);
		for (size_t i = 0; i < nd; i++)
			if (d[i].dev == P)
				cr_expect_eq(d[i].partition_start, c->opt.start, "%s", c->name);
	}
	tc_devs__free(seen);
	import_sink__free(sink);
}

/* The rewrite crosses the sink's 1024-record batches and keeps records appended after it. */
static void to_p(void *arg, struct ts_record *r)
{
	(void)arg;
	r->dev = P;
}

Test(tcpart, rewrite_crosses_batches)
{
	struct import_sink *s = import_sink__new();
	struct ts_record r = { .kind = TS_ISSUE, .op = TS_OP_READ, .length = 512, .dev = D }, back;

	cr_assert_not_null(s);
	for (uint64_t i = 0; i < 2500; i++) {
		r.offset = i * 512;
		cr_assert_eq(import_sink__record(s, &r), 0);
	}
	cr_assert_eq(import_sink__rewrite(s, to_p, NULL), 0);
	r.offset = 2500 * 512;
	cr_assert_eq(import_sink__record(s, &r), 0);
	for (uint64_t i = 0; i < 2501; i++) {
		cr_assert_eq(import_sink__read(s, i, &back, 1), 1);
		cr_expect_eq(back.offset, i * 512);
		cr_expect_eq(back.dev, i < 2500 ? P : D, "record %llu", (unsigned long long)i);
	}
	import_sink__free(s);
}
