// SPDX-License-Identifier: GPL-2.0
/*
 * The corpus README table (traces/corpus/README.md) against `trimsim info --json` of each trace:
 * records per kind, discard commands and bytes, file size, kernel and filesystem; every trace
 * has a row, every row a trace, and the corpus stays under 20 MB.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/common/helpers.h"

#define NCOL 16
#define CORPUS_LIMIT (20u << 20)

static const char *const kinds[] = { "FREE", "ALLOC", "INTENT", "BIO", "ISSUE", "DONE", "META" };

/* Splits a "| a | b |" row into trimmed cells; returns the count. */
static int cells(char *row, char **c, int max)
{
	int n = 0;
	char *p = row, *bar;

	if (*p++ != '|')
		return 0;
	while (n < max && (bar = strchr(p, '|'))) {
		char *e = bar;

		*bar = 0;
		while (*p == ' ')
			p++;
		while (e > p && e[-1] == ' ')
			*--e = 0;
		c[n++] = p;
		p = bar + 1;
	}
	return n;
}

static uint64_t num(const char *s, const char *what, const char *trace)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	cr_assert(*s && !*end, "%s: %s '%s' is not a number", trace, what, s);
	return v;
}

static json_t *info(const char *path)
{
	char cmd[2600], *out = NULL, *err = NULL;
	json_error_t je;
	json_t *j;

	snprintf(cmd, sizeof(cmd), "'%s' info --json '%s'", th_trimsim(), path);
	cr_assert_eq(th_run(cmd, &out, &err), 0, "info %s: %s", path, err);
	j = json_loads(out, 0, &je);
	cr_assert_not_null(j, "%s: %s", path, je.text);
	free(out);
	free(err);
	return j;
}

static uint64_t jnum(json_t *o, const char *a, const char *b)
{
	return (uint64_t)json_integer_value(json_object_get(json_object_get(o, a), b));
}

Test(corpus, readme_matches_info, .timeout = 120)
{
	char path[1100], dirpath[1024], *readme, *line, *save = NULL;
	size_t rows = 0, files = 0;
	uint64_t total = 0;
	bool in_table = false;
	DIR *d;
	struct dirent *e;

	snprintf(dirpath, sizeof(dirpath), "%s/traces/corpus", th_src());
	snprintf(path, sizeof(path), "%s/README.md", dirpath);
	readme = th_slurp(path, NULL);
	cr_assert_not_null(readme, "%s", path);
	for (line = strtok_r(readme, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c[NCOL + 1], tpath[1200], kernel[128];
		json_t *j, *h, *dev;
		struct stat st;
		int n;

		if (!strcmp(line, "<!-- corpus table -->"))
			in_table = true;
		if (!in_table || strncmp(line, "| ", 2) || strstr(line, "| trace |"))
			continue;
		n = cells(line, c, NCOL + 1);
		cr_assert_eq(n, NCOL, "row with %d cells: %s", n, line);
		snprintf(tpath, sizeof(tpath), "%s/%s", dirpath, c[0]);
		cr_assert_eq(stat(tpath, &st), 0, "%s: listed but missing", c[0]);
		cr_assert_eq((uint64_t)st.st_size, num(c[15], "file bytes", c[0]), "%s: file bytes", c[0]);
		j = info(tpath);
		cr_assert(json_is_true(json_object_get(j, "checksum_ok")), "%s: checksum", c[0]);
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			cr_assert_eq(jnum(json_object_get(j, "kinds"), kinds[k], "records"),
				     num(c[6 + k], kinds[k], c[0]), "%s: %s records", c[0], kinds[k]);
		cr_assert_eq(jnum(json_object_get(j, "ops"), "discard", "records"), num(c[13], "discard ISSUEs", c[0]),
			     "%s: discard ISSUEs", c[0]);
		cr_assert_eq(jnum(json_object_get(j, "ops"), "discard", "bytes"), num(c[14], "discard bytes", c[0]),
			     "%s: discard bytes", c[0]);
		h = json_object_get(j, "header");
		snprintf(kernel, sizeof(kernel), "%s", json_string_value(json_object_get(h, "kernel")));
		kernel[strcspn(kernel, " ")] = 0;
		cr_assert_str_eq(kernel, c[1], "%s: kernel", c[0]);
		dev = json_array_get(json_object_get(h, "devices"), 0);
		cr_assert_str_eq(json_string_value(json_object_get(dev, "fs")), c[2], "%s: fs", c[0]);
		json_decref(j);
		total += (uint64_t)st.st_size;
		rows++;
	}
	free(readme);
	cr_assert_gt(rows, 0, "the README lists the corpus");
	d = opendir(dirpath);
	cr_assert_not_null(d);
	while ((e = readdir(d)))
		files += strlen(e->d_name) > 5 && !strcmp(e->d_name + strlen(e->d_name) - 5, ".tsim");
	closedir(d);
	cr_assert_eq(files, rows, "every trace in traces/corpus has a row");
	cr_assert_lt(total, CORPUS_LIMIT, "corpus is %llu bytes", (unsigned long long)total);
}
