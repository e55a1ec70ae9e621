// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the blktrace importer (fuzz_import.h), with record-aware mutation (fuzz_mutate_import.h). */
#define FUZZ_IMPORTER importer_blktrace
#include "tests/fuzz/fuzz_import.h"
#include "tests/fuzz/fuzz_mutate_import.h"

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	if (fm_raw())
		return LLVMFuzzerMutate(data, size, max_size);
	return fm_blktrace_mutate(data, size, max_size, seed);
}
