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
#define END_NOTE "(the recorded command waits for the discards it submitted itself, which go one at a time after " \
		 "every discard sent before them: it ends when the last completes)"
#define US 1000ll
#define MS 1000000ll

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

static json_t *compare_on(const char *trace, const char *policies, const char *target, char **verdicts)
{
	char cmd[2048], path[1024], *err = NULL;
	json_t *j, *v;
	size_t i, at = 0;

	snprintf(path, sizeof(path), "%s/r.json", th_dir());
	snprintf(cmd, sizeof(cmd), "%s compare %s -p '%s' %s -q --json -o %s", th_trimsim(), trace, policies, target,
		 path);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s: %s", cmd, err);
	free(err);
	cr_assert_not_null(j = json_load_file(path, 0, NULL));
	*verdicts = calloc(1, 8192);
	json_array_foreach(json_object_get(j, "verdicts"), i, v)
		if (at < 8192)
			at += (size_t)snprintf(*verdicts + at, 8192 - at, "%s\n", json_string_value(v));
	return j;
}

static json_t *compare(const char *trace, char **verdicts)
{
	return compare_on(trace, "as-recorded,none", "-M sata-sf2281", verdicts);
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

/*
 * The command's own discard waits in the replay for the discards before it
 * (tests/report/commit_behind_kthread.jsonl): five serial discards of the transaction
 * kthread (not flagged), one every millisecond from 1 ms, then the command's sync at
 * 6 ms commits and discards once itself (flagged). A commit not run for an fsync waits
 * for the previous transaction to be TRANS_STATE_COMPLETED, after its discard=sync
 * discards (btrfs_commit_transaction(), fs/btrfs/transaction.c). On a device of 10 ms a
 * discard, one command at a time, the kthread's complete at 11, 21, 31, 41 and 51 ms,
 * the command's at 61 ms (each ISSUE is 1 us after its BIO): the workload, whose
 * records end at 6.101 ms, ends 54.9 ms later. Before, the added time was that
 * discard's own 10 ms ([submit, done)), with the chain stage (it holds the discard
 * until 51 ms) and without it (it waits in the dispatcher's queue until then) alike.
 * tests/live/test_replay_dev.c replays the same trace onto a slow-TRIM loop device.
 */
Test(own_wait, the_commands_commit_waits_for_the_discards_before_it, .timeout = 60)
{
	static const char *const policies[] = { "as-recorded,none", "as-recorded(chain=0),none" };
	char path[1024];

	snprintf(path, sizeof(path), "%s/tests/report/commit_behind_kthread.jsonl", th_src());
	for (size_t i = 0; i < 2; i++) {
		char *said = NULL;
		json_t *rep = compare_on(path, policies[i], "-M 'fixed:discard=10ms,per_mib=0,write=50us,qd=1'", &said);
		json_t *c = json_array_get(json_object_get(rep, "cells"), 0);

		cr_expect_str_eq(json_string_value(json_object_get(c, "wait_basis")), "synchronous", "%s", policies[i]);
		/* the command's own discard, [submit, done): 10 ms */
		cr_expect_eq(metric(c, "discard_wait_ns"), 10 * MS, "%s: %lld", policies[i],
			     (long long)metric(c, "discard_wait_ns"));
		cr_expect_eq(metric(c, "workload_ns"), 61 * MS + US, "%s: %lld", policies[i],
			     (long long)metric(c, "workload_ns"));
		cr_expect_eq(metric(c, "added_ns"), 61 * MS + US - (6 * MS + 101 * US), "%s: %lld", policies[i],
			     (long long)metric(c, "added_ns"));
		cr_expect(strstr(said, "discard matters") && strstr(said, END_NOTE), "%s: %s", policies[i], said);
		json_decref(rep);
		free(said);
	}
}

/*
 * A trace without foreground I/O whose serial discards the recorder says the command did not
 * submit: revision 2, a cmd-start, five discard BIOs none of them flagged `workload` (ext4's
 * discard work, a transaction kthread). Those workers waited for each, the command is not known
 * to: the trace cannot tell whether discard matters. Before, the report took the serial discards
 * for the workload's own wait ("the workload waited for each"), as it still does for a revision 1
 * trace, which does not say who submitted them.
 */
static void write_worker_trace(const char *path, unsigned revision, bool devices)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fprintf(f, "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"revision\":%u,\"devices\":[%s]}}\n",
		revision, devices ? "{\"dev\":\"7:250\",\"name\":\"loopT\",\"size\":67108864,\"logical_block_size\":512,"
				    "\"fs\":\"ext4\",\"fs_block_size\":4096}" : "");
	/* at trace time 0, which is a time (the engine once took 0 for "no command") */
	fprintf(f, "{\"t\":0,\"kind\":\"META\",\"op\":\"cmd-start\",\"dev\":\"0:0\",\"off\":0,\"len\":0,\"ino\":7,"
		"\"lat\":0,\"flags\":\"\"}\n");
	for (long long k = 0; k < 5; k++) {
		long long t = MS + k * MS, off = k << 21;

		fprintf(f, "{\"t\":%lld,\"kind\":\"BIO\",\"op\":\"discard\",\"dev\":\"7:250\",\"off\":%lld,"
			"\"len\":65536,\"ino\":1,\"lat\":0,\"flags\":\"sync\"}\n", t, off);
		fprintf(f, "{\"t\":%lld,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"7:250\",\"off\":%lld,"
			"\"len\":65536,\"ino\":1,\"lat\":0,\"flags\":\"sync\"}\n", t + US, off);
		fprintf(f, "{\"t\":%lld,\"kind\":\"DONE\",\"op\":\"discard\",\"dev\":\"7:250\",\"off\":%lld,"
			"\"len\":65536,\"ino\":1,\"lat\":%lld,\"flags\":\"sync\"}\n", t + 101 * US, off, 100 * US);
	}
	fprintf(f, "{\"t\":%lld,\"kind\":\"META\",\"op\":\"cmd-stop\",\"dev\":\"0:0\",\"off\":0,\"len\":0,\"ino\":7,"
		"\"lat\":0,\"flags\":\"\"}\n", 10 * MS);
	fprintf(f, "{\"footer\":{\"records\":17,\"lost\":0,\"end_ns\":%lld}}\n", 10 * MS);
	cr_assert_eq(fclose(f), 0);
}

Test(own_wait, discards_the_recorder_says_workers_sent_cannot_tell, .timeout = 60)
{
	static const char *const serial = "(the trace has no foreground I/O and its discards went out one at a time";
	char path[1024], *said = NULL;
	json_t *rep, *c;

	snprintf(path, sizeof(path), "%s/workers.jsonl", th_dir());
	/* with the device in the header (one replayed device), and without (every device replayed) */
	for (int devices = 1; devices >= 0; devices--) {
		write_worker_trace(path, 2, devices);
		rep = compare_on(path, "as-recorded,none", "-M 'fixed:discard=10ms,per_mib=0,write=50us,qd=1'", &said);
		c = json_array_get(json_object_get(rep, "cells"), 0);
		cr_expect_str_eq(json_string_value(json_object_get(c, "wait_basis")), "unknown", "devices %d", devices);
		cr_expect_eq(metric(c, "discard_wait_ns"), 0, "devices %d", devices);
		cr_expect(strstr(said, "the trace cannot tell whether discard matters") &&
				  strstr(said, "the filesystem's own workers submitted, not the recorded command"),
			  "devices %d: %s", devices, said);
		cr_expect_null(strstr(said, serial), "%s", said);
		json_decref(rep);
		free(said);
	}

	write_worker_trace(path, 1, true);
	rep = compare_on(path, "as-recorded,none", "-M 'fixed:discard=10ms,per_mib=0,write=50us,qd=1'", &said);
	c = json_array_get(json_object_get(rep, "cells"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(c, "wait_basis")), "synchronous");
	cr_expect(strstr(said, serial), "%s", said);
	json_decref(rep);
	free(said);
}
