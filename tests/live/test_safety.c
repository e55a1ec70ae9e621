// SPDX-License-Identifier: GPL-2.0
/*
 * Device safety through every command (issue 15, items 5-9): one routine
 * (rd_check_device / rd_check_file) serves replay, compare and calibrate.
 * Each refusal is exactly one line on stderr (with -q too), a non-zero exit,
 * and the backing image's bytes unchanged:
 *   - compare checks the trace's extent (a 1 GiB-extent trace destroyed a
 *     64 MiB device, exit 0), --destructive and mounts before any cell runs;
 *   - a loop device stacked on the target and mounted (loop devices have no
 *     holders/): replay, compare and calibrate refuse;
 *   - --file: a loop device's backing file, an active swap file, and a file
 *     with data without --destructive are refused; a sparse one is not;
 *   - failed device commands (ENOSPC) make replay and compare exit non-zero
 *     with one line, and the result counts them per errno; failed discards free nothing;
 *   - compare of a model against a device at another queue depth warns.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/live/live.h"

#define MIB (1024ull * 1024)

static char swapfile[600];

static void teardown(void)
{
	char cmd[700];

	if (swapfile[0]) {
		snprintf(cmd, sizeof(cmd), "swapoff '%s' 2>/dev/null", swapfile);
		th_run(cmd, NULL, NULL);
		swapfile[0] = '\0';
	}
	lv_fini();
}

TestSuite(safety, .init = lv_init, .fini = teardown, .timeout = 180);

/* n 64 KiB INTENT discards, every other 64 KiB from off, on a traced device of dev_size; then maybe writes. */
static void write_trace(const char *path, uint64_t off, unsigned n, uint64_t dev_size, unsigned writes_mib)
{
	FILE *f = fopen(path, "w");
	unsigned recs = 0;

	cr_assert_not_null(f);
	fprintf(f, "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"devices\":[{\"dev\":\"7:250\","
		"\"name\":\"loopT\",\"fs\":\"xfs\",\"size\":%llu,\"logical_block_size\":512,\"physical_block_size\":4096,"
		"\"discard_granularity\":4096,\"discard_max_bytes\":4294967296,\"max_discard_segments\":1}]}}\n",
		(unsigned long long)dev_size);
	for (unsigned i = 0; i < writes_mib; i++, recs++)
		fprintf(f, "{\"t\":%u,\"kind\":\"ISSUE\",\"op\":\"write\",\"dev\":\"7:250\",\"off\":%llu,"
			"\"len\":1048576,\"ino\":0,\"lat\":0,\"flags\":\"\"}\n", 500000 + i * 100,
			(unsigned long long)i * MIB);
	for (unsigned i = 0; i < n; i++, recs++)
		fprintf(f, "{\"t\":%u,\"kind\":\"INTENT\",\"op\":\"discard\",\"dev\":\"7:250\",\"off\":%llu,"
			"\"len\":65536,\"ino\":0,\"lat\":0,\"flags\":\"xfs\"}\n", 1000000 + i * 1000,
			(unsigned long long)(off + i * 131072));
	fprintf(f, "{\"footer\":{\"records\":%u,\"lost\":0,\"end_ns\":%u}}\n", recs, 2000000 + n * 1000);
	fclose(f);
}

static const char *md5(const char *path)
{
	static char buf[2][64];
	static int i;
	char cmd[700];

	i = !i;
	snprintf(cmd, sizeof(cmd), "md5sum < '%s'", path);
	snprintf(buf[i], sizeof(buf[i]), "%s", lv_sh(cmd));
	return buf[i];
}

/* Runs a trimsim command line; its exit status, stderr in *err. */
static int trimsim(const char *args, char **err)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "%s %s", th_trimsim(), args);
	return th_run(cmd, NULL, err);
}

/* A refusal: non-zero exit, stderr exactly want + "\n", img unchanged. */
static void expect_refusal(const char *name, const char *args, const char *want, const char *img)
{
	char sum[64], line[2048], *err = NULL;
	int rc;

	snprintf(sum, sizeof(sum), "%s", md5(img));
	rc = trimsim(args, &err);
	snprintf(line, sizeof(line), "%s\n", want);
	cr_expect_neq(rc, 0, "%s: exit 0", name);
	cr_expect_str_eq(err ? err : "", line, "%s", name);
	cr_expect_str_eq(md5(img), sum, "%s: the image changed", name);
	free(err);
}

/* ---- compare refuses before any cell runs (items 5 and 8) ---- */

enum cmp_kind { CK_EXTENT, CK_NO_DESTRUCTIVE, CK_MOUNTED };

struct cmp_case {
	char name[24];
	enum cmp_kind kind;
	bool quiet;
};

ParameterizedTestParameters(safety, compare_refuses_in_one_line)
{
	static struct cmp_case c[] = {
		{ "extent", CK_EXTENT, false }, { "extent -q", CK_EXTENT, true },
		{ "no --destructive", CK_NO_DESTRUCTIVE, false }, { "no --destructive -q", CK_NO_DESTRUCTIVE, true },
		{ "mounted -q", CK_MOUNTED, true },
	};

	return cr_make_param_array(struct cmp_case, c, sizeof(c) / sizeof(c[0]));
}

ParameterizedTest(struct cmp_case *p, safety, compare_refuses_in_one_line)
{
	char img[600], trace[600], args[2048], want[1024];
	const char *dev;

	snprintf(img, sizeof(img), "%s", lv_path("disk.img"));	/* lv_path's buffers rotate */
	snprintf(trace, sizeof(trace), "%s", lv_path("t.jsonl"));

	lv_mkfile(img, 64);
	dev = lv_loop(img, NULL);
	/* the extent case: 8 discards ending at 1 GiB on a 2 GiB traced device */
	write_trace(trace, p->kind == CK_EXTENT ? 1024 * MIB - 7 * 131072 - 65536 : 0, 8, 2048 * MIB, 0);
	if (p->kind == CK_MOUNTED) {
		snprintf(args, sizeof(args), "mkfs.ext4 -q -F %s >/dev/null && sync", dev);
		lv_sh(args);
		snprintf(args, sizeof(args), "mkdir -p '%s' && mount -o ro %s '%s'", lv_path("mnt"), dev, lv_path("mnt"));
		lv_sh(args);
		lv_push(LV_MOUNT, lv_path("mnt"));
	}
	snprintf(args, sizeof(args), "compare '%s' -p passthrough,none -M nvme,device:%s %s %s", trace, dev,
		 p->kind == CK_NO_DESTRUCTIVE ? "" : "--destructive", p->quiet ? "-q" : "");
	switch (p->kind) {
	case CK_EXTENT:
		snprintf(want, sizeof(want), "trimsim compare: %s: 64 MiB is smaller than the trace's extent "
			 "(1 GiB); refusing", dev);
		break;
	case CK_NO_DESTRUCTIVE:
		snprintf(want, sizeof(want), "trimsim compare: %s: replaying to a block device destroys its data; "
			 "add --destructive to allow it", dev);
		break;
	case CK_MOUNTED:
		snprintf(want, sizeof(want), "trimsim compare: %s: mounted on %s; refusing to touch it", dev,
			 lv_path("mnt"));
		break;
	}
	expect_refusal(p->name, args, want, img);
}

/* ---- a loop device stacked on the target (item 6) ---- */

struct stack_case {
	char name[16];
	char args[80];	/* printf format: the trace (calibrate: the output), then the device */
	bool mounted;
};

ParameterizedTestParameters(safety, stacked_loop_device)
{
	static struct stack_case c[] = {
		{ "replay", "replay %s -p passthrough --device %s --destructive -q", true },
		{ "compare", "compare %s -p passthrough -M device:%s --destructive -q", true },
		{ "calibrate", "calibrate --quick -o %s --device %s --destructive", true },
		{ "replay", "replay %s -p passthrough --device %s --destructive -q", false },
	};

	return cr_make_param_array(struct stack_case, c, sizeof(c) / sizeof(c[0]));
}

ParameterizedTest(struct stack_case *p, safety, stacked_loop_device)
{
	char img[600], trace[600], cmd[2048], args[2048], want[1024], quoted[700];
	const char *a, *b;

	snprintf(img, sizeof(img), "%s", lv_path("disk.img"));
	snprintf(trace, sizeof(trace), "%s", lv_path("t.jsonl"));

	lv_mkfile(img, 64);
	a = lv_loop(img, NULL);
	b = lv_loop(a, NULL);	/* loopB's backing file is loopA: no holders/ link, no O_EXCL claim */
	write_trace(trace, 0, 8, 64 * MIB, 0);
	if (p->mounted) {
		snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F %s >/dev/null && sync && mkdir -p '%s' && mount -o ro %s '%s'",
			 b, lv_path("mnt"), b, lv_path("mnt"));
		lv_sh(cmd);
		lv_push(LV_MOUNT, lv_path("mnt"));
		snprintf(want, sizeof(want), "trimsim %s: %s: backs %s (loop/backing_file), which is mounted on %s; "
			 "refusing to touch it", p->name, a, b + 5, lv_path("mnt"));
	} else {
		snprintf(want, sizeof(want), "trimsim %s: %s: backs %s (loop/backing_file); refusing to touch it",
			 p->name, a, b + 5);
	}
	snprintf(quoted, sizeof(quoted), "'%s'", strcmp(p->name, "calibrate") ? trace : lv_path("p.json"));
	snprintf(args, sizeof(args), p->args, quoted, a);
	expect_refusal(p->name, args, want, img);
}

/* ---- --file (item 7) ---- */

enum file_kind { FK_LOOP_BACKING, FK_SWAP, FK_DATA, FK_SPARSE };

struct file_case {
	char name[24];
	enum file_kind kind;
};

ParameterizedTestParameters(safety, file_target)
{
	static struct file_case c[] = {
		{ "loop backing, mounted", FK_LOOP_BACKING }, { "active swap file", FK_SWAP },
		{ "data, no --destructive", FK_DATA }, { "sparse", FK_SPARSE },
	};

	return cr_make_param_array(struct file_case, c, sizeof(c) / sizeof(c[0]));
}

ParameterizedTest(struct file_case *p, safety, file_target)
{
	char img[600], trace[600], cmd[2048], args[2048], want[1024], *err = NULL;
	const char *dev;
	int rc;

	snprintf(img, sizeof(img), "%s", lv_path("f.img"));
	snprintf(trace, sizeof(trace), "%s", lv_path("t.jsonl"));

	write_trace(trace, 0, 8, 64 * MIB, 0);
	snprintf(args, sizeof(args), "replay '%s' -p passthrough --file '%s' %s -q", trace, img,
		 p->kind == FK_DATA || p->kind == FK_SPARSE ? "" : "--destructive");
	switch (p->kind) {
	case FK_LOOP_BACKING:
		lv_mkfile(img, 64);
		dev = lv_loop(img, NULL);
		snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F %s >/dev/null && sync && mkdir -p '%s' && mount -o ro %s '%s'",
			 dev, lv_path("mnt"), dev, lv_path("mnt"));
		lv_sh(cmd);
		lv_push(LV_MOUNT, lv_path("mnt"));
		snprintf(want, sizeof(want), "trimsim replay: %s: the backing file of %s (loop/backing_file), which is "
			 "mounted on %s; refusing to touch it", img, dev + 5, lv_path("mnt"));
		break;
	case FK_SWAP:
		/* on the test directory's filesystem (tmpfs cannot hold swap) */
		snprintf(cmd, sizeof(cmd), "dd if=/dev/zero of='%s' bs=1M count=16 status=none && chmod 600 '%s' && "
			 "mkswap -q '%s' >/dev/null", img, img, img);
		lv_sh(cmd);
		snprintf(cmd, sizeof(cmd), "swapon '%s'", img);
		if (th_run(cmd, NULL, NULL))
			lv_skip("swapon %s failed on this system", img);
		snprintf(swapfile, sizeof(swapfile), "%s", img);
		snprintf(want, sizeof(want), "trimsim replay: %s: in use as swap; refusing to touch it", img);
		break;
	case FK_DATA:
		lv_mkfile(img, 1);
		snprintf(want, sizeof(want), "trimsim replay: %s: holds data (1048576 bytes, not all holes), which the "
			 "replay overwrites; add --destructive to allow it", img);
		break;
	case FK_SPARSE:
		snprintf(cmd, sizeof(cmd), "truncate -s 64M '%s'", img);
		lv_sh(cmd);
		rc = trimsim(args, &err);
		cr_assert_eq(rc, 0, "a sparse file needs no --destructive: %s", err ? err : "");
		free(err);
		return;
	}
	expect_refusal(p->name, args, want, img);
}

/* ---- failed device commands (item 9) ---- */

Test(safety, failed_commands_fail_the_run)
{
	char img[600], trace[600], res[600], args[2048], want[2048], *err = NULL;
	json_t *r, *by;
	json_int_t failed;
	json_error_t je;
	int rc;

	snprintf(trace, sizeof(trace), "%s", lv_path("t.jsonl"));
	snprintf(res, sizeof(res), "%s", lv_path("r.json"));
	/* 8 MiB of writes into a 2 MiB filesystem: ENOSPC */
	lv_tmpfs(lv_path("small"), 2);
	snprintf(img, sizeof(img), "%s/f.img", lv_path("small"));
	write_trace(trace, 16 * MIB, 4, 64 * MIB, 8);
	snprintf(args, sizeof(args), "replay '%s' -p passthrough --file '%s' -q -o '%s'", trace, img, res);
	rc = trimsim(args, &err);
	cr_assert_eq(rc, 1, "exit %d: %s", rc, err ? err : "");
	r = json_load_file(res, 0, &je);
	cr_assert_not_null(r, "the result is still written: %s", je.text);
	by = json_object_get(json_object_get(r, "foreground"), "errors_by_errno");
	failed = json_integer_value(json_object_get(by, "ENOSPC"));
	cr_assert_gt(failed, 0, "errors_by_errno: %s", json_dumps(by, 0));
	cr_assert_eq(json_object_size(by), 1);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(r, "foreground"), "errors")), failed);
	snprintf(want, sizeof(want), "trimsim replay: %s: %lld of 12 commands failed on file:%s (ENOSPC %lld)\n",
		 trace, (long long)failed, img, (long long)failed);
	cr_assert_str_eq(err, want);
	json_decref(r);
	free(err);
	err = NULL;
	/* compare says it too, in one line per cell, and fails */
	unlink(img);
	snprintf(args, sizeof(args), "compare '%s' -p passthrough -M file:%s -q", trace, img);
	rc = trimsim(args, &err);
	cr_assert_eq(rc, 1, "exit %d: %s", rc, err ? err : "");
	snprintf(want, sizeof(want), "trimsim compare: %s x passthrough on file:%s: ", trace, img);
	cr_assert_eq(strncmp(err, want, strlen(want)), 0, "%s", err);
	cr_assert_not_null(strstr(err, " commands failed (ENOSPC "), "%s", err);
	cr_assert_eq(th_lines(err), 1, "%s", err);
	free(err);
}

/*
 * A discard that failed unmapped nothing: ramfs has no fallocate, so every hole
 * punch fails with EOPNOTSUPP, and device_freed_bytes must stay 0 (the target
 * counted each discard's granules at submit: 262144 bytes "unmapped" by 4
 * failed discards).
 */
Test(safety, failed_discards_free_nothing)
{
	char img[700], trace[600], res[600], args[2048], cmd[1400], *err = NULL;
	const char *dir = lv_path("ram");
	json_t *r, *d;
	json_error_t je;
	int rc;

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && mount -t ramfs trimsim-test '%s'", dir, dir);
	lv_sh(cmd);
	lv_push(LV_MOUNT, dir);
	snprintf(img, sizeof(img), "%s/f.img", dir);
	snprintf(trace, sizeof(trace), "%s", lv_path("t.jsonl"));
	snprintf(res, sizeof(res), "%s", lv_path("r.json"));
	write_trace(trace, 0, 4, 1 * MIB, 0);
	snprintf(args, sizeof(args), "replay '%s' -p passthrough --file '%s' -q -o '%s'", trace, img, res);
	rc = trimsim(args, &err);
	cr_assert_eq(rc, 1, "exit %d: %s", rc, err ? err : "");
	free(err);
	r = json_load_file(res, 0, &je);
	cr_assert_not_null(r, "%s", je.text);
	d = json_object_get(r, "discard");
	cr_assert_eq(json_integer_value(json_object_get(d, "commands")), 4);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(d, "errors_by_errno"), "EOPNOTSUPP")), 4,
		     "%s", json_dumps(d, 0));
	cr_assert_eq(json_integer_value(json_object_get(d, "device_freed_bytes")), 0);
	json_decref(r);
}

/* ---- queue depths (issue 16, item 3) ---- */

Test(safety, compare_warns_when_queue_depths_differ)
{
	char img[600], trace[600], args[2048], *err = NULL;
	const char *dev;
	int rc;

	snprintf(img, sizeof(img), "%s", lv_path("disk.img"));
	snprintf(trace, sizeof(trace), "%s", lv_path("t.jsonl"));

	lv_mkfile(img, 16);
	dev = lv_loop(img, NULL);
	write_trace(trace, 0, 4, 16 * MIB, 0);
	/* sdcard's profile has qd 1, the device target 32 */
	snprintf(args, sizeof(args), "compare '%s' -p passthrough -M sdcard,device:%s --destructive -q",
		 trace, dev);
	rc = trimsim(args, &err);
	cr_assert_eq(rc, 0, "%s", err ? err : "");
	cr_assert_not_null(strstr(err, "trimsim compare: warning: models and real targets dispatch at different "
				       "queue depths (sdcard QD 1, device:"), "%s", err);
	cr_assert_not_null(strstr(err, " QD 32): their latencies are not comparable; give --qd N\n"), "%s", err);
	free(err);
	err = NULL;
	snprintf(args, sizeof(args), "compare '%s' -p passthrough -M sdcard,device:%s --destructive --qd 4 -q",
		 trace, dev);
	rc = trimsim(args, &err);
	cr_assert_eq(rc, 0, "%s", err ? err : "");
	cr_assert_null(strstr(err, "warning"), "%s", err);
	free(err);
}
