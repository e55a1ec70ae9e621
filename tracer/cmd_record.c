// SPDX-License-Identifier: GPL-2.0
/* trimsim record: the command line, the backend choice and the recording loop. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay/cli.h"
#include "tracer/recorder.h"
#include "traces/opts.h"
#include "traces/output.h"
#include "traces/util.h"

enum backend_choice { BACKEND_AUTO, BACKEND_BPF, BACKEND_TRACEFS };

struct record_args {
	const char *out;
	const char *devs[REC_MAX_DEVS];	/* "-d PATH" or "-m PATH", kept in order */
	bool is_mount[REC_MAX_DEVS];
	size_t ndevs;
	bool io;
	uint64_t duration_ns;		/* 0: until the command ends or a signal */
	uint64_t settle_ns;		/* at most this long after the end for delayed discard work */
	enum backend_choice backend;
	uint64_t ringbuf_size;
	char **cmd;			/* after "--" */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim record -o FILE [-d DEV | -m MOUNTPOINT]... [--io] [--duration S] [--settle S]\n"
		"                      [--backend auto|bpf|tracefs] [--ringbuf-size BYTES] [-- CMD ARGS]\n"
		"\n"
		"Records what the filesystems on the chosen devices free, allocate and ask to discard,\n"
		"the discard bios that reach the block layer and the device commands (discard,\n"
		"write-zeroes, flush; reads and writes with --io), into a trace file. Without -d/-m,\n"
		"every mounted block-device filesystem is traced. With -- CMD, records while CMD runs\n"
		"and exits with its status; the discard bios CMD's own threads (and those it starts)\n"
		"submit are flagged workload (the report counts them as CMD's own wait when they went\n"
		"out one at a time). Otherwise records until --duration or SIGINT/SIGTERM.\n"
		"\n"
		"  -o, --output FILE       trace file (binary, streamed: readable after a crash; an existing\n"
		"                          file is truncated, a new one created exclusively); - is stdout\n"
		"  -d, --device DEV        trace a block device (repeatable)\n"
		"  -m, --mount DIR         trace the device of a mounted filesystem (repeatable)\n"
		"      --io                also record reads and writes\n"
		"      --duration S        stop after S (e.g. 30s, 5m)\n"
		"      --settle S          after the command or --duration ends, keep recording the filesystems'\n"
		"                          delayed discard work (ext4's discard worker, XFS's log completions)\n"
		"                          until 300 ms pass without a free or discard, at most S (default 30s)\n"
		"      --backend B         auto (eBPF, else tracefs), bpf or tracefs\n"
		"      --ringbuf-size N    eBPF ring buffer size (default 16M; rounded to a power of two),\n"
		"                          tracefs per-CPU buffer size\n"
		"Environment: TRIMSIM_NO_BPF=1 treats eBPF as unavailable; TRIMSIM_BPF_DEBUG=1 shows libbpf's log.\n"
		"\n"
		"example:\n"
		"  trimsim record -o rm.tsim -m /mnt/xfs -- sh -c 'rm -rf /mnt/xfs/linux; fstrim /mnt/xfs'\n"
		"  trimsim info rm.tsim\n");
}

static const char *const backend_names[] = { "auto", "bpf", "tracefs", NULL };

static int parse_args(int argc, char **argv, struct record_args *a)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "device", required_argument, NULL, 'd' },
		{ "mount", required_argument, NULL, 'm' },
		{ "io", no_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 't' },
		{ "settle", required_argument, NULL, 's' },
		{ "backend", required_argument, NULL, 'b' },
		{ "ringbuf-size", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:d:m:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->out = optarg;
			break;
		case 'd':
		case 'm':
			if (a->ndevs == REC_MAX_DEVS)
				return cli_usage_error("record", "at most %d devices", REC_MAX_DEVS), -EINVAL;
			a->is_mount[a->ndevs] = c == 'm';
			a->devs[a->ndevs++] = optarg;
			break;
		case 'i':
			a->io = true;
			break;
		case 't':
			if (parse_duration(optarg, &a->duration_ns) || !a->duration_ns)
				return cli_usage_error("record", "--duration '%s': expected a duration above 0 "
						       "(e.g. 30s, 5m)", optarg), -EINVAL;
			break;
		case 's':
			if (parse_duration(optarg, &a->settle_ns))
				return cli_usage_error("record", "--settle '%s': expected a duration (e.g. 2s, 30s; "
						       "0: no wait)", optarg), -EINVAL;
			break;
		case 'b': {
			int i;

			for (i = 0; backend_names[i] && strcmp(backend_names[i], optarg); i++)
				;
			if (!backend_names[i])
				return cli_usage_error("record", "--backend '%s': choose auto, bpf or tracefs", optarg),
				       -EINVAL;
			a->backend = (enum backend_choice)i;
			break;
		}
		case 'r':
			if (parse_bytes(optarg, &a->ringbuf_size) || a->ringbuf_size < 4096)
				return cli_usage_error("record", "--ringbuf-size '%s': need bytes >= 4K", optarg), -EINVAL;
			break;
		default:
			return cli_getopt_error("record", c, argv, usage), -EINVAL;
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0 || !argv[optind][0])
			return cli_usage_error("record", "unexpected '%s' (a command goes after --)", argv[optind]),
			       -EINVAL;
		a->cmd = &argv[optind];
	}
	if (!a->out)
		return cli_usage_error("record", "-o FILE is required"), -EINVAL;
	if (a->cmd && output__names_stdout(a->out))
		return cli_usage_error("record", "-o %s: the trace would share stdout with the command; "
				       "use a file or a pipe", a->out), -EINVAL;
	return 0;
}

/* The chosen backend, or auto's fallback with a one-line reason. */
static void *open_backend(const struct record_args *a, const struct rec_config *cfg,
			  const struct rec_backend_ops **ops)
{
	char err[256], err2[256];
	void *st;

	if (a->backend != BACKEND_TRACEFS) {
		*ops = &rec_bpf_ops;
		st = rec_bpf_ops.open(cfg, err, sizeof(err));
		if (st || a->backend == BACKEND_BPF) {
			if (!st)
				fprintf(stderr, "trimsim record: %s\n", err);
			return st;
		}
	}
	*ops = &rec_tracefs_ops;
	st = rec_tracefs_ops.open(cfg, err2, sizeof(err2));
	if (a->backend == BACKEND_AUTO) {
		if (st)
			fprintf(stderr, "trimsim record: %s; using tracefs\n", err);
		else
			fprintf(stderr, "trimsim record: %s; %s\n", err, err2);
	} else if (!st) {
		fprintf(stderr, "trimsim record: %s\n", err2);
	}
	return st;
}

static json_t *make_header(int argc, char **argv, const struct rec_dev *devs, size_t n,
			   const struct rec_backend_ops *ops, void *st)
{
	json_t *h = trace_header__new(argc, argv), *arr;
	int bad = !h;

	arr = h ? json_object_get(h, "devices") : NULL;
	if (h && !arr) {
		arr = json_array();
		bad |= json_object_set_new(h, "devices", arr);
	}
	for (size_t i = 0; !bad && i < n; i++)
		bad |= json_array_append_new(arr, ts_device_to_json(&devs[i].d));
	if (!bad) {
		bad |= json_object_set_new(h, "backend", json_string(ops->name));
		bad |= json_object_set_new(h, "backend_notes", json_string(ops->notes(st)));
	}
	if (bad) {
		json_decref(h);
		return NULL;
	}
	return h;
}

/*
 * Starts the command, held at a gate until the backend follows its thread: a fork or a
 * discard before that would not be the workload's (traces/FORMAT.md, "workload"). -errno.
 */
static pid_t spawn(char **cmd, const struct rec_backend_ops *ops, void *st)
{
	int gate[2], rc;
	pid_t pid;
	char go = 0;

	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(gate[1]);
		if (read(gate[0], &go, 1) != 1)
			_exit(127);	/* the recorder could not follow it: it reported why */
		execvp(cmd[0], cmd);
		fprintf(stderr, "trimsim record: %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	rc = pid < 0 ? -errno : ops->follow(st, (int)pid);
	close(gate[0]);
	if (!rc && write(gate[1], &go, 1) != 1)
		rc = -errno;
	close(gate[1]);
	if (rc && pid > 0) {
		waitpid(pid, NULL, 0);
		return rc;
	}
	return rc ? rc : pid;
}

/*
 * The trace file's dirty pages, written back as the file grows rather than all
 * at once: a storm writes ~5 MB/s of records, and a workload ending in sync(2)
 * (rm -rf && sync, fstrim) would otherwise wait for all of them inside its own
 * timing. SYNC_FILE_RANGE_WRITE only starts writeback (mm/filemap.c
 * __filemap_fdatawrite_range() via fs/sync.c sync_file_range()); it does not
 * wait, and nothing depends on it: errors are ignored, writes report their own.
 */
#define WRITEBACK_STEP (1u << 20)

struct writeback {
	int fd;			/* the trace's descriptor (a pipe or device never grows: not kicked) */
	off_t done;		/* bytes already handed to writeback */
};

static void writeback_kick(struct writeback *wb)
{
	struct stat s;

	if (wb->fd < 0 || fstat(wb->fd, &s) || s.st_size - wb->done < (off_t)WRITEBACK_STEP)
		return;
	sync_file_range(wb->fd, wb->done, s.st_size - wb->done, SYNC_FILE_RANGE_WRITE);
	wb->done = s.st_size;
}

/* Records until the command exits, the duration passes or a signal arrives. */
static int record_loop(struct record_args *a, const struct rec_backend_ops *ops, void *st,
		       struct recorder *r, int out_fd, int *cmd_status)
{
	uint64_t t0 = ts_now_ns(), last = t0;
	bool tty = isatty(STDERR_FILENO);
	struct writeback wb = { out_fd, 0 };
	pid_t pid = -1;
	int rc = 0;

	if (a->cmd) {
		pid = spawn(a->cmd, ops, st);
		rc = pid < 0 ? pid : recorder__meta(r, TS_META_CMD_START, 0, 0, 0, (uint64_t)pid, 0, 0);
	}
	while (!rc && !trimsim_stop) {
		uint64_t now = ts_now_ns(), left = !a->duration_ns ? UINT64_MAX :
						  now - t0 >= a->duration_ns ? 0 : t0 + a->duration_ns - now;
		int status;

		/* at most 100 ms, and no longer than --duration has left (rounded up to a whole ms) */
		rc = ops->poll(st, r, left >= 100000000ull ? 100 : (int)((left + 999999) / 1000000));
		if (rc < 0)
			break;
		rc = recorder__flush(r);	/* TW_STREAM: whole records past the hold reach the file now */
		writeback_kick(&wb);
		now = ts_now_ns();
		if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
			*cmd_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			rc = recorder__meta(r, TS_META_CMD_STOP, 0, 0, 0, (uint64_t)pid,
					    (uint64_t)*cmd_status, 0);
			pid = -1;
			break;
		}
		if (a->duration_ns && now - t0 >= a->duration_ns)
			break;
		if (tty && now - last >= 1000000000ull) {
			recorder__print_progress(r, stderr, now);
			last = now;
		}
	}
	if (pid > 0) {		/* stopped early: let the command finish on its own signal */
		int status;

		kill(pid, SIGTERM);
		waitpid(pid, &status, 0);
		*cmd_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (!rc)
			rc = recorder__meta(r, TS_META_CMD_STOP, 0, 0, 0, (uint64_t)pid,
					    (uint64_t)*cmd_status, 0);
	}
	/*
	 * Drain, then settle: filesystems finish their work after the command
	 * returns (ext4_discard_work(), XFS log completion discards), and the end
	 * free-space snapshot must see it done: ext4 marks discarded blocks free only
	 * once their discard completes (ext4_process_freed_data()). Record until 300 ms
	 * pass without an event and with no recorded command in flight; after 2 s (a
	 * busy root filesystem is never quiet) until 300 ms pass without a free, an
	 * intent or a discard and no recorded command is in flight: ext4's discard
	 * worker (ext4_discard_work()) issues one discard after another for seconds on
	 * a slow or loaded device, and a snapshot taken before it ends does not
	 * balance. At most --settle (30 s); the balance line then names what was still
	 * in flight. A signal skips the wait.
	 */
	for (uint64_t quiet = ts_now_ns(), last = quiet + a->settle_ns,
		      end = quiet + (a->settle_ns < 2000000000ull ? a->settle_ns : 2000000000ull); !rc;) {
		int n = ops->poll(st, r, 50);
		uint64_t now = ts_now_ns();

		if (n < 0)
			rc = n;
		else if (n > 0)
			quiet = now;
		else if ((now - quiet >= 300000000ull && !recorder__inflight(r)) || trimsim_stop)
			break;
		if (now >= end && now - recorder__discard_seen(r) >= 300000000ull && !recorder__inflight(r))
			break;
		if (now >= last)
			break;
	}
	if (!rc && ops->drain) {
		int n = ops->drain(st, r);

		rc = n < 0 ? n : 0;
	}
	if (tty)
		fprintf(stderr, "\n");
	return rc;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a = { .backend = BACKEND_AUTO, .settle_ns = 30000000000ull };
	struct rec_dev devs[REC_MAX_DEVS];
	const struct rec_backend_ops *ops = NULL;
	struct trace_writer *w = NULL;
	struct recorder *r = NULL;
	struct rec_config cfg = { .devs = devs };
	json_t *h = NULL;
	char err[512];
	int rc, status = 1, cmd_status = 0;
	uint64_t t0;
	void *st = NULL;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)	/* the command's own --help is its own */
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	if (parse_args(argc, argv, &a))
		return 2;
	if (geteuid() != 0) {
		fprintf(stderr, "trimsim record: needs root (eBPF needs CAP_BPF and CAP_PERFMON, "
			"tracefs needs /sys/kernel/tracing)\n");
		return 1;
	}
	for (size_t i = 0; i < a.ndevs; i++) {
		rc = a.is_mount[i] ? rec_dev__from_mount(a.devs[i], &devs[i], err, sizeof(err))
				   : rec_dev__from_path(a.devs[i], &devs[i], err, sizeof(err));
		if (rc) {
			fprintf(stderr, "trimsim record: %s\n", err);
			return 1;
		}
	}
	cfg.ndevs = a.ndevs;
	if (!a.ndevs && rec_dev__all_mounted(devs, REC_MAX_DEVS, &cfg.ndevs, err, sizeof(err))) {
		fprintf(stderr, "trimsim record: %s\n", err);
		return 1;
	}
	cfg.io = a.io;
	cfg.ringbuf_size = a.ringbuf_size;
	st = open_backend(&a, &cfg, &ops);
	if (!st)
		goto out;
	h = make_header(argc, argv, devs, cfg.ndevs, ops, st);
	if (!h) {
		fprintf(stderr, "trimsim record: cannot build the trace header\n");
		goto out;
	}
	w = trace_writer__open(a.out, h, TW_BINARY, TW_STREAM, err, sizeof(err));
	r = w ? recorder__new(w, devs, cfg.ndevs) : NULL;
	if (!r) {
		fprintf(stderr, "trimsim record: %s\n", w ? "out of memory" : err);
		goto out;
	}
	t0 = ts_now_ns();
	rc = recorder__snapshot(r, false, err, sizeof(err));
	if (!rc) {
		rc = record_loop(&a, ops, st, r, trace_writer__fd(w), &cmd_status);
		if (rc)
			snprintf(err, sizeof(err), "%s: %s", a.out, strerror(-rc));
	}
	if (!rc)
		rc = recorder__snapshot(r, true, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "trimsim record: %s\n", err);
		goto out;
	}
	rc = trace_writer__close(w, ts_now_ns(), err, sizeof(err));
	w = NULL;
	if (rc) {
		fprintf(stderr, "trimsim record: %s\n", err);
		goto out;
	}
	recorder__print_summary(r, stderr, ts_now_ns() - t0);
	status = a.cmd ? cmd_status : 0;
out:
	if (w) {	/* a streamed file stays readable up to its last whole record */
		if (r)
			recorder__release(r, UINT64_MAX);
		trace_writer__close(w, ts_now_ns(), err, sizeof(err));
	}
	recorder__free(r);
	if (st)
		ops->close(st);
	json_decref(h);
	return status;
}
