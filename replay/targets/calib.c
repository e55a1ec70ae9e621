// SPDX-License-Identifier: GPL-2.0
/* Fit, chart and profile of trimsim calibrate. See calib.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "traces/figure.h"
#include "traces/opts.h"
#include "replay/targets/calib.h"
#include "replay/report/stats.h"
#include "replay/report/svg.h"

#define PIB 1125899906842624.0
#define TIB 1099511627776.0
#define JITTER_MAX 0.9	/* models/model_int.h: the jitter option's maximum */

double calib__eval(const struct calib_fit *f, double x)
{
	return f->base + f->per_byte * x;
}

static void rel_rms(const struct calib_point *p, size_t n, struct calib_fit *f)
{
	double s = 0, r;
	size_t i;

	for (i = 0; i < n; i++) {
		r = (calib__eval(f, p[i].x) - p[i].y) / p[i].y;
		s += r * r;
	}
	f->rel_rms = sqrt(s / (double)n);
	f->n = n;
}

int calib__fit(const struct calib_point *p, size_t n, struct calib_fit *out)
{
	double S = 0, Sx = 0, Sy = 0, Sxx = 0, Sxy = 0, w, d;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!(p[i].y > 0) || p[i].x < 0)
			return -EINVAL;
		w = 1.0 / (p[i].y * p[i].y);
		S += w;
		Sx += w * p[i].x;
		Sy += w * p[i].y;
		Sxx += w * p[i].x * p[i].x;
		Sxy += w * p[i].x * p[i].y;
	}
	d = S * Sxx - Sx * Sx;
	if (d > 0 && d > 1e-12 * S * Sxx) {
		out->per_byte = (S * Sxy - Sx * Sy) / d;
		out->base = (Sy - out->per_byte * Sx) / S;
	} else {			/* one size only: a constant */
		out->base = Sy / S;
	}
	if (out->per_byte < 0) {
		out->per_byte = 0;
		out->base = Sy / S;
	}
	if (out->base < 0) {
		out->base = 0;
		out->per_byte = Sxx > 0 ? Sxy / Sxx : 0;
	}
	rel_rms(p, n, out);
	return 0;
}

/*
 * The models draw a command's service time as fit x (1 + jitter x u), u uniform
 * in [-1, 1) (models/sched.c jitter_factor()), whose relative deviations |u| x
 * jitter have the median jitter / 2. So jitter is twice the median relative
 * deviation of the points from the fit: the spread the model then draws is the
 * one measured (the rms deviation it used to be is jitter / sqrt(3) of a
 * uniform, and one cold 100 us command among 4 KiB ones at 11 us took it to
 * the 0.9 clamp), and a few outliers do not decide it.
 */
int calib__jitter(const struct calib_point *p, size_t n, const struct calib_fit *f, double *out)
{
	double *e, y;
	size_t i;

	*out = 0;
	if (!n)
		return 0;
	e = malloc(n * sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		y = calib__eval(f, p[i].x);
		e[i] = y > 0 ? fabs(p[i].y - y) / y : 0;
	}
	*out = 2 * stat_median_inplace(e, n);
	free(e);
	return 0;
}

/* ---- SVG (replay/report/svg.c): log-log, latency in ns against command size ---- */

#define FIT_STEPS 64

int calib__svg(FILE *f, const char *title, const struct calib_series *s, size_t ns)
{
	struct svg_chart ch = { .logx = true, .logy = true, .xfmt = SAX_BYTES, .yfmt = SAX_NS, .w = 720, .h = 440,
				.x0 = INFINITY, .y0 = INFINITY, .standalone = true };
	double x[FIT_STEPS + 1], y[FIT_STEPS + 1];
	size_t i, j;

	for (i = 0; i < ns; i++)
		for (j = 0; j < s[i].n; j++) {
			ch.x0 = fmin(ch.x0, fmax(s[i].pts[j].x, 1));
			ch.x1 = fmax(ch.x1, s[i].pts[j].x * 1.01);
			ch.y0 = fmin(ch.y0, fmax(s[i].pts[j].y, 1e-9) * 1e9);
			ch.y1 = fmax(ch.y1, s[i].pts[j].y * 1.01e9);
		}
	if (!(ch.x1 > 0)) {
		ch.x0 = 4096, ch.x1 = 1 << 20, ch.y0 = 1e3, ch.y1 = 1e6;
	}
	ch.y0 = pow(10, floor(log10(ch.y0)));
	ch.y1 = pow(10, ceil(log10(ch.y1)));
	svg__begin(&ch, f, "calibrate", "calibrate", title, "command size", "latency");
	for (i = 0; i < ns; i++) {
		size_t n = 0;

		for (j = 0; j < s[i].n; j++) {	/* the points, FIT_STEPS + 1 at a time */
			x[n] = s[i].pts[j].x;
			y[n++] = s[i].pts[j].y * 1e9;
			if (n == FIT_STEPS + 1 || j + 1 == s[i].n) {
				svg__points(&ch, x, y, n, s[i].color);
				n = 0;
			}
		}
		for (j = 0; s[i].fit && j <= FIT_STEPS; j++, n++) {
			x[n] = exp2(log2(ch.x0) + (log2(ch.x1) - log2(ch.x0)) * (double)j / FIT_STEPS);
			y[n] = calib__eval(s[i].fit, x[n]) > 0 ? fmax(calib__eval(s[i].fit, x[n]) * 1e9, ch.y0) : NAN;
		}
		svg__series(&ch, x, y, n, s[i].name, s[i].color, false);
	}
	svg__end(&ch);
	return ferror(f) ? -EIO : 0;
}

/* ---- profile ---- */

static double bw(const struct calib_fit *f)
{
	return f->per_byte > 0 ? round(fmin(1.0 / f->per_byte, PIB)) : 0;
}

/* Durations in seconds within the models' range (models/profile.c: 0 .. 10 s). */
static json_t *dur(double s)
{
	return json_real(fmin(fmax(s, 0), 10));
}

static int set(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v);
}

/*
 * The profile's qd is the depth the device target dispatches at (the depth the
 * device was measured at), not the depth of best throughput: the model's qd is
 * how many commands the host keeps in flight, channels how many the device
 * serves at once. A loop device takes 32 and serves 1: at qd 1 the model kept
 * the queueing out of every latency that the device showed (issue 16).
 */
static unsigned profile_qd(const struct calib_result *r)
{
	unsigned qd = r->dispatch_qd ? r->dispatch_qd : r->best_qd;

	qd = qd ? qd : 1;
	return qd < r->channels ? r->channels : qd;
}

static void describe(const struct calib_result *r, char *src, size_t len)
{
	char a[32], b[32], c[32], d[32], e[32], g[32], h[32], e1[32], e2[32], q1[32], q2[32], jit[64];

	if (r->jitter > JITTER_MAX)
		snprintf(jit, sizeof(jit), "%.2f (%.3g measured, the models' limit)", JITTER_MAX, r->jitter);
	else
		snprintf(jit, sizeof(jit), "%.3g", r->jitter);

	snprintf(src, len,
		 "Measured by trimsim calibrate on %s (%s, %s) at %s, kernel %s, %s dispatch. "
		 "Discards of %s, each range written first (O_DIRECT, incompressible data) and "
		 "discarded at QD1 (mapped), then discarded again (already unmapped); non-contiguous "
		 "ranges so the block layer cannot merge them; %zu points. Fitted latency = base + "
		 "bytes / bw to each size's median by least squares weighted by 1/latency^2 (relative "
		 "residuals): mapped base %s, bw %s/s (rms rel. error %s); unmapped base %s, bw %s/s "
		 "(%s); jitter %s: twice the median relative deviation of the mapped points from the fit "
		 "(the models draw a uniform 1 +/- jitter, whose median deviation is jitter / 2). "
		 "4 KiB write during a discard took %s vs %s idle (discard %s): %s. QD sweep "
		 "(64 KiB discards): %s at QD1, best %s at QD%u, so channels = %u. qd = %u: "
		 "the depth the device target dispatches at by default, so this model and a replay "
		 "on the device queue alike (their latencies include the same queueing). Writes, "
		 "reads: QD1, 4 KiB to 4 MiB, same fit; flush: median of fsyncs.",
		 r->device, r->name, r->model, r->when, r->kernel, r->dispatch, r->sizes, r->npoints,
		 fmt_duration((uint64_t)(r->trim.base * 1e9), a, sizeof(a)),
		 bw(&r->trim) > 0 ? fmt_bytes((uint64_t)bw(&r->trim), b, sizeof(b)) : "unlimited",
		 fig_format(FIG_SHARE, r->trim.rel_rms, e1, sizeof(e1)),
		 fmt_duration((uint64_t)(r->trim_unmapped.base * 1e9), c, sizeof(c)),
		 bw(&r->trim_unmapped) > 0 ? fmt_bytes((uint64_t)bw(&r->trim_unmapped), d, sizeof(d)) : "unlimited",
		 fig_format(FIG_SHARE, r->trim_unmapped.rel_rms, e2, sizeof(e2)), jit,
		 fmt_duration((uint64_t)(r->busy_write * 1e9), e, sizeof(e)),
		 fmt_duration((uint64_t)(r->idle_write * 1e9), g, sizeof(g)),
		 fmt_duration((uint64_t)(r->busy_discard * 1e9), h, sizeof(h)),
		 !r->queued_known ? "discards too fast to tell queued from non-queued (assumed non-queued)" :
		 r->queued_trim ? "writes pass discards (queued TRIM)" :
				  "writes wait for discards (non-queued TRIM)",
		 fig_format(FIG_RATE, r->qd1_iops, q1, sizeof(q1)), fig_format(FIG_RATE, r->best_iops, q2, sizeof(q2)),
		 r->best_qd, r->channels, profile_qd(r));
}

json_t *calib__profile(const struct calib_result *r)
{
	json_t *o = json_object();
	char src[3072], desc[512];
	int rc = 0;

	if (!o)
		return NULL;
	describe(r, src, sizeof(src));
	snprintf(desc, sizeof(desc), "%s (%s), calibrated", r->model, r->name);
	rc |= set(o, "model", json_string("parametric"));
	rc |= set(o, "description", json_string(desc));
	rc |= set(o, "source", json_string(src));
	rc |= set(o, "capacity", json_integer((json_int_t)fmax((double)r->size, 1048576)));
	rc |= set(o, "qd", json_integer(profile_qd(r)));
	rc |= set(o, "channels", json_integer(r->channels ? r->channels : 1));
	rc |= set(o, "queued_trim", json_boolean(r->queued_trim));
	rc |= set(o, "discard_supported", json_boolean(r->granularity > 0 && r->discard_max > 0));
	rc |= set(o, "discard_max_bytes", json_integer((json_int_t)(r->discard_max >= 512 ? r->discard_max : 512)));
	rc |= set(o, "max_discard_segments", json_integer(r->max_segments ? r->max_segments : 1));
	rc |= set(o, "discard_granularity",
		  json_integer((json_int_t)fmin(fmax((double)r->granularity, 512), 1073741824)));
	rc |= set(o, "jitter", json_real(fmin(fmax(r->jitter, 0), JITTER_MAX)));
	rc |= set(o, "read_base", dur(r->read.base));
	rc |= set(o, "write_base", dur(r->write.base));
	rc |= set(o, "flush_base", dur(r->flush));
	rc |= set(o, "trim_base", dur(r->trim.base));
	rc |= set(o, "trim_per_range", json_real(0));
	rc |= set(o, "trim_unmapped_base", dur(r->trim_unmapped.base));
	rc |= set(o, "trim_bw", json_integer((json_int_t)bw(&r->trim)));
	rc |= set(o, "read_bw", json_integer((json_int_t)fmin(fmax(bw(&r->read), 1024), TIB)));
	rc |= set(o, "write_bw", json_integer((json_int_t)fmin(fmax(bw(&r->write), 1024), TIB)));
	rc |= set(o, "trim_unmapped_bw", json_integer((json_int_t)bw(&r->trim_unmapped)));
	rc |= set(o, "initially_mapped", json_true());
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}
