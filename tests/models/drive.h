/* SPDX-License-Identifier: GPL-2.0 */
/* Drives the model target's ops directly, as the replay engine will. */
#ifndef TRIMSIM_TEST_MODELS_DRIVE_H
#define TRIMSIM_TEST_MODELS_DRIVE_H

#include <criterion/criterion.h>
#include <string.h>

#include "models/model.h"
#include "traces/trace.h"

struct drv {
	const struct target_ops *ops;
	void *priv;
	uint64_t now;
	uint64_t tag;
	struct target_done stash[64];	/* reaped while waiting for another tag */
	unsigned nstash;
};

static inline void drv_open_env(struct drv *d, const char *spec, const struct target_env *env)
{
	char err[512] = "";
	int ret;

	memset(d, 0, sizeof(*d));
	d->ops = &model_target_ops;
	ret = d->ops->open(spec, env, &d->priv, err, sizeof(err));
	cr_assert_eq(ret, 0, "open %s: %s", spec, err);
}

static inline void drv_open(struct drv *d, const char *spec, uint64_t seed)
{
	struct target_env env = { .seed = seed };

	drv_open_env(d, spec, &env);
}

static inline void drv_close(struct drv *d)
{
	d->ops->close(d->priv);
	d->priv = NULL;
}

static inline void drv_submit(struct drv *d, uint64_t at, uint8_t op, uint64_t off, uint64_t len,
			      const struct target_seg *segs, uint32_t nsegs)
{
	struct target_cmd c = { .tag = ++d->tag, .submit_ns = at, .offset = off, .length = len, .segs = segs,
				.nr_segs = nsegs, .op = op,
				.klass = op == TS_OP_DISCARD ? TC_DISCARD : TC_FOREGROUND };

	cr_assert_eq(d->ops->submit(d->priv, &c), 0, "submit tag %llu", (unsigned long long)c.tag);
}

/* Reaps the completion with this tag, keeping others for later waits. */
static inline struct target_done drv_wait(struct drv *d, uint64_t tag)
{
	struct target_done done;

	for (unsigned i = 0; i < d->nstash; i++) {
		if (d->stash[i].tag == tag) {
			done = d->stash[i];
			d->stash[i] = d->stash[--d->nstash];
			return done;
		}
	}
	for (;;) {
		uint64_t t = d->ops->next_done(d->priv);

		cr_assert_neq(t, UINT64_MAX, "tag %llu never completed", (unsigned long long)tag);
		cr_assert_eq(d->ops->reap(d->priv, t, &done), 1);
		if (done.tag == tag)
			return done;
		if (d->nstash < sizeof(d->stash) / sizeof(d->stash[0]))
			d->stash[d->nstash++] = done;
	}
}

/* QD1 serial: submitted when the previous one completes (blkdev_issue_discard() waits). */
static inline struct target_done drv_serial(struct drv *d, uint8_t op, uint64_t off, uint64_t len)
{
	struct target_done done;

	drv_submit(d, d->now, op, off, len, NULL, 0);
	done = drv_wait(d, d->tag);
	d->now = done.done_ns;
	return done;
}

static inline json_t *drv_report(struct drv *d)
{
	json_t *o = json_object();

	cr_assert_not_null(o);
	cr_assert_eq(d->ops->report(d->priv, o), 0);
	return o;
}

static inline double jnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	cr_assert(json_is_number(v), "report has no number '%s'", key);
	return json_number_value(v);
}

#endif
