// SPDX-License-Identifier: GPL-2.0
/* Binary trace writer and reader: round trip, batches, byte order, checksum. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/common/helpers.h"
#include "traces/trace.h"
#include "traces/trace_int.h"
#include "tests/traces/gen.h"

TestSuite(format, .init = th_dir_init, .fini = th_dir_fini);

static json_t *test_header(void)
{
	char *argv[] = { "trimsim", "test" };
	json_t *h = trace_header__new(2, argv);
	struct ts_device d = { .name = "loop7", .dev = TS_DEV_MK(7, 0), .size = 1ull << 30,
			       .logical_block_size = 512, .physical_block_size = 4096,
			       .discard_granularity = 4096, .discard_max_bytes = 4ull << 30,
			       .max_discard_segments = 1, .fs = "xfs", .fs_block_size = 4096,
			       .xfs_agblocks = 65536, .mount = "/mnt/x" };

	cr_assert_not_null(h);
	cr_assert_eq(json_array_append_new(json_object_get(h, "devices"), ts_device_to_json(&d)), 0);
	return h;
}

static void write_trace(const char *path, uint64_t n, enum trace_writer_format fmt, uint64_t lost)
{
	char err[512] = "";
	json_t *h = test_header();
	struct trace_writer *w = trace_writer__open(path, h, fmt, TW_ATOMIC, err, sizeof(err));

	cr_assert_not_null(w, "%s", err);
	for (uint64_t i = 0; i < n; i++) {
		struct ts_record r;

		gen_record(i, 1, &r);
		cr_assert_eq(trace_writer__write(w, &r), 0, "%s", trace_writer__error(w));
	}
	trace_writer__add_lost(w, lost);
	cr_assert_eq(trace_writer__close(w, 123456789, err, sizeof(err)), 0, "%s", err);
	json_decref(h);
}

/* version: the format version the file must say (0: any) */
static void check_trace_v(const char *path, uint64_t n, uint64_t lost, bool big_endian, unsigned version)
{
	char err[512] = "";
	struct trace_reader *r = trace_reader__open(path, err, sizeof(err));
	const struct trace_status *st;
	const struct ts_device *d;
	const struct ts_record *recs;
	uint64_t i = 0;
	size_t nd;
	ssize_t got;

	cr_assert_not_null(r, "%s", err);
	d = trace_reader__devices(r, &nd);
	cr_assert_eq(nd, 1);
	cr_assert_str_eq(d[0].name, "loop7");
	cr_assert_eq(d[0].dev, TS_DEV_MK(7, 0));
	cr_assert_eq(d[0].discard_max_bytes, 4ull << 30);
	cr_assert_eq(d[0].xfs_agblocks, 65536);
	cr_assert_str_eq(d[0].mount, "/mnt/x");
	while ((got = trace_reader__batch(r, &recs, 1000)) > 0) {
		for (ssize_t k = 0; k < got; k++, i++) {
			struct ts_record want;

			gen_record(i, 1, &want);
			cr_assert_eq(memcmp(&recs[k], &want, sizeof(want)), 0, "record %llu differs",
				     (unsigned long long)i);
		}
	}
	cr_assert_eq(got, 0, "%s", trace_reader__error(r));
	st = trace_reader__status(r);
	cr_assert_eq(i, n);
	cr_assert_eq(st->records, n);
	cr_assert(st->footer);
	cr_assert_not(st->truncated);
	cr_assert(st->checksum_ok);
	cr_assert_eq(st->lost, lost);
	cr_assert_eq(st->end_ns, 123456789);
	cr_assert_eq(st->big_endian, big_endian);
	if (version)
		cr_assert_eq(st->version, version);
	trace_reader__close(r);
}

static void check_trace(const char *path, uint64_t n, uint64_t lost, bool big_endian)
{
	check_trace_v(path, n, lost, big_endian, 0);
}

Test(format, binary_round_trip_across_buffers)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/a.tsim", th_dir());
	/* 3 buffers and a bit: records straddle every refill. Both format versions: the writer's default (2) and 1. */
	write_trace(path, 3 * 5461 + 17, TW_BINARY, 42);
	check_trace_v(path, 3 * 5461 + 17, 42, false, TS_VERSION);
	write_trace(path, 3 * 5461 + 17, TW_BINARY_V1, 42);
	check_trace_v(path, 3 * 5461 + 17, 42, false, 1);
}

Test(format, empty_trace)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/e.tsim", th_dir());
	write_trace(path, 0, TW_BINARY, 0);
	check_trace(path, 0, 0, false);
	write_trace(path, 0, TW_BINARY_V1, 0);
	check_trace_v(path, 0, 0, false, 1);
}

Test(format, next_matches_batch)
{
	char path[512], err[512];
	struct trace_reader *r;
	struct ts_record rec, want;
	uint64_t i = 0;
	int ret;

	snprintf(path, sizeof(path), "%s/n.tsim", th_dir());
	write_trace(path, 100, TW_BINARY, 0);
	r = trace_reader__open(path, err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	while ((ret = trace_reader__next(r, &rec)) == 1) {
		gen_record(i++, 1, &want);
		cr_assert_eq(memcmp(&rec, &want, sizeof(rec)), 0);
	}
	cr_assert_eq(ret, 0);
	cr_assert_eq(i, 100);
	trace_reader__close(r);
}

/* Swaps every multi-byte field of a little-endian trace file: what a big-endian host writes. */
static void swap_file(const char *in, const char *out)
{
	size_t len, hlen;
	unsigned char *b = (unsigned char *)th_slurp(in, &len);

	cr_assert_not_null(b);
	hlen = (size_t)b[4] | (size_t)b[5] << 8 | (size_t)b[6] << 16 | (size_t)b[7] << 24;
	for (int f = 0; f < 4; f++) {
		uint32_t v;

		memcpy(&v, b + 4 * f, 4);
		v = __builtin_bswap32(v);
		memcpy(b + 4 * f, &v, 4);
	}
	for (size_t at = hlen; at + 48 <= len; at += 48) {
		for (int f = 0; f < 5; f++) {
			uint64_t v;

			memcpy(&v, b + at + 8 * f, 8);
			v = __builtin_bswap64(v);
			memcpy(b + at + 8 * f, &v, 8);
		}
		uint32_t d;
		uint16_t fl;

		memcpy(&d, b + at + 40, 4);
		d = __builtin_bswap32(d);
		memcpy(b + at + 40, &d, 4);
		memcpy(&fl, b + at + 46, 2);
		fl = __builtin_bswap16(fl);
		memcpy(b + at + 46, &fl, 2);
	}
	cr_assert_eq(th_write(out, b, len), 0);
	free(b);
}

/* Recomputes the footer checksum of a swapped file (the checksum covers the bytes as written). */
static void fix_checksum(const char *path)
{
	size_t len, hlen;
	unsigned char *b = (unsigned char *)th_slurp(path, &len);
	struct ts_sum s;
	uint64_t sum;

	cr_assert_not_null(b);
	/* big-endian: the version is the magic's last byte, header_len a big-endian word */
	hlen = (size_t)b[4] << 24 | (size_t)b[5] << 16 | (size_t)b[6] << 8 | b[7];
	ts_sum_start(&s, b[3], b, hlen);
	ts_sum_update(&s, b + hlen, len - 48 - hlen);
	sum = __builtin_bswap64(ts_sum_final(&s));
	memcpy(b + len - 48 + 16, &sum, 8);
	cr_assert_eq(th_write(path, b, len), 0);
	free(b);
}

Test(format, big_endian_file)
{
	char a[512], b[512];

	snprintf(a, sizeof(a), "%s/le.tsim", th_dir());
	snprintf(b, sizeof(b), "%s/be.tsim", th_dir());
	write_trace(a, 6000, TW_BINARY_V1, 7);
	swap_file(a, b);
	fix_checksum(b);
	check_trace_v(b, 6000, 7, true, 1);
	write_trace(a, 6000, TW_BINARY, 7);
	swap_file(a, b);
	fix_checksum(b);
	check_trace_v(b, 6000, 7, true, TS_VERSION);
	/* and through the command line */
	{
		char cmd[1024], *out = NULL;
		json_t *o;

		snprintf(cmd, sizeof(cmd), "%s info --json %s", th_trimsim(), b);
		cr_assert_eq(th_run(cmd, &out, NULL), 0);
		o = json_loads(out, 0, NULL);
		cr_assert_not_null(o, "%s", out);
		cr_assert(json_is_true(json_object_get(o, "big_endian")));
		cr_assert(json_is_true(json_object_get(o, "checksum_ok")));
		cr_assert_eq(json_integer_value(json_object_get(o, "records")), 6000);
		json_decref(o);
		free(out);
	}
}

Test(format, record_to_host)
{
	struct ts_record r = { .time_ns = 0x0102030405060708ull, .dev = 0x0a0b0c0d, .kind = 4, .op = 4,
			       .flags = 0x1122 };

	ts_record_to_host(&r, false);
	cr_assert_eq(r.time_ns, 0x0102030405060708ull);
	ts_record_to_host(&r, true);
	cr_assert_eq(r.time_ns, 0x0807060504030201ull);
	cr_assert_eq(r.dev, 0x0d0c0b0a);
	cr_assert_eq(r.flags, 0x2211);
	cr_assert_eq(r.kind, 4);
}

Test(format, checksum_detects_order_and_content)
{
	uint64_t a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 2, 1, 3, 4, 5, 6 };
	struct ts_sum s1, s2, s3;

	ts_sum_init(&s1);
	ts_sum_init(&s2);
	ts_sum_init(&s3);
	ts_sum_update(&s1, a, sizeof(a));
	ts_sum_update(&s2, b, sizeof(b));
	ts_sum_update(&s3, a, 16);
	ts_sum_update(&s3, a + 2, 32);
	cr_assert_neq(ts_sum_final(&s1), ts_sum_final(&s2));
	cr_assert_eq(ts_sum_final(&s1), ts_sum_final(&s3));
}

static uint64_t sum_of(const void *buf, size_t len)
{
	struct ts_sum s;

	ts_sum_init(&s);
	ts_sum_update(&s, buf, len);
	return ts_sum_final(&s);
}

/* Four lanes (FORMAT.md, "Checksum"): any split, any swap of two words, in or across lanes. */
Test(format, checksum_lanes_split_and_swap)
{
	uint64_t w[23], v[23], whole;
	size_t cuts[] = { 0, 8, 16, 24, 32, 40, 48, 56, 96, 176 };

	for (size_t i = 0; i < 23; i++)
		w[i] = 0x0101010101010101ull * (i + 1) ^ (i << 40);
	whole = sum_of(w, sizeof(w));
	for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++)
		for (size_t d = c; d < sizeof(cuts) / sizeof(cuts[0]); d++) {
			struct ts_sum s;

			ts_sum_init(&s);
			ts_sum_update(&s, w, cuts[c]);
			ts_sum_update(&s, (char *)w + cuts[c], cuts[d] - cuts[c]);
			ts_sum_update(&s, (char *)w + cuts[d], sizeof(w) - cuts[d]);
			cr_assert_eq(ts_sum_final(&s), whole, "cuts at %zu and %zu", cuts[c], cuts[d]);
		}
	for (size_t i = 0; i < 23; i++)
		for (size_t j = i + 1; j < 23; j++) {
			memcpy(v, w, sizeof(w));
			v[i] = w[j];
			v[j] = w[i];
			cr_assert_neq(sum_of(v, sizeof(v)), whole, "words %zu and %zu swapped", i, j);
		}
	cr_assert_neq(sum_of(w, sizeof(w) - 8), whole, "one word fewer");
	memset(v, 0, sizeof(v));
	cr_assert_neq(sum_of(v, 8), sum_of(v, 16), "zero words still count");
}

/*
 * ts_sum_records (the reader's fused check + checksum) must sum exactly what
 * ts_sum_update sums, from any lane phase, and stop before the first bad
 * record, whether it is the first or the second of a pair.
 */
Test(format, sum_records_matches_update)
{
	struct ts_record recs[37];
	uint64_t pre[3] = { 7, 8, 9 };
	size_t bad_at[] = { 37, 0, 1, 20, 21, 36 };

	for (size_t i = 0; i < 37; i++)
		gen_record(i, 3, &recs[i]);
	for (size_t phase = 0; phase < 4; phase++)
		for (size_t b = 0; b < sizeof(bad_at) / sizeof(bad_at[0]); b++) {
			struct ts_record v[37];
			struct ts_sum s1, s2;
			size_t got;

			memcpy(v, recs, sizeof(v));
			if (bad_at[b] < 37)
				v[bad_at[b]].kind = b % 2 ? 0 : TS_KIND_FOOTER;
			ts_sum_init(&s1);
			ts_sum_init(&s2);
			ts_sum_update(&s1, pre, phase * 8);
			ts_sum_update(&s2, pre, phase * 8);
			got = ts_sum_records(&s1, (const unsigned char *)v, 37);
			ts_sum_update(&s2, v, bad_at[b] * sizeof(v[0]));
			cr_assert_eq(got, bad_at[b], "phase %zu: stopped at %zu, bad at %zu", phase, got, bad_at[b]);
			cr_assert_eq(ts_sum_final(&s1), ts_sum_final(&s2), "phase %zu, bad at %zu", phase, bad_at[b]);
		}
}

/* A trace that grows after open is read to its new end (read() goes on past the size at open). */
Test(format, reader_follows_a_growing_file)
{
	char full[512], part[512], err[512];
	const uint64_t n = 2 * 5461 + 100;
	const struct ts_record *recs;
	struct trace_reader *r;
	char *data;
	size_t len, cut;
	uint64_t i = 0;
	ssize_t got;
	FILE *f;

	snprintf(full, sizeof(full), "%s/full.tsim", th_dir());
	snprintf(part, sizeof(part), "%s/part.tsim", th_dir());
	write_trace(full, n, TW_BINARY, 0);
	data = th_slurp(full, &len);
	cr_assert_not_null(data);
	cut = len - 5000 * TS_RECORD_SIZE - 20;	/* inside a record, several windows before the end */
	f = fopen(part, "w");
	cr_assert_eq(fwrite(data, 1, cut, f), cut);
	cr_assert_eq(fflush(f), 0);
	r = trace_reader__open(part, err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	cr_assert_eq(fwrite(data + cut, 1, len - cut, f), len - cut);
	cr_assert_eq(fclose(f), 0);
	while ((got = trace_reader__batch(r, &recs, 777)) > 0)
		for (ssize_t k = 0; k < got; k++, i++) {
			struct ts_record want;

			gen_record(i, 1, &want);
			cr_assert_eq(memcmp(&recs[k], &want, sizeof(want)), 0, "record %llu differs",
				     (unsigned long long)i);
		}
	cr_assert_eq(got, 0, "%s", trace_reader__error(r));
	cr_assert_eq(i, n);
	cr_assert(trace_reader__status(r)->footer && trace_reader__status(r)->checksum_ok);
	trace_reader__close(r);
	free(data);
}

Test(format, atomic_abort_leaves_nothing)
{
	char path[512], err[512], *out = NULL, cmd[600];
	json_t *h = test_header();
	struct trace_writer *w;
	struct ts_record r;

	snprintf(path, sizeof(path), "%s/ab.tsim", th_dir());
	w = trace_writer__open(path, h, TW_BINARY, TW_ATOMIC, err, sizeof(err));
	cr_assert_not_null(w, "%s", err);
	gen_record(0, 1, &r);
	cr_assert_eq(trace_writer__write(w, &r), 0);
	trace_writer__abort(w);
	json_decref(h);
	snprintf(cmd, sizeof(cmd), "ls -A %s", th_dir());
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert_str_eq(out, "");
	free(out);
}

Test(format, writer_rejects_bad_record)
{
	char path[512], err[512];
	json_t *h = test_header();
	struct trace_writer *w;
	struct ts_record r = { .kind = 9 };

	snprintf(path, sizeof(path), "%s/bad.tsim", th_dir());
	w = trace_writer__open(path, h, TW_BINARY, TW_ATOMIC, err, sizeof(err));
	cr_assert_not_null(w, "%s", err);
	cr_assert_eq(trace_writer__write(w, &r), -EINVAL);
	cr_assert(strstr(trace_writer__error(w), "unknown kind 9"), "%s", trace_writer__error(w));
	trace_writer__abort(w);
	json_decref(h);
}

Test(format, writer_rejects_bad_header)
{
	char path[512], err[512] = "";
	json_t *h = json_pack("{sss[{ss}]}", "format", "trimsim", "devices", "name", "sda");

	snprintf(path, sizeof(path), "%s/h.tsim", th_dir());
	cr_assert_null(trace_writer__open(path, h, TW_BINARY, TW_ATOMIC, err, sizeof(err)));
	cr_assert(strstr(err, "h.tsim: header devices[0]: device entry lacks \"dev\""), "%s", err);
	json_decref(h);
}

/* A path longer than the reader's and writer's 512-byte message: the message is cut at the end, not written past it. */
Test(format, long_path_message_is_cut)
{
	char path[1024], err[512] = "";
	json_t *h = test_header();
	struct trace_writer *w;
	struct ts_record r = { .kind = 9 };
	int n = snprintf(path, sizeof(path), "%s", th_dir());

	for (int d = 0; d < 3; d++) {	/* three directories of 200 bytes each */
		n += snprintf(path + n, sizeof(path) - (size_t)n, "/%0200d", d);
		cr_assert_eq(mkdir(path, 0700), 0, "%s", strerror(errno));
	}
	snprintf(path + n, sizeof(path) - (size_t)n, "/t.tsim");
	cr_assert_null(trace_reader__open(path, err, sizeof(err)));
	cr_assert_eq(errno, ENOENT);
	cr_assert_eq(strlen(err), sizeof(err) - 1);
	cr_assert_eq(strncmp(err, path, sizeof(err) - 1), 0, "%s", err);

	w = trace_writer__open(path, h, TW_BINARY, TW_ATOMIC, err, sizeof(err));
	cr_assert_not_null(w, "%s", err);
	cr_assert_eq(trace_writer__write(w, &r), -EINVAL);
	cr_assert_eq(strlen(trace_writer__error(w)), sizeof(err) - 1);
	cr_assert_eq(strncmp(trace_writer__error(w), path, sizeof(err) - 1), 0);
	trace_writer__abort(w);
	json_decref(h);
}
