// SPDX-License-Identifier: GPL-2.0
/* Table, JSON and CSV agree on every number; verdicts are the same everywhere; schema basics. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/report/fixture.h"

#include "tests/report/agree.h"

Test(formats, table_json_csv_agree)
{
	struct report *r = fx_report(10 * FX_S);
	char *table = fx_render(r, "table"), *js = fx_render(r, "json"), *csv = fx_render(r, "csv");

	agree_check(table, js, csv);
	free(table);
	free(js);
	free(csv);
	report__destroy(r);
}

Test(formats, verdicts_same_in_table_and_json)
{
	struct report *r = fx_report(10 * FX_S);
	char *table = fx_render(r, "table"), *js = fx_render(r, "json");
	size_t n;

	report__verdicts(r, &n);
	cr_assert_gt(n, 0);
	agree_verdicts(table, js);
	free(table);
	free(js);
	report__destroy(r);
}

Test(formats, json_is_deterministic)
{
	struct report *a = fx_report(10 * FX_S), *b = fx_report(10 * FX_S);
	char *ja = fx_render(a, "json"), *jb = fx_render(b, "json");

	cr_assert_str_eq(ja, jb);
	free(ja);
	free(jb);
	report__destroy(a);
	report__destroy(b);
}

Test(formats, csv_quotes_policies_with_commas)
{
	struct report *r = fx_report(10 * FX_S);
	char *csv = fx_render(r, "csv");

	cr_assert(strstr(csv, ",\"fstrim(interval=1w,minlen=64K)\",sata-sf2281,ok,"), "%s", csv);
	free(csv);
	report__destroy(r);
}
