// SPDX-License-Identifier: GPL-2.0
/* Every exporter, in one explicit array, and the layer choice they share. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "traces/import/cliopt.h"
#include "traces/util.h"
#include "traces/export/exporter.h"

extern const struct exporter_ops exporter_blktrace;
extern const struct exporter_ops exporter_fio;

static const struct exporter_ops *const registry[] = {
	&exporter_blktrace,
	&exporter_fio,
};

const char *const export_layer_choices[] = { "auto", "issue", "bio", "intent", "free", NULL };
const char *const export_ops_choices[] = { "all", "discard", NULL };

bool exporter__plugin_at(size_t i, struct cliopt_plugin *p)
{
	const struct exporter_ops *ex = i < sizeof(registry) / sizeof(registry[0]) ? registry[i] : NULL;

	if (ex)
		*p = (struct cliopt_plugin){ ex, ex->name, ex->help, ex->opts, ex->opts_size };
	return ex;
}

const struct exporter_ops *exporter__find(const char *name)
{
	long i = cliopt__plugin(exporter__plugin_at, name);

	return i < 0 ? NULL : registry[i];
}

int exporters__validate(char *err, size_t errlen)
{
	int ret = 0;

	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]) && !ret; i++) {
		const struct exporter_ops *ex = registry[i];

		ret = cliopt__check_plugin("exporter", i, ex->name, ex->name && ex->help && ex->begin && ex->record &&
					   ex->destroy, "name, help, begin, record and destroy", ex->opts, err, errlen);
	}
	return ret;
}

unsigned export_layer_kind(unsigned records, const struct export_ctx *c)
{
	static const unsigned kinds[] = { [EXPORT_ISSUE] = TS_ISSUE, [EXPORT_BIO] = TS_BIO,
					  [EXPORT_INTENT] = TS_INTENT, [EXPORT_FREE] = TS_FREE };

	if (records != EXPORT_AUTO)
		return records < sizeof(kinds) / sizeof(kinds[0]) && c->kinds[kinds[records]] ? kinds[records] : 0;
	for (unsigned l = EXPORT_ISSUE; l <= EXPORT_FREE; l++)
		if (c->kinds[kinds[l]])
			return kinds[l];
	return 0;
}

unsigned export_op(const struct ts_record *r)
{
	if (r->kind == TS_FREE || r->kind == TS_INTENT || r->kind == TS_BIO)
		return TS_OP_DISCARD;
	return r->op;
}

bool export_wants(unsigned kind, unsigned ops, const struct ts_record *r)
{
	unsigned op;

	if (r->kind != kind && !(kind == TS_ISSUE && r->kind == TS_DONE))
		return false;
	if (r->kind == TS_FREE && (r->flags & TS_F_PREALLOC))
		return false;	/* an unused preallocation: never written, no kernel discards it on free */
	op = export_op(r);
	if (op == TS_OP_NONE || op > TS_OP_MAX)
		return false;
	return ops == 0 || op == TS_OP_DISCARD || op == TS_OP_SECURE_ERASE;
}

int export_write_fail(const char *out_path, char *err, size_t errlen)
{
	int e = errno ? errno : EIO;

	if (e == EINTR && trimsim_stop)
		return export_check_stop(err, errlen);
	return ts_errf(err, errlen, -e, "%s: write: %s", out_path, strerror(e));
}

int export_check_stop(char *err, size_t errlen)
{
	return trimsim_stop ? ts_errf(err, errlen, -EINTR, "interrupted") : 0;
}

int export_base__new(void **state, size_t size, const void *opts, const struct export_ctx *c,
		     char *err, size_t errlen)
{
	const struct export_common *o = opts;
	struct export_base *b;
	unsigned kind = export_layer_kind(o->records, c);

	if (!kind)
		return ts_errf(err, errlen, -EINVAL, "%s: no %s records to export", c->in_path,
			       export_layer_choices[o->records]);
	if (!(b = calloc(1, size)))
		return ts_errf(err, errlen, -ENOMEM, "out of memory");
	*b = (struct export_base){ .out = c->out, .out_path = c->out_path, .in_path = c->in_path,
				   .kind = kind, .ops = o->ops, .first_ns = c->first_ns };
	*state = b;
	return 0;
}

int export_base__pieces(const struct export_base *b, const struct ts_record *r, uint64_t piece, uint64_t rec_no,
			const char *what, int (*put)(void *arg, uint64_t off, uint64_t len), void *arg,
			char *err, size_t errlen)
{
	uint64_t n = r->length / piece + 1, off = r->offset, left = r->length;
	int ret;

	if (n > TS_MAX_PIECES)
		return ts_errf(err, errlen, -E2BIG, "%s: record %" PRIu64 ": its %" PRIu64 " bytes would be %" PRIu64
			       " %s of at most %" PRIu64 " bytes; the bound is %u per record (TS_MAX_PIECES)",
			       b->in_path, rec_no, r->length, n, what, piece, TS_MAX_PIECES);
	do {
		uint64_t len = left > piece ? piece : left;

		if (put(arg, off, len))
			return export_write_fail(b->out_path, err, errlen);
		off += len;
		left -= len;
		if ((ret = export_check_stop(err, errlen)))
			return ret;
	} while (left);
	return 0;
}
