/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The blktrace binary record, as include/uapi/linux/blktrace_api.h defines it
 * (struct blk_io_trace, enum blktrace_cat, enum blktrace_act) and as
 * kernel/trace/blktrace.c:__blk_add_trace() fills it. Shared by the blktrace
 * importer and exporter; our own names, the kernel's values.
 */
#ifndef TRIMSIM_BLKIO_H
#define TRIMSIM_BLKIO_H

#include <stdint.h>

#include "traces/trace.h"	/* TS_F_* */

#define BLKIO_MAGIC		0x65617400u	/* low byte: version */
#define BLKIO_MAGIC_MASK	0xffffff00u
#define BLKIO_VERSION		0x07u		/* what blkparse and fio accept */
#define BLKIO_SECTOR		512u

struct blkio_trace {
	uint32_t magic;		/* BLKIO_MAGIC | version */
	uint32_t sequence;
	uint64_t time;		/* ns, ktime_get() in __blk_add_trace() */
	uint64_t sector;	/* 512-byte sectors on the whole device */
	uint32_t bytes;
	uint32_t action;	/* category bits << 16 | action */
	uint32_t pid;
	uint32_t device;	/* kernel dev_t: major << 20 | minor */
	uint32_t cpu;
	uint16_t error;
	uint16_t pdu_len;	/* bytes of payload after the record */
};
_Static_assert(sizeof(struct blkio_trace) == 48, "blk_io_trace is 48 bytes");

/* Categories (enum blktrace_cat), stored shifted by 16 in action. */
enum {
	BLKIO_TC_READ = 1u << 0,
	BLKIO_TC_WRITE = 1u << 1,
	BLKIO_TC_FLUSH = 1u << 2,
	BLKIO_TC_SYNC = 1u << 3,
	BLKIO_TC_QUEUE = 1u << 4,
	BLKIO_TC_REQUEUE = 1u << 5,
	BLKIO_TC_ISSUE = 1u << 6,
	BLKIO_TC_COMPLETE = 1u << 7,
	BLKIO_TC_FS = 1u << 8,
	BLKIO_TC_PC = 1u << 9,
	BLKIO_TC_NOTIFY = 1u << 10,
	BLKIO_TC_AHEAD = 1u << 11,
	BLKIO_TC_META = 1u << 12,
	BLKIO_TC_DISCARD = 1u << 13,
	BLKIO_TC_DRV_DATA = 1u << 14,
	BLKIO_TC_FUA = 1u << 15,
};
#define BLKIO_TC(c)	((uint32_t)(c) << 16)

/* Actions (enum blktrace_act), the low 16 bits of action. */
enum {
	BLKIO_TA_QUEUE = 1,
	BLKIO_TA_BACKMERGE = 2,
	BLKIO_TA_FRONTMERGE = 3,
	BLKIO_TA_GETRQ = 4,
	BLKIO_TA_SLEEPRQ = 5,
	BLKIO_TA_REQUEUE = 6,
	BLKIO_TA_ISSUE = 7,
	BLKIO_TA_COMPLETE = 8,
	BLKIO_TA_PLUG = 9,
	BLKIO_TA_UNPLUG_IO = 10,
	BLKIO_TA_UNPLUG_TIMER = 11,
	BLKIO_TA_INSERT = 12,
};
#define BLKIO_ACT(a)	((a) & 0xffffu)

/*
 * A record's request flags and the category bits a blktrace record gives them, both ways
 * (the importer reads BLKIO_TC_FLUSH as a preflush only on a request with data).
 */
static const struct { uint16_t flag; uint32_t cat; } blkio_flag_cats[] = {
	{ TS_F_SYNC, BLKIO_TC_SYNC }, { TS_F_FUA, BLKIO_TC_FUA }, { TS_F_METADATA, BLKIO_TC_META },
	{ TS_F_PREFLUSH, BLKIO_TC_FLUSH },
};

static inline uint16_t blkio_bswap16(uint16_t v) { return __builtin_bswap16(v); }
static inline uint32_t blkio_bswap32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t blkio_bswap64(uint64_t v) { return __builtin_bswap64(v); }

/* In place, every field; the byte order of the file is the caller's to know. */
static inline void blkio_swap(struct blkio_trace *t)
{
	t->magic = blkio_bswap32(t->magic);
	t->sequence = blkio_bswap32(t->sequence);
	t->time = blkio_bswap64(t->time);
	t->sector = blkio_bswap64(t->sector);
	t->bytes = blkio_bswap32(t->bytes);
	t->action = blkio_bswap32(t->action);
	t->pid = blkio_bswap32(t->pid);
	t->device = blkio_bswap32(t->device);
	t->cpu = blkio_bswap32(t->cpu);
	t->error = blkio_bswap16(t->error);
	t->pdu_len = blkio_bswap16(t->pdu_len);
}

#endif
