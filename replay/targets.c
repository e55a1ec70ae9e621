// SPDX-License-Identifier: GPL-2.0
/* The explicit target registry (target.h). */
#include <string.h>

#include "target.h"

extern const struct target_ops fixed_target_ops;

static const struct target_ops *const targets[] = {
	&fixed_target_ops,
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
