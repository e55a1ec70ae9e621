/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every file a command writes (traces, reports, results, profiles, charts)
 * goes through one of these, which writes it the way coreutils write theirs:
 *
 *  - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: that
 *    descriptor, written directly (never opened by name, never replaced);
 *  - a character device or a FIFO (after following symlinks): opened without
 *    O_CREAT or O_TRUNC and written directly: `-o /dev/null` stays /dev/null,
 *    /dev/full fails with ENOSPC;
 *  - a regular file or a new path, OUTPUT_ATOMIC: a temporary ".NAME.XXXXXX"
 *    made by mkostemp() (O_CREAT|O_EXCL: a symlink planted at its name is
 *    never followed) in the directory of the file, fsync'ed and renamed over
 *    it by output__commit(). A symlink to a file keeps its link semantics:
 *    the temporary goes beside the link's target and replaces the target,
 *    the link stays. A new file gets 0666 less the umask, a replaced one
 *    keeps its permission bits (not its owner or other hard links: those keep
 *    the old contents, as with sed -i). Nothing half-written is ever left: an
 *    error, output__abort() or a pending SIGINT/SIGTERM at commit unlinks it;
 *  - a regular file or a new path, OUTPUT_STREAM (the recorder): written in
 *    place so every whole record written survives a crash; a new file is
 *    created O_EXCL|O_NOFOLLOW, an existing one (or a symlink's target) opened
 *    O_NOFOLLOW, checked to be the file that was looked at, then truncated;
 *  - refused with one line naming the path: block devices, directories,
 *    dangling symlinks (not written through, like GNU cp); sockets fail at
 *    open with the kernel's ENXIO.
 *
 * Errors name the path and the real errno of the first failed write (the
 * stream records it; stdio's ferror() alone would only say "error").
 */
#ifndef TRIMSIM_OUTPUT_H
#define TRIMSIM_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum output_mode {
	OUTPUT_ATOMIC = 0,	/* files: temporary beside the target, renamed at commit */
	OUTPUT_STREAM = 1,	/* files: written in place, every write readable at once */
};

struct output;

/* NULL with errno and err ("PATH: why: strerror") on failure. */
struct output *output__open(const char *path, enum output_mode mode, char *err, size_t errlen);
/* The descriptor to write(2) to (binary traces). Do not close it. */
int output__fd(const struct output *o);
/* A stdio stream over the descriptor (made on first use); NULL with errno on ENOMEM. */
FILE *output__file(struct output *o);
/* errno of the first failed write through output__file()'s stream, 0 if none. */
int output__error(const struct output *o);
/* The path as given ("-" for stdout). */
const char *output__path(const struct output *o);
/* True when path names the process's stdout ("-", /dev/stdout, /dev/fd/1, /proc/self/fd/1). */
bool output__names_stdout(const char *path);
/*
 * Flushes, fsyncs and closes, then renames the temporary into place (atomic
 * files). 0, or -errno with err naming the path and the first write error;
 * -EINTR ("interrupted") if SIGINT/SIGTERM arrived before an atomic file was
 * renamed: then the temporary is removed and the target left as it was.
 * Frees o in every case.
 */
int output__commit(struct output *o, char *err, size_t errlen);
/* Drops the output: the temporary is unlinked. Frees o; accepts NULL. */
void output__abort(struct output *o);
/*
 * For an output of one format: a file name with an extension other than ext
 * (".json"; case does not matter) is refused, "-o r.xlsx: unknown extension '.xlsx' (WHAT: .json)".
 * Names without one pass. 0 or -EINVAL with err.
 */
int output__check_ext(const char *opt, const char *path, const char *ext, const char *what, char *err,
		      size_t errlen);
/*
 * The extension of path's file name (".json"), or NULL if it has none
 * ("-", /dev/null, "report", ".hidden"): commands pick a format by it and
 * refuse one they do not know.
 */
const char *output__ext(const char *path);

#endif
