// SPDX-License-Identifier: GPL-2.0
/*
 * as-recorded keeps the trace's serial points (replay/policies/chain.c): a discard the
 * trace issued after every earlier one had completed is sent, in the replay, only once
 * they have completed there too. Before, every discard went at its trace time: on a
 * device slower than the recorded one a submitter's one-at-a-time discards piled up in
 * the device's queue (btrfs-discard-rmtree on sata-sf2281: discard p50 196 ms where each
 * takes 9.5 ms) and the foreground I/O that came meanwhile waited behind the whole pile.
 *
 * The trace here: five 64 KiB discards, one every millisecond from 1 ms, each done 100 us
 * after its issue, and a 4 KiB write at 2.5 ms, replayed onto a fixed device that takes
 * 10 ms a discard, 50 us a write, one command at a time.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

#define US 1000ll
#define MS 1000000ll

struct trec { long long t; const char *kind, *op; long long off, len, lat; const char *flags; };

static int by_time(const void *a, const void *b)
{
	const struct trec *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

/*
 * The trace; overlap: each discard done 1.5 ms after its issue, after the next one's (no serial point).
 * bio: as `trimsim record` writes it on Linux 6.18 (a backend in the header), each discard's BIO
 * 1 us before its ISSUE, flagged `bio` ("sync": submit_bio_wait()'s REQ_SYNC, or "" as XFS's log
 * worker sends them); NULL: no BIO records, no backend.
 */
static void write_trace_as_first(const char *name, bool overlap, const char *bio, const char *first)
{
	long long done = overlap ? 1500 * US : 100 * US;
	struct trec r[17];
	char path[512];
	unsigned n = 0;
	FILE *f;

	for (long long k = 0; k < 5; k++) {
		if (bio)
			r[n++] = (struct trec){ 1 * MS + k * MS - US, "BIO", "discard", k << 20, 64 << 10, 0,
						k ? bio : first };
		r[n++] = (struct trec){ 1 * MS + k * MS, "ISSUE", "discard", k << 20, 64 << 10, 0, "" };
		r[n++] = (struct trec){ 1 * MS + k * MS + done, "DONE", "discard", k << 20, 64 << 10, done, "" };
	}
	r[n++] = (struct trec){ 2500 * US, "ISSUE", "write", 512ll << 20, 4096, 0, "" };
	r[n++] = (struct trec){ 2550 * US, "DONE", "write", 512ll << 20, 4096, 50 * US, "" };
	qsort(r, n, sizeof(r[0]), by_time);
	snprintf(path, sizeof(path), "%s/%s", th_dir(), name);
	cr_assert_not_null(f = fopen(path, "w"), "%s", path);
	fprintf(f, "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,%s\"devices\":[{\"dev\":\"7:0\","
		"\"name\":\"loop7\",\"size\":1073741824,\"fs\":\"btrfs\",\"fs_block_size\":4096}]}}\n",
		bio ? "\"backend\":\"bpf\",\"kernel\":\"6.18.44 #1 SMP\"," : "");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "{\"t\":%lld,\"kind\":\"%s\",\"op\":\"%s\",\"dev\":\"7:0\",\"off\":%lld,\"len\":%lld,"
			"\"ino\":1,\"lat\":%lld,\"flags\":\"%s\"}\n", r[i].t, r[i].kind, r[i].op, r[i].off, r[i].len,
			r[i].lat, r[i].flags);
	fprintf(f, "{\"footer\":{\"records\":%u,\"lost\":0,\"end_ns\":%lld}}\n", n, 10 * MS);
	cr_assert_eq(fclose(f), 0);
}

static void write_trace_as(const char *name, bool overlap, const char *bio)
{
	write_trace_as_first(name, overlap, bio, bio);
}

static void write_trace(const char *name, bool overlap)
{
	write_trace_as(name, overlap, NULL);
}

static json_t *replay(const char *trace, const char *policy, const char *target)
{
	char cmd[2048], out[512];
	json_t *r;

	snprintf(out, sizeof(out), "%s/r.json", th_dir());
	snprintf(cmd, sizeof(cmd), "cd %s && %s replay %s -p '%s' %s -q -o %s", th_dir(), th_trimsim(), trace, policy,
		 target, out);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0, "%s", cmd);
	cr_assert_not_null(r = json_load_file(out, 0, NULL), "%s", out);
	return r;
}

static long long at(const json_t *r, const char *a, const char *b, const char *c)
{
	const json_t *o = json_object_get(r, a);

	o = b ? json_object_get(o, b) : o;
	o = c ? json_object_get(o, c) : o;
	cr_assert(json_is_integer(o), "%s.%s.%s", a, b ? b : "", c ? c : "");
	return (long long)json_integer_value(o);
}

static long long chain_stat(const json_t *r, const char *key)
{
	size_t i;
	const json_t *s;

	json_array_foreach(json_object_get(json_object_get(r, "policy"), "stages"), i, s)
		if (!strcmp(json_string_value(json_object_get(s, "name")), "chain"))
			return (long long)json_integer_value(json_object_get(s, key));
	cr_assert_fail("no chain stage");
	return -1;
}

#define FIXED "-t fixed:discard=10ms,per_mib=0,write=50us,qd=1"

Test(chain, serial_discards_wait_for_each_other)
{
	json_t *on, *off;

	write_trace("serial.jsonl", false);
	on = replay("serial.jsonl", "as-recorded", FIXED);
	off = replay("serial.jsonl", "as-recorded(chain=0)", FIXED);

	/*
	 * chain: d1 is sent at d0's completion (11 ms), behind the write that waited since
	 * 2.5 ms: the write completes at 11.05 ms; d1..d4 complete at 21.05, 31.05, 41.05,
	 * 51.05 ms. Open loop: d1 waited in the queue since 2 ms and goes before the write,
	 * which starts at 21 ms. The write's stall: 8.5 ms against 18.5 ms.
	 */
	cr_expect_eq(at(on, "foreground", "stall_ns", NULL), 11 * MS - 2500 * US);
	cr_expect_eq(at(off, "foreground", "stall_ns", NULL), 21 * MS - 2500 * US);
	cr_expect_eq(at(on, "makespan_ns", NULL, NULL), at(off, "makespan_ns", NULL, NULL));
	cr_expect_eq(at(on, "discard", "commands", NULL), 5);
	cr_expect_eq(at(on, "latency", "discard", "max_ns"), 10 * MS);
	/* the points wait in the stage, not in the dispatcher's queue: only d1 behind the write */
	cr_expect_eq(at(on, "discard", "dispatch_wait", "sum_ns"), 50 * US);
	cr_expect_eq(at(off, "discard", "dispatch_wait", "sum_ns"), (9000 + 18050 + 27050 + 36050) * US);
	cr_expect_eq(chain_stat(on, "serial_points"), 5);
	cr_expect_eq(chain_stat(on, "late_points"), 4);
	cr_expect_eq(chain_stat(on, "max_lag_ns"), 41050 * US - 5 * MS);
	cr_expect_eq(chain_stat(on, "held_peak"), 4);	/* d1..d4 behind d0 until 11 ms */
	cr_expect_eq(chain_stat(off, "serial_points"), 0);
	json_decref(on);
	json_decref(off);
}

/*
 * --timing asap: the next record comes when the queues have gone, the chain's included
 * (policy__waits()): one request held at a time, not the trace's whole run of points
 * behind the first (memory that grew with the trace: 149 MiB for 1M discards in make bench).
 */
Test(chain, asap_drains_what_it_holds)
{
	json_t *r;

	write_trace("serial.jsonl", false);
	r = replay("serial.jsonl", "as-recorded", FIXED " --timing asap");
	cr_expect_eq(chain_stat(r, "serial_points"), 5);
	cr_expect_eq(chain_stat(r, "held_peak"), 1);
	cr_expect_eq(at(r, "discard", "commands", NULL), 5);
	json_decref(r);
}

/* Discards that overlapped in the trace are not serial points: the replay is the open loop's. */
Test(chain, overlapping_discards_go_at_their_times)
{
	json_t *on, *off;

	write_trace("overlap.jsonl", true);
	on = replay("overlap.jsonl", "as-recorded", FIXED);
	off = replay("overlap.jsonl", "as-recorded(chain=0)", FIXED);
	cr_expect_eq(chain_stat(on, "serial_points"), 1);	/* the first, with nothing before it */
	cr_expect_eq(chain_stat(on, "late_points"), 0);
	json_object_del(on, "policy");
	json_object_del(off, "policy");
	cr_expect(json_equal(on, off), "the replay differs from as-recorded(chain=0)'s");
	json_decref(on);
	json_decref(off);
}

/* A real-time target: what the stage holds goes at the device's completions, none is lost. */
Test(chain, onto_a_file)
{
	char img[512], target[600];
	json_t *r;
	FILE *f;

	write_trace("serial.jsonl", false);
	snprintf(img, sizeof(img), "%s/img", th_dir());
	cr_assert_not_null(f = fopen(img, "w"));
	cr_assert_eq(fclose(f), 0);
	snprintf(target, sizeof(target), "--file %s", img);
	r = replay("serial.jsonl", "as-recorded", target);
	cr_expect_eq(at(r, "discard", "commands", NULL), 5);
	cr_expect_eq(at(r, "discard", "errors", NULL), 0);
	cr_expect_eq(chain_stat(r, "serial_points"), 5);
	json_decref(r);
}

/*
 * Who waited (chain.c): on a trace that records REQ_SYNC (`trimsim record`, Linux >= 5.0),
 * discards whose BIOs carry it came through submit_bio_wait() and their serial points wait;
 * XFS's log worker sends its discards without it and waits for none, so its points go at
 * their trace times, as the open loop sends them. wait=all holds them anyway.
 */
Test(chain, only_a_submitter_that_waited_is_held)
{
	json_t *sync, *async, *all, *off;

	write_trace_as("sync.jsonl", false, "sync");
	write_trace_as("async.jsonl", false, "");
	sync = replay("sync.jsonl", "as-recorded", FIXED);
	async = replay("async.jsonl", "as-recorded", FIXED);
	all = replay("async.jsonl", "as-recorded(wait=all)", FIXED);
	off = replay("async.jsonl", "as-recorded(chain=0)", FIXED);
	cr_expect_eq(chain_stat(sync, "serial_points"), 5);
	cr_expect_eq(chain_stat(sync, "async_points"), 0);
	cr_expect_eq(at(sync, "foreground", "stall_ns", NULL), 11 * MS - 2500 * US);
	cr_expect_eq(chain_stat(async, "serial_points"), 0);
	cr_expect_eq(chain_stat(async, "async_points"), 5);
	cr_expect_eq(at(async, "foreground", "stall_ns", NULL), 21 * MS - 2500 * US);
	cr_expect_eq(chain_stat(all, "serial_points"), 5);
	cr_expect_eq(at(all, "foreground", "stall_ns", NULL), 11 * MS - 2500 * US);
	json_object_del(async, "policy");
	json_object_del(off, "policy");
	cr_expect(json_equal(async, off), "XFS-like discards replay as the open loop does");
	json_decref(sync);
	json_decref(async);
	json_decref(all);
	json_decref(off);
	/* one synchronous discard first (a BLKDISCARD among XFS's): it holds its own point, not the later ones */
	write_trace_as_first("mixed.jsonl", false, "", "sync");
	sync = replay("mixed.jsonl", "as-recorded", FIXED);
	cr_expect_eq(chain_stat(sync, "serial_points"), 1);
	cr_expect_eq(chain_stat(sync, "async_points"), 4);
	json_decref(sync);
}

Test(chain, needs_the_issue_layer)
{
	char cmd[1024], *err = NULL;

	write_trace("serial.jsonl", false);
	snprintf(cmd, sizeof(cmd), "cd %s && %s replay serial.jsonl -p 'source(intent) | chain' -M nvme -q -o x.json",
		 th_dir(), th_trimsim());
	cr_expect_eq(th_run(cmd, NULL, &err), 2, "%s", err);
	cr_expect(err && strstr(err, "stage 'chain'") && strstr(err, "follows source(issue)"), "%s", err);
	free(err);
}

TestSuite(chain, .init = th_dir_init, .fini = th_dir_fini);
