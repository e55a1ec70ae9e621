/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exporters: a trimsim trace out to the formats other tools read (blktrace
 * binary for blkparse and fio replay, fio iolog v3). One read-only ops table
 * per kind in one explicit array (registry.c); per-instance state behind a
 * void *. The command makes a first pass over the trace (counts per kind, first
 * time) and then streams records to the hooks; the hooks write to ctx->out,
 * the stream of OUT's output (traces/output.h: a file is a temporary renamed
 * over it only when everything succeeded). A record can be long (one ISSUE of
 * many GiB is thousands of pieces): hooks check export_check_stop() per piece.
 */
#ifndef TRIMSIM_EXPORTER_H
#define TRIMSIM_EXPORTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "traces/import/cliopt.h"
#include "traces/opts.h"
#include "traces/trace.h"

struct export_ctx {
	FILE *out;
	const char *out_path;		/* the final path, for messages */
	const char *in_path;
	const json_t *header;
	const struct ts_device *devs;
	size_t ndev;
	uint64_t kinds[TS_KIND_MAX + 1];	/* records per kind (first pass) */
	uint64_t first_ns;		/* time of the first record */
};

struct exporter_ops {
	const char *name;		/* --to NAME */
	const char *help;
	const struct opt_spec *opts;
	size_t opts_size;
	/* Sets *state (export_base__new); a *state set before a failure is still destroyed. */
	int (*begin)(void **state, const void *opts, const struct export_ctx *c, char *err, size_t errlen);
	/* Called for every record in trace order; rec_no counts from 0 for messages. */
	int (*record)(void *state, const struct ts_record *r, uint64_t rec_no, char *err, size_t errlen);
	int (*end)(void *state, char *err, size_t errlen);	/* optional: after the last record */
	void (*destroy)(void *state);	/* accepts NULL */
};

const struct exporter_ops *exporter__find(const char *name);
/* The registry for export's command line (traces/import/cliopt.h): false past the end. */
bool exporter__plugin_at(size_t i, struct cliopt_plugin *p);
int exporters__validate(char *err, size_t errlen);

/*
 * The options every exporter shares, first in its options struct:
 * which layer of the trace becomes the output's I/O, and which ops.
 */
enum export_layer { EXPORT_AUTO = 0, EXPORT_ISSUE, EXPORT_BIO, EXPORT_INTENT, EXPORT_FREE };
struct export_common {
	unsigned records;	/* enum export_layer */
	unsigned ops;		/* 0 all, 1 discard only */
};
extern const char *const export_layer_choices[];
extern const char *const export_ops_choices[];
#define EXPORT_COMMON_OPTS(type)								\
	{ "records", OPT_ENUM, offsetof(type, common.records), 0, 0, "auto",			\
	  "which records become I/O: issue (device commands, ISSUE/DONE), bio (discard bios),"	\
	  " intent (fs discard requests), free (fs frees, as discards); auto = the first"	\
	  " present in that order", export_layer_choices },					\
	{ "ops", OPT_ENUM, offsetof(type, common.ops), 0, 0, "all",				\
	  "all ops or only discards", export_ops_choices }

/* The trace kind the layer choice means for this trace (auto resolved); 0 if it has none. */
unsigned export_layer_kind(unsigned records, const struct export_ctx *c);
/* Whether r is exported under (kind, ops): ISSUE layer also passes DONE. */
bool export_wants(unsigned kind, unsigned ops, const struct ts_record *r);
/*
 * A write to ctx->out just failed: -errno with "OUT: write: <the errno stdio saw>",
 * or -EINTR "interrupted" when SIGINT/SIGTERM stopped it. Call right after the write.
 */
int export_write_fail(const char *out_path, char *err, size_t errlen);
/* Between the pieces of one long record: -EINTR "interrupted" once SIGINT/SIGTERM arrived, else 0. */
int export_check_stop(char *err, size_t errlen);
/* FREE/INTENT/BIO records carry no op: they are discards. */
unsigned export_op(const struct ts_record *r);

/* What every exporter's state starts with: the output, the records it exports, the time origin. */
struct export_base {
	FILE *out;
	const char *out_path;
	const char *in_path;
	unsigned kind, ops;	/* export_wants() */
	uint64_t first_ns;
};
/*
 * A begin hook's state: size bytes, zeroed, starting with a struct export_base set from
 * opts (which start with struct export_common) and c; a state that owns nothing else is
 * destroyed with free(). 0 with *state set; -ENOMEM, or -EINVAL "IN: no LAYER records to
 * export" when the trace has none, with err and *state untouched.
 */
int export_base__new(void **state, size_t size, const void *opts, const struct export_ctx *c,
		     char *err, size_t errlen);
/* r's time since the trace's first record; 0 for a record before it. */
static inline uint64_t export_base__since(const struct export_base *b, const struct ts_record *r)
{
	return r->time_ns >= b->first_ns ? r->time_ns - b->first_ns : 0;
}
/*
 * A record longer than one output entry holds is cut into pieces of at most
 * piece bytes (one for a record without length): put(arg, offset, length) writes
 * each (non-zero: the write failed, errno set) and the stop flag is checked between
 * them. More than TS_MAX_PIECES pieces is -E2BIG with a message naming the file and
 * record what (the reader already refused a record past its device; this bounds the
 * rest: a device of unknown size, or a huge one). 0 or -errno.
 */
int export_base__pieces(const struct export_base *b, const struct ts_record *r, uint64_t piece, uint64_t rec_no,
			const char *what, int (*put)(void *arg, uint64_t off, uint64_t len), void *arg,
			char *err, size_t errlen);

#endif
