// SPDX-License-Identifier: GPL-2.0
/*
 * fio iolog version 3 exporter, following fio's HOWTO "Trace file format":
 *   fio version 3 iolog
 *   TIMESTAMP FILENAME add|open|close
 *   TIMESTAMP FILENAME read|write|sync|trim OFFSET LENGTH
 * TIMESTAMP is microseconds from the start of the run (fio's iolog.c writes
 * utime_since_now() and replays the differences); LENGTH is read as an
 * unsigned int, so longer records are cut into pieces below 4 GiB.
 * Each device becomes one file: --file PATH for all of them, else /dev/NAME
 * from the trace's device table (/dev/block/MAJ:MIN when it has no name).
 * Offsets are the device's own: a partition's less its start (the header's
 * partition_start), as /dev/NAME names the partition and the replay targets
 * replay it (replay/targets/REALDEV.md, "Partitions").
 *
 * fio releases before the fix for fio issue #769 (iolog.c "handle trim
 * commands when reading iologs", 2023; Debian 12 ships 3.33) reject trim lines
 * with "bad ddir: 2"; replay discards from the blktrace export there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "traces/util.h"
#include "traces/export/exporter.h"

#define FIO_MAX_PIECE	(0xffffffffull & ~4095ull)
#define FIO_MAX_FILES	64

struct fio_opts {
	struct export_common common;
	char file[256];
};

static const struct opt_spec fio_opt_table[] = {
	EXPORT_COMMON_OPTS(struct fio_opts),
	{ "file", OPT_STR, offsetof(struct fio_opts, file), 0, 0, "",
	  "FILENAME for every device in the log (a device or file to replay on); default /dev/NAME",
	  NULL, 256 },
	{ 0 },
};

struct fio_file {
	uint32_t dev;
	char name[280];
};

struct fio_state {
	struct export_base b;
	const struct export_ctx *c;
	uint64_t last_us;
	/* the line being written, for fio_piece() */
	const char *name, *act;
	uint64_t us, base;	/* base: its device's partition start */
	char file[256];
	struct fio_file files[FIO_MAX_FILES];
	size_t nfiles;
};

static const char *fio_action(unsigned op)
{
	switch (op) {
	case TS_OP_READ: return "read";
	case TS_OP_FLUSH: return "sync";
	case TS_OP_DISCARD:
	case TS_OP_SECURE_ERASE: return "trim";
	default: return "write";
	}
}

/*
 * A trace's device name becomes a path in a file fio reads as whitespace-
 * separated fields, and fio then writes to that path: only a plain kernel
 * name (letters, digits, '.', '_', '-', '+') is used; any other (a newline
 * and a forged line after it, a space, a '/', "..") falls back to
 * /dev/block/MAJ:MIN.
 */
static bool plain_name(const char *s)
{
	if (!s[0] || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("._-+", *s)))
			return false;
	return true;
}

/* dev's entry in the trace's device table; NULL if it has none. */
static const struct ts_device *device_of(const struct export_ctx *c, uint32_t dev)
{
	for (size_t i = 0; i < c->ndev; i++)
		if (c->devs[i].dev == dev)
			return &c->devs[i];
	return NULL;
}

/* The file for dev, announced with add and open the first time it appears. */
static const char *fio_file(struct fio_state *s, uint32_t dev, uint64_t us, int *ret)
{
	struct fio_file *f;

	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i].dev == dev)
			return s->files[i].name;
	if (s->file[0] && s->nfiles) {	/* one file for every device */
		return s->files[0].name;
	}
	if (s->nfiles == FIO_MAX_FILES) {
		*ret = -E2BIG;
		return NULL;
	}
	f = &s->files[s->nfiles++];
	f->dev = dev;
	if (s->file[0]) {
		snprintf(f->name, sizeof(f->name), "%s", s->file);
	} else {
		const struct ts_device *d = device_of(s->c, dev);
		const char *name = d && plain_name(d->name) ? d->name : NULL;
		char buf[32];

		if (name)
			snprintf(f->name, sizeof(f->name), "/dev/%s", name);
		else
			snprintf(f->name, sizeof(f->name), "/dev/block/%s", ts_dev_str(dev, buf, sizeof(buf)));
	}
	if (fprintf(s->b.out, "%" PRIu64 " %s add\n%" PRIu64 " %s open\n", us, f->name, us, f->name) < 0)
		*ret = -1;
	return f->name;
}

static int fio_begin(void **state, const void *opts, const struct export_ctx *c, char *err, size_t errlen)
{
	const struct fio_opts *o = opts;
	struct fio_state *s;
	int ret;

	if ((ret = export_base__new(state, sizeof(*s), opts, c, err, errlen)))
		return ret;
	if (strpbrk(o->file, " \t\n"))	/* the caller destroys *state */
		return ts_errf(err, errlen, -EINVAL, "--file '%s': fio iolog file names cannot hold spaces", o->file);
	s = *state;
	s->c = c;
	snprintf(s->file, sizeof(s->file), "%s", o->file);
	if (fprintf(s->b.out, "fio version 3 iolog\n") < 0)
		return export_write_fail(s->b.out_path, err, errlen);
	return 0;
}

static int fio_piece(void *arg, uint64_t off, uint64_t len)
{
	struct fio_state *s = arg;

	return fprintf(s->b.out, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu64 "\n", s->us, s->name, s->act,
		       off - s->base, len) < 0;
}

static int fio_record(void *state, const struct ts_record *r, uint64_t rec_no, char *err, size_t errlen)
{
	struct fio_state *s = state;
	const struct ts_device *d;
	uint64_t us;
	int ret = 0;

	/* DONE records are the completions of exported ISSUEs: nothing to replay. */
	if (r->kind == TS_DONE || !export_wants(s->b.kind, s->b.ops, r))
		return 0;
	us = export_base__since(&s->b, r) / 1000;
	if (us < s->last_us)
		us = s->last_us;	/* fio replays differences: never negative */
	s->last_us = us;
	s->name = fio_file(s, r->dev, us, &ret);
	if (!s->name)
		return ts_errf(err, errlen, ret, "record %" PRIu64 ": more than %d devices", rec_no, FIO_MAX_FILES);
	if (ret)	/* its "add" and "open" lines */
		return export_write_fail(s->b.out_path, err, errlen);
	s->act = fio_action(export_op(r));
	s->us = us;
	d = device_of(s->c, r->dev);
	s->base = d && r->offset >= d->partition_start ? d->partition_start : 0;
	return export_base__pieces(&s->b, r, FIO_MAX_PIECE, rec_no, "iolog lines", fio_piece, s, err, errlen);
}

static int fio_end(void *state, char *err, size_t errlen)
{
	struct fio_state *s = state;

	for (size_t i = 0; i < s->nfiles; i++)
		if (fprintf(s->b.out, "%" PRIu64 " %s close\n", s->last_us, s->files[i].name) < 0)
			return export_write_fail(s->b.out_path, err, errlen);
	return 0;
}

const struct exporter_ops exporter_fio = {
	.name = "fio",
	.help = "fio iolog version 3 (fio >= 3.31): read/write/sync/trim lines with microsecond timestamps;\n"
		"replay with fio --read_iolog=OUT [--replay_redirect=DEV]. Note: fio 3.33 (Debian 12) and\n"
		"older reject trim lines (\"bad ddir: 2\", fio issue #769): use --to blktrace there.",
	.opts = fio_opt_table,
	.opts_size = sizeof(struct fio_opts),
	.begin = fio_begin,
	.record = fio_record,
	.end = fio_end,
	.destroy = free,
};
