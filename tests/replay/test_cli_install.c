// SPDX-License-Identifier: GPL-2.0
/*
 * make install / uninstall into a DESTDIR, the man pages generated from --help
 * (mandoc -Tlint clean, rendered by man -l, naming every option --help names),
 * and the bash completion driven through COMP_WORDS/COMP_CWORD (replay/cli.mk).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"

TestSuite(cli_install, .init = th_dir_init, .fini = th_dir_fini);

/* The commands `trimsim --help` lists, space-separated, into buf. */
static void commands(char *buf, size_t len)
{
	char cmd[1024], *out = NULL;

	snprintf(cmd, sizeof(cmd), "%s --help | awk '/^commands:$/ { on = 1; next } "
		 "on && /^  [a-z]/ { printf \"%%s \", $1; next } on { exit }'", th_trimsim());
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert(strstr(out, "replay "), "%s", out);
	snprintf(buf, len, "%s", out);
	free(out);
}

/* Runs sh -c cmd; asserts its status; returns its stdout (malloc'd). */
static char *sh(const char *cmd, int want)
{
	char *out = NULL, *err = NULL;
	int rc = th_run(cmd, &out, &err);

	cr_assert_eq(rc, want, "%s: exit %d: %s", cmd, rc, err);
	free(err);
	return out;
}

/*
 * Make inside a test: the jobserver of a `make test` around us is not ours, and
 * what `make all` built is installed as it is (-o: never remade here, where the
 * man pages are being read by the suite's other test at the same time).
 */
#define MAKE "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s"
#define MAKE_INSTALL MAKE " -o %s/trimsim -o %s/man/.stamp -C %s BUILD=%s install DESTDIR=%s PREFIX=/usr >/dev/null"

Test(cli_install, install_runs_documents_completes_and_uninstalls_cleanly)
{
	char cmd[4096], root[600], *out;

	snprintf(root, sizeof(root), "%s/pkg", th_dir());
	snprintf(cmd, sizeof(cmd), MAKE_INSTALL, th_build(), th_build(), th_src(), th_build(), root);
	free(sh(cmd, 0));

	/* the installed binary runs, from anywhere: its profiles are compiled in */
	snprintf(cmd, sizeof(cmd), "cd / && %s/usr/bin/trimsim --version && %s/usr/bin/trimsim models | grep -c '^nvme '",
		 root, root);
	out = sh(cmd, 0);
	cr_assert(!strncmp(out, "trimsim ", 8) && strstr(out, "\n1\n"), "%s", out);
	free(out);

	/* man -l renders the installed pages */
	snprintf(cmd, sizeof(cmd), "MANPAGER=cat MANWIDTH=80 man -l %s/usr/share/man/man1/trimsim-replay.1", root);
	out = sh(cmd, 0);
	cr_assert(strstr(out, "TRIMSIM-REPLAY(1)") && strstr(out, "--policy"), "%s", out);
	free(out);

	/* the installed completion completes a preset name with the installed binary */
	snprintf(cmd, sizeof(cmd), "bash -c '. %s/usr/share/bash-completion/completions/trimsim && "
		 "COMP_WORDS=(%s/usr/bin/trimsim replay t.tsim -p sort-m) COMP_CWORD=4 && _trimsim && "
		 "printf \"%%s\\n\" \"${COMPREPLY[@]}\"'", root, root);
	out = sh(cmd, 0);
	cr_assert_str_eq(out, "sort-merge-async\n");
	free(out);

	/* docs and the licence */
	snprintf(cmd, sizeof(cmd), "test -s %s/usr/share/doc/trimsim/LICENSE && test -s %s/usr/share/doc/trimsim/README.md",
		 root, root);
	free(sh(cmd, 0));
	/* every document the installed README links to is installed beside it */
	snprintf(cmd, sizeof(cmd), "cd %s/usr/share/doc/trimsim && grep -o '](\\([^)#]*\\.md\\)' README.md | "
		 "sed 's/^](//' | sort -u | while read -r f; do test -s \"$f\" || echo \"$f\"; done", root);
	out = sh(cmd, 0);
	cr_assert_str_eq(out, "", "README.md links to documents not installed:\n%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), MAKE " -C %s BUILD=%s uninstall DESTDIR=%s PREFIX=/usr >/dev/null", th_src(),
		 th_build(), root);
	free(sh(cmd, 0));
	snprintf(cmd, sizeof(cmd), "find %s ! -type d", root);
	out = sh(cmd, 0);
	cr_assert_str_eq(out, "", "left behind by uninstall:\n%s", out);
	free(out);
}

/* Every page lints clean, renders, and names every option its command's --help names. */
Test(cli_install, man_pages_follow_help_and_lint_clean)
{
	char cmds[1024], cmd[4096], *out, *tok, *save = NULL;
	int n = 0;

	commands(cmds, sizeof(cmds));
	snprintf(cmd, sizeof(cmd), "mandoc -Tlint %s/man/trimsim.1 2>&1", th_build());
	out = sh(cmd, 0);
	cr_assert_str_eq(out, "", "%s", out);
	free(out);
	for (tok = strtok_r(cmds, " ", &save); tok; tok = strtok_r(NULL, " ", &save), n++) {
		char page[700], *opts, *o, *s2 = NULL;

		snprintf(page, sizeof(page), "%s/man/trimsim-%s.1", th_build(), tok);
		snprintf(cmd, sizeof(cmd), "mandoc -Tlint %s 2>&1", page);
		out = sh(cmd, 0);
		cr_assert_str_eq(out, "", "%s", out);
		free(out);
		/* the long options of the help's option lines */
		snprintf(cmd, sizeof(cmd), "%s %s --help | grep -E '^ +-' | sed 's/^ *//; s/  .*//' | "
			 "grep -oE -- '--[a-z][a-z0-9-]*' | sort -u", th_trimsim(), tok);
		opts = sh(cmd, 0);
		cr_assert(opts[0], "trimsim %s --help names no option", tok);
		snprintf(cmd, sizeof(cmd), "MANPAGER=cat MANWIDTH=200 man -l %s | sed 's/\\x1b\\[[0-9;]*m//g; s/.\\x08//g'",
			 page);
		out = sh(cmd, 0);
		for (o = strtok_r(opts, "\n", &s2); o; o = strtok_r(NULL, "\n", &s2))
			cr_expect(strstr(out, o), "trimsim-%s.1 lacks %s", tok, o);
		free(opts);
		free(out);
	}
	cr_assert_geq(n, 10);
}

struct comp_case {
	char words[160];	/* after "trimsim"; the last is the word being completed */
	char want[64];		/* one line of COMPREPLY */
	char not[64];		/* a line that must not be there ("" = no check) */
};

static struct comp_case comps[] = {
	{ .words = "rep", .want = "replay", .not = "record" },
	{ .words = "replay t.tsim -p ext", .want = "ext4", .not = "xfs" },
	{ .words = "compare t.tsim -p xfs,ufs-t", .want = "xfs,ufs-trimcons" },
	{ .words = "replay t.tsim -M sata-s", .want = "sata-sf2281", .not = "sata-good" },
	{ .words = "compare t.tsim -M nvme,sata-g", .want = "nvme,sata-good" },
	{ .words = "models sd", .want = "sdcard" },
	{ .words = "cell --ra", .want = "--range" },
	{ .words = "compare t.tsim --pl", .want = "--plan" },
	{ .words = "compare --mer", .want = "--merge" },
	{ .words = "replay --no-b", .want = "--no-baseline" },
	{ .words = "export --to ''", .want = "fio" },
	{ .words = "convert --to j", .want = "jsonl" },
	{ .words = "import --from tr", .want = "trace-cmd" },
	{ .words = "record --backend t", .want = "tracefs" },
	{ .words = "info lic", .want = "licence.txt" },
};

/* s is one whole line of out. */
static bool has_line(const char *out, const char *s)
{
	size_t n = strlen(s);

	for (const char *p = out; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, s, n) && p[n] == '\n')
			return true;
	return false;
}

ParameterizedTestParameters(cli_install, completion)
{
	return cr_make_param_array(struct comp_case, comps, sizeof(comps) / sizeof(comps[0]));
}

ParameterizedTest(struct comp_case *c, cli_install, completion)
{
	char cmd[4096], *out;

	snprintf(cmd, sizeof(cmd), "touch %s/licence.txt", th_dir());
	free(sh(cmd, 0));
	snprintf(cmd, sizeof(cmd), "cd %s && bash -c '. \"$0\" && eval \"COMP_WORDS=(\\\"$1\\\" $2)\" && "
		 "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _trimsim && printf \"%%s\\n\" \"${COMPREPLY[@]}\"' "
		 "%s/replay/cli/trimsim.bash %s \"%s\"", th_dir(), th_src(), th_trimsim(), c->words);
	out = sh(cmd, 0);
	cr_expect(has_line(out, c->want), "%s: %s not offered: %s", c->words, c->want, out);
	cr_expect(!c->not[0] || !has_line(out, c->not), "%s: offered %s", c->words, c->not);
	free(out);
}
