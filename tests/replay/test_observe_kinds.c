// SPDX-License-Identifier: GPL-2.0
/*
 * A stage's observe_kinds (replay/policies/policy.h) lists the record kinds its
 * observe() reads; the pipeline calls observe() only for those and the engine
 * skips records no stage wants. A kind missing from a mask silently changes
 * results, so every preset replays corpus traces (written with --io: every
 * kind occurs) twice, as is and with TRIMSIM_OBSERVE_ALL (every stage sees
 * every record, nothing skipped, every completion told to the pipeline:
 * policy__observed_kinds(), policy__completes()), and the result JSON must be
 * byte-identical.
 * The same with --timing asap on two traces: there the engine skips a record
 * only while the policy is quiet (policy__quiet()), and owes the drain.
 * And on sata-sf2281 (non-queued TRIM, ~9.5 ms a discard) for the presets whose
 * stages act on completions (chain, f2fs): their discards run past the trace's end
 * there, and the end-of-recording snapshot (after the recorder's settle) is a run
 * of records nothing reacts to. Before engine__finish() ran the loop to the trace's
 * end first, the flush moved the pipeline's clock past completions not yet reaped:
 * as-recorded on ext4-discard-churn ended 300 ms later than with every record seen.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

struct obs_case {
	char preset[40];
	char trace[48];
	bool asap;
	char profile[16];	/* arrays, not pointers: a parameter is copied into the test's process */
};

TestSuite(observe_kinds, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(observe_kinds, masks_change_nothing)
{
	static const char *const presets[] = { "as-recorded", "passthrough", "sort-merge-async", "xfs", "ext4",
					       "ufs", "ufs-trimcons", "btrfs-async", "f2fs", "fstrim(interval=1s)",
					       "ext4(kworker=2ms)", "ext4(clock=intent)" };
	static const char *const traces[] = { "xfs-discard-db", "ext4-discard-churn", "xfs-discard-unpack",
					      "ext4-discard-rmtree" };
	static const char *const slow[][2] = { { "as-recorded", "ext4-discard-churn" },
						{ "as-recorded", "ext4-discard-unpack" },
						{ "f2fs", "ext4-discard-rmtree" } };
	static struct obs_case c[sizeof(presets) / sizeof(presets[0]) * (sizeof(traces) / sizeof(traces[0]) + 2) +
				 sizeof(slow) / sizeof(slow[0])];
	size_t n = 0;

	for (size_t p = 0; p < sizeof(presets) / sizeof(presets[0]); p++)
		for (size_t t = 0; t < sizeof(traces) / sizeof(traces[0]) + 2; t++, n++) {
			snprintf(c[n].preset, sizeof(c[n].preset), "%s", presets[p]);
			snprintf(c[n].trace, sizeof(c[n].trace), "%s", traces[t % (sizeof(traces) / sizeof(traces[0]))]);
			c[n].asap = t >= sizeof(traces) / sizeof(traces[0]);	/* the first two traces again */
			snprintf(c[n].profile, sizeof(c[n].profile), "nvme");
		}
	for (size_t i = 0; i < sizeof(slow) / sizeof(slow[0]); i++, n++) {
		snprintf(c[n].preset, sizeof(c[n].preset), "%s", slow[i][0]);
		snprintf(c[n].trace, sizeof(c[n].trace), "%s", slow[i][1]);
		c[n].asap = false;
		snprintf(c[n].profile, sizeof(c[n].profile), "sata-sf2281");
	}
	return cr_make_param_array(struct obs_case, c, n);
}

ParameterizedTest(struct obs_case *c, observe_kinds, masks_change_nothing)
{
	char cmd[4096], a[600], b[600], *ja, *jb, *err = NULL;
	size_t la = 0, lb = 0;
	bool same;

	snprintf(a, sizeof(a), "%s/a.json", th_dir());
	snprintf(b, sizeof(b), "%s/b.json", th_dir());
	for (int all = 0; all < 2; all++) {
		snprintf(cmd, sizeof(cmd), "%s'%s' replay '%s/traces/corpus/%s.tsim' -p '%s' -M %s%s -q -o '%s'",
			 all ? "TRIMSIM_OBSERVE_ALL=1 " : "", th_trimsim(), th_src(), c->trace, c->preset, c->profile,
			 c->asap ? " --timing asap" : "", all ? b : a);
		cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s: %s", cmd, err);
		free(err);
		err = NULL;
	}
	ja = th_slurp(a, &la);
	jb = th_slurp(b, &lb);
	same = ja && jb && la == lb && !memcmp(ja, jb, la);
	free(ja);	/* before the assertion: a failing one leaves the test (and LeakSanitizer would speak) */
	free(jb);
	cr_assert(same,
		  "%s on %s, %s%s: results differ when every stage observes every record (an observe_kinds mask "
		  "misses a kind its observe() reads, or a skipped record was not idle); diff %s %s", c->preset,
		  c->trace, c->profile, c->asap ? " (asap)" : "", a, b);
}
