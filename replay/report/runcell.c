// SPDX-License-Identifier: GPL-2.0
/*
 * Runs one cell with the replay engine (see runcell.h), measuring it once:
 * the figures come from the engine's metrics core (report_cell__from_metrics:
 * counts, bytes, unique bytes, the latency histogram and its percentiles,
 * discard busy time, foreground stall and write latency against the engine's
 * discard-free twin, peak rates, makespan) and from the engine itself (the
 * pipeline, the records' span, the target's write amplification); the time
 * series the report draws (timeline, free space not yet trimmed, held time)
 * from a report_probe, the engine's observer (probe.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/model.h"
#include "traces/trace.h"
#include "traces/util.h"
#include "replay/engine/engine.h"
#include "replay/targets/rd_safety.h"
#include "replay/targets/realdev.h"
#include "replay/report/probe.h"
#include "replay/report/runcell.h"

/* The traced device to replay, as trimsim replay picks it: the only one, else the first with a filesystem. */
static const struct ts_device *pick_device(struct trace_reader *r, uint32_t *devno)
{
	const struct ts_device *d = trace_reader__replay_device(r);

	*devno = d ? d->dev : 0;
	return d;
}

/*
 * The recording's window, where `trimsim record` wrote the trace (its header names the backend)
 * and read to its footer: from the header's start_ns to the footer's end_ns. 0, 0 otherwise: an
 * import's header times are its records' own, a hand-made trace's anything.
 */
static void recording_window(struct trace_reader *r, uint64_t *from, uint64_t *to)
{
	const struct trace_status *st = trace_reader__status(r);
	const json_t *h = trace_reader__header(r);

	*from = *to = 0;
	if (!json_is_string(json_object_get(h, "backend")) || !st->footer)
		return;
	*from = ts_header_start_ns(h);
	*to = *from ? st->end_ns : 0;
}

/* What the engine knows beyond its metrics: the pipeline, its span, the target's own figure. */
static void from_engine(struct report_cell *c, const struct engine *e, uint64_t from, uint64_t to)
{
	const struct policy_props *props = policy__props(engine__policy(e));
	const char *pipeline = policy__describe(engine__policy(e));
	double wa;

	c->wall_ns = engine__wall(e, from, to, &c->trace_end_ns);
	if (engine__write_amp(e, &wa)) {
		c->write_amp = wa;
		c->have |= CH_WA;
	}
	c->none = props->source == PS_NONE;
	c->serial_qd = props->qd == 1;
	c->waiter = props->waiter == PW_WORKLOAD ? CW_WORKLOAD : props->waiter == PW_WORKER ? CW_WORKER : CW_UNKNOWN;
	snprintf(c->pipeline, sizeof(c->pipeline), "%s", pipeline ? pipeline : "");
}

/* One replay of the cell into c (figures and series). */
static int run_once(const struct cell_job *j, struct report_cell *c, char *err, size_t errlen)
{
	struct engine_observer ob;
	struct engine_cfg cfg = { .policy = j->policy, .timing = TIMING_TRACE, .speed = 1.0, .seed = j->seed,
				  .destructive = j->destructive, .baseline = true, .qd = j->qd, .observer = &ob };
	struct trace_reader *r = NULL;
	struct report_probe *probe = NULL;
	struct engine *e = NULL;
	const struct ts_record *recs;
	uint64_t from, to;
	ssize_t n = 0;
	int ret = 0;

	cfg.target = target_spec_parse(j->profile, false, &cfg.target_arg, err, errlen);
	if (!(r = trace_reader__open(j->trace, err, errlen)))
		return -errno ? -errno : -EIO;
	cfg.dev = pick_device(r, &cfg.devno);
	cfg.legacy_prealloc = ts_header_revision(trace_reader__header(r)) < TS_REV_PREALLOC;
	cfg.records_sync = ts_header_records_sync(trace_reader__header(r));
	cfg.start_ns = ts_header_start_ns(trace_reader__header(r));
	/* the device's size against the trace's extent (replay does the same): one pass over the trace */
	if (cfg.target->realtime &&
	    (ret = rd_trace_extent(j->trace, cfg.devno, &cfg.trace_extent, NULL, err, errlen)))
		goto out;
	if (!(probe = report_probe__new(c, cfg.legacy_prealloc))) {
		ret = -ENOMEM;
		goto out;
	}
	report_probe__observer(probe, &ob);
	if (!(e = engine__new(&cfg, err, errlen))) {
		ret = -errno ? -errno : -EINVAL;
		goto out;
	}
	while (!trimsim_stop && (n = trace_reader__batch(r, &recs, 4096)) > 0)
		if ((ret = engine__feed(e, recs, (size_t)n))) {
			snprintf(err, errlen, "%s: %s", j->trace, engine__error(e));
			goto out;
		}
	if (trimsim_stop) {
		ret = -EINTR;
		snprintf(err, errlen, "interrupted");
		goto out;
	}
	if (n < 0) {
		ret = (int)n;
		snprintf(err, errlen, "%s", trace_reader__error(r));
		goto out;
	}
	if (trace_reader__status(r)->truncated)
		snprintf(c->cut, sizeof(c->cut), "%s", trace_reader__error(r));
	if ((ret = engine__finish(e))) {
		snprintf(err, errlen, "%s: %s", j->trace, engine__error(e));
		goto out;
	}
	report_cell__from_metrics(c, engine__metrics(e), engine__has_twin(e));
	recording_window(r, &from, &to);
	from_engine(c, e, from, to);
	report_probe__finish(probe);
	c->rec_others = ts_header_revision(trace_reader__header(r)) >= TS_REV_WORKLOAD && engine__ran_command(e) &&
			c->rec_bios && !c->rec_bios_own;
	c->failed = metrics__failed(engine__metrics(e), c->failed_why, sizeof(c->failed_why));
	/* not applicable: the layer that fed the pipeline has no record, its zeros say nothing */
	engine__source_missing(e, c->na, sizeof(c->na));
	c->realtime = cfg.target->realtime;
out:
	engine__free(e);
	report_probe__destroy(probe);
	trace_reader__close(r);
	return ret;
}

int report_check_profile(const char *profile, char *err, size_t errlen)
{
	const char *arg;
	const struct target_ops *t = target_spec_parse(profile, false, &arg, err, errlen);
	struct model_profile *m;

	if (t != &model_target_ops)
		return 0;
	if (!(m = model_profile__load(arg, err, errlen)))
		return errno ? -errno : -EINVAL;
	model_profile__free(m);
	return 0;
}

int report_check_target(const char *profile, const char *trace, bool destructive, char *err, size_t errlen)
{
	const char *arg;
	const struct target_ops *t = target_spec_parse(profile, false, &arg, err, errlen);
	struct target_env env = { .destructive = destructive, .quiet = true };
	const struct ts_device *d;
	struct trace_reader *r;
	uint32_t devno = 0;
	int ret;

	if (!t->check)
		return 0;
	if (!(r = trace_reader__open(trace, err, errlen)))
		return errno ? -errno : -EIO;
	d = pick_device(r, &devno);
	env.base = d ? d->partition_start : 0;
	trace_reader__close(r);
	if ((ret = rd_trace_extent(trace, devno, &env.trace_extent, NULL, err, errlen)))
		return ret;
	return t->check(arg, &env, err, errlen);
}

unsigned report_target_qd(const char *profile, unsigned qd)
{
	char err[256];
	const char *arg;
	const struct target_ops *t = target_spec_parse(profile, false, &arg, err, sizeof(err));
	struct model_profile *m;
	json_t *d;
	unsigned v;

	if (qd)
		return qd;
	if (t->realtime)
		return realdev__qd(arg, 0);
	if (t != &model_target_ops || !(m = model_profile__load(arg, err, sizeof(err))))
		return 0;
	d = model_profile__describe(m);
	v = (unsigned)json_integer_value(json_object_get(json_object_get(d, "params"), "qd"));
	json_decref(d);
	model_profile__free(m);
	return v;
}

bool report_profile_realtime(const char *profile)
{
	char err[256];
	const char *arg;

	return target_spec_parse(profile, false, &arg, err, sizeof(err))->realtime;
}

/*
 * The figures a verdict or a ranking reads that vary from run to run on a real target:
 * with --runs N they are the means of the N runs (REPORT-SCHEMA.md `runs`); counts,
 * bytes, the latency histogram and the series stay the last run's.
 */
static const size_t run_means[] = {
	offsetof(struct report_cell, discard_ns), offsetof(struct report_cell, lat_p50_ns),
	offsetof(struct report_cell, lat_p99_ns), offsetof(struct report_cell, lat_max_ns),
	offsetof(struct report_cell, peak_cmds_s), offsetof(struct report_cell, peak_bytes_s),
	offsetof(struct report_cell, fg_stall_ns), offsetof(struct report_cell, write_p99_ns),
	offsetof(struct report_cell, write_p99_base_ns), offsetof(struct report_cell, read_p99_ns),
	offsetof(struct report_cell, read_p99_base_ns), offsetof(struct report_cell, makespan_ns),
	offsetof(struct report_cell, fg_end_ns), offsetof(struct report_cell, fg_held_ns),
	offsetof(struct report_cell, d_held_ns), offsetof(struct report_cell, d_waited_ns),
	offsetof(struct report_cell, d_fitrim_ns), offsetof(struct report_cell, d_own_ns),
	offsetof(struct report_cell, d_fitrim_end_ns), offsetof(struct report_cell, d_own_end_ns),
};
#define NMEANS (sizeof(run_means) / sizeof(run_means[0]))

static uint64_t *fig(struct report_cell *c, size_t i)
{
	return (uint64_t *)((char *)c + run_means[i]);
}

static void means_add(long double *sum, struct report_cell *c)
{
	for (size_t i = 0; i < NMEANS; i++)
		sum[i] += *fig(c, i);
	sum[NMEANS] += c->reclaim_byte_s;
}

static void means_set(const long double *sum, struct report_cell *c)
{
	for (size_t i = 0; i < NMEANS; i++)
		*fig(c, i) = (uint64_t)llroundl(sum[i] / c->runs.n);
	c->reclaim_byte_s = (double)(sum[NMEANS] / c->runs.n);
}

int report_run_cell(const struct cell_job *j, struct report_cell *c, char *err, size_t errlen)
{
	long double sum[NMEANS + 1] = { 0 };
	struct report_cell keep = *c;	/* identity */
	unsigned runs = j->runs ? j->runs : 1;
	uint64_t failed = 0;
	char why[sizeof(c->failed_why)] = "";
	int ret = 0;

	err[0] = 0;
	for (unsigned k = 0; k < runs && k < RUNS_MAX; k++) {
		struct cell_runs saved = c->runs;

		/* every run starts from the identity; the last one's figures and series stay */
		memcpy(c, &keep, sizeof(*c));
		c->runs = saved;
		c->write_amp = NAN;
		ret = run_once(j, c, err, errlen);
		if (c->failed) {	/* a failed command in any run counts */
			failed += c->failed;
			snprintf(why, sizeof(why), "%s", c->failed_why);
		}
		c->failed = failed;
		snprintf(c->failed_why, sizeof(c->failed_why), "%s", why);
		if (ret)
			break;
		if (!c->realtime)
			break;	/* a model is a pure function of its inputs: more runs would be identical */
		c->runs.makespan_s[c->runs.n] = c->makespan_ns / 1e9;
		c->runs.discard_s[c->runs.n] = c->discard_ns / 1e9;
		c->runs.n++;
		means_add(sum, c);
	}
	if (!ret && c->runs.n > 1)	/* one run: its own figures, untouched */
		means_set(sum, c);
	if (ret) {
		const char *msg = err[0] ? err : strerror(-ret);

		c->status = ret;
		/* the first line: policy errors add a caret picture below it */
		snprintf(c->error, sizeof(c->error), "%.*s", (int)strcspn(msg, "\n"), msg);
	}
	return ret;
}
