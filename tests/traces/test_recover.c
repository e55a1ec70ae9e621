// SPDX-License-Identifier: GPL-2.0
/* A trace cut short: at every byte offset, and by SIGKILL of a streaming writer. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "traces/trace_int.h"
#include "tests/traces/gen.h"

TestSuite(recover, .init = th_dir_init, .fini = th_dir_fini);

/* Reads everything; returns records, or -1 if open failed. Checks each record against gen_record. */
static long read_all(const char *path, struct trace_status *st, char *err, size_t errlen)
{
	struct trace_reader *r = trace_reader__open(path, err, errlen);
	const struct ts_record *recs;
	uint64_t i = 0;
	ssize_t n;

	if (!r)
		return -1;
	while ((n = trace_reader__batch(r, &recs, 3)) > 0) {
		for (ssize_t k = 0; k < n; k++, i++) {
			struct ts_record want;

			gen_record(i, 1, &want);
			cr_assert_eq(memcmp(&want, &recs[k], sizeof(want)), 0, "%s: record %llu", path,
				     (unsigned long long)i);
		}
	}
	cr_assert_eq(n, 0, "%s: %s", path, trace_reader__error(r));
	*st = *trace_reader__status(r);
	snprintf(err, errlen, "%s", trace_reader__error(r));
	trace_reader__close(r);
	return (long)i;
}

Test(recover, binary_cut_at_every_byte)
{
	char full[512], cut[512], err[512];
	size_t len, hlen;
	char *s;

	snprintf(full, sizeof(full), "%s/full.tsim", th_dir());
	snprintf(cut, sizeof(cut), "%s/cut.tsim", th_dir());
	cr_assert_eq(gen_trace(full, 5, TW_BINARY, 0), 0);
	s = th_slurp(full, &len);
	cr_assert_not_null(s);
	hlen = (unsigned char)s[4] | (size_t)(unsigned char)s[5] << 8;
	for (size_t at = 0; at <= len; at++) {
		struct trace_status st;
		long got;

		cr_assert_eq(th_write(cut, s, at), 0);
		got = read_all(cut, &st, err, sizeof(err));
		if (at < hlen) {
			cr_assert_eq(got, -1, "cut at %zu opened", at);
			cr_assert(strstr(err, "cut.tsim: byte "), "cut at %zu: %s", at, err);
			continue;
		}
		if (at == len) {
			cr_assert_eq(got, 5);
			cr_assert(st.footer && st.checksum_ok && !st.truncated);
			continue;
		}
		cr_assert_eq(got, (long)((at - hlen) / 48 < 5 ? (at - hlen) / 48 : 5), "cut at %zu", at);
		cr_assert(st.truncated, "cut at %zu", at);
		cr_assert_not(st.footer);
		cr_assert_eq(st.records, (uint64_t)got);
		cr_assert(strstr(err, "whole records recovered"), "cut at %zu: %s", at, err);
	}
	free(s);
}

Test(recover, jsonl_cut_at_every_byte)
{
	char full[512], cut[512], err[512];
	size_t len, hdr_end;
	char *s;

	snprintf(full, sizeof(full), "%s/full.jsonl", th_dir());
	snprintf(cut, sizeof(cut), "%s/cut.jsonl", th_dir());
	cr_assert_eq(gen_trace(full, 5, TW_JSONL, 0), 0);
	s = th_slurp(full, &len);
	cr_assert_not_null(s);
	hdr_end = (size_t)(strchr(s, '\n') - s) + 1;
	for (size_t at = 0; at <= len; at++) {
		struct trace_status st;
		long got, lines = 0;

		cr_assert_eq(th_write(cut, s, at), 0);
		got = read_all(cut, &st, err, sizeof(err));
		if (at < hdr_end - 1) {
			cr_assert_eq(got, -1, "cut at %zu opened", at);
			cr_assert(strstr(err, at ? "cut.jsonl: line 1: " : "cut.jsonl: byte 0: empty file"),
				  "cut at %zu: %s", at, err);
			continue;
		}
		for (size_t k = hdr_end; k < at; k++)
			lines += s[k] == '\n';
		if (at == len) {
			cr_assert_eq(got, 5);
			cr_assert(st.footer && !st.truncated);
			continue;
		}
		cr_assert_eq(got, lines < 5 ? lines : 5, "cut at %zu", at);
		cr_assert(st.truncated, "cut at %zu", at);
	}
	free(s);
}

/*
 * A trace cut while a reader is in the middle of it (what a TW_STREAM writer
 * starting over the same path does): the reader hands out every record it had
 * read before the cut and then ends as at any cut, with the same message;
 * nothing raises SIGBUS (traces/FORMAT.md, "Reading and writing in C"). The
 * reader has made its first read() (TS_READ_FIRST_RECORDS whole records and
 * the first bytes of the next) when the file is cut.
 */
struct live_cut {
	uint64_t whole;		/* whole records left before the cut */
	size_t part;		/* bytes of the next record left */
	uint64_t recovered;	/* records the reader hands out; 0: those of its first read() */
};

ParameterizedTestParameters(recover, cut_while_reading)
{
	static struct live_cut cuts[] = {
		{ .whole = 2 * TS_BUF_RECORDS + 17, .part = 20, .recovered = 2 * TS_BUF_RECORDS + 17 },
		{ .whole = 2 * TS_BUF_RECORDS, .part = 0, .recovered = 2 * TS_BUF_RECORDS },
		{ .whole = TS_BUF_RECORDS + 1, .part = 47, .recovered = TS_BUF_RECORDS + 1 },
		/* Inside the first read(): those records, and the bytes it read of the next, are the reader's copy. */
		{ .whole = 1000, .part = 5, .recovered = 0 },
	};

	return cr_make_param_array(struct live_cut, cuts, sizeof(cuts) / sizeof(cuts[0]));
}

ParameterizedTest(struct live_cut *c, recover, cut_while_reading)
{
	char path[512], err[512], want[256];
	const uint64_t n = 3 * TS_BUF_RECORDS + 100;
	const struct ts_record *recs;
	struct trace_reader *r;
	size_t len, hlen, at, end, part;
	uint64_t i = 0, recovered;
	ssize_t got;
	char *s;

	snprintf(path, sizeof(path), "%s/live.tsim", th_dir());
	cr_assert_eq(gen_trace(path, n, TW_BINARY, 0), 0);
	s = th_slurp(path, &len);
	cr_assert_not_null(s);
	hlen = len - (n + 1) * TS_RECORD_SIZE;
	at = hlen + c->whole * TS_RECORD_SIZE + c->part;
	recovered = c->recovered ? c->recovered : TS_READ_FIRST_RECORDS(hlen);
	part = c->recovered ? c->part : (TS_READ_BYTES - hlen % TS_READ_ALIGN) % TS_RECORD_SIZE;
	cr_assert(c->recovered || recovered > c->whole, "the first read() holds %llu records", (unsigned long long)recovered);
	r = trace_reader__open(path, err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	for (bool cut = false; (got = trace_reader__batch(r, &recs, 100)) > 0;) {
		for (ssize_t k = 0; k < got; k++, i++) {
			struct ts_record want_rec;

			gen_record(i, 1, &want_rec);
			cr_assert_eq(memcmp(&want_rec, &recs[k], sizeof(want_rec)), 0, "record %llu",
				     (unsigned long long)i);
		}
		if (!cut) {
			cr_assert_eq(truncate(path, (off_t)at), 0);
			cut = true;
		}
	}
	cr_assert_eq(got, 0, "%s", trace_reader__error(r));
	cr_assert_eq(i, recovered);
	cr_assert(trace_reader__status(r)->truncated && !trace_reader__status(r)->footer);
	end = hlen + recovered * TS_RECORD_SIZE;
	if (!part)
		snprintf(want, sizeof(want), "live.tsim: byte %zu: no footer, trace cut short; %llu whole records "
			 "recovered", end, (unsigned long long)recovered);
	else
		snprintf(want, sizeof(want), "live.tsim: byte %zu: truncated record (%zu of 48 bytes); %llu whole "
			 "records recovered", end, part, (unsigned long long)recovered);
	cr_assert(strstr(trace_reader__error(r), want), "%s\nwanted ...%s", trace_reader__error(r), want);
	trace_reader__close(r);
	free(s);
}

/* A streaming writer killed with SIGKILL: every flushed record is readable. */
static void killed_writer(const char *path, uint64_t flushed, uint64_t unflushed)
{
	pid_t pid = fork();
	int status;

	cr_assert_neq(pid, -1);
	if (pid == 0) {
		char err[512];
		json_t *h = gen_header();
		struct trace_writer *w = trace_writer__open(path, h, TW_BINARY, TW_STREAM, err, sizeof(err));

		if (!w)
			_exit(3);
		for (uint64_t i = 0; i < flushed + unflushed; i++) {
			struct ts_record r;

			gen_record(i, 1, &r);
			if (trace_writer__write(w, &r))
				_exit(4);
			if (i + 1 == flushed && trace_writer__flush(w))
				_exit(5);
		}
		raise(SIGKILL);
		_exit(6);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "writer status %#x", status);
}

Test(recover, stream_writer_killed)
{
	char path[512], err[512];
	struct trace_status st;

	snprintf(path, sizeof(path), "%s/stream.tsim", th_dir());
	killed_writer(path, 1000, 7);
	cr_assert_eq(read_all(path, &st, err, sizeof(err)), 1000, "%s", err);
	cr_assert(st.truncated);
	cr_assert(strstr(err, "no footer, trace cut short; 1000 whole records recovered"), "%s", err);
	/* A full buffer is written without an explicit flush. */
	killed_writer(path, 0, 5461 + 3);
	cr_assert_eq(read_all(path, &st, err, sizeof(err)), 5461, "%s", err);
	/* Header only. */
	killed_writer(path, 0, 3);
	cr_assert_eq(read_all(path, &st, err, sizeof(err)), 0, "%s", err);
	cr_assert(st.truncated);
}
