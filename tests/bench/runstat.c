// SPDX-License-Identifier: GPL-2.0
/*
 * Runs one command and reports what it cost, for tests/bench/bench.sh:
 *   runstat OUTFILE CMD [ARGS...]
 * writes one line to OUTFILE (the command's own stdout/stderr pass through):
 *   wall_s=W cpu_s=C rss_kb=R rc=N
 * wall from CLOCK_MONOTONIC around fork/wait, cpu = user + system and rss =
 * peak resident set of the child (wait4's rusage: ru_maxrss, KiB on Linux).
 * Exits with the command's status (128 + signal when killed).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	double t0, t1;
	int st, rc;
	pid_t pid;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: runstat OUTFILE CMD [ARGS...]\n");
		return 2;
	}
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "runstat: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "runstat: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "runstat: wait4: %s\n", strerror(errno));
			return 2;
		}
	t1 = now_s();
	rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	out = fopen(argv[1], "w");
	if (!out) {
		fprintf(stderr, "runstat: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	fprintf(out, "wall_s=%.6f cpu_s=%.6f rss_kb=%ld rc=%d\n", t1 - t0,
		tv_s(ru.ru_utime) + tv_s(ru.ru_stime), ru.ru_maxrss, rc);
	if (fclose(out)) {
		fprintf(stderr, "runstat: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	return rc;
}
