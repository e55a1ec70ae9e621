// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim replay end to end on real targets: a trace of non-contiguous
 * discards replayed to a loop device (both dispatch paths) and to a file
 * really frees the backing file's blocks, with a latency for every command;
 * refusals come out as one line with nothing touched; and a profile from
 * trimsim calibrate predicts the replay's total discard time within 2x.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/live/live.h"

#define KIB 1024ull
#define MIB (1024ull * 1024)

TestSuite(replay_dev, .init = lv_init, .fini = lv_fini, .timeout = 240);

/*
 * n INTENT discards 1 ms apart, each followed by a gap of its own length, on
 * a traced device of dev_size; sizes cycle through len, len/4, len/16, len/64
 * when vary is set.
 * Returns the bytes the trace discards.
 */
/* The same on a partition that starts at part (bytes on the whole disk, where the records lie). */
static uint64_t write_trace_on(const char *path, unsigned n, uint64_t len, uint64_t dev_size, bool vary,
			       uint64_t part)
{
	FILE *f = fopen(path, "w");
	uint64_t off = part, l, total = 0;
	unsigned i;

	cr_assert_not_null(f);
	fprintf(f, "{\"trimsim\":1,\"header\":{\"cmdline\":[\"test\"],\"devices\":[{\"dev\":\"7:250\","
		"\"fs\":\"xfs\",\"logical_block_size\":512,\"name\":\"loopT\",\"size\":%llu,"
		"\"partition_start\":%llu}],"
		"\"format\":\"trimsim\",\"host\":\"t\",\"kernel\":\"t\",\"recorder\":\"test\","
		"\"start_ns\":1000000,\"start_wall\":\"2026-11-29T00:00:00.000000000Z\",\"version\":1}}\n",
		(unsigned long long)dev_size, (unsigned long long)part);
	for (i = 0; i < n; i++) {
		l = vary ? len >> (2 * (i % 4)) : len;
		fprintf(f, "{\"t\":%llu,\"kind\":\"INTENT\",\"op\":\"discard\",\"dev\":\"7:250\",\"off\":%llu,"
			"\"len\":%llu,\"ino\":0,\"lat\":0,\"flags\":\"xfs\"}\n",
			1000000ull + i * 1000000ull, (unsigned long long)off, (unsigned long long)l);
		off += 2 * l;	/* a gap as long as the discard: never contiguous */
		total += l;
	}
	fprintf(f, "{\"footer\":{\"records\":%u,\"lost\":0,\"end_ns\":%llu}}\n", n, 2000000ull + n * 1000000ull);
	fclose(f);
	return total;
}

static uint64_t write_trace(const char *path, unsigned n, uint64_t len, uint64_t dev_size, bool vary)
{
	return write_trace_on(path, n, len, dev_size, vary, 0);
}

/* Runs trimsim replay: its exit status, its stderr into *err. */
static int replay(const char *args, char **err)
{
	char cmd[4096], *out = NULL;
	int rc;

	snprintf(cmd, sizeof(cmd), "%s replay %s", th_trimsim(), args);
	rc = th_run(cmd, &out, err);
	free(out);
	return rc;
}

static json_t *load(const char *path)
{
	json_error_t je;
	json_t *r = json_load_file(path, 0, &je);

	cr_assert_not_null(r, "%s: %s", path, je.text);
	return r;
}

static json_int_t jint(json_t *r, const char *a, const char *b, const char *c)
{
	json_t *v = json_object_get(json_object_get(r, a), b);

	if (c)
		v = json_object_get(v, c);
	cr_assert(json_is_integer(v), "%s.%s.%s missing", a, b, c ? c : "");
	return json_integer_value(v);
}

/* The chain stage's serial points in result r (as-recorded: replay/policies/chain.c). */
static json_int_t chain_points(json_t *r)
{
	size_t i;
	json_t *st;

	json_array_foreach(json_object_get(json_object_get(r, "policy"), "stages"), i, st)
		if (!strcmp(json_string_value(json_object_get(st, "name")), "chain"))
			return json_integer_value(json_object_get(st, "serial_points"));
	return -1;
}

struct e2e_case {
	char target[8];
	char dispatch[8];
};

static struct e2e_case e2e_cases[] = {
	{ "device", "uring" }, { "device", "threads" }, { "file", "uring" }, { "file", "threads" },
};

ParameterizedTestParameters(replay_dev, discards_free_blocks_qd4)
{
	return cr_make_param_array(struct e2e_case, e2e_cases, sizeof(e2e_cases) / sizeof(e2e_cases[0]));
}

ParameterizedTest(struct e2e_case *p, replay_dev, discards_free_blocks_qd4)
{
	const char *img = lv_path("disk.img"), *trace = lv_path("t.jsonl"), *res = lv_path("r.json");
	bool dev = !strcmp(p->target, "device");
	char args[2048], *err = NULL;
	long long before, after, freed;
	uint64_t bytes;
	json_t *r;
	int rc;

	lv_mkfile(img, 64);
	bytes = write_trace(trace, 32, 256 * KIB, 64 * MIB, false);
	/* the image holds data: a file target needs --destructive too */
	snprintf(args, sizeof(args), "'%s' -p 'source(layer=intent) | dispatch(qd=4)' --timing asap "
		 "-t %s:%s,dispatch=%s,qd=4 --destructive -q -o '%s'", trace, p->target,
		 dev ? lv_loop(img, NULL) : img, p->dispatch, res);
	before = lv_blocks(img);
	rc = replay(args, &err);
	cr_assert_eq(rc, 0, "replay %s: exit %d: %s", args, rc, err ? err : "");
	free(err);
	after = lv_blocks(img);
	freed = (before - after) * 512;
	r = load(res);
	cr_log_info("%s/%s: st_blocks %lld -> %lld (%lld bytes freed of %llu discarded), max in flight %lld",
		    p->target, p->dispatch, before, after, freed, (unsigned long long)bytes,
		    (long long)jint(r, "target", "max_inflight_seen", NULL));
	/* one extent-tree block per hole at most (see test_realdev.c) */
	cr_assert(freed <= (long long)bytes && freed >= (long long)bytes - 32 * 4096, "freed %lld", freed);
	cr_assert_eq(jint(r, "discard", "commands", NULL), 32);
	cr_assert_eq(jint(r, "discard", "errors", NULL), 0);
	cr_assert_eq(jint(r, "latency", "discard", "count"), 32, "a latency for every command");
	cr_assert_gt(jint(r, "latency", "discard", "min_ns"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "target"), "dispatch")),
			 p->dispatch);
	cr_assert_gt(jint(r, "target", "max_inflight_seen", NULL), 1, "QD 4 never overlapped");
	json_decref(r);
}

/*
 * A trace of a partition 1 MiB into its disk (records on the whole disk, as the recorder writes
 * them) onto a device of the partition's size: the partition's own layout, the first discard at
 * the device's byte 0 (target_env.base). Before, the device was refused as smaller than the
 * trace's extent, and a larger one got every discard 1 MiB past where the partition had it.
 */
Test(replay_dev, a_partitions_trace_onto_a_device_its_size)
{
	const char *img = lv_path("part.img"), *trace = lv_path("p.jsonl"), *res = lv_path("p.json");
	char args[2048], cmd[700], *err = NULL;
	uint64_t bytes;
	json_t *r;
	int rc;

	lv_mkfile(img, 62);	/* 16 discards of 2 MiB, every other 2 MiB: the last ends at the partition's end */
	bytes = write_trace_on(trace, 16, 2 * MIB, 62 * MIB, false, 1 * MIB);
	snprintf(args, sizeof(args), "'%s' -p 'source(layer=intent) | dispatch(qd=4)' --timing asap "
		 "--device %s --destructive -q -o '%s'", trace, lv_loop(img, NULL), res);
	rc = replay(args, &err);
	cr_assert_eq(rc, 0, "replay %s: exit %d: %s", args, rc, err ? err : "");
	free(err);
	r = load(res);
	cr_expect_eq(jint(r, "discard", "commands", NULL), 16);
	cr_expect_eq(jint(r, "discard", "errors", NULL), 0);
	json_decref(r);
	/* the first discard, disk bytes [1 MiB, 3 MiB), is the device's [0, 2 MiB): a hole at 0 */
	snprintf(cmd, sizeof(cmd), "python3 -c \"import os; f=os.open('%s', os.O_RDONLY); "
		 "print(os.lseek(f, 0, os.SEEK_HOLE), os.lseek(f, 0, os.SEEK_DATA))\"", img);
	cr_expect_str_eq(lv_sh(cmd), "0 2097152", "hole/data after the first discard (of %llu bytes)",
			 (unsigned long long)bytes);
}

/*
 * A recorded corpus trace (rm -rf of a tree on a 2 GiB loop device), as
 * recorded, onto a 2 GiB image whose blocks are all allocated (fallocate:
 * unwritten extents count in st_blocks): the blocks freed must be the unique
 * bytes the replay discarded, less at most what its own writes re-allocated.
 * XFS online discard, and btrfs discard=sync, whose 41 discards went out one
 * at a time: each is a serial point (41), sent after the device completed the one before.
 */
struct corpus_case {
	char target[8];
	char dispatch[8];
	char trace[32];
	long long points;	/* the chain's serial points, -1: not checked */
};

ParameterizedTestParameters(replay_dev, corpus_trace_frees_what_it_discards)
{
	static struct corpus_case c[] = {
		{ "device", "uring", "xfs-discard-rmtree", -1 }, { "device", "threads", "xfs-discard-rmtree", -1 },
		{ "file", "uring", "xfs-discard-rmtree", -1 }, { "device", "uring", "btrfs-discard-rmtree", 41 },
		{ "device", "threads", "btrfs-discard-rmtree", 41 },
	};

	return cr_make_param_array(struct corpus_case, c, sizeof(c) / sizeof(c[0]));
}

ParameterizedTest(struct corpus_case *p, replay_dev, corpus_trace_frees_what_it_discards)
{
	const char *img = lv_path("corpus.img"), *res = lv_path("c.json");
	bool dev = !strcmp(p->target, "device");
	char args[2048], cmd[700], *err = NULL;
	long long before, after, freed, unique, written;
	json_t *r;
	int rc;

	snprintf(cmd, sizeof(cmd), "fallocate -l 2G '%s'", img);
	lv_sh(cmd);
	snprintf(args, sizeof(args), "'%s/traces/corpus/%s.tsim' -p as-recorded --timing asap "
		 "-t %s:%s,dispatch=%s %s -q -o '%s'", th_src(), p->trace, p->target, dev ? lv_loop(img, NULL) : img,
		 p->dispatch, dev ? "--destructive" : "", res);
	before = lv_blocks(img);
	rc = replay(args, &err);
	cr_assert_eq(rc, 0, "replay %s: exit %d: %s", args, rc, err ? err : "");
	free(err);
	after = lv_blocks(img);
	r = load(res);
	freed = (before - after) * 512;
	unique = jint(r, "discard", "unique_bytes", NULL);
	written = jint(r, "target", "write_bytes", NULL);
	cr_log_info("%s, %s/%s: %lld discards, %lld unique bytes, st_blocks freed %lld bytes, "
		    "%lld bytes written, max in flight %lld", p->trace, p->target, p->dispatch,
		    (long long)jint(r, "discard", "commands", NULL), unique, freed, written,
		    (long long)jint(r, "target", "max_inflight_seen", NULL));
	cr_assert_gt(unique, 100 * (long long)MIB);
	cr_assert_eq(jint(r, "discard", "errors", NULL), 0);
	cr_assert_eq(jint(r, "latency", "discard", "count"), jint(r, "discard", "commands", NULL));
	cr_assert(freed <= unique && freed >= unique - written - (long long)MIB,
		  "freed %lld, unique %lld, written %lld", freed, unique, written);
	if (p->points >= 0)
		cr_expect_eq(chain_points(r), p->points, "%s: serial points", p->trace);
	json_decref(r);
}

enum cli_refuse { CR_NO_DESTRUCTIVE, CR_MOUNTED, CR_TOO_SMALL, CR_NOT_BLOCK };

struct cli_case {
	char name[24];
	enum cli_refuse kind;
};

static struct cli_case cli_cases[] = {
	{ "no --destructive", CR_NO_DESTRUCTIVE }, { "mounted", CR_MOUNTED },
	{ "too small", CR_TOO_SMALL }, { "not a block device", CR_NOT_BLOCK },
};

ParameterizedTestParameters(replay_dev, refusals_one_line_nothing_touched)
{
	return cr_make_param_array(struct cli_case, cli_cases, sizeof(cli_cases) / sizeof(cli_cases[0]));
}

ParameterizedTest(struct cli_case *p, replay_dev, refusals_one_line_nothing_touched)
{
	const char *img = lv_path("disk.img"), *trace = lv_path("t.jsonl"), *dev;
	char args[2048], want[1024], sum0[64], md5cmd[600], *err = NULL;
	int rc;

	lv_mkfile(img, 16);
	dev = lv_loop(img, NULL);
	write_trace(trace, 8, p->kind == CR_TOO_SMALL ? 4 * MIB : 64 * KIB, 64 * MIB, false);
	switch (p->kind) {
	case CR_NO_DESTRUCTIVE:
		snprintf(args, sizeof(args), "'%s' -p passthrough --device %s -q", trace, dev);
		snprintf(want, sizeof(want), "%s: replaying to a block device destroys its data; "
			 "add --destructive to allow it", dev);
		break;
	case CR_MOUNTED:
		snprintf(args, sizeof(args), "mkfs.ext4 -q -F %s >/dev/null", dev);
		lv_sh(args);
		lv_mount(dev, lv_path("mnt"));
		snprintf(args, sizeof(args), "'%s' -p passthrough --device %s --destructive -q", trace, dev);
		snprintf(want, sizeof(want), "%s: mounted on %s; refusing to touch it", dev, lv_path("mnt"));
		break;
	case CR_TOO_SMALL:	/* 8 x 4 MiB every other 4 MiB: the trace reaches 60 MiB */
		snprintf(args, sizeof(args), "'%s' -p passthrough --device %s --destructive -q", trace, dev);
		snprintf(want, sizeof(want), "%s: 16 MiB is smaller than the trace's extent (60 MiB); refusing", dev);
		break;
	case CR_NOT_BLOCK:
		snprintf(args, sizeof(args), "'%s' -p passthrough --device '%s' --destructive -q", trace, img);
		snprintf(want, sizeof(want), "%s: not a block device (use --file for a regular file)", img);
		break;
	}
	snprintf(md5cmd, sizeof(md5cmd), "md5sum < '%s'", img);
	snprintf(sum0, sizeof(sum0), "%s", lv_sh(md5cmd));
	rc = replay(args, &err);
	cr_assert_neq(rc, 0, "%s: replay succeeded", p->name);
	cr_assert_not_null(err);
	cr_assert_not_null(strstr(err, want), "%s: want '%s' in: %s", p->name, want, err);
	cr_assert_eq(th_lines(err), 1, "%s: one line, got: %s", p->name, err);
	free(err);
	cr_assert_str_eq(lv_sh(md5cmd), sum0, "%s: the device changed", p->name);
}

/*
 * Calibrate a slow-TRIM device (slowfs: 5 ms per discard, the loop worker
 * serving one at a time), replay a trace of mixed-size discards to it and to
 * the calibrated model: the model's total discard time must be within a factor
 * of two of the measured one. The device's own cost dominates (48 x 5 ms), so
 * a busy machine moves both figures little; on a loop device over the host's
 * disk the figure was the disk's mood of the moment, and the test failed under
 * load.
 */
Test(replay_dev, calibrated_profile_predicts_replay)
{
	char trace[600], prof[600], real[600], model[600], args[2048], *err = NULL;
	const char *dev;
	double t_real, t_model;
	json_t *r;
	int rc;

	/* lv_path() rotates 4 buffers: five paths need copies (model.json used to overwrite disk.img's) */
	snprintf(trace, sizeof(trace), "%s", lv_path("t.jsonl"));
	snprintf(prof, sizeof(prof), "%s", lv_path("p.json"));
	snprintf(real, sizeof(real), "%s", lv_path("real.json"));
	snprintf(model, sizeof(model), "%s", lv_path("model.json"));
	dev = lv_slow_loop(16, "160M", 5);	/* holes only: nothing is written */
	snprintf(args, sizeof(args), "%s calibrate --device %s --destructive --quick --max-size 4M -o '%s' 2>&1",
		 th_trimsim(), dev, prof);
	lv_sh(args);
	write_trace(trace, 48, 4 * MIB, 160 * MIB, true);	/* reaches 127.5 MiB */
	snprintf(args, sizeof(args), "'%s' -p passthrough --device %s --destructive -q -o '%s'", trace, dev, real);
	rc = replay(args, &err);
	cr_assert_eq(rc, 0, "%s", err ? err : "");
	free(err);
	err = NULL;
	r = load(real);
	t_real = (double)jint(r, "latency", "discard", "sum_ns");
	json_decref(r);
	snprintf(args, sizeof(args), "'%s' -p passthrough -M '%s' -q -o '%s'", trace, prof, model);
	rc = replay(args, &err);
	cr_assert_eq(rc, 0, "%s", err ? err : "");
	free(err);
	r = load(model);
	t_model = (double)jint(r, "latency", "discard", "sum_ns");
	json_decref(r);
	cr_log_info("48 discards (4 KiB .. 4 MiB) on slowfs (5 ms): measured %.1f ms, calibrated model %.1f ms (x%.2f)",
		    t_real / 1e6, t_model / 1e6, t_model / t_real);
	cr_assert(t_model <= 2 * t_real && t_model >= t_real / 2, "model %.1f ms vs real %.1f ms",
		  t_model / 1e6, t_real / 1e6);
}

/*
 * Issue 16: the device target and a calibrated model dispatch at the same
 * depth. A slow-TRIM device (slowfs, 5 ms per discard; the loop worker serves
 * one at a time) gets a burst of 64 discards; the device target keeps 32 in
 * flight, so each waits behind the others. The calibrated profile records the
 * depth the device was measured at (32, with channels 1): the model queues the
 * same way, and its per-command p50 is within 2x of the device's (a profile at
 * qd 1 had 2.3 ms against 61-69 ms).
 */
Test(replay_dev, calibrated_model_queues_like_the_device)
{
	char trace[600], prof[600], real[600], model[600], args[2048], *err = NULL;
	const char *dev;
	json_t *r, *p;
	double p_real, p_model;
	json_error_t je;
	FILE *f;
	int rc;

	snprintf(trace, sizeof(trace), "%s", lv_path("burst.jsonl"));
	snprintf(prof, sizeof(prof), "%s", lv_path("p.json"));
	snprintf(real, sizeof(real), "%s", lv_path("real.json"));
	snprintf(model, sizeof(model), "%s", lv_path("model.json"));
	dev = lv_slow_loop(96, "64M", 5);
	snprintf(args, sizeof(args), "%s calibrate --device %s --destructive --quick --max-size 1M -o '%s' 2>&1",
		 th_trimsim(), dev, prof);
	lv_sh(args);
	p = json_load_file(prof, 0, &je);
	cr_assert_not_null(p, "%s", je.text);
	cr_assert_eq(json_integer_value(json_object_get(p, "qd")), 32, "the profile's qd is the dispatch depth");
	json_decref(p);
	/* 64 discards of 64 KiB, every other 64 KiB, all at one instant */
	f = fopen(trace, "w");
	cr_assert_not_null(f);
	fprintf(f, "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"devices\":[{\"dev\":\"7:250\","
		"\"name\":\"loopT\",\"size\":67108864,\"logical_block_size\":512}]}}\n");
	for (unsigned i = 0; i < 64; i++)
		fprintf(f, "{\"t\":1000000,\"kind\":\"INTENT\",\"op\":\"discard\",\"dev\":\"7:250\",\"off\":%u,"
			"\"len\":65536,\"ino\":0,\"lat\":0,\"flags\":\"\"}\n", i * 131072);
	fprintf(f, "{\"footer\":{\"records\":64,\"lost\":0,\"end_ns\":2000000}}\n");
	fclose(f);
	snprintf(args, sizeof(args), "'%s' -p 'source(intent)' --device %s --destructive -q -o '%s'", trace, dev, real);
	rc = replay(args, &err);
	cr_assert_eq(rc, 0, "%s", err ? err : "");
	free(err);
	err = NULL;
	snprintf(args, sizeof(args), "'%s' -p 'source(intent)' -M '%s' -q -o '%s'", trace, prof, model);
	rc = replay(args, &err);
	cr_assert_eq(rc, 0, "%s", err ? err : "");
	free(err);
	r = load(real);
	p_real = (double)jint(r, "latency", "discard", "p50_ns");
	cr_assert_eq(jint(r, "target", "qd", NULL), 32);
	json_decref(r);
	r = load(model);
	p_model = (double)jint(r, "latency", "discard", "p50_ns");
	json_decref(r);
	cr_log_info("64 discards at once on slowfs (5 ms): p50 per command: device %.1f ms, calibrated model %.1f ms",
		    p_real / 1e6, p_model / 1e6);
	cr_assert(p_model <= 2 * p_real && p_model >= p_real / 2, "model p50 %.1f ms vs device %.1f ms",
		  p_model / 1e6, p_real / 1e6);
}

/*
 * The recorded command's own discard behind the transaction kthread's, onto a real
 * slow-TRIM device (tests/report/commit_behind_kthread.jsonl; tests/report/test_own_wait.c
 * has the same on a fixed model): five serial discards not flagged, then the command's,
 * flagged `workload`, each 2 MiB apart (the loop driver merges none), on slowfs at 20 ms
 * a discard. compare's as-recorded cell: the chain sends each after the previous has
 * completed on the device, and the workload ends when the command's own completes, after
 * the other five: at least 6 x 20 ms past the start, where the trace ended at 6.1 ms and
 * the none cell with its write.
 * Before, the added time was that discard's own [submit, done): one 20 ms.
 */
Test(replay_dev, the_commands_commit_waits_on_a_slow_trim_device)
{
	char trace[600], out[600], cmd[4096], *err = NULL, *said = NULL;
	const char *dev;
	json_t *r, *c, *m, *v;
	size_t i, at = 0;

	snprintf(trace, sizeof(trace), "%s/tests/report/commit_behind_kthread.jsonl", th_src());
	snprintf(out, sizeof(out), "%s", lv_path("c.json"));
	dev = lv_slow_loop(80, "64M", 20);
	snprintf(cmd, sizeof(cmd), "%s compare '%s' -p as-recorded,none -M device:%s --destructive --jobs 1 -q --json -o '%s'",
		 th_trimsim(), trace, dev, out);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s: %s", cmd, err ? err : "");
	free(err);
	r = load(out);
	c = json_array_get(json_object_get(r, "cells"), 0);
	m = json_object_get(c, "metrics");
	said = calloc(1, 8192);
	json_array_foreach(json_object_get(r, "verdicts"), i, v)
		if (at < 8192)
			at += (size_t)snprintf(said + at, 8192 - at, "%s\n", json_string_value(v));
	cr_log_info("as-recorded on slowfs (20 ms a discard): added %.1f ms, the command's own discard %.1f ms, "
		    "workload end %.1f ms", json_integer_value(json_object_get(m, "added_ns")) / 1e6,
		    json_integer_value(json_object_get(m, "discard_wait_ns")) / 1e6,
		    json_integer_value(json_object_get(m, "workload_ns")) / 1e6);
	cr_expect_str_eq(json_string_value(json_object_get(c, "policy")), "as-recorded");
	cr_expect_eq(json_integer_value(json_object_get(m, "discard_cmds")), 6);
	cr_expect_geq(json_integer_value(json_object_get(m, "workload_ns")), 6 * 20 * 1000000);
	/* against the none cell's end (its write's completion, however slow the loop and FUSE are) */
	cr_expect_eq(json_integer_value(json_object_get(m, "added_ns")),
		     json_integer_value(json_object_get(m, "workload_ns")) -
			     json_integer_value(json_object_get(
				     json_object_get(json_array_get(json_object_get(r, "cells"), 1), "metrics"),
				     "workload_ns")));
	cr_expect_geq(json_integer_value(json_object_get(m, "added_ns")), 5 * 20 * 1000000);
	cr_expect_lt(json_integer_value(json_object_get(m, "discard_wait_ns")), 3 * 20 * 1000000,
		     "the command's own discard alone, [submit, done)");
	cr_expect_str_eq(json_string_value(json_object_get(c, "wait_basis")), "synchronous");
	cr_expect(strstr(said, "it ends when the last completes"), "%s", said);
	free(said);
	json_decref(r);
}
