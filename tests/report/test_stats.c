// SPDX-License-Identifier: GPL-2.0
/* ministat-style statistics, cross-checked against Debian's ministat on the same numbers. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "replay/report/stats.h"

struct tcrit_case {
	unsigned df;
	double conf;
	double want;	/* from printed t tables (3 decimals) */
};

TestSuite(stats, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(stats, t_critical)
{
	static struct tcrit_case cases[] = {
		{ .df = 1, .conf = 0.95, .want = 12.706 },
		{ .df = 2, .conf = 0.95, .want = 4.303 },
		{ .df = 5, .conf = 0.95, .want = 2.571 },
		{ .df = 10, .conf = 0.95, .want = 2.228 },
		{ .df = 30, .conf = 0.95, .want = 2.042 },
		{ .df = 100, .conf = 0.95, .want = 1.984 },
		{ .df = 10, .conf = 0.99, .want = 3.169 },
		{ .df = 4, .conf = 0.80, .want = 1.533 },
		{ .df = 1000000, .conf = 0.95, .want = 1.960 },
	};
	return cr_make_param_array(struct tcrit_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct tcrit_case *c, stats, t_critical)
{
	double t = stat_t_crit(c->conf, c->df);

	cr_assert_float_eq(t, c->want, 0.0006, "df %u conf %g: %f, want %f", c->df, c->conf, t, c->want);
}

Test(stats, accumulator)
{
	struct stat_acc a;
	double v[] = { 1, 2, 3, 4, 5 };

	stat_acc__init(&a);
	for (int i = 0; i < 5; i++)
		stat_acc__add(&a, v[i]);
	cr_assert_float_eq(stat_mean(&a), 3.0, 1e-12);
	cr_assert_float_eq(stat_stddev(&a), 1.5811388300841898, 1e-12);
	cr_assert_float_eq(stat_median(v, 5), 3.0, 1e-12);
	cr_assert_float_eq(stat_median(v, 4), 2.5, 1e-12);
	cr_assert_eq(a.min, 1);
	cr_assert_eq(a.max, 5);
}

/* The in-place median (calibrate's samples): unsorted input, any n, NAN for none. */
Test(stats, median_inplace)
{
	double odd[] = { 9, 1, 5, 3, 7 }, even[] = { 4, 1, 3, 2 }, big[100];

	for (int i = 0; i < 100; i++)
		big[i] = (i * 37) % 100;
	cr_assert_float_eq(stat_median_inplace(odd, 5), 5.0, 1e-12);
	cr_assert_eq(odd[0], 1, "sorted in place");
	cr_assert_float_eq(stat_median_inplace(even, 4), 2.5, 1e-12);
	cr_assert_float_eq(stat_median_inplace(big, 100), 49.5, 1e-12);
	cr_assert(isnan(stat_median_inplace(odd, 0)));
	cr_assert(isnan(stat_median(odd, 0)));
}

/* Two samples as text (one number per line in a file, as ministat reads them). */
struct ms_case {
	char name[32];
	double a[12], b[12];
	int na, nb;
	bool differ;	/* what we expect ministat (and we) to say */
};

ParameterizedTestParameters(stats, versus_ministat)
{
	static struct ms_case cases[] = {
		{ .name = "clear", .a = { 1, 2, 3, 4, 5 }, .b = { 6, 7, 8, 9, 10.5 }, .na = 5, .nb = 5, .differ = true },
		{ .name = "overlap", .a = { 1, 2, 3, 4, 5 }, .b = { 3, 4, 5, 6, 7.5 }, .na = 5, .nb = 5, .differ = false },
		{ .name = "unequal-n", .a = { 12.0, 12.1, 11.9, 12.05, 11.95, 12.02 },
		  .b = { 12.3, 12.4, 12.35, 12.28 }, .na = 6, .nb = 4, .differ = true },
		/* seed 000: UFS TRIM consolidation on an SD card, 12 min 0 s vs 12 min 6 s, noisy */
		{ .name = "sdcard", .a = { 720.1, 718.4, 722.9, 719.0, 721.3, 717.8 },
		  .b = { 726.2, 723.9, 728.8, 725.0, 722.4, 727.5 }, .na = 6, .nb = 6, .differ = true },
		{ .name = "tiny", .a = { 1.0, 1.1, 1.2 }, .b = { 1.05, 1.15, 1.1 }, .na = 3, .nb = 3, .differ = false },
	};
	return cr_make_param_array(struct ms_case, cases, sizeof(cases) / sizeof(cases[0]));
}

static void write_sample(const char *path, const double *v, int n)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%.17g\n", v[i]);
	fclose(f);
}

ParameterizedTest(struct ms_case *c, stats, versus_ministat)
{
	char pa[512], pb[512], cmd[1200], *out = NULL;
	struct stat_acc a, b;
	struct stat_diff d;
	int st;

	snprintf(pa, sizeof(pa), "%s/a", th_dir());
	snprintf(pb, sizeof(pb), "%s/b", th_dir());
	write_sample(pa, c->a, c->na);
	write_sample(pb, c->b, c->nb);
	snprintf(cmd, sizeof(cmd), "ministat -A -c 95 %s %s", pa, pb);
	st = th_run(cmd, &out, NULL);
	cr_assert_eq(st, 0, "ministat failed (%d): is Debian's ministat installed?", st);
	cr_assert_not_null(out);

	stat_acc__init(&a);
	stat_acc__init(&b);
	for (int i = 0; i < c->na; i++)
		stat_acc__add(&a, c->a[i]);
	for (int i = 0; i < c->nb; i++)
		stat_acc__add(&b, c->b[i]);
	stat_compare(&a, &b, 0.95, &d);
	cr_assert(d.valid);
	cr_assert_eq(d.differ, c->differ, "%s: we say differ=%d", c->name, d.differ);

	/* "x   5   1   5   3   3   1.5811388": N Min Max Median Avg Stddev */
	const char *stats = strstr(out, "Stddev\n");

	cr_assert_not_null(stats, "%s", out);
	const char *lx = strstr(stats, "\nx "), *lp = strstr(stats, "\n+ ");
	double n, mn, mx, med, avg, sd;

	cr_assert(lx && lp, "%s", out);
	cr_assert_eq(sscanf(lx + 3, "%lf %lf %lf %lf %lf %lf", &n, &mn, &mx, &med, &avg, &sd), 6);
	cr_assert_float_eq(avg, stat_mean(&a), 1e-6 * fabs(avg) + 1e-9);
	cr_assert_float_eq(sd, stat_stddev(&a), 1e-6 * sd + 1e-7);
	cr_assert_eq(sscanf(lp + 3, "%lf %lf %lf %lf %lf %lf", &n, &mn, &mx, &med, &avg, &sd), 6);
	cr_assert_float_eq(avg, stat_mean(&b), 1e-6 * fabs(avg) + 1e-9);
	cr_assert_float_eq(sd, stat_stddev(&b), 1e-6 * sd + 1e-7);

	if (c->differ) {
		const char *p = strstr(out, "Difference at 95.0% confidence");
		double diff, pm, s;

		cr_assert_not_null(p, "ministat sees no difference for %s:\n%s", c->name, out);
		p = strchr(p, '\n');
		cr_assert_eq(sscanf(p, " %lf +/- %lf", &diff, &pm), 2);
		cr_assert_float_eq(diff, d.diff, 1e-5 * fabs(diff) + 1e-9);
		/* ministat's table stops at 3 decimals: allow 0.05% */
		cr_assert_float_eq(pm, d.plusminus, 5e-4 * pm);
		p = strstr(p, "pooled s = ");
		cr_assert_not_null(p);
		cr_assert_eq(sscanf(p, "pooled s = %lf", &s), 1);
		cr_assert_float_eq(s, d.pooled_s, 1e-5 * s);
	} else {
		cr_assert_not_null(strstr(out, "No difference proven at 95.0% confidence"), "%s", out);
	}
	free(out);
}
