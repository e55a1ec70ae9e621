// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the policy-string parser. Input: a policy string (up to the first
 * NUL). A pipeline that parses is described, then driven over a short fixed
 * stream (FREE, INTENT, BIO, ISSUE, commits, free-space snapshot) and flushed,
 * so options the parser accepts are also safe for the stages they configure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policy.h"
#include "traces/trace.h"

struct count { uint64_t events, bytes; };

static int sink(void *arg, const struct policy_event *ev)
{
	struct count *c = arg;

	c->events++;
	c->bytes += ev->bytes;
	return 0;
}

static void drive(struct policy *p)
{
	const uint32_t dev = TS_DEV_MK(7, 0);
	struct ts_record r;
	uint64_t t = 1000000;

	for (unsigned i = 0; i < 48; i++) {
		static const uint8_t kinds[] = { TS_FREE, TS_INTENT, TS_BIO, TS_ISSUE, TS_DONE, TS_META };

		memset(&r, 0, sizeof(r));
		r.time_ns = t;
		r.dev = dev;
		r.kind = kinds[i % sizeof(kinds)];
		r.offset = (uint64_t)((i * 7919u) % 256) * 4096;
		r.length = (uint64_t)(1 + i % 5) * 4096;
		r.ino = 100 + i % 3;
		r.flags = TS_FS_XFS;
		if (r.kind == TS_BIO || r.kind == TS_ISSUE || r.kind == TS_DONE)
			r.op = TS_OP_DISCARD;
		if (r.kind == TS_DONE)
			r.latency_ns = 5000;
		if (r.kind == TS_META) {
			r.op = i % 12 == 5 ? TS_META_FREESPACE : TS_META_COMMIT;
			if (r.op == TS_META_COMMIT)
				r.length = 0;
		}
		if (policy__record(p, &r))
			return;
		t += 1000 + (i % 4) * 250000;
	}
	if (policy__advance(p, t))
		return;
	policy__flush(p, t + 1000);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_device d = { .name = "loop7", .dev = TS_DEV_MK(7, 0), .size = 1ull << 30,
			       .logical_block_size = 512, .physical_block_size = 4096,
			       .discard_granularity = 4096, .discard_max_bytes = 4ull << 30,
			       .max_discard_segments = 1, .fs = "xfs", .fs_block_size = 4096,
			       .xfs_agblocks = 65536 };
	struct policy_env env = { .dev = &d, .devno = d.dev, .seed = 1, .start_ns = 1000000 };
	struct count c = { 0 };
	char *spec, err[1024];
	struct policy *p;

	spec = strndup((const char *)data, size);
	if (!spec)
		return 0;
	p = policy__new(spec, &env, sink, &c, err, sizeof(err));
	if (p) {
		policy__describe(p);
		policy__props(p);
		drive(p);
		json_decref(policy__report(p));
		policy__destroy(p);
	}
	free(spec);
	return 0;
}
