// SPDX-License-Identifier: GPL-2.0
/*
 * Every corpus trace through every applicable preset onto a real target
 * (issue 14), in trace timing at --speed 100000, so the target always lags the
 * trace and completions arrive after the records that follow them (the case
 * that made xfs-cil fail with "emitted a request ... before now"). Not
 * --timing asap: there a policy's own delays stay in real time (btrfs-async
 * holds frees 120 s, several times over). Applicable is compare's own rule:
 * the cells `trimsim compare` runs rather than marking n/a (the policy's source
 * layer has records in the trace). Every replay exits 0 with no failed command
 * and nothing on stderr but the DESTROYING line.
 *
 * Every applicable cell is replayed onto a regular file (a real-time target:
 * the lag and the late completions are real), two replays at a time on files of
 * their own (a replay keeps one core busy; CI has two). The loop device takes a
 * cover of the matrix: every trace once, with the applicable preset the device
 * has replayed least so far, so every preset that applies to two traces or more
 * is replayed on at least two (with today's corpus, each preset of the FREE and
 * INTENT layers on an ext4 and an XFS trace). What a device adds to a file is
 * per command, not per cell: discards shrunk to whole logical blocks, io_uring
 * on a block device, the kernel's own checks, the O_EXCL claim. Records past a
 * trace's device end fail when the trace is read, whatever the target. The
 * costly part of a device replay is the trace's own writes, the same for every
 * preset of a trace: each trace's writes once and each preset's commands on two
 * traces reach the paths the whole matrix reached there with 31 device replays
 * instead of 244 (the two full matrices took 109 s of a 15 min CI run, the
 * device more than half of it).
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
#include <sys/wait.h>
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

/* A replay's exit status, stderr and result: exit 0, quiet, no failed command. */
static void check_cell(const char *what, int rc, const char *err, const char *res, bool device)
{
	json_error_t je;
	json_t *r;

	cr_assert_eq(rc, 0, "%s: exit %d: %s", what, rc, err ? err : "");
	expect_quiet(what, err, device);
	r = json_load_file(res, 0, &je);
	cr_assert_not_null(r, "%s: %s", what, je.text);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(r, "discard"), "errors")), 0, "%s", what);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(r, "foreground"), "errors")), 0, "%s", what);
	json_decref(r);
}

static void replay_cell(const char *trace, const char *preset, const char *target, bool device, unsigned *n)
{
	char cmd[4096], what[600], *err = NULL;
	const char *res = lv_path("r.json");
	int rc;

	snprintf(what, sizeof(what), "%s x %s on %s", strrchr(trace, '/') + 1, preset, device ? "device" : "file");
	snprintf(cmd, sizeof(cmd), "%s replay '%s' -p '%s' %s %s -q -o '%s'", plain(), trace, preset, target,
		 "--speed 100000", res);
	rc = th_run(cmd, NULL, &err);
	check_cell(what, rc, err, res, device);
	free(err);
	(*n)++;
}

/* File replays run two at a time: each slot has its own file, result and stderr. */
struct file_slot {
	pid_t pid;		/* 0: free */
	char what[600], file[600], res[600], err[600];
};

static void slot_finish(struct file_slot *s, unsigned *n)
{
	char *err;
	int st;

	if (!s->pid)
		return;
	cr_assert_eq(waitpid(s->pid, &st, 0), s->pid);
	s->pid = 0;
	err = th_slurp(s->err, NULL);
	check_cell(s->what, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), err, s->res, false);
	free(err);
	(*n)++;
}

static void slot_start(struct file_slot *s, const char *trace, const char *preset)
{
	char cmd[4096];

	snprintf(s->what, sizeof(s->what), "%s x %s on file", strrchr(trace, '/') + 1, preset);
	/* a new file every time: it needs no --destructive (rd_check_file) */
	cr_assert(unlink(s->file) == 0 || errno == ENOENT);
	snprintf(cmd, sizeof(cmd), "exec %s replay '%s' -p '%s' --file '%s' --speed 100000 -q -o '%s' 2>'%s'",
		 plain(), trace, preset, s->file, s->res, s->err);
	s->pid = fork();
	cr_assert_geq(s->pid, 0);
	if (!s->pid) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
}

/*
 * Of the np applicable-or-n/a cells of one trace (compare's order: the presets in
 * policy_presets' order), the one the device replays: the applicable preset the
 * device has replayed least so far (the first of those). -1 when none applies.
 */
static int device_pick(json_t *cells, size_t first, size_t np, const unsigned *dev_count)
{
	int best = -1;

	for (size_t p = 0; p < np; p++) {
		const char *status = json_string_value(json_object_get(json_array_get(cells, first + p), "status"));

		if (status && !strcmp(status, "ok") && (best < 0 || dev_count[p] < dev_count[best]))
			best = (int)p;
	}
	return best;
}

Test(corpus_dev, every_trace_every_applicable_preset)
{
	char pattern[1024], img[600], target[700], cmd[800];
	struct file_slot slot[2] = { { 0 } };
	const char *dev;
	unsigned na = 0, dev_runs = 0, file_runs = 0, started = 0, dev_count[64] = { 0 }, applicable[64] = { 0 };
	uint64_t size;
	json_t *root, *cells, *c;
	size_t i, np = 0;
	int pick = -1;
	glob_t g;

	while (policy_presets[np].name)
		np++;
	cr_assert_leq(np, 64);
	snprintf(pattern, sizeof(pattern), "%s/traces/corpus/*.tsim", th_src());
	cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no corpus traces under %s", pattern);
	size = largest_device(&g);
	root = applicable_cells(&g);
	cells = json_object_get(root, "cells");
	cr_assert_gt(json_array_size(cells), 0);
	cr_assert_eq(json_array_size(cells), g.gl_pathc * np, "compare ran %zu cells, not %zu traces x %zu presets",
		     json_array_size(cells), g.gl_pathc, np);
	/*
	 * a sparse image as large as the largest traced device, on a tmpfs with room for it and the two
	 * file targets: only what is written takes memory
	 */
	lv_tmpfs(lv_path("mem"), 3 * (unsigned)(size / MIB) + 64);
	snprintf(img, sizeof(img), "%s/disk.img", lv_path("mem"));
	snprintf(cmd, sizeof(cmd), "truncate -s %llu '%s'", (unsigned long long)size, img);
	lv_sh(cmd);
	dev = lv_loop(img, NULL);
	snprintf(target, sizeof(target), "--device %s --destructive", dev);
	for (size_t k = 0; k < 2; k++) {
		snprintf(slot[k].file, sizeof(slot[k].file), "%s/file%zu.img", lv_path("mem"), k);
		snprintf(slot[k].res, sizeof(slot[k].res), "%s/r%zu.json", th_dir(), k);
		snprintf(slot[k].err, sizeof(slot[k].err), "%s/err%zu", th_dir(), k);
	}
	json_array_foreach(cells, i, c) {
		const char *status = json_string_value(json_object_get(c, "status"));
		const char *trace = json_string_value(json_object_get(c, "trace"));
		const char *preset = json_string_value(json_object_get(c, "policy"));
		char punch[800];

		cr_assert_str_neq(status, "error", "%s x %s on a model: %s", trace, preset,
				  json_string_value(json_object_get(c, "error")));
		/* compare's order: trace after trace, each with every preset in policy_presets' order */
		cr_assert_str_eq(preset, policy_presets[i % np].name, "cell %zu", i);
		if (i % np == 0)
			pick = device_pick(cells, i, np, dev_count);
		if (!strcmp(status, "n/a")) {
			na++;
			continue;
		}
		applicable[i % np]++;
		if ((int)(i % np) == pick) {
			replay_cell(trace, preset, target, true, &dev_runs);
			dev_count[i % np]++;
			/* give the tmpfs its memory back: what the replay wrote is punched out of the image */
			snprintf(punch, sizeof(punch), "fallocate -p -o 0 -l %llu '%s'", (unsigned long long)size, img);
			lv_sh(punch);
		}
		slot_finish(&slot[started % 2], &file_runs);	/* the replay started two before, if running */
		slot_start(&slot[started++ % 2], trace, preset);
	}
	slot_finish(&slot[started % 2], &file_runs);
	slot_finish(&slot[(started + 1) % 2], &file_runs);
	cr_log_info("%zu traces x %zu presets: %u replays on a file, %u on %s, %u cells n/a", g.gl_pathc, np,
		    file_runs, dev_runs, dev, na);
	cr_assert_eq(file_runs + na, json_array_size(cells));
	cr_assert_eq(dev_runs, g.gl_pathc, "every trace once on the device");
	for (size_t p = 0; p < np; p++)
		cr_assert(!applicable[p] || dev_count[p] >= (applicable[p] > 1 ? 2u : 1u),
			  "%s: %u replays on the device of %u applicable cells", policy_presets[p].name, dev_count[p],
			  applicable[p]);
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
	char cmd[2400], trace[600], *err = NULL;
	const char *dev;
	int rc, fd;

	snprintf(trace, sizeof(trace), "%s", lv_path("fail.jsonl"));	/* lv_path's buffers rotate */
	dev = lv_slow_loop(600, "512M", 50);
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
