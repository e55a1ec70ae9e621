// SPDX-License-Identifier: GPL-2.0
/*
 * Recorder crash safety and privileges (issue 10), on a loop device of our own
 * with ext4 -o discard and a discard storm running:
 *  - SIGKILL mid-recording leaves a file whose whole records all read back, and
 *    `trimsim info` reports it truncated with that count;
 *  - SIGINT leaves a complete file (footer, checksum ok);
 *  - a full disk (recording into a 256 KiB tmpfs) ends with one clear line and a
 *    readable file;
 *  - root with CAP_BPF/CAP_PERFMON/CAP_SYS_ADMIN dropped is told which are missing;
 *  - the trace file honours the umask (077 and 022).
 * The eBPF backend when it loads here, else tracefs (--backend auto).
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "tests/reliab/live_fs.h"
#include "traces/trace.h"

static void setup(void) { lfs_up(false); }
static void setup_small(void) { lfs_up(true); }

/* trimsim record OUT -m MNT [extra] -- sh -c STORM, in the background. */
static pid_t record_bg(const char *out, const char *extra, int rounds)
{
	char storm[1024], cmd[2048];
	pid_t pid;

	snprintf(storm, sizeof(storm), LFS_STORM, lfs.mnt, rounds);
	/* stderr beside the image, not beside out: that may be the full disk */
	snprintf(cmd, sizeof(cmd), "exec %s record -o %s -m %s %s -- sh -c '%s' >/dev/null 2>%s/record.err",
		 th_trimsim(), out, lfs.mnt, extra, storm, lfs.dir);
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		setpgid(0, 0);	/* recorder and storm in one group, so a SIGKILL can take both */
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Records the reader returns from path, and its status. */
static uint64_t read_all(const char *path, struct trace_status *st)
{
	struct trace_reader *r;
	struct ts_record rec;
	char err[512];
	uint64_t n = 0;

	r = trace_reader__open(path, err, sizeof(err));
	cr_assert(r, "%s", err);
	while (trace_reader__next(r, &rec) == 1)
		n++;
	*st = *trace_reader__status(r);
	trace_reader__close(r);
	return n;
}

/*
 * Waits until the trace file holds at least bytes (the recorder is running and
 * flushing). No deadline of its own: a loaded machine only makes it slower (the
 * test's timeout is the guard); a recorder that exits first fails the test with
 * what it said.
 */
static void wait_size(const char *path, off_t bytes, pid_t pid)
{
	char errf[300], *e;
	struct stat s;
	int status;

	while (stat(path, &s) || s.st_size < bytes) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			snprintf(errf, sizeof(errf), "%s/record.err", lfs.dir);
			e = th_slurp(errf, NULL);
			cr_assert_fail("the recorder exited (status 0x%x) before %s held %lld bytes: %s", status, path,
				       (long long)bytes, e ? e : "");
		}
		usleep(50000);
	}
}

Test(reliab_crash, sigkill_leaves_whole_records, .init = setup, .fini = lfs_down, .timeout = 180)
{
	char out[256], cmd[512], want[512], *o = NULL, *e = NULL;
	struct trace_status st;
	uint64_t n;
	int status, rc;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/kill.tsim", lfs.dir);
	pid = record_bg(out, "", 100000);	/* until killed */
	wait_size(out, 64 * 1024, pid);
	kill(-pid, SIGKILL);	/* the recorder, and the storm it ran (nothing else may keep the fs busy) */
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	n = read_all(out, &st);
	cr_expect(n > 0 && st.truncated && !st.footer, "records %llu truncated %d", (unsigned long long)n,
		  st.truncated);
	snprintf(cmd, sizeof(cmd), "%s info %s", th_trimsim(), out);
	rc = th_run(cmd, &o, &e);
	cr_expect_eq(rc, 1, "info on a killed recording: exit %d", rc);
	cr_expect(o && strstr(o, "status:   TRUNCATED (no footer)"), "%s", o ? o : "");
	/* "... no footer, trace cut short; N whole records recovered" or "truncated record ...; N whole ..." */
	snprintf(want, sizeof(want), "; %llu whole records recovered\n", (unsigned long long)n);
	cr_expect(e && th_lines(e) == 1 && strstr(e, want), "info said: %s (reader read %llu)", e ? e : "",
		  (unsigned long long)n);
	free(o);
	free(e);
}

Test(reliab_crash, sigint_leaves_a_complete_file, .init = setup, .fini = lfs_down, .timeout = 180)
{
	char out[256], cmd[512], *o = NULL;
	struct trace_status st;
	uint64_t n;
	int status, rc;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/int.tsim", lfs.dir);
	pid = record_bg(out, "", 100000);	/* until killed */
	wait_size(out, 64 * 1024, pid);
	kill(pid, SIGINT);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	kill(-pid, SIGKILL);	/* whatever of the storm outlived the recorder */
	n = read_all(out, &st);
	cr_expect(n > 0 && st.footer && !st.truncated && st.checksum_ok, "records %llu footer %d checksum %d",
		  (unsigned long long)n, st.footer, st.checksum_ok);
	snprintf(cmd, sizeof(cmd), "%s info %s", th_trimsim(), out);
	rc = th_run(cmd, &o, NULL);
	cr_expect_eq(rc, 0);
	cr_expect(o && strstr(o, "status:   complete, checksum ok"), "%s", o ? o : "");
	free(o);
}

Test(reliab_crash, full_disk, .init = setup_small, .fini = lfs_down, .timeout = 180)
{
	char out[256], errf[300], cmd[512], *e = NULL, *o = NULL;
	struct trace_status st;
	size_t len;
	uint64_t n;
	int status;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/full.tsim", lfs.small);
	pid = record_bg(out, "--io", 40);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	kill(-pid, SIGKILL);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) != 0, "record did not fail on a full disk");
	snprintf(errf, sizeof(errf), "%s/record.err", lfs.dir);
	e = th_slurp(errf, &len);
	cr_assert(e);
	/* The last line says what happened, naming the file. */
	cr_expect(strstr(e, ": No space left on device\n") && strstr(e, out), "stderr: %s", e);
	free(e);
	n = read_all(out, &st);
	cr_expect(n > 0 && st.truncated, "records %llu truncated %d", (unsigned long long)n, st.truncated);
	snprintf(cmd, sizeof(cmd), "%s info %s 2>&1 >/dev/null", th_trimsim(), out);
	cr_expect_eq(th_run(cmd, &o, NULL), 1);
	cr_expect(o && th_lines(o) == 1 && strstr(o, "whole records recovered"), "%s", o ? o : "");
	free(o);
}

/* Root without the capabilities eBPF needs: named, non-zero exit, no file. tracefs still works. */
Test(reliab_crash, dropped_capabilities, .init = setup, .fini = lfs_down, .timeout = 120)
{
	char cmd[1024], out[256], *e = NULL;
	int rc;

	if (th_run("command -v setpriv", NULL, NULL))
		cr_skip_test("setpriv (util-linux) missing");
	snprintf(out, sizeof(out), "%s/nocap.tsim", lfs.dir);
	snprintf(cmd, sizeof(cmd), "setpriv --inh-caps=-all --bounding-set=-bpf,-perfmon,-sys_admin %s record "
		 "--backend bpf -o %s -m %s -- true", th_trimsim(), out, lfs.mnt);
	rc = th_run(cmd, NULL, &e);
	cr_expect_neq(rc, 0);
	cr_expect(e && strstr(e, "trimsim record: eBPF: missing CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN)\n"),
		  "stderr: %s", e ? e : "");
	cr_expect_neq(access(out, F_OK), 0, "a trace was left behind");
	free(e);
}

/* The trace file's mode is 0666 & ~umask. */
Test(reliab_crash, umask, .init = setup, .fini = lfs_down, .timeout = 120)
{
	static const struct { const char *mask; unsigned mode; } t[] = { { "077", 0600 }, { "022", 0644 } };
	char cmd[1024], out[256];
	struct stat s;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(out, sizeof(out), "%s/u%s.tsim", lfs.dir, t[i].mask);
		snprintf(cmd, sizeof(cmd), "umask %s && %s record -o %s -m %s -- sync", t[i].mask, th_trimsim(),
			 out, lfs.mnt);
		cr_assert_eq(th_run(cmd, NULL, NULL), 0, "record with umask %s", t[i].mask);
		cr_assert_eq(stat(out, &s), 0);
		cr_expect_eq(s.st_mode & 0777, t[i].mode, "umask %s: mode %o", t[i].mask, s.st_mode & 0777);
	}
}
