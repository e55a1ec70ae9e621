/* SPDX-License-Identifier: GPL-2.0 */
/* Plug-in options as long command-line options: key "xfs_agblocks" is --xfs-agblocks. */
#ifndef TRIMSIM_CLIOPT_H
#define TRIMSIM_CLIOPT_H

#include <stdbool.h>
#include <stdio.h>

#include "traces/opts.h"

/* A registry's plug-in as a command sees it: the registry's ops table and what the command line shows of it. */
struct cliopt_plugin {
	const void *ops;		/* the registry's own: struct importer_ops, struct exporter_ops */
	const char *name, *help;
	const struct opt_spec *opts;	/* for an options struct of opts_size bytes */
	size_t opts_size;
};
/* Plug-in registries (importers, exporters) fill in their i-th plug-in; false past the end. */
typedef bool (*cliopt_plugin_fn)(size_t i, struct cliopt_plugin *p);
/* The index of the plug-in called name, -1 if none. */
long cliopt__plugin(cliopt_plugin_fn at, const char *name);
/* A plug-in command (import, export): what its argument loop (cliopt__args) and its --help need. */
struct cliopt_cmd {
	const char *cmd;	/* "export" */
	const char *opt;	/* the option that names the plug-in: "--to" */
	cliopt_plugin_fn plugin;	/* its registry */
	const char *flag;	/* the command's one flag: "--salvage" */
	const char *none;	/* the usage error when no operand is given: "no TRACE given" */
	/* --help: about (the usage line and what the command does), the plug-ins, examples */
	const char *about, *examples;
	void (*usage)(FILE *);	/* cliopt__usage(this, f), for "did you mean" */
	/* takes one operand (a TRACE, a FILE): 0, or the status of the usage error it printed */
	int (*operand)(void *ctx, const char *arg);
};
/* --help: c->about, "kinds and their options:" with every plug-in, then "examples:" and c->examples. */
void cliopt__usage(const struct cliopt_cmd *c, FILE *f);
/*
 * The plug-in argv names with c->opt KIND or OPT=KIND (the last one given) into p: 0,
 * or -EINVAL with "OPT: unknown kind 'x' (a, b)" / "OPT KIND is required (a, b)" in err.
 */
int cliopt__kind(const struct cliopt_cmd *c, int argc, char **argv, struct cliopt_plugin *p,
		 char *err, size_t errlen);
/* What the arguments gave. */
struct cliopt_args {
	void *opts;		/* the plug-in's options: its defaults, then argv's (free() it, also on error) */
	const char *out;	/* -o OUT */
	bool flag;		/* c->flag was given */
};
/*
 * The arguments of plug-in command c once cliopt__kind chose plug-in p: OPT KIND, -o OUT,
 * p's options, c->flag and the operands (c->operand(ctx, arg) each). Requires an operand and -o.
 * 0; 2 after printing the usage error (an unknown option is "unknown option '--x' for OPT NAME");
 * 1 with err set if p's defaults fail.
 */
int cliopt__args(const struct cliopt_cmd *c, const struct cliopt_plugin *p, int argc, char **argv, void *ctx,
		 struct cliopt_args *a, char *err, size_t errlen);
/*
 * A plug-in registry's start-up check of its i-th entry of kind ("exporter"): complete says its
 * name, help and required hooks are set ("KIND I: NEED are required" if not), and its option
 * table validates ("KIND NAME: what is wrong"). 0 or -EINVAL with err.
 */
int cliopt__check_plugin(const char *kind, size_t i, const char *name, bool complete, const char *need,
			 const struct opt_spec *t, char *err, size_t errlen);
/* "  --key VALUE   help (default X)" lines. */
void cliopt__print(const struct opt_spec *t, FILE *f);

#endif
