/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers every module uses. */
#ifndef TRIMSIM_UTIL_H
#define TRIMSIM_UTIL_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * 0, or the signal (SIGINT, SIGTERM) main's handler caught: long loops and
 * blocking waits check it and return -EINTR. The only mutable global.
 */
extern volatile sig_atomic_t trimsim_stop;

/* snprintf into err (nothing when err is NULL or errlen 0); returns code: `return ts_errf(err, len, -EINVAL, ...)`. */
int ts_errf(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same with "PATH: " first (the reader's, writer's and output's "file: what went wrong"). */
int ts_path_errf(char *err, size_t errlen, int code, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* "7:0" */
char *ts_dev_str(uint32_t dev, char *buf, size_t len);
/* "7:0" -> kernel dev_t (major << 20 | minor); decimal digits only; 0 or -EINVAL. */
int ts_dev_parse(const char *s, uint32_t *dev);
/* The dev_t a sysfs "dev" file holds ("7:1\n", /sys/dev/block/M:m/dev): 0, or -errno / -EINVAL. */
int ts_dev_read(const char *path, uint32_t *dev);
/* Index of the first byte of s that is not valid UTF-8, (size_t)-1 if all is. */
size_t ts_utf8_invalid(const char *s);
/*
 * s for a terminal or a one-line message: control characters, C1 controls and
 * bytes that are not UTF-8 as \xNN, a backslash as \\, the rest as is; cut to
 * fit len (NUL included). Every text output of a string a trace carries uses it.
 */
char *ts_escape(const char *s, char *buf, size_t len);
uint64_t ts_now_ns(void);	/* CLOCK_MONOTONIC */
/*
 * *arr (of *cap elements of elem bytes) grown to hold need: doubled from 16 (or
 * from *cap) until it does. 0, or -ENOMEM with *arr and *cap unchanged.
 */
int grow_array(void **arr, size_t *cap, size_t need, size_t elem);
/*
 * A full ring *ring (of *cap elements of elem bytes, 0 or a power of two; n held from
 * *head on, wrapping) doubled from 64 (or from *cap), its n elements moved to the
 * front: *head = 0. 0, or -ENOMEM with the ring unchanged.
 */
int grow_ring(void **ring, size_t *cap, size_t *head, size_t n, size_t elem);
/*
 * All len bytes of buf to fd, a write() at a time, again after a signal unless trimsim_stop
 * is set. 0, or -errno (-EINTR when stopped, -EIO when write() makes no progress); *done
 * (NULL: not wanted) counts the bytes written either way.
 */
int ts_write_all(int fd, const void *buf, size_t len, size_t *done);
/*
 * Mode for a new file given the permissions it wants (0666 for data files),
 * with the process umask applied: mkstemp() makes 0600 files whatever the umask,
 * so atomic writers fchmod() their temporary file to this before renaming it.
 */
unsigned ts_create_mode(unsigned want);
/* True if argv holds -h or --help (before a "--"). */
bool cli_wants_help(int argc, char **argv);
/* True if argv holds -V or --version (before a "--"): main prints the version for every command. */
bool cli_wants_version(int argc, char **argv);

/*
 * The one grammar of every command (README.md, "Command-line conventions").
 * A usage error is one line, "trimsim CMD: MESSAGE; see 'trimsim CMD --help'",
 * and exit status 2. cli_usage_error() prints it and returns 2.
 */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * An argument the command does not know ("--jsn", "-x"): the usage error, with
 * "(did you mean '--json'?)" when an option its help text names (usage() prints
 * it) is one or two edits away. Returns 2.
 */
int cli_unknown_option(const char *cmd, const char *arg, void (*usage)(FILE *));
/* The same, naming what the option is unknown for: "unknown option '--ops' for --from dtrace". */
int cli_unknown_option_for(const char *cmd, const char *arg, const char *what, void (*usage)(FILE *));
/*
 * getopt_long()'s error return c (':' missing value, with a ':' first in the
 * option string and opterr = 0; '?' unknown) as the usage error above. Returns 2.
 */
int cli_getopt_error(const char *cmd, int c, char **argv, void (*usage)(FILE *));
/*
 * Optimal string alignment distance of a[0..la) and b[0..lb) (Levenshtein plus
 * transpositions: "--josn" is one edit from "--json"); 64 for strings of 64 bytes or more.
 */
size_t cli_edit_distance(const char *a, size_t la, const char *b, size_t lb);
/* An importer's input file: "-" is standard input (/dev/stdin), any other path itself. */
const char *cli_input(const char *path);
/*
 * An input cmd reads more than once (a survey pass, one pass per cell): it must
 * be a regular file (or not exist yet: the open names that). "-" or a pipe is a
 * usage error in one line (returns 2); 0 when it can be read again.
 */
int cli_input_twice(const char *cmd, const char *path, const char *why);

#endif
