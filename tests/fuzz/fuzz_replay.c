// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: a stranger's trace through the replay engine. Input: one byte that
 * picks a policy and a device model, then a trace file (binary or JSON Lines).
 * The reader refuses what the kernel cannot produce (traces/bounds.c); the
 * engine, policies and models must never crash, hang or leak on the rest.
 * Mutation is structure-aware (fuzz_mutate.h): header geometry and record
 * values change and the trace stays whole, so they reach the policies.
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "replay/engine/engine.h"
#include "traces/trace.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/fuzz_mutate.h"

/* Structure-aware (fuzz_mutate.h): the trace after the selector byte stays a whole trace. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	if (fm_raw())
		return LLVMFuzzerMutate(data, size, max_size);
	if (size > 1 && data[1] == '{')
		return fm_jsonl_file_mutate(data + 1, size - 1, max_size - 1, seed) + 1;
	return fm_trace_mutate(data, size, max_size, seed, 1);
}

static const char *const policies[] = {
	"as-recorded", "passthrough", "xfs", "ext4", "ufs-trimcons", "btrfs-async", "f2fs", "fstrim",
	"sort-merge-async(qd=4,window=10ms)",
	"source(free) | batch(window=1ms) | sort | merge(max=1M,segments=4) | min(8K) | split(max=64K) | dispatch(qd=2)",
};
static const char *const models[] = { "sata-sf2281", "nvme", "ftl-sata:capacity=64M" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct engine_cfg cfg = { .speed = 1.0, .seed = 1 };
	char path[64], err[1024];
	struct trace_reader *r = NULL;
	struct engine *e = NULL;
	const struct ts_record *recs;
	const struct ts_device *devs;
	size_t ndev;
	ssize_t n;
	int fd;

	if (size < 1)
		return 0;
	fd = fuzz_memfile(NULL, 0, data + 1, size - 1, path, sizeof(path));
	if (fd < 0)
		return 0;
	r = trace_reader__open(path, err, sizeof(err));
	if (!r)
		goto out;
	devs = trace_reader__devices(r, &ndev);
	cfg.policy = policies[data[0] % (sizeof(policies) / sizeof(policies[0]))];
	cfg.target = target_find("model");
	cfg.target_arg = models[(data[0] >> 4) % (sizeof(models) / sizeof(models[0]))];
	cfg.timing = data[0] & 0x80 ? TIMING_ASAP : TIMING_TRACE;
	cfg.baseline = (data[0] & 0x0c) == 0x0c;	/* the discard-free twin costs ~0.1 s to set up: 1 in 4 */
	cfg.devno = ndev ? devs[0].dev : 0;
	cfg.dev = ndev ? &devs[0] : NULL;
	e = engine__new(&cfg, err, sizeof(err));
	if (!e)
		goto out;
	while ((n = trace_reader__batch(r, &recs, 256)) > 0)
		if (engine__feed(e, recs, (size_t)n))
			goto out;
	if (n == 0 && !engine__finish(e))
		json_decref(engine__result(e));
out:
	engine__free(e);
	trace_reader__close(r);
	close(fd);
	return 0;
}
