/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The comparison report: a matrix of cells (trace x policy x profile), the
 * figures relative to each (trace, profile)'s `none` cell, the verdict
 * sentences, and the renderers (terminal table, JSON, CSV, HTML).
 *
 * Every format reads the same numbers through one column table
 * (report_columns()), so table, JSON and CSV cannot disagree.
 * The JSON schema is replay/report/REPORT-SCHEMA.md.
 */
#ifndef TRIMSIM_REPORT_REPORT_H
#define TRIMSIM_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/report/cell.h"
#include "replay/report/stats.h"

#define REPORT_SCHEMA_VERSION	4
/* Below this share of the workload's wall time, discard "does not matter" (seed 002). */
#define REPORT_MATTERS_SHARE	0.01
#define REPORT_CONF		0.95

/* Value kinds: how the table shows a number and how JSON stores it. */
enum col_kind {
	CK_COUNT,	/* integer */
	CK_BYTES,	/* integer bytes */
	CK_NS,		/* integer ns */
	CK_SNS,		/* signed integer ns */
	CK_RATIO,	/* double, shown "2.50x" */
	CK_SHARE,	/* double fraction, shown as % */
	CK_RATE,	/* integer per second */
	CK_BYTE_RATE,	/* integer bytes per second */
};

struct report_col {
	const char *key;	/* JSON and CSV name: "discard_cmds" */
	const char *head;	/* table heading: "cmds" */
	enum col_kind kind;
	bool table;		/* shown in the terminal table */
	double (*get)(const struct report_cell *c);	/* NAN: unknown */
	const char *help;
};

const struct report_col *report_columns(size_t *n);

/* A ministat-style comparison between two cells' runs (same trace and profile). */
struct report_cmp {
	uint32_t ref, cell;		/* cell indexes */
	const char *metric;		/* "makespan_s" */
	struct stat_acc a_ref, a_cell;
	struct stat_diff d;
};

struct report;

/* Builds the matrix (trace-major, then policy, then profile), cells zeroed with identity set. NULL + errno. */
struct report *report__new(char *const *traces, size_t ntraces, char *const *policies, size_t npolicies,
			   char *const *profiles, size_t nprofiles, unsigned runs, uint64_t seed);
/* A cell zeroed with its identity set, as report__new() makes each one. */
void report_cell__init(struct report_cell *c, const char *trace, const char *policy, const char *profile,
		       uint32_t index);
size_t report__ncells(const struct report *r);
struct report_cell *report__cell(struct report *r, size_t i);
const struct report_cell *report__cell_c(const struct report *r, size_t i);
/* Figures relative to `none`, comparisons and verdicts. Call once, after every cell is filled. 0 or -ENOMEM. */
int report__finish(struct report *r);
/* Verdict sentences, valid until destroy. */
const char *const *report__verdicts(const struct report *r, size_t *n);
const struct report_cmp *report__comparisons(const struct report *r, size_t *n);
/* The matrix dimensions and parameters. */
size_t report__ntraces(const struct report *r);
size_t report__npolicies(const struct report *r);
size_t report__nprofiles(const struct report *r);
const char *report__trace(const struct report *r, size_t i);
const char *report__policy(const struct report *r, size_t i);
const char *report__profile(const struct report *r, size_t i);
/* Trace t ended before its footer: the reader's message (file, byte, records recovered); NULL if complete. */
const char *report__trace_cut(const struct report *r, size_t t);
unsigned report__runs(const struct report *r);
uint64_t report__seed(const struct report *r);
/*
 * The verdict on one (trace t, profile m) group, as the sentences say it (verdict.c):
 * whether discard matters for the workload (a policy that discards, not a periodic
 * fstrim, adds REPORT_MATTERS_SHARE of the wall time or more), does not, or the trace
 * cannot tell; the costliest and cheapest such policies; and whether the device
 * rejects discards. Call after report__finish(). The cells stay valid until destroy.
 */
enum report_matters { RM_UNWEIGHED = 0, RM_MATTERS, RM_NOT, RM_UNTOLD };
struct report_judgement {
	enum report_matters matters;
	const struct report_cell *worst;	/* most added time (a weighed cell whose wait is known) */
	const struct report_cell *best;		/* least added time among those that discard */
	uint64_t cmds, errors;			/* discard commands of the group's cells, and how many failed */
	size_t discarding;			/* policies that sent any */
	bool all_rejected;			/* the device rejected every discard */
};
void report_judge(const struct report *r, size_t t, size_t m, struct report_judgement *j);
/* Index of the cell (trace t, policy p, profile m). */
size_t report__at(const struct report *r, size_t t, size_t p, size_t m);
void report__destroy(struct report *r);

/*
 * The formats, in one table (report.c): the name --format takes, the extensions
 * -o FILE picks it by, the renderer and the line `compare --help` prints; the
 * first row is the default. Adding a format is one row there and its renderer.
 */
#define REPORT_FORMAT_EXTS 2
struct report_format_ops {
	const char *name;
	const char *exts[REPORT_FORMAT_EXTS];	/* with the dot; NULL-padded; none: stdout only */
	int (*write)(const struct report *r, FILE *f);
	const char *help;
};
const struct report_format_ops *report_formats(size_t *n);
/* The row, or NULL. */
const struct report_format_ops *report_format_by_name(const char *name);
const struct report_format_ops *report_format_by_ext(const char *ext);	/* ".HTML" is ".html" */

/* Renderers: 0 or -errno (write errors). */
int report__write(const struct report *r, const struct report_format_ops *fmt, FILE *f);
int report__write_table(const struct report *r, FILE *f);
int report__write_csv(const struct report *r, FILE *f);
int report__write_json(const struct report *r, FILE *f);
int report__write_html(const struct report *r, FILE *f);
int report__write_summary(const struct report *r, FILE *f);

/* Short helpers shared by the renderers. */
/* The JSON report as an object (new reference), NULL on ENOMEM. */
struct json_t;
struct json_t *report__json(const struct report *r);

const char *report_basename(const char *path);
/* The figure as traces/figure.h spells it: "13.2 KiB", "6.1 ms", "2.5x", "0.4%", "0", "-" for NAN. */
char *report_fmt_value(enum col_kind k, double v, char *buf, size_t len);

#endif
