// SPDX-License-Identifier: GPL-2.0
/* The cells of a report, replayed by forked workers (matrix.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "traces/opts.h"
#include "traces/trace.h"
#include "traces/util.h"
#include "replay/report/matrix.h"
#include "replay/report/progress.h"
#include "replay/report/report.h"
#include "replay/report/runcell.h"

/*
 * A worker is a forked process that runs the cells it is handed: the parent
 * sends a cell index down `to` (a socket: a worker that died between cells is
 * EPIPE there, not a SIGPIPE that would end the sweep), the worker replays that cell in a buffer of
 * its own and writes the result back through `from` (struct wire), then waits
 * for the next index. One process serves many cells (a fork, a pipe and a wait
 * per cell cost more than a small cell's replay: BENCHMARKS.md "Sweeps"); with
 * `once` it exits after one, so every cell has a fresh process of its own.
 */
struct worker {
	pid_t pid;		/* 0: no process in this slot */
	int to, from;
	size_t cell;		/* the cell it runs; SIZE_MAX: idle */
	size_t got;		/* bytes of the result received */
	struct wire *buf;	/* what arrived so far */
};

/*
 * A result on its way from a worker: the 64-byte chunks of the cell that differ from
 * the cell as report__new() made it (its identity), and which ones they are. A cell
 * is 40 KiB, mostly empty latency-histogram buckets; what differs is a few KiB. The
 * parent's copy of the cell is still as report__new() made it, so writing these
 * chunks there gives the worker's cell, and the pages of the rest are never touched.
 */
#define WIRE_CHUNK	64
#define WIRE_CHUNKS	((sizeof(struct report_cell) + WIRE_CHUNK - 1) / WIRE_CHUNK)

struct wire {
	uint32_t len;		/* bytes of data[] in use */
	uint32_t index;		/* the cell's */
	uint64_t map[(WIRE_CHUNKS + 63) / 64];	/* bit k: chunk k is in data[], in order */
	unsigned char data[WIRE_CHUNKS * WIRE_CHUNK];
};

#define WIRE_HEAD	offsetof(struct wire, data)

static size_t chunk_len(size_t k)
{
	size_t off = k * WIRE_CHUNK;

	return sizeof(struct report_cell) - off < WIRE_CHUNK ? sizeof(struct report_cell) - off : WIRE_CHUNK;
}

/* The chunks of c that differ from base, into wr. */
static void wire_pack(struct wire *wr, const struct report_cell *c, const struct report_cell *base)
{
	const unsigned char *p = (const void *)c, *b = (const void *)base;

	memset(wr->map, 0, sizeof(wr->map));
	wr->len = 0;
	wr->index = c->index;
	for (size_t k = 0; k < WIRE_CHUNKS; k++) {
		size_t off = k * WIRE_CHUNK, n = chunk_len(k);

		if (!memcmp(p + off, b + off, n))
			continue;
		wr->map[k / 64] |= 1ull << (k % 64);
		memcpy(wr->data + wr->len, p + off, n);
		wr->len += (uint32_t)n;
	}
}

/* wr's chunks written over c, a cell as report__new() made it. */
static void wire_unpack(const struct wire *wr, struct report_cell *c)
{
	unsigned char *p = (void *)c;
	size_t at = 0;

	for (size_t k = 0; k < WIRE_CHUNKS; k++)
		if (wr->map[k / 64] >> (k % 64) & 1) {
			memcpy(p + k * WIRE_CHUNK, wr->data + at, chunk_len(k));
			at += chunk_len(k);
		}
}

int report_run_one(struct report_cell *c, const struct matrix_opts *a, char *err, size_t errlen)
{
	/*
	 * check_targets() passed for every real target before any cell ran: a block device
	 * had --destructive, a --file target had it or held no data. What earlier cells
	 * wrote there is this command's own, so later cells may overwrite it; every other
	 * check (in use, extent) is made again when the cell opens its target.
	 */
	bool rt = report_profile_realtime(c->profile);
	struct cell_job j = { .trace = c->trace, .policy = c->policy, .profile = c->profile, .seed = a->seed,
			      .runs = a->runs, .qd = a->qd, .destructive = a->destructive || rt };

	return report_run_cell(&j, c, err, errlen);
}

/*
 * The worker process: cells by index until the parent closes `in` (or a signal stops it).
 * A cell runs in the worker's own buffer, not in the report's pages it shares with the
 * parent: writing those would copy each page and flush the other CPUs' TLBs.
 */
static void work(struct report *r, const struct matrix_opts *a, int in, int out, bool once)
{
	struct report_cell *c = malloc(sizeof(*c)), *base = malloc(sizeof(*base));
	struct wire *wr = malloc(sizeof(*wr));
	char err[256];
	uint64_t i;

	if (!c || !base || !wr)
		_exit(1);
	signal(SIGPIPE, SIG_DFL);
	while (!trimsim_stop) {
		ssize_t n = read(in, &i, sizeof(i));
		const struct report_cell *todo;

		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(i) || i >= report__ncells(r))
			break;
		todo = report__cell_c(r, (size_t)i);	/* as report__new() made it: only its identity */
		report_cell__init(base, todo->trace, todo->policy, todo->profile, todo->index);
		memcpy(c, base, sizeof(*c));
		report_run_one(c, a, err, sizeof(err));
		wire_pack(wr, c, base);
		if (ts_write_all(out, wr, WIRE_HEAD + wr->len, NULL))
			_exit(1);
		if (once)
			break;
	}
	_exit(0);
}

/*
 * A worker in slot k of w[0..nw). The child closes the parent's ends of the
 * other workers' pipes it inherited: a worker that held another's `to` open
 * would keep it from ever reading EOF.
 */
static int spawn(struct report *r, const struct matrix_opts *a, struct worker *ws, size_t nw, size_t k, bool once)
{
	struct worker *w = &ws[k];
	int down[2], up[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, down))
		return -errno;
	if (pipe2(up, O_CLOEXEC)) {
		int e = -errno;

		close(down[0]);
		close(down[1]);
		return e;
	}
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0) {
		int e = -errno;

		w->pid = 0;
		close(down[0]);
		close(down[1]);
		close(up[0]);
		close(up[1]);
		return e;
	}
	if (w->pid == 0) {
		close(down[1]);
		close(up[0]);
		for (size_t i = 0; i < nw; i++)
			if (i != k && ws[i].pid) {
				close(ws[i].to);
				close(ws[i].from);
			}
		work(r, a, down[0], up[1], once);
	}
	close(down[0]);
	close(up[1]);
	w->to = down[1];
	w->from = up[0];
	w->cell = SIZE_MAX;
	w->got = 0;
	return 0;
}

/* Closes the worker's pipes (an idle worker then exits) and waits for it; its wait status. */
static int reap(struct worker *w)
{
	int st = 0;

	if (!w->pid)
		return 0;
	if (w->to >= 0)
		close(w->to);
	close(w->from);
	while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
	w->to = -1;
	return st;
}

/* Hands cell i to the worker: 0, -EPIPE when it is gone, or -errno. */
static int assign(struct worker *w, size_t i)
{
	uint64_t v = i;
	ssize_t n;

	do
		n = send(w->to, &v, sizeof(v), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(v))
		return n < 0 ? -errno : -EIO;
	w->cell = i;
	w->got = 0;
	return 0;
}

/*
 * Cell i to the worker in slot k, forking one when the slot is empty, or when
 * its worker died between cells (killed from outside): a fresh one takes the cell.
 */
static int start(struct report *r, const struct matrix_opts *a, struct worker *w, size_t nw, size_t k, bool once,
		 size_t i)
{
	int e = 0;

	for (int tries = 0; tries < 2; tries++) {
		if (!w[k].pid && (e = spawn(r, a, w, nw, k, once)))
			return e;
		if ((e = assign(&w[k], i)) != -EPIPE)
			return e;
		reap(&w[k]);
	}
	return e;
}

/*
 * Reads what a busy worker sent. Returns 1 when its cell is done: placed at its
 * index, or, when the worker died before sending it all, failed with the reason
 * (the worker is then reaped). 0: more to come.
 */
static int drain(struct report *r, struct worker *w)
{
	struct wire *buf = w->buf;
	struct report_cell *c = report__cell(r, w->cell);
	ssize_t n = read(w->from, (char *)buf + w->got, sizeof(*buf) - w->got);
	int st;

	if (n < 0 && errno == EINTR)
		return 0;
	if (n > 0) {
		w->got += (size_t)n;
		if (w->got < WIRE_HEAD || (buf->len <= sizeof(buf->data) && w->got < WIRE_HEAD + buf->len))
			return 0;
		if (buf->index == c->index && w->got == WIRE_HEAD + buf->len) {
			wire_unpack(buf, c);
			w->cell = SIZE_MAX;
			return 1;
		}
	}
	st = reap(w);
	c->status = -EIO;
	if (WIFSIGNALED(st))
		snprintf(c->error, sizeof(c->error), "worker killed by signal %d", WTERMSIG(st));
	else
		snprintf(c->error, sizeof(c->error), "worker exited with status %d before reporting",
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	w->cell = SIZE_MAX;
	return 1;
}

#define POLL_MS 100
#define STOP_GRACE_NS 2000000000ull

/*
 * SIGINT/SIGTERM: the workers stop too. A worker that got the signal itself
 * (a terminal's ^C reaches the whole process group) dies of this second one,
 * which is fine: its cell is reported as killed. One that ignores both for
 * STOP_GRACE_NS is killed. Idle workers are sent nothing more: their pipe closes.
 */
static void stop_workers(struct worker *w, size_t nw, uint64_t *stop_ns)
{
	uint64_t now = ts_now_ns();

	for (size_t i = 0; i < nw; i++) {
		if (!w[i].pid)
			continue;
		if (w[i].to >= 0) {
			close(w[i].to);
			w[i].to = -1;
		}
		if (w[i].cell == SIZE_MAX)
			continue;
		if (!*stop_ns)
			kill(w[i].pid, SIGTERM);
		else if (now - *stop_ns > STOP_GRACE_NS)
			kill(w[i].pid, SIGKILL);
	}
	if (!*stop_ns)
		*stop_ns = now;
}

/* The next cell of this pass to run, from *next on; n when none is left. */
static size_t next_cell(const struct report *r, const struct matrix_opts *a, bool realtime, size_t *next)
{
	size_t n = report__ncells(r);

	for (; *next < n; (*next)++)
		if (report_profile_realtime(report__cell_c(r, *next)->profile) == realtime &&
		    !(a->filled && a->filled(a->arg, *next)))
			return (*next)++;
	return n;
}

/* Cells of this pass still to run. */
static size_t count_cells(const struct report *r, const struct matrix_opts *a, bool realtime)
{
	size_t next = 0, k = 0;

	while (next_cell(r, a, realtime, &next) < report__ncells(r))
		k++;
	return k;
}

/*
 * One pass over the cells whose target is (or is not) real-time. Model cells run
 * on --jobs workers, each running cell after cell (one process per cell with
 * a->isolate); cells on real devices or files run one at a time, alone, each in a
 * fresh process, so they neither share the device nor the CPU with another cell
 * while measured. Each result lands at its cell's index: the order workers finish
 * in never shows.
 */
static int run_pass(struct report *r, const struct matrix_opts *a, bool realtime)
{
	size_t n = report__ncells(r), todo = count_cells(r, a, realtime), next = 0, busy = 0;
	unsigned jobs = realtime || !a->jobs ? 1 : a->jobs;
	bool once = realtime || a->isolate;
	struct worker *w = NULL;
	struct pollfd *pfd = NULL;
	struct wire *bufs = NULL;
	size_t *slot = NULL;
	uint64_t stop_ns = 0;
	int err = 0;

	if (jobs > todo)
		jobs = (unsigned)todo;
	if (!jobs)
		return 0;
	w = calloc(jobs, sizeof(*w));
	pfd = calloc(jobs, sizeof(*pfd));
	slot = calloc(jobs, sizeof(*slot));
	bufs = calloc(jobs, sizeof(*bufs));
	if (!w || !pfd || !slot || !bufs) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned k = 0; k < jobs; k++)
		w[k] = (struct worker){ .to = -1, .from = -1, .cell = SIZE_MAX, .buf = &bufs[k] };
	for (;;) {
		size_t np = 0;

		/* every idle worker gets the next cell; a slot without a process gets one */
		for (unsigned k = 0; k < jobs && !trimsim_stop && !err; k++) {
			size_t i;

			if (w[k].pid && w[k].cell != SIZE_MAX)
				continue;
			if ((i = next_cell(r, a, realtime, &next)) == n)
				break;
			if ((err = start(r, a, w, jobs, k, once, i)))
				break;
			busy++;
		}
		if (trimsim_stop)
			stop_workers(w, jobs, &stop_ns);
		if (!busy)
			break;
		for (unsigned k = 0; k < jobs; k++)
			if (w[k].pid && w[k].cell != SIZE_MAX) {
				pfd[np] = (struct pollfd){ .fd = w[k].from, .events = POLLIN };
				slot[np++] = k;
			}
		/* bounded: a signal that lands between the flag check and poll() is seen within POLL_MS */
		if (poll(pfd, np, POLL_MS) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		for (size_t p = 0; p < np; p++) {
			struct worker *x = &w[slot[p]];

			if (!pfd[p].revents || !drain(r, x))
				continue;
			busy--;
			progress__cell(a->progress);
			if (once && x->pid)
				reap(x);	/* its one cell done: the next gets a fresh process */
		}
	}
	if (!err && trimsim_stop)
		err = -EINTR;
out:
	for (unsigned k = 0; w && k < jobs; k++) {
		if (err && w[k].pid && w[k].cell != SIZE_MAX)
			kill(w[k].pid, SIGKILL);	/* a failed sweep (no memory, no fork) waits for no cell */
		reap(&w[k]);
	}
	free(w);
	free(pfd);
	free(slot);
	free(bufs);
	return err;
}

int report_run_matrix(struct report *r, const struct matrix_opts *a)
{
	int err = run_pass(r, a, false);

	return err ? err : run_pass(r, a, true);
}

int report_take_traces(int argc, char **argv, int first, char **traces, size_t *nt, size_t max, char *err,
		       size_t errlen)
{
	for (int i = first; i < argc; i++) {
		if (*nt == max)
			return ts_errf(err, errlen, -E2BIG, "more than %zu traces", max);
		traces[(*nt)++] = argv[i];
	}
	return *nt ? 0 : ts_errf(err, errlen, -EINVAL, "no TRACE given");
}

int report_open_traces(char *const *traces, size_t nt, char *err, size_t errlen)
{
	for (size_t i = 0; i < nt; i++) {
		struct trace_reader *r;
		int e = trace_reader__spool(traces[i], err, errlen);

		if (e)
			return e;
		if (!(r = trace_reader__open(traces[i], err, errlen)))
			return errno ? -errno : -EINVAL;
		trace_reader__close(r);
	}
	return 0;
}

void report_matrix_defaults(struct matrix_opts *m)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	m->jobs = ncpu > 0 ? (unsigned)ncpu : 1;
	m->runs = 1;
	m->seed = 1;
}

int report_parse_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *err,
		      size_t errlen)
{
	if (parse_u64(s, out) || *out < lo || *out > hi)
		return ts_errf(err, errlen, -EINVAL, "%s '%s': expected an integer in %llu..%llu", opt, s,
			       (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

static int set_uint(unsigned *dst, const char *opt, const char *arg, unsigned lo, unsigned hi, char *err,
		    size_t errlen)
{
	uint64_t v;
	int e = report_parse_uint(opt, arg, lo, hi, &v, err, errlen);

	if (!e)
		*dst = (unsigned)v;
	return e;
}

/* 1 when c is not a matrix option. */
static int matrix_option(int c, const char *arg, struct matrix_opts *m, char *err, size_t errlen)
{
	switch (c) {
	case 'j':
		return set_uint(&m->jobs, "--jobs", arg, 1, 1024, err, errlen);
	case 'r':
		return set_uint(&m->runs, "--runs", arg, 1, RUNS_MAX, err, errlen);
	case 'Q':
		return set_uint(&m->qd, "--qd", arg, 1, 65536, err, errlen);
	case 's':
		return report_parse_uint("--seed", arg, 0, UINT64_MAX, &m->seed, err, errlen);
	case 'D':
		m->destructive = true;
		return 0;
	default:
		return 1;
	}
}

/* 1 when c is not a plan option (or the command takes none). */
static int plan_option(int c, const char *arg, struct matrix_plan *p, char *err, size_t errlen)
{
	if (!p || (c != 'P' && c != 'S' && c != 'K'))
		return 1;
	if (c == 'K')
		return set_uint(&p->per_task, "--per-task", arg, 1, 1000000, err, errlen);
	if (c == 'P')
		p->dir = arg;
	p->slurm |= c == 'S';
	return 0;
}

int report_matrix_args(const struct matrix_cli *cli, int argc, char **argv, struct matrix_opts *m, char *err,
		       size_t errlen)
{
	int c, e;

	report_matrix_defaults(m);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, cli->shortopts, cli->lopts, NULL)) != -1) {
		if ((e = cli->own(c, optarg, cli->ctx, err, errlen)) == 1 &&
		    (e = matrix_option(c, optarg, m, err, errlen)) == 1 &&
		    (e = plan_option(c, optarg, cli->plan, err, errlen)) == 1) {
			err[0] = 0;
			cli_getopt_error(cli->cmd, c, argv, cli->usage);
			return -EINVAL;
		}
		if (e)
			return e;
	}
	if (cli->plan && !cli->plan->dir && (cli->plan->slurm || cli->plan->per_task))
		return ts_errf(err, errlen, -EINVAL, "%s without --plan DIR",
			       cli->plan->slurm ? "--slurm" : "--per-task");
	if (cli->merge && *cli->merge)	/* the plan names the traces */
		return optind < argc ? ts_errf(err, errlen, -EINVAL, "'%s': no TRACE with --merge (the plan "
					       "names them)", argv[optind]) : 0;
	return report_take_traces(argc, argv, optind, cli->traces, cli->nt, cli->max_traces, err, errlen);
}
