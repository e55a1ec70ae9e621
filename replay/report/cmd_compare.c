// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim compare: every trace x policy x profile, replayed in parallel by
 * --jobs forked workers, each running cell after cell (report/matrix.h).
 * Then the report: table, JSON, CSV, HTML.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/opts.h"
#include "traces/output.h"
#include "traces/trace.h"
#include "traces/util.h"
#include "replay/cli.h"
#include "replay/policies/policy.h"
#include "replay/report/matrix.h"
#include "replay/report/plan.h"
#include "replay/report/progress.h"
#include "replay/report/report.h"
#include "replay/report/runcell.h"

#define MAX_ITEMS 256
#define MAX_OUTS 8

struct cmp_args {
	char *traces[MAX_ITEMS], *policies[MAX_ITEMS], *profiles[MAX_ITEMS];
	size_t nt, np, nm;
	char *outs[MAX_OUTS];
	size_t nout;
	struct matrix_opts m;
	struct matrix_plan plan;	/* --plan DIR: write the cells out (plan.h) */
	const char *merge;		/* --merge DIR: the report from a plan's results */
	const struct report_format_ops *fmt, *out_fmt[MAX_OUTS];
	bool fmt_set, quiet, partial;
};

/* "  table     .txt        the terminal table ...": one line per row of the format table. */
static void formats_help(FILE *f)
{
	size_t n;
	const struct report_format_ops *t = report_formats(&n);

	for (size_t i = 0; i < n; i++) {
		char exts[32] = "";

		for (size_t j = 0, at = 0; j < REPORT_FORMAT_EXTS && t[i].exts[j]; j++)
			at += (size_t)snprintf(exts + at, at < sizeof(exts) ? sizeof(exts) - at : 0, "%s%s",
					       j ? " " : "", t[i].exts[j]);
		fprintf(f, "  %-9s %-12s %s\n", t[i].name, exts[0] ? exts : "(stdout)", t[i].help);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim compare TRACE... -p POLICY[,POLICY...] -M PROFILE[,PROFILE...]\n"
		"                       [--jobs N] [--runs N] [--format F] [--json] [-o OUT]... [--seed N]\n"
		"                       [--plan DIR [--slurm] [--per-task N]]\n"
		"       trimsim compare --merge DIR [--partial] [--format F] [-o OUT]...\n"
		"\n"
		"Replays every trace through every policy against every device profile (the full\n"
		"matrix, cells in parallel) and reports, per (trace, policy, profile): discard\n"
		"commands, bytes, unique bytes and redundancy, p50/p99/max discard latency, device\n"
		"time in discard, foreground stall and p99 write-latency inflation versus `none`,\n"
		"write amplification, peak discard rate, and the share of the workload's wall time\n"
		"that discard adds (the workload's own wait for synchronous discards or a full\n"
		"queue included, with or without foreground I/O in the trace); then verdict\n"
		"sentences, saying plainly when discard does not matter (less than 1%% of wall\n"
		"time) and when the trace cannot tell (no foreground I/O, discards from a\n"
		"background worker). Each TRACE is read once per cell: - (standard input) or a pipe\n"
		"is copied once first; --plan takes files only.\n"
		"\n"
		"  -p, --policies LIST  policies, comma-separated; commas inside parentheses belong to\n"
		"                       the policy: -p 'xfs,fstrim(interval=1w,minlen=64K),none'\n"
		"                       (--policy, as replay spells it, is the same option)\n"
		"  -M, --models LIST    device profiles (trimsim models), or target specs (file:PATH),\n"
		"                       each with its key=value options: -M 'sata-sf2281:trim_base=5ms,qd=1,nvme'\n"
		"                       (--model is the same option)\n"
		"  -j, --jobs N         cells replayed at once (default: online CPUs)\n"
		"  -r, --runs N         repeat each cell N times (1..%d); meaningful on real targets, where\n"
		"                       the report adds mean, stddev and a Student's t verdict at 95%%,\n"
		"                       and ranks each cell on its runs' means; model cells are\n"
		"                       deterministic and run once\n"
		"  -f, --format F       what goes to stdout (formats below)\n"
		"      --json           the same as --format json\n"
		"  -o, --output FILE    write the report to FILE (repeatable); the format follows the\n"
		"                       extension (below; any other is refused), --format when it has\n"
		"                       none (- is stdout); --format still goes to stdout unless -q\n"
		"  -s, --seed N         seed for the models (default 1); same inputs + seed = same JSON\n"
		"      --destructive    allow real block-device targets to write and discard (and --file\n"
		"                       targets that hold data)\n"
		"      --qd N           every target's queue depth (default: a model's profile qd, a real\n"
		"                       target's qd= or 32); compare warns when models and real targets differ\n"
		"  -q, --quiet          nothing on stdout when writing files, and no progress: stderr\n"
		"                       otherwise shows cells done/total, elapsed and ETA on a terminal\n"
		"\n"
		"Sweeps beyond one machine (README.md, Sweeps at scale):\n"
		"      --plan DIR       write the cells (DIR/cells.jsonl: id, trace, policy, profile, seed)\n"
		"                       and the inputs' digests (DIR/plan.json) and exit without replaying;\n"
		"                       trimsim cell DIR runs them (model profiles only)\n"
		"      --slurm          with --plan: also DIR/trimsim.sbatch, a job array over the tasks\n"
		"                       (at most %d at once, a log per task in DIR/logs): sbatch it as is\n"
		"      --per-task N     with --plan: cells per task (default: enough for at most %d tasks)\n"
		"      --merge DIR      the report from DIR's cell results, the same as this command run\n"
		"                       here would give; a missing, duplicate or damaged result is an error\n"
		"      --partial        with --merge: report on the cells that have results; the others are\n"
		"                       failed cells\n"
		"\n"
		"formats (--format F, -o FILE.EXT):\n", RUNS_MAX, PLAN_THROTTLE, PLAN_MAX_TASKS);
	formats_help(f);
	fprintf(f,
		"\n"
		"JSON schema: replay/report/REPORT-SCHEMA.md.\n"
		"\n"
		"example:\n"
		"  trimsim compare rm.tsim -p xfs,ext4,'fstrim(1w)',none -M sata-sf2281,nvme -o report.html\n"
		"  trimsim compare hosts/*.tsim -p xfs,ext4,none -M nvme --plan sweep --slurm\n"
		"  sbatch sweep/trimsim.sbatch\n"
		"  trimsim compare --merge sweep -o report.html\n");
}

/*
 * Splits a list on top-level commas: "xfs,fstrim(interval=1w,minlen=64K)" is
 * two items. Items are strdup'd into v. 0 or -EINVAL with a message naming the column.
 */
int cli_split_top(const char *opt, const char *list, char **v, size_t *n, size_t max, char *err, size_t errlen)
{
	int depth = 0;
	size_t start = 0, len = strlen(list), open = 0;

	for (size_t i = 0; i <= len; i++) {
		char ch = list[i];

		if (ch == '(') {
			open = depth++ ? open : i;
		} else if (ch == ')') {
			if (--depth < 0)
				return ts_errf(err, errlen, -EINVAL, "%s '%s': unbalanced ')' at column %zu", opt,
					       list, i + 1);
		} else if ((ch == ',' && depth == 0) || ch == 0) {
			size_t a = start, b = i;

			while (a < b && (list[a] == ' ' || list[a] == '\t'))
				a++;
			while (b > a && (list[b - 1] == ' ' || list[b - 1] == '\t'))
				b--;
			if (a == b)
				return ts_errf(err, errlen, -EINVAL, "%s '%s': empty item at column %zu", opt, list,
					       a + 1);
			if (*n >= max)
				return ts_errf(err, errlen, -E2BIG, "%s: more than %zu items", opt, max);
			if (!(v[*n] = strndup(list + a, b - a)))
				return -ENOMEM;
			(*n)++;
			start = i + 1;
		}
	}
	if (depth > 0)
		return ts_errf(err, errlen, -EINVAL, "%s '%s': the '(' at column %zu is not closed (missing ')')",
			       opt, list, open + 1);
	return 0;
}

/* "qd=1": an option of the item before it ("sata-sf2281:trim_base=5ms,qd=1"), not an item. */
static bool option_item(const char *s)
{
	size_t k = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");

	return k && s[k] == '=';
}

int cli_split_models(const char *list, char **v, size_t *n, size_t max, char *err, size_t errlen)
{
	size_t first = *n, i, out;
	char *joined;
	int rc = cli_split_top("--models", list, v, n, max, err, errlen);

	if (rc)
		return rc;
	for (i = out = first; i < *n; i++) {
		if (out > first && option_item(v[i]) && strchr(v[out - 1], ':')) {
			if (asprintf(&joined, "%s,%s", v[out - 1], v[i]) < 0) {
				while (i < *n)	/* the items not moved yet; v[first, out) stays the caller's */
					free(v[i++]);
				*n = out;
				return -ENOMEM;
			}
			free(v[out - 1]);
			free(v[i]);
			v[out - 1] = joined;
		} else {
			v[out++] = v[i];
		}
	}
	*n = out;
	return 0;
}

/* "table, json, csv, html or summary" or ".txt .json .csv .html .htm": from the format table. */
static const char *format_list(bool exts, char *buf, size_t len)
{
	size_t n, at = 0;
	const struct report_format_ops *f = report_formats(&n);

	buf[0] = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; exts ? j < REPORT_FORMAT_EXTS && f[i].exts[j] : !j; j++)
			at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s",
					       !at ? "" : exts ? " " : i + 1 < n ? ", " : " or ",
					       exts ? f[i].exts[j] : f[i].name);
	return buf;
}

/* -o PATH: the format its extension names, --format's when it has none; an unknown extension is an error. */
static int format_of(const char *path, const struct report_format_ops *def, const struct report_format_ops **fmt,
		     char *err, size_t errlen)
{
	const char *ext = output__ext(path);
	char known[128];

	*fmt = def;
	if (ext && !(*fmt = report_format_by_ext(ext)))
		return ts_errf(err, errlen, -EINVAL, "-o %s: unknown extension '%s' (known: %s; none: --format)",
			       path, ext, format_list(true, known, sizeof(known)));
	return 0;
}

/* compare's own options (report_matrix_args() applies the shared ones): 0, -errno, or 1 if not its own. */
static int own_option(int c, const char *arg, void *ctx, char *err, size_t errlen)
{
	struct cmp_args *a = ctx;
	char known[128];

	if (c == 'm' || c == 'R') {	/* --merge DIR [--partial] */
		a->merge = c == 'm' ? arg : a->merge;
		a->partial |= c == 'R';
		return 0;
	}
	switch (c) {
	case 'p':
		return cli_split_top("--policies", arg, a->policies, &a->np, MAX_ITEMS, err, errlen);
	case 'M':
		return cli_split_models(arg, a->profiles, &a->nm, MAX_ITEMS, err, errlen);
	case 'q':
		a->quiet = true;
		return 0;
	case 'f':
		if (!(a->fmt = report_format_by_name(arg)))
			return ts_errf(err, errlen, -EINVAL, "--format '%s': expected %s", arg,
				       format_list(false, known, sizeof(known)));
		a->fmt_set = true;
		return 0;
	case 'J':
		a->fmt_set = true;
		return (a->fmt = report_format_by_name("json")) ? 0 : -EINVAL;
	case 'o':
		if (a->nout == MAX_OUTS)
			return ts_errf(err, errlen, -E2BIG, "-o: at most %d outputs", MAX_OUTS);
		a->outs[a->nout++] = (char *)arg;
		return 0;
	default:
		return 1;
	}
}

/* --merge DIR: the plan names the traces, policies and profiles; the outputs are as usual. */
static int merge_args(struct cmp_args *a, char *err, size_t errlen)
{
	if (a->np || a->nm || a->plan.dir)
		return ts_errf(err, errlen, -EINVAL, "--merge %s: no %s (the plan names the cells)", a->merge,
			       a->plan.dir ? "--plan" : a->np ? "-p" : "-M");
	return 0;
}

static int parse_args(int argc, char **argv, struct cmp_args *a, char *err, size_t errlen)
{
	static const struct option lopts[] = {
		REPORT_MATRIX_LOPTS,
		{ "policies", required_argument, NULL, 'p' }, { "policy", required_argument, NULL, 'p' },
		{ "runs", required_argument, NULL, 'r' }, { "qd", required_argument, NULL, 'Q' },
		{ "destructive", no_argument, NULL, 'D' }, { "merge", required_argument, NULL, 'm' },
		{ "partial", no_argument, NULL, 'R' }, { 0 },
	};
	const struct matrix_cli cli = { .cmd = "compare", .shortopts = ":p:M:j:r:f:o:s:qh", .lopts = lopts,
					.usage = usage, .own = own_option, .ctx = a, .traces = a->traces, .nt = &a->nt,
					.max_traces = MAX_ITEMS, .merge = &a->merge, .plan = &a->plan };
	size_t nf;
	int e;

	a->fmt = report_formats(&nf);	/* the first is the default */
	if ((e = report_matrix_args(&cli, argc, argv, &a->m, err, errlen)))
		return e;
	if (a->merge) {
		if ((e = merge_args(a, err, errlen)))
			return e;
	} else if (a->partial) {
		return ts_errf(err, errlen, -EINVAL, "--partial without --merge DIR");
	} else if (!a->np) {
		return ts_errf(err, errlen, -EINVAL, "no policies given (-p xfs,ext4,none)");
	} else if (!a->nm) {
		return ts_errf(err, errlen, -EINVAL, "no device profiles given (-M sata-sf2281; see trimsim models)");
	}
	for (size_t i = 0; i < a->nout; i++)	/* after every --format: it is the default */
		if ((e = format_of(a->outs[i], a->fmt, &a->out_fmt[i], err, errlen)))
			return e;
	return 0;
}

static int no_sink(void *arg, const struct policy_event *ev)
{
	(void)arg;
	(void)ev;
	return 0;
}

/* The first line of a multi-line message (the policy parser adds a caret line). */
static void first_line(char *s)
{
	s[strcspn(s, "\n")] = '\0';
}

/*
 * Every policy parses and every model profile loads before any cell runs: a
 * typo fails at once with the parser's message, rather than after the sweep
 * as error cells. What can only fail at run time (a target that will not
 * open, a policy's device-dependent setup) still fails its cells alone.
 */
static int check_specs(const struct cmp_args *a, char *err, size_t errlen)
{
	struct policy_env env = { .seed = a->m.seed };
	char msg[400];

	for (size_t i = 0; i < a->np; i++) {
		struct policy *p = policy__new(a->policies[i], &env, no_sink, NULL, msg, sizeof(msg));

		if (!p) {
			int e = errno ? -errno : -EINVAL;

			first_line(msg);
			return ts_errf(err, errlen, e, "--policies '%s': %s", a->policies[i], msg);
		}
		policy__destroy(p);
	}
	for (size_t i = 0; i < a->nm; i++) {
		int e = report_check_profile(a->profiles[i], msg, sizeof(msg));

		if (e)
			return ts_errf(err, errlen, e, "--models '%s': %s", a->profiles[i], msg);
	}
	return 0;
}

/* One -o, opened before the sweep (a bad path fails at once); commits (or aborts) o. */
static int write_file(const struct report *r, struct output *o, const struct report_format_ops *fmt, char *err,
		      size_t errlen)
{
	FILE *f = output__file(o);
	int e = f ? report__write(r, fmt, f) : -ENOMEM;

	if (e && (!f || !output__error(o))) {	/* not a write error (commit names those): ENOMEM */
		ts_errf(err, errlen, e, "%s: %s", output__path(o), strerror(-e));
		output__abort(o);
		return e;
	}
	return output__commit(o, err, errlen);
}

static void free_args(struct cmp_args *a)
{
	for (size_t i = 0; i < a->np; i++)
		free(a->policies[i]);
	for (size_t i = 0; i < a->nm; i++)
		free(a->profiles[i]);
}

/* --plan DIR: the matrix's cells written out, in report order, and nothing replayed (plan.h). */
static int write_plan(const struct cmp_args *a, char *err, size_t errlen)
{
	struct plan *p = NULL;
	int e = -ENOMEM;

	for (size_t m = 0; m < a->nm; m++)
		if (report_profile_realtime(a->profiles[m]))
			return ts_errf(err, errlen, -EINVAL, "--plan: '%s' is a real target; a plan holds model "
				       "cells (a cell on a device runs on the host that has it: compare there)",
				       a->profiles[m]);
	if (!(p = plan__new("compare", &a->m)) || plan__set_axes(p, a->policies, a->np))
		goto out;
	for (size_t t = 0; t < a->nt; t++)
		for (size_t i = 0; i < a->np; i++)
			for (size_t m = 0; m < a->nm; m++)
				if ((e = plan__add(p, a->traces[t], a->policies[i], a->profiles[m], err, errlen)))
					goto out;
	if ((e = plan__write(p, a->plan.dir, a->plan.per_task, a->plan.slurm, err, errlen)))
		goto out;
	if (!a->quiet)
		printf("plan %s: %zu cells in %zu tasks; run them with trimsim cell %s --index I (I in 0..%zu)%s%s%s, "
		       "then: trimsim compare --merge %s\n", a->plan.dir, plan__ncells(p), plan__ntasks(p), a->plan.dir,
		       plan__ntasks(p) - 1, a->plan.slurm ? " or sbatch " : "", a->plan.slurm ? a->plan.dir : "",
		       a->plan.slurm ? "/trimsim.sbatch" : "", a->plan.dir);
out:
	if (e == -ENOMEM && !err[0])
		ts_errf(err, errlen, e, "out of memory");
	plan__destroy(p);
	return e;
}

/* --merge DIR: the report from a plan's results, as the sweep here would have made it. */
static struct report *merged(const struct cmp_args *a, char *err, size_t errlen)
{
	struct plan *p = plan__load(a->merge, err, errlen);
	struct report *r = p ? plan__merge(p, a->partial, stderr, err, errlen) : NULL;

	plan__destroy(p);
	return r;
}

/* The checks before any cell runs, then --plan (written here): 0, or the exit code, the message printed. */
static int prepare(struct cmp_args *a, char *err, size_t errlen)
{
	int e;

	if ((e = check_specs(a, err, errlen))) {
		fprintf(stderr, "trimsim compare: %s\n", err);
		return 2;
	}
	if ((e = report_open_traces(a->traces, a->nt, err, errlen)) ||
	    (a->plan.dir && (e = write_plan(a, err, errlen))) ||
	    /* the refusals every real target's open() would make, before any cell runs */
	    (!a->plan.dir && (e = report_check_targets((const char *const *)a->profiles, a->nm,
						       (const char *const *)a->traces, a->nt, a->m.destructive,
						       err, errlen)))) {
		fprintf(stderr, "trimsim compare: %s\n", err);
		return 1;
	}
	if (!a->plan.dir)
		report_warn_qd((const char *const *)a->profiles, a->nm, a->m.qd, stderr);
	return 0;
}

/* The sweep here: every cell replayed. NULL + errno, err set. */
static struct report *swept(const struct cmp_args *a, char *err, size_t errlen)
{
	struct report *r = report__new(a->traces, a->nt, a->policies, a->np, a->profiles, a->nm, a->m.runs,
				       a->m.seed);
	/* on a terminal: what runs, at once, then cells done, elapsed, ETA (progress.h) */
	struct progress *prog = r ? progress__new(stderr, "compare", a->quiet) : NULL;
	struct matrix_opts mo = a->m;
	int e;

	if (r) {
		progress__header(prog, "%zu cells (%zu traces x %zu policies x %zu profiles), %u jobs",
				 report__ncells(r), a->nt, a->np, a->nm, a->m.jobs);
		progress__cells_total(prog, report__ncells(r));
		mo.progress = prog;
	}
	e = r ? report_run_matrix(r, &mo) : -errno;
	progress__destroy(prog);

	if (e) {
		ts_errf(err, errlen, e, "%s", e == -EINTR ? "interrupted" : strerror(-e));
		report__destroy(r);
		errno = -e;
		return NULL;
	}
	return r;
}

int cmd_compare(int argc, char **argv)
{
	char err[1024] = "";
	int rc = 1, e;
	struct cmp_args a = { 0 };
	struct output *outs[MAX_OUTS] = { NULL };
	struct report *r = NULL;

	if (cli_wants_help(argc, argv)) {
		usage(stdout);
		return 0;
	}
	if ((e = parse_args(argc, argv, &a, err, sizeof(err)))) {
		if (err[0] || e != -EINVAL)
			cli_usage_error("compare", "%s", err[0] ? err : strerror(-e));
		rc = 2;
		goto out;
	}
	if (!a.merge && ((rc = prepare(&a, err, sizeof(err))) || a.plan.dir))
		goto out;	/* a bad input, or the plan written */
	rc = 1;
	for (size_t i = 0; i < a.nout; i++)	/* before the sweep: a bad path fails at once */
		if (!(outs[i] = output__open(a.outs[i], OUTPUT_ATOMIC, err, sizeof(err)))) {
			fprintf(stderr, "trimsim compare: %s\n", err);
			goto out;
		}
	if (!(r = a.merge ? merged(&a, err, sizeof(err)) : swept(&a, err, sizeof(err)))) {
		fprintf(stderr, "trimsim compare: %s\n", err);
		goto out;
	}
	for (size_t t = 0; t < report__ntraces(r); t++)	/* the reader's message names the file and where it was cut */
		if (report__trace_cut(r, t))
			fprintf(stderr, "trimsim compare: warning: %s; its cells cover only those\n",
				report__trace_cut(r, t));
	if ((e = report__finish(r))) {
		fprintf(stderr, "trimsim compare: %s\n", strerror(-e));
		goto out;
	}
	for (size_t i = 0; i < a.nout; i++) {
		e = write_file(r, outs[i], a.out_fmt[i], err, sizeof(err));
		outs[i] = NULL;
		if (e) {
			fprintf(stderr, "trimsim compare: %s\n", err);
			goto out;
		}
	}
	if (!a.nout || !a.quiet)	/* -q quiets stdout when files hold the report; a write error on
					   stdout is main's to report, with its errno */
		report__write(r, a.fmt, stdout);
	rc = report_failures(r, stderr) ? 1 : 0;
out:
	for (size_t i = 0; i < a.nout; i++)
		output__abort(outs[i]);
	if (r)
		report__destroy(r);
	free_args(&a);
	return rc;
}
