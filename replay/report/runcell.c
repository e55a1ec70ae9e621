// SPDX-License-Identifier: GPL-2.0
/* Runs one cell with the replay engine (see runcell.h). */
#include <errno.h>
#include <stdio.h>

#include "runcell.h"

/* Until the replay engine is merged, a cell cannot run: every cell reports that, loudly. */
int report_run_cell(const struct cell_job *j, struct report_cell *c, char *err, size_t errlen)
{
	(void)j;
	snprintf(err, errlen, "the replay engine is not in this build");
	snprintf(c->error, sizeof(c->error), "%s", err);
	c->status = -ENOSYS;
	return c->status;
}
