/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs one cell of a comparison: replays a trace through a policy into a
 * target (a device model profile, or a real target spec) with the replay
 * engine, and fills a report_cell (the engine's figures + the probe's series).
 */
#ifndef TRIMSIM_REPORT_RUNCELL_H
#define TRIMSIM_REPORT_RUNCELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "replay/report/cell.h"

struct report;

struct cell_job {
	const char *trace;
	const char *policy;
	const char *profile;	/* a target spec (target_spec_parse): "sata-sf2281" (a model profile),
				   "file:/path", "device:/dev/x" */
	uint64_t seed;
	unsigned runs;		/* real-time targets: repeat this many times */
	unsigned qd;		/* --qd: every target's queue depth (0: each its own) */
	bool destructive;	/* real targets may destroy data: --destructive, or the command's up-front
				   check found a --file target new or empty (its data is then the command's own) */
};

/* The profile names a real-time target (a real device or a file): its runs vary and it is measured alone. */
bool report_profile_realtime(const char *profile);
/*
 * A model profile (with overrides) loads: 0, or -errno with the loader's one-line
 * message in err. Other targets ("file:PATH", "device:PATH") are checked when they open.
 */
int report_check_profile(const char *profile, char *err, size_t errlen);
/*
 * A real target (device:PATH, file:PATH) about to replay trace: every refusal its
 * open() would make (the target's check(): in use, too small for the trace's
 * extent, --destructive), without opening it. 0 for models. 0 or -errno with the
 * one-line message in err.
 */
int report_check_target(const char *profile, const char *trace, bool destructive, char *err, size_t errlen);
/*
 * The queue depth a cell's target dispatches at (commands in flight): a model's
 * profile qd (with overrides), a real target's qd= or its default; qd (--qd)
 * overrides both. 0 if unknown (a profile that does not load).
 */
unsigned report_target_qd(const char *profile, unsigned qd);
/* 0, or -errno with a one-line message in err (also copied into c->error). */
int report_run_cell(const struct cell_job *j, struct report_cell *c, char *err, size_t errlen);

/* ---- around the cells of a compare (cellcheck.c) ---- */
/* report_check_target() for every real target x every trace: the first refusal, or 0. */
int report_check_targets(const char *const *profiles, size_t np, const char *const *traces, size_t nt,
			 bool destructive, char *err, size_t errlen);
/* One warning line into f when models and real targets would dispatch at different depths; true if so. */
bool report_warn_qd(const char *const *profiles, size_t np, unsigned qd, FILE *f);
/*
 * One line into f per cell that failed, or whose real target's commands failed
 * (the report, or nothing with -q, is not the only place that says so); how many.
 */
size_t report_failures(const struct report *r, FILE *f);

#endif
