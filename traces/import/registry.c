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

const struct importer_ops *const *importers(size_t *n)
{
	*n = sizeof(registry) / sizeof(registry[0]);
	return registry;
}

const char *importer__name_at(size_t i)
{
	return i < sizeof(registry) / sizeof(registry[0]) ? registry[i]->name : NULL;
}

const struct importer_ops *importer__find(const char *name)
{
	long i = cliopt__plugin(importer__name_at, name);

	return i < 0 ? NULL : registry[i];
}

int importers__validate(char *err, size_t errlen)
{
	char e[256];

	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++) {
		const struct importer_ops *im = registry[i];

		if (!im->name || !im->help || !im->run)
			return ts_errf(err, errlen, -EINVAL, "importer %zu: name, help and run are required", i);
		if (im->opts && opts__validate(im->opts, e, sizeof(e)))
			return ts_errf(err, errlen, -EINVAL, "importer %s: %s", im->name, e);
	}
	return 0;
}
