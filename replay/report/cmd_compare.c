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
	unsigned jobs, runs, qd;
	uint64_t seed;
	enum report_format fmt, out_fmt[MAX_OUTS];
	bool fmt_set, quiet, destructive;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim compare TRACE... -p POLICY[,POLICY...] -M PROFILE[,PROFILE...]\n"
		"                       [--jobs N] [--runs N] [--format table|json|csv|html] [--json] [-o OUT]... [--seed N]\n"
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
		"background worker). Each TRACE is read once per cell: files, not - or a pipe.\n"
		"\n"
		"  -p, --policies LIST  policies, comma-separated; commas inside parentheses belong to\n"
		"                       the policy: -p 'xfs,fstrim(interval=1w,minlen=64K),none'\n"
		"                       (--policy, as replay spells it, is the same option)\n"
		"  -M, --models LIST    device profiles (trimsim models), or target specs (file:PATH)\n"
		"                       (--model is the same option)\n"
		"  -j, --jobs N         cells replayed at once (default: online CPUs)\n"
		"  -r, --runs N         repeat each cell N times (1..%d); meaningful on real targets, where\n"
		"                       the report adds mean, stddev and a Student's t verdict at 95%%;\n"
		"                       model cells are deterministic and run once\n"
		"  -f, --format F       what goes to stdout: table (default), json, csv, html, or\n"
		"                       summary (one line per trace and profile: cheapest and costliest\n"
		"                       policy, whether discard matters)\n"
		"      --json           the same as --format json\n"
		"  -o, --output FILE    write the report to FILE (repeatable); the format follows the\n"
		"                       extension (.json .csv .html .htm .txt; any other is refused),\n"
		"                       --format when it has none (- is stdout); --format still goes to\n"
		"                       stdout unless -q\n"
		"  -s, --seed N         seed for the models (default 1); same inputs + seed = same JSON\n"
		"      --destructive    allow real block-device targets to write and discard (and --file\n"
		"                       targets that hold data)\n"
		"      --qd N           every target's queue depth (default: a model's profile qd, a real\n"
		"                       target's qd= or 32); compare warns when models and real targets differ\n"
		"  -q, --quiet          nothing on stdout when writing files, and no progress: stderr\n"
		"                       otherwise shows cells done/total, elapsed and ETA on a terminal\n"
		"\n"
		"JSON schema: replay/report/REPORT-SCHEMA.md.\n"
		"\n"
		"example:\n"
		"  trimsim compare rm.tsim -p xfs,ext4,'fstrim(1w)',none -M sata-sf2281,nvme -o report.html\n",
		RUNS_MAX);
}

/*
 * Splits a list on top-level commas: "xfs,fstrim(interval=1w,minlen=64K)" is
 * two items. Items are strdup'd into v. 0 or -EINVAL with a message naming the column.
 */
int cli_split_top(const char *opt, const char *list, char **v, size_t *n, size_t max, char *err, size_t errlen)
{
	int depth = 0;
	size_t start = 0, len = strlen(list);

	for (size_t i = 0; i <= len; i++) {
		char ch = list[i];

		if (ch == '(') {
			depth++;
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
		return ts_errf(err, errlen, -EINVAL, "%s '%s': unclosed '(' (missing ')')", opt, list);
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
static int format_of(const char *path, enum report_format def, enum report_format *fmt, char *err, size_t errlen)
{
	const char *ext = output__ext(path);
	char known[128];

	*fmt = def;
	if (ext && report_format_by_ext(ext, fmt))
		return ts_errf(err, errlen, -EINVAL, "-o %s: unknown extension '%s' (known: %s; none: --format)",
			       path, ext, format_list(true, known, sizeof(known)));
	return 0;
}

static int parse_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *err,
		      size_t errlen)
{
	if (parse_u64(s, out) || *out < lo || *out > hi)
		return ts_errf(err, errlen, -EINVAL, "%s '%s': expected an integer in %llu..%llu", opt, s,
			       (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

static int parse_args(int argc, char **argv, struct cmp_args *a, char *err, size_t errlen)
{
	static const struct option lopts[] = {
		{ "policies", required_argument, NULL, 'p' }, { "models", required_argument, NULL, 'M' },
		{ "jobs", required_argument, NULL, 'j' }, { "runs", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' }, { "quiet", no_argument, NULL, 'q' },
		{ "destructive", no_argument, NULL, 'D' }, { "help", no_argument, NULL, 'h' },
		{ "qd", required_argument, NULL, 'Q' },
		{ "policy", required_argument, NULL, 'p' }, { "model", required_argument, NULL, 'M' },
		{ "json", no_argument, NULL, 'J' },
		{ 0 },
	};
	uint64_t v;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char known[128];
	int c, e;

	a->jobs = ncpu > 0 ? (unsigned)ncpu : 1;
	a->runs = 1;
	a->seed = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:M:j:r:f:o:s:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if ((e = cli_split_top("--policies", optarg, a->policies, &a->np, MAX_ITEMS, err, errlen)))
				return e;
			break;
		case 'M':
			if ((e = cli_split_top("--models", optarg, a->profiles, &a->nm, MAX_ITEMS, err, errlen)))
				return e;
			break;
		case 'j':
			if ((e = parse_uint("--jobs", optarg, 1, 1024, &v, err, errlen)))
				return e;
			a->jobs = (unsigned)v;
			break;
		case 'r':
			if ((e = parse_uint("--runs", optarg, 1, RUNS_MAX, &v, err, errlen)))
				return e;
			a->runs = (unsigned)v;
			break;
		case 's':
			if ((e = parse_uint("--seed", optarg, 0, UINT64_MAX, &a->seed, err, errlen)))
				return e;
			break;
		case 'f':
			if (report_format_by_name(optarg, &a->fmt))
				return ts_errf(err, errlen, -EINVAL, "--format '%s': expected %s", optarg,
					       format_list(false, known, sizeof(known)));
			a->fmt_set = true;
			break;
		case 'J':
			if (report_format_by_name("json", &a->fmt))
				return -EINVAL;
			a->fmt_set = true;
			break;
		case 'o':
			if (a->nout == MAX_OUTS)
				return ts_errf(err, errlen, -E2BIG, "-o: at most %d outputs", MAX_OUTS);
			a->outs[a->nout++] = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'D':
			a->destructive = true;
			break;
		case 'Q':
			if ((e = parse_uint("--qd", optarg, 1, 65536, &v, err, errlen)))
				return e;
			a->qd = (unsigned)v;
			break;
		default:	/* printed: the caller prints nothing more */
			err[0] = 0;
			cli_getopt_error("compare", c, argv, usage);
			return -EINVAL;
		}
	}
	if ((e = report_take_traces(argc, argv, optind, a->traces, &a->nt, MAX_ITEMS, err, errlen)))
		return e;
	if (!a->np)
		return ts_errf(err, errlen, -EINVAL, "no policies given (-p xfs,ext4,none)");
	if (!a->nm)
		return ts_errf(err, errlen, -EINVAL, "no device profiles given (-M sata-sf2281; see trimsim models)");
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
	struct policy_env env = { .seed = a->seed };
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
static int write_file(const struct report *r, struct output *o, enum report_format fmt, char *err,
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

int cmd_compare(int argc, char **argv)
{
	struct cmp_args a = { 0 };
	struct output *outs[MAX_OUTS] = { NULL };
	struct report *r = NULL;
	struct progress *prog = NULL;
	char err[512] = "";
	int rc = 1, e;

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
	if ((e = check_specs(&a, err, sizeof(err)))) {
		fprintf(stderr, "trimsim compare: %s\n", err);
		rc = 2;
		goto out;
	}
	if ((e = report_open_traces(a.traces, a.nt, err, sizeof(err)))) {
		fprintf(stderr, "trimsim compare: %s\n", err);
		goto out;
	}
	/* the refusals every real target's open() would make, before any cell runs */
	if ((e = report_check_targets((const char *const *)a.profiles, a.nm, (const char *const *)a.traces, a.nt,
				      a.destructive, err, sizeof(err)))) {
		fprintf(stderr, "trimsim compare: %s\n", err);
		goto out;
	}
	report_warn_qd((const char *const *)a.profiles, a.nm, a.qd, stderr);
	for (size_t i = 0; i < a.nout; i++)
		if (!(outs[i] = output__open(a.outs[i], OUTPUT_ATOMIC, err, sizeof(err)))) {
			fprintf(stderr, "trimsim compare: %s\n", err);
			goto out;
		}
	r = report__new(a.traces, a.nt, a.policies, a.np, a.profiles, a.nm, a.runs, a.seed);
	if (!r) {
		fprintf(stderr, "trimsim compare: %s\n", strerror(errno));
		goto out;
	}
	/* on a terminal: what runs, at once, then cells done, elapsed, ETA (progress.h) */
	prog = progress__new(stderr, "compare", a.quiet);
	progress__header(prog, "%zu cells (%zu traces x %zu policies x %zu profiles), %u jobs",
			 report__ncells(r), a.nt, a.np, a.nm, a.jobs);
	progress__cells_total(prog, report__ncells(r));
	struct matrix_opts mo = { .jobs = a.jobs, .runs = a.runs, .qd = a.qd, .seed = a.seed,
				  .destructive = a.destructive, .progress = prog };

	e = report_run_matrix(r, &mo);
	progress__destroy(prog);
	if (e) {
		fprintf(stderr, "trimsim compare: %s\n", e == -EINTR ? "interrupted" : strerror(-e));
		goto out;
	}
	for (size_t t = 0; t < a.nt; t++)	/* the reader's message names the file and where it was cut */
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
	if (!a.quiet)	/* a write error on stdout is main's to report, with its errno */
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
