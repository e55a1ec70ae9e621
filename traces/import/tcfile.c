// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a trace.dat safely for the trace-cmd importer (traces/import/tracecmd.c):
 * the fixed header checked before libtracecmd sees the file, every buffer
 * instance opened, and the forked child that reads it (libtracecmd and
 * libtraceevent never run in the importing process) with the frames it sends
 * its records in.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <trace-cmd.h>

#include "traces/util.h"
#include "traces/import/tcfile.h"

/*
 * The fixed start of a trace.dat, checked before libtracecmd sees the file:
 * magic "\027\010Dtracing", a NUL-terminated version, endian and long-size bytes,
 * a 4-byte page size; from version 7 on, the compression name and version
 * (NUL-terminated) and the u64 offset of the first option section
 * (trace-cmd Documentation/trace-cmd/trace-cmd.dat.v7.5.txt). libtracecmd of
 * trace-cmd 3.1.6 frees the compression name twice in tracecmd_alloc_fd() when
 * a version 7 file ends before that offset (found by tests/fuzz/fuzz_import_tracecmd,
 * input in tests/fuzz/regress/fuzz_import_tracecmd/): such a file is refused here.
 */
int tc_precheck(const char *path, char *err, size_t errlen)
{
	static const char magic[10] = "\027\010Dtracing";
	char buf[256];
	size_t n, p, ver;
	FILE *f = fopen(path, "rb");

	if (!f)
		return ts_errf(err, errlen, -errno, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n < sizeof(magic) || memcmp(buf, magic, sizeof(magic)))
		return ts_errf(err, errlen, -EINVAL, "%s: not a readable trace-cmd trace.dat file", path);
	p = sizeof(magic);
	ver = strtoul(buf + p, NULL, 10);
	p += strnlen(buf + p, n - p) + 1 + 2 + 4;	/* version, NUL, endian, long size, page size */
	for (int i = 0; ver >= 7 && i < 2 && p < n; i++)	/* compression name, version */
		p += strnlen(buf + p, n - p) + 1;
	if (ver >= 7)
		p += 8;
	if (p > n)
		return ts_errf(err, errlen, -EINVAL, "%s: trace.dat header cut short (%zu bytes)", path, n);
	return 0;
}

/*
 * The top buffer and every instance buffer (trace-cmd extract -B) as *hsp[0..*nb];
 * -errno with err set. Nothing is closed: only the reading child opens them, and it exits.
 */
int tc_open_all(const char *path, struct tracecmd_input ***hsp, int *nb, char *err, size_t errlen)
{
	struct tracecmd_input *in = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS), **hs;

	*hsp = NULL;
	*nb = 0;
	if (!in)
		return ts_errf(err, errlen, errno ? -errno : -EINVAL, "%s: not a readable trace-cmd trace.dat file", path);
	if (!(hs = calloc((size_t)tracecmd_buffer_instances(in) + 1, sizeof(*hs)))) {
		tracecmd_close(in);
		return ts_errf(err, errlen, -ENOMEM, "%s: out of memory", path);
	}
	hs[0] = in;
	*hsp = hs;
	for (int i = 0; i < tracecmd_buffer_instances(in); i++, ++*nb)
		if (!(hs[i + 1] = tracecmd_buffer_instance_handle(in, i)))
			return ts_errf(err, errlen, -EINVAL, "%s: cannot open buffer instance %s", path,
				       tracecmd_buffer_instance_name(in, i));
	return 0;
}

/*
 * The reading child. libtracecmd (trace-cmd 3.1.6) and libtraceevent (1.7.1) read a
 * malformed trace.dat unsafely in ways no header check sees. Some fault at once: a NULL read
 * in tracecmd_close() on a half-built instance handle, strdup()/strcmp() past unterminated
 * strings, kbuffer reading past a page (found by tests/fuzz/fuzz_import_tracecmd; inputs in
 * tests/fuzz/regress/fuzz_import_tracecmd/). Others write past a heap block and fault later or
 * never: read_ftrace_printk() and read_proc_kallsyms() malloc(size + 1) for a 4-byte size of
 * 0xffffffff, which wraps to malloc(0), and then read the rest of the file into it;
 * read_data_and_size() does the same for an 8-byte cmdlines or trace-clock size of 2^64 - 1;
 * read_string() writes its NUL one byte past a system name of 8 KiB or more; the CPUSTAT
 * option writes buf[size - 1] for a size of 0 (trace-input.c). The heap such a file corrupts
 * must not be trimsim's: a forked probe that only walked the file first, as before, came back
 * clean on the printk case (glibc noticed nothing before the probe exited), and the import
 * then corrupted its own heap reading the same file (glibc abort "smallbin double linked
 * list corrupted" in the fuzzer, 4,142 inputs into a run; the input is
 * tests/fuzz/regress/fuzz_import_tracecmd/printk-size-wraps.dat). So every libtracecmd and
 * libtraceevent call of an import runs in a forked child that decodes the events and sends
 * records to the parent through a pipe (traces/import/tracecmd.c, tc_import_child()); the
 * parent only checks the frames and stores the records. A child that faults, hangs or dies
 * becomes a one-line error; one whose heap is corrupted silently can only send records that
 * the parent stores like any other, each decoded and range-checked as before.
 */
static void tc_child_fault_exit(int sig)
{
	_exit(128 + sig);
}

void tc_child_enter(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa = { .sa_handler = tc_child_fault_exit };
	int null = open("/dev/null", O_WRONLY);

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_DFL);	/* the parent gone: nobody reads the records */
	if (null >= 0) {
		dup2(null, STDERR_FILENO);	/* the library's chatter; the parent says what happened */
		close(null);
	}
}

/*
 * Weak: the fuzz harness (tests/fuzz/fuzz_import_tracecmd.c) replaces these two with requests to
 * a small fork server that runs the same body, because forking the 30 MB fuzzer process per input
 * cost most of the harness's time. `trimsim import` links these.
 */
__attribute__((weak)) int tc_child_start(const char *path, const void *arg, size_t arglen, struct tc_child *c,
					 char *err, size_t errlen)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return ts_errf(err, errlen, -errno, "%s: pipe: %s", path, strerror(errno));
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return ts_errf(err, errlen, -e, "%s: fork: %s", path, strerror(e));
	}
	c->path = path;
	if (c->pid == 0) {
		close(p[0]);
		_exit(tc_import_child(path, arg, arglen, p[1]));
	}
	close(p[1]);
	c->fd = p[0];
	return 0;
}

__attribute__((weak)) int tc_child_wait(struct tc_child *c, int *status, char *err, size_t errlen)
{
	while (waitpid(c->pid, status, 0) < 0) {
		if (errno != EINTR)
			return ts_errf(err, errlen, -errno, "%s: waitpid: %s", c->path, strerror(errno));
		if (trimsim_stop)	/* SIGINT/SIGTERM: its records are not wanted any more */
			kill(c->pid, SIGKILL);
	}
	return 0;
}

int tc_child_status(const char *path, int st, char *err, size_t errlen)
{
	/*
	 * tc_child_fault_exit() exits with 128 + the signal; a signal it did not catch ends the
	 * child itself. Any other exit but 0 is a fault too: in a sanitized build (build/san, the
	 * fuzz harness) AddressSanitizer ends the child with its exit code when libtracecmd or
	 * libtraceevent reads past a heap block of the file's strings (strdup() and strcmp() of
	 * text that has no NUL; found by tests/fuzz/fuzz_import_tracecmd), where a plain build
	 * reads on.
	 */
	int sig = WIFSIGNALED(st) ? WTERMSIG(st) : WIFEXITED(st) && WEXITSTATUS(st) > 128 ? WEXITSTATUS(st) - 128 : 0;

	if (sig)
		return ts_errf(err, errlen, -EINVAL, "%s: malformed trace.dat: libtracecmd faults reading it (%s)",
			       path, strsignal(sig));
	return ts_errf(err, errlen, -EINVAL, "%s: malformed trace.dat: libtracecmd fails reading it (exit %d)",
		       path, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* ---- Frames: a 4-byte type and a 4-byte length, then the payload, in host order ---- */

int tc_out_frame(struct tc_out *o, uint32_t type, const void *p, uint32_t len)
{
	uint32_t h[2] = { type, len };
	int ret;

	if (len > TC_FRAME_MAX)
		return -EMSGSIZE;
	if (o->n + sizeof(h) + len > sizeof(o->buf) && (ret = tc_out_flush(o)))
		return ret;
	memcpy(o->buf + o->n, h, sizeof(h));
	memcpy(o->buf + o->n + sizeof(h), p, len);
	o->n += sizeof(h) + len;
	return 0;
}

int tc_out_flush(struct tc_out *o)
{
	int ret = ts_write_all(o->fd, o->buf, o->n, NULL);

	o->n = 0;
	return ret;
}

int tc_in_frame(struct tc_in *in, uint32_t *type, const void **p, uint32_t *len)
{
	uint32_t h[2];

	for (;;) {
		size_t avail = in->have - in->pos;

		if (avail >= sizeof(h)) {
			memcpy(h, in->buf + in->pos, sizeof(h));
			if (h[1] > TC_FRAME_MAX)
				return -EPROTO;
			if (avail >= sizeof(h) + h[1]) {
				*type = h[0];
				*len = h[1];
				*p = in->buf + in->pos + sizeof(h);
				in->pos += sizeof(h) + h[1];
				return 1;
			}
		}
		memmove(in->buf, in->buf + in->pos, avail);
		in->have = avail;
		in->pos = 0;
		ssize_t r = read(in->fd, in->buf + in->have, sizeof(in->buf) - in->have);

		if (r < 0 && errno == EINTR) {
			if (trimsim_stop)
				return -EINTR;
			continue;
		}
		if (r < 0)
			return -errno;
		if (r == 0)
			return avail ? -EPROTO : 0;
		in->have += (size_t)r;
	}
}
