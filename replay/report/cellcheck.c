// SPDX-License-Identifier: GPL-2.0
/*
 * What compare checks and says around its cells (runcell.h): every real
 * target's refusals before the first cell, a queue-depth mismatch between
 * models and real targets, and one line per failed cell after the last.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "replay/report/report.h"
#include "replay/report/runcell.h"

int report_check_targets(const char *const *profiles, size_t np, const char *const *traces, size_t nt,
			 bool destructive, char *err, size_t errlen)
{
	for (size_t i = 0; i < np; i++) {
		if (!report_profile_realtime(profiles[i]))
			continue;
		for (size_t t = 0; t < nt; t++) {
			int e = report_check_target(profiles[i], traces[t], destructive, err, errlen);

			if (e)
				return e;
		}
	}
	return 0;
}

/*
 * A model and a real target that dispatch at different queue depths measure
 * different things: the device's latencies include the queueing that a model
 * at a lower depth keeps in the engine's queue (issue 16: 61-69 ms against
 * 2.3 ms per discard at QD 32 vs 1 on a slow-TRIM loop device).
 */
bool report_warn_qd(const char *const *profiles, size_t np, unsigned qd, FILE *f)
{
	char line[1024];
	size_t len = 0;
	unsigned first = 0;
	bool model = false, real = false, differ = false;

	for (size_t i = 0; i < np; i++) {
		unsigned q = report_target_qd(profiles[i], qd);

		if (!q)
			continue;
		model |= !report_profile_realtime(profiles[i]);
		real |= report_profile_realtime(profiles[i]);
		differ |= first && q != first;
		first = first ? first : q;
		if (len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s QD %u", len ? ", " : "",
						profiles[i], q);
	}
	if (!model || !real || !differ)
		return false;
	fprintf(f, "trimsim compare: warning: models and real targets dispatch at different queue depths (%s): "
		"their latencies are not comparable; give --qd N\n", line);
	return true;
}

size_t report_failures(const struct report *r, FILE *f)
{
	size_t n = 0;

	for (size_t i = 0; i < report__ncells(r); i++) {
		const struct report_cell *c = report__cell_c(r, i);

		if (c->status)
			fprintf(f, "trimsim compare: %s x %s on %s: %s\n", c->trace, c->policy, c->profile,
				c->error[0] ? c->error : strerror(-c->status));
		else if (c->realtime && c->failed)
			fprintf(f, "trimsim compare: %s x %s on %s: %llu commands failed (%s)\n", c->trace, c->policy,
				c->profile, (unsigned long long)c->failed, c->failed_why);
		else
			continue;
		n++;
	}
	return n;
}
