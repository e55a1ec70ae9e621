// SPDX-License-Identifier: GPL-2.0
/*
 * Progress on stderr for compare and recommend (issue 18): on a terminal (a
 * pty here), the header line first, before any cell has finished (the line
 * that follows it still says 0 cells done), then cells done/total, elapsed and
 * ETA, ending at the total; nothing at all when stderr is not a terminal or
 * with -q. The report on stdout is the same either way.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common/helpers.h"

TestSuite(progress, .init = th_dir_init, .fini = th_dir_fini, .timeout = 120);

/* Runs sh -c cmd in th_dir() with stdin, stdout and stderr on a new pty; what the pty got (malloc'd). */
static char *on_pty(const char *cmd, int *status)
{
	char full[4096], *buf = NULL;
	size_t len = 0, cap = 0;
	int master;
	pid_t pid;

	snprintf(full, sizeof(full), "cd %s && %s", th_dir(), cmd);
	pid = forkpty(&master, NULL, NULL, NULL);
	cr_assert_geq(pid, 0, "forkpty: %s", strerror(errno));
	if (!pid) {
		execl("/bin/sh", "sh", "-c", full, (char *)NULL);
		_exit(127);
	}
	for (;;) {
		ssize_t n;

		if (len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 16384;
			cr_assert_not_null(buf = realloc(buf, cap));
		}
		n = read(master, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)	/* EIO once the child side is closed */
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	close(master);
	cr_assert_eq(waitpid(pid, status, 0), pid);
	return buf;
}

struct pcase {
	char args[200];		/* after "trimsim ", the trace is $TRACE */
	char header[200];	/* the first line */
	char first[64];		/* what the line after the header starts with */
	char last[80];		/* the last state drawn */
};

static struct pcase cases[] = {
	{ "compare $TRACE -p xfs,none,ext4 -M nvme,sata-sf2281 -j 2",
	  "trimsim compare: 6 cells (1 traces x 3 policies x 2 profiles), 2 jobs\r\n", "\r  0/6 cells, ",
	  "\r  6/6 cells, " },
	{ "recommend $TRACE -M nvme,emmc -j 2",
	  "trimsim recommend: 1 traces x 2 profiles, a search each (at most 64 settings), 2 jobs\r\n",
	  "\r  search 1/2 (", "\r  search 2/2 (" },
};

ParameterizedTestParameters(progress, terminal)
{
	return cr_make_param_array(struct pcase, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct pcase *c, progress, terminal)
{
	char cmd[2048], *pty, *last, *piped = NULL, *err = NULL, *report_pty, *report_pipe;
	const char *trace = "traces/corpus/xfs-discard-rmlarge.tsim";
	int st;

	/* stdout to a file, stderr (and stdin) the terminal */
	snprintf(cmd, sizeof(cmd), "TRACE=%s/%s; %s %s > pty.out", th_src(), trace, th_trimsim(), c->args);
	pty = on_pty(cmd, &st);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d:\n%s", cmd, st, pty);
	cr_expect_eq(strncmp(pty, c->header, strlen(c->header)), 0, "the header comes first:\n%s", pty);
	cr_expect_eq(strncmp(pty + strlen(c->header), c->first, strlen(c->first)), 0,
		     "drawn before any cell finished:\n%s", pty);
	cr_expect(strstr(pty, " elapsed, ETA "), "%s", pty);
	last = strrchr(pty, '\r');
	cr_assert_not_null(last);
	/* the last state stays, its line ended ("\r\n" on a pty): the one before that "\r" */
	cr_expect(last > pty && !strcmp(last, "\r\n"), "ends its line:\n%s", pty);
	*last = 0;
	last = strrchr(pty, '\r');
	cr_expect(last && !strncmp(last, c->last, strlen(c->last)), "ends at the total: %s", last ? last : pty);

	/* stderr a pipe: nothing there, the same report on stdout */
	snprintf(cmd, sizeof(cmd), "cd %s && TRACE=%s/%s; %s %s", th_dir(), th_src(), trace, th_trimsim(), c->args);
	cr_assert_eq(th_run(cmd, &piped, &err), 0, "%s: %s", cmd, err);
	cr_expect_str_eq(err, "", "no progress off a terminal");
	snprintf(cmd, sizeof(cmd), "%s/pty.out", th_dir());
	cr_assert_not_null(report_pty = th_slurp(cmd, &(size_t){ 0 }));
	report_pipe = piped;
	cr_expect_str_eq(report_pty, report_pipe, "the report does not depend on the progress");
	free(report_pty);
	free(piped);
	free(err);

	/* -q on a terminal: nothing */
	snprintf(cmd, sizeof(cmd), "TRACE=%s/%s; %s %s -q -o q.json", th_src(), trace, th_trimsim(), c->args);
	free(pty);
	pty = on_pty(cmd, &st);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d:\n%s", cmd, st, pty);
	cr_expect_str_eq(pty, "", "-q: no progress");
	free(pty);
}
