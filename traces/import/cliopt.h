/* SPDX-License-Identifier: GPL-2.0 */
/* Plug-in options as long command-line options: key "xfs_agblocks" is --xfs-agblocks. */
#ifndef TRIMSIM_CLIOPT_H
#define TRIMSIM_CLIOPT_H

#include <stdbool.h>
#include <stdio.h>

#include "traces/opts.h"

/*
 * Plug-in registries (importers, exporters) give the name of their i-th plug-in, NULL past
 * the end. cliopt__plugin: the index of the one called name, -1 if none.
 */
typedef const char *(*cliopt_name_fn)(size_t i);
long cliopt__plugin(cliopt_name_fn name_at, const char *name);
/*
 * The plug-in argv names with OPT KIND or OPT=KIND (opt "--to"; the last one given): its index,
 * or -EINVAL with "OPT: unknown kind 'x' (a, b)" / "OPT KIND is required (a, b)" in err.
 */
long cliopt__kind(int argc, char **argv, const char *opt, cliopt_name_fn name_at, char *err, size_t errlen);
/* A plug-in command (import, export): what its argument loop (cliopt__args) needs to know. */
struct cliopt_cmd {
	const char *cmd;	/* "export" */
	const char *opt;	/* the option that names the plug-in: "--to" */
	const char *flag;	/* the command's one flag: "--salvage" */
	const char *none;	/* the usage error when no operand is given: "no TRACE given" */
	void (*usage)(FILE *);
	/* takes one operand (a TRACE, a FILE): 0, or the status of the usage error it printed */
	int (*operand)(void *ctx, const char *arg);
};
/* What the arguments gave. */
struct cliopt_args {
	void *opts;		/* the plug-in's options: its defaults, then argv's (free() it, also on error) */
	const char *out;	/* -o OUT */
	bool flag;		/* c->flag was given */
};
/*
 * The arguments of plug-in command c once cliopt__kind chose plug-in `name` with option table t
 * for a struct of size bytes: OPT KIND, -o OUT, the plug-in's options, c->flag and the operands
 * (c->operand(ctx, arg) each). Requires an operand and -o. 0; 2 after printing the usage error
 * (an unknown option is "unknown option '--x' for OPT NAME"); 1 with err set if t's defaults fail.
 */
int cliopt__args(const struct cliopt_cmd *c, const char *name, const struct opt_spec *t, size_t size,
		 int argc, char **argv, void *ctx, struct cliopt_args *a, char *err, size_t errlen);
/*
 * A plug-in registry's start-up check of its i-th entry of kind ("exporter"): complete says its
 * name, help and required hooks are set ("KIND I: NEED are required" if not), and its option
 * table validates ("KIND NAME: what is wrong"). 0 or -EINVAL with err.
 */
int cliopt__check_plugin(const char *kind, size_t i, const char *name, bool complete, const char *need,
			 const struct opt_spec *t, char *err, size_t errlen);
/* "  --key VALUE   help (default X)" lines. */
void cliopt__print(const struct opt_spec *t, FILE *f);
/* One plug-in in a --help listing: "  name", its help indented line by line, then its options. */
void cliopt__print_plugin(const char *name, const char *help, const struct opt_spec *t, FILE *f);

#endif
