// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the tracecmd importer (fuzz_import.h). */
#define FUZZ_IMPORTER importer_tracecmd
#include "fuzz_import.h"
