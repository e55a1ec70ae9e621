// SPDX-License-Identifier: GPL-2.0
/*
 * f2fs and btrfs-async on real corpus traces, pinned to the figures main's
 * binary gave before their data structures were rewritten for speed (plist.c,
 * per-group counters and LRU lists in btrfs.c): commands, bytes, the summed
 * free-to-discard delay, the makespan and the stage's own counters. Any drift
 * in what these presets emit, or when, fails here.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/helpers.h"

struct pin_case {
	char trace[64];
	char preset[64];
	char model[16];
	char timing[8];
	char stage[16];
	uint64_t commands, bytes, free_to_discard_sum_ns, makespan_ns;
	char key[3][24];
	uint64_t val[3];
};

#define F2FS_KEYS { "rounds", "checkpoints", "pending_bytes_left" }
#define BTRFS_KEYS { "work_runs", "passes", "untrimmed_bytes_left" }

/* trimsim replay traces/corpus/TRACE.tsim -p PRESET -M MODEL --timing TIMING --no-baseline, main at 7ea52fb. */
static struct pin_case pin_cases[] = {
	{ "xfs-discard-churn", "f2fs", "nvme", "trace", "f2fs-discard",
	  277, 18153472, 3727378968780, 25046362987, F2FS_KEYS, { 35, 32, 151552 } },
	{ "ext4-discard-churn", "f2fs", "nvme", "asap", "f2fs-discard",
	  200, 13107200, 0, 5946338562, F2FS_KEYS, { 27, 37, 47104 } },
	{ "xfs-discard-rmtree", "f2fs", "emmc", "trace", "f2fs-discard",
	  4, 215945216, 223032527369, 55892773323, F2FS_KEYS, { 1, 1, 24576 } },
	{ "ext4-discard-rmtree", "f2fs(granularity=1)", "sata-sf2281", "trace", "f2fs-discard",
	  59, 211693568, 2911785364654, 49798841559, F2FS_KEYS, { 8, 1, 0 } },
	{ "xfs-discard-churn", "btrfs-async", "nvme", "trace", "btrfs-discard",
	  281, 43073536, 63857366342710, 240568198264, BTRFS_KEYS, { 284, 2, 135168 } },
	{ "ext4-discard-churn", "btrfs-async", "nvme", "asap", "btrfs-discard",
	  210, 48172032, 0, 229339608211, BTRFS_KEYS, { 213, 2, 0 } },
	{ "xfs-discard-unpack", "btrfs-async", "emmc", "trace", "btrfs-discard",
	  73, 1997332480, 10074449103254, 242953909789, BTRFS_KEYS, { 79, 4, 40960 } },
	{ "ext4-discard-rmtree", "btrfs-async(bgsize=256M,kbps_limit=10000)", "sata-sf2281", "trace",
	  "btrfs-discard", 9, 498016256, 0, 162206146468, BTRFS_KEYS, { 16, 4, 1540345856 } },
};

TestSuite(pinned, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(pinned, corpus)
{
	return cr_make_param_array(struct pin_case, pin_cases, sizeof(pin_cases) / sizeof(pin_cases[0]));
}

static uint64_t num(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	cr_assert(json_is_integer(v), "no integer \"%s\" in the result", key);
	return (uint64_t)json_integer_value(v);
}

static json_t *stage_named(json_t *result, const char *name)
{
	json_t *stages = json_object_get(json_object_get(result, "policy"), "stages"), *st;
	size_t i;

	json_array_foreach(stages, i, st)
		if (!strcmp(json_string_value(json_object_get(st, "name")), name))
			return st;
	cr_assert_fail("no stage %s in the result", name);
	return NULL;
}

ParameterizedTest(struct pin_case *c, pinned, corpus, .timeout = 120)
{
	char cmd[2048], out[512], *err = NULL;
	json_t *j, *disc, *st;

	snprintf(out, sizeof(out), "%s/r.json", th_dir());
	snprintf(cmd, sizeof(cmd), "%s replay %s/traces/corpus/%s.tsim -p '%s' -M %s --timing %s --no-baseline -q -o %s",
		 th_trimsim(), th_src(), c->trace, c->preset, c->model, c->timing, out);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s: %s", cmd, err);
	free(err);
	j = json_load_file(out, 0, NULL);
	cr_assert_not_null(j, "%s: no result JSON", cmd);
	disc = json_object_get(j, "discard");
	cr_expect_eq(num(disc, "commands"), c->commands, "%s %s: commands", c->trace, c->preset);
	cr_expect_eq(num(disc, "bytes"), c->bytes, "%s %s: bytes", c->trace, c->preset);
	cr_expect_eq(num(json_object_get(disc, "free_to_discard"), "sum_ns"), c->free_to_discard_sum_ns,
		     "%s %s: free-to-discard sum", c->trace, c->preset);
	cr_expect_eq(num(j, "makespan_ns"), c->makespan_ns, "%s %s: makespan", c->trace, c->preset);
	st = stage_named(j, c->stage);
	for (int i = 0; i < 3; i++)
		cr_expect_eq(num(st, c->key[i]), c->val[i], "%s %s: %s", c->trace, c->preset, c->key[i]);
	json_decref(j);
}
