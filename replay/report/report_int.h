/* SPDX-License-Identifier: GPL-2.0 */
/* Internals shared by report.c, verdict.c and the renderers. */
#ifndef TRIMSIM_REPORT_INT_H
#define TRIMSIM_REPORT_INT_H

#include "replay/report/report.h"

struct report {
	size_t nt, np, nm, ncells;
	char **traces, **policies, **profiles;
	unsigned runs;
	uint64_t seed;
	struct report_cell *cells;
	char **verdicts;
	size_t nverdicts, verdicts_cap;
	struct report_cmp *cmps;
	size_t ncmps;
	bool deterministic_note;	/* --runs > 1 on model targets only */
};

const struct report_cell *report_baseline(const struct report *r, const struct report_cell *c);
int report_verdicts_build(struct report *r);
/* "foreground", "synchronous", "queue", "unknown" or "none" (enum cell_wait). */
const char *report_wait_basis_name(unsigned basis);
/* A periodic FITRIM policy (fstrim): its cost comes once per interval, not with the workload. */
bool report_is_fstrim(const struct report_cell *c);
/* A cell whose TRIM time ranks it (cheapest/most expensive): it discards, none failed, not a periodic fstrim. */
bool report_trim_ranked(const struct report_cell *c);
/* A cell whose added time the verdict weighs: it ran, had input, has a baseline, is not `none` or a periodic fstrim. */
bool report_weighed(const struct report_cell *c);
/* A weighed cell that discards on a trace that cannot show whether the workload waited (wait basis unknown). */
bool report_untold(const struct report_cell *c);
/* The policies that do not apply to trace t, grouped by reason: "`xfs`, `ext4` (why); `ufs` (why)"; nothing if none. */
void report_na_list(const struct report *r, size_t t, FILE *f);
/* The wall time of trace t: from its first cell that ran. */
uint64_t report_trace_wall(const struct report *r, size_t t);
/* A comparison's sentence ("`xfs` vs `none` ..."). */
/* Raw spelling for CSV (and the JSON writer's choice of integer vs real). */
void report_raw_value(enum col_kind k, double v, char *buf, size_t len);
/* The per-run samples a comparison's metric reads: makespan_s or discard_s of the cell's runs. */
const double *report_cmp_samples(const struct report_cmp *x, const struct report_cell *c);
void report_cmp_sentence(const struct report *r, const struct report_cmp *x, char *buf, size_t len);

/* The compare HTML report's lead (fmt_html_lead.c): the decision table; the heatmap of trace t (SIZE_MAX: all). */
void report_html_decision(const struct report *r, FILE *f);
void report_html_heatmap(const struct report *r, FILE *f, size_t t);

#endif
