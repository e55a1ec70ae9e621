// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim record: the two backends agree, losses are counted, the file is
 * finished on SIGINT and readable after SIGKILL, eBPF records reach the file
 * without per-event wakeups, the command's status is kept,
 * and without root the error is one line.
 */
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include "tests/live/record_fixture.h"

extern char **environ;

static void setup_ext4(void) { fix_up("ext4", 512); }
static void setup_xfs(void) { fix_up("xfs", 512); }

/* Starts trimsim record in the background; returns once its trace file exists (backend attached). */
static pid_t record_bg(const char *out, const char *backend, const char *extra)
{
	char *argv[16];
	int n = 0;
	pid_t pid;

	argv[n++] = (char *)th_trimsim();
	argv[n++] = "record";
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = "-m";
	argv[n++] = fx.mnt;
	argv[n++] = "--backend";
	argv[n++] = (char *)backend;
	if (extra)
		argv[n++] = (char *)extra;
	argv[n] = NULL;
	cr_assert_eq(posix_spawn(&pid, argv[0], NULL, NULL, argv, environ), 0);
	for (int i = 0; i < 300 && access(out, F_OK); i++)
		usleep(20000);
	cr_assert_eq(access(out, F_OK), 0, "recorder did not start");
	usleep(300000);
	return pid;
}

static int stop_bg(pid_t pid, int sig)
{
	int st;

	kill(pid, sig);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Both backends record the same run at the same time: same counts and bytes per kind. */
Test(record_backends, bpf_and_tracefs_agree, .init = setup_ext4, .fini = fix_down, .timeout = 180)
{
	char tout[256], bout[256], script[1024], *err = NULL;
	struct trace_sum t, b;
	int64_t rem;
	pid_t pid;
	int rc;

	snprintf(tout, sizeof(tout), "%s/tracefs.tsim", fx.dir);
	snprintf(bout, sizeof(bout), "%s/bpf.tsim", fx.dir);
	pid = record_bg(tout, "tracefs", NULL);
	snprintf(script, sizeof(script), WL_CREATE "; " WL_REMOVE, fx.mnt);
	rc = record(bout, "--backend bpf", script, &err);
	usleep(500000);
	cr_expect_eq(stop_bg(pid, SIGINT), 0, "tracefs recorder failed");
	cr_assert_eq(rc, 0, "bpf record failed (%d): %s", rc, err ? err : "");
	free(err);
	summarize(bout, fx.dev, &b);
	summarize(tout, fx.dev, &t);
	print_sum("ext4 bpf", &b);
	print_sum("ext4 tracefs", &t);
	assert_common(&b);
	assert_common(&t);
	for (unsigned k = TS_FREE; k <= TS_BIO; k++) {
		cr_expect_eq(b.kind[k].count, t.kind[k].count, "%s: bpf %" PRIu64 " tracefs %" PRIu64,
			     ts_kind_name(k), b.kind[k].count, t.kind[k].count);
		cr_expect_eq(b.kind[k].bytes, t.kind[k].bytes, "%s bytes: bpf %" PRIu64 " tracefs %" PRIu64,
			     ts_kind_name(k), b.kind[k].bytes, t.kind[k].bytes);
	}
	cr_expect_eq(b.issue[TS_OP_DISCARD].count, t.issue[TS_OP_DISCARD].count);
	cr_expect_eq(b.issue[TS_OP_DISCARD].bytes, t.issue[TS_OP_DISCARD].bytes);
	cr_expect_eq(b.done[TS_OP_DISCARD].count, t.done[TS_OP_DISCARD].count);
	cr_expect_eq(b.fitrim, t.fitrim);
	cr_expect(b.kind[TS_ALLOC].count > 0 && b.kind[TS_FREE].count >= 3000);
	cr_expect(llabs((long long)(balance_remainder(&b, &rem) * 1e6)) <= 10000,
		  "ext4 end snapshot != start + FREE - ALLOC: remainder %" PRId64 " B", rem);
	sum_free(&b);
	sum_free(&t);
}

/*
 * A tiny ring buffer overflows: losses reach META lost records (per CPU, in time).
 * The recorder is stopped (SIGSTOP) while the workload runs, so nothing drains the
 * 4 KiB buffer and it must overflow whatever the machine's speed: on an idle
 * machine a running consumer kept up with it once and nothing was lost, which
 * said nothing about how losses are counted. SIGCONT, then SIGINT finishes the file.
 */
static void tiny_buffer(const char *backend)
{
	char out[256], script[1024], what[64];
	struct trace_sum s;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/lost.tsim", fx.dir);
	snprintf(script, sizeof(script), WL_CREATE "; " WL_REMOVE, fx.mnt);
	pid = record_bg(out, backend, "--ringbuf-size=4096");
	cr_assert_eq(kill(pid, SIGSTOP), 0);
	cr_assert_eq(th_run(script, NULL, NULL), 0, "workload failed: %s", script);
	cr_assert_eq(kill(pid, SIGCONT), 0);
	cr_expect_eq(stop_bg(pid, SIGINT), 0, "SIGINT: record did not exit 0");
	summarize(out, fx.dev, &s);
	snprintf(what, sizeof(what), "xfs %s 4 KiB buffer", backend);
	print_sum(what, &s);
	/* FORMAT.md: total lost = footer lost + the lengths of META lost records */
	cr_expect(s.lost_meta > 0, "no META lost records with a 4 KiB buffer");
	/*
	 * The losses must show as a deficit somewhere: the workload makes ~3076 each of
	 * FREE, ALLOC, INTENT and BIO, and a lost event can be of any kind (which kind
	 * the consumer falls behind on depends on the machine's load).
	 */
	uint64_t least = s.kind[TS_FREE].count;
	static const unsigned kinds[] = { TS_ALLOC, TS_INTENT, TS_BIO };

	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (s.kind[kinds[i]].count < least)
			least = s.kind[kinds[i]].count;
	cr_expect(least < 3000 || s.lost_meta + s.st.lost < 100,
		  "no kind short of 3000 events, yet %" PRIu64 " lost reported", s.lost_meta + s.st.lost);
	sum_free(&s);
}

Test(record_backends, tiny_ringbuf_counts_lost, .init = setup_xfs, .fini = fix_down, .timeout = 120)
{
	tiny_buffer("bpf");
}

/* tracefs: per-CPU buffers of 4 KiB, "dropped events" from per_cpu/cpuN/stats. */
Test(record_backends, tiny_tracefs_buffer_counts_lost, .init = setup_xfs, .fini = fix_down, .timeout = 120)
{
	tiny_buffer("tracefs");
}

/* SIGINT finishes the file; SIGKILL leaves every whole record readable. */
Test(record_backends, signals, .init = setup_xfs, .fini = fix_down, .timeout = 120)
{
	char out[256], out2[256], cmd[512];
	struct trace_sum s;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/int.tsim", fx.dir);
	pid = record_bg(out, "bpf", "--duration=60");
	snprintf(cmd, sizeof(cmd), "fstrim %s", fx.mnt);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0);
	cr_expect_eq(stop_bg(pid, SIGINT), 0, "SIGINT: record did not exit 0");
	summarize(out, fx.dev, &s);
	cr_expect(s.st.footer && !s.st.truncated, "SIGINT left no footer");
	cr_expect(s.kind[TS_INTENT].count > 0, "fstrim's INTENTs missing");
	sum_free(&s);

	snprintf(out2, sizeof(out2), "%s/kill.tsim", fx.dir);
	pid = record_bg(out2, "bpf", "--duration=60");
	cr_assert_eq(th_run(cmd, NULL, NULL), 0);
	usleep(500000);
	cr_expect_eq(stop_bg(pid, SIGKILL), 128 + SIGKILL);
	summarize(out2, fx.dev, &s);
	cr_expect(!s.st.footer && s.st.truncated, "SIGKILL: expected a truncated trace");
	cr_expect(s.kind[TS_META].count > 0, "SIGKILL: the start snapshot should be readable");
	sum_free(&s);
	/* the recorder's tracefs instance / BPF links die with it: nothing to clean */
}

/*
 * eBPF records are submitted without waking the recorder (bpf.c, adaptive
 * notification); the bounded poll still brings them to the file within 100 ms.
 * A quiet recorder, one fstrim, a wait of 10 times the bound: every INTENT and
 * BIO of the fstrim (it waits for its discards) is in the file before SIGINT.
 */
Test(record_backends, bpf_records_arrive_without_wakeups, .init = setup_xfs, .fini = fix_down,
     .timeout = 120)
{
	char out[256], cmd[512];
	struct trace_sum mid, end;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/live.tsim", fx.dir);
	pid = record_bg(out, "bpf", "--duration=60");
	snprintf(cmd, sizeof(cmd), "fstrim %s", fx.mnt);
	cr_assert_eq(th_run(cmd, NULL, NULL), 0);
	usleep(1000000);
	summarize(out, fx.dev, &mid);
	cr_expect_eq(stop_bg(pid, SIGINT), 0, "SIGINT: record did not exit 0");
	summarize(out, fx.dev, &end);
	cr_expect(end.kind[TS_INTENT].count > 0 && end.kind[TS_BIO].count > 0, "fstrim recorded nothing");
	cr_expect_eq(mid.kind[TS_INTENT].count, end.kind[TS_INTENT].count,
		     "INTENT: %" PRIu64 " in the file 1 s after fstrim, %" PRIu64 " at the end",
		     mid.kind[TS_INTENT].count, end.kind[TS_INTENT].count);
	cr_expect_eq(mid.kind[TS_BIO].count, end.kind[TS_BIO].count,
		     "BIO: %" PRIu64 " in the file 1 s after fstrim, %" PRIu64 " at the end",
		     mid.kind[TS_BIO].count, end.kind[TS_BIO].count);
	sum_free(&mid);
	sum_free(&end);
}

/* With -- CMD the recorder exits with CMD's status. */
Test(record_backends, command_status, .init = setup_xfs, .fini = fix_down, .timeout = 60)
{
	char out[256];

	snprintf(out, sizeof(out), "%s/st.tsim", fx.dir);
	cr_expect_eq(record(out, "", "exit 7", NULL), 7);
}

/* Without root: one line naming what is missing, non-zero exit, no file. */
Test(record_backends, without_root, .timeout = 60)
{
	char cmd[512], *err = NULL;
	const char *dir;
	int rc;

	fix_skip_unless_live();
	if (th_run("command -v setpriv", NULL, NULL))
		cr_skip_test("setpriv (util-linux) missing");
	th_dir_init();
	dir = th_dir();
	snprintf(cmd, sizeof(cmd), "chmod 777 %1$s && setpriv --reuid=65534 --regid=65534 --clear-groups "
		 "%2$s record -o %1$s/x.tsim -m / -- true", dir, th_trimsim());
	rc = th_run(cmd, NULL, &err);
	cr_expect_neq(rc, 0);
	cr_expect(err && th_lines(err) == 1, "expected one line, got: %s", err ? err : "");
	fprintf(stderr, "non-root: %s", err ? err : "");
	snprintf(cmd, sizeof(cmd), "%s/x.tsim", dir);
	cr_expect_neq(access(cmd, F_OK), 0, "a trace file was left behind");
	free(err);
	th_dir_fini();
}

/* Reads and writes are recorded with --io only; flushes always. */
Test(record_backends, io_option, .init = setup_xfs, .fini = fix_down, .timeout = 60)
{
	static const char *const backends[] = { "bpf", "tracefs" };
	char out[256], script[512], extra[64], *err = NULL;
	struct trace_sum s;

	snprintf(script, sizeof(script), "dd if=/dev/zero of=%s/f bs=64k count=16 oflag=direct,sync "
		 "status=none && dd if=%s/f of=/dev/null bs=64k iflag=direct status=none", fx.mnt, fx.mnt);
	for (unsigned b = 0; b < 2; b++)
		for (int io = 0; io < 2; io++) {
			snprintf(out, sizeof(out), "%s/io%u%d.tsim", fx.dir, b, io);
			snprintf(extra, sizeof(extra), "--backend %s%s", backends[b], io ? " --io" : "");
			cr_assert_eq(record(out, extra, script, &err), 0, "%s: %s", extra, err ? err : "");
			free(err);
			err = NULL;
			summarize(out, fx.dev, &s);
			if (io) {
				cr_expect(s.issue[TS_OP_WRITE].count >= 16, "%s: %" PRIu64 " writes", extra,
					  s.issue[TS_OP_WRITE].count);
				cr_expect(s.issue[TS_OP_READ].count >= 16, "%s: %" PRIu64 " reads", extra,
					  s.issue[TS_OP_READ].count);
				cr_expect_eq(s.unpaired, 0);
			} else {
				cr_expect_eq(s.issue[TS_OP_WRITE].count + s.issue[TS_OP_READ].count, 0,
					     "%s: reads/writes recorded without --io", extra);
			}
			sum_free(&s);
		}
}

/* auto falls back to tracefs with a one-line reason; --backend bpf does not fall back. */
Test(record_backends, auto_falls_back, .init = setup_xfs, .fini = fix_down, .timeout = 60)
{
	char cmd[1024], *err = NULL;
	int rc;

	snprintf(cmd, sizeof(cmd), "TRIMSIM_NO_BPF=1 %s record -o %s/a.tsim -m %s -- fstrim %s",
		 th_trimsim(), fx.dir, fx.mnt, fx.mnt);
	rc = th_run(cmd, NULL, &err);
	cr_expect_eq(rc, 0, "auto: %s", err ? err : "");
	cr_expect(err && strstr(err, "TRIMSIM_NO_BPF; using tracefs\n"), "no fallback line: %s", err ? err : "");
	free(err);
	snprintf(cmd, sizeof(cmd), "TRIMSIM_NO_BPF=1 %s record --backend bpf -o %s/b.tsim -m %s -- true",
		 th_trimsim(), fx.dir, fx.mnt);
	rc = th_run(cmd, NULL, &err);
	cr_expect_neq(rc, 0);
	cr_expect(err && th_lines(err) == 1 && strstr(err, "eBPF"), "%s", err ? err : "");
	snprintf(cmd, sizeof(cmd), "%s/b.tsim", fx.dir);
	cr_expect_neq(access(cmd, F_OK), 0, "a trace file was left behind");
	free(err);
}
