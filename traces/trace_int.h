/* SPDX-License-Identifier: GPL-2.0 */
/* Internals shared by the trace reader, writer and JSON Lines code (not public API). */
#ifndef TRIMSIM_TRACE_INT_H
#define TRIMSIM_TRACE_INT_H

#include <stdio.h>

#include "traces/trace.h"

#define TS_HOST_BIG_ENDIAN (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/* Fixed part of the binary header: magic, header_len, record_size, json_len (FORMAT.md). */
#define TS_FIXED_HDR		16u
#define TS_MAX_HEADER		(64u << 20)
/*
 * I/O buffer: a whole number of records, ~256 KiB (fits L2 with room to spare;
 * of 32 KiB .. 1 MiB, the size at which read() + check + sum ran fastest,
 * BENCHMARKS.md "Reading").
 */
#define TS_BUF_RECORDS		5461u
#define TS_BUF_BYTES		(TS_BUF_RECORDS * TS_RECORD_SIZE)
#define TS_BUF_ALLOC		((TS_BUF_BYTES + 63u) & ~63u)	/* aligned_alloc wants a multiple of 64 */
/*
 * The reader's read() (reader.c refill): TS_READ_BYTES at a time, each read
 * ending on a page boundary of the file, into a buffer where every byte sits
 * at its file offset modulo a page (TS_READ_ALIGN), the few bytes of a record
 * cut by the last read just before the next one: the kernel then copies whole
 * pages to page-aligned addresses, which costs less cpu than the copy at
 * another offset (BENCHMARKS.md "Reading"). The first read after a header of
 * hlen bytes holds TS_READ_FIRST_RECORDS(hlen) whole records.
 */
#define TS_READ_ALIGN		4096u
#define TS_READ_BYTES		(64u * TS_READ_ALIGN)
#define TS_READ_FIRST_RECORDS(hlen) ((TS_READ_BYTES - (hlen) % TS_READ_ALIGN) / TS_RECORD_SIZE)
/* JSON Lines header wrapper: {"trimsim":1,"header":{...}}. */
#define TS_JSONL_VERSION	1

/* Bit op of ts_valid_ops[kind] is set for each valid (kind, op / META subtype) pair (format.c). */
extern const uint8_t ts_valid_ops[256];
/*
 * The same as one byte (1: valid) per kind | (op & 7) << 8, the record's bytes
 * 44..45 as a little-endian 16-bit word masked to 11 bits: one load instead of
 * two and a shift, for checks that test op < 8 apart (format.c).
 */
extern const uint8_t ts_valid_kind_op[2048];

/*
 * ts_record_check()'s tests without a branch: true if the host-order record is
 * valid. Time, latency, offset, length and their end all below 2^63 (the bit
 * test on their OR; two values below 2^63 cannot wrap when added).
 */
static inline bool ts_record_ok(const struct ts_record *r)
{
	return (r->op < 8) & (ts_valid_ops[r->kind] >> (r->op & 7)) &
	       !((r->time_ns | r->latency_ns | r->offset | r->length | (r->offset + r->length)) >> 63);
}
_Static_assert(TS_MAX_BYTES == (1ull << 63) - 1 && TS_MAX_NS == (1ull << 63) - 1,
	       "ts_record_ok() tests bit 63: keep it in step with the bounds");

/*
 * Checks up to nrec host-order records at p and sums those that pass into s
 * (as ts_sum_update would), stopping before the first that fails; returns
 * how many passed. p must start a record (v1: on a multiple of 8 bytes summed).
 * Version 2 uses the widest form this CPU runs (traces/checksum.c).
 */
size_t ts_sum_records(struct ts_sum *s, const unsigned char *p, size_t nrec);
/* The forms of the version 2 fused check + sum; all give the same result (tests/traces/test_checksum.c). */
enum ts_sum_isa { TS_ISA_SCALAR, TS_ISA_SSE2, TS_ISA_AVX2, TS_ISA_AVX512, TS_ISA_N };
bool ts_sum_isa_ok(enum ts_sum_isa isa);	/* this build and CPU run it */
enum ts_sum_isa ts_sum_isa_best(void);
const char *ts_sum_isa_name(enum ts_sum_isa isa);
/*
 * Where the records of one device lie (the reader's device-extent check, fused
 * into the check + sum): a record is in the span if it is of dev and
 * lo <= offset, offset + length <= hi (hi <= TS_MAX_BYTES). Stricter than
 * ts_devmap__check (a record without bytes, or of no extent, may lie outside
 * and still be valid): a record outside is for the caller to judge.
 */
struct ts_span {
	uint64_t lo, hi;
	uint32_t dev;
};

/* For a record that passed ts_record_ok (so offset + length does not wrap). */
static inline bool ts_span_ok(const struct ts_record *r, const struct ts_span *sp)
{
	return r->dev == sp->dev && r->offset >= sp->lo && r->offset + r->length <= sp->hi;
}

/*
 * ts_sum_records for a version 2 sum that also stops before the first record
 * outside sp (not NULL). The reader's hot path.
 */
size_t ts_sum2_records_span(struct ts_sum *s, const unsigned char *p, size_t nrec, const struct ts_span *sp);
/* ts_sum2_records_span (sp NULL: ts_sum_records) through the given form (which must be ok). */
size_t ts_sum2_records_isa(struct ts_sum *s, const unsigned char *p, size_t nrec, const struct ts_span *sp,
			   enum ts_sum_isa isa);

/* Converts a host-order record to the file's little-endian layout, in place. */
void ts_record_to_le(struct ts_record *r);
/* Validates an untrusted record: kind, op/META subtype, time and extent bounds. 0 or -EBADMSG with why set. */
int ts_record_check(const struct ts_record *r, char *why, size_t len);
struct ts_devmap;
/*
 * Parses and checks the header object (format, devices); fills a malloc'd device
 * array and, if map is not NULL, the device map over it (bounds.c).
 */
int ts_header_parse(const json_t *h, struct ts_device **devs, size_t *n, struct ts_devmap **map,
		    char *err, size_t errlen);
/* Every device's ts_device_check(); the message names devices[i] (bounds.c). */
int ts_devices_check(const struct ts_device *d, size_t n, char *err, size_t errlen);
/*
 * The device table by dev for the per-record check (bounds.c). NULL with err
 * set when a dev appears twice (or out of memory); d must outlive the map.
 */
struct ts_devmap *ts_devmap__new(const struct ts_device *d, size_t n, char *err, size_t errlen);
void ts_devmap__free(struct ts_devmap *m);
/* True if some device bounds its records (a size or a partition start): else every check passes. */
bool ts_devmap__bounds(const struct ts_devmap *m);
/*
 * 0 if r lies on its device as the table describes it: within [partition_start,
 * partition_start + size], a record without bytes at most at the end. Records
 * of devices not in the table and records without an extent pass. -ERANGE with why.
 */
int ts_devmap__check(struct ts_devmap *m, const struct ts_record *r, char *why, size_t len);
/* [*lo, *hi]: where every extent of dev lies (0..TS_MAX_BYTES for a device the table does not bound). */
void ts_devmap__span(struct ts_devmap *m, uint32_t dev, uint64_t *lo, uint64_t *hi);

/* JSON Lines: one record as one line (no newline); returns 0 or -errno. */
int ts_jsonl_write_record(FILE *f, const struct ts_record *r);
/* Parses one record line; 0 or -EBADMSG with a message (without file/line) in err. */
int ts_jsonl_parse_record(const char *line, size_t len, struct ts_record *r, char *err, size_t errlen);
/* Fast path for the lines our writer produces; 0, or -1 to parse with jansson instead. */
int ts_jsonl_fast(const char *line, size_t len, struct ts_record *r);
/*
 * Formats flags as "xfs|fitrim|0x800" ("0" when none) and parses that form back:
 * 0, -EINVAL (not flag names) or -EEXIST (two filesystems: "xfs|ext4").
 */
char *ts_flags_str(unsigned flags, char *buf, size_t len);
int ts_flags_parse(const char *s, unsigned *flags);

#endif
