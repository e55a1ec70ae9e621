// SPDX-License-Identifier: GPL-2.0
/*
 * blktrace exporter: one file of struct blk_io_trace records (version 7,
 * little-endian, cpu 0, no payloads), the layout blkparse reads (-i FILE) and
 * fio replays (--read_iolog=FILE --replay_redirect=DEV).
 *
 * Events as a request's life produces them in kernel/trace/blktrace.c:
 * an ISSUE record becomes Q (queue), G (get request), I (insert), D (issue),
 * all at its time; its DONE becomes C (complete). With --records bio, intent
 * or free, each record becomes a Q only (what fio replays; blkparse lists it).
 * Category bits as __blk_add_trace() sets them: a discard is WRITE|DISCARD,
 * a flush request READ|FLUSH with no bytes, REQ_PREFLUSH adds FLUSH, and
 * request events (G/I/D/C) carry FS. fio's blktrace.c replays the Q events
 * (discards as trims, FLUSH as sync). blk_io_trace.bytes is 32-bit: longer
 * records are cut into pieces of at most 4 GiB - 512.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "traces/import/blkio.h"
#include "traces/util.h"
#include "traces/export/exporter.h"

#define BT_MAX_PIECE	(0xffffffffull & ~511ull)

struct bt_opts {
	struct export_common common;
};

static const struct opt_spec bt_opt_table[] = {
	EXPORT_COMMON_OPTS(struct bt_opts),
	{ 0 },
};

struct bt_state {
	struct export_base b;
	uint32_t seq;
	/* the record being written, for bt_piece() */
	const struct ts_record *r;
	uint32_t cat;
};

static uint32_t bt_category(unsigned op, uint16_t flags)
{
	uint32_t c;

	switch (op) {
	case TS_OP_DISCARD:
	case TS_OP_SECURE_ERASE: c = BLKIO_TC_WRITE | BLKIO_TC_DISCARD; break;
	case TS_OP_FLUSH: c = BLKIO_TC_READ | BLKIO_TC_FLUSH; break;
	case TS_OP_READ: c = BLKIO_TC_READ; break;
	default: c = BLKIO_TC_WRITE; break;	/* write, write-zeroes */
	}
	for (size_t i = 0; i < sizeof(blkio_flag_cats) / sizeof(blkio_flag_cats[0]); i++)
		if (flags & blkio_flag_cats[i].flag)
			c |= blkio_flag_cats[i].cat;
	return c;
}

static int bt_put(struct bt_state *s, const struct ts_record *r, unsigned act, uint32_t cat,
		  uint64_t offset, uint32_t bytes)
{
	struct blkio_trace t = {
		.magic = BLKIO_MAGIC | BLKIO_VERSION,
		.sequence = ++s->seq,
		.time = export_base__since(&s->b, r),
		.sector = offset / BLKIO_SECTOR,
		.bytes = bytes,
		.action = BLKIO_TC(cat) | act,
		.pid = r->kind == TS_BIO || r->kind == TS_ISSUE || r->kind == TS_DONE ? (uint32_t)r->ino : 0,
		.device = r->dev,
		.error = act == BLKIO_TA_COMPLETE && (r->flags & TS_F_ERROR) ? EIO : 0,
	};

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	blkio_swap(&t);
#endif
	return fwrite(&t, sizeof(t), 1, s->b.out) == 1 ? 0 : -1;
}

static int bt_begin(void **state, const void *opts, const struct export_ctx *c, char *err, size_t errlen)
{
	return export_base__new(state, sizeof(struct bt_state), opts, c, err, errlen);
}

/* One piece of the record being written: its events (Q,G,I,D for an ISSUE, C for a DONE, else Q). */
static int bt_piece(void *arg, uint64_t off, uint64_t len)
{
	static const unsigned issue_acts[] = { BLKIO_TA_QUEUE, BLKIO_TA_GETRQ, BLKIO_TA_INSERT, BLKIO_TA_ISSUE };
	struct bt_state *s = arg;
	int ret = 0;

	if (s->r->kind == TS_DONE)
		return bt_put(s, s->r, BLKIO_TA_COMPLETE, s->cat | BLKIO_TC_FS, off, (uint32_t)len);
	if (s->r->kind != TS_ISSUE)
		return bt_put(s, s->r, BLKIO_TA_QUEUE, s->cat, off, (uint32_t)len);
	for (size_t i = 0; i < 4 && !ret; i++)
		ret = bt_put(s, s->r, issue_acts[i], s->cat | (i ? BLKIO_TC_FS : 0), off, (uint32_t)len);
	return ret;
}

static int bt_record(void *state, const struct ts_record *r, uint64_t rec_no, char *err, size_t errlen)
{
	struct bt_state *s = state;

	if (!export_wants(s->b.kind, s->b.ops, r))
		return 0;
	if (r->offset % BLKIO_SECTOR || r->length % BLKIO_SECTOR)
		return ts_errf(err, errlen, -EINVAL, "record %" PRIu64 ": offset %" PRIu64 " or length %" PRIu64
			       " is not a multiple of 512 bytes (blktrace counts sectors)", rec_no, r->offset, r->length);
	s->r = r;
	s->cat = bt_category(export_op(r), r->flags);
	return export_base__pieces(&s->b, r, BT_MAX_PIECE, rec_no, "blktrace events", bt_piece, s, err, errlen);
}

const struct exporter_ops exporter_blktrace = {
	.name = "blktrace",
	.help = "blktrace binary (version 7), one file: `blkparse -i - < OUT` lists it, fio replays it with\n"
		"--read_iolog=OUT --replay_redirect=DEV (discards replay as trims, also on fio 3.33).\n"
		"ISSUE records become Q,G,I,D and their DONE a C; bio/intent/free records a Q each.\n"
		"Replayed writes overwrite DEV: --ops discard replays the discards only.",
	.opts = bt_opt_table,
	.opts_size = sizeof(struct bt_opts),
	.begin = bt_begin,
	.record = bt_record,
	.destroy = free,
};
