/* SPDX-License-Identifier: GPL-2.0 */
/* Test helpers: a generated discard workload, and exporting it through an exporter's hooks. */
#ifndef TRIMSIM_TEST_EXPORT_UTIL_H
#define TRIMSIM_TEST_EXPORT_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/export/exporter.h"
#include "traces/trace.h"

#define TU_DEV TS_DEV_MK(7, 42)

/*
 * n device commands on TU_DEV, every fourth a write, the rest discards of 512 B to 8 MiB,
 * each an ISSUE followed by its DONE 100 us later; one per millisecond.
 * recs must hold 2 * n. Returns the count written.
 */
static inline size_t tu_workload(struct ts_record *recs, size_t n, uint64_t seed)
{
	uint64_t x = seed | 1, t = 1000000000ull;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		struct ts_record r = { .dev = TU_DEV, .ino = 100 + i % 7 };

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		r.op = i % 4 == 3 ? TS_OP_WRITE : TS_OP_DISCARD;
		r.offset = (x % (1u << 20)) * 4096;
		r.length = ((x >> 24) % 16384 + 1) * 512;
		r.kind = TS_ISSUE;
		r.time_ns = t;
		recs[k++] = r;
		r.kind = TS_DONE;
		r.time_ns = t + 100000;
		r.latency_ns = 100000;
		recs[k++] = r;
		t += 1000000;
	}
	/* Completions after the next issue: keep time order (DONE at +100 us < next issue at +1 ms). */
	return k;
}

/* Runs ex over recs with "k=v,k=v" options into path. 0 or -errno; err holds the message. */
static inline int tu_export(const struct exporter_ops *ex, const char *kv, const struct ts_record *recs,
			    size_t n, const char *path, char *err, size_t errlen)
{
	struct ts_device dev = { .name = "loop42", .dev = TU_DEV, .size = 8ull << 30 };
	struct export_ctx c = { .in_path = "generated", .out_path = path, .devs = &dev, .ndev = 1 };
	void *opts = calloc(1, ex->opts_size), *state = NULL;
	int ret;

	if (!opts)
		return -ENOMEM;
	if ((ret = opts__defaults(ex->opts, opts, err, errlen)) ||
	    (ret = opts__parse_kv(ex->opts, opts, kv, ',', err, errlen)))
		goto out;
	for (size_t i = 0; i < n; i++)
		c.kinds[recs[i].kind]++;
	c.first_ns = n ? recs[0].time_ns : 0;
	c.out = fopen(path, "w");
	if (!c.out) {
		ret = -errno;
		goto out;
	}
	if ((ret = ex->begin(&state, opts, &c, err, errlen)))
		goto out;
	for (size_t i = 0; i < n && !ret; i++)
		ret = ex->record(state, &recs[i], i, err, errlen);
	if (!ret && ex->end)
		ret = ex->end(state, err, errlen);
out:
	if (state)
		ex->destroy(state);
	if (c.out && fclose(c.out) && !ret)
		ret = -EIO;
	free(opts);
	return ret;
}

#endif
