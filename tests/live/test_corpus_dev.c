// SPDX-License-Identifier: GPL-2.0
/*
 * Every corpus trace through every applicable preset onto a real target
 * (issue 14): a loop device and a regular file, in trace timing at --speed
 * 100000, so the target always lags the trace and completions arrive after
 * the records that follow them (the case that made xfs-cil fail with "emitted
 * a request ... before now"). Not --timing asap: there a policy's own delays
 * stay in real time (btrfs-async holds frees 120 s, several times over). Applicable is compare's own rule: the
 * cells `trimsim compare` runs rather than marking n/a (the policy's source
 * layer has records in the trace). Every replay exits 0 with no failed
 * command and nothing on stderr but the DESTROYING line.
 *
 * And the device is released on an early return: a replay that fails with
 * commands in flight on a slow device leaves it free for an O_EXCL open at once
 * (it stayed claimed until io_uring's exit work reaped them).
 *
 * The sweep runs the plain binary ($TRIMSIM_PLAIN; ASan would triple its time
 * without exercising anything the sanitized unit suites do not) on a tmpfs,
 * so the device's speed is the kernel's, not the disk's.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/live/live.h"
#include "replay/policies/policy.h"
#include "traces/trace.h"

#define MIB (1024ull * 1024)

TestSuite(corpus_dev, .init = lv_init, .fini = lv_fini, .timeout = 900);

static const char *plain(void)
{
	const char *p = getenv("TRIMSIM_PLAIN");

	return p && *p ? p : th_trimsim();
}

/* The largest replayed device of the corpus: the loop device must hold every trace's extent. */
static uint64_t largest_device(glob_t *g)
{
	uint64_t max = 0;
	char err[512];

	for (size_t i = 0; i < g->gl_pathc; i++) {
		struct trace_reader *r = trace_reader__open(g->gl_pathv[i], err, sizeof(err));
		const struct ts_device *d;

		cr_assert_not_null(r, "%s", err);
		d = trace_reader__replay_device(r);
		cr_assert(d && d->size, "%s: no replay device with a size", g->gl_pathv[i]);
		max = d->size > max ? d->size : max;
		trace_reader__close(r);
	}
	return max;
}

/* compare over every trace and preset on a model: its cells with status "ok" are the applicable ones. */
static json_t *applicable_cells(glob_t *g)
{
	size_t len = 0, cap = 1 << 16;
	char *cmd = malloc(cap), *err = NULL;
	const char *out = lv_path("cells.json");
	json_error_t je;
	json_t *root;
	int rc;

	cr_assert_not_null(cmd);
	len += (size_t)snprintf(cmd + len, cap - len, "%s compare", plain());
	for (size_t i = 0; i < g->gl_pathc; i++)
		len += (size_t)snprintf(cmd + len, cap - len, " '%s'", g->gl_pathv[i]);
	len += (size_t)snprintf(cmd + len, cap - len, " -p '");
	for (const struct policy_preset *p = policy_presets; p->name; p++)
		len += (size_t)snprintf(cmd + len, cap - len, "%s%s", p == policy_presets ? "" : ",", p->name);
	snprintf(cmd + len, cap - len, "' -M nvme -j 2 -q -o '%s'", out);
	rc = th_run(cmd, NULL, &err);
	cr_assert_eq(rc, 0, "compare on a model: exit %d: %s", rc, err ? err : "");
	free(err);
	free(cmd);
	root = json_load_file(out, 0, &je);
	cr_assert_not_null(root, "%s: %s", out, je.text);
	return root;
}

/* stderr without the line every device replay prints (it must be the only one). */
static void expect_quiet(const char *what, const char *err, bool device)
{
	const char *e = err ? err : "";

	if (device) {
		cr_assert_eq(strncmp(e, "trimsim: DESTROYING data on ", 28), 0, "%s: stderr: %s", what, e);
		e = strchr(e, '\n') ? strchr(e, '\n') + 1 : "";
	}
	cr_assert_str_empty(e, "%s: stderr: %s", what, e);
}

static void replay_cell(const char *trace, const char *preset, const char *target, bool device, unsigned *n)
{
	char cmd[4096], what[600], *err = NULL;
	const char *res = lv_path("r.json");
	json_error_t je;
	json_t *r;
	int rc;

	snprintf(what, sizeof(what), "%s x %s on %s", strrchr(trace, '/') + 1, preset, device ? "device" : "file");
	snprintf(cmd, sizeof(cmd), "%s replay '%s' -p '%s' %s %s -q -o '%s'", plain(), trace, preset, target,
		 "--speed 100000", res);
	rc = th_run(cmd, NULL, &err);
	cr_assert_eq(rc, 0, "%s: exit %d: %s", what, rc, err ? err : "");
	expect_quiet(what, err, device);
	free(err);
	r = json_load_file(res, 0, &je);
	cr_assert_not_null(r, "%s: %s", what, je.text);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(r, "discard"), "errors")), 0, "%s", what);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(r, "foreground"), "errors")), 0, "%s", what);
	json_decref(r);
	(*n)++;
}

Test(corpus_dev, every_trace_every_applicable_preset)
{
	char pattern[1024], img[600], target[700], file[700], cmd[800];
	const char *dev;
	unsigned na = 0, dev_runs = 0, file_runs = 0;
	uint64_t size;
	json_t *root, *cells, *c;
	size_t i;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/traces/corpus/*.tsim", th_src());
	cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no corpus traces under %s", pattern);
	size = largest_device(&g);
	root = applicable_cells(&g);
	cells = json_object_get(root, "cells");
	cr_assert_gt(json_array_size(cells), 0);
	/* a sparse image on a tmpfs as large as the largest traced device: only what is written takes memory */
	lv_tmpfs(lv_path("mem"), (unsigned)(size / MIB) + 64);
	snprintf(img, sizeof(img), "%s/disk.img", lv_path("mem"));
	snprintf(cmd, sizeof(cmd), "truncate -s %llu '%s'", (unsigned long long)size, img);
	lv_sh(cmd);
	dev = lv_loop(img, NULL);
	snprintf(target, sizeof(target), "--device %s --destructive", dev);
	snprintf(file, sizeof(file), "%s/file.img", lv_path("mem"));
	json_array_foreach(cells, i, c) {
		const char *status = json_string_value(json_object_get(c, "status"));
		const char *trace = json_string_value(json_object_get(c, "trace"));
		const char *preset = json_string_value(json_object_get(c, "policy"));
		char ftarget[800], punch[800];

		cr_assert_str_neq(status, "error", "%s x %s on a model: %s", trace, preset,
				  json_string_value(json_object_get(c, "error")));
		if (!strcmp(status, "n/a")) {
			na++;
			continue;
		}
		replay_cell(trace, preset, target, true, &dev_runs);
		/* give the tmpfs its memory back: what the replay wrote is punched out of the image */
		snprintf(punch, sizeof(punch), "fallocate -p -o 0 -l %llu '%s'", (unsigned long long)size, img);
		lv_sh(punch);
		/* a new file every time: it needs no --destructive (rd_check_file) */
		cr_assert(unlink(file) == 0 || errno == ENOENT);
		snprintf(ftarget, sizeof(ftarget), "--file '%s'", file);
		replay_cell(trace, preset, ftarget, false, &file_runs);
	}
	cr_log_info("%zu traces x %zu presets: %u replays on %s, %u on a file, %u cells n/a", g.gl_pathc,
		    json_array_size(cells) / g.gl_pathc, dev_runs, dev, file_runs, na);
	cr_assert_eq(dev_runs + na, json_array_size(cells));
	json_decref(root);
	globfree(&g);
}

/*
 * 64 discards in flight on a slow device (slowfs: 50 ms per discard), then a
 * record past the end of the traced device: the replay fails with commands in
 * the kernel. The device must be free the moment trimsim has exited.
 */
static void write_failing_trace(const char *path)
{
	FILE *f = fopen(path, "w");
	const uint64_t size = 256 * MIB;

	cr_assert_not_null(f);
	fprintf(f, "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"devices\":[{\"dev\":\"7:250\","
		"\"name\":\"loopT\",\"size\":%llu,\"logical_block_size\":512,\"physical_block_size\":4096,"
		"\"discard_granularity\":4096,\"discard_max_bytes\":4294967296,\"max_discard_segments\":1}]}}\n",
		(unsigned long long)size);
	for (unsigned i = 0; i < 64; i++)
		fprintf(f, "{\"t\":%u,\"kind\":\"INTENT\",\"op\":\"discard\",\"dev\":\"7:250\",\"off\":%llu,"
			"\"len\":65536,\"ino\":0,\"lat\":0,\"flags\":\"\"}\n", 1000000 + i * 1000,
			(unsigned long long)i * 131072);
	fprintf(f, "{\"t\":1100000,\"kind\":\"INTENT\",\"op\":\"discard\",\"dev\":\"7:250\",\"off\":%llu,"
		"\"len\":65536,\"ino\":0,\"lat\":0,\"flags\":\"\"}\n", (unsigned long long)size);
	fprintf(f, "{\"footer\":{\"records\":65,\"lost\":0,\"end_ns\":1200000}}\n");
	fclose(f);
}

ParameterizedTestParameters(corpus_dev, device_released_after_a_failed_replay)
{
	static char d[][8] = { "uring", "threads" };

	return cr_make_param_array(char[8], d, 2);
}

ParameterizedTest(char (*dispatch)[8], corpus_dev, device_released_after_a_failed_replay)
{
	char cmd[2400], img[600], trace[600], *err = NULL;
	const char *dev;
	int rc, fd;

	snprintf(trace, sizeof(trace), "%s", lv_path("fail.jsonl"));	/* lv_path's buffers rotate */
	lv_tmpfs(lv_path("mem"), 600);
	snprintf(img, sizeof(img), "%s/img", lv_path("mem"));
	snprintf(cmd, sizeof(cmd), "truncate -s 512M '%s'", img);
	lv_sh(cmd);
	lv_slowfs(img, lv_path("slow"), 50);
	snprintf(img, sizeof(img), "%s/disk", lv_path("slow"));
	dev = lv_loop(img, NULL);
	write_failing_trace(trace);
	snprintf(cmd, sizeof(cmd), "%s replay '%s' -p 'source(intent) | dispatch(qd=32)' -t device:%s,dispatch=%s "
		 "--destructive --timing asap -q", th_trimsim(), trace, dev, *dispatch);
	rc = th_run(cmd, NULL, &err);
	cr_assert_eq(rc, 1, "the replay should fail on the record past the end: exit %d: %s", rc, err ? err : "");
	cr_assert_not_null(strstr(err, "is past the end of 7:250"), "%s", err);
	free(err);
	fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
	cr_assert_geq(fd, 0, "%s (%s): still claimed after trimsim exited: %s", dev, *dispatch, strerror(errno));
	close(fd);
}
