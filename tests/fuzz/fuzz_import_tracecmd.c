// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the trace-cmd importer (fuzz_import.h), with trace.dat-aware
 * mutation (fuzz_mutate_tracecmd.h). The library's leak suppressions for
 * libtraceevent/libtracecmd live beside the importer (traces/import/tracecmd.c,
 * __lsan_default_suppressions).
 *
 * The import runs without its forked probe (importer_tracecmd__run_unprobed()):
 * the probe child parses the whole file a second time, so it doubled the cost
 * of an input (210 against 93 ms of CPU per input, measured on the small seeds),
 * and a fork of the fuzzer's multi-threaded sanitizer runtime once left a child
 * waiting on a lock forever. Everything else is the path `trimsim import` runs
 * (header check, open, every instance, the events); the probe and its fork stay
 * covered by tests/traces/test_impexp_cli.c, which imports through the binary.
 */
#include <stddef.h>

struct import_sink;
int importer_tracecmd__run_unprobed(const void *opts, const char *path, struct import_sink *sink,
				    char *err, size_t errlen);

#define FUZZ_IMPORTER importer_tracecmd
#define FUZZ_IMPORT_RUN(im, opts, files, sink, err, errlen) \
	importer_tracecmd__run_unprobed(opts, (files)[0], sink, err, errlen)
#include "tests/fuzz/fuzz_import.h"
#include "tests/fuzz/fuzz_mutate_tracecmd.h"

/*
 * libtracecmd mallocs sizes read from the file and checks for NULL: glibc
 * returns NULL for an impossible size (2^57 bytes from one changed byte), and
 * the import fails with one line. AddressSanitizer aborts on such a request by
 * default; here it answers as glibc does, so the harness tests what runs in
 * production (libFuzzer's -malloc_limit_mb still reports a large allocation
 * that succeeds). Input: tests/traces/test_impexp_cli.c builds it from the seed.
 * A small quarantine: with the default 256 MiB every input's allocations (the
 * event formats libtraceevent parses) landed on fresh pages, and page faults
 * were half of the CPU time in this VM.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:quarantine_size_mb=16";
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	if (fm_raw())
		return LLVMFuzzerMutate(data, size, max_size);
	return fm_tracecmd_mutate(data, size, max_size, seed);
}
