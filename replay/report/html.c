// SPDX-License-Identifier: GPL-2.0
/* The HTML reports' page skeleton, stylesheet, escaping and heat classes (see html.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "replay/report/html.h"
#include "replay/report/svg.h"

/*
 * The decision leads: compact tables (.decide, .heat) sized so that the demo's
 * decision table and heatmap fit a 1400x900 window; the details (every figure,
 * the charts, the verdict sentences) sit in <details>, closed.
 */
static const char css[] =
	"body{font-family:sans-serif;margin:12px 20px;color:#111;font-size:13px}"
	"h1{font-size:20px;margin:0 0 2px}h2{font-size:16px;margin:18px 0 4px}h3{font-size:14px;margin:10px 0 4px}"
	"p{margin:3px 0}.params{color:#444;font-size:12px}"
	"nav.toc{font-size:12px;margin:4px 0 8px}nav.toc a{margin-right:10px}"
	"table{border-collapse:collapse;font-size:12px;margin:4px 0}"
	"th,td{border:1px solid #ccc;padding:1px 5px;text-align:right}"
	"td.l,th.l{text-align:left}tr.none td{color:#555}caption{text-align:left;font-size:12px;padding:2px 0}"
	".top{display:flex;flex-wrap:wrap;gap:4px 24px;align-items:flex-start}"
	"table.decide{font-size:11px}table.decide td{text-align:left;padding:0 3px}"
	"table.decide .b,table.decide .w,table.decide td:first-child,table.decide td:nth-child(2){white-space:nowrap}"
	"table.decide td.m{background:#fde0c5}"
	"table.decide td.n{background:#e5f3e0}table.decide td.u{background:#eee}table.decide td.x{background:#bbb}"
	"table.decide .w{color:#555}"
	"td.h0{background:#f4f8f4}td.h1{background:#fff3c4}td.h2{background:#fdd49e}td.h3{background:#fc8d59}"
	"td.h4{background:#c0281b;color:#fff}td.hn{background:#eee;color:#555}"
	".legend span{padding:0 6px;margin-right:2px;border:1px solid #ccc}"
	".legend span.h0{background:#f4f8f4}.legend span.h1{background:#fff3c4}.legend span.h2{background:#fdd49e}"
	".legend span.h3{background:#fc8d59}.legend span.h4{background:#c0281b;color:#fff}"
	"details{margin:2px 0}summary{cursor:pointer;color:#124}"
	".cd{display:flex;flex-wrap:wrap;gap:0 18px}.cd details[open]{flex-basis:100%}"
	"p.na{color:#555;font-size:12px}"
	"table.recs td{vertical-align:top}table.recs td.set{font-size:11px}table.recs td.why{font-size:11px;"
	"max-width:520px}tr.pick td{background:#e5f3e0}"
	SVG_CSS ".charts{display:flex;flex-wrap:wrap;gap:8px}"
	"li{margin:0.2em 0}code{background:#f2f2f2}";

void html_esc(FILE *f, const char *s)
{
	svg_escape(f, s);
}

const char *html_escs(const char *s, char *buf, size_t len)
{
	return svg_escs(s, buf, len);
}

void html_esc_code(FILE *f, const char *s)
{
	bool in = false;
	char one[2] = { 0, 0 };

	for (; *s; s++) {
		if (*s == '`') {
			fputs(in ? "</code>" : "<code>", f);
			in = !in;
			continue;
		}
		one[0] = *s;
		html_esc(f, one);
	}
	if (in)
		fputs("</code>", f);
}

void html_begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\"/>\n<title>", f);
	html_esc(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
	html_esc(f, title);
	fputs("</h1>\n", f);
}

int html_end(FILE *f)
{
	fputs("</body>\n</html>\n", f);
	return ferror(f) ? -EIO : 0;
}

/* Under 0.1%, 1%, 10%, 100% of the wall time, and more; REPORT_MATTERS_SHARE (1%) is h2's lower end. */
const char *html_heat(double share)
{
	static const struct { double below; const char *cls; } heat[] = {
		{ 0.001, "h0" }, { 0.01, "h1" }, { 0.1, "h2" }, { 1.0, "h3" },
	};

	if (isnan(share))
		return "hn";
	for (size_t i = 0; i < sizeof(heat) / sizeof(heat[0]); i++)
		if (share < heat[i].below)
			return heat[i].cls;
	return "h4";
}

void html_heat_legend(FILE *f)
{
	fputs("<p class=\"legend\">share of the wall time: <span class=\"h0\">&lt; 0.1%</span>"
	      "<span class=\"h1\">&lt; 1%</span><span class=\"h2\">&lt; 10%</span><span class=\"h3\">&lt; 100%</span>"
	      "<span class=\"h4\">100% or more</span>; discard matters from 1%</p>\n", f);
}
