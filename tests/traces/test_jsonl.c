// SPDX-License-Identifier: GPL-2.0
/* JSON Lines and trimsim convert: byte-identical round trips, atomic output, flags, help. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "traces/trace.h"
#include "traces/trace_int.h"
#include "tests/traces/gen.h"

TestSuite(jsonl, .init = th_dir_init, .fini = th_dir_fini);

static void same_files(const char *a, const char *b)
{
	size_t la, lb;
	char *x = th_slurp(a, &la), *y = th_slurp(b, &lb);

	cr_assert_not_null(x);
	cr_assert_not_null(y);
	cr_assert_eq(la, lb, "%s is %zu bytes, %s %zu", a, la, b, lb);
	cr_assert_eq(memcmp(x, y, la), 0, "%s and %s differ", a, b);
	free(x);
	free(y);
}

static void run_ok(const char *fmt, const char *a, const char *b)
{
	char cmd[2048], *err = NULL;
	int rc;

	snprintf(cmd, sizeof(cmd), fmt, th_trimsim(), a, b);
	rc = th_run(cmd, NULL, &err);
	cr_assert_eq(rc, 0, "%s: exit %d: %s", cmd, rc, err ? err : "");
	free(err);
}

/* Record counts: empty, one of each kind, every kind x op x flag mix, and across buffer refills. */
struct rt { uint64_t n; uint64_t lost; };

ParameterizedTestParameters(jsonl, round_trip_cli)
{
	static struct rt t[] = { { 0, 0 }, { 7, 1 }, { 7 * 7 * 11, 5 }, { 5461 + 100, 1000 } };

	return cr_make_param_array(struct rt, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct rt *t, jsonl, round_trip_cli)
{
	char a[512], j[512], b[512], j2[512];

	snprintf(a, sizeof(a), "%s/a.tsim", th_dir());
	snprintf(j, sizeof(j), "%s/a.jsonl", th_dir());
	snprintf(b, sizeof(b), "%s/b.tsim", th_dir());
	snprintf(j2, sizeof(j2), "%s/b.json", th_dir());
	cr_assert_eq(gen_trace(a, t->n, TW_BINARY, t->lost), 0);
	run_ok("%s convert %s %s", a, j);
	run_ok("%s convert %s %s", j, b);
	same_files(a, b);
	/* and JSON Lines -> binary -> JSON Lines */
	run_ok("%s convert %s %s", b, j2);
	same_files(j, j2);
}

Test(jsonl, library_round_trip_covers_everything)
{
	char a[512], j[512], err[512];
	struct trace_reader *r;
	const struct ts_record *recs;
	bool kinds[TS_KIND_MAX + 1] = { 0 }, ops[TS_OP_MAX + 1] = { 0 }, metas[TS_META_MAX + 1] = { 0 };
	unsigned flags = 0, fs = 0;
	uint64_t i = 0;
	ssize_t n;

	snprintf(a, sizeof(a), "%s/a.tsim", th_dir());
	snprintf(j, sizeof(j), "%s/a.jsonl", th_dir());
	cr_assert_eq(gen_trace(j, 7 * 7 * 11, TW_JSONL, 3), 0);
	r = trace_reader__open(j, err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	while ((n = trace_reader__batch(r, &recs, 100)) > 0) {
		for (ssize_t k = 0; k < n; k++, i++) {
			struct ts_record want;

			gen_record(i, 1, &want);
			cr_assert_eq(memcmp(&want, &recs[k], sizeof(want)), 0, "record %llu", (unsigned long long)i);
			kinds[recs[k].kind] = true;
			if (recs[k].kind == TS_META)
				metas[recs[k].op] = true;
			else
				ops[recs[k].op] = true;
			flags |= recs[k].flags;
			fs |= 1u << (recs[k].flags & TS_F_FS_MASK);
		}
	}
	cr_assert_eq(n, 0, "%s", trace_reader__error(r));
	cr_assert(trace_reader__status(r)->jsonl);
	cr_assert(trace_reader__status(r)->footer);
	cr_assert_eq(trace_reader__status(r)->lost, 3);
	cr_assert_eq(trace_reader__status(r)->end_ns, 123456789);
	for (unsigned k = 1; k <= TS_KIND_MAX; k++)
		cr_assert(kinds[k], "kind %u not covered", k);
	for (unsigned k = 0; k <= TS_OP_MAX; k++)
		cr_assert(ops[k], "op %u not covered", k);
	for (unsigned k = 1; k <= TS_META_MAX; k++)
		cr_assert(metas[k], "META %u not covered", k);
	cr_assert_eq(flags & TS_F_KNOWN & ~TS_F_FS_MASK, TS_F_KNOWN & ~TS_F_FS_MASK);
	cr_assert_eq(fs, (1u << (TS_FS_MAX + 1)) - 1, "filesystems covered: %#x", fs);
	cr_assert(flags & 0x8000);
	trace_reader__close(r);
}

struct fl { unsigned flags; char text[96]; };

ParameterizedTestParameters(jsonl, flag_names)
{
	static struct fl t[] = {
		{ 0, "" },
		{ TS_FS_XFS | TS_F_FITRIM, "xfs|fitrim" },
		{ TS_FS_EXT4 | TS_F_SYNC | TS_F_FUA | TS_F_PREFLUSH, "ext4|sync|fua|preflush" },
		{ TS_F_ERROR | TS_F_METADATA | TS_F_SNAP_END, "error|metadata|snap-end" },
		{ 9 | 0x8000, "0x8009" },
		{ TS_FS_F2FS | TS_F_WORKLOAD, "f2fs|workload" },
		{ TS_FS_F2FS | 0x2000, "f2fs|0x2000" },
	};
	return cr_make_param_array(struct fl, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct fl *t, jsonl, flag_names)
{
	char buf[128];
	unsigned back = 0xdead;

	cr_assert_str_eq(ts_flags_str(t->flags, buf, sizeof(buf)), t->text);
	cr_assert_eq(ts_flags_parse(t->text, &back), 0);
	cr_assert_eq(back, t->flags);
}

Test(jsonl, flags_may_be_a_number)
{
	struct ts_record r;
	char err[256];
	const char *line = "{\"t\":1,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"8:16\",\"off\":4096,"
			   "\"len\":8192,\"ino\":3,\"lat\":0,\"flags\":32}";

	cr_assert_eq(ts_jsonl_parse_record(line, strlen(line), &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.flags, TS_F_SYNC);
	cr_assert_eq(r.dev, TS_DEV_MK(8, 16));
	cr_assert_eq(r.op, TS_OP_DISCARD);
	cr_assert_eq(r.length, 8192);
}

Test(jsonl, convert_to_forces_format)
{
	char a[512], j[512], b[512];
	size_t len;
	char *s;

	snprintf(a, sizeof(a), "%s/a.tsim", th_dir());
	snprintf(j, sizeof(j), "%s/a.txt", th_dir());
	snprintf(b, sizeof(b), "%s/b.jsonl", th_dir());
	cr_assert_eq(gen_trace(a, 20, TW_BINARY, 0), 0);
	run_ok("%s convert --to jsonl %s %s", a, j);
	s = th_slurp(j, &len);
	cr_assert_not_null(s);
	cr_assert_eq(strncmp(s, "{\"trimsim\":1,\"header\":{", 23), 0);
	cr_assert_eq(th_lines(s), 22);
	free(s);
	run_ok("%s convert --to binary %s %s", j, b);
	same_files(a, b);
}

Test(jsonl, failed_convert_leaves_nothing)
{
	char a[512], cmd[2048], *out = NULL, *err = NULL;
	size_t len;
	char *s;

	snprintf(a, sizeof(a), "%s/a.tsim", th_dir());
	cr_assert_eq(gen_trace(a, 20, TW_BINARY, 0), 0);
	s = th_slurp(a, &len);
	cr_assert_not_null(s);
	s[len - 30] ^= 0x55;	/* the footer's checksum */
	cr_assert_eq(th_write(a, s, len), 0);
	free(s);
	snprintf(cmd, sizeof(cmd), "%s convert %s %s/out.jsonl", th_trimsim(), a, th_dir());
	cr_assert_eq(th_run(cmd, NULL, &err), 1);
	cr_assert(strstr(err, "checksum mismatch"), "%s", err);
	snprintf(cmd, sizeof(cmd), "ls -A %s", th_dir());
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert_str_eq(out, "a.tsim\n");
	free(out);
	free(err);
}

Test(jsonl, salvage_keeps_whole_records)
{
	char a[512], b[512], cmd[2048], *err = NULL;
	struct trace_reader *r;
	size_t len;
	char *s;

	snprintf(a, sizeof(a), "%s/a.tsim", th_dir());
	snprintf(b, sizeof(b), "%s/b.tsim", th_dir());
	cr_assert_eq(gen_trace(a, 20, TW_BINARY, 0), 0);
	s = th_slurp(a, &len);
	cr_assert_not_null(s);
	cr_assert_eq(th_write(a, s, len - 48 - 5), 0);	/* footer gone, record 19 cut */
	free(s);
	snprintf(cmd, sizeof(cmd), "%s convert %s %s", th_trimsim(), a, b);
	cr_assert_eq(th_run(cmd, NULL, &err), 1);
	cr_assert(strstr(err, "19 whole records recovered (use --salvage to keep them)"), "%s", err);
	free(err);
	snprintf(cmd, sizeof(cmd), "%s convert --salvage %s %s", th_trimsim(), a, b);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0);
	r = trace_reader__open(b, cmd, sizeof(cmd));
	cr_assert_not_null(r, "%s", cmd);
	while (trace_reader__batch(r, &(const struct ts_record *){ NULL }, 64) > 0)
		;
	cr_assert(trace_reader__status(r)->footer);
	cr_assert(trace_reader__status(r)->checksum_ok);
	cr_assert_eq(trace_reader__status(r)->records, 19);
	trace_reader__close(r);
}

struct help { char cmd[32]; };

ParameterizedTestParameters(jsonl, help_has_usage_and_example)
{
	static struct help t[] = { { "convert" }, { "info" } };

	return cr_make_param_array(struct help, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct help *t, jsonl, help_has_usage_and_example)
{
	char cmd[1024], *out = NULL;

	snprintf(cmd, sizeof(cmd), "%s %s --help", th_trimsim(), t->cmd);
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert(strstr(out, "usage: trimsim "), "%s", out);
	cr_assert(strstr(out, "example:\n  trimsim "), "%s", out);
	free(out);
}

/* The fast path and jansson must agree: every spelling of one record parses to the same record. */
struct spell { char line[256]; };

ParameterizedTestParameters(jsonl, spellings_agree)
{
	static struct spell t[] = {
		{ "{\"t\":5,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"8:16\",\"off\":4096,\"len\":8192,\"ino\":3,\"lat\":0,\"flags\":\"xfs|sync\"}\n" },
		{ " { \"flags\" : \"xfs|sync\" , \"lat\":0,\"ino\":3,\"len\":8192,\"off\":4096,\"dev\":\"8:16\",\"op\":\"discard\",\"kind\":\"ISSUE\",\"t\":5 }\r\n" },
		{ "{\"t\":\"5\",\"kind\":\"\\u0049SSUE\",\"op\":\"discard\",\"dev\":\"8:16\",\"off\":\"4096\",\"len\":8192,\"ino\":3,\"lat\":0,\"flags\":\"xfs|sync\"}" },
		{ "{\"t\":5,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"8:16\",\"off\":4096,\"len\":8192,\"ino\":3,\"lat\":0,\"flags\":34}" },
		{ "{\"t\":5,\"kind\":\"ISSUE\",\"op\":\"discard\",\"dev\":\"8:16\",\"off\":4096,\"len\":8192,\"ino\":3,\"lat\":0,\"flags\":\"sync|xfs\"}" },
	};
	return cr_make_param_array(struct spell, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct spell *t, jsonl, spellings_agree)
{
	struct ts_record r, want = { .time_ns = 5, .kind = TS_ISSUE, .op = TS_OP_DISCARD, .dev = TS_DEV_MK(8, 16),
				     .offset = 4096, .length = 8192, .ino = 3, .flags = TS_FS_XFS | TS_F_SYNC };
	char err[256] = "";

	cr_assert_eq(ts_jsonl_parse_record(t->line, strlen(t->line), &r, err, sizeof(err)), 0, "%s: %s", t->line, err);
	cr_assert_eq(memcmp(&r, &want, sizeof(r)), 0, "%s", t->line);
}

/* What jansson rejects, the fast path must not accept. */
struct reject { char line[200]; char msg[120]; };

ParameterizedTestParameters(jsonl, fast_path_rejects_what_json_does)
{
	static struct reject t[] = {
		{ "{\"t\":05,\"kind\":\"ISSUE\",\"op\":\"read\",\"dev\":\"8:0\",\"off\":0,\"len\":1,\"ino\":0,\"lat\":0,\"flags\":\"\"}",
		  "invalid JSON: " },
		{ "{\"t\":5,\"kind\":\"ISSUE\",\"op\":\"read\",\"dev\":\"8:0\",\"off\":0,\"len\":1,\"ino\":0,\"lat\":0,\"flags\":\"\"} x",
		  "invalid JSON: " },
		{ "{\"t\":1e3,\"kind\":\"ISSUE\",\"op\":\"read\",\"dev\":\"8:0\",\"off\":0,\"len\":1,\"ino\":0,\"lat\":0,\"flags\":\"\"}",
		  "field \"t\": expected a non-negative integer, got a real number" },
		{ "{\"t\":9223372036854775808,\"kind\":\"ISSUE\",\"op\":\"read\",\"dev\":\"8:0\",\"off\":0,\"len\":1,\"ino\":0,\"lat\":0,\"flags\":\"\"}",
		  "invalid JSON: too big integer" },
		{ "{\"t\":\"18446744073709551616\",\"kind\":\"ISSUE\",\"op\":\"read\",\"dev\":\"8:0\",\"off\":0,\"len\":1,\"ino\":0,\"lat\":0,\"flags\":\"\"}",
		  "field \"t\": expected a non-negative integer, got a string that is not a number" },
	};
	return cr_make_param_array(struct reject, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct reject *t, jsonl, fast_path_rejects_what_json_does)
{
	struct ts_record r;
	char err[256] = "";

	cr_assert_eq(ts_jsonl_parse_record(t->line, strlen(t->line), &r, err, sizeof(err)), -EBADMSG, "%s", t->line);
	cr_assert_eq(strncmp(err, t->msg, strlen(t->msg)), 0, "%s: got '%s'", t->line, err);
}
