// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the trace-cmd importer (fuzz_import.h). The library's leak
 * suppressions for libtraceevent/libtracecmd live beside the importer
 * (traces/import/tracecmd.c, __lsan_default_suppressions).
 */
#define FUZZ_IMPORTER importer_tracecmd
#include "fuzz_import.h"
