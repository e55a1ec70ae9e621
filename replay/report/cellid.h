/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One cell's identity, and its result on disk.
 *
 * A model cell is a pure function of (the trace's bytes, the policy string, the
 * profile's JSON, the seed, --qd, the trimsim version): its id is a hash of
 * those, so a cell replayed twice, by recommend's --cache or by `trimsim cell`
 * on a plan (plan.h), is the same file, ID.cell. The trace path and the profile
 * name are not part of it: the same bytes under another name are the same cell.
 *
 * A result file is the report_cell as replayed (before report__finish), after a
 * header with the build's version, the cell's size, the id and a checksum of the
 * cell's bytes: plain data, exact to the bit, and only ever read back by the
 * same build (a different version or layout is refused, not reinterpreted).
 * Digests and the checksum are ts_sum (traces/trace.h): they catch a changed or
 * damaged file, not a forged one.
 */
#ifndef TRIMSIM_REPORT_CELLID_H
#define TRIMSIM_REPORT_CELLID_H

#include <stddef.h>
#include <stdint.h>

#include "replay/report/cell.h"

struct cell_ident {
	uint64_t trace;		/* cell_trace_digest() */
	const char *policy;	/* as given */
	uint64_t profile;	/* cell_profile_digest() */
	uint64_t seed;
	unsigned qd;		/* --qd, 0: each target its own (not part of the id then) */
};

/*
 * What a replay gives for the same inputs changed (a fidelity fix, not a layout change):
 * bumped with such a change, it is part of every cell's id, so a result cached before
 * (recommend --cache, a plan's cells/) is not taken for one of this build's. 1: the
 * chain stage's wait=auto (2026-12-07).
 */
#define CELL_RESULTS_REV 1

uint64_t cell_id(const struct cell_ident *k);
/* The digest of the trace's bytes (a spooled pipe's copy too): 0, or -errno with err naming the file. */
int cell_trace_digest(const char *path, uint64_t *d, char *err, size_t errlen);
/*
 * The digest of a model profile as it replays: its engine and every parameter
 * after overrides ("nvme:qd=4"), not its name or path. Other targets: the spec.
 * 0, or -errno with the loader's message in err.
 */
int cell_profile_digest(const char *profile, uint64_t *d, char *err, size_t errlen);

/* "DIR/0123456789abcdef.cell" */
void cell_result_path(const char *dir, uint64_t id, char *buf, size_t len);
/* Writes c as cell id's result into dir, atomically (output.h): 0, or -errno with err. */
int cell_result_store(const char *dir, uint64_t id, const struct report_cell *c, char *err, size_t errlen);
/*
 * Reads cell id's result from path into c: 0; -ENOENT (no file); -EBADMSG with err
 * saying why (another build or version, another cell's id, truncated, checksum).
 */
int cell_result_load(const char *path, uint64_t id, struct report_cell *c, char *err, size_t errlen);

#endif
