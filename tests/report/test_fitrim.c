// SPDX-License-Identifier: GPL-2.0
/*
 * A trace whose recorded command ran fstrim itself: the fstrim process sits in the FITRIM
 * ioctl until its discards are done (ext4_trim_fs(), xfs_ioc_trim()), so replayed
 * as-recorded that wait is what discard adds to the workload, foreground I/O or not.
 * Before, `as-recorded` of the corpus's XFS rm + fstrim on sata-sf2281 added 0 ("discard
 * does not matter") although its 5 FITRIM discards took 107 ms of device time.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

struct fitrim_case {
	char trace[48];
	char policies[48];
	/* expected of the first policy's cell */
	char basis[16];
	uint64_t wait_min_ns;	/* discard_wait_ns at least (the TRIM time the replay shows) */
	char verdict[160];	/* in one verdict sentence */
};

static struct fitrim_case cases[] = {
	{ "xfs-fstrim-rmtree", "as-recorded,none", "synchronous", 100000000,
	  "discard matters: `as-recorded` adds 107 ms, 3.38% of the 3.17 s wall time (the trace's own fstrim "
	  "waits in FITRIM until its discards complete)" },
	/*
	 * 812 ms: its 78 discards one after another (ext4_trim_extent() waits for each), the
	 * foreground writes that come meanwhile between them (chain); 792 ms when they all
	 * went at their trace times and the writes queued behind them
	 */
	{ "ext4-fstrim-rmtree", "as-recorded,none", "synchronous", 810000000,
	  "discard matters: `as-recorded` adds 812 ms, 27% of the 3.01 s wall time (the trace's own fstrim "
	  "waits in FITRIM until its discards complete)" },
	/* the kernel presets replay the FREE layer with their own discard: the recorded fstrim is not theirs */
	{ "xfs-fstrim-rmtree", "xfs,none", "foreground", 0, "" },
};

ParameterizedTestParameters(fitrim, the_fstrim_waits)
{
	return cr_make_param_array(struct fitrim_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct fitrim_case *c, fitrim, the_fstrim_waits)
{
	char cmd[2048], path[1024];
	json_t *res, *cell, *m, *v;
	bool said = !c->verdict[0];
	size_t i;

	snprintf(path, sizeof(path), "%s/%s.json", th_dir(), c->trace);
	snprintf(cmd, sizeof(cmd), "%s compare %s/traces/corpus/%s.tsim -p %s -M sata-sf2281 -q --json -o %s",
		 th_trimsim(), th_src(), c->trace, c->policies, path);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	res = json_load_file(path, 0, NULL);
	cr_assert_not_null(res);
	cell = json_array_get(json_object_get(res, "cells"), 0);
	m = json_object_get(cell, "metrics");
	cr_expect_str_eq(json_string_value(json_object_get(cell, "wait_basis")), c->basis, "%s", c->trace);
	cr_expect_geq(json_integer_value(json_object_get(m, "discard_wait_ns")), (json_int_t)c->wait_min_ns,
		      "%s: discard_wait_ns %lld", c->trace,
		      (long long)json_integer_value(json_object_get(m, "discard_wait_ns")));
	if (!c->wait_min_ns)
		cr_expect_eq(json_integer_value(json_object_get(m, "discard_wait_ns")), 0, "%s", c->trace);
	json_array_foreach(json_object_get(res, "verdicts"), i, v)
		said |= strstr(json_string_value(v), c->verdict) != NULL;
	cr_expect(said, "%s: no verdict says \"%s\"", c->trace, c->verdict);
	json_decref(res);
}

TestSuite(fitrim, .init = th_dir_init, .fini = th_dir_fini);
