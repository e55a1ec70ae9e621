/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one formatter for figures a person reads: every text and HTML output
 * (compare table, summary and HTML, recommend, replay's summary, info, record,
 * calibrate, the models/policies listings and --help tables through
 * opts__format()) spells a number through fig_format(). Machine formats (JSON,
 * CSV, data-raw) keep raw integers and put the unit in the key instead.
 *
 * The rule, for every kind:
 *  - unknown or not applicable (NAN) is "-"; zero is "0" whatever the unit
 *    (a percentage or a factor keeps its sign: "0%", "0x");
 *  - three significant digits, trailing zeros dropped ("1.5 ms", "206 MiB",
 *    "2.56 d"), at most three decimals: below 0.001 of the unit "<0.001";
 *  - sizes in IEC units (B, KiB, MiB, GiB, TiB, PiB, EiB); durations in
 *    ns, us, ms, s, min, h, d; a figure that rounds up to the next unit takes
 *    it ("1 s", not "1000 ms");
 *  - counts exactly, as integers; ratios "2.5x"; shares as percentages "19.1%", from 200% as
 *    the multiple they are ("42.1x": 4213% of the wall time);
 *  - rates per second: "84/s", "206 MiB/s"; signed deltas carry their sign: "+1.2 s".
 */
#ifndef TRIMSIM_FIGURE_H
#define TRIMSIM_FIGURE_H

#include <stddef.h>
#include <stdint.h>

enum fig_kind {
	FIG_COUNT,	/* a number of things: "964" */
	FIG_BYTES,	/* bytes: "512 B", "13.2 KiB" */
	FIG_NS,		/* a duration in ns: "850 ns", "2.86 s", "6.2 min" */
	FIG_DELTA_NS,	/* a signed difference in ns: "+10.3 us", "-2 ms" */
	FIG_RATIO,	/* a factor: "5.95x" */
	FIG_SHARE,	/* a fraction, shown as a percentage: "0.15%"; from 2, a multiple: "42.1x" */
	FIG_RATE,	/* things per second: "84/s" */
	FIG_BYTE_RATE,	/* bytes per second: "206 MiB/s" */
	FIG_NUMBER,	/* a plain number without a unit to scale to: %.3g, "0.07", "1e-06" */
};

/* v as the rule above spells it; returns buf (always NUL-terminated when len > 0). */
char *fig_format(enum fig_kind k, double v, char *buf, size_t len);
/* What follows a FIG_SHARE before "the wall time": " of" for "12% of", nothing for "42.1x". */
static inline const char *fig_share_of(double share)
{
	return share >= 2.0 ? "" : " of";
}
/* Shorthands: fig_format(FIG_BYTES, b) and fig_format(FIG_NS, ns). */
char *fmt_bytes(uint64_t b, char *buf, size_t len);
char *fmt_duration(uint64_t ns, char *buf, size_t len);

#endif
