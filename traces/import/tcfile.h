/* SPDX-License-Identifier: GPL-2.0 */
/* Opening a trace.dat safely (traces/import/tcfile.c); used by the trace-cmd importer. */
#ifndef TRIMSIM_TCFILE_H
#define TRIMSIM_TCFILE_H

#include <stddef.h>

struct tracecmd_input;

/* The fixed start of a trace.dat, checked before libtracecmd sees the file; 0 or -errno with err. */
int tc_precheck(const char *path, char *err, size_t errlen);
/*
 * The top buffer and every instance buffer (trace-cmd extract -B) as *hsp[0..*nb];
 * -errno with err set. Whatever was opened is in *hsp, for tc_close_all(), even then.
 */
int tc_open_all(const char *path, struct tracecmd_input ***hsp, int *nb, char *err, size_t errlen);
void tc_close_all(struct tracecmd_input **hs, int nb);
/* Opens and walks the file in a forked child: 0, or -EINVAL with err if libtracecmd faults or fails there. */
int tc_probe(const char *path, char *err, size_t errlen);
/* The probe's child body (it opens and walks path); returns the child's exit code. */
int tc_probe_child(const char *path);
/*
 * Runs tc_probe_child(path) in a child process and gives its wait status in *status:
 * 0, or -errno with err ("PATH: fork: ..." when no child could run). A weak definition
 * that forks; the fuzz harness links its own (a fork server).
 */
int tc_probe_run(const char *path, int *status, char *err, size_t errlen);

#endif
