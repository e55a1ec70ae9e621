/* SPDX-License-Identifier: GPL-2.0 */
/* Generated traces for the traces/ suites: every kind, op, META subtype and flag. */
#ifndef TRIMSIM_TESTS_TRACES_GEN_H
#define TRIMSIM_TESTS_TRACES_GEN_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "traces/trace.h"

static inline uint64_t gen_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Record i of a deterministic trace that cycles through every kind/op/META/flag. */
static inline void gen_record(uint64_t i, uint64_t seed, struct ts_record *r)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + i + 1;
	unsigned kind = 1 + (unsigned)(i % TS_KIND_MAX);

	gen_rand(&s);
	memset(r, 0, sizeof(*r));
	r->time_ns = 1000000ull + i * 1000ull + gen_rand(&s) % 1000;
	r->kind = (uint8_t)kind;
	r->op = kind == TS_META ? (uint8_t)(1 + (i / TS_KIND_MAX) % TS_META_MAX)
				: (uint8_t)((i / TS_KIND_MAX) % (TS_OP_MAX + 1));
	r->offset = (gen_rand(&s) % (1ull << 29)) & ~4095ull;	/* on the header's 1 GiB device (traces/bounds.c) */
	r->length = 512ull << (gen_rand(&s) % 20);
	r->ino = gen_rand(&s) % 100000;
	r->latency_ns = kind == TS_DONE ? gen_rand(&s) % 10000000 : 0;
	r->dev = TS_DEV_MK(7 + (uint32_t)(i % 3), (uint32_t)(i % 5));
	r->flags = (uint16_t)((i % (TS_FS_MAX + 1)) | ((1u << (4 + i % 7)) & TS_F_KNOWN));
	if (i % 11 == 0)
		r->flags = TS_F_KNOWN & ~TS_F_FS_MASK;
	/* Values past 2^63 exercise the JSON Lines string form (an inode may be any 64-bit value; times stop at 2^63). */
	if (i == 5)
		r->ino = UINT64_MAX - 1;
	if (i == 6)
		r->ino = UINT64_MAX;
	/* A flag bit this version does not name travels as a number. */
	if (i == 8)
		r->flags |= 0x8000;
}

/* A header with fixed contents, so file sizes and byte offsets in messages are stable. */
static inline json_t *gen_header(void)
{
	struct ts_device d = { .name = "loop7", .dev = TS_DEV_MK(7, 0), .size = 1ull << 30,
			       .logical_block_size = 512, .physical_block_size = 4096,
			       .discard_granularity = 4096, .discard_max_bytes = 4ull << 30,
			       .max_discard_segments = 1, .fs = "xfs", .fs_block_size = 4096,
			       .xfs_agblocks = 65536, .mount = "/mnt/x" };
	json_t *h = json_pack("{sssisssssssssisos[s]}", "format", "trimsim", "version", 1,
			      "recorder", "trimsim test", "host", "test", "kernel", "test",
			      "start_wall", "2026-01-01T00:00:00.000000000Z", "start_ns", 0,
			      "devices", json_array(), "cmdline", "test");

	if (h)
		json_array_append_new(json_object_get(h, "devices"), ts_device_to_json(&d));
	return h;
}

/* Writes n generated records (seed 1) to path; 0 or -errno. */
static inline int gen_trace(const char *path, uint64_t n, enum trace_writer_format fmt, uint64_t lost)
{
	char err[512];
	json_t *h = gen_header();
	struct trace_writer *w = h ? trace_writer__open(path, h, fmt, TW_ATOMIC, err, sizeof(err)) : NULL;
	int ret = 0;

	json_decref(h);
	if (!w)
		return -EIO;
	for (uint64_t i = 0; i < n && !ret; i++) {
		struct ts_record r;

		gen_record(i, 1, &r);
		ret = trace_writer__write(w, &r);
	}
	trace_writer__add_lost(w, lost);
	if (ret) {
		trace_writer__abort(w);
		return ret;
	}
	return trace_writer__close(w, 123456789, err, sizeof(err));
}

#endif
