// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim recommend: the discard settings to use, per trace x device profile
 * (report/recommend.h; the search, the rule and the JSON: report/RECOMMEND.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traces/opts.h"
#include "traces/output.h"
#include "traces/trace.h"
#include "traces/util.h"
#include "replay/cli.h"
#include "replay/report/plan.h"
#include "replay/report/progress.h"
#include "replay/report/recommend.h"
#include "replay/report/runcell.h"

#define MAX_PROFILES 64
#define MAX_TRACES 256
#define BUDGET_DEFAULT 64

enum rec_format { RF_TEXT, RF_JSONF, RF_HTMLF };

struct rec_args {
	char *traces[MAX_TRACES], *profiles[MAX_PROFILES];
	size_t nt, nm;
	const char *out, *fs, *cache;
	struct rec_opts o;
	struct matrix_plan plan;	/* --plan DIR: the first rounds' cells written out (plan.h) */
	enum rec_format fmt, out_fmt;
	bool fmt_set, quiet;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim recommend TRACE... -M PROFILE[,PROFILE...] [--fs xfs|ext4|btrfs|f2fs|ufs|any]\n"
		"                         [--budget N] [--format text|json|html] [--json] [-o OUT] [--cache DIR]\n"
		"                         [--grid] [--jobs N] [--seed N] [--plan DIR [--slurm] [--per-task N]]\n"
		"\n"
		"Searches the discard settings an administrator can set for each trace's filesystem\n"
		"(its header; --fs to choose, any to compare filesystems), replays each on each device\n"
		"profile, and prints the Pareto front and one recommendation per trace and device with\n"
		"the exact settings to apply (mount options, sysctl, /sys/block/DEV/queue/\n"
		"discard_max_bytes, /sys/fs/btrfs/UUID/discard/*, fstrim.timer) and why. Settings:\n"
		"online discard on or off, each preset's tunables (xfs: CIL checkpoint pacing; ext4:\n"
		"commit=; btrfs discard=async: iops_limit, kbps_limit, max_discard_size; f2fs:\n"
		"discard_granularity, min_discard_issue_time; ufs: TRIM consolidation), the block\n"
		"layer's discard_max_bytes, and fstrim schedules (hourly, daily, weekly; --minimum\n"
		"4K..1M). Objectives: device time in TRIM, time discard adds to the workload, reclaim\n"
		"delay (byte-seconds of freed space not yet trimmed), p99 write and read latency\n"
		"versus `none`, write amplification on FTL profiles. The verdict (does discard matter on this\n"
		"device?) decides which objective leads; a device that rejects discard is said so.\n"
		"\n"
		"  -M, --models LIST  device profiles (trimsim models), each with its key=value overrides:\n"
		"                     -M 'sata-sf2281:trim_base=5ms,qd=1,nvme'\n"
		"      --fs FS        the settings of this filesystem (default: the trace header's; an\n"
		"                     unknown filesystem tries every family)\n"
		"      --budget N     settings replayed per trace and profile, at most (default %d; the\n"
		"                     coarse grid always runs whole)\n"
		"      --grid         replay every combination of every knob instead of searching\n"
		"      --cache DIR    keep replayed cells in DIR, an existing directory (by a hash of the\n"
		"                     trace bytes, policy, profile and seed), and reuse them\n"
		"  -f, --format F     text (default), json or html; --json is --format json\n"
		"  -o, --output FILE  write there (.json: JSON, .txt: text, .html: HTML, else --format)\n"
		"  -j, --jobs N       cells replayed at once (default: online CPUs)\n"
		"  -s, --seed N       seed for the models (default 1)\n"
		"  -q, --quiet        nothing on stdout when writing a file, and no progress: stderr\n"
		"                     otherwise shows the search, cells, elapsed and ETA on a terminal\n"
		"      --plan DIR     write the cells of each search's first two rounds (every family of the\n"
		"                     filesystem at its defaults and on its coarse grid) as a plan for\n"
		"                     trimsim cell, and exit; then recommend with --cache DIR/cells replays\n"
		"                     only what the search adds (the rounds after depend on these results)\n"
		"      --slurm        with --plan: DIR/trimsim.sbatch, a job array to sbatch as is\n"
		"      --per-task N   with --plan: cells per task\n"
		"\n"
		"JSON schema and the rule: replay/report/RECOMMEND.md.\n"
		"\n"
		"example:\n"
		"  trimsim recommend rm.tsim -M sata-sf2281,nvme -o rec.json\n",
		BUDGET_DEFAULT);
}

static int format_by_name(const char *opt, const char *s, enum rec_format *f, char *err, size_t errlen)
{
	if (!strcmp(s, "text"))
		*f = RF_TEXT;
	else if (!strcmp(s, "json"))
		*f = RF_JSONF;
	else if (!strcmp(s, "html"))
		*f = RF_HTMLF;
	else
		return ts_errf(err, errlen, -EINVAL, "%s '%s': expected text, json or html", opt, s);
	return 0;
}

static int check_fs(const char *fs, char *err, size_t errlen)
{
	static const char *const known[] = { "xfs", "ext4", "btrfs", "f2fs", "ufs", "any" };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(fs, known[i]))
			return 0;
	return ts_errf(err, errlen, -EINVAL, "--fs '%s': expected xfs, ext4, btrfs, f2fs, ufs or any", fs);
}

static const struct option rec_lopts[] = {
	REPORT_MATRIX_LOPTS,
	{ "fs", required_argument, NULL, 'F' }, { "budget", required_argument, NULL, 'B' },
	{ "grid", no_argument, NULL, 'G' }, { "cache", required_argument, NULL, 'C' }, { 0 },
};

/* recommend's own options (report_matrix_args() applies the shared ones): 0, -errno, or 1 if not its own. */
static int own_option(int c, const char *arg, void *ctx, char *err, size_t errlen)
{
	struct rec_args *a = ctx;
	uint64_t v;
	int e;

	switch (c) {
	case 'F':
		a->fs = arg;
		return check_fs(arg, err, errlen);
	case 'B':
		if ((e = report_parse_uint("--budget", arg, 1, 100000, &v, err, errlen)))
			return e;
		a->o.budget = (unsigned)v;
		return 0;
	case 'G':
		a->o.grid = true;
		return 0;
	case 'f':
		a->fmt_set = true;
		return format_by_name("--format", arg, &a->fmt, err, errlen);
	case 'C':
		a->cache = arg;
		return 0;
	case 'J':
		a->fmt = RF_JSONF;
		a->fmt_set = true;
		return 0;
	case 'q':
		a->quiet = true;
		return 0;
	case 'M':
		return cli_split_models(arg, a->profiles, &a->nm, MAX_PROFILES, err, errlen);
	case 'o':
		a->out = arg;
		return 0;
	default:
		return 1;
	}
}

static int parse_args(int argc, char **argv, struct rec_args *a, char *err, size_t errlen)
{
	const struct matrix_cli cli = { .cmd = "recommend", .shortopts = ":M:f:o:j:s:qh", .lopts = rec_lopts,
					.usage = usage, .own = own_option, .ctx = a, .traces = a->traces, .nt = &a->nt,
					.max_traces = MAX_TRACES, .plan = &a->plan };
	int e;

	a->o.budget = BUDGET_DEFAULT;
	if ((e = report_matrix_args(&cli, argc, argv, &a->o.m, err, errlen)))
		return e;
	if (!a->nm)
		return ts_errf(err, errlen, -EINVAL, "no device profiles given (-M sata-sf2281; see trimsim models)");
	a->out_fmt = a->fmt;
	if (a->out) {
		const char *ext = output__ext(a->out);

		if (ext && !strcasecmp(ext, ".json"))
			a->out_fmt = RF_JSONF;
		else if (ext && !strcasecmp(ext, ".txt"))
			a->out_fmt = RF_TEXT;
		else if (ext && (!strcasecmp(ext, ".html") || !strcasecmp(ext, ".htm")))
			a->out_fmt = RF_HTMLF;
		else if (ext)
			return ts_errf(err, errlen, -EINVAL, "-o %s: unknown extension '%s' (known: .json .txt .html; none: "
				       "--format)", a->out, ext);
	}
	return 0;
}

/*
 * Model profiles only: a recommendation replays dozens of settings, which a real
 * device would have to take one at a time, destructively. Every profile loads
 * before any cell runs.
 */
static int check_profiles(struct rec_args *a, bool *hint, char *err, size_t errlen)
{
	char msg[400];
	int e;

	for (size_t i = 0; i < a->nm; i++) {
		if ((*hint = report_profile_realtime(a->profiles[i])))
			return ts_errf(err, errlen, -EINVAL, "--models '%s': recommend replays model profiles only "
				       "(measure a device with trimsim calibrate, then recommend on its profile)",
				       a->profiles[i]);
		if ((e = report_check_profile(a->profiles[i], msg, sizeof(msg))))
			return ts_errf(err, errlen, e, "--models '%s': %s", a->profiles[i], msg);
	}
	return 0;
}

/* Every trace opens (report_open_traces()); the cache directory exists. */
static int check_inputs(struct rec_args *a, char *err, size_t errlen)
{
	struct stat st;
	int e;

	if ((e = report_open_traces(a->traces, a->nt, err, errlen)))
		return e;
	if (a->cache && stat(a->cache, &st))
		return ts_errf(err, errlen, -errno, "--cache %s: %s (make the directory first)", a->cache, strerror(errno));
	if (a->cache && !S_ISDIR(st.st_mode))
		return ts_errf(err, errlen, -ENOTDIR, "--cache %s: not a directory", a->cache);
	return 0;
}

static int write_out(const struct rec_run *rr, enum rec_format fmt, FILE *f)
{
	return fmt == RF_JSONF ? rec_run__write_json(rr, f) : fmt == RF_HTMLF ? rec_run__write_html(rr, f) :
	       rec_run__write_text(rr, f);
}

/* --plan DIR: every trace x profile's first two rounds (rec_plan()), nothing replayed. */
static int write_plan(struct rec_args *a, char *err, size_t errlen)
{
	struct plan *p = plan__new("recommend", &a->o.m);
	int e = p ? 0 : ts_errf(err, errlen, -ENOMEM, "out of memory");

	for (size_t t = 0; !e && t < a->nt; t++)
		for (size_t m = 0; !e && m < a->nm; m++)
			e = rec_plan(&a->o, a->traces[t], a->profiles[m], p, err, errlen);
	if (!e)
		e = plan__write(p, a->plan.dir, a->plan.per_task, a->plan.slurm, err, errlen);
	if (!e && !a->quiet)
		printf("plan %s: %zu cells (the searches' first two rounds) in %zu tasks; run them with trimsim "
		       "cell %s --index I (I in 0..%zu)%s%s%s, then: trimsim recommend ... --cache %s/cells\n", a->plan.dir,
		       plan__ncells(p), plan__ntasks(p), a->plan.dir, plan__ntasks(p) - 1,
		       a->plan.slurm ? " or sbatch " : "", a->plan.slurm ? a->plan.dir : "",
		       a->plan.slurm ? "/trimsim.sbatch" : "", a->plan.dir);
	plan__destroy(p);
	return e;
}

int cmd_recommend(int argc, char **argv)
{
	struct rec_args a = { 0 };
	struct rec_run *rr = NULL;
	struct output *out = NULL;
	struct progress *prog = NULL;
	char err[512] = "";
	int rc = 1, e;
	bool hint = false;

	if (cli_wants_help(argc, argv)) {
		usage(stdout);
		return 0;
	}
	if ((e = parse_args(argc, argv, &a, err, sizeof(err)))) {
		if (err[0])
			cli_usage_error("recommend", "%s", err);
		rc = 2;
		goto out;
	}
	if ((e = check_profiles(&a, &hint, err, sizeof(err)))) {
		if (hint)
			cli_usage_error("recommend", "%s", err);
		else	/* a profile that does not load: one line, as replay and compare say it (README) */
			fprintf(stderr, "trimsim recommend: %s\n", err);
		rc = 2;
		goto out;
	}
	if ((e = check_inputs(&a, err, sizeof(err)))) {
		fprintf(stderr, "trimsim recommend: %s\n", err);
		goto out;
	}
	a.o.fs = a.fs;
	if (a.plan.dir) {
		if ((e = write_plan(&a, err, sizeof(err))))
			fprintf(stderr, "trimsim recommend: %s\n", err);
		rc = e ? 1 : 0;
		goto out;
	}
	if (a.out && !(out = output__open(a.out, OUTPUT_ATOMIC, err, sizeof(err)))) {
		fprintf(stderr, "trimsim recommend: %s\n", err);
		goto out;
	}
	a.o.cache_dir = a.cache;
	/* on a terminal: what runs, at once, then the search under way, cells, elapsed, ETA (progress.h) */
	prog = progress__new(stderr, "recommend", a.quiet);
	progress__header(prog, "%zu traces x %zu profiles, a search each (at most %u settings), %u jobs", a.nt, a.nm,
			 a.o.budget, a.o.m.jobs);
	a.o.m.progress = prog;
	if (!(rr = rec_run__new(&a.o))) {
		fprintf(stderr, "trimsim recommend: %s\n", strerror(errno));
		goto out;
	}
	for (size_t t = 0; t < a.nt; t++)
		for (size_t m = 0; m < a.nm; m++) {
			char what[400];

			snprintf(what, sizeof(what), "%s on %s", a.traces[t], a.profiles[m]);
			progress__part(prog, t * a.nm + m, a.nt * a.nm, what);
			if ((e = rec_run__search(rr, a.traces[t], a.profiles[m], err, sizeof(err)))) {
				progress__destroy(prog);
				prog = NULL;
				fprintf(stderr, "trimsim recommend: %s on %s: %s\n", a.traces[t], a.profiles[m], err);
				goto out;
			} else if (!m && rec_run__last_cut(rr)) {	/* the reader's message: file, byte, records */
				progress__clear(prog);
				fprintf(stderr, "trimsim recommend: warning: %s; its figures cover only those\n",
					rec_run__last_cut(rr));
			}
		}
	progress__destroy(prog);
	prog = NULL;
	if (out) {
		FILE *f = output__file(out);

		e = f ? write_out(rr, a.out_fmt, f) : -ENOMEM;
		if (e && (!f || !output__error(out))) {
			fprintf(stderr, "trimsim recommend: %s: %s\n", output__path(out), strerror(-e));
			goto out;
		}
		e = output__commit(out, err, sizeof(err));
		out = NULL;
		if (e) {
			fprintf(stderr, "trimsim recommend: %s\n", err);
			goto out;
		}
	}
	if (!a.out || !a.quiet)
		write_out(rr, a.fmt, stdout);
	rc = 0;
out:
	progress__destroy(prog);
	output__abort(out);
	rec_run__destroy(rr);
	for (size_t i = 0; i < a.nm; i++)
		free(a.profiles[i]);
	return rc;
}
