// SPDX-License-Identifier: GPL-2.0
/* The explicit target registry (target.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "replay/targets/target.h"
#include "models/model.h"
#include "replay/targets/realdev.h"

extern const struct target_ops fixed_target_ops;

static const struct target_ops *const targets[] = {
	&model_target_ops,	/* models/model.c: parametric and FTL device models (-M PROFILE) */
	&fixed_target_ops,	/* replay/targets/target_fixed.c: ideal fixed-latency device */
	&device_target_ops,	/* replay/targets/realdev.c: a real block device (--device, --destructive) */
	&file_target_ops,	/* replay/targets/realdev.c: a regular file, discards punch holes (--file) */
};

const struct target_ops *const *target_registry(size_t *n)
{
	*n = sizeof(targets) / sizeof(targets[0]);
	return targets;
}

const struct target_ops *target_find(const char *name)
{
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (!strcmp(targets[i]->name, name))
			return targets[i];
	return NULL;
}

const struct target_ops *target_spec_parse(const char *spec, bool strict, const char **arg, char *err,
					   size_t errlen)
{
	size_t len = strcspn(spec, ":"), at;

	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (strlen(targets[i]->name) == len && !strncmp(targets[i]->name, spec, len) &&
		    (strict || spec[len] == ':')) {
			*arg = spec[len] ? spec + len + 1 : spec + len;
			return targets[i];
		}
	if (!strict) {
		*arg = spec;
		return &model_target_ops;
	}
	at = (size_t)snprintf(err, errlen, "target '%.*s' is not built in (targets:", (int)len, spec);
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]) && at < errlen; i++)
		at += (size_t)snprintf(err + at, errlen - at, " %s", targets[i]->name);
	if (at < errlen)
		snprintf(err + at, errlen - at, ")");
	errno = ENOENT;
	return NULL;
}
