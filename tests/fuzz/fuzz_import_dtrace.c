// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the dtrace importer (fuzz_import.h), with line-aware mutation (fuzz_mutate_import.h). */
#define FUZZ_IMPORTER importer_dtrace
#include "tests/fuzz/fuzz_import.h"
#include "tests/fuzz/fuzz_mutate_import.h"

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	if (fm_raw())
		return LLVMFuzzerMutate(data, size, max_size);
	return fm_dtrace_mutate(data, size, max_size, seed);
}
