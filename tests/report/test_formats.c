// SPDX-License-Identifier: GPL-2.0
/* Table, JSON and CSV agree on every number; verdicts are the same everywhere; schema basics. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

/* Parses a table value back: "13.2K" -> 13516.8, "9.00ms" -> 9e6, "0.40%" -> 0.004, "-" -> NAN. */
static double parse_shown(enum col_kind k, const char *s)
{
	static const struct { const char *sfx; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "%", 0.01 }, { "x", 1 },
		{ "B", 1 }, { "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 }, { "T", 1099511627776.0 },
	};
	char *end;
	double v;

	if (!strcmp(s, "-"))
		return NAN;
	v = strtod(s, &end);
	if (!*end)
		return v;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].sfx))
			return v * units[i].mul;
	cr_assert_fail("unparsable table value '%s' (kind %d)", s, k);
	return NAN;
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

Test(formats, table_json_csv_agree)
{
	struct report *r = fx_report(10 * FX_S);
	char *table = fx_render(r, RF_TABLE), *js = fx_render(r, RF_JSON), *csv = fx_render(r, RF_CSV);
	json_error_t jerr;
	json_t *root = json_loads(js, 0, &jerr);
	size_t ncol, rows = 0;
	const struct report_col *cols = report_columns(&ncol);

	cr_assert_not_null(root, "JSON does not parse: %s line %d", jerr.text, jerr.line);
	cr_assert_str_eq(json_string_value(json_object_get(root, "schema")), "trimsim-report");
	cr_assert_eq(json_integer_value(json_object_get(root, "version")), REPORT_SCHEMA_VERSION);
	cr_assert_eq(json_array_size(json_object_get(root, "cells")), report__ncells(r));

	/* CSV: header + one row per cell, raw numbers equal to JSON's exactly. */
	char *save = NULL, *line = strtok_r(csv, "\r\n", &save);

	cr_assert_not_null(line);
	cr_assert(strstr(line, "trace,policy,profile,status,error,discard_cmds"));
	for (size_t i = 0; (line = strtok_r(NULL, "\r\n", &save)); i++, rows++) {
		json_t *m = metrics_of(root, i);
		/* fields after the 5 identity fields; the policy may be quoted (it has commas) */
		const char *p = line;
		int fields = 0;
		bool q = false;

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
	cr_assert_eq(rows, report__ncells(r));

	/* Table: every shown value parses back to the JSON number. */
	size_t i = 0;

	save = NULL;
	for (line = strtok_r(table, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char pol[200], prof[100];
		const struct report_cell *c;

		if (i >= report__ncells(r))
			break;
		c = report__cell_c(r, i);
		if (strncmp(line, c->policy, strlen(c->policy)) || !strstr(line, c->profile))
			continue;
		cr_assert_eq(sscanf(line, "%199s %99s", pol, prof), 2);
		const char *p = strstr(line, c->profile) + strlen(c->profile);
		json_t *m = metrics_of(root, i);

		for (size_t k = 0; k < ncol; k++) {
			char tok[64];
			int n;

			if (!cols[k].table)
				continue;
			cr_assert_eq(sscanf(p, "%63s%n", tok, &n), 1, "row %zu: missing %s", i, cols[k].head);
			p += n;
			char what[600];

			snprintf(what, sizeof(what), "cell %zu (%s/%s) %s", i, c->policy, c->profile, cols[k].key);
			assert_close(parse_shown(cols[k].kind, tok), jnum(json_object_get(m, cols[k].key)), what);
		}
		i++;
	}
	cr_assert_eq(i, report__ncells(r), "table rows found: %zu", i);
	json_decref(root);
	free(table);
	free(js);
	free(csv);
	report__destroy(r);
}

Test(formats, verdicts_same_in_table_and_json)
{
	struct report *r = fx_report(10 * FX_S);
	char *table = fx_render(r, RF_TABLE), *js = fx_render(r, RF_JSON);
	json_t *root = json_loads(js, 0, NULL), *v = json_object_get(root, "verdicts");
	size_t n;

	report__verdicts(r, &n);
	cr_assert_gt(n, 0);
	cr_assert_eq(json_array_size(v), n);
	for (size_t i = 0; i < n; i++) {
		char want[1024];

		snprintf(want, sizeof(want), "  - %s.\n", json_string_value(json_array_get(v, i)));
		cr_assert(strstr(table, want), "table lacks verdict: %s", want);
	}
	json_decref(root);
	free(table);
	free(js);
	report__destroy(r);
}

Test(formats, json_is_deterministic)
{
	struct report *a = fx_report(10 * FX_S), *b = fx_report(10 * FX_S);
	char *ja = fx_render(a, RF_JSON), *jb = fx_render(b, RF_JSON);

	cr_assert_str_eq(ja, jb);
	free(ja);
	free(jb);
	report__destroy(a);
	report__destroy(b);
}

Test(formats, csv_quotes_policies_with_commas)
{
	struct report *r = fx_report(10 * FX_S);
	char *csv = fx_render(r, RF_CSV);

	cr_assert(strstr(csv, ",\"fstrim(interval=1w,minlen=64K)\",sata-sf2281,ok,"), "%s", csv);
	free(csv);
	report__destroy(r);
}
