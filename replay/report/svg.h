/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tree's SVG writer: a chart with linear or log10 axes, nice ticks,
 * polylines, markers, bars and a legend, for the HTML report and calibrate's chart.
 * Output is well-formed XML (the report is polyglot XHTML / HTML5), no
 * scripts, no external resources.
 */
#ifndef TRIMSIM_REPORT_SVG_H
#define TRIMSIM_REPORT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The charts' style: the HTML report puts it in its stylesheet, a standalone chart in its own <style>. */
#define SVG_CSS ".chart text{font-size:11px;fill:#000;stroke:none}.chart .ttl{font-weight:bold;font-size:12px}" \
	".chart .grid{stroke:#e4e4e4}.chart .frame{fill:none;stroke:#888}" \
	".chart polyline{stroke-width:1.6}"

enum svg_axis_fmt { SAX_COUNT, SAX_NS, SAX_BYTES, SAX_SECONDS, SAX_PCT };

struct svg_chart {
	FILE *f;
	double x0, x1, y0, y1;		/* data range */
	bool logx, logy;
	enum svg_axis_fmt xfmt, yfmt;
	int w, h;			/* pixels */
	int ml, mr, mt, mb;		/* margins */
	size_t nseries;
	bool standalone;		/* an SVG file of its own: carries SVG_CSS and a white background */
};

/* kind goes into data-chart (the tests look for it); id must be unique in the page. */
void svg__begin(struct svg_chart *c, FILE *f, const char *id, const char *kind, const char *title,
		const char *xlabel, const char *ylabel);
/* One series: n points; NAN points break the line. Style: steps (histogram-like) or straight. */
/* color: palette index (the policy's position, so a policy keeps its colour across charts). */
void svg__series(struct svg_chart *c, const double *x, const double *y, size_t n, const char *label,
		 size_t color, bool markers);
/*
 * A histogram's bars: bar i spans [lo[i], hi[i]) on x, from y0 up to y[i]; series k of nk
 * bar series takes the k-th slice of each span, so the series stand side by side.
 */
void svg__bars(struct svg_chart *c, const double *lo, const double *hi, const double *y, size_t n, const char *label,
	       size_t color, size_t k, size_t nk);
/* Markers only (a scatter), no legend entry: a series with the same colour names them. */
void svg__points(struct svg_chart *c, const double *x, const double *y, size_t n, size_t color);
void svg__end(struct svg_chart *c);
/* XML-escape s to f. */
void svg_escape(FILE *f, const char *s);
/* The same into buf (cut to fit len): for a figure printed with others (a figure may read "<0.001%"). */
const char *svg_escs(const char *s, char *buf, size_t len);
const char *svg_color(size_t i);

#endif
