// SPDX-License-Identifier: GPL-2.0
/* Verdict sentences follow from the numbers: ratios, fstrim cadence, and seed 002's "does not matter". */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "tests/report/agree.h"
#include "tests/report/fixture.h"

static bool has(const struct report *r, const char *needle)
{
	size_t n;
	const char *const *v = report__verdicts(r, &n);

	for (size_t i = 0; i < n; i++)
		if (strstr(v[i], needle))
			return true;
	return false;
}

static void dump(const struct report *r)
{
	size_t n;
	const char *const *v = report__verdicts(r, &n);

	for (size_t i = 0; i < n; i++)
		cr_log_info("verdict: %s", v[i]);
}

Test(verdict, slow_ssd_xfs_vs_ext4)
{
	struct report *r = fx_report(10 * FX_S);

	dump(r);
	/* 2000 x 9 ms = 18 s vs 24 x 20 ms = 480 ms: 37.5, shown as 38x */
	cr_assert(has(r, "on sata-sf2281, `xfs` spends 18 s in TRIM (2000 commands), 37.5x `ext4` (480 ms, 24 commands)"));
	cr_assert(has(r, "on sata-sf2281, `fstrim(interval=1w,minlen=64K)` costs 480 ms (12 commands) once a week"));
	/* held up 100 x 5 ms during the run, then the last write waits 8 s: 8.5 s */
	cr_assert(has(r, "on sata-sf2281, discard matters: `xfs` adds 8.5 s, 85% of the 10 s wall time"));
	/* 0.8% on the fast SSD: below the 1% line */
	cr_assert(has(r, "on nvme, discard does not matter for this workload"));
	cr_assert(has(r, "(worst `xfs`: 0.85%)"));
	cr_assert(has(r, "`fstrim(interval=1w,minlen=64K)` discards 12x the bytes it covers"));
	report__destroy(r);
}

Test(verdict, long_workload_nothing_matters)
{
	/* the same discards inside a 20-minute CPU-bound build (seed 002): under 1% everywhere */
	struct report *r = fx_report(1200 * FX_S);

	dump(r);
	/* said once for the trace, not once per profile */
	cr_assert(has(r, "this workload: discard does not matter on any of the 2 profiles: no policy adds 1% or "
		      "more to the 20 min wall time (worst `xfs` on sata-sf2281: 0.708%)"));
	cr_assert_not(has(r, "on nvme, discard does not matter"));
	cr_assert_not(has(r, "discard matters"));
	/* issue 16: the brief mode keeps the TRIM-time and redundancy sentences of every profile */
	cr_assert(has(r, "on sata-sf2281, `xfs` spends 18 s in TRIM (2000 commands), 37.5x `ext4`"));
	cr_assert(has(r, "on nvme, `xfs` spends 180 ms in TRIM (2000 commands)"));
	cr_assert(has(r, "on nvme, `fstrim(interval=1w,minlen=64K)` discards 12x the bytes it covers"));
	report__destroy(r);
}

Test(verdict, figures_relative_to_none)
{
	struct report *r = fx_report(10 * FX_S);
	const struct report_cell *x = report__cell_c(r, report__at(r, 0, 1, 0));
	const struct report_cell *n = report__cell_c(r, report__at(r, 0, 0, 0));

	cr_assert(n->none);
	cr_assert(x->have & CH_BASELINE);
	cr_assert_eq(x->fg_held_ns, 100 * 5 * FX_MS + 8 * FX_S);
	cr_assert_eq(x->added_ns, 100 * 5 * FX_MS + 8 * FX_S);
	cr_assert_float_eq(x->share, 0.85, 1e-12);
	cr_assert_eq(x->stall_vs_none_ns, 100 * 5 * (int64_t)FX_MS + 8 * (int64_t)FX_S);
	cr_assert_eq(x->workload_ns, 10 * FX_S + 8 * FX_S + 100000);
	cr_assert_float_eq(x->write_p99_inflation, 5.1 / 0.1, 0.05 * 51);
	cr_assert_float_eq(x->redundancy, 1.0, 1e-12);
	cr_assert(isnan(n->redundancy));
	report__destroy(r);
}

Test(verdict, device_rejects_discards)
{
	char *traces[] = { "a.tsim" };
	char *pols[] = { "none", "xfs" };
	char *profs[] = { "hdd-nodiscard" };
	struct report *r = report__new(traces, 1, pols, 2, profs, 1, 1, 1);

	fx_fill(report__cell(r, 0), &fx_none, 1.0, FX_S);
	fx_fill(report__cell(r, 1), &fx_xfs, 1.0, FX_S);
	report__cell(r, 1)->errors = report__cell(r, 1)->cmds;
	cr_assert_eq(report__finish(r), 0);
	dump(r);
	cr_assert(has(r, "on hdd-nodiscard, the device rejects every discard (all 2000 commands of 1 policies failed): no policy can trim it"));
	cr_assert_not(has(r, "spends"));
	report__destroy(r);
}

/*
 * Some discards failed, fast: `ext4`'s 24 rejected commands cost no TRIM time, which made
 * it "the cheapest" policy (and the cheapest that discards) although it trimmed nothing.
 */
Test(verdict, failed_discards_are_not_cheap)
{
	struct report *r = fx_report_ext4_rejected(false);

	dump(r);
	cr_assert(has(r, "on sata-sf2281, 24 of 2024 discard commands failed (`ext4` 24 of 24): a policy whose "
		      "discards failed is not ranked by its TRIM time"));
	cr_assert(has(r, "on sata-sf2281, `xfs` spends 18 s in TRIM (2000 commands)"));
	cr_assert_not(has(r, "the cheapest"));
	cr_assert_not(has(r, "`ext4` discards without adding anything"));
	report__destroy(r);
}

Test(verdict, a_policy_failing_everywhere_is_said_once)
{
	struct report *r = fx_report(10 * FX_S);

	for (size_t m = 0; m < 2; m++) {
		struct report_cell *c = report__cell(r, report__at(r, 0, 2, m));

		c->status = -EINVAL;
		snprintf(c->error, sizeof(c->error), "policy: unknown stage 'ext5'");
	}
	cr_assert_eq(report__finish(r), 0);	/* again: verdicts recomputed from the cells */
	dump(r);
	cr_assert(has(r, "`ext4` failed on every profile: policy: unknown stage 'ext5'"));
	cr_assert_not(has(r, "on nvme, `ext4` failed"));
	cr_assert_not(has(r, "`ext4` (480 ms"));
	report__destroy(r);
}

/*
 * The workload's end moves to the last of the recorded command's own discards (report.c,
 * discard_wait()): the same after a second report__finish() (the moved end is derived from
 * the probe's fg_end_ns each time, not from the workload_ns it overwrote), and credited in
 * the verdict only when moving it is what made the added time larger.
 */
Test(verdict, own_discards_end_the_workload_the_same_when_finished_again)
{
	static const char *const note = "it ends when the last completes";
	struct report *r = fx_report(10 * FX_S);
	struct report_cell *x = report__cell(r, report__at(r, 0, 1, 0));
	const struct report_cell *n = report__cell_c(r, report__at(r, 0, 0, 0));
	uint64_t fg_end = x->fg_end_ns;

	cr_assert(n->none);
	/* the xfs cell on sata-sf2281 as an unknown submitter whose own serial discards end 1 s past its last write */
	x->waiter = CW_UNKNOWN;
	x->rec_serial = true;
	x->d_own_ns = 20 * FX_MS;
	x->d_own_end_ns = fg_end + FX_S;
	for (int pass = 0; pass < 2; pass++) {
		cr_assert_eq(report__finish(r), 0);
		cr_expect_eq(x->workload_ns, fg_end + FX_S, "pass %d", pass);
		cr_expect_eq(x->added_ns, fg_end + FX_S - n->workload_ns, "pass %d: %llu", pass,
			     (unsigned long long)x->added_ns);
		cr_expect_eq(x->end_wait, CEW_OWN, "pass %d", pass);
		cr_expect_eq(x->wait_basis, CWB_SYNC, "pass %d", pass);
		cr_expect(has(r, note), "pass %d", pass);
	}
	/* 1 ms past the last write: the held-up time (8.5 s) stays the larger, and the note goes */
	x->d_own_end_ns = fg_end + FX_MS;
	cr_assert_eq(report__finish(r), 0);
	cr_expect_eq(x->workload_ns, fg_end + FX_MS);
	cr_expect_eq(x->added_ns, 100 * 5 * FX_MS + 8 * FX_S);
	cr_expect_eq(x->end_wait, CEW_NONE);
	cr_expect_not(has(r, note));
	report__destroy(r);
}

Test(verdict, runs_on_models_say_identical)
{
	char *traces[] = { "a.tsim" };
	char *pols[] = { "none", "xfs" };
	char *profs[] = { "nvme" };
	struct report *r = report__new(traces, 1, pols, 2, profs, 1, 5, 1);

	fx_fill(report__cell(r, 0), &fx_none, 1.0, FX_S);
	fx_fill(report__cell(r, 1), &fx_xfs, 1.0, FX_S);
	cr_assert_eq(report__finish(r), 0);
	cr_assert(has(r, "model targets are deterministic: 5 runs would be identical by construction"));
	report__destroy(r);
}

Test(verdict, realtime_runs_t_test)
{
	char *traces[] = { "a.tsim" };
	char *pols[] = { "none", "xfs", "ext4" };
	char *profs[] = { "file:/tmp/x" };
	struct report *r = report__new(traces, 1, pols, 3, profs, 1, 5, 1);
	static const double ms[3][5] = {
		{ 10.0, 10.2, 9.9, 10.1, 10.0 },
		{ 18.0, 18.3, 17.9, 18.1, 18.2 },	/* clearly slower */
		{ 10.1, 9.9, 10.2, 10.0, 10.05 },	/* indistinguishable */
	};

	for (size_t p = 0; p < 3; p++) {
		struct report_cell *c = report__cell(r, p);

		c->realtime = true;
		c->runs.n = 5;
		for (int k = 0; k < 5; k++) {
			c->runs.makespan_s[k] = ms[p][k];
			c->runs.discard_s[k] = p ? 0.5 + 0.01 * k : 0;
		}
	}
	cr_assert_eq(report__finish(r), 0);
	dump(r);
	size_t n;
	const struct report_cmp *x = report__comparisons(r, &n);

	/* two metrics per policy: makespan, device time in discard */
	cr_assert_eq(n, 4);
	cr_assert_str_eq(x[0].metric, "makespan_s");
	cr_assert(x[0].d.differ);
	cr_assert_str_eq(x[2].metric, "makespan_s");
	cr_assert_not(x[2].d.differ);
	cr_assert(has(r, "`xfs` vs `none` (5 runs each), makespan differs at 95% confidence: +8.06 s +/- "));
	cr_assert(has(r, "`ext4` vs `none` (5 runs each), makespan: no difference proven at 95% confidence"));
	/* version 4: the JSON keys of the seconds say so */
	char *js = fx_render(r, "json");
	json_t *root = json_loads(js, 0, NULL), *c0 = json_array_get(json_object_get(root, "comparisons"), 0);
	json_t *runs = NULL;

	for (size_t i = 0; !runs && i < json_array_size(json_object_get(root, "cells")); i++)
		runs = json_object_get(json_array_get(json_object_get(root, "cells"), i), "runs");
	cr_assert_not_null(c0);
	cr_assert_float_eq(json_real_value(json_object_get(c0, "diff_s")), x[0].d.diff, 1e-9);
	cr_assert_float_eq(json_real_value(json_object_get(c0, "plusminus_s")), x[0].d.plusminus, 1e-9);
	cr_assert_float_eq(json_real_value(json_object_get(c0, "pooled_sd_s")), x[0].d.pooled_s, 1e-9);
	cr_assert_not_null(json_object_get(c0, "reference_stats_s"));
	cr_assert_not_null(json_object_get(c0, "policy_stats_s"));
	cr_assert_null(json_object_get(c0, "diff"));
	cr_assert_not_null(runs);
	cr_assert_not_null(json_object_get(runs, "makespan_s_stats"));
	cr_assert_not_null(json_object_get(runs, "discard_s_stats"));
	json_decref(root);
	free(js);
	report__destroy(r);
}

/* The ranking's ratios are the JSON's discard_time_ns ratios; fstrim is out of it, `none` never named in it. */
Test(verdict, ranking_ratios_match_the_json)
{
	struct report *r = fx_report(10 * FX_S);
	char *js = fx_render(r, "json");

	dump(r);
	/* one ranking per profile, xfs over ext4 (the cheapest) */
	cr_assert_eq(agree_ratios(js), 2);
	cr_assert(has(r, "on nvme, `xfs` spends 180 ms in TRIM (2000 commands), 37.5x `ext4` (4.8 ms, 24 commands), "
		      "the cheapest"));
	cr_assert_not(has(r, "`none` spends"));
	free(js);
	report__destroy(r);
}

/*
 * When no policy adds anything, there is no worst to name: on nvme the corpus's xfs rm -rf adds
 * 0 ns with every policy, and the verdict said "(worst `as-recorded`: 0%)", a policy picked by
 * its column order. Per profile and, with two such profiles, once for the trace.
 */
Test(verdict, nothing_added_names_no_worst)
{
	static const char *const models[] = { "nvme", "nvme,sata-good" };
	static const char *const want[] = {
		"on nvme, discard does not matter for this workload: no policy adds time to its 2.86 s wall time.",
		"this workload: discard does not matter on any of the 2 profiles: no policy adds time to the 2.86 s "
		"wall time.",
	};

	for (size_t i = 0; i < 2; i++) {
		char cmd[2048], *out = NULL;

		snprintf(cmd, sizeof(cmd), "%s compare %s/traces/corpus/xfs-discard-rmtree.tsim -p as-recorded,xfs,none "
			 "-M %s", th_trimsim(), th_src(), models[i]);
		cr_assert_eq(th_run(cmd, &out, NULL), 0, "%s", cmd);
		cr_assert(strstr(out, want[i]), "%s", out);
		cr_assert_null(strstr(out, "(worst `"), "%s", out);
		free(out);
	}
}
