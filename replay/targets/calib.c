// SPDX-License-Identifier: GPL-2.0
/* Fit, chart and profile of trimsim calibrate. See calib.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "traces/opts.h"
#include "replay/targets/calib.h"

#define PIB 1125899906842624.0
#define TIB 1099511627776.0

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

/* ---- SVG: log-log axes on whole decades (time) and powers of four (bytes) ---- */

#define W 720
#define H 440
#define ML 80
#define MR 160
#define MT 40
#define MB 50

struct axes {
	double x0, x1;		/* log2 bounds (bytes) */
	double y0, y1;		/* log10 bounds (seconds) */
};

static double px(const struct axes *a, double x)
{
	return ML + (log2(x) - a->x0) / (a->x1 - a->x0) * (W - ML - MR);
}

static double py(const struct axes *a, double y)
{
	return H - MB - (log10(y) - a->y0) / (a->y1 - a->y0) * (H - MT - MB);
}

static void bounds(const struct calib_series *s, size_t ns, struct axes *a)
{
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	size_t i, j;

	for (i = 0; i < ns; i++)
		for (j = 0; j < s[i].n; j++) {
			xmin = fmin(xmin, s[i].pts[j].x);
			xmax = fmax(xmax, s[i].pts[j].x);
			ymin = fmin(ymin, s[i].pts[j].y);
			ymax = fmax(ymax, s[i].pts[j].y);
		}
	if (!(xmax > 0)) {
		xmin = 4096, xmax = 1 << 20, ymin = 1e-6, ymax = 1e-3;
	}
	a->x0 = 2 * floor(log2(fmax(xmin, 1)) / 2);
	a->x1 = 2 * ceil(log2(xmax * 1.01) / 2);
	a->y0 = floor(log10(fmax(ymin, 1e-9)));
	a->y1 = ceil(log10(ymax * 1.01));
	if (a->x1 <= a->x0)
		a->x1 = a->x0 + 2;
	if (a->y1 <= a->y0)
		a->y1 = a->y0 + 1;
}

/* Text content, XML-escaped. */
static void put_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

static void draw_axes(FILE *f, const struct axes *a, const char *title)
{
	char buf[32];
	double e;

	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", W, H);
	fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">", ML);
	put_text(f, title);
	fputs("</text>\n", f);
	for (e = a->x0; e <= a->x1 + 1e-9; e += a->x1 - a->x0 > 20 ? 4 : 2) {
		double x = px(a, pow(2, e));

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", x, MT, x, H - MB);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n", x,
			H - MB + 16, fmt_bytes((uint64_t)pow(2, e), buf, sizeof(buf)));
	}
	for (e = a->y0; e <= a->y1 + 1e-9; e += 1) {
		double y = py(a, pow(10, e));

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML, y, W - MR, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n", ML - 6,
			y + 4, fmt_duration((uint64_t)(pow(10, e) * 1e9), buf, sizeof(buf)));
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">command size</text>\n",
		(ML + W - MR) / 2, H - 12);
	fprintf(f, "<text x=\"16\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 16 %d)\" "
		"text-anchor=\"middle\">latency</text>\n", (MT + H - MB) / 2, (MT + H - MB) / 2);
}

static void draw_series(FILE *f, const struct axes *a, const struct calib_series *s, int k)
{
	double x, lx;
	size_t j;
	int i;

	for (j = 0; j < s->n; j++)
		fprintf(f, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" fill-opacity=\"0.6\"/>\n",
			px(a, s->pts[j].x), py(a, s->pts[j].y), s->color);
	if (s->fit) {
		fprintf(f, "<polyline class=\"fit\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", s->color);
		for (i = 0; i <= 64; i++) {
			lx = a->x0 + (a->x1 - a->x0) * i / 64.0;
			x = pow(2, lx);
			if (calib__eval(s->fit, x) > 0)
				fprintf(f, "%.1f,%.1f ", px(a, x), py(a, fmax(calib__eval(s->fit, x), pow(10, a->y0))));
		}
		fprintf(f, "\"/>\n");
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", W - MR + 12,
		MT + 20 * k, s->color);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">", W - MR + 30, MT + 20 * k + 11);
	put_text(f, s->name);
	fputs("</text>\n", f);
}

int calib__svg(FILE *f, const char *title, const struct calib_series *s, size_t ns)
{
	struct axes a;
	size_t i;

	bounds(s, ns, &a);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n", W, H, W, H);
	draw_axes(f, &a, title);
	for (i = 0; i < ns; i++)
		draw_series(f, &a, &s[i], (int)i);
	fprintf(f, "</svg>\n");
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
	char a[32], b[32], c[32], d[32], e[32], g[32];

	snprintf(src, len,
		 "Measured by trimsim calibrate on %s (%s, %s) at %s, kernel %s, %s dispatch. "
		 "Discards of %s, each range written first (O_DIRECT, incompressible data) and "
		 "discarded at QD1 (mapped), then discarded again (already unmapped); non-contiguous "
		 "ranges so the block layer cannot merge them; %zu points. Fitted latency = base + "
		 "bytes / bw to each size's median by least squares weighted by 1/latency^2 (relative "
		 "residuals): mapped base %s, bw %s/s (rms rel. error %.0f%%); unmapped base %s, bw %s/s "
		 "(%.0f%%); jitter = rms relative spread of all mapped points around the fit. "
		 "4 KiB write during a discard took %s vs %s idle (discard %s): %s. QD sweep "
		 "(64 KiB discards): %.0f/s at QD1, best %.0f/s at QD%u, so channels = %u. qd = %u: "
		 "the depth the device target dispatches at by default, so this model and a replay "
		 "on the device queue alike (their latencies include the same queueing). Writes, "
		 "reads: QD1, 4 KiB to 4 MiB, same fit; flush: median of fsyncs.",
		 r->device, r->name, r->model, r->when, r->kernel, r->dispatch, r->sizes, r->npoints,
		 fmt_duration((uint64_t)(r->trim.base * 1e9), a, sizeof(a)),
		 bw(&r->trim) > 0 ? fmt_bytes((uint64_t)bw(&r->trim), b, sizeof(b)) : "unlimited",
		 100 * r->trim.rel_rms,
		 fmt_duration((uint64_t)(r->trim_unmapped.base * 1e9), c, sizeof(c)),
		 bw(&r->trim_unmapped) > 0 ? fmt_bytes((uint64_t)bw(&r->trim_unmapped), d, sizeof(d)) : "unlimited",
		 100 * r->trim_unmapped.rel_rms,
		 fmt_duration((uint64_t)(r->busy_write * 1e9), e, sizeof(e)),
		 fmt_duration((uint64_t)(r->idle_write * 1e9), g, sizeof(g)),
		 fmt_duration((uint64_t)(r->busy_discard * 1e9), a, sizeof(a)),
		 !r->queued_known ? "discards too fast to tell queued from non-queued (assumed non-queued)" :
		 r->queued_trim ? "writes pass discards (queued TRIM)" :
				  "writes wait for discards (non-queued TRIM)",
		 r->qd1_iops, r->best_iops, r->best_qd, r->channels, profile_qd(r));
}

json_t *calib__profile(const struct calib_result *r)
{
	json_t *o = json_object();
	char src[2048], desc[512];
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
	rc |= set(o, "jitter", json_real(fmin(fmax(r->jitter, 0), 0.9)));
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
