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
#include "replay/report/progress.h"
#include "replay/report/recommend.h"
#include "replay/report/runcell.h"

#define MAX_PROFILES 64
#define MAX_TRACES 256
#define BUDGET_DEFAULT 64

enum rec_format { RF_TEXT, RF_JSONF };

struct rec_args {
	char *traces[MAX_TRACES], *profiles[MAX_PROFILES];
	size_t nt, nm;
	const char *out, *fs, *cache;
	struct rec_opts o;
	enum rec_format fmt, out_fmt;
	bool fmt_set, quiet;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim recommend TRACE... -M PROFILE[,PROFILE...] [--fs xfs|ext4|btrfs|f2fs|ufs|any]\n"
		"                         [--budget N] [--format text|json] [--json] [-o OUT] [--cache DIR]\n"
		"                         [--grid] [--jobs N] [--seed N]\n"
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
		"  -M, --models LIST  device profiles (trimsim models)\n"
		"      --fs FS        the settings of this filesystem (default: the trace header's; an\n"
		"                     unknown filesystem tries every family)\n"
		"      --budget N     settings replayed per trace and profile, at most (default %d; the\n"
		"                     coarse grid always runs whole)\n"
		"      --grid         replay every combination of every knob instead of searching\n"
		"      --cache DIR    keep replayed cells in DIR (by a hash of the trace bytes, policy,\n"
		"                     profile and seed) and reuse them\n"
		"  -f, --format F     text (default) or json; --json is --format json\n"
		"  -o, --output FILE  write there (.json: JSON, .txt: text, else --format)\n"
		"  -j, --jobs N       cells replayed at once (default: online CPUs)\n"
		"  -s, --seed N       seed for the models (default 1)\n"
		"  -q, --quiet        nothing on stdout when writing a file, and no progress: stderr\n"
		"                     otherwise shows the search, cells, elapsed and ETA on a terminal\n"
		"\n"
		"JSON schema and the rule: replay/report/RECOMMEND.md.\n"
		"\n"
		"example:\n"
		"  trimsim recommend rm.tsim -M sata-sf2281,nvme -o rec.json\n",
		BUDGET_DEFAULT);
}

static int parse_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *err,
		      size_t errlen)
{
	if (parse_u64(s, out) || *out < lo || *out > hi)
		return ts_errf(err, errlen, -EINVAL, "%s '%s': expected an integer in %llu..%llu", opt, s,
			       (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

static int format_by_name(const char *opt, const char *s, enum rec_format *f, char *err, size_t errlen)
{
	if (!strcmp(s, "text"))
		*f = RF_TEXT;
	else if (!strcmp(s, "json"))
		*f = RF_JSONF;
	else
		return ts_errf(err, errlen, -EINVAL, "%s '%s': expected text or json", opt, s);
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

static int parse_args(int argc, char **argv, struct rec_args *a, char *err, size_t errlen)
{
	static const struct option lopts[] = {
		{ "models", required_argument, NULL, 'M' }, { "model", required_argument, NULL, 'M' },
		{ "fs", required_argument, NULL, 'F' }, { "budget", required_argument, NULL, 'B' },
		{ "grid", no_argument, NULL, 'G' }, { "cache", required_argument, NULL, 'C' },
		{ "format", required_argument, NULL, 'f' }, { "json", no_argument, NULL, 'J' },
		{ "output", required_argument, NULL, 'o' }, { "jobs", required_argument, NULL, 'j' },
		{ "seed", required_argument, NULL, 's' }, { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' }, { 0 },
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t v;
	int c, e;

	a->o.m.jobs = ncpu > 0 ? (unsigned)ncpu : 1;
	a->o.m.runs = 1;
	a->o.m.seed = 1;
	a->o.budget = BUDGET_DEFAULT;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":M:f:o:j:s:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'M':
			if ((e = cli_split_top("--models", optarg, a->profiles, &a->nm, MAX_PROFILES, err, errlen)))
				return e;
			break;
		case 'F':
			if ((e = check_fs(optarg, err, errlen)))
				return e;
			a->fs = optarg;
			break;
		case 'B':
			if ((e = parse_uint("--budget", optarg, 1, 100000, &v, err, errlen)))
				return e;
			a->o.budget = (unsigned)v;
			break;
		case 'G':
			a->o.grid = true;
			break;
		case 'C':
			a->cache = optarg;
			break;
		case 'f':
			if ((e = format_by_name("--format", optarg, &a->fmt, err, errlen)))
				return e;
			a->fmt_set = true;
			break;
		case 'J':
			a->fmt = RF_JSONF;
			a->fmt_set = true;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'j':
			if ((e = parse_uint("--jobs", optarg, 1, 1024, &v, err, errlen)))
				return e;
			a->o.m.jobs = (unsigned)v;
			break;
		case 's':
			if ((e = parse_uint("--seed", optarg, 0, UINT64_MAX, &a->o.m.seed, err, errlen)))
				return e;
			break;
		case 'q':
			a->quiet = true;
			break;
		default:	/* said in one line, with a did-you-mean (the grammar of every command) */
			err[0] = 0;
			cli_getopt_error("recommend", c, argv, usage);
			return -EINVAL;
		}
	}
	if ((e = report_take_traces(argc, argv, optind, a->traces, &a->nt, MAX_TRACES, err, errlen)))
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
		else if (ext)
			return ts_errf(err, errlen, -EINVAL, "-o %s: unknown extension '%s' (known: .json .txt; none: "
				       "--format)", a->out, ext);
	}
	return 0;
}

/*
 * Model profiles only: a recommendation replays dozens of settings, which a real
 * device would have to take one at a time, destructively. Every profile loads
 * before any cell runs.
 */
static int check_profiles(struct rec_args *a, char *err, size_t errlen)
{
	char msg[400];
	int e;

	for (size_t i = 0; i < a->nm; i++) {
		if (report_profile_realtime(a->profiles[i]))
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
	if (a->cache && (stat(a->cache, &st) || !S_ISDIR(st.st_mode)))
		return ts_errf(err, errlen, -ENOTDIR, "--cache %s: not a directory", a->cache);
	return 0;
}

static int write_out(const struct rec_run *rr, enum rec_format fmt, FILE *f)
{
	return fmt == RF_JSONF ? rec_run__write_json(rr, f) : rec_run__write_text(rr, f);
}

int cmd_recommend(int argc, char **argv)
{
	struct rec_args a = { 0 };
	struct rec_run *rr = NULL;
	struct output *out = NULL;
	struct progress *prog = NULL;
	char err[512] = "";
	int rc = 1, e;

	if (cli_wants_help(argc, argv)) {
		usage(stdout);
		return 0;
	}
	if ((e = parse_args(argc, argv, &a, err, sizeof(err))) || (e = check_profiles(&a, err, sizeof(err)))) {
		if (err[0])
			cli_usage_error("recommend", "%s", err);
		rc = 2;
		goto out;
	}
	if ((e = check_inputs(&a, err, sizeof(err)))) {
		fprintf(stderr, "trimsim recommend: %s\n", err);
		goto out;
	}
	if (a.out && !(out = output__open(a.out, OUTPUT_ATOMIC, err, sizeof(err)))) {
		fprintf(stderr, "trimsim recommend: %s\n", err);
		goto out;
	}
	a.o.fs = a.fs;
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
