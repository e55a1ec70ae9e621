// SPDX-License-Identifier: GPL-2.0
/*
 * The workload's wall time (REPORT-SCHEMA.md `wall_ns`, the denominator of every share): the
 * replayed device's records, widened to the recorded command's run (META cmd-start to
 * cmd-stop). A btrfs trace has no free-space snapshots, so its device records spanned only
 * the device's busy stretch: btrfs-discard-rmtree read 55.6 ms for a command that ran 2.3 s.
 * An XFS trace's snapshots already bracket the command: its wall is its span, as before.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/common/helpers.h"
#include "traces/trace.h"

/* From the trace itself: the first and last record of its device, and the command's start and stop. */
static void bounds(const char *path, uint64_t *first, uint64_t *last, uint64_t *start, uint64_t *stop)
{
	char err[512];
	struct trace_reader *r = trace_reader__open(path, err, sizeof(err));
	const struct ts_device *d;
	struct ts_record rec;

	cr_assert_not_null(r, "%s", err);
	cr_assert_not_null(d = trace_reader__replay_device(r));
	*first = *last = *start = *stop = 0;
	while (trace_reader__next(r, &rec) == 1) {
		if (rec.kind == TS_META && rec.op == TS_META_CMD_START)
			*start = rec.time_ns;
		if (rec.kind == TS_META && rec.op == TS_META_CMD_STOP)
			*stop = rec.time_ns;
		if (rec.dev != d->dev)
			continue;
		if (!*first)
			*first = rec.time_ns;
		*last = rec.time_ns;
	}
	trace_reader__close(r);
}

static json_int_t wall_of(const char *path)
{
	char cmd[4096], out[1024], *err = NULL;
	json_t *j;
	json_int_t w;

	snprintf(out, sizeof(out), "%s/r.json", th_dir());
	snprintf(cmd, sizeof(cmd), "%s compare %s -p as-recorded,none -M nvme -q --json -o %s", th_trimsim(), path, out);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s: %s", cmd, err);
	free(err);
	cr_assert_not_null(j = json_load_file(out, 0, NULL));
	w = json_integer_value(json_object_get(json_object_get(json_array_get(json_object_get(j, "cells"), 0),
							       "metrics"), "wall_ns"));
	json_decref(j);
	return w;
}

TestSuite(wall, .init = th_dir_init, .fini = th_dir_fini);

Test(wall, the_commands_run, .timeout = 120)
{
	const char *traces[] = { "btrfs-discard-rmtree", "xfs-discard-rmtree" };

	for (size_t i = 0; i < 2; i++) {
		char path[1024];
		uint64_t first, last, start, stop;

		snprintf(path, sizeof(path), "%s/traces/corpus/%s.tsim", th_src(), traces[i]);
		bounds(path, &first, &last, &start, &stop);
		cr_assert(start && stop, "%s: no cmd-start/cmd-stop", traces[i]);
		cr_expect_eq(wall_of(path), (json_int_t)((stop > last ? stop : last) - (start < first ? start : first)),
			     "%s", traces[i]);
		if (i == 0)
			cr_expect_gt(stop - start, 10 * (last - first), "btrfs: the command outlasts its device records");
		else
			cr_expect(start >= first && stop <= last, "xfs: the snapshots bracket the command");
	}
}

/* A trace `record` wrote without a command: 2 discards 1 s apart in a 10 s recording, or a hand-made one. */
static void window_trace(const char *path, bool recorded)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fprintf(f, "{\"trimsim\":1,\"header\":{%s\"cmdline\":[\"test\"],\"devices\":[{\"dev\":\"7:250\",\"fs\":\"btrfs\","
		"\"logical_block_size\":512,\"name\":\"loopT\",\"size\":1073741824}],\"format\":\"trimsim\","
		"\"host\":\"t\",\"kernel\":\"t\",\"recorder\":\"test\",\"start_ns\":1000000000,"
		"\"start_wall\":\"2026-12-07T00:00:00.000000000Z\",\"version\":1}}\n", recorded ? "\"backend\":\"bpf\"," : "");
	for (int i = 0; i < 2; i++)
		fprintf(f, "{\"t\":%d000000000,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"7:250\",\"off\":%d,"
			"\"len\":65536,\"ino\":0,\"lat\":0,\"flags\":\"\"}\n"
			"{\"t\":%d001000000,\"kind\":\"DONE\",\"op\":\"discard\",\"dev\":\"7:250\",\"off\":%d,"
			"\"len\":65536,\"ino\":0,\"lat\":1000000,\"flags\":\"\"}\n", 4 + i, i << 20, 4 + i, i << 20);
	fprintf(f, "{\"footer\":{\"records\":4,\"lost\":0,\"end_ns\":11000000000}}\n");
	fclose(f);
}

/*
 * Without a command, a trace `record` wrote (its header names the backend) spans the recording:
 * header start_ns to footer end_ns, 10 s here, not the 1.001 s between its first and last record
 * (a btrfs `record --duration` read as its device's busy stretch). A trace from elsewhere keeps
 * its records' span: an import's header times are its records' own.
 */
Test(wall, the_recordings_window)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/rec.jsonl", th_dir());
	window_trace(path, true);
	cr_expect_eq(wall_of(path), 10000000000ll);
	window_trace(path, false);
	cr_expect_eq(wall_of(path), 1001000000ll);
}
