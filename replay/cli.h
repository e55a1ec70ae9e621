/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands. Each lives in the module that owns it (cmd_*.c). */
#ifndef TRIMSIM_CLI_H
#define TRIMSIM_CLI_H

#include <stddef.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the subcommand name */
	const char *help;
};

const struct command *cli_commands(size_t *n);

/* Exit codes: 0 ok, 1 failure (bad input, I/O), 2 usage or not built. */
int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_policies(int argc, char **argv);
int cmd_models(int argc, char **argv);

#endif
