// SPDX-License-Identifier: GPL-2.0
/*
 * SIGINT and SIGTERM stop every command: each row starts the sanitized binary on
 * an input that takes seconds (a pipe fed slowly or never finished, a replay
 * paced by the trace's clock, a compare sweep; one record can no longer make
 * minutes of export: TS_MAX_PIECES bounds it, tests/reliab/test_bounds.c),
 * waits until it is under way (its temporary output exists), signals it, and
 * expects exit 128 + signal before we give up after 10 s, one line on stderr, and
 * the working directory exactly as before: no temporary, no partial output.
 * The bound is on behaviour (a command that ignores the signal runs for minutes
 * here), not a performance figure. Real devices (replay --device, calibrate) are
 * in tests/live/test_signals_live.c; record, which finishes its file on SIGINT,
 * in tests/live/test_record_backends.c.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "tests/reliab/spawn.h"
#include "tests/replay/rgen.h"

enum input { IN_NONE = 0, IN_PIPE_TRACE = 1, IN_PIPE_DTRACE = 2, IN_BIG = 4, IN_SLOW = 16 };

struct row {
	char name[48];
	char args[200];		/* run in the working directory */
	unsigned inputs;	/* enum input */
	char out[16];		/* the output whose temporary shows the command is under way; "" none */
};

TestSuite(signals, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(signals, stop)
{
	static struct row t[] = {
		{ .name = "info (pipe)", .args = "info pipe.tsim", .inputs = IN_PIPE_TRACE },
		{ .name = "convert (pipe)", .args = "convert pipe.tsim out.jsonl", .inputs = IN_PIPE_TRACE,
		  .out = "out.jsonl" },
		{ .name = "import dtrace (pipe)", .args = "import --from dtrace pipe.txt -o out.tsim",
		  .inputs = IN_PIPE_DTRACE },
		{ .name = "replay model (pipe)", .args = "replay pipe.tsim -p xfs -M nvme -q -o r.json",
		  .inputs = IN_PIPE_TRACE, .out = "r.json" },
		{ .name = "replay --file (trace clock)",
		  .args = "replay slow.tsim -p xfs --file disk.img --destructive --speed 0.0005 -q -o r.json",
		  .inputs = IN_SLOW, .out = "r.json" },
		{ .name = "compare (12 cells, 2 workers)",
		  .args = "compare big.tsim -p xfs,ext4,ufs,none -M nvme,sata-good,sdcard -j 2 -q -o r.json",
		  .inputs = IN_BIG, .out = "r.json" },
		/* compare and export read their input twice: a pipe is copied first (trace_reader__spool()) */
		{ .name = "compare (copying a pipe)",
		  .args = "compare pipe.tsim -p xfs,ext4 -M nvme -j 2 -q -o r.json", .inputs = IN_PIPE_TRACE },
		{ .name = "export fio (copying a pipe)", .args = "export --to fio pipe.tsim -o out.log",
		  .inputs = IN_PIPE_TRACE },
		{ .name = "recommend (workers)", .args = "recommend big.tsim -M nvme,sdcard -j 2 -q -o r.json",
		  .inputs = IN_BIG, .out = "r.json" },
		{ .name = "recommend (copying a pipe)", .args = "recommend pipe.tsim -M nvme -j 2 -q -o r.json",
		  .inputs = IN_PIPE_TRACE },
	};
	return cr_make_param_array(struct row, t, sizeof(t) / sizeof(t[0]));
}

/* FreeBSD DTrace lines (traces/import/dtrace.c), a thousand per step, for ever. */
static size_t dtrace_lines(uint64_t i, char *buf, size_t cap)
{
	size_t n = 0;

	if (!i)
		n += (size_t)snprintf(buf, cap, "trimsim-dtrace 1\n");
	for (uint64_t k = 0; k < 1000 && n + 80 < cap; k++) {
		uint64_t t = 1000 + (i * 1000 + k) * 1000;

		n += (size_t)snprintf(buf + n, cap - n, "free %" PRIu64 " ada0p2 77 %" PRIu64 " 8192\n", t,
				      ((i * 1000 + k) % 100000) * 8192);
	}
	return n;
}

struct inputs {
	char dir[400], work[512], log[512];
	char *feed;		/* what the binary pipe is fed */
	size_t feed_len;
	pid_t feeder;
};

static void make_inputs(struct inputs *in, unsigned want)
{
	char p[700];
	int fd;

	snprintf(in->dir, sizeof(in->dir), "%s/case.XXXXXX", th_dir());
	cr_assert_not_null(mkdtemp(in->dir));
	snprintf(in->work, sizeof(in->work), "%s/w", in->dir);
	snprintf(in->log, sizeof(in->log), "%s/log", in->dir);
	cr_assert_eq(mkdir(in->work, 0755), 0);
	cr_assert_eq(mkdir(in->log, 0755), 0);
	if (want & IN_PIPE_TRACE) {	/* 200k records fed at ~2 MB/s: 5 s, then a pipe that never ends */
		snprintf(p, sizeof(p), "%s/src.tsim", in->log);
		cr_assert_eq(rgen_trace(p, 200000), 0);
		in->feed = th_slurp(p, &in->feed_len);
		cr_assert_not_null(in->feed);
		snprintf(p, sizeof(p), "%s/pipe.tsim", in->work);
		cr_assert_eq(mkfifo(p, 0644), 0);
		in->feeder = sp_feeder(p, in->feed, in->feed_len, NULL, 20000, 10000);
	}
	if (want & IN_PIPE_DTRACE) {
		snprintf(p, sizeof(p), "%s/pipe.txt", in->work);
		cr_assert_eq(mkfifo(p, 0644), 0);
		in->feeder = sp_feeder(p, NULL, 0, dtrace_lines, 100000, 20000);
	}
	if (want & IN_BIG) {	/* each compare cell replays 400k records */
		snprintf(p, sizeof(p), "%s/big.tsim", in->work);
		cr_assert_eq(rgen_trace(p, 400000), 0);
	}
	if (want & IN_SLOW) {	/* 2000 records over 40 ms of trace time, replayed 2000 times slower */
		snprintf(p, sizeof(p), "%s/slow.tsim", in->work);
		cr_assert_eq(rgen_trace(p, 2000), 0);
		snprintf(p, sizeof(p), "%s/disk.img", in->work);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
		cr_assert_geq(fd, 0);
		cr_assert_eq(ftruncate(fd, 32ll << 30), 0);	/* sparse: holds no data */
		close(fd);
	}
}

static void drop_inputs(struct inputs *in)
{
	sp_reap(in->feeder);
	th_rmtree(in->dir);
	free(in->feed);
	memset(in, 0, sizeof(*in));
}

static void run_one(const struct row *r, int sig)
{
	struct inputs in = { 0 };
	char out[600], errf[600], tmp[24], *before, *after, *err;
	uint64_t t0;
	pid_t pid;
	int rc;

	make_inputs(&in, r->inputs);
	snprintf(out, sizeof(out), "%s/stdout", in.log);
	snprintf(errf, sizeof(errf), "%s/stderr", in.log);
	before = sp_listing(in.work);
	pid = sp_start(in.work, r->args, out, errf);
	/* under way: its temporary output exists (or, without one, it has had time to start) */
	snprintf(tmp, sizeof(tmp), ".%s.", r->out);
	for (t0 = sp_now_ms(); r->out[0] && !sp_has_prefix(in.work, tmp) && sp_now_ms() - t0 < 10000;)
		usleep(10000);
	cr_expect(!r->out[0] || sp_has_prefix(in.work, tmp), "%s: no temporary %s*XXXXXX appeared", r->name, tmp);
	usleep(r->out[0] ? 300000 : 1000000);
	rc = sp_wait(pid, 0);
	err = th_slurp(errf, NULL);
	cr_assert_eq(rc, -1, "%s: finished (exit %d) before the signal: the input is too small: %s", r->name, rc,
		     err ? err : "");
	free(err);
	kill(pid, sig);
	rc = sp_wait(pid, 10000);
	if (rc < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	err = th_slurp(errf, NULL);
	cr_expect_eq(rc, 128 + sig, "%s, %s: exit %d, expected %d%s; stderr: %s", r->name, strsignal(sig), rc,
		     128 + sig, rc < 0 ? " (still running 10 s after the signal)" :
		     rc > SP_KILLED ? " (killed by the signal: no cleanup ran)" : "", err ? err : "");
	cr_expect_eq(th_lines(err), 1, "%s, %s: stderr is not one line: %s", r->name, strsignal(sig), err ? err : "");
	/* nothing it started outlives it (compare's workers) */
	cr_expect(rc < 0 || (kill(-pid, 0) && errno == ESRCH), "%s, %s: processes of its group outlived it",
		  r->name, strsignal(sig));
	sp_kill_group(pid);
	after = sp_listing(in.work);
	cr_expect_str_eq(after, before, "%s, %s: left behind (listing after vs before)", r->name, strsignal(sig));
	free(err);
	free(before);
	free(after);
	drop_inputs(&in);
}

ParameterizedTest(struct row *r, signals, stop, .timeout = 120)
{
	run_one(r, SIGINT);
	run_one(r, SIGTERM);
}
