/* SPDX-License-Identifier: GPL-2.0 */
/* Generated traces for the traces/ suites: every kind, op, META subtype and flag. */
#ifndef TRIMSIM_TESTS_TRACES_GEN_H
#define TRIMSIM_TESTS_TRACES_GEN_H

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
	r->offset = (gen_rand(&s) % (1ull << 40)) & ~4095ull;
	r->length = 512ull << (gen_rand(&s) % 20);
	r->ino = gen_rand(&s) % 100000;
	r->latency_ns = kind == TS_DONE ? gen_rand(&s) % 10000000 : 0;
	r->dev = TS_DEV_MK(7 + (uint32_t)(i % 3), (uint32_t)(i % 5));
	r->flags = (uint16_t)((i % (TS_FS_MAX + 1)) | ((1u << (4 + i % 7)) & TS_F_KNOWN));
	if (i % 11 == 0)
		r->flags = TS_F_KNOWN & ~TS_F_FS_MASK;
	/* Values past 2^63 exercise the JSON Lines string form. */
	if (i == 5)
		r->time_ns = UINT64_MAX - 1;
	if (i == 6)
		r->ino = UINT64_MAX;
}

#endif
