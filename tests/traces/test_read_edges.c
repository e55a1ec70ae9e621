// SPDX-License-Identifier: GPL-2.0
/*
 * The binary reader's checks wherever a record sits: its first records, the
 * edges of its 256-record check chunks and of its first read() (the last
 * whole record, the record it cuts, the one after: TS_READ_FIRST_RECORDS),
 * the last record before the footer; on a trace of one
 * device (the device-extent check fused into the check + sum), of two
 * devices taking turns (the fallback), in runs of 100 (the fused pass from
 * one device to the next) and of 30 (shorter than SCAN_RUN: the fused pass
 * and the fallback by turns), in format versions 2 and 1 (version 1 is
 * checked without the fused pass). Each broken record gives
 * the error it gave before the fused pass, naming the byte and the record,
 * after every record before it was handed out; records that are valid but
 * lie outside the fused pass's span (no bytes below a partition, META, a
 * device the table does not list) are read.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "tests/traces/gen.h"
#include "traces/trace.h"
#include "traces/trace_int.h"

TestSuite(read_edges, .init = th_dir_init, .fini = th_dir_fini);

#define GIB (1ull << 30)
#define DEV_A TS_DEV_MK(7, 0)	/* 1 GiB at 0 */
#define DEV_B TS_DEV_MK(7, 1)	/* a partition: 1 GiB at 1 GiB */
#define DEV_X TS_DEV_MK(9, 9)	/* not in the table */
#define NREC (TS_BUF_RECORDS + 300)

enum layout { ONE, TURNS, RUNS, SHORT };
enum edge {
	E_NONE,		/* valid, written as is: every record read */
	E_NODEV,	/* valid: a device the table does not list, far past 2 GiB */
	E_FLUSH,	/* valid: no bytes at sector 0 of the partition */
	E_META,		/* valid: META commit with an offset past every device */
	E_KIND,		/* kind 9 */
	E_OP,		/* op 7 */
	E_END,		/* past the end of 7:0 */
	E_BELOW,	/* before the partition 7:1 starts */
	E_CSUM,		/* a flipped bit: the footer's checksum */
	E_TRUNC,	/* the file cut 10 bytes into the record */
};

/*
 * Positions from EDGE - 1 on are relative to EDGE, the record the first read() cuts (or starts the next read
 * with): TS_READ_FIRST_RECORDS of the header's length.
 */
#define EDGE ((size_t)1 << 40)
static const size_t positions[] = { 0, 1, 2, 255, 256, 257, 511, EDGE - 1, EDGE, EDGE + 1, NREC - 2, NREC - 1 };
#define NPOS (sizeof(positions) / sizeof(positions[0]))

/* gen.h's header (7:0, 1 GiB) and a partition of 1 GiB at 1 GiB. */
static json_t *header(void)
{
	struct ts_device d = { .name = "loop7p1", .dev = DEV_B, .size = GIB, .partition_start = GIB,
			       .logical_block_size = 512 };
	json_t *h = gen_header();

	cr_assert_not_null(h);
	json_array_append_new(json_object_get(h, "devices"), ts_device_to_json(&d));
	return h;
}

/* Record i of the layout: an ISSUE on its device, inside it. */
static void record(enum layout lay, size_t i, struct ts_record *r)
{
	bool b = lay == TURNS ? i % 2 : lay == RUNS ? (i / 100) % 2 : lay == SHORT ? (i / 30) % 2 : false;

	memset(r, 0, sizeof(*r));
	r->time_ns = 1000 + i * 1000;
	r->kind = TS_ISSUE;
	r->op = (uint8_t)(i % (TS_OP_MAX + 1));
	r->dev = b ? DEV_B : DEV_A;
	r->offset = (b ? GIB : 0) + (i * 7919 % 200000) * 4096;
	r->length = 4096 << (i % 5);
	r->ino = i * 31;
	r->latency_ns = i % 7;
}

/* The valid edges, in place of record k. */
static void valid_edge(enum edge e, struct ts_record *r)
{
	switch (e) {
	case E_NODEV: r->dev = DEV_X; r->offset = 1ull << 40; break;
	case E_FLUSH: r->dev = DEV_B; r->op = TS_OP_FLUSH; r->offset = 0; r->length = 0; break;
	case E_META: r->kind = TS_META; r->op = TS_META_COMMIT; r->offset = 5 * GIB; r->length = 0; break;
	default: break;
	}
}

static void put(unsigned char *p, uint64_t v, int bytes)
{
	for (int k = 0; k < bytes; k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

/* Writes the trace (edge record k), breaks it as e says; returns its length in *len, the header's in *hlen. */
static void make(const char *path, enum layout lay, enum edge e, size_t k, bool v1, size_t *len, size_t *hlen)
{
	json_t *h = header();
	char err[512];
	struct trace_writer *w = trace_writer__open(path, h, v1 ? TW_BINARY_V1 : TW_BINARY, TW_ATOMIC, err, sizeof(err));
	unsigned char *s, *p;

	json_decref(h);
	cr_assert_not_null(w, "%s", err);
	for (size_t i = 0; i < NREC; i++) {
		struct ts_record r;

		record(lay, i, &r);
		if (i == k)
			valid_edge(e, &r);
		cr_assert_eq(trace_writer__write(w, &r), 0, "%s", trace_writer__error(w));
	}
	cr_assert_eq(trace_writer__close(w, 99, err, sizeof(err)), 0, "%s", err);
	s = (unsigned char *)th_slurp(path, len);
	cr_assert_not_null(s);
	*hlen = (size_t)s[4] | (size_t)s[5] << 8 | (size_t)s[6] << 16 | (size_t)s[7] << 24;	/* header_len */
	p = s + *hlen + k * TS_RECORD_SIZE;
	switch (e) {
	case E_KIND: p[44] = 9; break;
	case E_OP: p[45] = 7; break;
	case E_END: put(p + 40, DEV_A, 4); put(p + 8, GIB - 4096, 8); put(p + 16, 8192, 8); break;
	case E_BELOW: put(p + 40, DEV_B, 4); put(p + 8, GIB - 4096, 8); put(p + 16, 4096, 8); break;
	case E_CSUM: p[24] ^= 0x10; break;
	case E_TRUNC: *len = *hlen + k * TS_RECORD_SIZE + 10; break;
	default: break;
	}
	cr_assert_eq(th_write(path, s, *len), 0);
	free(s);
}

struct run { int lay; int e; bool v1; };

/* Version 1 (no fused pass) on one layout; version 2 on all four. */
ParameterizedTestParameters(read_edges, everywhere)
{
	static struct run t[5 * 10];
	size_t n = 0;

	for (int lay = ONE; lay <= SHORT + 1; lay++)
		for (int e = E_NONE; e <= E_TRUNC; e++)
			t[n++] = (struct run){ lay > SHORT ? ONE : lay, e, lay > SHORT };
	return cr_make_param_array(struct run, t, n);
}

/* Reads the file in batches of max; the records handed out and the error (or "" at the end, checksum confirmed). */
static uint64_t read_all(const char *path, size_t max, bool v1, char *err, size_t errlen)
{
	struct trace_reader *r = trace_reader__open(path, err, errlen);
	const struct ts_record *recs;
	uint64_t got = 0;
	ssize_t n;

	cr_assert_not_null(r, "%s", err);
	cr_assert_eq(trace_reader__status(r)->version, v1 ? 1u : 2u);
	while ((n = trace_reader__batch(r, &recs, max)) > 0)
		got += (uint64_t)n;
	snprintf(err, errlen, "%s", n < 0 || !trace_reader__status(r)->checksum_ok ? trace_reader__error(r) : "");
	trace_reader__close(r);
	return got;
}

ParameterizedTest(struct run *t, read_edges, everywhere)
{
	static const size_t batches[] = { 4096, 7 };
	char path[256], want[1024], err[512];

	size_t len, hlen, edge;

	snprintf(path, sizeof(path), "%s/e.tsim", th_dir());
	make(path, (enum layout)t->lay, E_NONE, 0, t->v1, &len, &hlen);	/* the header's length, for EDGE */
	edge = TS_READ_FIRST_RECORDS(hlen);
	cr_assert(edge > 512 && edge + 1 < NREC - 2, "edge %zu", edge);
	for (size_t pos = 0; pos < NPOS; pos++) {
		size_t k = positions[pos] >= EDGE - 1 ? positions[pos] - EDGE + edge : positions[pos];
		uint64_t at, expect = k;

		make(path, (enum layout)t->lay, (enum edge)t->e, k, t->v1, &len, &hlen);
		at = hlen + k * TS_RECORD_SIZE;
		switch (t->e) {
		case E_KIND:
			snprintf(want, sizeof(want), "%s: byte %" PRIu64 ": record %zu: unknown kind 9", path, at, k);
			break;
		case E_OP:
			snprintf(want, sizeof(want), "%s: byte %" PRIu64 ": record %zu: unknown op 7", path, at, k);
			break;
		case E_END:
			snprintf(want, sizeof(want), "%s: byte %" PRIu64 ": record %zu: offset %llu + length 8192 is "
				 "past the end of 7:0 (%llu bytes)", path, at, k, GIB - 4096, GIB);
			break;
		case E_BELOW:
			snprintf(want, sizeof(want), "%s: byte %" PRIu64 ": record %zu: offset %llu + length 4096 is "
				 "outside 7:1 (bytes %llu..%llu of the disk: partition_start + size)", path, at, k,
				 GIB - 4096, GIB, 2 * GIB);
			break;
		case E_CSUM:	/* the values differ by the version: the message up to them */
			snprintf(want, sizeof(want), "%s: byte %zu: checksum mismatch (footer ", path, len - 48 + 16);
			expect = NREC;
			break;
		case E_TRUNC:
			snprintf(want, sizeof(want), "%s: byte %" PRIu64 ": truncated record (10 of 48 bytes); %zu "
				 "whole records recovered", path, at, k);
			break;
		default:
			want[0] = 0;
			expect = NREC;
		}
		for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
			uint64_t got = read_all(path, batches[b], t->v1, err, sizeof(err));

			cr_assert_eq(got, expect, "layout %d edge %d record %zu v%d batch %zu: %" PRIu64 " records (%s)",
				     t->lay, t->e, k, t->v1 ? 1 : 2, batches[b], got, err);
			if (t->e == E_CSUM)
				err[strlen(want)] = 0;
			cr_assert_str_eq(err, want, "layout %d edge %d record %zu v%d", t->lay, t->e, k, t->v1 ? 1 : 2);
		}
	}
}
