/* SPDX-License-Identifier: GPL-2.0 */
/* Opening a trace.dat safely (traces/import/tcfile.c); used by the trace-cmd importer. */
#ifndef TRIMSIM_TCFILE_H
#define TRIMSIM_TCFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tracecmd_input;

/* The fixed start of a trace.dat, checked before libtracecmd sees the file; 0 or -errno with err. */
int tc_precheck(const char *path, char *err, size_t errlen);
/*
 * The top buffer and every instance buffer (trace-cmd extract -B) as *hsp[0..*nb];
 * -errno with err set. Nothing is closed: only the reading child opens them, and it exits.
 */
int tc_open_all(const char *path, struct tracecmd_input ***hsp, int *nb, char *err, size_t errlen);

/*
 * The child that reads a trace.dat for an import: every libtracecmd and libtraceevent call
 * runs there, and its records come back as frames through a pipe (tcfile.c says why).
 */
struct tc_child {
	const char *path;
	pid_t pid;
	int fd;		/* the read end of the child's pipe */
};
/* The child's body (traces/import/tracecmd.c): reads path, writes frames to out; returns its exit code. */
int tc_import_child(const char *path, const void *arg, size_t arglen, int out);
/* In the child first: fault signals exit with 128 + the signal, stderr goes to /dev/null. */
void tc_child_enter(void);
/*
 * Starts tc_import_child(path, arg, arglen, write end) in a child process (c->fd is the read end);
 * waits for it (its wait status in *status). 0 or -errno with err. Weak definitions that fork;
 * the fuzz harness links its own (a fork server).
 */
int tc_child_start(const char *path, const void *arg, size_t arglen, struct tc_child *c, char *err, size_t errlen);
int tc_child_wait(struct tc_child *c, int *status, char *err, size_t errlen);
/* The one-line error for a child that ended without its last frame, by its wait status: -EINVAL. */
int tc_child_status(const char *path, int status, char *err, size_t errlen);

/* Frames: a 4-byte type, a 4-byte length (at most TC_FRAME_MAX), the payload. */
#define TC_FRAME_MAX 4096
struct tc_out {
	int fd;
	size_t n;
	unsigned char buf[1 << 16];
};
/* Buffers one frame (flushing first when full); 0 or -errno. */
int tc_out_frame(struct tc_out *o, uint32_t type, const void *p, uint32_t len);
int tc_out_flush(struct tc_out *o);
struct tc_in {
	int fd;
	size_t have, pos;
	unsigned char buf[1 << 16];
};
/*
 * The next frame: 1 with *type, *p and *len (valid until the next call), 0 at the end,
 * -EPROTO for a frame cut short or too long, -EINTR once trimsim_stop is set, -errno.
 */
int tc_in_frame(struct tc_in *in, uint32_t *type, const void **p, uint32_t *len);

#endif
