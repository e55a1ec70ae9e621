/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands. Each lives in the module that owns it (cmd_*.c). */
#ifndef TRIMSIM_CLI_H
#define TRIMSIM_CLI_H

#include <stddef.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the subcommand name */
	const char *help;
	unsigned flags;
};

/*
 * SIGINT/SIGTERM set trimsim_stop (traces/util.h) for every command, and main
 * exits 130/143 after the command returns; a command with this flag treats the
 * signal as "stop and finish" (record writes its footer) and keeps its own status.
 */
#define CMD_FINISHES_ON_SIGNAL 1u

const struct command *cli_commands(size_t *n);
/*
 * Splits a list on top-level commas: "xfs,fstrim(interval=1w,minlen=64K)" is two
 * items, strdup'd into v[*n...] (at most max). 0 or -errno with a message naming opt
 * and the column (cmd_compare.c).
 */
int cli_split_top(const char *opt, const char *list, char **v, size_t *n, size_t max, char *err, size_t errlen);
/*
 * --models: cli_split_top(), where an item "key=value" (a lower-case name) after one
 * with a ':' is an option of that one, as a single -M takes them:
 * "sata-sf2281:trim_base=5ms,qd=1,nvme" is two profiles, "file:PATH,qd=4" one target.
 */
int cli_split_models(const char *list, char **v, size_t *n, size_t max, char *err, size_t errlen);

/* Exit codes: 0 ok, 1 failure (bad input, I/O), 2 usage, 128 + signal when interrupted. */
int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_recommend(int argc, char **argv);
int cmd_cell(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_policies(int argc, char **argv);
int cmd_models(int argc, char **argv);

#endif
