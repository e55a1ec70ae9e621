// SPDX-License-Identifier: GPL-2.0
/* trimsim replay / policies end to end: exact counts, byte-identical JSON, errors, bounded memory. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "tests/replay/rgen.h"

static char trace[512];

static void setup(void)
{
	th_dir_init();
	snprintf(trace, sizeof(trace), "%s/t.tsim", th_dir());
	cr_assert_eq(rgen_trace(trace, 4000), 0);
}

TestSuite(cli, .init = setup, .fini = th_dir_fini);

static json_t *run_json(const char *args, int want_rc)
{
	char cmd[2048], out[600], *err = NULL;
	json_error_t je;
	json_t *j;
	int rc;

	snprintf(out, sizeof(out), "%s/r.json", th_dir());
	snprintf(cmd, sizeof(cmd), "%s replay %s %s -q -o %s", th_trimsim(), trace, args, out);
	rc = th_run(cmd, NULL, &err);
	cr_assert_eq(rc, want_rc, "%s: rc %d: %s", cmd, rc, err);
	free(err);
	j = json_load_file(out, 0, &je);
	cr_assert_not_null(j, "%s: %s", out, je.text);
	return j;
}

static uint64_t jget(const json_t *o, const char *a, const char *b)
{
	return (uint64_t)json_integer_value(json_object_get(json_object_get(o, a), b));
}

Test(cli, as_recorded_reports_the_recorded_count)
{
	/* 1000 extents: 1000 discard ISSUEs, 1000 INTENTs, 1000 writes. */
	json_t *j = run_json("-p as-recorded -t fixed:discard=2ms,qd=4", 0);
	uint64_t bytes = 0;

	for (uint64_t i = 3; i < 4000; i += 4) {
		struct ts_record r;

		rgen_record(i, &r);
		bytes += r.length;
	}
	cr_assert_eq(jget(j, "discard", "commands"), 1000);
	cr_assert_eq(jget(j, "discard", "bytes"), bytes);
	cr_assert_eq(jget(j, "foreground", "commands"), 1000);
	cr_assert_str_eq(json_string_value(json_object_get(j, "schema")), "trimsim-result/2");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "trace"), "device")), "8:16");
	/* version 2: the command-size histogram's keys say bytes, as its values are */
	json_t *cb = json_object_get(json_object_get(j, "discard"), "command_bytes");

	cr_assert_eq(json_integer_value(json_object_get(cb, "sum_bytes")), bytes);
	cr_assert_eq(json_integer_value(json_object_get(cb, "count")), 1000);
	cr_assert_null(json_object_get(cb, "p50_ns"), "no _ns key holds bytes");
	cr_assert_not_null(json_object_get(json_object_get(json_object_get(j, "latency"), "discard"), "p50_ns"));
	json_decref(j);
}

/* --qd overrides the profile's depth (nvme: 256, 8 channels), and the result says the depth it ran at */
Test(cli, qd_option_is_the_reported_depth)
{
	json_t *a = run_json("-p xfs -M nvme --qd 4", 0), *b = run_json("-p xfs -M nvme:qd=4,channels=4", 0);
	json_t *pa = json_object_get(json_object_get(a, "target"), "params");

	cr_expect_eq(jget(json_object_get(a, "target"), "params", "qd"), 4);
	cr_expect_eq(jget(json_object_get(a, "target"), "params", "channels"), 4);
	cr_expect(json_equal(pa, json_object_get(json_object_get(b, "target"), "params")));
	cr_expect(json_equal(json_object_get(a, "latency"), json_object_get(b, "latency")), "the same replay");
	json_decref(a);
	json_decref(b);
}

Test(cli, passthrough_is_serial_and_slow)
{
	json_t *pt = run_json("-p passthrough -t fixed:discard=9ms,qd=32", 0);
	json_t *sm = run_json("-p 'sort-merge-async(qd=32)' -t fixed:discard=9ms,qd=32", 0);

	/* 1000 serial 9 ms discards take at least 9 s; async ones fit in the trace's 80 ms span plus windows. */
	cr_assert_geq(json_integer_value(json_object_get(pt, "makespan_ns")), 9000000000ll);
	cr_assert_lt(json_integer_value(json_object_get(sm, "makespan_ns")), 2000000000ll);
	cr_assert_eq(jget(pt, "discard", "commands"), 1000);
	cr_assert_lt(jget(sm, "discard", "commands"), 1000);
	cr_assert_eq(jget(pt, "foreground", "baseline_pairs"), 1000);
	json_decref(pt);
	json_decref(sm);
}

struct det_case {
	char args[256];
};

static struct det_case dets[] = {
	{ "-p 'source(free) | batch(5ms) | sort | merge(segments=8) | min(8K)' -t fixed:discard=3ms,qd=8 --seed 7" },
	{ "-p passthrough -M sata-sf2281 --seed 3" },
	{ "-p 'sort-merge-async(qd=4)' -M ftl-sata --seed 11" },
	{ "-p as-recorded -M nvme --timing asap" },
};

ParameterizedTestParameters(cli, same_inputs_same_bytes)
{
	return cr_make_param_array(struct det_case, dets, sizeof(dets) / sizeof(dets[0]));
}

ParameterizedTest(struct det_case *c, cli, same_inputs_same_bytes)
{
	char cmd[2048], a[600], b[600];
	size_t la, lb;
	char *x, *y;

	snprintf(a, sizeof(a), "%s/a.json", th_dir());
	snprintf(b, sizeof(b), "%s/b.json", th_dir());
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "%s replay %s %s -q -o %s", th_trimsim(), trace, c->args, i ? b : a);
		cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	}
	x = th_slurp(a, &la);
	y = th_slurp(b, &lb);
	cr_assert(x && y);
	cr_assert_eq(la, lb, "%s: %zu vs %zu bytes", c->args, la, lb);
	cr_assert(!memcmp(x, y, la), "%s: result JSON differs between identical runs", c->args);
	free(x);
	free(y);
}

Test(cli, seed_001_serial_small_trims_on_sf2281)
{
	/* Seed 001: XFS sent 12-13 KiB discards one at a time; on a SandForce SF-2281 each costs ~9 ms. */
	json_t *pt, *sm;
	int64_t span;

	snprintf(trace, sizeof(trace), "%s/rm.tsim", th_dir());
	cr_assert_eq(rgen_rm(trace, 1000), 0);
	pt = run_json("-p passthrough -M sata-sf2281", 0);
	sm = run_json("-p 'sort-merge-async(qd=32)' -M sata-sf2281", 0);
	span = json_integer_value(json_object_get(pt, "makespan_ns"));
	cr_assert_eq(jget(pt, "discard", "commands"), 1000);
	/* 1000 serial non-queued TRIMs: at least ~8 ms each, where the rm itself took 50 ms. */
	cr_assert_geq(span, 8000000000ll, "makespan %ld ns", span);
	/* Batched, sorted and merged, the contiguous extents become one command within the 1 s window. */
	cr_assert_eq(jget(sm, "discard", "commands"), 1);
	cr_assert_eq(jget(sm, "discard", "bytes"), 1000 * 12288);
	cr_assert_lt(json_integer_value(json_object_get(sm, "makespan_ns")), 1200000000ll);
	json_decref(pt);
	json_decref(sm);
}

struct bad_case {
	char args[160];
	int rc;
	char want[96];
};

static struct bad_case bads[] = {
	{ .args = "-p 'batch(1s) | merge(maxx=4M)' -t fixed", .rc = 2,
	  .want = "has no option 'maxx' (options: max, segments, gap)" },
	{ .args = "-p 'batch(1s) | merge(maxx=4M)' -t nosuch", .rc = 2, .want = "\n                    ^" },
	{ .args = "-p nosuch", .rc = 2, .want = "unknown stage or preset 'nosuch'" },
	{ .args = "-t nosuch", .rc = 2, .want = "target 'nosuch' is not built in (targets: model" },
	{ .args = "-t fixed:discard=fast", .rc = 1, .want = "target fixed: option 'discard'" },
	{ .args = "--timing later", .rc = 2, .want = "--timing 'later': expected trace or asap" },
	{ .args = "--speed 0", .rc = 2, .want = "--speed '0': expected a number above 0, at most 1e9" },
	{ .args = "--speed 1e300", .rc = 2, .want = "--speed '1e300': expected a number above 0, at most 1e9" },
	{ .args = "--timing asap --speed 2", .rc = 2, .want = "--speed '2': applies to --timing trace only" },
	{ .args = "--dev 8", .rc = 2, .want = "--dev '8': expected MAJOR:MINOR" },
	{ .args = "-M nvme -t fixed", .rc = 2, .want = "choose one target (-M, -t, --device or --file)" },
	{ .args = "--file /tmp/x -M file:/tmp/y -t fixed", .rc = 2, .want = "choose one target" },
	{ .args = "-M nosuch:x", .rc = 2, .want = "nosuch" },	/* a bad -M is a usage error, as in compare */
};

ParameterizedTestParameters(cli, bad_input)
{
	return cr_make_param_array(struct bad_case, bads, sizeof(bads) / sizeof(bads[0]));
}

ParameterizedTest(struct bad_case *c, cli, bad_input)
{
	char cmd[2048], out[600], *err = NULL;
	int rc;

	snprintf(out, sizeof(out), "%s/bad.json", th_dir());
	snprintf(cmd, sizeof(cmd), "%s replay %s %s -o %s", th_trimsim(), trace, c->args, out);
	rc = th_run(cmd, NULL, &err);
	cr_expect_eq(rc, c->rc, "%s: rc %d", cmd, rc);
	cr_expect(err && strstr(err, c->want), "%s: stderr lacks '%s':\n%s", cmd, c->want, err);
	cr_expect_neq(access(out, F_OK), 0, "nothing written on failure");
	free(err);
}

Test(cli, missing_trace_and_bad_output)
{
	char cmd[2048], *err = NULL;

	snprintf(cmd, sizeof(cmd), "%s replay %s/none.tsim -t fixed", th_trimsim(), th_dir());
	cr_assert_eq(th_run(cmd, NULL, &err), 1);
	cr_assert(err && strstr(err, "none.tsim"), "%s", err);
	free(err);
	snprintf(cmd, sizeof(cmd), "%s replay %s -t fixed -q -o %s/no/such/dir/r.json", th_trimsim(), trace, th_dir());
	err = NULL;
	cr_assert_eq(th_run(cmd, NULL, &err), 1);
	cr_assert(err && strstr(err, "r.json"), "%s", err);
	free(err);
}

Test(cli, summary_table)
{
	char cmd[2048], *out = NULL;

	snprintf(cmd, sizeof(cmd), "%s replay %s -p passthrough -t fixed:discard=1ms", th_trimsim(), trace);
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert(strstr(out, "discard    1000 commands for 1000 requests"), "%s", out);
	cr_assert(strstr(out, "policy     source(layer=intent) | dispatch(qd=1)"), "%s", out);
	cr_assert(strstr(out, "makespan"), "%s", out);
	cr_assert_null(strstr(out, "failed"), "%s", out);
	free(out);
}

/* A device that rejects every discard: the summary says so (and has no latency row for them: test_failed.c). */
Test(cli, summary_names_failed_commands)
{
	char cmd[2048], *out = NULL;

	snprintf(cmd, sizeof(cmd), "%s replay %s -p passthrough -M hdd-nodiscard", th_trimsim(), trace);
	cr_assert_eq(th_run(cmd, &out, NULL), 0);	/* a model's answer, not a failed replay */
	cr_assert(strstr(out, "\n           1000 failed: EOPNOTSUPP 1000\n"), "%s", out);
	free(out);
}

/*
 * A device that falls behind the trace (xfs-discard-db on hdd-nodiscard: 40 s of work in 5 s)
 * shows it in what the workload waited from each command's issue time, beside the device's
 * own latency table: write p50 263 ms at the device, 18.7 s from issue. The text had only the
 * first.
 */
Test(cli, summary_says_what_the_workload_waited)
{
	char cmd[2048], *out = NULL, *at;

	snprintf(cmd, sizeof(cmd), "%s replay %s/traces/corpus/xfs-discard-db.tsim -p none -M hdd-nodiscard",
		 th_trimsim(), th_src());
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert_not_null(at = strstr(out, "\n           from the trace's issue time: "), "%s", out);
	cr_expect_not_null(strstr(at, "write p50 18.7 s, p99 36.8 s"), "%s", out);
	cr_expect_not_null(strstr(out, "\nwrite              4456       263 ms"), "%s", out);
	free(out);
}

/*
 * A replay that sent no discard (as-recorded on a trace recorded with no discard) has no
 * redundancy, mean size or free-to-discard delay: "-", as compare prints them, not "0x" and
 * "p50 0" (an instant discard).
 */
Test(cli, summary_without_discards_says_none)
{
	char cmd[2048], *out = NULL;

	snprintf(cmd, sizeof(cmd), "%s replay %s/traces/corpus/xfs-nodiscard-rmtree.tsim -p as-recorded -M nvme",
		 th_trimsim(), th_src());
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_expect_not_null(strstr(out, "discard    0 commands for 0 requests, 0 (unique 0, redundancy -)\n"
				   "           mean - per command,"), "%s", out);
	cr_expect_not_null(strstr(out, "           free to discard p50 -, p99 -, max -\n"), "%s", out);
	free(out);
}

/*
 * An XFS trace without FREE records (cut short after two records here; a block-layer import is
 * the other way) says that none of XFS's fs-level events were recorded: "xfs has no fs-level
 * events" (btrfs's reason) was false, the recorder takes XFS's.
 */
Test(cli, missing_layer_names_the_right_reason)
{
	char cmd[2048], *err = NULL;

	th_dir_init();
	snprintf(cmd, sizeof(cmd), "%s replay %s -p xfs -M nvme -q", th_trimsim(),
		 th_cut_corpus("xfs-discard-rmtree.tsim", 1000));
	cr_expect_eq(th_run(cmd, NULL, &err), 1);
	cr_expect_not_null(strstr(err, "policy 'xfs' does not apply: trace has no FREE records: none of its xfs's "
				  "fs-level events were recorded (a block-layer import, a recording cut short, or "
				  "nothing freed)\n"), "%s", err);
	free(err);
	th_dir_fini();
}

Test(cli, policies_lists_everything)
{
	char cmd[1024], *out = NULL;
	json_t *j, *v;
	size_t i;
	bool seen[4] = { false };
	static const char *const want[] = { "as-recorded", "passthrough", "sort-merge-async", "none" };

	snprintf(cmd, sizeof(cmd), "%s policies --json", th_trimsim());
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	j = json_loads(out, 0, NULL);
	cr_assert_not_null(j);
	json_array_foreach(json_object_get(j, "presets"), i, v)
		for (int k = 0; k < 4; k++)
			seen[k] |= !strcmp(json_string_value(json_object_get(v, "name")), want[k]);
	for (int k = 0; k < 4; k++)
		cr_expect(seen[k], "preset %s missing", want[k]);
	cr_assert_geq(json_array_size(json_object_get(j, "stages")), 10);
	json_decref(j);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s policies", th_trimsim());
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert(strstr(out, "merge: coalesce") && strstr(out, "segments"), "%s", out);
	free(out);
}

/* policies NAME: that stage or preset alone, in text and JSON. */
Test(cli, policies_one_name)
{
	char cmd[1024], *out = NULL;
	json_t *j;

	snprintf(cmd, sizeof(cmd), "%s policies xfs", th_trimsim());
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_expect(!strncmp(out, "presets (", 9) && strstr(out, "\n  xfs: ") && strstr(out, "push_flush"), "%s", out);
	cr_expect_null(strstr(out, "stages ("), "%s", out);
	cr_expect_null(strstr(out, "\n  ext4: "), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s policies merge --json", th_trimsim());
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert_not_null(j = json_loads(out, 0, NULL), "%s", out);
	cr_expect_eq(json_array_size(json_object_get(j, "stages")), 1);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(j, "stages"), 0), "name")),
			 "merge");
	cr_expect_eq(json_array_size(json_object_get(j, "presets")), 0);
	json_decref(j);
	free(out);
}

/* Peak RSS (KiB) of the plain binary replaying a trace. */
static long replay_rss(const char *path)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid) {
		freopen("/dev/null", "w", stdout);
		execl(getenv("TRIMSIM_PLAIN") ? getenv("TRIMSIM_PLAIN") : "build/trimsim", "trimsim", "replay",
		      path, "-p", "sort-merge-async(window=100ms)", "-t", "fixed:discard=100us,write=20us",
		      "-q", (char *)NULL);
		_exit(127);
	}
	cr_assert_eq(wait4(pid, &status, 0, &ru), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "replay of %s failed", path);
	return ru.ru_maxrss;
}

Test(cli, memory_is_bounded_by_windows_not_length, .timeout = 120)
{
	char small[600], big[600];
	long rs, rb;

	snprintf(small, sizeof(small), "%s/100k.tsim", th_dir());
	snprintf(big, sizeof(big), "%s/1m.tsim", th_dir());
	cr_assert_eq(rgen_trace(small, 100000), 0);
	cr_assert_eq(rgen_trace(big, 1000000), 0);
	rs = replay_rss(small);
	rb = replay_rss(big);
	/* 10x the records: the peak may differ by noise and by the unique-bytes interval set, not by 10x. */
	cr_expect_lt(rb, rs + 16 * 1024, "peak RSS %ld KiB for 1M records vs %ld KiB for 100k", rb, rs);
}

Test(cli, file_target_real_time)
{
	/* A real-time target: discards punch holes in a file; counts are the policy's, exactly. */
	char arg[1200];
	json_t *j;

	snprintf(arg, sizeof(arg), "-p 'source(intent) | dispatch(qd=4)' --file %s/disk.img --speed 8", th_dir());
	j = run_json(arg, 0);
	cr_assert_eq(jget(j, "discard", "commands"), 1000);
	cr_assert_eq(jget(j, "foreground", "commands"), 1000);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "target"), "name")), "file");
	cr_assert_eq(json_is_true(json_object_get(json_object_get(j, "target"), "baseline")), 0);
	json_decref(j);
}

/* Every way to name a target goes through target_spec_parse(): -M file:PATH is the file target, as in compare. */
struct spec_form {
	char fmt[96];		/* %s: the scratch directory */
	char name[16];
	char spec[32];		/* the result's target.spec after the scratch directory ("" = as is) */
};

static struct spec_form forms[] = {
	{ .fmt = "-M file:%s/m.img", .name = "file", .spec = "/m.img" },
	{ .fmt = "--file %s/f.img", .name = "file", .spec = "/f.img" },
	{ .fmt = "-t file:%s/t.img", .name = "file", .spec = "/t.img" },
	{ .fmt = "-M model:nvme", .name = "model", .spec = "nvme" },
	{ .fmt = "-M 'sata-sf2281:trim_base=5ms'", .name = "model", .spec = "sata-sf2281:trim_base=5ms" },
	{ .fmt = "-t fixed:discard=2ms", .name = "fixed", .spec = "discard=2ms" },
};

ParameterizedTestParameters(cli, target_spec_forms)
{
	return cr_make_param_array(struct spec_form, forms, sizeof(forms) / sizeof(forms[0]));
}

ParameterizedTest(struct spec_form *c, cli, target_spec_forms)
{
	char arg[1200], want[700];
	json_t *j, *t;
	bool file = !strcmp(c->name, "file");

	snprintf(arg, sizeof(arg), "-p 'source(intent) | dispatch(qd=4)' --speed 8 ");
	snprintf(arg + strlen(arg), sizeof(arg) - strlen(arg), c->fmt, th_dir());
	snprintf(want, sizeof(want), "%s%s", file ? th_dir() : "", c->spec);
	j = run_json(arg, 0);
	t = json_object_get(j, "target");
	cr_assert_str_eq(json_string_value(json_object_get(t, "name")), c->name, "%s", arg);
	cr_assert_str_eq(json_string_value(json_object_get(t, "spec")), want, "%s", arg);
	cr_assert_eq(jget(j, "discard", "commands"), 1000, "%s", arg);
	json_decref(j);
}
