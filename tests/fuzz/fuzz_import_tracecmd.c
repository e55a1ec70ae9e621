// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the tracecmd importer (fuzz_import.h). */
#define FUZZ_IMPORTER importer_tracecmd

/*
 * libtracecmd (trace-cmd 3.1.6, Debian 12) leaks the tep handle tracecmd_alloc_fd() made when it then
 * rejects the file (no tracecmd_close() is possible: it returns NULL). That
 * leak is the library's, not ours; every other leak still fails the run.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_alloc_fd\n";
}
#include "fuzz_import.h"
