/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trimsim calibrate: fitting measured latencies to the parametric model
 * (the models/profiles JSON files), drawing the fit, writing the profile.
 */
#ifndef TRIMSIM_CALIB_H
#define TRIMSIM_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

struct calib_point {
	double x;	/* bytes */
	double y;	/* seconds */
};

/* y = base + per_byte * x */
struct calib_fit {
	double base;		/* seconds */
	double per_byte;	/* seconds per byte, >= 0 */
	double rel_rms;		/* root mean square of (fit - y) / y */
	size_t n;
};

/*
 * Weighted least squares with weights 1/y^2, i.e. minimising relative
 * residuals, so 4 KiB points count as much as 1 GiB ones and the base is not
 * swamped by the per-byte term. A negative slope is refitted as a constant,
 * a negative intercept as a line through the origin. -EINVAL if n == 0 or a y <= 0.
 */
int calib__fit(const struct calib_point *p, size_t n, struct calib_fit *out);
double calib__eval(const struct calib_fit *f, double x);

/*
 * The models' jitter (service x (1 +/- jitter), uniform) that spreads like the
 * points around the fit: twice their median relative deviation. 0 or -ENOMEM.
 */
int calib__jitter(const struct calib_point *p, size_t n, const struct calib_fit *f, double *out);

struct calib_series {
	const char *name;
	size_t color;			/* svg_color() palette index */
	const struct calib_point *pts;
	size_t n;
	const struct calib_fit *fit;	/* may be NULL */
};

/* Log-log scatter of latency against size with the fitted lines; a self-contained SVG (replay/report/svg.h). */
int calib__svg(FILE *f, const char *title, const struct calib_series *s, size_t ns);

/* What a calibration measured; the profile is derived from it. */
struct calib_result {
	char device[256], name[64], model[160], kernel[128], when[32], dispatch[16];
	uint64_t size, discard_max, granularity;
	uint32_t max_segments;
	struct calib_fit trim, trim_unmapped, write, read;
	double flush;			/* seconds, median */
	double jitter;			/* calib__jitter() of the mapped points around the fit */
	unsigned best_qd, channels;	/* QD sweep: the depth of best throughput, best / QD1 throughput */
	unsigned dispatch_qd;		/* the depth the device target dispatched at (the profile's qd) */
	double qd1_iops, best_iops;
	double idle_write, busy_write, busy_discard;	/* seconds, medians */
	bool queued_trim, queued_known;
	size_t npoints;
	char sizes[64];			/* "4 KiB .. 16 MiB" */
};

/* The profile object (keys of models/profile.c's parametric table, durations in seconds). */
json_t *calib__profile(const struct calib_result *r);

#endif
