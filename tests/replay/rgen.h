/* SPDX-License-Identifier: GPL-2.0 */
/* Generated traces for the replay suites: an rm-like workload on one device. */
#ifndef TRIMSIM_TESTS_REPLAY_RGEN_H
#define TRIMSIM_TESTS_REPLAY_RGEN_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "traces/trace.h"

#define RGEN_DEV TS_DEV_MK(8, 16)

static inline json_t *rgen_header(void)
{
	struct ts_device d = { .name = "sdb", .dev = RGEN_DEV, .size = 64ull << 30,
			       .logical_block_size = 512, .physical_block_size = 4096,
			       .discard_granularity = 4096, .discard_max_bytes = 2ull << 30,
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

/*
 * Record i of a workload: every 4th record a write, the others a FREE / INTENT /
 * discard ISSUE triple for one 4K..64K extent, 20 us apart. Deterministic.
 */
static inline void rgen_record(uint64_t i, struct ts_record *r)
{
	uint64_t ext = i / 4, s = ext * 0x9e3779b97f4a7c15ull + 1;
	static const uint8_t kinds[4] = { TS_ISSUE, TS_FREE, TS_INTENT, TS_ISSUE };

	s ^= s >> 29;
	memset(r, 0, sizeof(*r));
	r->time_ns = 1000000 + i * 20000;
	r->dev = RGEN_DEV;
	r->kind = kinds[i % 4];
	r->offset = (s % (1u << 20)) * 4096;
	r->length = 4096ull << (s % 5);
	r->ino = 100 + ext / 16;
	r->flags = TS_FS_XFS;
	if (i % 4 == 0) {
		r->op = TS_OP_WRITE;
		r->offset = ((s >> 20) % (1u << 20)) * 4096 + (1ull << 34);
	} else if (i % 4 == 3) {
		r->op = TS_OP_DISCARD;
		r->flags = 0;
	} else if (r->kind == TS_INTENT) {
		r->op = TS_OP_DISCARD;
	}
}

/* Writes records [0, n) to path (binary); 0 or -errno. */
static inline int rgen_trace(const char *path, uint64_t n)
{
	char err[512];
	json_t *h = rgen_header();
	struct trace_writer *w = h ? trace_writer__open(path, h, TW_BINARY, TW_ATOMIC, err, sizeof(err)) : NULL;
	int ret = 0;

	json_decref(h);
	if (!w)
		return -EIO;
	for (uint64_t i = 0; i < n && !ret; i++) {
		struct ts_record r;

		rgen_record(i, &r);
		ret = trace_writer__write(w, &r);
	}
	if (ret) {
		trace_writer__abort(w);
		return ret;
	}
	return trace_writer__close(w, 1000000 + n * 20000, err, sizeof(err));
}

/*
 * An rm -rf of files allocated one after another (seed 001): n FREE + INTENT
 * pairs for contiguous 12 KiB extents, 50 us apart, in deletion order.
 */
static inline int rgen_rm(const char *path, uint64_t n)
{
	char err[512];
	json_t *h = rgen_header();
	struct trace_writer *w = h ? trace_writer__open(path, h, TW_BINARY, TW_ATOMIC, err, sizeof(err)) : NULL;
	int ret = 0;

	json_decref(h);
	if (!w)
		return -EIO;
	for (uint64_t i = 0; i < 2 * n && !ret; i++) {
		struct ts_record r = { .time_ns = 1000000 + (i / 2) * 50000 + i % 2, .offset = (1ull << 30) + (i / 2) * 12288,
				       .length = 12288, .ino = 1000 + i / 2, .dev = RGEN_DEV,
				       .kind = i % 2 ? TS_INTENT : TS_FREE, .op = i % 2 ? TS_OP_DISCARD : 0,
				       .flags = TS_FS_XFS };

		ret = trace_writer__write(w, &r);
	}
	if (ret) {
		trace_writer__abort(w);
		return ret;
	}
	return trace_writer__close(w, 1000000 + n * 50000, err, sizeof(err));
}

#endif
