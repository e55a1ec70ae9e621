// SPDX-License-Identifier: GPL-2.0
/*
 * The validation table of models/README.md ("Validation"): every published
 * measurement we found, the profile that should reproduce it, the model's figure
 * and the error. Each row is recomputed here from the profile, and the README
 * row must print the same model figure and error: a profile change that moves a
 * figure fails this test until the table says so.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "tests/models/drive.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define SEC 1e9

/* One small TRIM, serial, averaged over n commands (the profiles' jitter is seeded). */
static double small_trim_ms(const char *profile, uint64_t len)
{
	struct drv d;
	uint64_t t0;
	const unsigned n = 200;

	drv_open(&d, profile, 1);
	t0 = d.now;
	for (unsigned i = 0; i < n; i++)
		cr_assert_eq(drv_serial(&d, TS_OP_DISCARD, (1ull << 30) + i * MIB, len).error, 0);
	drv_close(&d);
	return (double)(d.now - t0) / n / 1e6;
}

/* Seed 001's XFS rm: 18,842 discards of 27 sectors and 20,553 of 26, serial, 4 KiB apart. */
static double xfs_rm_s(const char *profile)
{
	struct drv d;
	uint64_t off = 1ull << 30;

	drv_open(&d, profile, 1);
	for (unsigned i = 0; i < 39395; i++) {
		uint64_t len = (i < 18842 ? 27 : 26) * 512ull;

		cr_assert_eq(drv_serial(&d, TS_OP_DISCARD, off, len).error, 0);
		off += len + 4 * KIB;
	}
	drv_close(&d);
	return (double)d.now / SEC;
}

static double ext4_rm_s(const char *profile)
{
	struct drv d;

	drv_open(&d, profile, 1);
	for (unsigned i = 0; i < 24; i++)
		cr_assert_eq(drv_serial(&d, TS_OP_DISCARD, (1ull << 30) + i * 32 * MIB, 43036 * 512ull).error, 0);
	drv_close(&d);
	return (double)d.now / SEC;
}

/* The FITRIM free-space shape of tests/models/test_seed001.c (3,600 extents, 44.5 GiB). */
static double fitrim_s(const char *profile)
{
	struct drv d;
	uint64_t off = 0;

	drv_open(&d, profile, 7);
	for (unsigned i = 0; i < 3600; i++) {
		uint64_t len = i < 3000 ? 4 * KIB * (1 + i % 16) : i < 3500 ? MIB : 450 * MIB;

		cr_assert_eq(drv_serial(&d, TS_OP_DISCARD, off, len).error, 0);
		off += len + 64 * KIB;
	}
	drv_close(&d);
	return (double)d.now / SEC;
}

/* hdparm -t: sequential 2 MiB reads for about 3 s (TIMING_BUF_MB), in MB/s (10^6). */
static double hdparm_mbs(const char *profile)
{
	struct drv d;
	const unsigned n = 64;

	drv_open(&d, profile, 1);
	for (unsigned i = 0; i < n; i++)
		cr_assert_eq(drv_serial(&d, TS_OP_READ, i * 2 * MIB, 2 * MIB).error, 0);
	drv_close(&d);
	return (double)(n * 2 * MIB) / ((double)d.now / SEC) / 1e6;
}

struct vrow {
	char id[8];
	char profile[32];
	char shown[32];		/* the model figure as the README prints it */
	char err[24];		/* the error as the README prints it */
	double published;	/* the figure the error is taken against */
	int kind;		/* which computation */
	double lo, hi;		/* a published bound ("more than 6 min", "30-40 s"): the model must be inside */
};

enum { K_TRIM512, K_XFS_RM, K_EXT4_RM, K_FITRIM, K_HDPARM };

static double compute(const struct vrow *v)
{
	switch (v->kind) {
	case K_TRIM512: return small_trim_ms(v->profile, 512);
	case K_XFS_RM: return xfs_rm_s(v->profile);
	case K_EXT4_RM: return ext4_rm_s(v->profile);
	case K_FITRIM: return fitrim_s(v->profile);
	default: return hdparm_mbs(v->profile);
	}
}

static const char *unit(int kind)
{
	return kind == K_TRIM512 ? "ms" : kind == K_HDPARM ? "MB/s" : "s";
}

ParameterizedTestParameters(validation, rows)
{
	static struct vrow r[] = {
		{ "V1", "sata-sf2281", "9.46 ms", "-5.4%", 10, K_TRIM512, 0, 0 },
		{ "V2", "sata-sf2281", "374.2 s", "+4.0%", 360, K_XFS_RM, 360, 1e9 },
		{ "V3", "sata-sf2281", "0.242 s", "inside", 1, K_EXT4_RM, 0, 1 },
		{ "V4", "sata-sf2281", "35.6 s", "+1.8%", 35, K_FITRIM, 30, 40 },
		{ "V5", "sata-good", "2.96 s", "-1.3%", 3, K_FITRIM, 0, 0 },
		{ "V6", "sdcard", "22.6 MB/s", "-0.7%", 22.80, K_HDPARM, 0, 0 },
		{ "V7", "emmc", "43.9 MB/s", "-0.2%", 44.03, K_HDPARM, 0, 0 },
	};

	return cr_make_param_array(struct vrow, r, sizeof(r) / sizeof(r[0]));
}

ParameterizedTest(struct vrow *v, validation, rows, .timeout = 120)
{
	double x = compute(v);
	char shown[32], err[24], path[1024], row[64], *readme, *line;
	size_t len;
	const char *fmt = v->kind == K_TRIM512 || (v->kind == K_FITRIM && x < 10) ? "%.2f %s" :
			  v->kind == K_EXT4_RM ? "%.3f %s" : "%.1f %s";

	snprintf(shown, sizeof(shown), fmt, x, unit(v->kind));
	cr_log_info("%s %s: %s (%+.2f%% of %g)", v->id, v->profile, shown, 100 * (x / v->published - 1), v->published);
	cr_expect_str_eq(shown, v->shown, "%s on %s: model %s, the table says %s", v->id, v->profile, shown, v->shown);
	if (v->lo < v->hi)
		cr_expect(x > v->lo && x < v->hi, "%s: %s outside the published %g..%g", v->id, shown, v->lo, v->hi);
	if (strcmp(v->err, "inside")) {
		snprintf(err, sizeof(err), "%+.1f%%", 100 * (x / v->published - 1));
		cr_expect_str_eq(err, v->err, "%s: error %s, the table says %s", v->id, err, v->err);
	}
	/* the README row prints the same figure and error */
	snprintf(path, sizeof(path), "%s/models/README.md", th_src());
	cr_assert_not_null(readme = th_slurp(path, &len));
	snprintf(row, sizeof(row), "\n| %s | ", v->id);
	line = strstr(readme, row);
	cr_assert_not_null(line, "models/README.md has no row %s", v->id);
	*strchr(line + 1, '\n') = 0;
	cr_expect(strstr(line, v->profile), "%s: %s", v->id, line);
	cr_expect(strstr(line, v->shown), "%s: %s", v->id, line);
	cr_expect(strstr(line, v->err), "%s: %s", v->id, line);
	free(readme);
}

/* Every row of the README table is pinned above (no row without a test). */
Test(validation, every_row_pinned)
{
	char path[1024], *readme, *p;
	size_t len, n = 0;

	snprintf(path, sizeof(path), "%s/models/README.md", th_src());
	cr_assert_not_null(readme = th_slurp(path, &len));
	for (p = readme; (p = strstr(p, "\n| V")); p++)
		n++;
	cr_expect_eq(n, 7, "models/README.md validation rows: %zu, this test pins 7", n);
	free(readme);
}
