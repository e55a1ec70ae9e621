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
/*
 * The running test's scratch directory. Criterion runs each test in its own
 * process, so there is one per test: th_dir_init() makes a fresh
 * /tmp/trimsim-test.XXXXXX (a suite's .init, or the first call of its own
 * init), th_dir_fini() removes it and everything in it (.fini; harmless
 * without init or twice; it also runs at exit, since Criterion skips .fini
 * after cr_skip_test()), th_dir() is its path and fails the test when no
 * directory was made. The path lives in helpers.c: nothing to free.
 *   TestSuite(name, .init = th_dir_init, .fini = th_dir_fini);
 */
void th_dir_init(void);
void th_dir_fini(void);
const char *th_dir(void);
/* rm -rf DIR, for paths under /tmp only. */
void th_rmtree(const char *dir);
/*
 * Runs /bin/sh -c cmd; stdout and stderr captured into malloc'd strings
 * (either pointer may be NULL). Returns the exit status, 128+sig if killed, -1 on failure.
 */
int th_run(const char *cmd, char **out, char **err);
/* Reads a whole file into a malloc'd buffer; *len set. NULL on error. */
char *th_slurp(const char *path, size_t *len);
int th_write(const char *path, const void *buf, size_t len);
/* traces/corpus/NAME cut after its first bytes bytes, in th_dir() (a trace that ends early): its path. */
const char *th_cut_corpus(const char *name, size_t bytes);
/* Counts lines of s. */
size_t th_lines(const char *s);
/* Skip reason if not root or the named facility is missing; NULL when live tests may run. */
const char *th_live_skip_reason(void);

#endif
