// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the trace-cmd importer (fuzz_import.h), with trace.dat-aware
 * mutation (fuzz_mutate_tracecmd.h). The library's leak suppressions for
 * libtraceevent/libtracecmd live beside the importer (traces/import/tracecmd.c,
 * __lsan_default_suppressions).
 *
 * The import is the whole path `trimsim import` runs, the forked probe
 * included (tc_probe() in traces/import/tcfile.c): without it, faults inside
 * libtracecmd and libtraceevent on malformed files (a NULL read in
 * tracecmd_close(), strdup() and strcmp() past unterminated strings, kbuffer
 * reading past a page) stopped the fuzzer ten times in three minutes, and
 * those are the faults the probe turns into a one-line error. The probe costs
 * a second parse of each input and a fork.
 */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sanitizer/common_interface_defs.h>

#define FUZZ_IMPORTER importer_tracecmd
/*
 * The probe's fork failing is this process's state, not the input's: every later input
 * would end there, cheaply, and the fuzzer would run on while testing nothing (it did, see
 * the allocation cap below).
 */
#define FUZZ_IMPORT_FATAL ": fork: "
#if !defined(__has_feature) || !__has_feature(address_sanitizer)
/*
 * Without ASan (make fuzz FUZZ_SAN=ubsan) the allocation cap set for ASan further down
 * (max_allocation_size_mb) is glibc's malloc wrapped: from the first input on, an allocation
 * above 1 MiB fails (a section of a 128 KiB input, decompressed, is far less). Without it, the sizes libtracecmd mallocs from the file and then
 * leaks (a format buffer whose read fails: suppressed for LeakSanitizer, see
 * traces/import/tracecmd.c) added up to 25 GB of untouched virtual memory in a few minutes,
 * and the probe's fork() then failed with ENOMEM (the kernel's overcommit heuristic charges
 * a fork all private writable memory): every later input ended at the fork, 580 inputs/s of
 * nothing. libFuzzer's own tables (a 20 MB InputCorpus) are allocated before the first input.
 */
#include <errno.h>

#define FUZZ_TC_ALLOC_MAX ((size_t)1 << 20)
static bool fuzz_tc_capped;	/* set at the first input */

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

void *malloc(size_t n)
{
	if (fuzz_tc_capped && n > FUZZ_TC_ALLOC_MAX) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	size_t all;

	if (fuzz_tc_capped && (__builtin_mul_overflow(n, size, &all) || all > FUZZ_TC_ALLOC_MAX)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	if (fuzz_tc_capped && n > FUZZ_TC_ALLOC_MAX) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}
#define FUZZ_IMPORT_PREPARE() (fuzz_tc_capped = true)
#endif
#include "tests/fuzz/fuzz_import.h"
#include "tests/fuzz/fuzz_mutate_tracecmd.h"

/*
 * libtracecmd mallocs sizes read from the file and checks for NULL: glibc
 * returns NULL for an impossible size (2^57 bytes from one changed byte), and
 * the import fails with one line. AddressSanitizer aborts on such a request by
 * default; here it answers as glibc does, so the harness tests what runs in
 * production (libFuzzer's -malloc_limit_mb still reports a large allocation
 * that succeeds). Input: tests/traces/test_impexp_cli.c builds it from the seed.
 * libtracecmd also mallocs sizes from the file before it compares them with
 * the file's length; AddressSanitizer writes the shadow of a large block (an
 * eighth of its size) at malloc and again at free, which took 97% of the CPU
 * in a profile of a campaign (a 320 MB format buffer per input). Above 64 MiB
 * (more than any section of a 128 KiB input holds) malloc fails here, as it
 * does past the memory a machine has, and libtracecmd returns its error.
 * A small quarantine: with the default 256 MiB every input's allocations (the
 * event formats libtraceevent parses) landed on fresh pages, and page faults
 * were half of the CPU time in this VM.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:quarantine_size_mb=16:max_allocation_size_mb=64";
}

/*
 * In the probe's child a sanitizer report (libtracecmd reading past a block)
 * must end the child alone: libFuzzer's death callback would write a crash
 * file for the parent's input and print its statistics. Without it the child
 * exits with AddressSanitizer's code, and tc_probe() refuses the file.
 */
static void fuzz_tracecmd_child(void)
{
	__sanitizer_set_death_callback(NULL);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return pthread_atfork(NULL, NULL, fuzz_tracecmd_child);
}

/* A trace.dat at all: the magic, and longer than its header_page and header_event texts alone. */
static bool fuzz_tracecmd_file(const uint8_t *data, size_t size)
{
	return size >= 512 && !memcmp(data, "\027\010Dtracing", 10);
}

/*
 * Only trace.dat files are mutated (fuzz_tracecmd_file()), and a mutation does not turn one
 * into something that is not, nor cut it to less than half: the result is mutated again, up
 * to four times, else the input stays as it was. Without this, libFuzzer's own byte mutation
 * (one mutation in eight: EraseBytes) cut 1-30 byte inputs out of the seeds and the small
 * regression inputs; the header check's few paths are rare features, so they were kept and
 * the entropic schedule gave them most of its energy: 500K executions at 300-360/s reached
 * 202 features from a corpus of 19 inputs, 8 of them under 30 bytes, where 1,500 executions
 * from the two uncompressed seeds alone reach 372. A non-trace.dat input (a regression input
 * of the header check, v7-cut-after-compression.dat) still runs whenever a corpus is loaded.
 * (libFuzzer 14 has no way for the target to refuse an input: a return of -1 is ignored.)
 */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint8_t *orig;
	size_t n = 0;

	if (fm_raw())
		return LLVMFuzzerMutate(data, size, max_size);
	if (!fuzz_tracecmd_file(data, size))
		return 0;	/* libFuzzer asks again, then runs it unchanged */
	if (!(orig = malloc(size)))
		return fm_tracecmd_mutate(data, size, max_size, seed);
	memcpy(orig, data, size);
	for (unsigned i = 0; i < 4; i++) {
		if (i)
			memcpy(data, orig, size);
		n = fm_tracecmd_mutate(data, size, max_size, seed + i * 0x9e3779b9u);
		if (fuzz_tracecmd_file(data, n) && n >= size / 2)
			break;
	}
	if (!fuzz_tracecmd_file(data, n) || n < size / 2) {
		memcpy(data, orig, size);
		n = size;
	}
	free(orig);
	return n;
}
