// SPDX-License-Identifier: GPL-2.0
/* Every importer, in one explicit array (no constructors). */
#include <errno.h>
#include <string.h>

#include "traces/import/cliopt.h"
#include "traces/util.h"
#include "traces/import/importer.h"

extern const struct importer_ops importer_blktrace;
extern const struct importer_ops importer_tracecmd;
extern const struct importer_ops importer_dtrace;

static const struct importer_ops *const registry[] = {
	&importer_blktrace,
	&importer_tracecmd,
	&importer_dtrace,
};

bool importer__plugin_at(size_t i, struct cliopt_plugin *p)
{
	const struct importer_ops *im = i < sizeof(registry) / sizeof(registry[0]) ? registry[i] : NULL;

	if (im)
		*p = (struct cliopt_plugin){ im, im->name, im->help, im->opts, im->opts_size };
	return im;
}

int importers__validate(char *err, size_t errlen)
{
	int ret = 0;

	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]) && !ret; i++) {
		const struct importer_ops *im = registry[i];

		ret = cliopt__check_plugin("importer", i, im->name, im->name && im->help && im->run, "name, help and run",
					   im->opts, err, errlen);
	}
	return ret;
}
