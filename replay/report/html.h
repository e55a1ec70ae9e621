/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTML reports' one page skeleton (compare's fmt_html.c and recommend's
 * rec_html.c): polyglot XHTML / HTML5 (well-formed XML, so `xmllint --noout`
 * checks it), one inline stylesheet, no scripts, fonts or network. Also the
 * escaping both use and the heat classes that colour added time by its share
 * of the workload's wall time.
 */
#ifndef TRIMSIM_REPORT_HTML_H
#define TRIMSIM_REPORT_HTML_H

#include <stdio.h>

/* <!DOCTYPE ...> through <body> and the <h1>; title is escaped. */
void html_begin(FILE *f, const char *title);
/* </body></html>; 0 or -EIO if any write to f failed. */
int html_end(FILE *f);
/* XML-escaped text. */
void html_esc(FILE *f, const char *s);
/* XML-escaped into buf: a figure printed with others in one fprintf (a figure may read "<0.001%"). */
const char *html_escs(const char *s, char *buf, size_t len);
/* Escaped text whose `backquoted` names become <code>. */
void html_esc_code(FILE *f, const char *s);
/* "h0".."h4": the heat class of added time that is `share` of the wall time (NAN: "hn", unknown). */
const char *html_heat(double share);
/* The legend of the heat classes, one line. */
void html_heat_legend(FILE *f);

#endif
