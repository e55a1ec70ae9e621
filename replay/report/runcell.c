// SPDX-License-Identifier: GPL-2.0
/*
 * Runs one cell with the replay engine (see runcell.h).
 *
 * The figures come from the engine's result (replay/RESULT.md): counts, bytes,
 * unique bytes, latency percentiles, discard busy time, foreground stall and
 * write latency against the engine's discard-free twin, peak rates,
 * makespan, the target's write amplification. The time series the report
 * draws (latency CDF, sizes, timeline, free space not yet trimmed) come from a
 * report_probe that watches the same replay through a "tap": a target_ops
 * table that forwards every call to the real target and shows the probe each
 * discard submitted and each completion reaped. The engine's twin lane (opened
 * with env->quiet) is forwarded but not watched. The tap's context travels in
 * the target argument string, as the address of a struct tap_ctx in this
 * process: target_ops.open has no other way in, and this keeps the engine and
 * the targets untouched.
 *
 * It builds against the replay engine when replay/engine.h is in the tree;
 * without it every cell fails with "the replay engine is not in this build",
 * so this module merges in any order and says plainly what is missing.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../traces/trace.h"
#include "../../traces/util.h"
#include "runcell.h"

#if __has_include("../engine.h")
#include "../../models/model.h"
#include "../engine.h"
#include "../targets/rd_safety.h"
#include "../targets/realdev.h"
#include "probe.h"

struct tap_ctx {
	struct target_ops ops;		/* the tap: the inner target's table with our hooks */
	const struct target_ops *inner;
	const char *inner_arg;
	struct report_probe *probe;
	uint64_t base;			/* real-time targets: clock when the replay started */
	struct tap_lane *main;		/* the watched lane */
};

struct tap_lane {
	struct tap_ctx *ctx;
	void *priv;			/* the inner target's */
	bool watched;			/* the main lane (not the engine's discard-free twin) */
};

static int tap_open(const char *arg, const struct target_env *env, void **priv, char *err, size_t errlen)
{
	struct tap_ctx *ctx = NULL;
	struct tap_lane *l;
	int ret;

	if (sscanf(arg, "%p", (void **)&ctx) != 1 || !ctx)
		return ts_errf(err, errlen, -EINVAL, "report tap: bad context '%s'", arg);
	if (!(l = calloc(1, sizeof(*l))))
		return -ENOMEM;
	l->ctx = ctx;
	l->watched = !env->quiet;
	if ((ret = ctx->inner->open(ctx->inner_arg, env, &l->priv, err, errlen))) {
		free(l);
		return ret;
	}
	if (l->watched)
		ctx->main = l;
	*priv = l;
	return 0;
}

static int tap_submit(void *priv, const struct target_cmd *cmd)
{
	struct tap_lane *l = priv;
	int ret;

	if (l->watched && cmd->klass == TC_DISCARD &&
	    (ret = report_probe__discard_ranges(l->ctx->probe, cmd->offset, cmd->length, cmd->segs, cmd->nr_segs)))
		return ret;
	return l->ctx->inner->submit(l->priv, cmd);
}

static uint64_t since(uint64_t t, uint64_t base)
{
	return t > base ? t - base : 0;
}

static int tap_reap(void *priv, uint64_t until_ns, struct target_done *out)
{
	struct tap_lane *l = priv;
	int ret = l->ctx->inner->reap(l->priv, until_ns, out);

	if (ret == 1 && l->watched) {
		struct target_done d = *out;
		uint64_t b = l->ctx->base;

		d.submit_ns = since(d.submit_ns, b);
		d.start_ns = since(d.start_ns, b);
		d.done_ns = since(d.done_ns, b);
		report_probe__done(l->ctx->probe, &d);
	}
	return ret;
}

static uint64_t tap_next_done(void *priv)
{
	struct tap_lane *l = priv;

	return l->ctx->inner->next_done(l->priv);
}

static unsigned tap_inflight(void *priv)
{
	struct tap_lane *l = priv;

	return l->ctx->inner->inflight(l->priv);
}

static unsigned tap_max_inflight(void *priv)
{
	struct tap_lane *l = priv;

	return l->ctx->inner->max_inflight(l->priv);
}

static uint64_t tap_clock(void *priv)
{
	struct tap_lane *l = priv;

	return l->ctx->inner->clock(l->priv);
}

static int tap_report(void *priv, json_t *obj)
{
	struct tap_lane *l = priv;

	return l->ctx->inner->report ? l->ctx->inner->report(l->priv, obj) : 0;
}

static void tap_close(void *priv)
{
	struct tap_lane *l = priv;

	if (!l)
		return;
	l->ctx->inner->close(l->priv);
	free(l);
}

static void tap_init(struct tap_ctx *ctx, const struct target_ops *inner, const char *arg)
{
	ctx->inner = inner;
	ctx->inner_arg = arg;
	ctx->ops = *inner;
	ctx->ops.open = tap_open;
	ctx->ops.submit = tap_submit;
	ctx->ops.reap = tap_reap;
	ctx->ops.next_done = tap_next_done;
	ctx->ops.inflight = tap_inflight;
	ctx->ops.max_inflight = tap_max_inflight;
	ctx->ops.clock = inner->clock ? tap_clock : NULL;
	ctx->ops.report = tap_report;
	ctx->ops.close = tap_close;
}

/* "file:/tmp/x" -> target file, arg "/tmp/x"; anything else is a model profile (with overrides). */
static const struct target_ops *target_of(const char *profile, char *name, size_t nlen, const char **arg)
{
	const char *colon = strchr(profile, ':');
	const struct target_ops *t;

	if (colon && (size_t)(colon - profile) < nlen) {
		snprintf(name, nlen, "%.*s", (int)(colon - profile), profile);
		if (strcmp(name, "model") && (t = target_find(name))) {
			*arg = colon + 1;
			return t;
		}
		if (!strcmp(name, "model")) {
			*arg = colon + 1;
			return target_find("model");
		}
	}
	snprintf(name, nlen, "model");
	*arg = profile;
	return target_find("model");
}

/* The traced device to replay, as trimsim replay picks it: the only one, else the first with a filesystem. */
static const struct ts_device *pick_device(struct trace_reader *r, uint32_t *devno)
{
	const struct ts_device *d = trace_reader__replay_device(r);

	*devno = d ? d->dev : 0;
	return d;
}

static json_t *jpath(json_t *o, const char *a, const char *b, const char *c)
{
	o = json_object_get(o, a);
	if (b)
		o = json_object_get(o, b);
	if (c)
		o = json_object_get(o, c);
	return o;
}

static uint64_t ju(json_t *o, const char *a, const char *b, const char *c)
{
	json_t *v = jpath(o, a, b, c);

	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* The engine's figures (RESULT.md) into the cell; the probe's series stay. */
static void from_result(struct report_cell *c, json_t *res)
{
	json_t *wa = jpath(res, "target", "write_amplification", NULL);
	json_t *base = jpath(res, "foreground", "baseline_latency", "write");

	c->cmds = ju(res, "discard", "commands", NULL);
	c->requests = ju(res, "discard", "requests", NULL);
	c->errors = ju(res, "discard", "errors", NULL);
	c->bytes = ju(res, "discard", "bytes", NULL);
	c->unique_bytes = ju(res, "discard", "unique_bytes", NULL);
	c->discard_ns = ju(res, "discard", "busy_ns", NULL);
	c->peak_cmds_s = ju(res, "discard", "peak_commands_per_s", NULL);
	c->peak_bytes_s = ju(res, "discard", "peak_bytes_per_s", NULL);
	c->lat_p50_ns = ju(res, "latency", "discard", "p50_ns");
	c->lat_p99_ns = ju(res, "latency", "discard", "p99_ns");
	c->lat_max_ns = ju(res, "latency", "discard", "max_ns");
	c->fg_cmds = ju(res, "foreground", "commands", NULL);
	c->makespan_ns = ju(res, "makespan_ns", NULL, NULL);
	c->wall_ns = ju(res, "records", "span_ns", NULL);
	if (json_is_true(jpath(res, "target", "baseline", NULL))) {
		c->have |= CH_TWIN;
		c->fg_stall_ns = ju(res, "foreground", "stall_ns", NULL);
		if (json_is_object(base) && ju(base, "count", NULL, NULL))
			c->write_p99_base_ns = ju(base, "p99_ns", NULL, NULL);
	}
	if (ju(res, "foreground", "latency", "write") || json_is_object(jpath(res, "foreground", "latency", "write"))) {
		json_t *w = jpath(res, "foreground", "latency", "write");

		if (ju(w, "count", NULL, NULL)) {
			c->write_p99_ns = ju(w, "p99_ns", NULL, NULL);
			c->have |= CH_WRITE_P99;
		}
	}
	if (json_is_number(wa)) {
		c->write_amp = json_number_value(wa);
		c->have |= CH_WA;
	}
	if (!strcmp(json_string_value(jpath(res, "policy", "source", NULL)) ?: "", "none"))
		c->none = true;
	c->reclaim_byte_s = json_number_value(jpath(res, "reclaim", "byte_s", NULL));
	c->reclaim_freed = ju(res, "reclaim", "freed_bytes", NULL);
	c->d_held_ns = ju(res, "discard", "held_ns", NULL);
	c->d_waited_ns = ju(res, "discard", "waited_ns", NULL);
	c->serial_qd = ju(res, "policy", "qd", NULL) == 1;
	{
		const char *w = json_string_value(jpath(res, "policy", "waiter", NULL)) ?: "";

		c->waiter = !strcmp(w, "workload") ? CW_WORKLOAD : !strcmp(w, "worker") ? CW_WORKER : CW_UNKNOWN;
	}
	snprintf(c->pipeline, sizeof(c->pipeline), "%s", json_string_value(jpath(res, "policy", "pipeline", NULL)) ?: "");
}

/* One replay of the cell into c (figures and series). */
static int run_once(const struct cell_job *j, struct report_cell *c, char *err, size_t errlen)
{
	struct tap_ctx ctx = { 0 };
	struct engine_cfg cfg = { .policy = j->policy, .timing = TIMING_TRACE, .speed = 1.0, .seed = j->seed,
				  .destructive = j->destructive, .baseline = true, .qd = j->qd };
	struct trace_reader *r = NULL;
	struct engine *e = NULL;
	json_t *res = NULL;
	const struct target_ops *inner;
	const struct ts_record *recs;
	char name[64], tap_arg[64];
	const char *arg;
	uint64_t t0 = 0;
	bool started = false;
	ssize_t n;
	int ret = 0;

	if (!(inner = target_of(j->profile, name, sizeof(name), &arg)))
		return ts_errf(err, errlen, -ENOENT, "target '%s' is not built in", name);
	if (!(r = trace_reader__open(j->trace, err, errlen)))
		return -errno ? -errno : -EIO;
	cfg.dev = pick_device(r, &cfg.devno);
	cfg.legacy_prealloc = ts_header_revision(trace_reader__header(r)) < TS_REV_PREALLOC;
	cfg.start_ns = ts_header_start_ns(trace_reader__header(r));
	/* the device's size against the trace's extent (replay does the same): one pass over the trace */
	if (inner->realtime && (ret = rd_trace_extent(j->trace, cfg.devno, &cfg.trace_extent, NULL, err, errlen)))
		goto out;
	tap_init(&ctx, inner, arg);
	snprintf(tap_arg, sizeof(tap_arg), "%p", (void *)&ctx);
	cfg.target = &ctx.ops;
	cfg.target_arg = tap_arg;
	if (!(ctx.probe = report_probe__new(c, 0))) {
		ret = -ENOMEM;
		goto out;
	}
	if (!(e = engine__new(&cfg, err, errlen))) {
		ret = -errno ? -errno : -EINVAL;
		goto out;
	}
	while ((n = trace_reader__batch(r, &recs, 4096)) > 0 && !trimsim_stop) {
		for (ssize_t i = 0; i < n; i++) {
			struct ts_record rec = recs[i];

			if (cfg.devno && rec.dev != cfg.devno)
				continue;
			if (!started) {
				started = true;
				t0 = rec.time_ns;
				/* the engine starts real-time targets' time here too (engine__feed) */
				if (inner->realtime && inner->clock && ctx.main)
					ctx.base = inner->clock(ctx.main->priv);
			}
			if ((ret = engine__feed(e, &rec, 1))) {
				snprintf(err, errlen, "%s: %s", j->trace, engine__error(e));
				goto out;
			}
			rec.time_ns = rec.time_ns > t0 ? rec.time_ns - t0 : 0;
			if (ts_free_is_prealloc(&rec, cfg.legacy_prealloc))	/* the probe reads the flag only */
				rec.flags |= TS_F_PREALLOC;
			report_probe__record(ctx.probe, &rec);
		}
	}
	if (n < 0) {
		ret = (int)n;
		snprintf(err, errlen, "%s", trace_reader__error(r));
		goto out;
	}
	if (trace_reader__status(r)->truncated)
		snprintf(c->cut, sizeof(c->cut), "%s", trace_reader__error(r));
	if (trimsim_stop) {
		ret = -EINTR;
		snprintf(err, errlen, "interrupted");
		goto out;
	}
	if ((ret = engine__finish(e))) {
		snprintf(err, errlen, "%s: %s", j->trace, engine__error(e));
		goto out;
	}
	if (!(res = engine__result(e))) {
		ret = -ENOMEM;
		goto out;
	}
	report_probe__finish(ctx.probe, metrics__makespan(engine__metrics(e)));
	from_result(c, res);
	c->failed = metrics__failed(engine__metrics(e), c->failed_why, sizeof(c->failed_why));
	/* not applicable: the layer that fed the pipeline has no record, its zeros say nothing */
	engine__source_missing(e, c->na, sizeof(c->na));
	c->realtime = inner->realtime;
out:
	json_decref(res);
	engine__free(e);
	report_probe__destroy(ctx.probe);
	trace_reader__close(r);
	return ret;
}

int report_check_profile(const char *profile, char *err, size_t errlen)
{
	char name[64];
	const char *arg;
	const struct target_ops *t = target_of(profile, name, sizeof(name), &arg);
	struct model_profile *m;

	if (!t || strcmp(t->name, "model"))
		return 0;
	if (!(m = model_profile__load(arg, err, errlen)))
		return errno ? -errno : -EINVAL;
	model_profile__free(m);
	return 0;
}

int report_check_target(const char *profile, const char *trace, bool destructive, char *err, size_t errlen)
{
	char name[64];
	const char *arg;
	const struct target_ops *t = target_of(profile, name, sizeof(name), &arg);
	struct target_env env = { .destructive = destructive, .quiet = true };
	struct trace_reader *r;
	uint32_t devno = 0;
	int ret;

	if (!t || !t->check)
		return 0;
	if (!(r = trace_reader__open(trace, err, errlen)))
		return errno ? -errno : -EIO;
	pick_device(r, &devno);
	trace_reader__close(r);
	if ((ret = rd_trace_extent(trace, devno, &env.trace_extent, NULL, err, errlen)))
		return ret;
	return t->check(arg, &env, err, errlen);
}

unsigned report_target_qd(const char *profile, unsigned qd)
{
	char name[64], err[256];
	const char *arg;
	const struct target_ops *t = target_of(profile, name, sizeof(name), &arg);
	struct model_profile *m;
	json_t *d;
	unsigned v;

	if (qd || !t)
		return qd;
	if (t->realtime)
		return realdev__qd(arg, 0);
	if (strcmp(t->name, "model") || !(m = model_profile__load(arg, err, sizeof(err))))
		return 0;
	d = model_profile__describe(m);
	v = (unsigned)json_integer_value(json_object_get(json_object_get(d, "params"), "qd"));
	json_decref(d);
	model_profile__free(m);
	return v;
}

bool report_profile_realtime(const char *profile)
{
	char name[64];
	const char *arg;
	const struct target_ops *t = target_of(profile, name, sizeof(name), &arg);

	return t && t->realtime;
}

int report_run_cell(const struct cell_job *j, struct report_cell *c, char *err, size_t errlen)
{
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
	}
	if (ret) {
		const char *msg = err[0] ? err : strerror(-ret);

		c->status = ret;
		/* the first line: policy errors add a caret picture below it */
		snprintf(c->error, sizeof(c->error), "%.*s", (int)strcspn(msg, "\n"), msg);
	}
	return ret;
}

#else	/* no replay engine in this tree */

int report_check_target(const char *profile, const char *trace, bool destructive, char *err, size_t errlen)
{
	(void)profile, (void)trace, (void)destructive, (void)err, (void)errlen;
	return 0;
}

unsigned report_target_qd(const char *profile, unsigned qd)
{
	(void)profile;
	return qd;
}

int report_check_profile(const char *profile, char *err, size_t errlen)
{
	(void)profile, (void)err, (void)errlen;
	return 0;
}

bool report_profile_realtime(const char *profile)
{
	(void)profile;
	return false;
}

int report_run_cell(const struct cell_job *j, struct report_cell *c, char *err, size_t errlen)
{
	(void)j;
	snprintf(err, errlen, "the replay engine is not in this build");
	snprintf(c->error, sizeof(c->error), "%s", err);
	c->status = -ENOSYS;
	return c->status;
}

#endif
