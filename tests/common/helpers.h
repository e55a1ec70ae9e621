/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by every Criterion suite. */
#ifndef TRIMSIM_TEST_HELPERS_H
#define TRIMSIM_TEST_HELPERS_H

#include <stdbool.h>
#include <stddef.h>

/* Paths from the Makefile's environment: the sanitized binary, the source tree, the build dir. */
const char *th_trimsim(void);
const char *th_src(void);
const char *th_build(void);
/* A fresh directory under /tmp, removed with th_rmtree. Returns a static-lifetime strdup. */
char *th_tmpdir(void);
void th_rmtree(const char *dir);
/*
 * Runs /bin/sh -c cmd; stdout and stderr captured into malloc'd strings
 * (either pointer may be NULL). Returns the exit status, 128+sig if killed, -1 on failure.
 */
int th_run(const char *cmd, char **out, char **err);
/* Reads a whole file into a malloc'd buffer; *len set. NULL on error. */
char *th_slurp(const char *path, size_t *len);
int th_write(const char *path, const void *buf, size_t len);
/* Counts lines of s. */
size_t th_lines(const char *s);
/* Skip reason if not root or the named facility is missing; NULL when live tests may run. */
const char *th_live_skip_reason(void);

#endif
