/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seed 001's two traces as blktrace files, the way the kernel traces them
 * (tests/report/test_seed001_verdict.c has the story): XFS sent 39,395 discards,
 * 18,842 of 27 sectors and 20,553 of 26, one extent after another with a 4 KiB
 * gap; ext4 sent 24 of 43,036 sectors 32 MiB apart. Each is issued after the
 * previous completed (Linux 3.2's blkdev_issue_discard() waited): Q, G, I, D,
 * then C 2 us after the D, the next Q 3 us after the last. Import them with
 * `trimsim import --from blktrace FILE --device-size 120G -o OUT`.
 */
#ifndef TRIMSIM_TEST_REPORT_SEED001_H
#define TRIMSIM_TEST_REPORT_SEED001_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "traces/import/blkio.h"
#include "traces/trace.h"

#define S1_DEV TS_DEV_MK(8, 0)
#define S1_SEC 1000000000ull

static inline void s1_put(FILE *f, uint32_t *seq, uint64_t t, uint64_t sector, uint32_t bytes, uint32_t action)
{
	struct blkio_trace r = {
		.magic = BLKIO_MAGIC | BLKIO_VERSION, .sequence = ++*seq, .time = t, .sector = sector,
		.bytes = bytes, .action = action, .pid = 4242, .device = S1_DEV,
	};

	cr_assert_eq(fwrite(&r, sizeof(r), 1, f), 1);
}

/* n serial discards; len(i) bytes; the next extent starts gap bytes after the last one's end. */
static inline void s1_write_blktrace(const char *path, unsigned n, uint32_t (*len)(unsigned), uint64_t gap)
{
	uint32_t cat = BLKIO_TC_WRITE | BLKIO_TC_DISCARD, seq = 0;
	uint64_t t = 1 * S1_SEC, off = 1ull << 30;
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "%s", path);
	for (unsigned i = 0; i < n; i++, t += 3000) {
		uint32_t b = len(i);

		s1_put(f, &seq, t, off / 512, b, BLKIO_TC(cat) | BLKIO_TA_QUEUE);
		s1_put(f, &seq, t + 100, off / 512, b, BLKIO_TC(cat | BLKIO_TC_FS) | BLKIO_TA_GETRQ);
		s1_put(f, &seq, t + 200, off / 512, b, BLKIO_TC(cat | BLKIO_TC_FS) | BLKIO_TA_INSERT);
		s1_put(f, &seq, t + 500, off / 512, b, BLKIO_TC(cat | BLKIO_TC_FS) | BLKIO_TA_ISSUE);
		s1_put(f, &seq, t + 2500, off / 512, b, BLKIO_TC(cat | BLKIO_TC_FS) | BLKIO_TA_COMPLETE);
		off += b + gap;
	}
	cr_assert_eq(fclose(f), 0);
}

static inline uint32_t s1_xfs_len(unsigned i) { return (i < 18842 ? 27 : 26) * 512; }
static inline uint32_t s1_ext4_len(unsigned i) { (void)i; return 43036 * 512; }

#endif
