// SPDX-License-Identifier: GPL-2.0
/*
 * blktrace importer: the per-CPU binary files blktrace writes
 * (NAME.blktrace.CPU) or the single merged file `blkparse -d FILE` dumps.
 * Both are streams of struct blk_io_trace, each followed by pdu_len bytes of
 * payload, in the byte order of the machine that recorded them (the magic
 * tells which). Files are merged by time, as blkparse does.
 *
 * Mapping (category bits and actions as kernel/trace/blktrace.c:
 * __blk_add_trace() sets them; a discard carries WRITE|DISCARD, a flush
 * request FLUSH with no bytes, a write with REQ_PREFLUSH WRITE|FLUSH):
 *   Q (queue) of a discard      -> BIO
 *   D (issue)                   -> ISSUE
 *   C (complete)                -> DONE, latency from the D with the same
 *                                  device, sector and op
 *   R (requeue)                 -> forgets the pending D
 * Notify records (process names, messages) and SCSI passthrough are skipped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/util.h"
#include "traces/import/blkio.h"
#include "traces/import/importer.h"

struct bt_opts {
	uint64_t device_size;
	unsigned ops;		/* 0 all, 1 discard only */
};

static const char *const ops_choices[] = { "all", "discard", NULL };

static const struct opt_spec bt_opt_table[] = {
	{ "device_size", OPT_BYTES, offsetof(struct bt_opts, device_size), 0, 1ull << 60, "0",
	  "size of every traced device for the header (blktrace does not record it); 0 = unknown" },
	{ "ops", OPT_ENUM, offsetof(struct bt_opts, ops), 0, 0, "all",
	  "which requests to import: all (discard, write, read, flush) or discard", ops_choices },
	{ 0 },
};

struct bt_file {
	const char *path;
	FILE *f;
	bool swap;
	bool have;		/* rec holds the next record */
	uint64_t off;		/* file offset of rec */
	uint64_t next_off;
	struct blkio_trace rec;
};

/*
 * Reads past the record's payload: a payload cut short by the end of the
 * file is a truncated file, not its end (fseeko() would go past EOF without
 * a word, and the next read would look like a clean end).
 */
static int skip_pdu(struct bt_file *f, char *err, size_t errlen)
{
	char buf[4096];
	size_t left = f->rec.pdu_len;

	while (left) {
		size_t want = left < sizeof(buf) ? left : sizeof(buf), n = fread(buf, 1, want, f->f);

		left -= n;
		if (n == want)
			continue;
		if (ferror(f->f))
			return ts_errf(err, errlen, -EIO, "%s: offset %" PRIu64 ": read error", f->path,
				       f->next_off - left);
		return ts_errf(err, errlen, -EINVAL, "%s: offset %" PRIu64 ": payload of %u bytes runs past the "
			       "end of the file (%u bytes there)", f->path, f->off + sizeof(f->rec),
			       f->rec.pdu_len, f->rec.pdu_len - (unsigned)left);
	}
	return 0;
}

/* Reads the next record of f into f->rec; 1 ok, 0 at end, -errno (message in err). */
static int bt_next(struct bt_file *f, char *err, size_t errlen)
{
	size_t n;
	int ret;

	f->have = false;
	f->off = f->next_off;
	n = fread(&f->rec, 1, sizeof(f->rec), f->f);
	if (n == 0 && feof(f->f))
		return 0;
	if (n != sizeof(f->rec)) {
		if (ferror(f->f))
			return ts_errf(err, errlen, -EIO, "%s: offset %" PRIu64 ": read error", f->path, f->off);
		return ts_errf(err, errlen, -EINVAL, "%s: offset %" PRIu64 ": truncated record (%zu of 48 bytes)",
			       f->path, f->off, n);
	}
	if (f->swap)
		blkio_swap(&f->rec);
	if ((f->rec.magic & BLKIO_MAGIC_MASK) != BLKIO_MAGIC)
		return ts_errf(err, errlen, -EINVAL, "%s: offset %" PRIu64 ": bad magic 0x%08x (not blktrace data)",
			       f->path, f->off, f->rec.magic);
	if ((f->rec.magic & 0xff) < 6 || (f->rec.magic & 0xff) > BLKIO_VERSION)
		return ts_errf(err, errlen, -EINVAL, "%s: offset %" PRIu64 ": unsupported blktrace version %u",
			       f->path, f->off, f->rec.magic & 0xff);
	f->next_off = f->off + sizeof(f->rec) + f->rec.pdu_len;
	if ((ret = skip_pdu(f, err, errlen)))
		return ret;
	if (f->rec.time > TS_MAX_NS)
		return ts_errf(err, errlen, -EINVAL, "%s: offset %" PRIu64 ": time %" PRIu64 " ns is past the "
			       "kernel's ktime_t range (2^63 - 1 ns)", f->path, f->off, f->rec.time);
	/* sector * 512 must not wrap: a device ends below 2^63 bytes (loff_t, traces/bounds.c). */
	if (f->rec.sector > (TS_MAX_BYTES - f->rec.bytes) / BLKIO_SECTOR)
		return ts_errf(err, errlen, -EINVAL, "%s: offset %" PRIu64 ": sector %" PRIu64 " + %u bytes ends "
			       "past 2^63 - 1 bytes (no block device reaches that far)", f->path, f->off,
			       f->rec.sector, f->rec.bytes);
	f->have = true;
	return 1;
}

/* Opens path and decides its byte order from the first magic. */
static int bt_open(struct bt_file *f, const char *path, char *err, size_t errlen)
{
	uint32_t magic;

	memset(f, 0, sizeof(*f));
	f->path = path;
	f->f = fopen(path, "rb");
	if (!f->f)
		return ts_errf(err, errlen, -errno, "%s: %s", path, strerror(errno));
	if (fread(&magic, sizeof(magic), 1, f->f) != 1) {
		if (ferror(f->f))
			return ts_errf(err, errlen, -EIO, "%s: offset 0: read error", path);
		return 0;	/* empty per-CPU file: nothing happened on that CPU */
	}
	if ((magic & BLKIO_MAGIC_MASK) == BLKIO_MAGIC)
		f->swap = false;
	else if ((blkio_bswap32(magic) & BLKIO_MAGIC_MASK) == BLKIO_MAGIC)
		f->swap = true;
	else
		return ts_errf(err, errlen, -EINVAL, "%s: offset 0: bad magic 0x%08x (not blktrace data)", path, magic);
	rewind(f->f);
	return bt_next(f, err, errlen);
}

/* Op class from category bits, never from the text blkparse prints. */
static unsigned bt_op(const struct blkio_trace *t)
{
	uint32_t c = t->action >> 16;

	if (c & BLKIO_TC_PC)
		return TS_OP_NONE;
	if (c & BLKIO_TC_DISCARD)
		return TS_OP_DISCARD;
	if ((c & BLKIO_TC_FLUSH) && t->bytes == 0)
		return TS_OP_FLUSH;
	if (c & BLKIO_TC_WRITE)
		return TS_OP_WRITE;
	return t->bytes ? TS_OP_READ : TS_OP_NONE;
}

static uint16_t bt_flags(const struct blkio_trace *t)
{
	uint32_t c = t->action >> 16;
	uint16_t fl = 0;

	for (size_t i = 0; i < sizeof(blkio_flag_cats) / sizeof(blkio_flag_cats[0]); i++)
		if (c & blkio_flag_cats[i].cat)
			fl |= blkio_flag_cats[i].flag;
	return t->bytes ? fl : fl & (uint16_t)~TS_F_PREFLUSH;	/* an empty flush is the flush itself */
}

static int bt_emit(const struct bt_opts *o, const struct blkio_trace *t, struct inflight *fl,
		   struct import_sink *sink)
{
	struct ts_record r = { .time_ns = t->time, .dev = t->device, .ino = t->pid };
	unsigned op = bt_op(t);
	uint64_t t0, len;
	struct ts_device *d;

	if ((t->action >> 16) & BLKIO_TC_NOTIFY || op == TS_OP_NONE)
		return 0;
	if (o->ops == 1 && op != TS_OP_DISCARD)
		return 0;
	r.op = (uint8_t)op;
	r.flags = bt_flags(t);
	r.offset = t->sector * BLKIO_SECTOR;
	r.length = t->bytes;
	switch (BLKIO_ACT(t->action)) {
	case BLKIO_TA_QUEUE:
		if (op != TS_OP_DISCARD)
			return 0;
		r.kind = TS_BIO;
		break;
	case BLKIO_TA_ISSUE:
		r.kind = TS_ISSUE;
		if (inflight__issue(fl, t->device, t->sector, op, t->time, t->bytes))
			return -ENOMEM;
		break;
	case BLKIO_TA_REQUEUE:
		inflight__complete(fl, t->device, t->sector, op, &t0, &len);
		return 0;
	case BLKIO_TA_COMPLETE:
		r.kind = TS_DONE;
		if (inflight__complete(fl, t->device, t->sector, op, &t0, &len)) {
			r.latency_ns = t->time >= t0 ? t->time - t0 : 0;
			if (!r.length)
				r.length = len;
		}
		if (t->error)
			r.flags |= TS_F_ERROR;
		break;
	default:
		return 0;
	}
	d = import_sink__device(sink, t->device);
	if (!d)
		return -ENOMEM;
	if (o->device_size && !d->size) {
		d->size = o->device_size;
		d->logical_block_size = d->physical_block_size = BLKIO_SECTOR;
	}
	return import_sink__record(sink, &r);
}

static int bt_run(const void *opts, char *const *files, size_t nfiles, struct import_sink *sink,
		  char *err, size_t errlen)
{
	const struct bt_opts *o = opts;
	struct bt_file *bf = calloc(nfiles, sizeof(*bf));
	struct inflight *fl = inflight__new();
	int ret = 0;

	if (!bf || !fl) {
		ret = ts_errf(err, errlen, -ENOMEM, "blktrace: out of memory");
		goto out;
	}
	for (size_t i = 0; i < nfiles; i++)
		if ((ret = bt_open(&bf[i], files[i], err, errlen)) < 0)
			goto out;
	for (;;) {
		struct bt_file *best = NULL;

		for (size_t i = 0; i < nfiles; i++)
			if (bf[i].have && (!best || bf[i].rec.time < best->rec.time))
				best = &bf[i];
		if (!best)
			break;
		if ((ret = bt_emit(o, &best->rec, fl, sink))) {
			ts_errf(err, errlen, ret, "%s: offset %" PRIu64 ": %s", best->path, best->off, strerror(-ret));
			goto out;
		}
		if ((ret = bt_next(best, err, errlen)) < 0)
			goto out;
		if (trimsim_stop) {
			ret = ts_errf(err, errlen, -EINTR, "blktrace: interrupted");
			goto out;
		}
	}
	ret = 0;
out:
	for (size_t i = 0; bf && i < nfiles; i++)
		if (bf[i].f)
			fclose(bf[i].f);
	free(bf);
	inflight__free(fl);
	return ret;
}

const struct importer_ops importer_blktrace = {
	.name = "blktrace",
	.rereads = "it reads the first magic, then rewinds",
	.help = "blktrace binary: per-CPU files (NAME.blktrace.N, give them all) or one `blkparse -d` dump;\n"
		"either byte order. Q of a discard -> BIO, D -> ISSUE, C -> DONE (latency paired with its D),\n"
		"for discard, write, read and flush requests. Device sizes are not in blktrace data:\n"
		"give --device-size.",
	.opts = bt_opt_table,
	.opts_size = sizeof(struct bt_opts),
	.run = bt_run,
};
