// SPDX-License-Identifier: GPL-2.0
/*
 * tracer/freebsd/trimsim.d cannot run here (no FreeBSD, no dtrace): what can be
 * checked is that every line it can print is one the importer takes. Each
 * printf format of the script is rendered with sample values (numbers for %d
 * and %u, a name for %s) and the result goes through `trimsim import --from
 * dtrace`: one record per free, start and done line, with the op its CMD names.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

TestSuite(dtrace_script, .init = th_dir_init, .fini = th_dir_fini);

#define MAX_FMT 32

/* The format strings of every printf("...") in src, unescaped, in file order. */
static size_t formats(const char *src, char fmt[][160])
{
	size_t n = 0;

	for (const char *p = strstr(src, "printf(\""); p; p = strstr(p, "printf(\"")) {
		size_t len = 0;

		cr_assert_lt(n, MAX_FMT);
		for (p += 8; *p && *p != '"'; p++) {
			char c = *p;

			if (c == '\\') {
				c = *++p;
				cr_assert(c == 'n' || c == '"' || c == '\\', "escape \\%c in a printf of trimsim.d", c);
				if (c == 'n')
					c = '\n';
			}
			cr_assert_lt(len, 159);
			fmt[n][len++] = c;
		}
		fmt[n++][len] = 0;
	}
	return n;
}

/* DTrace's printf with sample values: %d %u -> v, %s -> "ada". Only the conversions the format allows. */
static void render(const char *fmt, unsigned long long v, char *out, size_t outlen)
{
	size_t len = 0;

	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			cr_assert_lt(len + 1, outlen);
			out[len++] = *p;
			continue;
		}
		p++;
		cr_assert(*p == 'd' || *p == 'u' || *p == 's',
			  "trimsim.d prints '%%%c' in \"%s\": the importer reads decimal numbers and names only", *p, fmt);
		len += (size_t)snprintf(out + len, outlen - len, *p == 's' ? "ada" : "%llu", v);
		cr_assert_lt(len, outlen);
	}
	out[len] = 0;
}

Test(dtrace_script, every_line_it_prints_imports)
{
	static const char *const cmds[] = { "read", "write", "delete", "flush" };
	static const char *const ops[] = { "read", "write", "discard", "flush" };
	char path[600], sample[600], tsim[600], jsonl[600], cmd[4096], fmt[MAX_FMT][160], line[400];
	char *src, *err = NULL, *text;
	size_t n, starts = 0, dones = 0, frees = 0, fss = 0, nissue = 0, ndone = 0, nfree = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tracer/freebsd/trimsim.d", th_src());
	src = th_slurp(path, NULL);
	cr_assert_not_null(src, "%s is missing", path);
	cr_assert(strstr(src, "BEGIN\n{\n\tprintf(\"trimsim-dtrace 1\\n\");\n}"),
		  "trimsim.d must print 'trimsim-dtrace 1' in BEGIN, before any record");
	n = formats(src, fmt);
	free(src);
	cr_assert_str_eq(fmt[0], "trimsim-dtrace 1\n");

	snprintf(sample, sizeof(sample), "%s/sample.txt", th_dir());
	f = fopen(sample, "w");
	cr_assert_not_null(f);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(fmt[i][strlen(fmt[i]) - 1], '\n', "printf \"%s\" ends no line", fmt[i]);
		/* numbers in range: a block size is a power of two (traces/bounds.c refuses others) */
		render(fmt[i], !strncmp(fmt[i], "fs ", 3) ? 4096 : 1000 * (i + 1), line, sizeof(line));
		fputs(line, f);
		fss += !strncmp(fmt[i], "fs ", 3);
		frees += !strncmp(fmt[i], "free ", 5);
		starts += !strncmp(fmt[i], "start ", 6);
		dones += !strncmp(fmt[i], "done ", 5);
	}
	cr_assert_eq(fclose(f), 0);
	/* every line kind of the format (tracer/freebsd/README.md), each disk command started and completed */
	cr_assert_eq(fss, 1);
	cr_assert_eq(frees, 1);
	cr_assert_eq(starts, 4);
	cr_assert_eq(dones, 4);

	snprintf(tsim, sizeof(tsim), "%s/s.tsim", th_dir());
	snprintf(jsonl, sizeof(jsonl), "%s/s.jsonl", th_dir());
	snprintf(cmd, sizeof(cmd), "%1$s import --from dtrace %2$s -o %3$s && %1$s convert %3$s %4$s", th_trimsim(),
		 sample, tsim, jsonl);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s", err);
	free(err);
	text = th_slurp(jsonl, NULL);
	cr_assert_not_null(text);
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		json_t *r = json_loads(l, 0, NULL);
		const char *kind = json_string_value(json_object_get(r, "kind"));
		const char *op = json_string_value(json_object_get(r, "op"));

		cr_assert_not_null(r, "%s", l);
		if (kind && !strcmp(kind, "FREE")) {
			nfree++;
			cr_assert_str_eq(json_string_value(json_object_get(r, "flags")), "ufs");
		}
		for (size_t c = 0; kind && c < 4; c++) {
			if (strcmp(op, ops[c]))
				continue;
			nissue += !strcmp(kind, "ISSUE");
			ndone += !strcmp(kind, "DONE");
		}
		json_decref(r);
	}
	free(text);
	cr_assert_eq(nfree, 1, "the free line is a FREE record");
	cr_assert_eq(nissue, 4, "start %s, %s, %s and %s are ISSUE records of their op", cmds[0], cmds[1], cmds[2],
		     cmds[3]);
	cr_assert_eq(ndone, 4, "done lines are DONE records");
}
