// SPDX-License-Identifier: GPL-2.0
/* Opening an engine (policy, target lanes), its result object, and freeing it (engine.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine/engine_int.h"

/*
 * The baseline twin never receives a discard; it is opened with target_env.twin.
 * A model then sets discard_supported=false (models/model.c) and keeps no map of
 * mapped space (models/param.c: the map only prices discards; writes, reads and
 * flushes cost the same), so the twin's writes skip its bitmap. Foreground timing
 * is unchanged (tests/replay/test_baseline.c: the twin's latencies equal those of
 * the policy `none`, which runs the unmodified profile).
 */
static int open_lane(struct engine *e, struct lane *l, bool shadow, char *err, size_t errlen)
{
	struct target_env env = {
		.seed = e->cfg.seed, .device_size = e->cfg.dev ? e->cfg.dev->size : 0,
		.trace_extent = e->cfg.trace_extent, .base = e->cfg.dev ? e->cfg.dev->partition_start : 0,
		.qd = e->cfg.qd, .destructive = e->cfg.destructive, .quiet = shadow,
		.twin = shadow,
	};
	int ret;

	l->ops = e->cfg.target;
	l->shadow = shadow;
	evq_init(&l->dq);
	ret = l->ops->open(e->cfg.target_arg ? e->cfg.target_arg : "", &env, &l->priv, err, errlen);
	if (ret) {
		l->priv = NULL;
		if (!err[0])
			snprintf(err, errlen, "target %s: open failed: %s", l->ops->name, strerror(-ret));
		return ret;
	}
	l->max = l->ops->max_inflight(l->priv);
	l->max = l->max ? l->max : 1;
	l->qd = policy__props(e->pol)->qd;
	return 0;
}

struct engine *engine__new(const struct engine_cfg *cfg, char *err, size_t errlen)
{
	struct policy_env penv = { .dev = cfg->dev, .devno = cfg->devno, .seed = cfg->seed,
				   .start_ns = cfg->start_ns, .legacy_prealloc = cfg->legacy_prealloc,
				   .records_sync = cfg->records_sync };
	struct engine *e = calloc(1, sizeof(*e));
	int ret = -ENOMEM;

	err[0] = 0;
	if (!e)
		goto out;
	e->cfg = *cfg;
	if (!(e->cfg.speed > 0))
		e->cfg.speed = 1.0;
	e->unscaled = e->cfg.timing == TIMING_ASAP || e->cfg.speed == 1.0;
	e->free_slot = SIZE_MAX;
	e->realtime = cfg->target->realtime;
	e->skip_idle = !e->realtime;
	if (e->realtime && !cfg->target->clock) {
		ret = -EINVAL;
		snprintf(err, errlen, "target %s: real-time target without a clock", cfg->target->name);
		goto out;
	}
	if (!(e->m = metrics__new()))
		goto out;
	if (!(e->pol = policy__new(cfg->policy, &penv, engine_sink, e, err, errlen))) {
		ret = -errno;
		goto out;
	}
	e->wanted_kinds = policy__wanted_kinds(e->pol);
	e->timers = policy__has_timers(e->pol);
	/*
	 * A pipeline without a complete() hook only moves its clock to a completion's
	 * trace time, and with trace timing at --speed 1 (to_trace() inverts
	 * to_engine() exactly) that time is never past the next record's nor a
	 * timer's deadline when it fires, so the clock it would keep reads the same
	 * wherever a stage or a check reads it. At another speed the round trip may
	 * land a nanosecond late, a real-time completion may come after the next
	 * record, and with asap a completion's trace time can pass a timer's deadline
	 * (ext4(kworker=2ms) on xfs-discard-db moved its discards' delays): the policy
	 * is told of those. tests/replay/test_observe_kinds.c checks it, every
	 * completion told with TRIMSIM_OBSERVE_ALL (policy__completes()).
	 */
	e->done_acts = policy__completes(e->pol);
	e->done_unseen = !e->done_acts && !e->realtime && cfg->timing == TIMING_TRACE &&
			 e->cfg.speed == 1.0;
	/*
	 * A foreground record is never a source record: in a pipeline where no stage
	 * observes ISSUE, policy__record() would only move the clock to its time, and
	 * with no timer and no complete() hook nothing reads that clock before the next
	 * record it is told of moves it as far (records come in time order).
	 */
	e->fg_unseen = !e->timers && !policy__completes(e->pol) &&
		       !(policy__observed_kinds(e->pol) >> TS_ISSUE & 1);
	/*
	 * Kinds never foreground, freed bytes or wanted: skipped right after the counters
	 * (engine__feed()); asap skips one only while the policy is quiet, and never for
	 * an observer of records (its drain would come after the record).
	 */
	if (e->skip_idle && (cfg->timing == TIMING_TRACE || !(cfg->observer && cfg->observer->record)))
		e->idle_kinds = ~(e->wanted_kinds | 1u << TS_ISSUE | 1u << TS_FREE | 1u << TS_INTENT);
	e->timer_dl = e->timer_te = UINT64_MAX;	/* to_engine(UINT64_MAX) */
	e->nlanes = 1;
	if ((ret = open_lane(e, &e->lane[0], false, err, errlen)))
		goto out;
	if (cfg->baseline && !e->realtime && policy__props(e->pol)->source != PS_NONE) {
		if ((ret = open_lane(e, &e->lane[1], true, err, errlen)))
			goto out;
		e->nlanes = 2;
	}
	/* trace timing: the twin runs beside the loop (engine.c, twin_run) */
	e->nloop = e->skip_idle && cfg->timing == TIMING_TRACE ? 1 : e->nlanes;
	/* asap: the twin joins the loop with the first foreground command (engine.c, enqueue_fg) */
	if (e->nlanes > 1 && cfg->timing == TIMING_ASAP) {
		e->nloop = 1;
		e->twin_idle = true;
	}
	ret = 0;
out:
	if (ret) {
		if (!err[0])
			snprintf(err, errlen, "replay: %s", strerror(-ret));
		engine__free(e);
		errno = -ret;
		return NULL;
	}
	return e;
}

/* The write amplification a target reports (models/ftl.c), in its report object; NULL if none. */
static json_t *target_write_amp(json_t *target)
{
	json_t *wa = json_object_get(target, "write_amplification");

	return json_is_number(wa) ? wa : NULL;
}

json_t *engine__result(const struct engine *e)
{
	json_t *o = json_object(), *t = json_object(), *tr = json_object(), *rec = json_object();
	json_t *pol = policy__report(e->pol);
	uint64_t replayed = 0;
	int ret = 0;

	for (unsigned k = 0; k <= TS_KIND_MAX; k++)	/* policy_input_count() counted each once */
		replayed += e->input.kind[k];
	if (!o || !t || !tr || !rec || !pol) {
		ret = -ENOMEM;
		goto out;
	}
	json_object_set_new(t, "name", json_string(e->cfg.target->name));
	json_object_set_new(t, "spec", json_string(e->cfg.target_arg ? e->cfg.target_arg : ""));
	json_object_set_new(t, "baseline", json_boolean(e->nlanes > 1));
	if (e->cfg.target->report && (ret = e->cfg.target->report(e->lane[0].priv, t)))
		goto out;
	json_object_set_new(tr, "mode", json_string(e->cfg.timing == TIMING_ASAP ? "asap" : "trace"));
	json_object_set_new(tr, "speed", json_real(e->cfg.timing == TIMING_ASAP ? 0 : e->cfg.speed));
	json_object_set_new(rec, "read", json_integer((json_int_t)e->records));
	json_object_set_new(rec, "replayed", json_integer((json_int_t)replayed));
	json_object_set_new(rec, "foreground", json_integer((json_int_t)e->fg_records));
	json_object_set_new(rec, "out_of_order", json_integer((json_int_t)e->out_of_order));
	json_object_set_new(rec, "span_ns", json_integer((json_int_t)(e->last_trace - e->t0)));
	json_object_set_new(o, "policy", pol);
	pol = NULL;
	json_object_set_new(o, "target", t);
	t = NULL;
	json_object_set_new(o, "timing", tr);
	tr = NULL;
	json_object_set_new(o, "records", rec);
	rec = NULL;
	json_object_set_new(o, "seed", json_integer((json_int_t)e->cfg.seed));
	ret = metrics__to_json(e->m, o);
	if (!ret) {	/* the device's own figure, where the target knows it (FTL models) */
		json_t *wa = target_write_amp(json_object_get(o, "target"));

		if (wa)
			json_object_set(json_object_get(o, "device"), "write_amplification", wa);
	}
out:
	json_decref(t);
	json_decref(tr);
	json_decref(rec);
	json_decref(pol);
	if (ret) {
		json_decref(o);
		return NULL;
	}
	return o;
}

const struct metrics *engine__metrics(const struct engine *e) { return e->m; }
const struct policy *engine__policy(const struct engine *e) { return e->pol; }
bool engine__has_twin(const struct engine *e) { return e->nlanes > 1; }
uint64_t engine__span(const struct engine *e) { return e->last_trace - e->t0; }

bool engine__ran_command(const struct engine *e)
{
	return e->cmd_started;
}

uint64_t engine__wall(const struct engine *e, uint64_t from, uint64_t to, uint64_t *end)
{
	bool cmd = e->cmd_started && e->cmd_stopped && e->cmd_stop >= e->cmd_start;
	uint64_t lo = cmd ? e->cmd_start : from, hi = cmd ? e->cmd_stop : to;
	bool wide = e->started && lo && hi >= lo;
	uint64_t first = wide && lo < e->t0 ? lo : e->t0;
	uint64_t last = wide && hi > e->last_trace ? hi : e->last_trace;

	*end = last - e->t0;
	return last - first;
}

int engine__write_amp(const struct engine *e, double *wa)
{
	json_t *t, *v;
	int ret = 0;

	*wa = 0;
	if (!e->cfg.target->report)
		return 0;
	if (!(t = json_object()) || e->cfg.target->report(e->lane[0].priv, t)) {
		json_decref(t);
		return 0;
	}
	if ((v = target_write_amp(t))) {
		*wa = json_number_value(v);
		ret = 1;
	}
	json_decref(t);
	return ret;
}
const char *engine__error(const struct engine *e) { return e->err[0] ? e->err : "replay: unknown error"; }
size_t engine__peak_queued(const struct engine *e) { return e->peak_q; }
uint32_t engine__devno(const struct engine *e) { return e->cfg.devno; }

void engine__free(struct engine *e)
{
	if (!e)
		return;
	for (unsigned i = 0; i < 2; i++) {
		struct lane *l = &e->lane[i];

		if (l->ops && l->priv)
			l->ops->close(l->priv);
		free(l->fg);
		evq_free(&l->dq);
	}
	policy__destroy(e->pol);
	metrics__free(e->m);
	free(e->slots);
	free(e);
}
