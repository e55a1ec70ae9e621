// SPDX-License-Identifier: GPL-2.0
/*
 * Seed 001 (xfs list, Dec 2011) against the SATA profiles.
 *
 * rm -rf linux-3.2-rc5: XFS sent 39,395 discards totalling 1,043,112 sectors
 * (26.48 sectors, 13.2 KiB on average) and took more than 6 minutes on the
 * SF-2281; ext4 sent 24 of 43,036 sectors (21 MiB) and took under a second.
 * They were serial: blkdev_issue_discard() waited for each (block/blk-lib.c),
 * so we submit each one when the previous completes (QD1).
 *
 * fstrim took 30-40 s on the SF-2281 and 3 s on the Corsair. The free space
 * it walked is not in the seed, so we define it from the era: a 120 GB
 * filesystem at ~60% use after kernel-tree churn, 3,600 free extents:
 * 3,000 small holes of 4-64 KiB (the size of freed source files), 500 of
 * 1 MiB and 100 of 450 MiB (44.5 GiB in all). FITRIM discards each free
 * extent with one serial blkdev_issue_discard() (fs/xfs/xfs_discard.c,
 * xfs_trim_extents(); fs/ext4/mballoc.c, ext4_trim_extent()).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/models/drive.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define SEC 1000000000ull

/* XFS: 20,553 discards of 26 sectors and 18,842 of 27 = 39,395 and 1,043,112 sectors. */
static uint64_t xfs_rm(struct drv *d)
{
	uint64_t off = 1ull << 30, sectors = 0;

	for (unsigned i = 0; i < 39395; i++) {
		uint64_t len = (i < 18842 ? 27 : 26) * 512ull;
		struct target_done done = drv_serial(d, TS_OP_DISCARD, off, len);

		cr_assert_eq(done.error, 0);
		sectors += len / 512;
		off += len + 4 * KIB;	/* files are not adjacent */
	}
	cr_assert_eq(sectors, 1043112);
	return d->now;
}

static uint64_t ext4_rm(struct drv *d)
{
	for (unsigned i = 0; i < 24; i++)
		cr_assert_eq(drv_serial(d, TS_OP_DISCARD, (1ull << 30) + i * 32 * MIB, 43036 * 512ull).error, 0);
	return d->now;
}

static uint64_t fitrim(struct drv *d)
{
	uint64_t off = 0, bytes = 0;
	unsigned n = 0;

	for (unsigned i = 0; i < 3600; i++, n++) {
		uint64_t len = i < 3000 ? 4 * KIB * (1 + i % 16) : i < 3500 ? MIB : 450 * MIB;

		cr_assert_eq(drv_serial(d, TS_OP_DISCARD, off, len).error, 0);
		bytes += len;
		off += len + 64 * KIB;	/* allocated blocks between the free extents */
	}
	cr_assert_eq(n, 3600);
	cr_assert(bytes > 44ull * 1024 * MIB && bytes < 45ull * 1024 * MIB);
	return d->now;
}

Test(seed001, xfs_rm_takes_over_6_minutes_on_sf2281)
{
	struct drv d;
	uint64_t t;

	drv_open(&d, "sata-sf2281", 1);
	t = xfs_rm(&d);
	cr_assert(t > 360 * SEC, "39,395 serial discards took %.1f s", (double)t / SEC);
	cr_assert(t < 450 * SEC, "39,395 serial discards took %.1f s", (double)t / SEC);
	drv_close(&d);
}

Test(seed001, ext4_rm_takes_under_a_second_on_sf2281)
{
	struct drv d;
	uint64_t t;

	drv_open(&d, "sata-sf2281", 1);
	t = ext4_rm(&d);
	cr_assert(t < SEC, "24 discards of 21 MiB took %.3f s", (double)t / SEC);
	cr_assert(t > 24 * 9 * 1000000ull, "24 discards of 21 MiB took %.3f s", (double)t / SEC);
	drv_close(&d);
}

Test(seed001, corsair_is_good_on_both)
{
	struct drv d;
	uint64_t t;

	drv_open(&d, "sata-good", 1);
	t = xfs_rm(&d);
	cr_assert(t < 5 * SEC, "XFS rm on sata-good took %.1f s", (double)t / SEC);
	drv_close(&d);
}

struct fitrim_case {
	char profile[32];
	double lo_s, hi_s;
};

ParameterizedTestParameters(seed001, fitrim)
{
	static struct fitrim_case cases[] = {
		{ .profile = "sata-sf2281", .lo_s = 30, .hi_s = 40 },
		{ .profile = "sata-good", .lo_s = 2.5, .hi_s = 3.5 },
	};

	return cr_make_param_array(struct fitrim_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct fitrim_case *c, seed001, fitrim)
{
	struct drv d;
	double t;
	json_t *rep;

	drv_open(&d, c->profile, 7);
	t = (double)fitrim(&d) / SEC;
	cr_assert(t >= c->lo_s && t <= c->hi_s, "%s: FITRIM pass took %.2f s, expected %.1f-%.1f s",
		  c->profile, t, c->lo_s, c->hi_s);
	rep = drv_report(&d);
	cr_assert_eq(jnum(rep, "device_discard_commands"), 3600);
	cr_assert_str_eq(json_string_value(json_object_get(rep, "profile")), c->profile);
	json_decref(rep);
	drv_close(&d);
}
