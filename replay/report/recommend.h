/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trimsim recommend: for each trace x device profile, search the discard
 * settings an administrator can set for the trace's filesystem (families of
 * presets and their real tunables, the block layer's discard_max_bytes, fstrim
 * schedules), replay each setting as a report cell, keep the Pareto front of the
 * objectives and pick one recommendation with the settings to apply and why.
 * RECOMMEND.md documents the search, the rule and the JSON schema.
 */
#ifndef TRIMSIM_REPORT_RECOMMEND_H
#define TRIMSIM_REPORT_RECOMMEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/report/matrix.h"

#define REC_SCHEMA	"trimsim-recommend/1"
#define REC_KNOBS	4
#define REC_VALS	8
/* Added time within the larger of this and REPORT_MATTERS_SHARE of the wall time counts as a tie. */
#define REC_TIE_NS	1000000000ull

struct rec_knob {
	const char *key;		/* the preset's option; "dmax": the split stage; NULL: the value is the preset */
	const char *vals[REC_VALS];	/* the ladder, in order (the search moves to neighbours) */
	unsigned def;			/* the kernel's default */
	unsigned coarse;		/* bit i: vals[i] is in the coarse grid */
};

struct rec_family {
	const char *name;		/* "xfs", "fstrim", "none" */
	const char *fs;			/* the filesystem it belongs to; NULL: every one */
	const char *preset;
	bool periodic;			/* fstrim: FITRIM passes from a timer */
	struct rec_knob knobs[REC_KNOBS];
};

const struct rec_family *rec_families(size_t *n);

/* One setting: a family and an index into each knob's ladder. */
struct rec_cand {
	uint16_t fam;
	uint8_t idx[REC_KNOBS];
};

/* The objectives of one replayed setting; lower is better. */
struct rec_obj {
	double trim_ns;		/* device time in TRIM */
	double added_ns;	/* time discard adds to the workload (report.c) */
	double reclaim;		/* byte-seconds freed but untrimmed; INFINITY: never trimmed (nodiscard) */
	double wp99;		/* p99 write latency / none's; 1 without foreground writes */
	double rp99;		/* p99 read latency / none's; 1 without foreground reads */
	double wa;		/* write amplification; 0 without an FTL */
	bool reclaim_known;	/* the trace frees (FREE/INTENT records): reclaim is measured */
};

struct rec_opts {
	struct matrix_opts m;
	const char *fs;		/* NULL: each trace's own; "any": every family */
	unsigned budget;	/* settings replayed per trace x profile, at most */
	bool grid;		/* the full grid, no search (tests, and to check the search) */
	const char *cache_dir;	/* NULL: memory only */
};

struct rec_run;

struct rec_run *rec_run__new(const struct rec_opts *o);
/* Searches trace x profile; 0 or -errno (err says why). Results accumulate in the run. */
int rec_run__search(struct rec_run *rr, const char *trace, const char *profile, char *err, size_t errlen);
/* The last search's trace ended before its footer: the reader's message; NULL if it is complete. */
const char *rec_run__last_cut(const struct rec_run *rr);
/* Renderers: 0 or -errno. */
int rec_run__write_json(const struct rec_run *rr, FILE *f);
int rec_run__write_text(const struct rec_run *rr, FILE *f);
int rec_run__write_html(const struct rec_run *rr, FILE *f);	/* rec_html.c */
void rec_run__destroy(struct rec_run *rr);

/*
 * recommend --plan: the cells of a search's first two rounds on trace x profile
 * (each family of the filesystem at its defaults, and its coarse grid; the whole
 * grid with o->grid) added to p. The refinement rounds depend on their results:
 * `recommend --cache DIR/cells` then finds these cells done and replays the rest.
 * 0, or -errno with err.
 */
struct plan;
int rec_plan(const struct rec_opts *o, const char *trace, const char *profile, struct plan *p, char *err,
	     size_t errlen);

/* The spec a setting replays as: "xfs(commit=30s)|split(max=1M)". */
void rec_cand_spec(const struct rec_cand *c, char *buf, size_t len);
/* a dominates b: no objective worse, one better. */
bool rec_dominates(const struct rec_obj *a, const struct rec_obj *b);

#endif
