// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a trace.dat safely for the trace-cmd importer (traces/import/tracecmd.c):
 * the fixed header checked before libtracecmd sees the file, every buffer
 * instance opened, and a forked probe that walks the events first so that a
 * fault inside libtracecmd or libtraceevent becomes a one-line error.
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
 * -errno with err set. Whatever was opened is in *hsp, for tc_close_all(), even then.
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

void tc_close_all(struct tracecmd_input **hs, int nb)
{
	for (int i = nb; hs && i >= 0; i--)
		tracecmd_close(hs[i]);
	free(hs);
}

/*
 * The child's exit code when a buffer's walk does not advance. kbuffer (libtraceevent 1.7.1,
 * kbuffer-parse.c, translate_data()) takes an event of type_len 0 to be its length word minus
 * 4, rounded: a length word below 4 makes the length negative, the next event starts at or
 * before this one, and libtracecmd returns the same record again and again: the walk, and the
 * import after it, never ended (found by tests/fuzz/fuzz_import_tracecmd; input in
 * tests/fuzz/regress/fuzz_import_tracecmd/kbuffer-length-below-4-loops.dat).
 */
#define TC_PROBE_STUCK 3

/* Where each buffer's CPU last was: its records lie at increasing offsets of the file. */
struct tc_probe_walk {
	struct tc_probe_pos {
		const struct tracecmd_input *h;
		int cpu;
		unsigned long long off;
	} *pos;
	size_t n, cap, last;
};

static int tc_probe_event(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct tc_probe_walk *w = data;
	size_t i = w->last;

	if (i >= w->n || w->pos[i].h != h || w->pos[i].cpu != cpu)
		for (i = 0; i < w->n && (w->pos[i].h != h || w->pos[i].cpu != cpu); i++)
			;
	if (i == w->n) {
		if (grow_array((void **)&w->pos, &w->cap, w->n + 1, sizeof(*w->pos)))
			return 0;	/* out of memory: walk on unchecked, as before */
		w->pos[w->n++] = (struct tc_probe_pos){ h, cpu, rec->offset };
	} else if (rec->offset <= w->pos[i].off) {
		_exit(TC_PROBE_STUCK);	/* the iteration may not stop on a non-zero return */
	} else {
		w->pos[i].off = rec->offset;
	}
	w->last = i;
	return 0;
}

static void tc_probe_fault(int sig)
{
	_exit(128 + sig);
}

/*
 * libtracecmd (trace-cmd 3.1.6) can crash on a malformed file no header check
 * catches: tracecmd_buffer_instance_handle() calls tracecmd_close() on a
 * half-built handle and reads a NULL pointer when an instance buffer's
 * section is broken (found by tests/fuzz/fuzz_import_tracecmd; input in
 * tests/fuzz/regress/fuzz_import_tracecmd/). So a forked child first opens the
 * file and every instance and walks the events (checking only that each
 * buffer's CPU moves forward: tc_probe_event()); if the library faults or
 * loops there, the import stops with a one-line error instead of a crash or
 * a hang. The child writes nothing (the sink's spool is the parent's) and leaves
 * with _exit(): no atexit handlers, no stdio flush, no leak check.
 *
 * tc_probe_child() is that child's body: its return value is the child's exit code.
 */
int tc_probe_child(const char *path)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa = { .sa_handler = tc_probe_fault };
	struct tc_probe_walk walk = { 0 };
	struct tracecmd_input **hs;
	char msg[256];
	int nb, null = open("/dev/null", O_WRONLY);

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	if (null >= 0)
		dup2(null, STDERR_FILENO);	/* the library's chatter; the parent says what happened */
	if (tc_open_all(path, &hs, &nb, msg, sizeof(msg)))
		return 0;	/* the parent's own open reports it */
	tracecmd_iterate_events_multi(hs, nb + 1, tc_probe_event, &walk);
	return 0;
}

/*
 * Runs tc_probe_child(path) in a forked child; its wait status in *status. Weak: the fuzz
 * harness (tests/fuzz/fuzz_import_tracecmd.c) replaces it with a request to a small fork
 * server that runs the same child body, because forking the 30 MB fuzzer process per input
 * cost most of the harness's time. `trimsim import` links this one.
 */
__attribute__((weak)) int tc_probe_run(const char *path, int *status, char *err, size_t errlen)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return ts_errf(err, errlen, -errno, "%s: fork: %s", path, strerror(errno));
	if (pid == 0)
		_exit(tc_probe_child(path));
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR)
			return ts_errf(err, errlen, -errno, "%s: waitpid: %s", path, strerror(errno));
		if (trimsim_stop)	/* SIGINT/SIGTERM: the probe writes nothing, it need not finish */
			kill(pid, SIGKILL);
	}
	return 0;
}

int tc_probe(const char *path, char *err, size_t errlen)
{
	int st, sig, ret = tc_probe_run(path, &st, err, errlen);

	if (ret)
		return ret;
	if (trimsim_stop)
		return ts_errf(err, errlen, -EINTR, "%s: interrupted", path);
	/*
	 * tc_probe_fault() exits with 128 + the signal; a signal it did not catch ends the child
	 * itself. Any other exit but 0 is a fault too: in a sanitized build (build/san, the fuzz
	 * harness) AddressSanitizer ends the child with its exit code when libtracecmd or
	 * libtraceevent reads past a heap block of the file's strings (strdup() and strcmp() of
	 * text that has no NUL; found by tests/fuzz/fuzz_import_tracecmd), where a plain build
	 * reads on.
	 */
	sig = WIFSIGNALED(st) ? WTERMSIG(st) : WIFEXITED(st) && WEXITSTATUS(st) > 128 ? WEXITSTATUS(st) - 128 : 0;
	if (sig)
		return ts_errf(err, errlen, -EINVAL, "%s: malformed trace.dat: libtracecmd faults reading it (%s)",
			       path, strsignal(sig));
	if (WIFEXITED(st) && WEXITSTATUS(st) == TC_PROBE_STUCK)
		return ts_errf(err, errlen, -EINVAL,
			       "%s: malformed trace.dat: libtracecmd reads a record at or before the one it read last "
			       "and would never finish", path);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return ts_errf(err, errlen, -EINVAL, "%s: malformed trace.dat: libtracecmd fails reading it (exit %d)",
			       path, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
