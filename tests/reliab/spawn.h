/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the reliability suites that watch a running command: start the sanitized
 * binary without a shell (so nothing inherits an ignored SIGINT), stdout and
 * stderr into files, in a working directory; list a directory; feed a FIFO.
 */
#ifndef TRIMSIM_TESTS_RELIAB_SPAWN_H
#define TRIMSIM_TESTS_RELIAB_SPAWN_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/common/helpers.h"

extern char **environ;

/* Splits a command line on spaces (no quoting: the suites use plain paths). argv[0] is $TRIMSIM. */
static inline int sp_argv(char *line, char **argv, int max)
{
	int n = 0;

	argv[n++] = (char *)th_trimsim();
	for (char *save = NULL, *t = strtok_r(line, " ", &save); t && n < max - 1; t = strtok_r(NULL, " ", &save))
		argv[n++] = t;
	argv[n] = NULL;
	return n;
}

/* Starts `trimsim ARGS` in dir, stdout to out, stderr to err, SIGINT/SIGTERM at their default. */
static inline pid_t sp_start(const char *dir, const char *args, const char *out, const char *err)
{
	char line[2048], *argv[64], here[4096];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def;
	pid_t pid;
	int rc;

	snprintf(line, sizeof(line), "%s", args);
	sp_argv(line, argv, 64);
	cr_assert_not_null(getcwd(here, sizeof(here)));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawnattr_init(&at);
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_setsigdefault(&at, &def);
	sigemptyset(&def);
	posix_spawnattr_setsigmask(&at, &def);
	posix_spawnattr_setpgroup(&at, 0);	/* its own group: sp_kill_group() reaps what it leaves */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
	cr_assert_eq(chdir(dir), 0);
	rc = posix_spawn(&pid, argv[0], &fa, &at, argv, environ);
	cr_assert_eq(chdir(here), 0);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	cr_assert_eq(rc, 0, "posix_spawn %s: %s", argv[0], strerror(rc));
	return pid;
}

static inline uint64_t sp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Waits up to limit_ms for pid: its exit status, SP_KILLED + the signal if a signal
 * ended it (its own cleanup never ran), or -1 if it is still running.
 */
#define SP_KILLED 1000
static inline int sp_wait(pid_t pid, uint64_t limit_ms)
{
	uint64_t end = sp_now_ms() + limit_ms;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : SP_KILLED + WTERMSIG(st);
		if (sp_now_ms() >= end)
			return -1;
		usleep(10000);
	}
}

/* The names in dir, sorted, one per line (malloc'd). */
static inline char *sp_listing(const char *dir)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort);
	size_t len = 0, cap = 1;
	char *s;

	cr_assert_geq(n, 0, "scandir %s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++)
		cap += strlen(ents[i]->d_name) + 1;
	s = calloc(1, cap);
	cr_assert_not_null(s);
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, ".."))
			len += (size_t)sprintf(s + len, "%s\n", ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return s;
}

/* Whether dir holds a name starting with prefix (a temporary ".OUT.XXXXXX"). */
static inline bool sp_has_prefix(const char *dir, const char *prefix)
{
	char *l = sp_listing(dir), *p = l;
	bool found = false;

	for (char *e; p && *p && !found; p = e + 1) {
		e = strchr(p, '\n');
		found = !strncmp(p, prefix, strlen(prefix));
	}
	free(l);
	return found;
}

/*
 * A child that writes data into the FIFO path chunk bytes every period_us,
 * and once it has written it all keeps the FIFO open until killed (a pipe that
 * never ends). gen(i, buf, cap) may make the data instead: bytes for step i.
 */
typedef size_t (*sp_gen_fn)(uint64_t i, char *buf, size_t cap);

static inline pid_t sp_feeder(const char *path, const char *data, size_t len, sp_gen_fn gen, size_t chunk,
			      unsigned period_us)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(path, O_WRONLY);
		char *buf = malloc(chunk);
		size_t off = 0;

		signal(SIGPIPE, SIG_DFL);
		if (fd < 0 || !buf)
			_exit(1);
		for (uint64_t i = 0;; i++) {
			size_t n = gen ? gen(i, buf, chunk) : (len - off < chunk ? len - off : chunk);
			const char *p = gen ? buf : data + off;

			if (n && write(fd, p, n) != (ssize_t)n)
				_exit(0);
			off += gen ? 0 : n;
			usleep(period_us);
		}
	}
	return pid;
}

/* Kills whatever of pid's process group is left (workers a command failed to stop). */
static inline void sp_kill_group(pid_t pid)
{
	if (pid > 0)
		kill(-pid, SIGKILL);
}

static inline void sp_reap(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

#endif
