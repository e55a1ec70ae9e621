// SPDX-License-Identifier: GPL-2.0
/* trimsim info --json: the numbers, for a trace whose contents we know. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "tests/traces/gen.h"

TestSuite(info, .init = th_dir_init, .fini = th_dir_fini);

#define DEV_A TS_DEV_MK(8, 0)
#define DEV_B TS_DEV_MK(259, 1)

static const struct ts_record known[] = {
	{ .time_ns = 1000, .kind = TS_FREE, .dev = DEV_A, .offset = 0, .length = 8192, .ino = 12, .flags = TS_FS_XFS },
	{ .time_ns = 2000, .kind = TS_INTENT, .dev = DEV_A, .offset = 0, .length = 8192, .flags = TS_FS_XFS },
	{ .time_ns = 2500, .kind = TS_INTENT, .dev = DEV_A, .offset = 1 << 20, .length = 3 << 20, .flags = TS_FS_XFS },
	{ .time_ns = 3000, .kind = TS_BIO, .op = TS_OP_DISCARD, .dev = DEV_A, .length = 8192 },
	{ .time_ns = 4000, .kind = TS_ISSUE, .op = TS_OP_DISCARD, .dev = DEV_A, .length = 4096 },
	{ .time_ns = 4100, .kind = TS_ISSUE, .op = TS_OP_DISCARD, .dev = DEV_A, .offset = 4096, .length = 4096 },
	{ .time_ns = 4200, .kind = TS_ISSUE, .op = TS_OP_DISCARD, .dev = DEV_B, .length = 1 << 20 },
	{ .time_ns = 5000, .kind = TS_ISSUE, .op = TS_OP_WRITE, .dev = DEV_B, .length = 65536 },
	{ .time_ns = 9000, .kind = TS_DONE, .op = TS_OP_DISCARD, .dev = DEV_A, .length = 4096, .latency_ns = 5000 },
	{ .time_ns = 9500, .kind = TS_META, .op = TS_META_LOST, .length = 5, .ino = 1 },
	{ .time_ns = 600, .kind = TS_META, .op = TS_META_MARK, .ino = 1 },
};

static json_t *info_json(const char *path, int *rc)
{
	char cmd[1024], *out = NULL, *err = NULL;
	json_error_t jerr;
	json_t *o;

	snprintf(cmd, sizeof(cmd), "%s info --json %s", th_trimsim(), path);
	*rc = th_run(cmd, &out, &err);
	o = json_loads(out, 0, &jerr);
	cr_assert_not_null(o, "%s: %s (stderr %s)", jerr.text, out, err);
	free(out);
	free(err);
	return o;
}

static long long num(const json_t *o, const char *path)
{
	json_t *v = json_object_get(o, path);

	cr_assert(json_is_integer(v), "%s missing", path);
	return json_integer_value(v);
}

static long long get(const json_t *o, const char *a, const char *b, const char *c)
{
	const json_t *x = json_object_get(json_object_get(o, a), b);

	return num(x, c);
}

static void write_known(const char *path, enum trace_writer_format fmt)
{
	char err[512];
	json_t *h = gen_header();
	struct trace_writer *w = trace_writer__open(path, h, fmt, TW_ATOMIC, err, sizeof(err));

	cr_assert_not_null(w, "%s", err);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		cr_assert_eq(trace_writer__write(w, &known[i]), 0, "%s", trace_writer__error(w));
	trace_writer__add_lost(w, 7);
	cr_assert_eq(trace_writer__close(w, 10000, err, sizeof(err)), 0, "%s", err);
	json_decref(h);
}

static void check_known(const json_t *o)
{
	const json_t *devs = json_object_get(o, "per_device"), *h;

	cr_assert_eq(num(o, "records"), 11);
	cr_assert(json_is_true(json_object_get(o, "footer")));
	cr_assert(json_is_false(json_object_get(o, "truncated")));
	cr_assert(json_is_true(json_object_get(o, "checksum_ok")));
	cr_assert_eq(get(o, "kinds", "ISSUE", "records"), 4);
	cr_assert_eq(get(o, "kinds", "ISSUE", "bytes"), 4096 * 2 + (1 << 20) + 65536);
	cr_assert_eq(get(o, "kinds", "INTENT", "records"), 2);
	cr_assert_eq(get(o, "kinds", "INTENT", "bytes"), 8192 + (3 << 20));
	cr_assert_eq(get(o, "kinds", "FREE", "records"), 1);
	cr_assert_eq(get(o, "kinds", "ALLOC", "records"), 0);
	cr_assert_eq(get(o, "kinds", "META", "records"), 2);
	/* a META length is events lost, free bytes or nothing: no sum of them is a byte count */
	cr_assert_null(json_object_get(json_object_get(json_object_get(o, "kinds"), "META"), "bytes"));
	cr_assert_eq(get(o, "ops", "discard", "records"), 3);
	cr_assert_eq(get(o, "ops", "discard", "bytes"), 8192 + (1 << 20));
	cr_assert_eq(get(o, "ops", "write", "records"), 1);
	cr_assert_eq(get(o, "ops", "read", "records"), 0);
	cr_assert_eq(get(o, "meta", "lost", "records"), 1);
	cr_assert_eq(num(json_object_get(o, "lost"), "footer"), 7);
	cr_assert_eq(num(json_object_get(o, "lost"), "meta"), 5);
	cr_assert_eq(num(json_object_get(o, "lost"), "total"), 12);
	cr_assert_eq(num(json_object_get(o, "time"), "first_ns"), 600);
	cr_assert_eq(num(json_object_get(o, "time"), "last_ns"), 9500);
	cr_assert_eq(num(json_object_get(o, "time"), "span_ns"), 8900);
	cr_assert_eq(num(json_object_get(o, "time"), "end_ns"), 10000);
	/* Devices in first-seen order; META records belong to none. */
	cr_assert_eq(json_array_size(devs), 2);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(devs, 0), "dev")), "8:0");
	cr_assert_eq(num(json_array_get(devs, 0), "records"), 7);
	cr_assert_eq(num(json_array_get(devs, 0), "discards"), 2);
	cr_assert_eq(num(json_array_get(devs, 0), "discard_bytes"), 8192);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(devs, 1), "dev")), "259:1");
	/* the bytes of its device commands (ISSUE), not a sum of every kind's lengths (3.19 MiB for 8:0) */
	cr_assert_eq(num(json_array_get(devs, 0), "command_bytes"), 8192);
	cr_assert_null(json_object_get(json_array_get(devs, 0), "bytes"));
	cr_assert_eq(num(json_array_get(devs, 1), "command_bytes"), (1 << 20) + 65536);
	cr_assert_eq(num(json_array_get(devs, 1), "discards"), 1);
	/* log2 histograms: 4 KiB x2 and 1 MiB discards; 8 KiB and 3 MiB intents. */
	h = json_object_get(o, "discard_sizes");
	cr_assert_eq(json_array_size(h), 2);
	cr_assert_eq(num(json_array_get(h, 0), "log2"), 12);
	cr_assert_eq(num(json_array_get(h, 0), "count"), 2);
	cr_assert_eq(num(json_array_get(h, 1), "log2"), 20);
	cr_assert_eq(num(json_array_get(h, 1), "min_bytes"), 1 << 20);
	h = json_object_get(o, "intent_sizes");
	cr_assert_eq(json_array_size(h), 2);
	cr_assert_eq(num(json_array_get(h, 0), "log2"), 13);
	cr_assert_eq(num(json_array_get(h, 1), "log2"), 21);
	cr_assert_eq(json_array_size(json_object_get(o, "devices")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(o, "devices"), 0), "name")),
			 "loop7");
}

Test(info, json_numbers_binary)
{
	char path[512];
	json_t *o;
	int rc;

	snprintf(path, sizeof(path), "%s/k.tsim", th_dir());
	write_known(path, TW_BINARY);
	o = info_json(path, &rc);
	cr_assert_eq(rc, 0);
	check_known(o);
	cr_assert_str_eq(json_string_value(json_object_get(o, "format")), "binary");
	json_decref(o);
}

Test(info, json_numbers_jsonl)
{
	char path[512];
	json_t *o;
	int rc;

	snprintf(path, sizeof(path), "%s/k.jsonl", th_dir());
	write_known(path, TW_JSONL);
	o = info_json(path, &rc);
	cr_assert_eq(rc, 0);
	check_known(o);
	cr_assert_str_eq(json_string_value(json_object_get(o, "format")), "jsonl");
	json_decref(o);
}

Test(info, text_report)
{
	char path[512], cmd[1024], *out = NULL;

	snprintf(path, sizeof(path), "%s/k.tsim", th_dir());
	write_known(path, TW_BINARY);
	snprintf(cmd, sizeof(cmd), "%s info %s", th_trimsim(), path);
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert(strstr(out, "status:   complete, checksum ok\n"), "%s", out);
	cr_assert(strstr(out, "records:  11\n"), "%s", out);
	cr_assert(strstr(out, "lost:     12 events (footer 7, META lost records 5)\n"), "%s", out);
	cr_assert(strstr(out, "\nMETA                2              -\n"), "%s", out);
	cr_assert(strstr(out, "discard commands (ISSUE) (log2 buckets): 3\n"), "%s", out);
	cr_assert(strstr(out, "  [   4 KiB,    8 KiB)            2 "), "%s", out);
	cr_assert(strstr(out, "7:0      loop7"), "%s", out);
	free(out);
}

Test(info, truncated_json_still_reports)
{
	char path[512];
	size_t len;
	char *s;
	json_t *o;
	int rc;

	snprintf(path, sizeof(path), "%s/k.tsim", th_dir());
	write_known(path, TW_BINARY);
	s = th_slurp(path, &len);
	cr_assert_not_null(s);
	cr_assert_eq(th_write(path, s, len - 48 - 48 - 20), 0);
	free(s);
	o = info_json(path, &rc);
	cr_assert_eq(rc, 1);
	cr_assert_eq(num(o, "records"), 9);
	cr_assert(json_is_true(json_object_get(o, "truncated")));
	cr_assert(strstr(json_string_value(json_object_get(o, "warning")), "9 whole records recovered"));
	json_decref(o);
}

/* Issue 16: plain info shows the discard-to-free ratio per device and warns past 10x (recorded traces). */
struct ratio_case {
	char trace[48];
	char line[160];		/* the device row's tail: freed and discard/free */
	bool warn;
	double ratio;
};

static const struct ratio_case ratio_cases[] = {
	/* ext4 >= 6.6: each discard extends over the free run around the freed blocks */
	{ "ext4-discard-rmtree", "91.4 GiB        202 MiB          464x\n", true, 463.9 },
	{ "xfs-discard-rmtree", "206 MiB        206 MiB            1x\n", false, 1.0 },
	/* the db workload frees 4 MiB WAL segments whole */
	{ "ext4-discard-db", "180 MiB        192 MiB        0.938x\n", false, 0.9375 },
};

Test(info, discard_to_free_ratio)
{
	for (size_t i = 0; i < sizeof(ratio_cases) / sizeof(ratio_cases[0]); i++) {
		const struct ratio_case *c = &ratio_cases[i];
		char path[1024], cmd[2200], *out = NULL;
		json_t *j, *d;

		snprintf(path, sizeof(path), "%s/traces/corpus/%s.tsim", th_src(), c->trace);
		snprintf(cmd, sizeof(cmd), "%s info %s", th_trimsim(), path);
		cr_assert_eq(th_run(cmd, &out, NULL), 0);
		cr_expect(strstr(out, c->line), "%s: %s", c->trace, out);
		cr_expect_eq(strstr(out, "warning: 7:") != NULL, c->warn, "%s: %s", c->trace, out);
		free(out);
		snprintf(cmd, sizeof(cmd), "%s info --json %s", th_trimsim(), path);
		cr_assert_eq(th_run(cmd, &out, NULL), 0);
		cr_assert_not_null(j = json_loads(out, 0, NULL));
		d = json_array_get(json_object_get(j, "per_device"), 0);
		cr_expect_float_eq(json_real_value(json_object_get(d, "discard_to_free")), c->ratio, 0.05 * c->ratio,
				   "%s", c->trace);
		cr_expect_eq(json_is_true(json_object_get(d, "discard_to_free_warning")), c->warn, "%s", c->trace);
		cr_expect_float_eq((double)json_integer_value(json_object_get(d, "discard_bytes")),
				   c->ratio * (double)json_integer_value(json_object_get(d, "freed_bytes")),
				   0.001 * (double)json_integer_value(json_object_get(d, "discard_bytes")), "%s", c->trace);
		json_decref(j);
		free(out);
	}
}

/* The discard BIOs the recorded command's own threads submitted (flag workload): counted per device. */
Test(info, workload_bios)
{
	static const struct { const char *trace, *line; long long bytes; } t[] = {
		{ "btrfs-discard-churn", "7:0        442 of 5832 discard BIOs (25.7 MiB) submitted by the recorded "
					 "command's own threads (flag workload)\n", 26968064 },
		{ "xfs-discard-rmtree", NULL, 0 },	/* recorded before the flag (revision 1) */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char path[1024], cmd[2200], *out = NULL;
		json_t *j;
		int rc;

		snprintf(path, sizeof(path), "%s/traces/corpus/%s.tsim", th_src(), t[i].trace);
		snprintf(cmd, sizeof(cmd), "%s info %s", th_trimsim(), path);
		cr_assert_eq(th_run(cmd, &out, NULL), 0);
		if (t[i].line)
			cr_expect(strstr(out, t[i].line), "%s: %s", t[i].trace, out);
		else
			cr_expect(!strstr(out, "flag workload"), "%s: %s", t[i].trace, out);
		free(out);
		j = info_json(path, &rc);
		cr_expect_eq(num(json_array_get(json_object_get(j, "per_device"), 0), "workload_bio_bytes"), t[i].bytes,
			     "%s", t[i].trace);
		json_decref(j);
	}
}
