// SPDX-License-Identifier: GPL-2.0
/* The one formatter for figures a person reads (figure.h has the rule). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "traces/figure.h"

struct unit {
	double size;
	const char *name;
};

static const struct unit bytes_units[] = {
	{ 1.0, "B" }, { 1024.0, "KiB" }, { 1048576.0, "MiB" }, { 1073741824.0, "GiB" },
	{ 1099511627776.0, "TiB" }, { 1125899906842624.0, "PiB" }, { 1152921504606846976.0, "EiB" },
};

static const struct unit time_units[] = {
	{ 1.0, "ns" }, { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" }, { 60e9, "min" }, { 3600e9, "h" },
	{ 86400e9, "d" },
};

#define NUNITS(a) (sizeof(a) / sizeof((a)[0]))

/* Decimals that give v (> 0) three significant digits, at most three. */
static int decimals(double v)
{
	if (v >= 99.95)
		return 0;
	if (v >= 9.995)
		return 1;
	if (v >= 0.9995)
		return 2;
	return 3;
}

/* v as printed with decimals(v) digits. */
static double rounded(double v)
{
	double p = pow(10.0, decimals(v));

	return round(v * p) / p;
}

/* v >= 0, three significant digits, trailing zeros dropped: "1.5", "206", "0.15", "<0.001". */
static void sig3(double v, char *buf, size_t len)
{
	char *end;

	if (v < 0.0005) {
		snprintf(buf, len, "<0.001");
		return;
	}
	snprintf(buf, len, "%.*f", decimals(v), v);
	if (!strchr(buf, '.'))
		return;
	for (end = buf + strlen(buf); end[-1] == '0'; end--)
		;
	if (end[-1] == '.')
		end--;
	*end = 0;
}

/* v >= 0 in the largest unit it reaches once rounded: "206 MiB", "1 s". */
static void scaled(double v, const struct unit *u, size_t n, char *buf, size_t len)
{
	char num[32];
	size_t i = 0;

	while (i + 1 < n && v >= u[i + 1].size)
		i++;
	if (i + 1 < n && rounded(v / u[i].size) * u[i].size >= u[i + 1].size)
		i++;	/* 999.96 ms is "1 s" */
	sig3(v / u[i].size, num, sizeof(num));
	snprintf(buf, len, "%s %s", num, u[i].name);
}

/* |v| > 0, finite, without its sign. */
static void magnitude(enum fig_kind k, double v, char *buf, size_t len)
{
	size_t n;

	switch (k) {
	case FIG_BYTES:
		scaled(v, bytes_units, NUNITS(bytes_units), buf, len);
		return;
	case FIG_BYTE_RATE:
		scaled(v, bytes_units, NUNITS(bytes_units), buf, len);
		n = strlen(buf);
		snprintf(buf + n, len > n ? len - n : 0, "/s");
		return;
	case FIG_NS:
	case FIG_DELTA_NS:
		scaled(v, time_units, NUNITS(time_units), buf, len);
		return;
	case FIG_SHARE:
		if (v >= 2.0) {		/* a multiple reads better than "4213%" */
			magnitude(FIG_RATIO, v, buf, len);
			return;
		}
		/* fall through */
	case FIG_RATIO:
	case FIG_RATE:
		sig3(k == FIG_SHARE ? v * 100.0 : v, buf, len);
		n = strlen(buf);
		snprintf(buf + n, len > n ? len - n : 0, "%s", k == FIG_RATIO ? "x" : k == FIG_SHARE ? "%" : "/s");
		return;
	case FIG_COUNT:
		sig3(v, buf, len);
		return;
	case FIG_NUMBER:
		snprintf(buf, len, "%.3g", v);
		return;
	}
	snprintf(buf, len, "?");
}

char *fig_format(enum fig_kind k, double v, char *buf, size_t len)
{
	const char *sign = v < 0 ? "-" : k == FIG_DELTA_NS ? "+" : "";
	char m[48];

	if (!len)
		return buf;
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (v == 0)
		snprintf(buf, len, k == FIG_SHARE ? "0%%" : k == FIG_RATIO ? "0x" : "0");
	else if (isinf(v))
		snprintf(buf, len, "%sinf", sign);
	else {
		magnitude(k, fabs(v), m, sizeof(m));
		snprintf(buf, len, "%s%s", sign, m);
	}
	return buf;
}

char *fmt_bytes(uint64_t b, char *buf, size_t len)
{
	return fig_format(FIG_BYTES, (double)b, buf, len);
}

char *fmt_duration(uint64_t ns, char *buf, size_t len)
{
	return fig_format(FIG_NS, (double)ns, buf, len);
}
