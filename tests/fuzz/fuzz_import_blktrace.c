// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the blktrace importer (fuzz_import.h). */
#define FUZZ_IMPORTER importer_blktrace
#include "fuzz_import.h"
