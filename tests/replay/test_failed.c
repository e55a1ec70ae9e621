// SPDX-License-Identifier: GPL-2.0
/*
 * Failed commands (RESULT.md, "Failed commands"): counted as sent and as time spent,
 * by errno, and never as done work. A discard a device rejected at once is no 0 ns
 * discard latency, frees nothing, and a failed write is no write latency. Hand-built
 * completions through the metrics core, then a corpus trace on a profile that
 * rejects discards.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/common/helpers.h"
#include "replay/engine/metrics.h"
#include "traces/trace.h"

#define MS 1000000ull

/* One command: submitted at t, done lat later, failed with err (0: completed). */
struct fcmd {
	uint64_t t, lat;
	uint8_t klass;
	int err;
};

struct failed_case {
	char name[80];
	struct fcmd cmd[4];
	/* expected */
	uint64_t d_lat_n, d_lat_max, d_errors, d_freed, fg_lat_n, fg_lat_max, fg_errors, d_busy;
};

static struct failed_case cases[] = {
	{ .name = "a rejected discard has no latency, frees nothing",
	  .cmd = { { 0, 0, TC_DISCARD, -EOPNOTSUPP } },
	  .d_lat_n = 0, .d_errors = 1, .d_freed = 0 },
	{ .name = "a slow failure beside a fast success: the success's latency only",
	  .cmd = { { 0, 30 * MS, TC_DISCARD, -EIO }, { 40 * MS, 2 * MS, TC_DISCARD, 0 } },
	  .d_lat_n = 1, .d_lat_max = 2 * MS, .d_errors = 1, .d_freed = 4096, .d_busy = 32 * MS },
	{ .name = "a failed write is no write latency",
	  .cmd = { { 0, 5 * MS, TC_FOREGROUND, -ENOSPC }, { 10 * MS, 1 * MS, TC_FOREGROUND, 0 } },
	  .fg_lat_n = 1, .fg_lat_max = 1 * MS, .fg_errors = 1 },
	{ .name = "nothing failed: every completion counts",
	  .cmd = { { 0, 3 * MS, TC_DISCARD, 0 }, { 10 * MS, 1 * MS, TC_DISCARD, 0 } },
	  .d_lat_n = 2, .d_lat_max = 3 * MS, .d_freed = 8192, .d_busy = 4 * MS },
};

ParameterizedTestParameters(failed, figures)
{
	return cr_make_param_array(struct failed_case, cases, sizeof(cases) / sizeof(cases[0]));
}

/* The integer at a dotted path ("latency.discard.count"); 0 when absent. */
static uint64_t at(json_t *o, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = json_object_get(o, k);
	return o ? (uint64_t)json_integer_value(o) : 0;
}

ParameterizedTest(struct failed_case *c, failed, figures)
{
	struct metrics *m = metrics__new();
	struct target_seg seg = { .offset = 0, .length = 4096 };
	json_t *o = json_object();

	cr_assert_not_null(m);
	for (size_t i = 0; i < 4 && (c->cmd[i].t || c->cmd[i].lat || c->cmd[i].err || !i); i++) {
		const struct fcmd *f = &c->cmd[i];
		uint8_t op = f->klass == TC_DISCARD ? TS_OP_DISCARD : TS_OP_WRITE;
		struct metrics_cmd mc = { .submit_ns = f->t, .ready_ns = f->t, .bytes = 4096, .segs = &seg,
					  .count = 1, .op = op, .klass = f->klass };
		struct target_done d = { .submit_ns = f->t, .start_ns = f->t, .done_ns = f->t + f->lat, .bytes = 4096,
					 /* a real target counts freed bytes as it builds the command (rd_core.c) */
					 .freed = f->klass == TC_DISCARD ? 4096 : 0, .dev_cmds = 1,
					 .error = f->err, .op = op, .klass = f->klass };

		seg.offset = i * 4096;
		cr_assert_eq(metrics__submit(m, &mc), 0);
		cr_assert_eq(metrics__done(m, &mc, &d), 0);
	}
	cr_assert_eq(metrics__finish(m, 100 * MS, 0), 0);
	cr_assert_eq(metrics__to_json(m, o), 0);
	cr_expect_eq(at(o, "latency.discard.count"), c->d_lat_n, "%s", c->name);
	cr_expect_eq(at(o, "latency.discard.max_ns"), c->d_lat_max, "%s", c->name);
	cr_expect_eq(at(o, "latency.write.count"), c->fg_lat_n, "%s", c->name);
	cr_expect_eq(at(o, "foreground.latency.write.count"), c->fg_lat_n, "%s", c->name);
	cr_expect_eq(at(o, "foreground.latency.write.max_ns"), c->fg_lat_max, "%s", c->name);
	cr_expect_eq(at(o, "discard.errors"), c->d_errors, "%s", c->name);
	cr_expect_eq(at(o, "foreground.errors"), c->fg_errors, "%s", c->name);
	cr_expect_eq(at(o, "discard.device_freed_bytes"), c->d_freed, "%s", c->name);
	/* time spent is time spent: a failed discard kept the device busy */
	cr_expect_eq(at(o, "discard.busy_ns"), c->d_busy, "%s", c->name);
	json_decref(o);
	metrics__free(m);
}

/*
 * The repro: XFS's discards of a database trace on a profile without discard
 * support. Before, the table showed `discard 18 0 0 0 0`: 18 rejections as 0 ns discards.
 */
Test(failed, rejected_discards_have_no_latency_row)
{
	char cmd[2048], *out = NULL;
	json_t *res, *d;

	snprintf(cmd, sizeof(cmd), "%s replay %s/traces/corpus/xfs-discard-db.tsim -p xfs -M hdd-nodiscard -o %s/r.json",
		 th_trimsim(), th_src(), th_dir());
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert(strstr(out, "\n           18 failed: EOPNOTSUPP 18\n"), "%s", out);
	cr_assert_null(strstr(out, "\ndiscard     "), "a latency row for rejected discards:\n%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/r.json", th_dir());
	res = json_load_file(cmd, 0, NULL);
	cr_assert_not_null(res);
	cr_assert_null(json_object_get(json_object_get(res, "latency"), "discard"));
	d = json_object_get(res, "discard");
	cr_assert_eq(json_integer_value(json_object_get(d, "commands")), 18);
	cr_assert_eq(json_integer_value(json_object_get(d, "errors")), 18);
	cr_assert_eq(json_integer_value(json_object_get(d, "device_freed_bytes")), 0);
	cr_assert_eq(at(res, "reclaim.untrimmed_bytes"), at(res, "reclaim.freed_bytes"));
	json_decref(res);
}

TestSuite(failed, .init = th_dir_init, .fini = th_dir_fini);
