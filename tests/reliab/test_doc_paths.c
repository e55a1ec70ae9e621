// SPDX-License-Identifier: GPL-2.0
/*
 * Every repository path the documentation names is in git: the *.md files and
 * every `trimsim [CMD] --help` text. (Issue 14: tracer/freebsd/trimsim.d was
 * named by the README, traces/IMPORT_EXPORT.md and `trimsim import --help`,
 * but .gitignore's "*.d" kept it out of every commit.)
 *
 * A path is a word that starts with a top-level directory of the tree
 * (tracer/ traces/ replay/ models/ tests/ .ci/), read from the repository root,
 * or the target of a relative markdown link, read from the linking file's
 * directory. It must be a tracked file or a directory holding one. A path is
 * cut before a wildcard or a placeholder component in capitals without a dot
 * (tests/fuzz/regress/NAME/ names the directory tests/fuzz/regress/). A path
 * given to -o or --output in an example is a file the command writes, not one
 * the tree holds.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

static const char *const roots[] = { "tracer/", "traces/", "replay/", "models/", "tests/", ".ci/" };

struct tracked {
	char *text;	/* `git ls-files` output, split in place */
	char **path;	/* sorted */
	size_t n;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void tracked_load(struct tracked *t)
{
	char cmd[1200], *err = NULL;
	size_t cap = 0;

	snprintf(cmd, sizeof(cmd), "git -C '%s' ls-files", th_src());
	if (th_run(cmd, &t->text, &err) != 0 || !t->text || !*t->text)
		cr_skip_test("not a git checkout (git ls-files: %s)", err ? err : "");
	free(err);
	t->n = 0;
	for (char *l = strtok(t->text, "\n"); l; l = strtok(NULL, "\n")) {
		if (t->n == cap) {
			t->path = realloc(t->path, (cap = cap ? 2 * cap : 1024) * sizeof(*t->path));
			cr_assert_not_null(t->path);
		}
		t->path[t->n++] = l;
	}
	qsort(t->path, t->n, sizeof(*t->path), cmp_str);
}

static void tracked_free(struct tracked *t)
{
	free(t->path);
	free(t->text);
}

/* A tracked file, or a directory (with or without its trailing '/') holding one. */
static bool is_tracked(const struct tracked *t, const char *p)
{
	size_t lo = 0, hi = t->n, len = strlen(p);
	char dir[1024];

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(t->path[mid], p) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n && !strcmp(t->path[lo], p))
		return true;
	snprintf(dir, sizeof(dir), "%s%s", p, len && p[len - 1] == '/' ? "" : "/");
	return lo < t->n && !strncmp(t->path[lo], dir, strlen(dir));
}

static bool path_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == '/';
}

/* Cuts p at its first placeholder component (NAME, FILE, N): what precedes it is a directory. */
static void cut_placeholder(char *p)
{
	for (char *c = p; *c; ) {
		size_t len = strcspn(c, "/");
		bool caps = len > 0;

		for (size_t i = 0; i < len; i++)
			caps &= isupper((unsigned char)c[i]) || isdigit((unsigned char)c[i]) || c[i] == '_';
		if (caps) {
			*c = 0;
			return;
		}
		c += len + (c[len] == '/');
	}
}

/* What is not tracked, "\n  where: path" each (a buffer, not the heap: an assertion may end the test). */
struct missing {
	char text[8192];
	size_t n;
};

/* Adds "where: path" to m when path is not tracked. */
static void check(const struct tracked *t, const char *where, char *p, struct missing *m)
{
	size_t len;

	while ((len = strlen(p)) && (p[len - 1] == '.' || p[len - 1] == '-'))
		p[len - 1] = 0;
	if (is_tracked(t, p))
		return;
	cut_placeholder(p);
	if (!*p || is_tracked(t, p))
		return;
	len = strlen(m->text);
	snprintf(m->text + len, sizeof(m->text) - len, "\n  %s: %s", where, p);
	m->n++;
}

/* Words of text that start with a top-level directory. */
static void scan_words(const struct tracked *t, const char *where, const char *text, struct missing *m)
{
	for (const char *s = text; *s; ) {
		size_t len;
		char p[1024];

		if (!path_char(*s)) {
			s++;
			continue;
		}
		for (len = 0; path_char(s[len]); len++)
			;
		if ((s - text >= 3 && !strncmp(s - 3, "-o ", 3)) || (s - text >= 9 && !strncmp(s - 9, "--output ", 9))) {
			s += len;
			continue;
		}
		for (size_t r = 0; r < sizeof(roots) / sizeof(roots[0]); r++) {
			if (len >= sizeof(p) || strncmp(s, roots[r], strlen(roots[r])))
				continue;
			snprintf(p, sizeof(p), "%.*s", (int)len, s);
			check(t, where, p, m);
		}
		s += len;
	}
}

/* Resolves ".." and "." in a '/'-separated relative path, in place. False when it leaves the tree. */
static bool normalize(char *p)
{
	char *out = p, *in = p;

	while (*in) {
		size_t len = strcspn(in, "/");

		if (len == 1 && in[0] == '.') {
			/* skip */
		} else if (len == 2 && in[0] == '.' && in[1] == '.') {
			if (out == p)
				return false;
			for (out--; out > p && out[-1] != '/'; out--)
				;
		} else {
			memmove(out, in, len);
			out += len;
			if (in[len] == '/')
				*out++ = '/';
		}
		in += len + (in[len] == '/');
	}
	*out = 0;
	return true;
}

/* Relative markdown link targets: "](target)". */
static void scan_links(const struct tracked *t, const char *md, const char *text, struct missing *m)
{
	const char *slash = strrchr(md, '/');
	int dirlen = slash ? (int)(slash - md + 1) : 0;

	for (const char *s = strstr(text, "]("); s; s = strstr(s + 2, "](")) {
		size_t len = strcspn(s + 2, ")# \n");
		char p[1200];

		if (!len || !strncmp(s + 2, "http://", 7) || !strncmp(s + 2, "https://", 8) ||
		    !strncmp(s + 2, "mailto:", 7) || s[2] == '/')
			continue;
		snprintf(p, sizeof(p), "%.*s%.*s", dirlen, md, (int)len, s + 2);
		if (!normalize(p))
			continue;	/* outside the repository (../shared/...) */
		check(t, md, p, m);
	}
}

TestSuite(doc_paths, .timeout = 120);

Test(doc_paths, markdown_names_only_tracked_paths)
{
	static struct missing m;
	struct tracked t = { 0 };
	size_t docs = 0;

	tracked_load(&t);
	for (size_t i = 0; i < t.n; i++) {
		size_t len = strlen(t.path[i]);
		char path[1200], *text;

		if (len < 3 || strcmp(t.path[i] + len - 3, ".md"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", th_src(), t.path[i]);
		text = th_slurp(path, NULL);
		cr_assert_not_null(text, "%s", path);
		scan_words(&t, t.path[i], text, &m);
		scan_links(&t, t.path[i], text, &m);
		free(text);
		docs++;
	}
	tracked_free(&t);
	cr_assert_gt(docs, 10, "only %zu *.md files tracked", docs);
	cr_assert_eq(m.n, 0, "%zu paths named in the docs are not in git:%s", m.n, m.text);
}

Test(doc_paths, help_texts_name_only_tracked_paths)
{
	static struct missing m;
	struct tracked t = { 0 };
	char cmd[1200], *top = NULL;
	size_t helps = 0;
	const char *c;

	tracked_load(&t);
	snprintf(cmd, sizeof(cmd), "'%s' --help", th_trimsim());
	cr_assert_eq(th_run(cmd, &top, NULL), 0, "%s", cmd);
	scan_words(&t, "trimsim --help", top, &m);
	c = strstr(top, "\ncommands:\n");
	cr_assert_not_null(c, "no command list in trimsim --help:\n%s", top);
	/* "  name   what it does" lines up to the first line that is not one */
	for (c += 11; c[0] == ' ' && c[1] == ' ' && isalpha((unsigned char)c[2]); c = strchr(c, '\n') + 1) {
		char name[32], where[64], *out = NULL;

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(c + 2, " \n"), c + 2);
		snprintf(cmd, sizeof(cmd), "'%s' %s --help", th_trimsim(), name);
		cr_assert_eq(th_run(cmd, &out, NULL), 0, "%s", cmd);
		snprintf(where, sizeof(where), "trimsim %s --help", name);
		scan_words(&t, where, out, &m);
		free(out);
		helps++;
	}
	free(top);
	tracked_free(&t);
	cr_assert_geq(helps, 10, "only %zu commands in trimsim --help", helps);
	cr_assert_eq(m.n, 0, "%zu paths named by --help are not in git:%s", m.n, m.text);
}
