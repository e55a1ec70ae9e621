// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline twin measures what the trace's foreground I/O costs without
 * discards: its latencies must equal the foreground latencies of the policy
 * `none` (no discards, no twin, the profile as given). The twin is opened
 * with discard_supported=false (no mapped-space bitmap to keep); this checks
 * that it changes no foreground timing.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <jansson.h>

#include "tests/common/helpers.h"

struct twin_case {
	char trace[64];
	char policy[32];
	char profile[48];
};

static struct twin_case twins[] = {
	{ "xfs-discard-churn.tsim", "xfs", "nvme" },
	{ "ext4-discard-db.tsim", "ext4", "sata-sf2281" },
	{ "btrfs-discard-churn.tsim", "as-recorded", "nvme:initially_mapped=false" },
	{ "ext4-discard-churn.tsim", "xfs", "nvme-ftl" },
	{ "xfs-discard-db.tsim", "passthrough", "emmc" },
	/* queue depth 1-2: the twin's commands wait for its room (it runs beside the event loop) */
	{ "xfs-discard-churn.tsim", "as-recorded", "nvme:qd=1,channels=1" },
	{ "ext4-discard-db.tsim", "xfs", "sata-sf2281:qd=2" },
};

TestSuite(baseline, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(baseline, twin_equals_none)
{
	return cr_make_param_array(struct twin_case, twins, sizeof(twins) / sizeof(twins[0]));
}

static json_t *replay(const char *tmp, const char *trace, const char *policy, const char *profile)
{
	char out[1100], cmd[4096], *err = NULL;
	json_t *j;

	snprintf(out, sizeof(out), "%s/%s.json", tmp, policy);
	snprintf(cmd, sizeof(cmd), "%s replay %s/traces/corpus/%s -p %s -M '%s' -q -o %s", th_trimsim(), th_src(),
		 trace, policy, profile, out);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s: %s", cmd, err);
	free(err);
	j = json_load_file(out, 0, NULL);
	cr_assert_not_null(j, "%s", out);
	return j;
}

ParameterizedTest(struct twin_case *c, baseline, twin_equals_none, .timeout = 120)
{
	json_t *with = replay(th_dir(), c->trace, c->policy, c->profile);
	json_t *none = replay(th_dir(), c->trace, "none", c->profile);
	json_t *fw = json_object_get(with, "foreground"), *fn = json_object_get(none, "foreground");
	json_t *base = json_object_get(fw, "baseline_latency"), *lat = json_object_get(fn, "latency");
	char *a = json_dumps(base, JSON_SORT_KEYS), *b = json_dumps(lat, JSON_SORT_KEYS);

	cr_assert(json_is_true(json_object_get(json_object_get(with, "target"), "baseline")), "%s: no twin",
		  c->policy);
	cr_assert_gt(json_integer_value(json_object_get(fw, "baseline_pairs")), 0, "%s has no foreground I/O",
		     c->trace);
	cr_expect_eq(json_integer_value(json_object_get(fw, "baseline_pairs")),
		     json_integer_value(json_object_get(fn, "commands")));
	cr_expect_str_eq(a, b, "%s %s on %s: twin %s\nnone %s", c->trace, c->policy, c->profile, a, b);
	free(a);
	free(b);
	json_decref(with);
	json_decref(none);
}
