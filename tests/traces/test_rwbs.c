// SPDX-License-Identifier: GPL-2.0
/*
 * traces/rwbs.c: the block tracepoints' rwbs text as kernel/trace/blktrace.c:blk_fill_rwbs()
 * writes it on Linux 6.18 (used by the tracefs recorder and the trace-cmd importer).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "traces/rwbs.h"
#include "traces/trace.h"

struct rwbs_case {
	char rwbs[12];
	uint64_t sectors;
	unsigned op;
	uint16_t flags;
};

static struct rwbs_case rwbs_cases[] = {
	{ .rwbs = "D", .sectors = 8, .op = TS_OP_DISCARD },
	{ .rwbs = "DS", .sectors = 8, .op = TS_OP_DISCARD, .flags = TS_F_SYNC },	/* ext4's discards */
	{ .rwbs = "DE", .sectors = 8, .op = TS_OP_SECURE_ERASE },
	{ .rwbs = "DES", .sectors = 8, .op = TS_OP_SECURE_ERASE, .flags = TS_F_SYNC },
	{ .rwbs = "NS", .sectors = 2048, .op = TS_OP_WRITE_ZEROES, .flags = TS_F_SYNC },	/* BLKZEROOUT, 6.18 */
	{ .rwbs = "N", .sectors = 0, .op = TS_OP_NONE },		/* zone management, driver-private */
	{ .rwbs = "WZ", .sectors = 8, .op = TS_OP_WRITE_ZEROES },	/* proposed blktrace letters */
	{ .rwbs = "W", .sectors = 8, .op = TS_OP_WRITE },
	{ .rwbs = "WS", .sectors = 8, .op = TS_OP_WRITE, .flags = TS_F_SYNC },
	{ .rwbs = "WSM", .sectors = 8, .op = TS_OP_WRITE, .flags = TS_F_SYNC | TS_F_METADATA },
	{ .rwbs = "FWFS", .sectors = 8, .op = TS_OP_WRITE, .flags = TS_F_PREFLUSH | TS_F_FUA | TS_F_SYNC },
	{ .rwbs = "WFSMU", .sectors = 8, .op = TS_OP_WRITE, .flags = TS_F_FUA | TS_F_SYNC | TS_F_METADATA },
	{ .rwbs = "F", .sectors = 0, .op = TS_OP_FLUSH },
	{ .rwbs = "FF", .sectors = 0, .op = TS_OP_FLUSH, .flags = TS_F_PREFLUSH },	/* blk-mq flush request */
	{ .rwbs = "FS", .sectors = 0, .op = TS_OP_FLUSH, .flags = TS_F_SYNC },
	{ .rwbs = "R", .sectors = 8, .op = TS_OP_READ },
	{ .rwbs = "RA", .sectors = 8, .op = TS_OP_READ },		/* readahead: no flag of ours */
	{ .rwbs = "ZA", .sectors = 8, .op = TS_OP_NONE },		/* zone append */
	{ .rwbs = "ZRA", .sectors = 0, .op = TS_OP_NONE },		/* zone reset all */
	{ .rwbs = "FN", .sectors = 8, .op = TS_OP_WRITE_ZEROES, .flags = TS_F_PREFLUSH },
	{ .rwbs = "", .sectors = 8, .op = TS_OP_NONE },
	{ .rwbs = "?", .sectors = 8, .op = TS_OP_NONE },
};

ParameterizedTestParameters(rwbs, decode)
{
	return cr_make_param_array(struct rwbs_case, rwbs_cases, sizeof(rwbs_cases) / sizeof(rwbs_cases[0]));
}

ParameterizedTest(struct rwbs_case *c, rwbs, decode)
{
	uint16_t flags = 0xffff;
	unsigned op = ts_rwbs_decode(c->rwbs, sizeof(c->rwbs), c->sectors, &flags);

	cr_expect_eq(op, c->op, "rwbs \"%s\": op %u, want %u", c->rwbs, op, c->op);
	cr_expect_eq(flags, c->flags, "rwbs \"%s\": flags 0x%x, want 0x%x", c->rwbs, flags, c->flags);
}

/* The field is a fixed array: the text ends at n chars when it fills it (no NUL). */
Test(rwbs, bounded_by_n)
{
	uint16_t flags;

	cr_expect_eq(ts_rwbs_decode("DSMXXXXX", 2, 8, &flags), TS_OP_DISCARD);
	cr_expect_eq(flags, TS_F_SYNC);
	cr_expect_eq(ts_rwbs_decode("DE", 1, 8, &flags), TS_OP_DISCARD);
	cr_expect_eq(ts_rwbs_decode("F", 1, 0, &flags), TS_OP_FLUSH);
	cr_expect_eq(flags, 0);
}
