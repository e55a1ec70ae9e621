/* SPDX-License-Identifier: GPL-2.0 */
/* Plug-in options as long command-line options: key "xfs_agblocks" is --xfs-agblocks. */
#ifndef TRIMSIM_CLIOPT_H
#define TRIMSIM_CLIOPT_H

#include <stdio.h>

#include "traces/opts.h"

/*
 * argv[*i] is "--key=value" or "--key" followed by its value. If key names an
 * option of t, sets it, advances *i past what it used and returns 1; returns 0
 * if argv[*i] is not one of t's options, -EINVAL with err set on a bad value.
 */
int cliopt__take(const struct opt_spec *t, void *obj, int argc, char **argv, int *i,
		 char *err, size_t errlen);
/* "  --key VALUE   help (default X)" lines. */
void cliopt__print(const struct opt_spec *t, FILE *f);
/* One plug-in in a --help listing: "  name", its help indented line by line, then its options. */
void cliopt__print_plugin(const char *name, const char *help, const struct opt_spec *t, FILE *f);

#endif
