/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers every module uses. */
#ifndef TRIMSIM_UTIL_H
#define TRIMSIM_UTIL_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * 0, or the signal (SIGINT, SIGTERM) main's handler caught: long loops and
 * blocking waits check it and return -EINTR. The only mutable global.
 */
extern volatile sig_atomic_t trimsim_stop;

/* snprintf into err (nothing when err is NULL or errlen 0); returns code: `return ts_errf(err, len, -EINVAL, ...)`. */
int ts_errf(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "7:0" */
char *ts_dev_str(uint32_t dev, char *buf, size_t len);
/* "7:0" -> kernel dev_t (major << 20 | minor); decimal digits only; 0 or -EINVAL. */
int ts_dev_parse(const char *s, uint32_t *dev);
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
 * Mode for a new file given the permissions it wants (0666 for data files),
 * with the process umask applied: mkstemp() makes 0600 files whatever the umask,
 * so atomic writers fchmod() their temporary file to this before renaming it.
 */
unsigned ts_create_mode(unsigned want);
/* True if argv holds -h or --help. */
bool cli_wants_help(int argc, char **argv);

#endif
