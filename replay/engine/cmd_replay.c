// SPDX-License-Identifier: GPL-2.0
/*
 * trimsim replay: a trace through a policy into a target; a summary table on
 * stdout and, with -o, the result JSON (RESULT.md), written atomically.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/cli.h"
#include "replay/engine/engine.h"
#include "replay/engine/result.h"
#include "traces/output.h"
#include "replay/targets/rd_safety.h"
#include "replay/report/runcell.h"
#include "traces/util.h"

#define BATCH 4096

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trimsim replay TRACE [-p POLICY] [-M PROFILE[:key=value,...]] [--json] [options]\n"
		"\n"
		"Feeds the trace through a discard policy into a device model (or a real device or\n"
		"file), submits the trace's own reads, writes and flushes through the same target,\n"
		"and reports discard commands, bytes, latencies, foreground stall and makespan.\n"
		"TRACE - is standard input (a device or file target reads it twice: a pipe is copied once).\n"
		"\n"
		"  -p, --policy POLICY   preset or pipeline (default as-recorded); see trimsim policies\n"
		"                        (--policies, as compare spells it, is the same option)\n"
		"  -M, --model PROFILE   device model profile with overrides (default nvme); see trimsim models;\n"
		"                        or a target spec NAME:ARG (file:PATH, device:PATH, fixed:...)\n"
		"                        (--models is the same option)\n"
		"  -t, --target NAME[:ARG]  any registered target, e.g. fixed:discard=9ms,qd=1\n"
		"      --device PATH     a real block device (needs --destructive: its data is destroyed)\n"
		"      --file PATH       a regular file: discards punch holes (one that holds data needs\n"
		"                        --destructive)\n"
		"      --qd N            target queue depth (default: a model's profile qd, a device's 32;\n"
		"                        a calibrated profile records the depth its device was measured at)\n"
		"      --destructive     allow writes and discards on a real device (and a --file with data)\n"
		"      --timing MODE     trace (keep the trace's timing, default) or asap\n"
		"      --speed X         with --timing trace: replay X times faster (default 1)\n"
		"  -s, --seed N          model seed (default 1); same inputs and seed, same JSON\n"
		"      --dev MAJ:MIN     the traced device to replay (default: the header's only or\n"
		"                        first filesystem device)\n"
		"      --no-baseline     skip the discard-free twin run that measures foreground stall\n"
		"  -o, --output FILE     write the result JSON (schema in replay/engine/RESULT.md); FILE ends in\n"
		"                        .json or has no extension; - is stdout (as --json)\n"
		"      --json            the result JSON on stdout instead of the summary table\n"
		"  -q, --quiet           no summary table\n"
		"\n"
		"On a real target (--device, --file), commands that fail (ENOSPC, EIO ...) are counted per\n"
		"errno in the result, named in one line on stderr, and make the exit status 1.\n"
		"\n"
		"examples:\n"
		"  trimsim replay rm-xfs.tsim -p xfs -M sata-sf2281\n"
		"  trimsim replay rm-xfs.tsim -p 'sort-merge-async(qd=32)' -M sata-sf2281 -o smx.json\n"
		"  trimsim replay rm.tsim -p 'source(free) | batch(1s) | sort | merge(max=64M) | min(64K)' -M nvme\n"
		"  trimsim replay rm.tsim -p as-recorded -M 'sata-sf2281:trim_base=5ms' --timing asap\n"
		"  trimsim replay rm.tsim -p passthrough --file /tmp/disk.img\n");
}

struct args {
	const char *trace, *policy, *out;
	char spec[1024];	/* the target spec every target option becomes (target_spec_parse) */
	bool strict;		/* -t, --device, --file: the spec names a registered target */
	bool spec_set;
	const struct target_ops *kind;	/* what spec names (NULL: nothing built in), to refuse a second one */
	struct engine_cfg cfg;
	bool quiet, dev_set, json;
};

enum { O_DEVICE = 256, O_FILE, O_QD, O_DESTRUCTIVE, O_TIMING, O_SPEED, O_DEV, O_NOBASE, O_JSON };

/*
 * -M SPEC, -t SPEC, --device PATH (device:PATH), --file PATH (file:PATH): one target, one
 * parser; an unknown target is reported after the policy (cmd_replay), as before.
 */
static int set_target(struct args *a, const char *prefix, const char *spec, bool strict)
{
	const struct target_ops *t;
	const char *arg;
	char err[256];

	if (snprintf(a->spec, sizeof(a->spec), "%s%s", prefix, spec) >= (int)sizeof(a->spec)) {
		cli_usage_error("replay", "target '%s': longer than %zu bytes", spec, sizeof(a->spec) - 1);
		return -EINVAL;
	}
	t = target_spec_parse(a->spec, strict, &arg, err, sizeof(err));
	if (a->spec_set && a->kind != t) {
		cli_usage_error("replay", "choose one target (-M, -t, --device or --file)");
		return -EINVAL;
	}
	a->spec_set = true;
	a->strict = strict;
	a->kind = t;
	return 0;
}

/* 0, 1 after --help, or -EINVAL after a message. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option lo[] = {
		{ "policy", required_argument, NULL, 'p' }, { "model", required_argument, NULL, 'M' },
		{ "policies", required_argument, NULL, 'p' }, { "models", required_argument, NULL, 'M' },
		{ "json", no_argument, NULL, O_JSON },
		{ "target", required_argument, NULL, 't' }, { "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' }, { "help", no_argument, NULL, 'h' },
		{ "device", required_argument, NULL, O_DEVICE }, { "file", required_argument, NULL, O_FILE },
		{ "qd", required_argument, NULL, O_QD }, { "destructive", no_argument, NULL, O_DESTRUCTIVE },
		{ "timing", required_argument, NULL, O_TIMING }, { "speed", required_argument, NULL, O_SPEED },
		{ "seed", required_argument, NULL, 's' }, { "dev", required_argument, NULL, O_DEV },
		{ "no-baseline", no_argument, NULL, O_NOBASE }, { NULL, 0, NULL, 0 },
	};
	const char *speed = NULL;
	uint64_t u;
	int c;

	a->policy = "as-recorded";
	a->cfg.speed = 1.0;
	a->cfg.seed = 1;
	a->cfg.baseline = true;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:M:t:o:s:qh", lo, NULL)) != -1) {
		int ret = 0;

		switch (c) {
		case 'p': a->policy = optarg; break;
		case 'M': ret = set_target(a, "", optarg, false); break;
		case 't': ret = set_target(a, "", optarg, true); break;
		case O_DEVICE: ret = set_target(a, "device:", optarg, true); break;
		case O_FILE: ret = set_target(a, "file:", optarg, true); break;
		case 'o': a->out = optarg; break;
		case 'q': a->quiet = true; break;
		case O_JSON: a->json = true; break;
		case O_DESTRUCTIVE: a->cfg.destructive = true; break;
		case O_NOBASE: a->cfg.baseline = false; break;
		case O_QD:
			if (parse_u64(optarg, &u) || !u || u > 65536)
				return cli_usage_error("replay", "--qd '%s': expected 1..65536", optarg), -EINVAL;
			a->cfg.qd = (unsigned)u;
			break;
		case O_TIMING:
			if (strcmp(optarg, "trace") && strcmp(optarg, "asap"))
				return cli_usage_error("replay", "--timing '%s': expected trace or asap", optarg),
				       -EINVAL;
			a->cfg.timing = strcmp(optarg, "asap") ? TIMING_TRACE : TIMING_ASAP;
			break;
		case O_SPEED:
			if (parse_double(optarg, &a->cfg.speed) || !(a->cfg.speed > 0) || a->cfg.speed > 1e9)
				return cli_usage_error("replay", "--speed '%s': expected a number above 0, at most 1e9",
						       optarg), -EINVAL;
			speed = optarg;
			break;
		case 's':
			if (parse_u64(optarg, &a->cfg.seed))
				return cli_usage_error("replay", "--seed '%s': expected an integer", optarg), -EINVAL;
			break;
		case O_DEV:
			if (ts_dev_parse(optarg, &a->cfg.devno))
				return cli_usage_error("replay", "--dev '%s': expected MAJOR:MINOR", optarg), -EINVAL;
			a->dev_set = true;
			break;
		case 'h': usage(stdout); return 1;
		default: return cli_getopt_error("replay", c, argv, usage), -EINVAL;
		}
		if (ret)
			return ret;
	}
	if (optind != argc - 1)
		return cli_usage_error("replay", optind == argc ? "no TRACE given" : "one TRACE only (compare takes several)"),
		       -EINVAL;
	if (speed && a->cfg.timing == TIMING_ASAP)	/* asap removes the gaps --speed would scale */
		return cli_usage_error("replay", "--speed '%s': applies to --timing trace only", speed), -EINVAL;
	a->trace = argv[optind];
	if (a->out && output__names_stdout(a->out))	/* -o - is --json: no table mixed into the JSON */
		a->json = true, a->out = NULL;
	if (!a->spec_set)
		set_target(a, "", "nvme", false);
	return 0;
}

/* The traced device to replay: --dev, the header's only device, or its first filesystem. */
static const struct ts_device *pick_device(struct trace_reader *r, struct args *a)
{
	size_t n = 0;
	const struct ts_device *d = trace_reader__devices(r, &n);

	if (a->dev_set) {
		for (size_t i = 0; i < n; i++)
			if (d[i].dev == a->cfg.devno)
				return &d[i];
		return NULL;
	}
	if ((d = trace_reader__replay_device(r)))
		a->cfg.devno = d->dev;
	return d;
}

/* Errors name the trace once: the reader's messages already start with its path. */
static int feed_all(struct engine *e, struct trace_reader *r, const char *path, char *err, size_t errlen)
{
	const struct ts_record *recs;
	ssize_t n;
	int ret;

	while ((n = trace_reader__batch(r, &recs, BATCH)) > 0)
		if ((ret = engine__feed(e, recs, (size_t)n)))
			return snprintf(err, errlen, "%s: %s", path, engine__error(e)), ret;
	if (n < 0)
		return snprintf(err, errlen, "%s", trace_reader__error(r)), (int)n;
	if ((ret = engine__finish(e)))
		return snprintf(err, errlen, "%s: %s", path, engine__error(e)), ret;
	return 0;
}

static int null_sink(void *arg, const struct policy_event *ev)
{
	(void)arg, (void)ev;
	return 0;
}

/*
 * Policy string errors first, before any file is opened; *props: what it reads.
 * -EINVAL: the spec is bad (a usage error; stages refuse options whatever the
 * device, policy.h init), else -errno.
 */
static int check_policy(const char *spec, struct policy_props *props, char *err, size_t errlen)
{
	struct policy *p = policy__new(spec, NULL, null_sink, NULL, err, errlen);

	if (!p)
		return errno ? -errno : -EINVAL;
	*props = *policy__props(p);
	policy__destroy(p);
	return 0;
}

/*
 * A policy whose source layer the trace lacks would replay nothing and report
 * zeros as its answer ("0 commands for 0 requests"): refuse with compare's n/a
 * reason (policy_source_missing()).
 */
static bool not_applicable(const struct args *a, const char *why)
{
	if (!why[0])
		return false;
	fprintf(stderr, "trimsim replay: %s: policy '%s' does not apply: %s\n", a->trace, a->policy, why);
	return true;
}

/*
 * A real target's command that failed (ENOSPC, ETXTBSY, EIO ...) means the device
 * did not do what the trace did: the result is kept (it counts them per errno,
 * RESULT.md), and the run says so in one line and fails. A model's rejection of
 * a discard (a profile without discard support) is the answer it models, not a
 * failure of the replay.
 */
static bool failed_commands(const struct args *a, const struct engine *e)
{
	char why[256];
	uint64_t n = metrics__failed(engine__metrics(e), why, sizeof(why));

	if (!n || !a->cfg.target->realtime)
		return false;
	fprintf(stderr, "trimsim replay: %s: %" PRIu64 " of %" PRIu64 " commands failed on %s:%s (%s)\n", a->trace,
		n, metrics__commands(engine__metrics(e)), a->cfg.target->name, a->cfg.target_arg, why);
	return true;
}

int cmd_replay(int argc, char **argv)
{
	struct args a = { 0 };
	struct trace_reader *r = NULL;
	struct engine *e = NULL;
	struct output *out = NULL, *jout = NULL;
	json_t *res = NULL;
	struct policy_props props;
	struct policy_input_counts input = { 0 };
	char err[1024] = "", why[160];
	int ret, rc = 1;

	if ((ret = parse_args(argc, argv, &a)))
		return ret > 0 ? 0 : 2;
	a.cfg.policy = a.policy;
	if ((ret = check_policy(a.policy, &props, err, sizeof(err)))) {
		fprintf(stderr, "trimsim replay: %s\n", err);
		return ret == -EINVAL ? 2 : 1;
	}
	if (!(a.cfg.target = target_spec_parse(a.spec, a.strict, &a.cfg.target_arg, err, sizeof(err)))) {
		fprintf(stderr, "trimsim replay: %s\n", err);
		return 2;
	}
	/* a profile that does not load is a bad -M, as a policy that does not parse is a bad -p: both 2, as in compare */
	if (!strcmp(a.cfg.target->name, "model") && report_check_profile(a.cfg.target_arg, err, sizeof(err))) {
		fprintf(stderr, "trimsim replay: %s\n", err);
		return 2;
	}
	if (a.out && !(out = result__open(a.out, err, sizeof(err)))) {	/* a bad -o fails before the replay */
		if (errno == EINVAL)	/* an extension that is not JSON's */
			return cli_usage_error("replay", "%s", err);
		fprintf(stderr, "trimsim replay: %s\n", err);
		return 1;
	}
	if (a.json && !(jout = result__open("-", err, sizeof(err)))) {
		fprintf(stderr, "trimsim replay: %s\n", err);
		goto out;
	}
	/* a real target reads the trace twice (its extent first): a pipe or "-" is copied once */
	if ((a.cfg.target->realtime && trace_reader__spool(a.trace, err, sizeof(err))) ||
	    !(r = trace_reader__open(a.trace, err, sizeof(err)))) {
		fprintf(stderr, "trimsim replay: %s\n", err);
		goto out;
	}
	a.cfg.dev = pick_device(r, &a);
	a.cfg.legacy_prealloc = ts_header_revision(trace_reader__header(r)) < TS_REV_PREALLOC;
	a.cfg.records_sync = ts_header_records_sync(trace_reader__header(r));
	a.cfg.start_ns = ts_header_start_ns(trace_reader__header(r));
	if (a.dev_set && !a.cfg.dev) {	/* replaying nothing and calling it a result would lie */
		size_t n, len = 0;
		const struct ts_device *d = trace_reader__devices(r, &n);
		char have[256] = "", s[24];

		for (size_t i = 0; i < n && len < sizeof(have); i++)
			len += (size_t)snprintf(have + len, sizeof(have) - len, "%s%s", i ? ", " : "",
						ts_dev_str(d[i].dev, s, sizeof(s)));
		fprintf(stderr, "trimsim replay: %s: --dev %s: no such device in the trace (%s)\n", a.trace,
			ts_dev_str(a.cfg.devno, s, sizeof(s)), n ? have : "no device table");
		goto out;
	}
	if (!a.cfg.devno && !a.quiet)
		fprintf(stderr, "trimsim replay: %s: no single device in the header; replaying every device "
			"(choose one with --dev)\n", a.trace);
	/* real targets size their file or check the device against the highest byte the trace
	   touches; the same pass counts the records of each kind (applicability, before the device is touched) */
	if (a.cfg.target->realtime) {
		if (rd_trace_extent(a.trace, a.cfg.devno, &a.cfg.trace_extent, &input, err, sizeof(err))) {
			fprintf(stderr, "trimsim replay: %s\n", err);
			goto out;
		}
		policy_source_missing(&props, &input, a.cfg.dev, why, sizeof(why));
		if (not_applicable(&a, why))
			goto out;
	}
	if (!(e = engine__new(&a.cfg, err, sizeof(err)))) {
		fprintf(stderr, "trimsim replay: %s\n", err);	/* the spec passed check_policy(): a failed run */
		goto out;
	}
	if ((ret = feed_all(e, r, a.trace, err, sizeof(err)))) {
		fprintf(stderr, "trimsim replay: %s\n", err);
		goto out;
	}
	/* the reader's message names the file and where it was cut; trace.truncated says it in the JSON */
	if (trace_reader__status(r)->truncated)
		fprintf(stderr, "trimsim replay: warning: %s; the result covers only those\n", trace_reader__error(r));
	engine__source_missing(e, why, sizeof(why));
	if (not_applicable(&a, why))
		goto out;
	if (!(res = result__build(e, r, a.trace, a.cfg.target->name))) {
		fprintf(stderr, "trimsim replay: out of memory\n");
		goto out;
	}
	ret = out ? result__write(res, out, err, sizeof(err)) : 0;
	out = NULL;
	if (!ret && jout)
		ret = result__write(res, jout, err, sizeof(err));
	jout = NULL;
	if (ret) {
		fprintf(stderr, "trimsim replay: %s\n", err);
		goto out;
	}
	if (!a.quiet && !a.json)
		result__print(res, stdout);
	rc = failed_commands(&a, e) ? 1 : 0;
out:
	output__abort(out);
	output__abort(jout);
	json_decref(res);
	engine__free(e);
	trace_reader__close(r);
	return rc;
}
