/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Headless Chromium for the HTML report tests: one command line for every
 * test, a window of 1400x900 (the fold the reports are laid out for), the DOM
 * Chromium built (--dump-dom), a screenshot, and the layout as the page lays
 * out: a copy of the page gets a probe script (the reports themselves carry no
 * script) that writes, as JSON in an attribute of <body>, the page height,
 * the bounding boxes of chosen elements and whether each in-page link of the
 * table of contents and of the decision table finds its target.
 */
#ifndef TRIMSIM_TEST_REPORT_CHROMIUM_H
#define TRIMSIM_TEST_REPORT_CHROMIUM_H

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

#define CHROMIUM_W 1400
#define CHROMIUM_H 900

/* Runs Chromium on file `html` with extra arguments (--dump-dom, --screenshot=...); th_run()'s status. */
static inline int chromium(const char *args, const char *html, char **out, char **err)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd),
		 "chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
		 "--disable-background-networking --disable-component-update --disable-sync "
		 "--user-data-dir='%s/chromium' --window-size=%d,%d %s 'file://%s'", th_dir(), CHROMIUM_W,
		 CHROMIUM_H, args, html);
	return th_run(cmd, out, err);
}

/* A PNG's width and height from its IHDR chunk; 0 if the file is not a PNG. */
static inline int png_size(const char *path, unsigned *w, unsigned *h)
{
	size_t len = 0;
	unsigned char *p = (unsigned char *)th_slurp(path, &len);
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	int ok = p && len >= 24 && !memcmp(p, sig, 8) && !memcmp(p + 12, "IHDR", 4);

	if (ok) {
		*w = (unsigned)p[16] << 24 | (unsigned)p[17] << 16 | (unsigned)p[18] << 8 | p[19];
		*h = (unsigned)p[20] << 24 | (unsigned)p[21] << 16 | (unsigned)p[22] << 8 | p[23];
	}
	free(p);
	return ok;
}

static const char chromium_probe_js[] =
	"<script>window.addEventListener('load',function(){"
	"var d=document.documentElement,o={height:d.scrollHeight,width:d.scrollWidth,boxes:{},links:[]};"
	"document.querySelectorAll('[id]').forEach(function(e){var b=e.getBoundingClientRect();"
	"o.boxes[e.id]=[b.left+window.scrollX,b.top+window.scrollY,b.right+window.scrollX,b.bottom+window.scrollY];});"
	"document.querySelectorAll('nav.toc a, table.decide a, table.recs a').forEach(function(a){"
	"var h=a.getAttribute('href');o.links.push({href:h,found:h.charAt(0)==='#'&&"
	"!!document.getElementById(h.slice(1))});});"
	"document.body.setAttribute('data-probe',JSON.stringify(o));});</script>";

/*
 * The layout of `html` at 1400x900: {"height", "width", "boxes": {id: [left, top, right, bottom]}
 * (page coordinates, every element with an id), "links": [{"href", "found"}]}. New reference.
 */
static inline json_t *chromium_layout(const char *html)
{
	char probe[700], *page = th_slurp(html, NULL), *out = NULL, *err = NULL, *at, *end;
	FILE *f;

	cr_assert_not_null(page, "%s", html);
	at = strstr(page, "</body>");
	cr_assert_not_null(at, "%s has no </body>", html);
	snprintf(probe, sizeof(probe), "%s/probe.html", th_dir());
	f = fopen(probe, "w");
	cr_assert_not_null(f);
	fprintf(f, "%.*s%s%s", (int)(at - page), page, chromium_probe_js, at);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chromium("--dump-dom", probe, &out, &err), 0, "chromium: %s", err);
	at = strstr(out, "data-probe=\"");
	cr_assert_not_null(at, "no probe result: %.2000s", out);
	at += strlen("data-probe=\"");
	end = strchr(at, '"');
	cr_assert_not_null(end);
	*end = 0;
	/* the attribute as Chromium serialised it: &quot; &amp; &lt; &gt; */
	char *w = at;

	for (char *r = at; *r; w++) {
		static const struct { const char *ent; char c; } ents[] = {
			{ "&quot;", '"' }, { "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' },
		};
		size_t i = 0;

		for (; i < sizeof(ents) / sizeof(ents[0]); i++)
			if (!strncmp(r, ents[i].ent, strlen(ents[i].ent)))
				break;
		if (i < sizeof(ents) / sizeof(ents[0])) {
			*w = ents[i].c;
			r += strlen(ents[i].ent);
		} else {
			*w = *r++;
		}
	}
	*w = 0;
	json_error_t je;
	json_t *j = json_loads(at, 0, &je);

	cr_assert_not_null(j, "probe JSON: %s: %s", je.text, at);
	free(page);
	free(out);
	free(err);
	return j;
}

/* The bounding box of element `id` ([left, top, right, bottom]); fails the test if there is none. */
static inline void chromium_box(json_t *layout, const char *id, double box[4])
{
	json_t *b = json_object_get(json_object_get(layout, "boxes"), id);

	cr_assert(json_is_array(b) && json_array_size(b) == 4, "no element #%s", id);
	for (size_t i = 0; i < 4; i++)
		box[i] = json_number_value(json_array_get(b, i));
}

#endif
