// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the dtrace importer (fuzz_import.h). */
#define FUZZ_IMPORTER importer_dtrace
#include "fuzz_import.h"
