// SPDX-License-Identifier: GPL-2.0
/*
 * When the trace cannot tell whether the workload waited (DESIGN.md, the verdict):
 * a recorded XFS rm -rf (traces/corpus/xfs-discard-rmtree.tsim) without its block
 * layer records (as `trimsim import --from trace-cmd` gives it when only the fs
 * events were enabled): no foreground I/O, and the kernel presets discard from
 * background workers. Before issue 16 this read "discard does not matter on any of
 * the 2 profiles"; it must say the trace cannot tell, with the TRIM time against
 * the trace span. The same trace with its I/O keeps the foreground verdict.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "traces/trace.h"

/* The trace minus its BIO, ISSUE and DONE records. */
static void strip_block(const char *in, const char *out)
{
	char err[512];
	struct trace_reader *r = trace_reader__open(in, err, sizeof(err));
	struct trace_writer *w;
	const struct ts_record *recs;
	ssize_t n;

	cr_assert_not_null(r, "%s", err);
	w = trace_writer__open(out, trace_reader__header(r), TW_BINARY, TW_ATOMIC, err, sizeof(err));
	cr_assert_not_null(w, "%s", err);
	while ((n = trace_reader__batch(r, &recs, 4096)) > 0)
		for (ssize_t i = 0; i < n; i++)
			if (recs[i].kind != TS_BIO && recs[i].kind != TS_ISSUE && recs[i].kind != TS_DONE)
				cr_assert_eq(trace_writer__write(w, &recs[i]), 0);
	cr_assert_eq(n, 0);
	cr_assert_eq(trace_writer__close(w, trace_reader__status(r)->end_ns, err, sizeof(err)), 0, "%s", err);
	trace_reader__close(r);
}

static json_t *compare(const char *dir, const char *trace, char **text)
{
	char cmd[2048], p[512], *err = NULL;
	json_t *j;

	snprintf(cmd, sizeof(cmd), "cd %s && %s compare %s -p xfs,ufs,none -M sata-sf2281,nvme --jobs 2 -o r.json",
		 dir, th_trimsim(), trace);
	cr_assert_eq(th_run(cmd, text, &err), 0, "%s: %s", cmd, err);
	free(err);
	snprintf(p, sizeof(p), "%s/r.json", dir);
	cr_assert_not_null(j = json_load_file(p, 0, NULL));
	return j;
}

static const char *basis(const json_t *rep, const char *policy, const char *profile)
{
	size_t i;
	const json_t *c;

	json_array_foreach(json_object_get(rep, "cells"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "policy")), policy) &&
		    !strcmp(json_string_value(json_object_get(c, "profile")), profile))
			return json_string_value(json_object_get(c, "wait_basis"));
	return NULL;
}

TestSuite(untold, .init = th_dir_init, .fini = th_dir_fini);

Test(untold, no_foreground_io_cannot_tell, .timeout = 300)
{
	const char *dir = th_dir();
	char in[1024], out[1024], *text = NULL;
	json_t *rep;

	snprintf(in, sizeof(in), "%s/traces/corpus/xfs-discard-rmtree.tsim", th_src());
	snprintf(out, sizeof(out), "%s/fs-only.tsim", dir);
	strip_block(in, out);
	rep = compare(dir, "fs-only.tsim", &text);
	cr_expect(strstr(text, "on sata-sf2281, the trace cannot tell whether discard matters: it has no foreground "
			 "I/O, and `ufs` discards from a background worker (the workload would feel it only through "
			 "the device); `ufs` spends 2.18 min in TRIM, 45.7x the 2.86 s trace span"), "%s", text);
	cr_expect(strstr(text, "on nvme, the trace cannot tell whether discard matters"), "%s", text);
	cr_expect_null(strstr(text, "does not matter"), "%s", text);
	cr_expect_str_eq(basis(rep, "xfs", "sata-sf2281"), "unknown");
	cr_expect_str_eq(basis(rep, "ufs", "nvme"), "unknown");
	json_decref(rep);
	free(text);
	/* with its I/O, the same workload is judged by what its I/O waited */
	rep = compare(dir, in, &text);
	cr_expect_null(strstr(text, "cannot tell"), "%s", text);
	cr_expect_str_eq(basis(rep, "xfs", "sata-sf2281"), "foreground");
	json_decref(rep);
	free(text);
}
