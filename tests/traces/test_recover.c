// SPDX-License-Identifier: GPL-2.0
/* A trace cut short: at every byte offset, and by SIGKILL of a streaming writer. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/helpers.h"
#include "gen.h"

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
