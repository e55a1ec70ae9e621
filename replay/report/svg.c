// SPDX-License-Identifier: GPL-2.0
/* SVG charts (lines, points, bars) for the HTML reports (see svg.h). */
#include <math.h>
#include <string.h>

#include "traces/figure.h"
#include "replay/report/svg.h"

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

const char *svg_color(size_t i)
{
	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

void svg_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

const char *svg_escs(const char *s, char *buf, size_t len)
{
	size_t at = 0;

	for (; *s && at + 1 < len; s++) {
		const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;" : NULL;
		size_t n = e ? strlen(e) : 1;

		if (at + n >= len)
			break;
		memcpy(buf + at, e ? e : s, n);
		at += n;
	}
	if (len)
		buf[at] = 0;
	return buf;
}

static double tx(const struct svg_chart *c, double x)
{
	double a = c->logx ? log10(c->x0) : c->x0, b = c->logx ? log10(c->x1) : c->x1;
	double v = c->logx ? log10(x) : x;

	return c->ml + (v - a) / (b - a) * (c->w - c->ml - c->mr);
}

static double ty(const struct svg_chart *c, double y)
{
	double a = c->logy ? log10(c->y0) : c->y0, b = c->logy ? log10(c->y1) : c->y1;
	double v = c->logy ? log10(y) : y;

	return c->h - c->mb - (v - a) / (b - a) * (c->h - c->mt - c->mb);
}

/* Tick labels through the one formatter (traces/figure.h), as the tables spell figures. */
static void label(char *buf, size_t len, enum svg_axis_fmt fmt, double v)
{
	switch (fmt) {
	case SAX_NS: fig_format(FIG_NS, v, buf, len); return;
	case SAX_BYTES: fig_format(FIG_BYTES, v, buf, len); return;
	case SAX_SECONDS: fig_format(FIG_NS, v * 1e9, buf, len); return;
	case SAX_PCT: fig_format(FIG_SHARE, v / 100.0, buf, len); return;
	default: fig_format(FIG_COUNT, v, buf, len); return;	/* "1500", as the tables count: not "1.5e+03" */
	}
}

/* 1-2-5 steps (powers of two for bytes), about 5 ticks. */
static double nice_step(double span, bool bytes)
{
	double raw = span / 5, p;

	if (raw <= 0)
		return 1;
	if (bytes && raw >= 1) {
		p = exp2(ceil(log2(raw)));
		return p;
	}
	p = pow(10, floor(log10(raw)));
	return raw / p < 1.5 ? p : raw / p < 3.5 ? 2 * p : raw / p < 7.5 ? 5 * p : 10 * p;
}

static void tick(struct svg_chart *c, bool xaxis, double v)
{
	char raw[32], buf[64];

	label(raw, sizeof(raw), xaxis ? c->xfmt : c->yfmt, v);
	svg_escs(raw, buf, sizeof(buf));
	if (xaxis)
		fprintf(c->f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			tx(c, v), c->mt, tx(c, v), c->h - c->mb, tx(c, v), c->h - c->mb + 14, buf);
	else
		fprintf(c->f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			c->ml, ty(c, v), c->w - c->mr, ty(c, v), c->ml - 4, ty(c, v) + 4, buf);
}

static void axis(struct svg_chart *c, bool xaxis)
{
	double a = xaxis ? c->x0 : c->y0, b = xaxis ? c->x1 : c->y1;
	bool lg = xaxis ? c->logx : c->logy;
	enum svg_axis_fmt fmt = xaxis ? c->xfmt : c->yfmt;

	if (lg && fmt == SAX_BYTES) {
		double k = ceil((log2(b) - log2(a)) / 7);	/* at most ~7 ticks */

		for (double d = exp2(ceil(log2(a))); d <= b * 1.0000001; d *= exp2(k < 1 ? 1 : k))
			tick(c, xaxis, d);
		return;
	}
	if (lg) {
		for (double d = pow(10, ceil(log10(a) - 1e-9)); d <= b * 1.0000001; d *= 10)
			tick(c, xaxis, d);
		return;
	}
	double st = nice_step(b - a, fmt == SAX_BYTES);

	for (double v = ceil(a / st) * st; v <= b + st * 1e-9; v += st)
		tick(c, xaxis, v);
}

void svg__begin(struct svg_chart *c, FILE *f, const char *id, const char *kind, const char *title,
		const char *xlabel, const char *ylabel)
{
	c->f = f;
	c->w = c->w ? c->w : 560;
	c->h = c->h ? c->h : 300;
	c->ml = 64;
	c->mr = 170;
	c->mt = 28;
	c->mb = 40;
	c->nseries = 0;
	if (!(c->x1 > c->x0))
		c->x1 = c->x0 + 1;
	if (c->logx && c->xfmt == SAX_BYTES) {
		c->x0 = exp2(floor(log2(c->x0)));
		c->x1 = exp2(ceil(log2(c->x1)));
	} else if (c->logx) {
		c->x0 = pow(10, floor(log10(c->x0) + 1e-9));
		c->x1 = pow(10, ceil(log10(c->x1) - 1e-9));
	}
	if (!(c->y1 > c->y0))
		c->y1 = c->y0 + 1;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"%s\" data-chart=\"%s\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n<title>", id, kind, c->w, c->h, c->w,
		c->h);
	svg_escape(f, title);
	fputs("</title>\n", f);
	if (c->standalone)
		fprintf(f, "<style>svg.chart{font-family:sans-serif}" SVG_CSS "</style>\n"
			"<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", c->w, c->h);
	fprintf(f, "<text class=\"ttl\" x=\"%d\" y=\"16\">", c->ml);
	svg_escape(f, title);
	fputs("</text>\n", f);
	axis(c, true);
	axis(c, false);
	fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", c->ml, c->mt,
		c->w - c->ml - c->mr, c->h - c->mt - c->mb);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (c->ml + c->w - c->mr) / 2, c->h - 6);
	svg_escape(f, xlabel);
	fprintf(f, "</text>\n<text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">",
		(c->mt + c->h - c->mb) / 2, (c->mt + c->h - c->mb) / 2);
	svg_escape(f, ylabel);
	fputs("</text>\n", f);
}

static bool inside(const struct svg_chart *c, double x, double y)
{
	if (isnan(x) || isnan(y) || (c->logx && x <= 0) || (c->logy && y <= 0))
		return false;
	return true;
}

/* The series' legend entry (closes the series' group). */
static void legend(struct svg_chart *c, const char *lbl)
{
	int ly = c->mt + 6 + 14 * (int)c->nseries;

	fprintf(c->f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\"/><text stroke=\"none\" fill=\"#000\" "
		"x=\"%d\" y=\"%d\">", c->w - c->mr + 8, ly, c->w - c->mr + 22, ly + 9);
	if (strlen(lbl) > 24) {
		char shortl[32];

		snprintf(shortl, sizeof(shortl), "%.22s..", lbl);
		svg_escape(c->f, shortl);
	} else {
		svg_escape(c->f, lbl);
	}
	fputs("</text>\n</g>\n", c->f);
	c->nseries++;
}

void svg__series(struct svg_chart *c, const double *x, const double *y, size_t n, const char *lbl,
		 size_t color, bool markers)
{
	const char *col = svg_color(color);
	bool open = false;

	fprintf(c->f, "<g class=\"series\" data-label=\"");
	svg_escape(c->f, lbl);
	fprintf(c->f, "\" stroke=\"%s\" fill=\"%s\">\n", col, col);
	for (size_t i = 0; i < n; i++) {
		if (!inside(c, x[i], y[i])) {
			if (open)
				fputs("\"/>\n", c->f);
			open = false;
			continue;
		}
		if (!open)
			fputs("<polyline fill=\"none\" points=\"", c->f);
		fprintf(c->f, "%s%.1f,%.1f", open ? " " : "", tx(c, x[i]), ty(c, y[i]));
		open = true;
	}
	if (open)
		fputs("\"/>\n", c->f);
	for (size_t i = 0; markers && i < n; i++)
		if (inside(c, x[i], y[i]))
			fprintf(c->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>\n", tx(c, x[i]), ty(c, y[i]));
	legend(c, lbl);
}

void svg__bars(struct svg_chart *c, const double *lo, const double *hi, const double *y, size_t n, const char *lbl,
	       size_t color, size_t k, size_t nk)
{
	const char *col = svg_color(color);

	fprintf(c->f, "<g class=\"bars\" data-label=\"");
	svg_escape(c->f, lbl);
	fprintf(c->f, "\" stroke=\"%s\" fill=\"%s\">\n", col, col);
	for (size_t i = 0; i < n; i++) {
		if (!inside(c, lo[i], y[i]) || !inside(c, hi[i], y[i]) || !(y[i] > c->y0))
			continue;
		double a = tx(c, lo[i]), w = (tx(c, hi[i]) - a) / (double)(nk ? nk : 1), top = ty(c, fmin(y[i], c->y1));

		fprintf(c->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", a + w * (double)k + 0.5,
			top, fmax(w - 1, 0.5), ty(c, c->y0) - top);
	}
	legend(c, lbl);
}

void svg__points(struct svg_chart *c, const double *x, const double *y, size_t n, size_t color)
{
	const char *col = svg_color(color);

	fprintf(c->f, "<g class=\"points\" fill=\"%s\" fill-opacity=\"0.6\">\n", col);
	for (size_t i = 0; i < n; i++)
		if (inside(c, x[i], y[i]))
			fprintf(c->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>\n", tx(c, x[i]), ty(c, y[i]));
	fputs("</g>\n", c->f);
}

void svg__end(struct svg_chart *c)
{
	fputs("</svg>\n", c->f);
}
