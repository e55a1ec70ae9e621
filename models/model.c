// SPDX-License-Identifier: GPL-2.0
/* The "model" target: opens a profile and runs the engine its "model" field names. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "models/model.h"
#include "models/model_int.h"

struct model {
	struct model_profile *prof;
	const struct model_engine_ops *eng;
	void *e;
	struct msched *s;
	uint64_t seed;
	unsigned qd;
};

/* The engines, in the order trimsim models lists them. */
const struct model_engine_ops *const model_engines[] = {
	&param_engine_ops,
	&ftl_engine_ops,
	NULL,
};

const struct model_engine_ops *model_engine_find(const char *name)
{
	for (size_t i = 0; model_engines[i]; i++)
		if (!strcmp(model_engines[i]->name, name))
			return model_engines[i];
	return NULL;
}

static int model_open(const char *arg, const struct target_env *env, void **priv, char *err, size_t errlen)
{
	struct model *m = calloc(1, sizeof(*m));
	int ret = -ENOMEM;

	if (!m) {
		snprintf(err, errlen, "model: out of memory");
		goto out;
	}
	m->prof = model_profile__load(arg, err, errlen);
	if (!m->prof) {
		ret = -errno;
		goto out;
	}
	if (env->twin)	/* it never receives a discard: nothing to price, no map of mapped space to keep */
		m->prof->p.discard_supported = false;
	if (env->qd) {	/* --qd: the depth (and channels, at most qd) the replay runs at is what target.params says */
		m->prof->p.qd = env->qd;
		if (m->prof->p.channels > env->qd)
			m->prof->p.channels = env->qd;
	}
	m->eng = m->prof->engine;
	m->e = m->eng->open(m->prof, env, err, errlen);
	if (!m->e) {
		ret = -errno;
		goto out;
	}
	m->s = m->eng->sched(m->e);
	m->seed = env->seed;
	m->qd = env->qd ? env->qd : m->prof->p.qd;
	*priv = m;
	ret = 0;
out:
	if (ret && m) {
		model_profile__free(m->prof);
		free(m);
	}
	return ret;
}

static int model_submit(void *priv, const struct target_cmd *cmd)
{
	struct model *m = priv;

	return m->eng->submit(m->e, cmd);
}

static int model_reap(void *priv, uint64_t until_ns, struct target_done *out)
{
	return msched__reap(((struct model *)priv)->s, until_ns, out);
}

static uint64_t model_next_done(void *priv)
{
	return msched__next(((struct model *)priv)->s);
}

static unsigned model_inflight(void *priv)
{
	return (unsigned)((struct model *)priv)->s->len;
}

static unsigned model_max_inflight(void *priv)
{
	return ((struct model *)priv)->qd;
}

static int model_report(void *priv, json_t *obj)
{
	struct model *m = priv;
	json_t *desc = model_profile__describe(m->prof);

	if (!desc)
		return -ENOMEM;
	json_object_set_new(obj, "profile", json_string(m->prof->name));
	json_object_set_new(obj, "model", json_string(model_profile__engine(m->prof)));
	json_object_set_new(obj, "source", json_string(m->prof->source));
	json_object_set_new(obj, "params", json_incref(json_object_get(desc, "params")));
	json_decref(desc);
	json_object_set_new(obj, "seed", json_integer((json_int_t)m->seed));
	json_object_set_new(obj, "device_busy_s", json_real((double)m->s->busy_ns / 1e9));
	json_object_set_new(obj, "last_completion_s", json_real((double)m->s->last_done / 1e9));
	return m->eng->report(m->e, obj);
}

static void model_prefetch(void *priv, uint64_t offset, uint64_t length)
{
	struct model *m = priv;

	if (m->eng->prefetch)
		m->eng->prefetch(m->e, offset, length);
}

static void model_close(void *priv)
{
	struct model *m = priv;

	if (!m)
		return;
	if (m->eng)
		m->eng->close(m->e);
	model_profile__free(m->prof);
	free(m);
}

const struct target_ops model_target_ops = {
	.name = "model",
	.help = "device model: model:PROFILE[:key=value,...], PROFILE a bundled name (trimsim models) "
		"or a .json path; e.g. model:sata-sf2281:trim_base=5ms",
	.opts = NULL,
	.realtime = false,
	.open = model_open,
	.submit = model_submit,
	.reap = model_reap,
	.next_done = model_next_done,
	.inflight = model_inflight,
	.max_inflight = model_max_inflight,
	.clock = NULL,
	.report = model_report,
	.close = model_close,
	.prefetch = model_prefetch,
};
