// SPDX-License-Identifier: GPL-2.0
/*
 * Trace writer. Binary records go into a ~256 KiB buffer of whole records
 * and leave it with write(2), so a killed writer leaves a file that ends on
 * a record boundary (or, if the kernel cut a write short, inside the last
 * record, which the reader reports as truncated). JSON Lines goes through
 * stdio. The file itself is an output (traces/output.h): TW_ATOMIC writes a
 * temporary beside a regular file and renames it on close, TW_STREAM writes
 * in place; both write pipes, character devices and "-" directly.
 * Layout: traces/FORMAT.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traces/trace.h"
#include "traces/trace_int.h"
#include "traces/output.h"
#include "traces/util.h"

struct trace_writer {
	char *path;
	struct output *out;
	int fd;			/* binary: output__fd(out) */
	FILE *f;		/* JSON Lines: output__file(out) */
	enum trace_writer_format fmt;	/* TW_BINARY_V1 is kept as TW_BINARY with version 1 */
	unsigned version;		/* binary: the format version written */
	enum trace_writer_mode mode;
	unsigned char *buf;
	size_t fill;
	struct ts_sum sum;
	uint64_t records;
	uint64_t lost;
	uint64_t off;		/* bytes written so far (binary) */
	struct ts_device *devs;	/* the header's devices, for the per-record check */
	struct ts_devmap *devmap;
	char err[512];
};

/* "PATH: ..." into w->err; returns code. */
#define wfail(w, code, ...) ts_path_errf((w)->err, sizeof((w)->err), code, (w)->path, __VA_ARGS__)

static int write_all(struct trace_writer *w, const void *buf, size_t len)
{
	size_t done;
	int ret = ts_write_all(w->fd, buf, len, &done);

	w->off += done;
	if (ret == -EINTR)
		return wfail(w, -EINTR, "interrupted");
	if (ret)
		return wfail(w, ret, "byte %" PRIu64 ": write: %s", w->off, strerror(-ret));
	return 0;
}

static void put32(unsigned char *p, uint32_t v)
{
	if (TS_HOST_BIG_ENDIAN)
		v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static uint64_t le64(uint64_t v)
{
	return TS_HOST_BIG_ENDIAN ? __builtin_bswap64(v) : v;
}

static int open_file(struct trace_writer *w)
{
	w->out = output__open(w->path, w->mode == TW_STREAM ? OUTPUT_STREAM : OUTPUT_ATOMIC, w->err, sizeof(w->err));
	if (!w->out)
		return -errno;
	w->fd = output__fd(w->out);
	return 0;
}

/* A JSON Lines write failed: the errno the stream saw. */
static int jsonl_fail(struct trace_writer *w, const char *where)
{
	int e = output__error(w->out) ? output__error(w->out) : EIO;

	if (e == EINTR && trimsim_stop)
		return wfail(w, -EINTR, "interrupted");
	return wfail(w, -e, "%swrite: %s", where, strerror(e));
}

static int write_header(struct trace_writer *w, const char *json)
{
	size_t jlen = strlen(json);
	size_t hlen = (TS_FIXED_HDR + jlen + 7) & ~(size_t)7;
	unsigned char *h;
	int ret;

	if (w->fmt == TW_JSONL) {
		w->f = output__file(w->out);
		if (!w->f)
			return wfail(w, -errno, "%s", strerror(errno));
		if (fprintf(w->f, "{\"trimsim\":%d,\"header\":%s}\n", TS_JSONL_VERSION, json) < 0)
			return jsonl_fail(w, "");
		return 0;
	}
	if (hlen > TS_MAX_HEADER)
		return wfail(w, -EFBIG, "header of %zu bytes exceeds %u", hlen, TS_MAX_HEADER);
	h = calloc(1, hlen);
	if (!h)
		return wfail(w, -ENOMEM, "out of memory");
	put32(h, TS_MAGIC_BASE | w->version);
	put32(h + 4, (uint32_t)hlen);
	put32(h + 8, TS_RECORD_SIZE);
	put32(h + 12, (uint32_t)jlen);
	memcpy(h + TS_FIXED_HDR, json, jlen);
	ts_sum_start(&w->sum, w->version, h, hlen);
	ret = write_all(w, h, hlen);
	free(h);
	return ret;
}

struct trace_writer *trace_writer__open(const char *path, const json_t *header,
					enum trace_writer_format fmt, enum trace_writer_mode mode,
					char *err, size_t errlen)
{
	struct trace_writer *w = calloc(1, sizeof(*w));
	char *json = NULL, why[300];
	size_t ndev;
	int ret = -ENOMEM;

	if (!w || !(w->path = strdup(path))) {
		ts_errf(err, errlen, 0, "%s: out of memory", path);
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = -1;
	w->fmt = fmt == TW_BINARY_V1 ? TW_BINARY : fmt;
	w->version = fmt == TW_BINARY_V1 ? 1 : TS_VERSION;
	w->mode = mode;
	ret = ts_header_parse(header, &w->devs, &ndev, &w->devmap, why, sizeof(why));
	if (ret) {
		ret = wfail(w, -EINVAL, "%s", why);	/* never write what a reader would refuse */
		goto out;
	}
	json = json_dumps(header, JSON_SORT_KEYS | JSON_COMPACT);
	if (!json) {
		ret = wfail(w, -ENOMEM, "cannot serialise the header");
		goto out;
	}
	if (w->fmt == TW_BINARY && !(w->buf = aligned_alloc(64, TS_BUF_ALLOC))) {
		ret = wfail(w, -ENOMEM, "out of memory");
		goto out;
	}
	ret = open_file(w);
	if (!ret)
		ret = write_header(w, json);
out:
	free(json);
	if (ret) {
		ts_errf(err, errlen, 0, "%s", w->err);
		trace_writer__abort(w);
		errno = -ret;
		return NULL;
	}
	return w;
}

static int flush_buf(struct trace_writer *w)
{
	int ret;

	if (!w->fill)
		return 0;
	ts_sum_update(&w->sum, w->buf, w->fill);
	ret = write_all(w, w->buf, w->fill);
	w->fill = 0;
	return ret;
}

int trace_writer__write(struct trace_writer *w, const struct ts_record *rec)
{
	char why[300];

	if (ts_record_check(rec, why, sizeof(why)) || ts_devmap__check(w->devmap, rec, why, sizeof(why)))
		return wfail(w, -EINVAL, "record %" PRIu64 ": %s", w->records, why);
	w->records++;
	if (w->fmt == TW_JSONL) {
		char where[40];

		if (ts_jsonl_write_record(w->f, rec) >= 0 && fputc('\n', w->f) != EOF)
			return 0;
		snprintf(where, sizeof(where), "line %" PRIu64 ": ", w->records + 1);
		return jsonl_fail(w, where);
	}
	memcpy(w->buf + w->fill, rec, TS_RECORD_SIZE);
	ts_record_to_le((struct ts_record *)(w->buf + w->fill));
	w->fill += TS_RECORD_SIZE;
	return w->fill == TS_BUF_BYTES ? flush_buf(w) : 0;
}

int trace_writer__add_lost(struct trace_writer *w, uint64_t n)
{
	w->lost += n;
	return 0;
}

int trace_writer__flush(struct trace_writer *w)
{
	if (w->fmt == TW_JSONL)
		return fflush(w->f) ? jsonl_fail(w, "") : 0;
	return flush_buf(w);
}

static int finish(struct trace_writer *w, uint64_t end_ns)
{
	struct ts_footer ft = { 0 };
	int ret;

	if (w->fmt == TW_JSONL) {
		if (fprintf(w->f, "{\"footer\":{\"records\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"end_ns\":%" PRIu64 "}}\n",
			    w->records, w->lost, end_ns) < 0 || fflush(w->f))
			return jsonl_fail(w, "");
		return 0;
	}
	ret = flush_buf(w);
	if (ret)
		return ret;
	ft.records = le64(w->records);
	ft.lost = le64(w->lost);
	ft.checksum = le64(ts_sum_final(&w->sum));
	ft.end_ns = le64(end_ns);
	ft.magic = le64(TS_FOOTER_MAGIC);
	ft.kind = TS_KIND_FOOTER;
	return write_all(w, &ft, sizeof(ft));
}

/* The footer, then the output's commit: flush, fsync and rename (TW_ATOMIC), close. */
int trace_writer__close(struct trace_writer *w, uint64_t end_ns, char *err, size_t errlen)
{
	int ret = finish(w, end_ns);

	if (!ret) {
		ret = output__commit(w->out, w->err, sizeof(w->err));
		w->out = NULL;
	}
	if (ret)
		ts_errf(err, errlen, 0, "%s", w->err);
	trace_writer__abort(w);
	return ret;
}

void trace_writer__abort(struct trace_writer *w)
{
	if (!w)
		return;
	output__abort(w->out);
	free(w->buf);
	ts_devmap__free(w->devmap);
	free(w->devs);
	free(w->path);
	free(w);
}

int trace_writer__fd(const struct trace_writer *w)
{
	return w->fd;
}

const char *trace_writer__error(const struct trace_writer *w)
{
	return w->err;
}
