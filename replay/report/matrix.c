// SPDX-License-Identifier: GPL-2.0
/* The cells of a report, replayed by forked workers (matrix.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "traces/opts.h"
#include "traces/trace.h"
#include "traces/util.h"
#include "replay/report/matrix.h"
#include "replay/report/report.h"
#include "replay/report/runcell.h"

struct worker {
	pid_t pid;
	int fd;
	size_t cell;
	size_t got;		/* bytes of the cell received */
	struct report_cell *buf;	/* what arrived so far */
};

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

static void run_worker(struct report_cell *c, const struct matrix_opts *a, int fd)
{
	char err[256];
	const char *p = (const char *)c;
	size_t left = sizeof(*c);

	signal(SIGPIPE, SIG_DFL);
	report_run_one(c, a, err, sizeof(err));
	while (left) {
		ssize_t w = write(fd, p, left);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1);
		p += w;
		left -= (size_t)w;
	}
	_exit(0);
}

static int spawn(struct report *r, const struct matrix_opts *a, size_t i, struct worker *w)
{
	int pfd[2];

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0) {
		int e = -errno;

		close(pfd[0]);
		close(pfd[1]);
		return e;
	}
	if (w->pid == 0) {
		close(pfd[0]);
		run_worker(report__cell(r, i), a, pfd[1]);
	}
	close(pfd[1]);
	w->fd = pfd[0];
	w->cell = i;
	w->got = 0;
	return 0;
}

/* Reads what a worker sent; on EOF reaps it. Returns 1 when the worker is done. */
static int drain(struct report *r, struct worker *w)
{
	struct report_cell *buf = w->buf;
	ssize_t n = read(w->fd, (char *)buf + w->got, sizeof(*buf) - w->got);
	int st;

	if (n < 0 && errno == EINTR)
		return 0;
	if (n > 0) {
		w->got += (size_t)n;
		return 0;
	}
	close(w->fd);
	while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	struct report_cell *c = report__cell(r, w->cell);

	if (w->got == sizeof(*buf) && buf->index == c->index) {
		memcpy(c, buf, sizeof(*c));
	} else {
		c->status = -EIO;
		if (WIFSIGNALED(st))
			snprintf(c->error, sizeof(c->error), "worker killed by signal %d", WTERMSIG(st));
		else
			snprintf(c->error, sizeof(c->error), "worker exited with status %d before reporting",
				 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	return 1;
}

#define POLL_MS 100
#define STOP_GRACE_NS 2000000000ull

/*
 * SIGINT/SIGTERM: the workers stop too. A worker that got the signal itself
 * (a terminal's ^C reaches the whole process group) dies of this second one,
 * which is fine: its cell is reported as killed. One that ignores both for
 * STOP_GRACE_NS is killed.
 */
static void stop_workers(const struct worker *w, size_t active, uint64_t *stop_ns)
{
	uint64_t now = ts_now_ns();

	if (!*stop_ns) {
		*stop_ns = now;
		for (size_t i = 0; i < active; i++)
			kill(w[i].pid, SIGTERM);
	} else if (now - *stop_ns > STOP_GRACE_NS) {
		for (size_t i = 0; i < active; i++)
			kill(w[i].pid, SIGKILL);
	}
}

/*
 * One pass over the cells whose target is (or is not) real-time. Model cells run
 * --jobs at a time; cells on real devices or files run one at a time, alone, so
 * they neither share the device nor the CPU with another cell while measured.
 */
static int run_pass(struct report *r, const struct matrix_opts *a, bool realtime)
{
	size_t n = report__ncells(r), next = 0, active = 0;
	unsigned jobs = realtime || !a->jobs ? 1 : (a->jobs < n ? a->jobs : (unsigned)n);
	struct worker *w = calloc(jobs ? jobs : 1, sizeof(*w));
	struct pollfd *pfd = calloc(jobs ? jobs : 1, sizeof(*pfd));
	struct report_cell *bufs = calloc(jobs ? jobs : 1, sizeof(*bufs));
	uint64_t stop_ns = 0;
	int err = 0;

	if (!w || !pfd || !bufs) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < jobs; i++)
		w[i].buf = &bufs[i];
	while (next < n || active) {
		while (next < n && active < jobs && !trimsim_stop && !err) {
			if (report_profile_realtime(report__cell_c(r, next)->profile) != realtime ||
			    (a->filled && a->filled(a->arg, next))) {
				next++;
				continue;
			}
			err = spawn(r, a, next, &w[active]);	/* keeps w[active].buf */
			if (!err) {
				next++;
				active++;
			}
		}
		if (!active)
			break;
		if (trimsim_stop)
			stop_workers(w, active, &stop_ns);
		for (size_t i = 0; i < active; i++)
			pfd[i] = (struct pollfd){ .fd = w[i].fd, .events = POLLIN };
		/* bounded: a signal that lands between the flag check and poll() is seen within POLL_MS */
		if (poll(pfd, active, POLL_MS) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		for (size_t i = 0; i < active;) {
			if (pfd[i].revents && drain(r, &w[i])) {
				struct report_cell *freed = w[i].buf;

				w[i] = w[active - 1];
				w[active - 1].buf = freed;
				pfd[i] = pfd[active - 1];	/* checked next, at index i */
				active--;
				continue;
			}
			i++;
		}
	}
	if (!err && trimsim_stop)
		err = -EINTR;
out:
	free(w);
	free(pfd);
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
