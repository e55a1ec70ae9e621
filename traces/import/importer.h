/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Importers: traces from other tools (blktrace, trace-cmd, FreeBSD DTrace)
 * into trimsim records. One read-only ops table per kind, registered in one
 * explicit array (registry.c); options are opts.h tables, so every importer's
 * options become `trimsim import` long options (--xfs-agblocks 1024).
 *
 * An importer reads its input files and hands records and devices to a sink.
 * The sink spools records (48 bytes each, to an unlinked temporary file) so
 * the output header can carry the device table the input revealed; the
 * command then writes the trace atomically (trace_writer TW_ATOMIC).
 */
#ifndef TRIMSIM_IMPORTER_H
#define TRIMSIM_IMPORTER_H

#include <stddef.h>
#include <stdint.h>

#include "traces/import/cliopt.h"
#include "traces/opts.h"
#include "traces/trace.h"

struct import_sink;

struct importer_ops {
	const char *name;		/* --from NAME */
	const char *help;		/* one paragraph: inputs, mapping, limits */
	const struct opt_spec *opts;	/* options, applied to an object of opts_size bytes */
	size_t opts_size;
	/* Why it opens each input more than once (then "-" and pipes are refused), NULL if it reads it once. */
	const char *rereads;
	/* Reads files[0..nfiles) into sink. 0 or -errno with a one-line message naming file and offset/line. */
	int (*run)(const void *opts, char *const *files, size_t nfiles, struct import_sink *sink,
		   char *err, size_t errlen);
};

/* The registry, for import's command line (traces/import/cliopt.h): false past the end. */
bool importer__plugin_at(size_t i, struct cliopt_plugin *p);
/* Validates every option table once (start-up). 0 or -EINVAL. */
int importers__validate(char *err, size_t errlen);

/* ---- Sink ---- */
struct import_sink *import_sink__new(void);
void import_sink__free(struct import_sink *s);
/* Appends one record (host order). 0 or -errno. */
int import_sink__record(struct import_sink *s, const struct ts_record *r);
/* The device entry for dev, added (name "MAJ:MIN", everything else 0) if new. NULL on ENOMEM. */
struct ts_device *import_sink__device(struct import_sink *s, uint32_t dev);
const struct ts_device *import_sink__devices(const struct import_sink *s, size_t *n);
uint64_t import_sink__count(const struct import_sink *s);
uint64_t import_sink__kind_count(const struct import_sink *s, unsigned kind);
/* Reads records [first, first+max) back in host order; returns how many, -errno on error. */
ssize_t import_sink__read(struct import_sink *s, uint64_t first, struct ts_record *buf, size_t max);
/*
 * Calls fn on every record spooled so far, in order, and keeps what it changes (its dev: what
 * an importer learns of the devices only at the end). fn must not change a record's kind.
 * 0 or -errno.
 */
int import_sink__rewrite(struct import_sink *s, void (*fn)(void *arg, struct ts_record *r), void *arg);
/* Removes dev's entry from the device table (no record names it any more). */
void import_sink__drop_device(struct import_sink *s, uint32_t dev);

/* Pairs an ISSUE with its completion, keyed by (dev, sector, op); bounded by requests in flight. */
struct inflight;
struct inflight *inflight__new(void);
void inflight__free(struct inflight *t);
/* Remembers that (dev, offset, op) was issued at t_ns with len bytes; 0 or -ENOMEM. */
int inflight__issue(struct inflight *t, uint32_t dev, uint64_t offset, unsigned op, uint64_t t_ns, uint64_t len);
/* Finds and forgets the matching issue: 1 with *t_ns, *len set; 0 if none. */
int inflight__complete(struct inflight *t, uint32_t dev, uint64_t offset, unsigned op, uint64_t *t_ns, uint64_t *len);
size_t inflight__pending(const struct inflight *t);

#endif
