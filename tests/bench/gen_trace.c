// SPDX-License-Identifier: GPL-2.0
/*
 * Synthetic trace for `make bench`: an XFS-on-NVMe story with a realistic mix.
 * Files are written (foreground WRITE ISSUE/DONE), later deleted: each delete
 * frees 1-4 extents (FREE), XFS asks to discard each (INTENT), the block layer
 * queues a bio (BIO) and the device sees ISSUE/DONE; now and then a flush.
 *
 *   gen_trace OUT.tsim NRECORDS [SEED]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/trace.h"

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct gen {
	struct trace_writer *w;
	uint64_t n, want, t, seed;
	uint32_t dev;
};

static int put(struct gen *g, unsigned kind, unsigned op, uint64_t off, uint64_t len, uint64_t ino,
	       uint64_t lat, unsigned flags)
{
	struct ts_record r = { .time_ns = g->t, .offset = off, .length = len, .ino = ino,
			       .latency_ns = lat, .dev = g->dev, .kind = (uint8_t)kind,
			       .op = (uint8_t)op, .flags = (uint16_t)flags };

	if (g->n >= g->want)
		return 1;
	g->n++;
	return trace_writer__write(g->w, &r) < 0 ? -1 : 0;
}

static int io(struct gen *g, unsigned op, uint64_t off, uint64_t len, uint64_t lat)
{
	int ret = put(g, TS_ISSUE, op, off, len, 1234, 0, 0);

	g->t += 1000 + rnd(&g->seed) % 4000;
	return ret ? ret : put(g, TS_DONE, op, off, len, 1234, lat, 0);
}

int main(int argc, char **argv)
{
	const uint64_t size = 256ull << 30, bs = 4096, agblocks = 16777216;
	struct ts_device d = { .name = "nvme0n1", .dev = TS_DEV_MK(259, 0), .size = size,
			       .logical_block_size = 512, .physical_block_size = 4096,
			       .discard_granularity = 4096, .discard_max_bytes = 2ull << 30,
			       .max_discard_segments = 256, .fs = "xfs", .fs_block_size = 4096,
			       .xfs_agblocks = agblocks, .mount = "/mnt/bench" };
	char err[512];
	struct gen g = { 0 };
	json_t *h;
	int ret = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: gen_trace OUT NRECORDS [SEED]\n");
		return 2;
	}
	g.want = strtoull(argv[2], NULL, 0);
	g.seed = argc > 3 ? strtoull(argv[3], NULL, 0) | 1 : 42;
	g.dev = d.dev;
	g.t = 1000000000ull;
	h = trace_header__new(argc, argv);
	json_array_append_new(json_object_get(h, "devices"), ts_device_to_json(&d));
	g.w = trace_writer__open(argv[1], h, TW_BINARY, TW_ATOMIC, err, sizeof(err));
	json_decref(h);
	if (!g.w) {
		fprintf(stderr, "gen_trace: %s\n", err);
		return 1;
	}
	for (uint64_t ino = 1000; !ret; ino++) {
		unsigned nx = 1 + (unsigned)(rnd(&g.seed) % 4);
		uint64_t off[4], len[4];

		/* Write the file, now and then a flush (journal). */
		for (unsigned i = 0; i < nx && !ret; i++) {
			off[i] = (rnd(&g.seed) % (size / bs - 1024)) * bs;
			len[i] = bs << (rnd(&g.seed) % 6);
			ret = io(&g, TS_OP_WRITE, off[i], len[i], 20000 + rnd(&g.seed) % 80000);
		}
		if (!ret && rnd(&g.seed) % 8 == 0)
			ret = io(&g, TS_OP_FLUSH, 0, 0, 50000 + rnd(&g.seed) % 200000);
		/* Delete it: FREE, INTENT, BIO, ISSUE/DONE per extent. */
		for (unsigned i = 0; i < nx && !ret; i++) {
			g.t += 500 + rnd(&g.seed) % 2000;
			ret = put(&g, TS_FREE, 0, off[i], len[i], ino, 0, TS_FS_XFS);
			if (!ret)
				ret = put(&g, TS_INTENT, TS_OP_DISCARD, off[i], len[i], ino, 0, TS_FS_XFS);
			if (!ret)
				ret = put(&g, TS_BIO, TS_OP_DISCARD, off[i], len[i], 77, 0, 0);
			if (!ret)
				ret = io(&g, TS_OP_DISCARD, off[i], len[i], 30000 + rnd(&g.seed) % 500000);
		}
		if (!ret && ino % 64 == 0)
			ret = put(&g, TS_META, TS_META_COMMIT, 0, 0, ino / 64, 0, TS_FS_XFS);
	}
	if (ret < 0) {
		fprintf(stderr, "gen_trace: %s\n", trace_writer__error(g.w));
		trace_writer__abort(g.w);
		return 1;
	}
	if (trace_writer__close(g.w, g.t, err, sizeof(err))) {
		fprintf(stderr, "gen_trace: %s\n", err);
		return 1;
	}
	return 0;
}
