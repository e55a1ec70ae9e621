// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the trace reader (binary and JSON Lines). Mutation is structure-
 * aware (fuzz_mutate.h): headers and records change field by field and the
 * file stays whole, so the reader's checks past the checksum are reached.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "traces/trace.h"
#include "tests/fuzz/fuzz_mutate.h"

/* Structure-aware (fuzz_mutate.h): a binary trace keeps its count and checksum right, JSON Lines its footer. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	if (fm_raw())
		return LLVMFuzzerMutate(data, size, max_size);
	if (size && data[0] == '{')
		return fm_jsonl_file_mutate(data, size, max_size, seed);
	return fm_trace_mutate(data, size, max_size, seed, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	struct trace_reader *r;
	struct ts_record rec;
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size)
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = trace_reader__open(path, err, sizeof(err));
	if (r) {
		size_t n;

		trace_reader__devices(r, &n);
		while (trace_reader__next(r, &rec) > 0)
			;
		trace_reader__status(r);
		trace_reader__close(r);
	}
out:
	close(fd);
	return 0;
}
