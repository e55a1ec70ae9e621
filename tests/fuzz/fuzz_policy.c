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

#include "replay/policies/policy.h"
#include "traces/trace.h"
#include "tests/fuzz/fuzz_mutate.h"

/*
 * Grammar-aware mutation: the string is taken as "name(args) | name(args)",
 * and one stage is replaced by a registered stage or preset, added, dropped,
 * or given one of its own options with an edge value ("segments=4294967295",
 * "bsize=512", "interval=1ns"), so mutations spend their time past the parser.
 */
static const char *const fm_units[] = { "", "K", "M", "G", "T", "P", "E", "ns", "us", "ms", "s", "w", "%" };

static const char *random_name(struct fm_rng *r)
{
	size_t ns = 0, np = 0;

	while (policy_stage_at(ns))
		ns++;
	while (policy_presets[np].name)
		np++;
	if (fm_below(r, 2) && np)
		return policy_presets[fm_below(r, np)].name;
	return ns ? policy_stage_at(fm_below(r, ns))->name : "none";
}

/* An option key of the stage or preset called name (a random one of any stage if it has none). */
static const char *random_key(struct fm_rng *r, const char *name)
{
	const struct policy_stage_ops *o = policy_stage_find(name);
	const struct policy_preset *pr = policy_preset_find(name);
	size_t n = 0;

	if (pr) {	/* a preset's options are its stages' (after the source): one of a random stage of it */
		char stage[64];
		const char *p = pr->pipeline;

		for (size_t k = 0, pick = fm_below(r, 4); *p && k < pick && strchr(p, '|'); k++)
			p = strchr(p, '|') + 1;
		p += strspn(p, " ");
		snprintf(stage, sizeof(stage), "%.*s", (int)strcspn(p, " (|"), p);
		o = policy_stage_find(stage);
	}
	if (!o || !o->opts)
		o = policy_stage_at(0);
	while (o->opts && o->opts[n].key)
		n++;
	return n ? o->opts[fm_below(r, n)].key : "x";
}

/* Stage i of the mutated string: as it was, or changed (what: 0 added before, 1 dropped, 2-3 an option set). */
static void put_stage(FILE *f, struct fm_rng *r, char *stage, unsigned what, bool *first)
{
	char name[64] = "", *paren;
	uint64_t v;

	sscanf(stage, " %63[a-z0-9_-]", name);
	if (what == 1)
		return;
	fputs(*first ? "" : " | ", f);
	*first = false;
	if (what == 0)
		fprintf(f, "%s | ", random_name(r));
	if (what != 2 && what != 3) {
		fputs(stage, f);
		return;
	}
	v = fm_edges[fm_below(r, FM_NELEM(fm_edges))];
	paren = strchr(stage, '(');
	if (paren && strrchr(stage, ')'))
		*strrchr(stage, ')') = 0;
	fprintf(f, "%s%s%s=%llu%s)", paren ? stage : name, paren ? "," : "(", random_key(r, name),
		(unsigned long long)(fm_below(r, 2) ? v : v >> fm_below(r, 64)),
		fm_units[fm_below(r, FM_NELEM(fm_units))]);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	if (fm_raw())
		return LLVMFuzzerMutate(data, size, max_size);
	struct fm_rng r;
	char *text, *stages[16], *save = NULL, *s, *out = NULL;
	size_t n = 0, olen = 0, k;
	bool first = true;
	FILE *f;

	fm_seed(&r, seed);
	if (fm_below(&r, 8) == 0 || !(text = strndup((const char *)data, size)))
		return LLVMFuzzerMutate(data, size, max_size);
	for (s = strtok_r(text, "|", &save); s && n < 16; s = strtok_r(NULL, "|", &save))
		stages[n++] = s;
	k = fm_below(&r, n + 1);
	f = open_memstream(&out, &olen);
	for (size_t i = 0; f && i < n; i++)
		put_stage(f, &r, stages[i], i == k ? (unsigned)fm_below(&r, 4) : 9, &first);
	if (f && k == n)	/* one more at the end */
		fprintf(f, "%s%s", first ? "" : " | ", random_name(&r));
	if (f)
		fclose(f);
	free(text);
	if (!out || olen > max_size) {
		free(out);
		return LLVMFuzzerMutate(data, size, max_size);
	}
	memcpy(data, out, olen);
	free(out);
	return olen;
}

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
