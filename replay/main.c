// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim: one binary, subcommands in one explicit table. main owns what every
 * command shares: SIGINT/SIGTERM (the flag long loops check, exit 130/143) and
 * the check that stdout really took what was printed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/cli.h"
#include "traces/output.h"
#include "traces/util.h"

static const struct command commands[] = {
	{ "record", cmd_record, "record discard activity on a live system (eBPF or tracefs)", CMD_FINISHES_ON_SIGNAL },
	{ "info", cmd_info, "summarize a trace: devices, counts and bytes per kind, sizes, losses" },
	{ "convert", cmd_convert, "convert a trace between binary and JSON Lines" },
	{ "import", cmd_import, "import blktrace, trace-cmd or FreeBSD DTrace output" },
	{ "export", cmd_export, "export a trace as blktrace binary or fio iolog" },
	{ "replay", cmd_replay, "replay a trace through a policy into a device model or device" },
	{ "compare", cmd_compare, "compare policies x device profiles over traces; report" },
	{ "recommend", cmd_recommend, "the discard settings to use per trace and device, and why" },
	{ "cell", cmd_cell, "run cells of a sweep's plan (a Slurm array task, a GNU parallel job)" },
	{ "calibrate", cmd_calibrate, "measure a real device and write a profile" },
	{ "policies", cmd_policies, "list policy stages and presets with their options" },
	{ "models", cmd_models, "list device profiles with their parameters and sources" },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim COMMAND [ARGS]   (trimsim COMMAND --help for each)\n"
		"\n"
		"Records discard (TRIM) activity with eBPF, replays it through consolidation\n"
		"policies against SSD models and real devices, and reports what each costs.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f,
		"\n"
		"example:\n"
		"  trimsim record -o rm.tsim -m /mnt/xfs -- rm -rf /mnt/xfs/linux\n"
		"  trimsim info rm.tsim\n"
		"  trimsim compare rm.tsim -p xfs,ext4,fstrim -M sata-sf2281,nvme\n"
		"  trimsim recommend rm.tsim -M sata-sf2281,nvme\n");
}

/* The command one or two edits from arg ("repaly": replay), NULL if none. */
static const char *near_command(const char *arg)
{
	const char *best = NULL;
	size_t bestd = 3;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		size_t n = strlen(commands[i].name), d = cli_edit_distance(arg, strlen(arg), commands[i].name, n);

		if (d < bestd && 2 * d < n)
			best = commands[i].name, bestd = d;
	}
	return best;
}

const struct command *cli_commands(size_t *n)
{
	*n = sizeof(commands) / sizeof(commands[0]);
	return commands;
}

/*
 * The first SIGINT/SIGTERM sets the flag: every command's loops see it within a
 * second, drop their temporary outputs and return; main then exits 128 + signal.
 * The second gets the default action (killed at once). No SA_RESTART: a read
 * from a FIFO, a poll or a sleep returns EINTR instead of waiting on.
 */
static void on_signal(int sig)
{
	if (trimsim_stop) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	trimsim_stop = sig;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * Everything printed must reach stdout (`>/dev/full`, a full disk): stdout is
 * written through an output (traces/output.h) whose stream keeps the errno of
 * the first failed write, and closed at the end like coreutils' close_stdout():
 * a failure is one line naming that errno, and a non-zero exit. (glibc lets a
 * program set stdout: "stdin, stdout, and stderr are normal variables".)
 */
static struct output *watch_stdout(FILE **orig)
{
	struct output *o = output__open("/dev/stdout", OUTPUT_ATOMIC, NULL, 0);
	FILE *f = o ? output__file(o) : NULL;

	if (!f) {	/* fd 1 closed or ENOMEM: the plain stream, checked below */
		output__abort(o);
		return NULL;
	}
	if (isatty(STDOUT_FILENO))
		setvbuf(f, NULL, _IOLBF, 0);
	*orig = stdout;
	stdout = f;
	return o;
}

static int close_stdout(const char *name, struct output *o, FILE *orig, int rc)
{
	char err[320] = "";
	int bad = 0;

	if (o) {
		stdout = orig;
		bad = output__commit(o, err, sizeof(err)) != 0;
	}
	errno = 0;
	if (!bad && (fflush(stdout) || ferror(stdout)))
		bad = snprintf(err, sizeof(err), "stdout: write error%s%s", errno ? ": " : "",
			       errno ? strerror(errno) : "");
	if (fclose(stdout) && !bad)
		bad = snprintf(err, sizeof(err), "stdout: close: %s", strerror(errno));
	if (!bad || (trimsim_stop && rc > 128))	/* interrupted: what stdout missed is no news */
		return rc;
	fprintf(stderr, "trimsim%s%s: %s\n", name ? " " : "", name ? name : "", err);
	return rc ? rc : 1;
}

static int run(const struct command *c, int argc, char **argv)
{
	int rc = c->fn(argc, argv);

	if (trimsim_stop && !(c->flags & CMD_FINISHES_ON_SIGNAL))
		rc = 128 + trimsim_stop;
	return rc;
}

int main(int argc, char **argv)
{
	FILE *orig = stdout;
	struct output *out;
	const char *near;

	catch_signals();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	out = watch_stdout(&orig);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return close_stdout(NULL, out, orig, 0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("trimsim %s\n", TRIMSIM_VERSION);
		return close_stdout(NULL, out, orig, 0);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		/* -V/--version is every command's (README.md, command-line conventions); --help its own */
		if (!cli_wants_help(argc - 1, argv + 1) && cli_wants_version(argc - 1, argv + 1)) {
			printf("trimsim %s\n", TRIMSIM_VERSION);
			return close_stdout(commands[i].name, out, orig, 0);
		}
		return close_stdout(commands[i].name, out, orig, run(&commands[i], argc - 1, argv + 1));
	}
	close_stdout(NULL, out, orig, 0);
	near = near_command(argv[1]);
	fprintf(stderr, "trimsim: unknown command '%s'%s%s%s; see 'trimsim --help'\n", argv[1],
		near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
	return 2;
}
