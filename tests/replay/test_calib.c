// SPDX-License-Identifier: GPL-2.0
/* calibrate's fit, chart and profile, on synthetic points (no devices). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/targets/calib.h"
#include "replay/targets/rd_core.h"
#include "tests/common/helpers.h"
#include "models/model.h"

struct fit_case {
	char name[32];
	double base, per_byte, noise;	/* noise: relative, alternating sign */
	double want_base, want_per_byte, tol;
};

static struct fit_case fit_cases[] = {
	{ .name = "sf2281-like", .base = 9.5e-3, .per_byte = 1 / 32e9, .noise = 0,
	  .want_base = 9.5e-3, .want_per_byte = 1 / 32e9, .tol = 1e-6 },
	{ .name = "fast, byte-bound", .base = 50e-6, .per_byte = 1 / 1e9, .noise = 0.05,
	  .want_base = 50e-6, .want_per_byte = 1 / 1e9, .tol = 0.10 },
	{ .name = "constant", .base = 5e-3, .per_byte = 0, .noise = 0.02,
	  .want_base = 5e-3, .want_per_byte = 0, .tol = 0.05 },
};

TestSuite(calib, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(calib, fit_recovers_line)
{
	return cr_make_param_array(struct fit_case, fit_cases, sizeof(fit_cases) / sizeof(fit_cases[0]));
}

/* Sizes 4 KiB .. 1 GiB, four points each. */
ParameterizedTest(struct fit_case *c, calib, fit_recovers_line)
{
	struct calib_point p[64];
	struct calib_fit f;
	size_t n = 0;
	double x;
	int k;

	for (x = 4096; x <= 1 << 30; x *= 4)
		for (k = 0; k < 4; k++, n++)
			p[n] = (struct calib_point){ x, (c->base + c->per_byte * x) *
							(1 + (k % 2 ? c->noise : -c->noise)) };
	cr_assert_eq(calib__fit(p, n, &f), 0);
	cr_assert_float_eq(f.base, c->want_base, c->tol * c->want_base + 1e-12, "%s: base %g", c->name, f.base);
	cr_assert_float_eq(f.per_byte, c->want_per_byte, c->tol * c->want_per_byte + 1e-18,
			   "%s: per_byte %g", c->name, f.per_byte);
	cr_assert_geq(f.per_byte, 0);
	cr_assert_eq(f.n, n);
}

Test(calib, fit_clamps_negative_slope_and_rejects_bad_points)
{
	struct calib_point down[] = { { 4096, 2e-3 }, { 1 << 20, 1.5e-3 }, { 1 << 26, 1e-3 } };
	struct calib_point bad[] = { { 4096, 0 } };
	struct calib_fit f;

	cr_assert_eq(calib__fit(down, 3, &f), 0);
	cr_assert_eq(f.per_byte, 0);
	cr_assert(f.base > 1e-3 && f.base < 2e-3, "base %g", f.base);
	cr_assert_eq(calib__fit(bad, 1, &f), -EINVAL);
	cr_assert_eq(calib__fit(down, 0, &f), -EINVAL);
}

Test(calib, svg_has_every_point_and_both_lines)
{
	struct calib_point a[] = { { 4096, 1e-4 }, { 1 << 20, 1e-3 }, { 1 << 24, 1e-2 } };
	struct calib_point b[] = { { 4096, 1e-5 }, { 1 << 20, 2e-5 } };
	struct calib_fit fa, fb;
	char *buf = NULL, *s;
	size_t len = 0, circles = 0;
	FILE *f = open_memstream(&buf, &len);
	struct calib_series ser[] = { { "mapped", 1, a, 3, &fa }, { "unmapped", 0, b, 2, &fb } };

	cr_assert_eq(calib__fit(a, 3, &fa), 0);
	cr_assert_eq(calib__fit(b, 2, &fb), 0);
	cr_assert_eq(calib__svg(f, "t & <x>", ser, 2), 0);
	fclose(f);
	for (s = buf; (s = strstr(s, "<circle")); s++)
		circles++;
	cr_assert_eq(circles, 5);
	cr_assert_not_null(strstr(buf, "data-label=\"mapped\""));
	cr_assert_not_null(strstr(strstr(buf, "data-label=\"unmapped\""), "<polyline"), "the fit is drawn");
	cr_assert_not_null(strstr(buf, "<style>"), "a standalone chart carries its style");
	cr_assert_not_null(strstr(buf, "</svg>"));
	cr_assert_null(strstr(buf, "<x>"), "title must be escaped");
	free(buf);
}

Test(calib, profile_has_the_parametric_keys)
{
	static const char *const keys[] = { "model", "source", "capacity", "qd", "channels", "queued_trim",
		"discard_max_bytes", "max_discard_segments", "discard_granularity", "trim_base",
		"trim_unmapped_base", "trim_bw", "trim_unmapped_bw", "read_base", "write_base",
		"read_bw", "write_bw", "flush_base" };
	struct calib_result r = { .size = 1 << 30, .discard_max = 1 << 30, .granularity = 4096,
				  .max_segments = 1, .trim = { 5e-3, 1e-9, 0.01, 8 },
				  .trim_unmapped = { 1e-3, 0, 0.01, 8 }, .write = { 2e-5, 1e-9, 0, 8 },
				  .read = { 1e-5, 1e-9, 0, 8 }, .flush = 1e-4, .best_qd = 4, .channels = 1,
				  .dispatch_qd = 32 };
	json_t *p = calib__profile(&r);
	size_t i;

	cr_assert_not_null(p);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		cr_assert_not_null(json_object_get(p, keys[i]), "missing %s", keys[i]);
	cr_assert_str_eq(json_string_value(json_object_get(p, "model")), "parametric");
	cr_assert_float_eq(json_real_value(json_object_get(p, "trim_base")), 5e-3, 1e-12);
	cr_assert_eq(json_integer_value(json_object_get(p, "trim_bw")), 1000000000);
	cr_assert_eq(json_integer_value(json_object_get(p, "trim_unmapped_bw")), 0, "no per-byte cost");
	/* qd: the depth the device was dispatched at (the device target's), not the best-throughput depth */
	cr_assert_eq(json_integer_value(json_object_get(p, "qd")), 32);
	cr_assert_eq(json_integer_value(json_object_get(p, "channels")), 1);
	cr_assert_not_null(strstr(json_string_value(json_object_get(p, "source")), "qd = 32: the depth the device target"));
	json_decref(p);
}

Test(calib, pattern_is_seeded_and_incompressible)
{
	static uint8_t a[1 << 16], b[1 << 16];
	unsigned hist[256] = { 0 };
	double h = 0;
	size_t i;

	rd_fill_random(a, sizeof(a), 1);
	rd_fill_random(b, sizeof(b), 1);
	cr_assert_eq(memcmp(a, b, sizeof(a)), 0, "same seed, same data");
	rd_fill_random(b, sizeof(b), 2);
	cr_assert_neq(memcmp(a, b, sizeof(a)), 0);
	for (i = 0; i < sizeof(a); i++)
		hist[a[i]]++;
	for (i = 0; i < 256; i++)
		if (hist[i])
			h -= hist[i] / 65536.0 * log2(hist[i] / 65536.0);
	cr_assert_gt(h, 7.99, "entropy %.4f bits/byte", h);
}

/* Extreme measurements still give a profile the models accept (every key within its range). */
Test(calib, profile_loads_even_from_extreme_fits)
{
	struct calib_result r = { .size = 1 << 20, .discard_max = 0, .granularity = 0,
				  .max_segments = 0, .trim = { 20, 1e-15, 3.0, 2 },
				  .trim_unmapped = { 0, 0, 0, 2 }, .write = { 0, 1e-15, 0, 2 },
				  .read = { 0, 10, 0, 2 }, .flush = 0, .best_qd = 0, .channels = 0 };
	char path[512], err[512] = "";
	struct model_profile *mp;
	json_t *p = calib__profile(&r);

	cr_assert_not_null(p);
	snprintf(path, sizeof(path), "%s/x.json", th_dir());
	cr_assert_eq(json_dump_file(p, path, 0), 0);
	json_decref(p);
	mp = model_profile__load(path, err, sizeof(err));
	cr_assert_not_null(mp, "%s", err);
	model_profile__free(mp);
}

/*
 * The source states each figure the calibration measured: the discard the
 * queued-TRIM test timed is its own figure, not the fitted base (describe()
 * formatted both into one buffer, so both read the same: "(discard 10.5 us)"
 * beside a printed "discard 182 us").
 */
Test(calib, source_names_the_discard_the_write_waited_for)
{
	struct calib_result r = { .size = 1 << 30, .discard_max = 1 << 30, .granularity = 4096,
				  .max_segments = 1, .trim = { 10.5e-6, 1e-10, 0.01, 8 },
				  .trim_unmapped = { 7e-6, 0, 0.01, 8 }, .write = { 2e-5, 1e-9, 0, 8 },
				  .read = { 1e-5, 1e-9, 0, 8 }, .flush = 1e-4, .best_qd = 4, .channels = 1,
				  .dispatch_qd = 32, .idle_write = 8.5e-6, .busy_write = 182e-6,
				  .busy_discard = 181e-6, .queued_known = true };
	json_t *p = calib__profile(&r);
	const char *src;

	cr_assert_not_null(p);
	src = json_string_value(json_object_get(p, "source"));
	cr_assert_not_null(strstr(src, "mapped base 10.5 us"), "%s", src);
	cr_assert_not_null(strstr(src, "took 182 us vs 8.5 us idle (discard 181 us)"), "%s", src);
	json_decref(p);
}

/*
 * jitter is the models' own parameter (service x (1 + jitter x u), u uniform in
 * [-1, 1)): points spread that way around the fit give it back, and one cold
 * command at 10x does not move it (the rms spread it was read 0.2 / sqrt(3) for
 * the first and hit the 0.9 clamp with the second).
 */
Test(calib, jitter_is_the_models_uniform_spread)
{
	struct calib_point p[201];
	struct calib_fit f = { .base = 10e-6, .per_byte = 1e-10 };
	double j, x, fit;
	size_t i;

	for (i = 0; i < 200; i++) {
		x = 4096 << (i % 8);
		fit = calib__eval(&f, x);
		/* u evenly over [-1, 1): the deviations a 0.2 jitter draws */
		p[i] = (struct calib_point){ x, fit * (1 + 0.2 * (((double)i + 0.5) / 100.0 - 1)) };
	}
	cr_assert_eq(calib__jitter(p, 200, &f, &j), 0);
	cr_assert_float_eq(j, 0.2, 0.005, "jitter %g", j);
	p[200] = (struct calib_point){ 4096, calib__eval(&f, 4096) * 10 };
	cr_assert_eq(calib__jitter(p, 201, &f, &j), 0);
	cr_assert_float_eq(j, 0.2, 0.005, "one outlier: jitter %g", j);
	cr_assert_eq(calib__jitter(p, 0, &f, &j), 0);
	cr_assert_eq(j, 0);
}
