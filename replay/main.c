// SPDX-License-Identifier: GPL-2.0
/* trimsim: one binary, subcommands in one explicit table. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"



/*
 * Subcommands not built yet: weak definitions that say so and exit 2.
 * A module that implements one defines the strong symbol.
 */
#define NOT_BUILT(fn, name)						\
	int __attribute__((weak)) fn(int argc, char **argv)		\
	{								\
		(void)argc;						\
		(void)argv;						\
		fprintf(stderr, "trimsim %s: not built yet\n", name);	\
		return 2;						\
	}

NOT_BUILT(cmd_record, "record")
NOT_BUILT(cmd_info, "info")
NOT_BUILT(cmd_convert, "convert")
NOT_BUILT(cmd_import, "import")
NOT_BUILT(cmd_export, "export")
NOT_BUILT(cmd_replay, "replay")
NOT_BUILT(cmd_compare, "compare")
NOT_BUILT(cmd_calibrate, "calibrate")
NOT_BUILT(cmd_policies, "policies")
NOT_BUILT(cmd_models, "models")

static const struct command commands[] = {
	{ "record", cmd_record, "record discard activity on a live system (eBPF or tracefs)" },
	{ "info", cmd_info, "summarize a trace: devices, counts and bytes per kind, sizes, losses" },
	{ "convert", cmd_convert, "convert a trace between binary and JSON Lines" },
	{ "import", cmd_import, "import blktrace, trace-cmd or FreeBSD DTrace output" },
	{ "export", cmd_export, "export a trace as blktrace binary or fio iolog" },
	{ "replay", cmd_replay, "replay a trace through a policy into a device model or device" },
	{ "compare", cmd_compare, "compare policies x device profiles over traces; report" },
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
		"  trimsim compare rm.tsim -p xfs,ext4,fstrim -M sata-sf2281,nvme\n");
}

const struct command *cli_commands(size_t *n)
{
	*n = sizeof(commands) / sizeof(commands[0]);
	return commands;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("trimsim %s\n", TRIMSIM_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "trimsim: unknown command '%s' (try trimsim --help)\n", argv[1]);
	return 2;
}
