// SPDX-License-Identifier: GPL-2.0
/*
 * Every text output spells its figures through the one formatter
 * (traces/figure.h): the compare table, summary and HTML (a report built
 * in-process) and `trimsim info` on a corpus trace show IEC sizes, humanised
 * durations and one zero, never a raw byte count ("215969792"), a bare
 * K/M/G suffix ("206M"), raw seconds ("+221551s") or a zero with a unit ("0ns").
 */
#include <criterion/criterion.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "traces/figure.h"
#include "tests/report/fixture.h"

/* Spellings the one formatter never writes; each with what it stands for. */
static const struct { const char *re, *what; } legacy[] = {
	{ "(^|[ (>])[0-9.]+[KMGTP](/s)?([ <),;]|$)", "a bare K/M/G suffix (\"206M\"), not IEC" },
	{ "(^|[ (>])[+-]?[0-9.]+(s|ns|us|ms)([ <),;]|$)", "a unit glued to its number (\"+221551s\", \"0ns\")" },
	{ "(^|[ (>])0 (B|ns|us|ms|s|KiB)([ <),;.]|$)", "a zero with a unit (zero is \"0\")" },
	{ "[0-9]\\.[0-9]*0(x|%)", "trailing zeros (\"1.00x\", \"0.00%\")" },
	{ ">[0-9]{5,}</td>", "a raw integer in an HTML cell (\"215969792\")" },
};

static void assert_no_legacy(const char *what, const char *text)
{
	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
		regex_t re;
		regmatch_t m;

		cr_assert_eq(regcomp(&re, legacy[i].re, REG_EXTENDED | REG_NEWLINE), 0, "%s", legacy[i].re);
		if (!regexec(&re, text, 1, &m, 0))
			cr_assert_fail("%s shows %s: '%.*s' in\n%s", what, legacy[i].what, (int)(m.rm_eo - m.rm_so),
				       text + m.rm_so, text);
		regfree(&re);
	}
}

static struct report *r;

static void setup(void)
{
	r = fx_report(10 * FX_S);
}

static void teardown(void)
{
	report__destroy(r);
}

TestSuite(figures, .init = setup, .fini = teardown, .timeout = 120);

/* The fixture's xfs cell: 2000 commands of 13517 bytes, 9 ms each, 18 s in TRIM; ext4: 24 of 21 MiB. */
Test(figures, table)
{
	char *s = fx_render(r, "table");

	cr_assert(strstr(s, " 25.8 MiB "), "2000 x 13517 B in IEC units\n%s", s);
	cr_assert(strstr(s, " 504 MiB "), "24 x 21 MiB\n%s", s);
	cr_assert(strstr(s, " 18 s "), "in-trim humanised\n%s", s);
	cr_assert(strstr(s, " 9 ms "), "p50 humanised\n%s", s);
	assert_no_legacy("the table", s);
	free(s);
}

Test(figures, summary)
{
	char *s = fx_render(r, "summary");

	cr_assert(strstr(s, "worst `xfs` 18 s in TRIM, best `ext4` 480 ms"), "%s", s);
	assert_no_legacy("the summary", s);
	free(s);
}

Test(figures, html)
{
	char *s = fx_render(r, "html");

	cr_assert(strstr(s, "data-raw=\"27034000\">25.8 MiB</td>"), "the raw number in data-raw, the figure shown");
	cr_assert(strstr(s, "data-key=\"peak_bytes_per_s\""), "every column, the peak byte rate too");
	assert_no_legacy("the HTML", s);
	free(s);
}

/* The shown values are fig_format()'s for every column of every cell (report_fmt_value() is a map, no more). */
Test(figures, columns_use_the_formatter)
{
	size_t ncol;
	const struct report_col *cols = report_columns(&ncol);
	static const enum fig_kind kinds[] = {
		[CK_COUNT] = FIG_COUNT, [CK_BYTES] = FIG_BYTES, [CK_NS] = FIG_NS, [CK_SNS] = FIG_DELTA_NS,
		[CK_RATIO] = FIG_RATIO, [CK_SHARE] = FIG_SHARE, [CK_RATE] = FIG_RATE, [CK_BYTE_RATE] = FIG_BYTE_RATE,
	};

	for (size_t i = 0; i < report__ncells(r); i++)
		for (size_t k = 0; k < ncol; k++) {
			const struct report_cell *c = report__cell_c(r, i);
			double v = cols[k].get(c);
			char a[64], b[64];

			cr_assert_str_eq(report_fmt_value(cols[k].kind, v, a, sizeof(a)),
					 fig_format(kinds[cols[k].kind], v, b, sizeof(b)), "%s", cols[k].key);
		}
}

Test(figures, info)
{
	char cmd[1024], *out = NULL;

	snprintf(cmd, sizeof(cmd), "%s info %s/traces/corpus/xfs-discard-rmtree.tsim", th_trimsim(), th_src());
	cr_assert_eq(th_run(cmd, &out, NULL), 0, "%s", out ? out : "");
	cr_assert(strstr(out, "206 MiB"), "%s", out);
	cr_assert(strstr(out, "span:     2.86 s"), "%s", out);
	assert_no_legacy("trimsim info", out);
	free(out);
}
