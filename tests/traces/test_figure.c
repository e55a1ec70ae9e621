// SPDX-License-Identifier: GPL-2.0
/* The one figure formatter (traces/figure.h): a table of (kind, value) -> text. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>

#include "traces/figure.h"
#include "traces/opts.h"

struct fig_case {
	enum fig_kind kind;
	double v;
	char want[24];	/* an array: Criterion copies parameters into its test processes */
};

ParameterizedTestParameters(figure, table)
{
	static struct fig_case cases[] = {
		/* zero one way, unknown one way, whatever the kind */
		{ .kind = FIG_BYTES, .v = 0, .want = "0" },
		{ .kind = FIG_NS, .v = 0, .want = "0" },
		{ .kind = FIG_DELTA_NS, .v = 0, .want = "0" },
		{ .kind = FIG_COUNT, .v = 0, .want = "0" },
		{ .kind = FIG_RATE, .v = 0, .want = "0" },
		{ .kind = FIG_BYTE_RATE, .v = 0, .want = "0" },
		{ .kind = FIG_SHARE, .v = 0, .want = "0%" },
		{ .kind = FIG_RATIO, .v = 0, .want = "0x" },
		{ .kind = FIG_BYTES, .v = NAN, .want = "-" },
		{ .kind = FIG_NS, .v = NAN, .want = "-" },
		{ .kind = FIG_SHARE, .v = NAN, .want = "-" },
		{ .kind = FIG_COUNT, .v = NAN, .want = "-" },
		/* sizes: IEC units, three significant digits, trailing zeros dropped */
		{ .kind = FIG_BYTES, .v = 512, .want = "512 B" },
		{ .kind = FIG_BYTES, .v = 1023, .want = "1023 B" },
		{ .kind = FIG_BYTES, .v = 1024, .want = "1 KiB" },
		{ .kind = FIG_BYTES, .v = 1536, .want = "1.5 KiB" },
		{ .kind = FIG_BYTES, .v = 13517, .want = "13.2 KiB" },
		{ .kind = FIG_BYTES, .v = 215969792, .want = "206 MiB" },	/* the compare table's "206M" */
		{ .kind = FIG_BYTES, .v = 89013899264.0, .want = "82.9 GiB" },	/* "82.9G" */
		{ .kind = FIG_BYTES, .v = 1048575, .want = "1 MiB" },	/* 1023.999 KiB rounds up a unit */
		{ .kind = FIG_BYTES, .v = 2199023255552.0, .want = "2 TiB" },
		{ .kind = FIG_BYTES, .v = 13.5, .want = "13.5 B" },
		/* durations: ns us ms s min h d */
		{ .kind = FIG_NS, .v = 850, .want = "850 ns" },
		{ .kind = FIG_NS, .v = 1500, .want = "1.5 us" },
		{ .kind = FIG_NS, .v = 67.6e6, .want = "67.6 ms" },
		{ .kind = FIG_NS, .v = 999.96e6, .want = "1 s" },	/* not "1000 ms" */
		{ .kind = FIG_NS, .v = 2.86e9, .want = "2.86 s" },
		{ .kind = FIG_NS, .v = 372e9, .want = "6.2 min" },
		{ .kind = FIG_NS, .v = 5400e9, .want = "1.5 h" },
		{ .kind = FIG_NS, .v = 221551e9, .want = "2.56 d" },	/* the compare table's "+221551s" */
		{ .kind = FIG_NS, .v = 0.5, .want = "0.5 ns" },
		/* signed deltas carry the sign */
		{ .kind = FIG_DELTA_NS, .v = 221551e9, .want = "+2.56 d" },
		{ .kind = FIG_DELTA_NS, .v = 10.3e3, .want = "+10.3 us" },
		{ .kind = FIG_DELTA_NS, .v = -2e6, .want = "-2 ms" },
		/* counts exactly; rates per second */
		{ .kind = FIG_COUNT, .v = 964, .want = "964" },
		{ .kind = FIG_COUNT, .v = 39395, .want = "39395" },
		{ .kind = FIG_RATE, .v = 84, .want = "84/s" },
		{ .kind = FIG_RATE, .v = 123456, .want = "123456/s" },
		{ .kind = FIG_BYTE_RATE, .v = 215969792, .want = "206 MiB/s" },
		/* ratios and shares */
		{ .kind = FIG_RATIO, .v = 5.95, .want = "5.95x" },
		{ .kind = FIG_RATIO, .v = 1.0, .want = "1x" },
		{ .kind = FIG_RATIO, .v = 190.4, .want = "190x" },
		{ .kind = FIG_RATIO, .v = 3166.4, .want = "3166x" },
		{ .kind = FIG_SHARE, .v = 0.191, .want = "19.1%" },
		{ .kind = FIG_SHARE, .v = 0.0015, .want = "0.15%" },
		{ .kind = FIG_SHARE, .v = 0.01, .want = "1%" },
		{ .kind = FIG_SHARE, .v = 1e-9, .want = "<0.001%" },	/* never "0%" for something */
		{ .kind = FIG_SHARE, .v = -0.05, .want = "-5%" },
		{ .kind = FIG_SHARE, .v = 1.99, .want = "199%" },
		{ .kind = FIG_SHARE, .v = 42.13, .want = "42.1x" },	/* the compare table printed "4213%" */
		{ .kind = FIG_SHARE, .v = 2.0, .want = "2x" },
		/* plain numbers */
		{ .kind = FIG_NUMBER, .v = 0.07, .want = "0.07" },
		{ .kind = FIG_NUMBER, .v = 1e-6, .want = "1e-06" },
		{ .kind = FIG_NUMBER, .v = 2.5, .want = "2.5" },
	};

	return cr_make_param_array(struct fig_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct fig_case *c, figure, table)
{
	char buf[64];

	cr_assert_str_eq(fig_format(c->kind, c->v, buf, sizeof(buf)), c->want, "kind %d, %.17g", c->kind, c->v);
}

/* The shorthands are the formatter, not a second one. */
Test(figure, shorthands)
{
	char a[32], b[32];

	cr_assert_str_eq(fmt_bytes(215969792, a, sizeof(a)), fig_format(FIG_BYTES, 215969792, b, sizeof(b)));
	cr_assert_str_eq(fmt_duration(372000000000ull, a, sizeof(a)), "6.2 min");
	cr_assert_str_eq(fmt_bytes(0, a, sizeof(a)), "0");
	cr_assert_str_eq(fmt_duration(0, a, sizeof(a)), "0");
}

/* A buffer too small is cut, never overrun, and always terminated. */
Test(figure, small_buffer)
{
	char buf[5] = "xxxx";

	fig_format(FIG_BYTES, 215969792, buf, sizeof(buf));
	cr_assert_str_eq(buf, "206 ");
	cr_assert_eq(fig_format(FIG_NS, 1, buf, 0), buf, "len 0 writes nothing");
}

/* opts__format()'s human mode is the same formatter: sizes, durations, zero, doubles. */
Test(figure, options_human)
{
	struct { uint64_t b, d, z; double x; } obj = { 64ull << 20, 30000000000ull, 0, 0.07 };
	const struct opt_spec t[] = {
		{ "b", OPT_BYTES, offsetof(__typeof__(obj), b) },
		{ "d", OPT_DURATION, offsetof(__typeof__(obj), d) },
		{ "z", OPT_DURATION, offsetof(__typeof__(obj), z) },
		{ "x", OPT_DOUBLE, offsetof(__typeof__(obj), x) },
		{ NULL },
	};
	char buf[32];

	cr_assert_str_eq(opts__format(&t[0], &obj, true, buf, sizeof(buf)), "64 MiB");
	cr_assert_str_eq(opts__format(&t[1], &obj, true, buf, sizeof(buf)), "30 s");
	cr_assert_str_eq(opts__format(&t[2], &obj, true, buf, sizeof(buf)), "0");
	cr_assert_str_eq(opts__format(&t[3], &obj, true, buf, sizeof(buf)), "0.07");
	/* the text form an option takes back is not a figure: unchanged */
	cr_assert_str_eq(opts__format(&t[0], &obj, false, buf, sizeof(buf)), "64M");
	cr_assert_str_eq(opts__format(&t[1], &obj, false, buf, sizeof(buf)), "30s");
}
