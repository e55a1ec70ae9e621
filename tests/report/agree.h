/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The check that the terminal table, the JSON and the CSV of a report agree
 * on every number: CSV raw values equal the JSON's exactly; every table value,
 * read back from its three-significant-digit form, is within rounding of the
 * JSON's. Used on reports built in-process and on `trimsim compare` output.
 */
#ifndef TRIMSIM_TEST_REPORT_AGREE_H
#define TRIMSIM_TEST_REPORT_AGREE_H

#include <criterion/criterion.h>
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/report/report.h"

/*
 * Parses a table value back (traces/figure.h's spelling): "13.2 KiB" -> 13516.8, "9 ms" -> 9e6,
 * "+2.95 us" -> 2950, "0.4%" -> 0.004, "15/s" -> 15, "206 MiB/s", "<0.001%" -> 0, "-" -> NAN.
 */
static double parse_shown(enum col_kind k, const char *s)
{
	static const struct { const char *sfx; double mul; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "min", 60e9 }, { "h", 3600e9 },
		{ "d", 86400e9 }, { "%", 0.01 }, { "x", 1 }, { "B", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 },
		{ "GiB", 1073741824.0 }, { "TiB", 1099511627776.0 },
	};
	char *end, unit[16];
	double v;

	if (!strcmp(s, "-"))
		return NAN;
	if (s[0] == '<')	/* "<0.001%": below what three decimals show */
		return 0;
	v = strtod(s, &end);
	cr_assert(end != s, "unparsable table value '%s' (kind %d)", s, k);
	while (*end == ' ')
		end++;
	snprintf(unit, sizeof(unit), "%s", end);
	if (strlen(unit) >= 2 && !strcmp(unit + strlen(unit) - 2, "/s"))
		unit[strlen(unit) - 2] = 0;	/* a rate: the unit before "/s" */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].sfx))
			return v * units[i].mul;
	cr_assert_fail("unparsable table value '%s' (kind %d)", s, k);
	return NAN;
}

/* The next table value at *p: a number and, when a unit word follows it ("206 MiB"), the unit. */
static int shown_token(const char **p, char *tok, size_t len)
{
	char a[64], b[64];
	int n, m;

	if (sscanf(*p, "%63s%n", a, &n) != 1)
		return 0;
	*p += n;
	if (strcmp(a, "-") && sscanf(*p, "%63s%n", b, &m) == 1 && (isalpha((unsigned char)b[0]))) {
		snprintf(tok, len, "%s %s", a, b);
		*p += m;
	} else {
		snprintf(tok, len, "%s", a);
	}
	return 1;
}

static void assert_close(double shown, double raw, const char *what)
{
	if (isnan(raw)) {
		cr_assert(isnan(shown), "%s: table shows %g, JSON null", what, shown);
		return;
	}
	/* three significant digits: within 0.5% or one unit of the last digit shown */
	double tol = fmax(fabs(raw) * 0.006, 0.006);

	cr_assert(fabs(shown - raw) <= tol || (fabs(raw) < 0.05 && fabs(shown) < 0.05) ||
		  fabs(shown - raw) <= fabs(raw) * 0.006 + 1.0,
		  "%s: table %g vs JSON %g", what, shown, raw);
}

static json_t *metrics_of(json_t *root, size_t i)
{
	json_t *c = json_array_get(json_object_get(root, "cells"), i);

	cr_assert_not_null(c);
	return json_object_get(c, "metrics");
}

static double jnum(json_t *v)
{
	return json_is_null(v) ? NAN : json_number_value(v);
}

/* csv and table are modified (tokenized). */
static inline void agree_check(char *table, const char *js, char *csv)
{
	json_error_t jerr;
	json_t *root = json_loads(js, 0, &jerr), *cells;
	size_t ncol, rows = 0, ncells;
	const struct report_col *cols = report_columns(&ncol);

	cr_assert_not_null(root, "JSON does not parse: %s line %d", jerr.text, jerr.line);
	cr_assert_str_eq(json_string_value(json_object_get(root, "schema")), "trimsim-report");
	cr_assert_eq(json_integer_value(json_object_get(root, "version")), REPORT_SCHEMA_VERSION);
	cells = json_object_get(root, "cells");
	ncells = json_array_size(cells);
	cr_assert_gt(ncells, 0);

	/* CSV: header + one row per cell, raw numbers equal to JSON's exactly. */
	char *save = NULL, *line = strtok_r(csv, "\r\n", &save);

	cr_assert_not_null(line);
	cr_assert(strstr(line, "trace,policy,profile,status,error,discard_cmds"));
	for (size_t i = 0; (line = strtok_r(NULL, "\r\n", &save)); i++, rows++) {
		json_t *m = metrics_of(root, i);
		const char *p = line;
		int fields = 0;
		bool q = false;

		if (!m)
			continue;	/* a failed cell: no metrics */
		/* fields after the 5 identity fields; the policy may be quoted (it has commas) */
		for (; *p && fields < 5; p++) {
			if (*p == '"')
				q = !q;
			else if (*p == ',' && !q)
				fields++;
		}
		for (size_t k = 0; k < ncol; k++) {
			char *end;
			double v = *p == ',' || !*p ? NAN : strtod(p, &end);
			double jv = jnum(json_object_get(m, cols[k].key));

			if (isnan(jv))
				cr_assert(isnan(v), "cell %zu %s: CSV %g, JSON null", i, cols[k].key, v);
			else
				cr_assert(v == jv || fabs(v - jv) <= fabs(jv) * 1e-15, "cell %zu %s: CSV %.17g JSON %.17g",
					  i, cols[k].key, v, jv);
			p = strchr(p, ',');
			if (!p)
				break;
			p++;
		}
	}
	cr_assert_eq(rows, ncells);

	/* Table: every shown value parses back to the JSON number. */
	size_t i = 0;

	save = NULL;
	for (line = strtok_r(table, "\n", &save); line && i < ncells; line = strtok_r(NULL, "\n", &save)) {
		json_t *c = json_array_get(cells, i), *m = json_object_get(c, "metrics");
		const char *pol = json_string_value(json_object_get(c, "policy"));
		const char *prof = json_string_value(json_object_get(c, "profile"));
		size_t pl = strlen(pol);

		if (strncmp(line, pol, pl) || line[pl] != ' ' || !strstr(line + pl, prof))
			continue;
		const char *p = strstr(line + pl, prof) + strlen(prof);

		if (!m) {
			cr_assert(strstr(p, "error: ") || strstr(p, "n/a: "),
				  "row %zu: a failed or not applicable cell shows why", i);
			i++;
			continue;
		}
		for (size_t k = 0; k < ncol; k++) {
			char tok[130], what[600];

			if (!cols[k].table)
				continue;
			cr_assert(shown_token(&p, tok, sizeof(tok)), "row %zu: missing %s", i, cols[k].head);
			snprintf(what, sizeof(what), "cell %zu (%s/%s) %s", i, pol, prof, cols[k].key);
			assert_close(parse_shown(cols[k].kind, tok), jnum(json_object_get(m, cols[k].key)), what);
		}
		i++;
	}
	cr_assert_eq(i, ncells, "table rows found: %zu of %zu", i, ncells);
	json_decref(root);
}

/* Every verdict in the JSON is a "  - SENTENCE." line of the table, in order. */
static inline void agree_verdicts(const char *table, const char *js)
{
	json_t *root = json_loads(js, 0, NULL), *v = json_object_get(root, "verdicts");
	const char *from = strstr(table, "\nverdict:\n");

	cr_assert_not_null(from, "the table has a verdict section");
	cr_assert_gt(json_array_size(v), 0);
	for (size_t i = 0; i < json_array_size(v); i++) {
		char want[1200];
		const char *at;

		snprintf(want, sizeof(want), "  - %s.\n", json_string_value(json_array_get(v, i)));
		at = strstr(from, want);
		cr_assert(at, "table lacks verdict: %s", want);
		from = at + strlen(want);
	}
	json_decref(root);
}

/* discard_time_ns of the cell (trace basename or any trace, profile, policy) in the JSON report. */
static inline double agree_trim_ns(json_t *root, const char *trace, const char *profile, const char *policy)
{
	json_t *cells = json_object_get(root, "cells");

	for (size_t i = 0; i < json_array_size(cells); i++) {
		json_t *c = json_array_get(cells, i);
		const char *t = json_string_value(json_object_get(c, "trace")), *b = strrchr(t, '/');

		if ((trace[0] && strcmp(b ? b + 1 : t, trace)) ||
		    strcmp(json_string_value(json_object_get(c, "profile")), profile) ||
		    strcmp(json_string_value(json_object_get(c, "policy")), policy))
			continue;
		cr_assert_str_eq(json_string_value(json_object_get(c, "status")), "ok", "verdict names a cell "
				 "that is not ok: %s/%s", profile, policy);
		return jnum(json_object_get(json_object_get(c, "metrics"), "discard_time_ns"));
	}
	cr_assert_fail("verdict names an unknown cell %s/%s/%s", trace, profile, policy);
	return NAN;
}

/* A shown ratio ("52x" or "2.5x") is the true one rounded as verdict.c rounds it. */
static inline void agree_ratio(const char *shown, double truth, const char *what)
{
	double v = strtod(shown, NULL);

	cr_assert(fabs(v - truth) <= (truth >= 10 ? 0.5 : 0.05) + 1e-9, "%s: verdict says %s, JSON gives %.4g",
		  what, shown, truth);
}

/*
 * Every ranking verdict ("[T ]on P, `A` spends ... in TRIM (...), Rx `B` (...), the cheapest; in between:
 * `C` Rx, ...") states ratios that equal the JSON's discard_time_ns ratios. Returns how many it checked.
 */
static inline size_t agree_ratios(const char *js)
{
	json_t *root = json_loads(js, 0, NULL), *v = json_object_get(root, "verdicts");
	size_t checked = 0;

	cr_assert_not_null(root);
	for (size_t i = 0; i < json_array_size(v); i++) {
		const char *s = json_string_value(json_array_get(v, i)), *on = strstr(s, "on "), *p;
		char trace[256] = "", prof[96], hi[160], lo[160], ratio[32], mid[160];
		double base;
		int n;

		if (!strstr(s, ", the cheapest") || !on)
			continue;
		if (on != s)
			snprintf(trace, sizeof(trace), "%.*s", (int)(on - s - 1), s);
		cr_assert_eq(sscanf(on, "on %95[^,], `%159[^`]` spends", prof, hi), 2, "%s", s);
		p = strstr(s, " commands), ");
		cr_assert_not_null(p, "%s", s);
		cr_assert_eq(sscanf(p, " commands), %31s `%159[^`]`", ratio, lo), 2, "%s", s);
		base = agree_trim_ns(root, trace, prof, lo);
		agree_ratio(ratio, agree_trim_ns(root, trace, prof, hi) / base, s);
		checked++;
		if (!(p = strstr(s, "; in between: ")))
			continue;
		for (p += strlen("; in between: "); sscanf(p, "`%159[^`]` %31[0-9.x]%n", mid, ratio, &n) == 2;) {
			agree_ratio(ratio, agree_trim_ns(root, trace, prof, mid) / base, s);
			checked++;
			p += n;
			if (strncmp(p, ", `", 3))
				break;
			p += 2;
		}
	}
	json_decref(root);
	return checked;
}

#endif
