// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the JSON Lines reader. The input is the body after a fixed, valid
 * header line (records and footer lines), so mutations spend their time in the
 * record parser (fast path and jansson path) rather than the header. Every record
 * the reader accepts must survive a write/parse round trip unchanged.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/trace.h"
#include "traces/trace_int.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/fuzz_mutate.h"

static const char header[] =
	"{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"devices\":[{\"dev\":\"7:0\","
	"\"name\":\"loop7\",\"size\":1073741824,\"logical_block_size\":512,\"physical_block_size\":4096,"
	"\"discard_granularity\":4096,\"discard_max_bytes\":4294967296,\"max_discard_segments\":1}]}}\n";

/* Structure-aware (fuzz_mutate.h): records mutated field by field, odd spellings, the footer count kept right. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	if (fm_raw())
		return LLVMFuzzerMutate(data, size, max_size);
	return fm_jsonl_body_mutate(data, size, max_size, seed, header);
}

static void round_trip(const struct ts_record *rec)
{
	char *buf = NULL, err[256];
	size_t len = 0;
	struct ts_record back;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	if (ts_jsonl_write_record(f, rec) || fclose(f)) {
		free(buf);
		return;
	}
	if (ts_jsonl_parse_record(buf, len && buf[len - 1] == '\n' ? len - 1 : len, &back, err, sizeof(err))) {
		fprintf(stderr, "round trip: written record does not parse: %s\n%s", err, buf);
		abort();
	}
	if (memcmp(&back, rec, sizeof(back))) {
		fprintf(stderr, "round trip changed the record:\n%s", buf);
		abort();
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	struct trace_reader *r;
	struct ts_record rec;
	int fd = fuzz_memfile(header, sizeof(header) - 1, data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	r = trace_reader__open(path, err, sizeof(err));
	if (r) {
		while (trace_reader__next(r, &rec) > 0)
			round_trip(&rec);
		trace_reader__status(r);
		trace_reader__error(r);
		trace_reader__close(r);
	}
	close(fd);
	return 0;
}
