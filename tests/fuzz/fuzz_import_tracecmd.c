// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the trace-cmd importer (fuzz_import.h). The library's leak
 * suppressions for libtraceevent/libtracecmd live beside the importer
 * (traces/import/tracecmd.c, __lsan_default_suppressions).
 */
#define FUZZ_IMPORTER importer_tracecmd
#include "tests/fuzz/fuzz_import.h"

/*
 * libtracecmd mallocs sizes read from the file and checks for NULL: glibc
 * returns NULL for an impossible size (2^57 bytes from one changed byte), and
 * the import fails with one line. AddressSanitizer aborts on such a request by
 * default; here it answers as glibc does, so the harness tests what runs in
 * production (libFuzzer's -malloc_limit_mb still reports a large allocation
 * that succeeds). Input: tests/traces/test_impexp_cli.c builds it from the seed.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}
