// SPDX-License-Identifier: GPL-2.0
/*
 * A trace whose recorded command submitted its discards itself, one at a time: btrfs
 * discard=sync discards the pinned extents inside the transaction commit
 * (btrfs_finish_extent_commit() -> btrfs_discard_extent(), fs/btrfs/extent-tree.c), and the
 * command's `sync` ran that commit, so it waited for every discard (the recorder flags such
 * BIOs `workload`: traces/FORMAT.md). Replayed as-recorded that wait is what discard adds to
 * the workload, foreground I/O or not. Before, `as-recorded` of the corpus's btrfs rm -rf on
 * sata-sf2281 added 0 ("discard does not matter"): its foreground I/O all came before the
 * discards, so nothing the trace showed waited for them. The same trace with the flag cleared
 * (a commit the transaction kthread ran, or a recorder before revision 2) keeps that verdict.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "traces/trace.h"

#define NOTE "(the recorded command submitted its discards itself, one at a time, and waited for each)"

/* The trace with every BIO's workload flag set to `on`; returns how many BIOs it had flagged. */
static uint64_t reflag(const char *in, const char *out, bool on)
{
	char err[512];
	struct trace_reader *r = trace_reader__open(in, err, sizeof(err));
	struct trace_writer *w;
	const struct ts_record *recs;
	uint64_t had = 0;
	ssize_t n;

	cr_assert_not_null(r, "%s", err);
	w = trace_writer__open(out, trace_reader__header(r), TW_BINARY, TW_ATOMIC, err, sizeof(err));
	cr_assert_not_null(w, "%s", err);
	while ((n = trace_reader__batch(r, &recs, 4096)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			struct ts_record rec = recs[i];

			if (rec.kind == TS_BIO) {
				had += !!(rec.flags & TS_F_WORKLOAD);
				rec.flags = (uint16_t)(on ? rec.flags | TS_F_WORKLOAD : rec.flags & ~TS_F_WORKLOAD);
			}
			cr_assert_eq(trace_writer__write(w, &rec), 0);
		}
	cr_assert_eq(n, 0);
	cr_assert_eq(trace_writer__close(w, trace_reader__status(r)->end_ns, err, sizeof(err)), 0, "%s", err);
	trace_reader__close(r);
	return had;
}

static json_t *compare(const char *trace, char **verdicts)
{
	char cmd[2048], path[1024], *err = NULL;
	json_t *j, *v;
	size_t i, at = 0;

	snprintf(path, sizeof(path), "%s/r.json", th_dir());
	snprintf(cmd, sizeof(cmd), "%s compare %s -p as-recorded,none -M sata-sf2281 -q --json -o %s", th_trimsim(),
		 trace, path);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s: %s", cmd, err);
	free(err);
	cr_assert_not_null(j = json_load_file(path, 0, NULL));
	*verdicts = calloc(1, 8192);
	json_array_foreach(json_object_get(j, "verdicts"), i, v)
		at += (size_t)snprintf(*verdicts + at, at < 8192 ? 8192 - at : 0, "%s\n", json_string_value(v));
	return j;
}

static json_int_t metric(const json_t *cell, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(cell, "metrics"), key));
}

TestSuite(own_wait, .init = th_dir_init, .fini = th_dir_fini);

Test(own_wait, the_commands_sync_waits_for_its_discards, .timeout = 120)
{
	char in[1024], on[1024], off[1024], *said = NULL;
	json_t *rep, *c;

	snprintf(in, sizeof(in), "%s/traces/corpus/btrfs-discard-rmtree.tsim", th_src());
	snprintf(on, sizeof(on), "%s/on.tsim", th_dir());
	snprintf(off, sizeof(off), "%s/off.tsim", th_dir());
	cr_assert_gt(reflag(in, on, true), 0, "the corpus trace was recorded before the workload flag");
	reflag(in, off, false);

	rep = compare(on, &said);
	c = json_array_get(json_object_get(rep, "cells"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(c, "wait_basis")), "synchronous");
	/* the replay's TRIM time on sata-sf2281, all of it waited for: its discards never overlap */
	cr_expect_gt(metric(c, "discard_wait_ns"), 300000000, "discard_wait_ns %lld",
		     (long long)metric(c, "discard_wait_ns"));
	cr_expect_eq(metric(c, "added_ns"), metric(c, "discard_wait_ns"));
	cr_expect(strstr(said, "discard matters") && strstr(said, NOTE), "%s", said);
	json_decref(rep);
	free(said);

	rep = compare(off, &said);
	c = json_array_get(json_object_get(rep, "cells"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(c, "wait_basis")), "foreground");
	cr_expect_eq(metric(c, "discard_wait_ns"), 0);
	cr_expect(!strstr(said, NOTE), "%s", said);
	json_decref(rep);
	free(said);
}
