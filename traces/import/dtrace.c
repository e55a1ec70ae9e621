// SPDX-License-Identifier: GPL-2.0
/*
 * FreeBSD DTrace importer: the line format of tracer/freebsd/trimsim.d,
 * documented in tracer/freebsd/README.md. Lines are sorted by time before
 * they reach the sink (per-CPU DTrace buffers may interleave in chunks).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/util.h"
#include "traces/import/importer.h"

#define DT_MAJOR 4000u	/* synthetic dev_t major for FreeBSD device names */
#define DT_MAX_DEVS 256

struct dt_opts {
	uint64_t partition_start;
};

static const struct opt_spec dt_opt_table[] = {
	{ "partition_start", OPT_BYTES, offsetof(struct dt_opts, partition_start), 0, 1ull << 60, "0",
	  "added to free offsets: the fs partition's start on the disk (gpart show -p)" },
	{ 0 },
};

struct dt_rec {
	struct ts_record r;
	uint64_t line;	/* ties keep file order */
};

struct dt_state {
	const struct dt_opts *o;
	const char *path;
	uint64_t line;
	struct dt_rec *v;
	size_t n, cap;
	char names[DT_MAX_DEVS][32];
	size_t ndev;
	struct import_sink *sink;
};

static int bad(struct dt_state *s, char *err, size_t errlen, const char *what)
{
	return ts_errf(err, errlen, -EINVAL, "%s:%" PRIu64 ": %s", s->path, s->line, what);
}

/*
 * A name for the trace header, which is JSON and so UTF-8 (RFC 8259): a
 * FreeBSD device or mount name that is not is refused with its byte, not
 * rewritten (an escaped name would no longer be the system's name).
 */
static int dt_name(struct dt_state *s, const char *what, const char *name, size_t max, char *err, size_t errlen)
{
	size_t at = ts_utf8_invalid(name);
	char msg[200];

	if (at != (size_t)-1)
		snprintf(msg, sizeof(msg), "%s is not valid UTF-8 at its byte %zu (a trace header is JSON text)",
			 what, at);
	else if (strlen(name) > max)
		snprintf(msg, sizeof(msg), "%s of %zu bytes is longer than the trace format's %zu", what,
			 strlen(name), max);
	else
		return 0;
	return bad(s, err, errlen, msg);
}

/* The dev number for a FreeBSD device name, in order of first appearance. */
static int dt_dev(struct dt_state *s, const char *name, uint32_t *dev, struct ts_device **d)
{
	size_t i;

	for (i = 0; i < s->ndev && strcmp(s->names[i], name); i++)
		;
	if (i == s->ndev) {
		if (i == DT_MAX_DEVS || strlen(name) >= sizeof(s->names[0]))
			return -E2BIG;
		if (ts_utf8_invalid(name) != (size_t)-1)
			return -EILSEQ;
		snprintf(s->names[i], sizeof(s->names[i]), "%s", name);
		s->ndev++;
	}
	*dev = TS_DEV_MK(DT_MAJOR, (uint32_t)i);
	*d = import_sink__device(s->sink, *dev);
	if (!*d)
		return -ENOMEM;
	snprintf((*d)->name, sizeof((*d)->name), "%s", name);
	return 0;
}

static const char *dt_dev_why(int ret)
{
	return ret == -E2BIG ? "too many or too long device names"
	       : ret == -EILSEQ ? "device name is not valid UTF-8 (a trace header is JSON text)" : "out of memory";
}

static int push(struct dt_state *s, const struct ts_record *r)
{
	int ret = grow_array((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v));

	if (ret)
		return ret;
	s->v[s->n].r = *r;
	s->v[s->n].line = s->line;
	s->n++;
	return 0;
}

/* Splits line into at most max space-separated fields; the last one keeps the rest. */
static size_t split(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (*p && n < max) {
		f[n++] = p;
		if (n == max)
			break;
		p = strchr(p, ' ');
		if (!p)
			break;
		*p++ = 0;
	}
	return n;
}

/* Decimal only, as the format says (parse_u64 would take 0x and octal too). */
static int num(const char *s, uint64_t *v)
{
	unsigned long long x;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, NULL, 10);
	if (errno)
		return -EINVAL;
	*v = x;
	return 0;
}

static int dt_op(const char *s)
{
	static const struct { const char *name; int op; } ops[] = {
		{ "read", TS_OP_READ }, { "write", TS_OP_WRITE },
		{ "delete", TS_OP_DISCARD }, { "flush", TS_OP_FLUSH },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(s, ops[i].name))
			return ops[i].op;
	return -1;
}

/* Offsets and lengths from the file must fit 64 bits on the whole disk (trace format rule). */
static int dt_range(struct dt_state *s, uint64_t off, uint64_t add, uint64_t len, char *err, size_t errlen)
{
	char what[128];

	if (off > UINT64_MAX - add)
		snprintf(what, sizeof(what), "offset %" PRIu64 " + partition_start %" PRIu64 " overflows", off, add);
	else if (off + add > UINT64_MAX - len)
		snprintf(what, sizeof(what), "offset %" PRIu64 " + length %" PRIu64 " overflows", off + add, len);
	else if (off + add + len > TS_MAX_BYTES)
		snprintf(what, sizeof(what), "offset %" PRIu64 " + length %" PRIu64 " ends past 2^63 - 1 bytes "
			 "(no disk reaches that far)", off + add, len);
	else
		return 0;
	return bad(s, err, errlen, what);
}

/* Times and latencies: nanoseconds of the kernel's clock, below 2^63 (traces/bounds.c). */
static int dt_time(struct dt_state *s, uint64_t t, char *err, size_t errlen)
{
	return t > TS_MAX_NS ? bad(s, err, errlen, "a time past 2^63 - 1 ns (no kernel clock reaches it)") : 0;
}

static int dt_line(struct dt_state *s, char *line, char *err, size_t errlen)
{
	struct ts_record r = { 0 };
	struct ts_device *d;
	char *f[9];
	size_t n;
	uint64_t v[6];
	int op, ret;

	if (!strcmp(line, "fs") || !strncmp(line, "fs ", 3)) {
		n = split(line, f, 5);
		if (n != 5 || num(f[2], &v[0]) || num(f[3], &v[1]) || !v[0] || v[0] > UINT32_MAX)
			return bad(s, err, errlen, "expected 'fs DEV FSIZE BSIZE MOUNT'");
		/* sys/ufs/ffs/fs.h: a fragment is at least DEV_BSIZE (512), a block at most MAXBSIZE (65536). */
		if (v[0] < 512 || v[0] > 65536 || (v[0] & (v[0] - 1)))
			return bad(s, err, errlen, "FSIZE is not a power of two in 512..65536");
		/* The whole mount point is kept: FreeBSD's MNAMELEN (1024) fits the format's PATH_MAX. */
		if ((ret = dt_name(s, "mount point", f[4], sizeof(d->mount) - 1, err, errlen)))
			return ret;
		if ((ret = dt_dev(s, f[1], &r.dev, &d)))
			return bad(s, err, errlen, dt_dev_why(ret));
		snprintf(d->fs, sizeof(d->fs), "ufs");
		d->fs_block_size = (uint32_t)v[0];
		snprintf(d->mount, sizeof(d->mount), "%s", f[4]);
		return 0;
	}
	if (!strncmp(line, "free ", 5)) {
		n = split(line, f, 7);
		if (n != 6 || num(f[1], &v[0]) || num(f[3], &v[1]) || num(f[4], &v[2]) || num(f[5], &v[3]))
			return bad(s, err, errlen, "expected 'free TIME DEV INO OFFSET BYTES'");
		if ((ret = dt_dev(s, f[2], &r.dev, &d)))
			return bad(s, err, errlen, dt_dev_why(ret));
		if ((ret = dt_range(s, v[2], s->o->partition_start, v[3], err, errlen)) ||
		    (ret = dt_time(s, v[0], err, errlen)))
			return ret;
		r.kind = TS_FREE;
		r.flags = TS_FS_UFS;
		r.time_ns = v[0];
		r.ino = v[1];
		r.offset = v[2] + s->o->partition_start;
		r.length = v[3];
		return push(s, &r) ? bad(s, err, errlen, "out of memory") : 0;
	}
	if (!strncmp(line, "start ", 6) || !strncmp(line, "done ", 5)) {
		bool done = line[0] == 'd';

		n = split(line, f, 9);
		if (n != (done ? 8u : 6u) || num(f[1], &v[0]) || num(f[4], &v[1]) || num(f[5], &v[2]) ||
		    (done && (num(f[6], &v[3]) || num(f[7], &v[4]))))
			return bad(s, err, errlen, done ? "expected 'done TIME DISK CMD OFFSET BYTES ERROR LATENCY'"
							: "expected 'start TIME DISK CMD OFFSET BYTES'");
		if ((op = dt_op(f[3])) < 0)
			return bad(s, err, errlen, "CMD must be read, write, delete or flush");
		if ((ret = dt_dev(s, f[2], &r.dev, &d)))
			return bad(s, err, errlen, dt_dev_why(ret));
		if ((ret = dt_range(s, v[1], 0, v[2], err, errlen)) || (ret = dt_time(s, v[0], err, errlen)) ||
		    (done && (ret = dt_time(s, v[4], err, errlen))))
			return ret;
		r.kind = done ? TS_DONE : TS_ISSUE;
		r.op = (uint8_t)op;
		r.time_ns = v[0];
		r.offset = v[1];
		r.length = v[2];
		if (done) {
			r.flags = v[3] ? TS_F_ERROR : 0;
			r.latency_ns = v[4];
		}
		return push(s, &r) ? bad(s, err, errlen, "out of memory") : 0;
	}
	return bad(s, err, errlen, "unknown line (expected fs, free, start or done)");
}

static int cmp_rec(const void *a, const void *b)
{
	const struct dt_rec *x = a, *y = b;

	if (x->r.time_ns != y->r.time_ns)
		return x->r.time_ns < y->r.time_ns ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int dt_file(struct dt_state *s, const char *path, char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	bool version = false;
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return ts_errf(err, errlen, -errno, "%s: %s", path, strerror(errno));
	s->path = path;
	s->line = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (trimsim_stop) {
			ret = ts_errf(err, errlen, -EINTR, "%s: interrupted", path);
			goto out;
		}
		s->line++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len || line[0] == '#')
			continue;
		if ((size_t)len != strlen(line)) {
			ret = bad(s, err, errlen, "NUL byte in line");
			goto out;
		}
		if (!version) {
			if (strcmp(line, "trimsim-dtrace 1")) {
				ret = bad(s, err, errlen, "expected 'trimsim-dtrace 1' (output of tracer/freebsd/trimsim.d)");
				goto out;
			}
			version = true;
			continue;
		}
		if ((ret = dt_line(s, line, err, errlen)))
			goto out;
	}
	if (ferror(f) && trimsim_stop)	/* a read from a pipe that SIGINT/SIGTERM ended */
		ret = ts_errf(err, errlen, -EINTR, "%s: interrupted", path);
	else if (ferror(f))
		ret = ts_errf(err, errlen, -EIO, "%s:%" PRIu64 ": read error", path, s->line);
	else if (!version)
		ret = ts_errf(err, errlen, -EINVAL, "%s:%" PRIu64 ": no 'trimsim-dtrace 1' line", path, s->line);
out:
	free(line);
	fclose(f);
	return ret;
}

static int dt_run(const void *opts, char *const *files, size_t nfiles, struct import_sink *sink,
		  char *err, size_t errlen)
{
	struct dt_state *s = calloc(1, sizeof(*s));
	int ret = 0;

	if (!s)
		return ts_errf(err, errlen, -ENOMEM, "dtrace: out of memory");
	s->o = opts;
	s->sink = sink;
	for (size_t i = 0; i < nfiles && !ret; i++)
		ret = dt_file(s, files[i], err, errlen);
	if (!ret) {
		if (s->n)	/* s->v is NULL when no line held a record: qsort(NULL, 0) is undefined */
			qsort(s->v, s->n, sizeof(s->v[0]), cmp_rec);
		for (size_t i = 0; i < s->n && !ret; i++)
			ret = import_sink__record(sink, &s->v[i].r);
		if (ret)
			ts_errf(err, errlen, ret, "dtrace: spool: %s", strerror(-ret));
	}
	free(s->v);
	free(s);
	return ret;
}

const struct importer_ops importer_dtrace = {
	.name = "dtrace",
	.help = "FreeBSD: output of tracer/freebsd/trimsim.d (format in tracer/freebsd/README.md).\n"
		"free -> FREE (ufs, inode), start -> ISSUE, done -> DONE with latency;\n"
		"delete is discard. Devices are numbered 4000:N by name.",
	.opts = dt_opt_table,
	.opts_size = sizeof(struct dt_opts),
	.run = dt_run,
};
