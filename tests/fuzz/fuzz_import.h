/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One importer over arbitrary bytes, as `trimsim import --from NAME FILE` runs it:
 * default options, one input file, every record the sink spooled read back.
 * Each fuzz_import_NAME.c defines FUZZ_IMPORTER and includes this file. It may define
 * FUZZ_IMPORT_FATAL too: an error message holding that text is the harness's own failure
 * (not the input's), and stops the run with the message; and FUZZ_IMPORT_PREPARE(data, size),
 * run before each input.
 */
#ifndef TRIMSIM_FUZZ_IMPORT_H
#define TRIMSIM_FUZZ_IMPORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/import/importer.h"
#include "tests/fuzz/fuzz_util.h"

extern const struct importer_ops FUZZ_IMPORTER;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct importer_ops *im = &FUZZ_IMPORTER;
	char path[64], err[512], *files[1];
	struct import_sink *sink = NULL;
	struct ts_record buf[64];
	void *opts = calloc(1, im->opts_size ? im->opts_size : 1);
	int fd;

#ifdef FUZZ_IMPORT_PREPARE
	FUZZ_IMPORT_PREPARE(data, size);
#endif
	fd = fuzz_memfile(NULL, 0, data, size, path, sizeof(path));

	if (fd < 0 || !opts || (im->opts && opts__defaults(im->opts, opts, err, sizeof(err))))
		goto out;
	sink = import_sink__new();
	if (!sink)
		goto out;
	files[0] = path;
	err[0] = 0;
	if (!im->run(opts, files, 1, sink, err, sizeof(err))) {
		size_t n;
		uint64_t first = 0;
		ssize_t got;

		import_sink__devices(sink, &n);
		while ((got = import_sink__read(sink, first, buf, 64)) > 0)
			first += (uint64_t)got;
	}
#ifdef FUZZ_IMPORT_FATAL
	else if (strstr(err, FUZZ_IMPORT_FATAL)) {
		fprintf(stderr, "fuzz harness: %s\n", err);
		abort();
	}
#endif
out:
	import_sink__free(sink);
	free(opts);
	if (fd >= 0)
		close(fd);
	return 0;
}

#endif
