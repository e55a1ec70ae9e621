// SPDX-License-Identifier: GPL-2.0
/* A policy pipeline: stages built from a parsed policy string, driven by the engine (policy.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/parse.h"
#include "traces/util.h"

struct policy_out {
	struct policy *p;
	size_t next;		/* index of the stage that receives; == n: the sink */
	size_t from;		/* 1 + index of the stage that emits; 0: the source layer */
};

struct stage {
	const struct policy_stage_ops *ops;
	void *cfg;
	void *priv;
	struct policy_out out;
};

struct policy {
	struct stage *st;
	size_t n;
	struct policy_props props;
	struct policy_env env;
	struct ts_device dev;
	policy_sink_fn sink;
	void *sink_arg;
	char *desc;
	uint64_t now;
	uint32_t observe_mask;	/* kinds (1u << kind) some stage observes; ~0: every kind */
	uint64_t observers[32];	/* per kind below 32: bit i, stage i observes it (pipelines of <= 64 stages) */
	uint32_t observed_ops[32];	/* per kind below 32: the ops (1u << op) some stage observes it for */
	bool observe_all;	/* TRIMSIM_OBSERVE_ALL set: ignore observe_kinds (the test that checks them) */
	bool completes;		/* some stage has complete() */
	bool timers;		/* some stage has next_deadline() (none: no deadline, ever) */
	bool dl_ok;		/* dl is the earliest stage deadline (stage state only changes in hooks) */
	size_t first;		/* the first stage that is not pass-only (link_over_passes()); n: none */
	uint64_t dl;
	uint64_t sent, done;	/* discard commands sent to the sink, and completions told */
	char err[512];
};

static int fail(struct policy *p, const struct stage *s, int ret, const char *what)
{
	if (!p->err[0])
		snprintf(p->err, sizeof(p->err), "policy stage '%s': %s failed: %s",
			 s ? s->ops->name : "?", what, strerror(-ret));
	return ret;
}

int policy_out__emit(struct policy_out *out, const struct policy_event *ev)
{
	struct policy *p = out->p;
	struct stage *s;
	int ret;

	if (ev->time_ns < p->now) {
		snprintf(p->err, sizeof(p->err),
			 "policy: stage '%s' emitted a request at %" PRIu64 " ns, before now (%" PRIu64 " ns)",
			 out->from ? p->st[out->from - 1].ops->name : "source", ev->time_ns, p->now);
		return -EINVAL;
	}
	if (out->next == p->n) {
		p->sent++;
		return p->sink(p->sink_arg, ev);
	}
	s = &p->st[out->next];
	ret = s->ops->push(s->priv, ev, &s->out);
	return ret < 0 ? fail(p, s, ret, "push") : ret;
}

uint64_t policy_out__inflight(const struct policy_out *out)
{
	return out->p->sent - out->p->done;
}

int policy_out__pass(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	(void)priv;
	return policy_out__emit(out, ev);
}

/* A stage that only passes events on (policy_out__pass() and no other hook but init and report). */
static bool passes_only(const struct policy_stage_ops *o)
{
	return o->push == policy_out__pass && !o->observe && !o->tick && !o->next_deadline && !o->flush &&
	       !o->complete;
}

/* Links every output over the pass-only stages after it: their push would only forward. */
static void link_over_passes(struct policy *p)
{
	size_t next = p->n;

	for (size_t i = p->n; i-- > 0;) {
		p->st[i].out.next = next;
		if (!passes_only(p->st[i].ops))
			next = i;
	}
	p->first = next;
}

int policy_out__pieces(struct policy_out *out, uint64_t n, const char *what)
{
	struct policy *p = out->p;

	if (n <= TS_MAX_PIECES)
		return 0;
	if (!p->err[0])
		snprintf(p->err, sizeof(p->err), "policy stage '%s': one request would become %" PRIu64 " %s; "
			 "the bound is %u per request (TS_MAX_PIECES)", out->from ? p->st[out->from - 1].ops->name
			 : "source", n, what, TS_MAX_PIECES);
	return -E2BIG;
}

/* ---- describe: the canonical pipeline text ---- */
static int build_desc(struct policy *p)
{
	size_t cap = 256, used = 0;
	char *d = malloc(cap), val[96];

	if (!d)
		return -ENOMEM;
	d[0] = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct opt_spec *o = p->st[i].ops->opts;
		char part[1024];
		size_t pl;

		pl = (size_t)snprintf(part, sizeof(part), "%s%s", i ? " | " : "", p->st[i].ops->name);
		for (size_t k = 0; o && o[k].key && pl < sizeof(part); k++) {
			opts__format(&o[k], p->st[i].cfg, false, val, sizeof(val));
			pl += (size_t)snprintf(part + pl, sizeof(part) - pl, "%s%s=%s", k ? "," : "(", o[k].key, val);
			if (!o[k + 1].key && pl < sizeof(part))
				pl += (size_t)snprintf(part + pl, sizeof(part) - pl, ")");
		}
		if (pl >= sizeof(part))
			pl = sizeof(part) - 1;
		if (grow_array((void **)&d, &cap, used + pl + 1, 1)) {
			free(d);
			return -ENOMEM;
		}
		memcpy(d + used, part, pl + 1);
		used += pl;
	}
	p->desc = d;
	return 0;
}

/* A stage's state_size zeroed bytes that begin with a copy of its config, into *priv. */
static int new_state(const struct policy_stage_ops *o, const void *cfg, void **priv)
{
	void *s = calloc(1, o->state_size);

	if (!s)
		return -ENOMEM;
	if (o->cfg_size)
		memcpy(s, cfg, o->cfg_size);
	*priv = s;
	return 0;
}

struct policy *policy__new(const char *spec, const struct policy_env *env,
			   policy_sink_fn sink, void *sink_arg, char *err, size_t errlen)
{
	struct parsed ps;
	struct policy *p = NULL;
	int ret;

	if (err && errlen)
		err[0] = 0;	/* what a failure wrote, told apart from what it did not */
	ret = policy_parse(spec, &ps, err, errlen);
	if (ret)
		goto out;
	ret = -ENOMEM;
	if (!(p = calloc(1, sizeof(*p))) || !(p->st = calloc(ps.n ? ps.n : 1, sizeof(*p->st))))
		goto out;
	if (env) {
		p->env = *env;
		if (env->dev) {
			p->dev = *env->dev;
			p->env.dev = &p->dev;
		}
	}
	p->sink = sink;
	p->sink_arg = sink_arg;
	/*
	 * Every stage sees every record and the engine skips none: the results must not
	 * change (tests/replay/test_observe_kinds.c), which proves each observe_kinds mask
	 * lists every kind its observe() reads.
	 */
	p->observe_all = getenv("TRIMSIM_OBSERVE_ALL") != NULL;
	for (size_t i = 0; i < ps.n; i++) {
		struct stage *s = &p->st[i];
		char msg[400] = "";

		s->ops = ps.st[i].ops;
		s->cfg = ps.st[i].cfg;
		ps.st[i].cfg = NULL;
		s->out = (struct policy_out){ p, i + 1, i + 1 };
		p->n = i + 1;
		if (s->ops->observe) {
			uint32_t kinds = s->ops->observe_kinds && !p->observe_all ? s->ops->observe_kinds : ~0u;
			uint32_t ops = s->ops->observe_ops && !p->observe_all ? s->ops->observe_ops : ~0u;

			p->observe_mask |= kinds;
			for (unsigned k = 0; k < 32; k++)
				if (kinds >> k & 1)
					p->observed_ops[k] |= ops;
			for (unsigned k = 0; i < 64 && k < 32; k++)
				p->observers[k] |= (uint64_t)(kinds >> k & 1) << i;
		}
		p->completes |= s->ops->complete != NULL;
		p->timers |= s->ops->next_deadline != NULL;
		ret = s->ops->state_size ? new_state(s->ops, s->cfg, &s->priv) : 0;
		if (!ret && s->ops->init)
			ret = s->ops->init(s->priv, &p->env, &p->props, msg, sizeof(msg));
		if (ret) {
			snprintf(err, errlen, "policy: stage '%s': %s", s->ops->name,
				 msg[0] ? msg : strerror(-ret));
			goto out;
		}
	}
	if (p->props.source == PS_DEFAULT)
		p->props.source = PS_INTENT;
	if (p->props.waiter == PW_UNKNOWN)
		p->props.waiter = ps.waiter;
	link_over_passes(p);
	ret = build_desc(p);
out:
	parsed_free(&ps);
	if (ret) {
		if (ret == -ENOMEM && err && errlen && !err[0])
			snprintf(err, errlen, "policy: out of memory");
		policy__destroy(p);
		errno = -ret;
		return NULL;
	}
	return p;
}

const struct policy_props *policy__props(const struct policy *p)
{
	return &p->props;
}

const char *policy__describe(const struct policy *p)
{
	return p->desc;
}

const char *policy__error(const struct policy *p)
{
	return p->err[0] ? p->err : "policy: unknown error";
}

/* The earliest stage deadline, asked of the stages (dl_ok false). */
static __attribute__((noinline)) uint64_t deadline_scan(struct policy *p)
{
	uint64_t d = UINT64_MAX;

	for (size_t i = 0; i < p->n; i++) {
		const struct stage *s = &p->st[i];

		if (s->ops->next_deadline) {
			uint64_t t = s->ops->next_deadline(s->priv);

			d = t < d ? t : d;
		}
	}
	p->dl = d;
	p->dl_ok = true;
	return d;
}

/* Inline in the hooks that ask per record: a pipeline without timers asks no stage (as-recorded). */
static inline uint64_t deadline(struct policy *p)
{
	if (!p->timers)
		return UINT64_MAX;
	return p->dl_ok ? p->dl : deadline_scan(p);
}

uint64_t policy__next_deadline(struct policy *p)
{
	return deadline(p);
}

bool policy__has_timers(const struct policy *p)
{
	return p->timers;
}

bool policy__waits(struct policy *p)
{
	for (size_t i = 0; p->completes && i < p->n; i++)
		if (p->st[i].ops->waits && p->st[i].ops->waits(p->st[i].priv))
			return true;
	return false;
}

bool policy__completes(const struct policy *p)
{
	return p->completes || p->observe_all;
}

uint32_t policy__observed_kinds(const struct policy *p)
{
	return p->observe_all ? ~0u : p->observe_mask;
}

static int advance_due(struct policy *p, uint64_t now);

/* Inline in policy__record(): most records find no timer due (a pipeline without timers, none ever). */
static inline int advance(struct policy *p, uint64_t now)
{
	return deadline(p) > now ? 0 : advance_due(p, now);
}

int policy__advance(struct policy *p, uint64_t now)
{
	return advance(p, now);
}

static int advance_due(struct policy *p, uint64_t now)
{
	for (;;) {
		struct stage *first = NULL;
		uint64_t best = UINT64_MAX;
		int ret;

		for (size_t i = 0; i < p->n; i++) {
			struct stage *s = &p->st[i];
			uint64_t t;

			if (!s->ops->next_deadline || !s->ops->tick)
				continue;
			t = s->ops->next_deadline(s->priv);
			if (t < best) {
				best = t;
				first = s;
			}
		}
		if (!first || best > now)
			return 0;
		if (best > p->now)
			p->now = best;
		p->dl_ok = false;
		ret = first->ops->tick(first->priv, p->now, &first->out);
		if (ret < 0)
			return fail(p, first, ret, "tick");
		if (first->ops->next_deadline(first->priv) == best) {
			snprintf(p->err, sizeof(p->err), "policy stage '%s': tick did not move its deadline",
				 first->ops->name);
			return -EINVAL;
		}
	}
}

static inline __attribute__((always_inline)) bool is_source(enum policy_source src, const struct ts_record *r)
{
	if (!r->length)
		return false;
	switch (src) {
	case PS_FREE: return r->kind == TS_FREE;
	case PS_DEFAULT:
	case PS_INTENT: return r->kind == TS_INTENT;
	case PS_BIO: return r->kind == TS_BIO && (r->op == TS_OP_DISCARD || r->op == TS_OP_NONE);
	case PS_ISSUE: return r->kind == TS_ISSUE && r->op == TS_OP_DISCARD;
	default: return false;
	}
}

/* The record kind a source layer reads, 0 for none. */
static uint8_t source_kind(enum policy_source src)
{
	switch (src) {
	case PS_FREE: return TS_FREE;
	case PS_DEFAULT:
	case PS_INTENT: return TS_INTENT;
	case PS_BIO: return TS_BIO;
	case PS_ISSUE: return TS_ISSUE;
	default: return 0;
	}
}

/* A filesystem whose frees the recorder (ext4, xfs tracepoints) or an importer (UFS by DTrace) records. */
static bool fs_has_events(const char *fs)
{
	int f = ts_fs_from_name(fs);

	return f == TS_FS_EXT4 || f == TS_FS_XFS || f == TS_FS_UFS;
}

bool policy_source_missing(const struct policy_props *props, const struct policy_input_counts *c,
			   const struct ts_device *dev, char *why, size_t len)
{
	uint8_t k = source_kind(props->source);
	bool fs_level = k == TS_FREE || k == TS_INTENT;

	if (len)
		why[0] = 0;
	if (!k || c->kind[k] || (props->snapshot && c->freespace))
		return false;
	if (fs_level && !c->kind[TS_FREE] && !c->kind[TS_INTENT] && dev && dev->fs[0]) {
		char fs[64];

		if (fs_has_events(dev->fs))
			snprintf(why, len, "trace has no %s records: none of its %s's fs-level events were "
				 "recorded (a block-layer import, a recording cut short, or nothing freed)",
				 ts_kind_name(k), ts_escape(dev->fs, fs, sizeof(fs)));
		else
			snprintf(why, len, "trace has no %s records: %s has no fs-level events", ts_kind_name(k),
				 ts_escape(dev->fs, fs, sizeof(fs)));
	} else {
		snprintf(why, len, "trace has no %s records", ts_kind_name(k));
	}
	return true;
}

static bool kind_in(uint32_t mask, uint8_t kind)
{
	return kind < 32 ? (mask >> kind) & 1 : mask != 0;
}

static inline bool wants(const struct policy *p, const struct ts_record *rec)
{
	return p->observe_all ||
	       (kind_in(p->observe_mask, rec->kind) && (rec->kind >= 32 || rec->op >= 32 ||
							p->observed_ops[rec->kind] >> rec->op & 1)) ||
	       is_source(p->props.source, rec);
}

bool policy__wants(const struct policy *p, const struct ts_record *rec)
{
	return wants(p, rec);
}

bool policy__quiet(struct policy *p)
{
	return !p->completes && deadline(p) == UINT64_MAX;
}

uint32_t policy__wanted_kinds(const struct policy *p)
{
	uint8_t k = source_kind(p->props.source);

	return p->observe_mask | (k < 32 ? 1u << k : 0);
}

int policy__record(struct policy *p, const struct ts_record *rec)
{
	struct policy_event ev;
	struct ts_record late;
	uint64_t traced = rec->time_ns;
	int ret;

	if (p->env.devno && rec->dev != p->env.devno)
		return 0;
	if ((ret = advance(p, rec->time_ns > p->now ? rec->time_ns : p->now)))
		return ret;
	if (rec->time_ns < p->now) {
		/*
		 * A real-time target's completion moved now past this record's trace
		 * time: the engine reached the record late, and the stages get it now
		 * (policy.h, "Time"). The trace time stays in the source event's freed_ns.
		 */
		late = *rec;
		late.time_ns = p->now;
		rec = &late;
	}
	p->now = rec->time_ns;
	if (!wants(p, rec))
		return 0;
	p->dl_ok = false;
	if (p->n <= 64 && rec->kind < 32) {	/* the stages that observe this kind, in order */
		for (uint64_t m = p->observers[rec->kind]; m; m &= m - 1) {
			struct stage *s = &p->st[__builtin_ctzll(m)];

			if ((ret = s->ops->observe(s->priv, rec, &s->out)) < 0)
				return fail(p, s, ret, "observe");
		}
	} else {
		for (size_t i = 0; i < p->n; i++) {
			struct stage *s = &p->st[i];

			if (s->ops->observe &&
			    kind_in(s->ops->observe_kinds && !p->observe_all ? s->ops->observe_kinds : ~0u,
				    rec->kind) &&
			    (ret = s->ops->observe(s->priv, rec, &s->out)) < 0)
				return fail(p, s, ret, "observe");
		}
	}
	if (!is_source(p->props.source, rec))
		return 0;
	ev = (struct policy_event){
		.time_ns = p->now, .offset = rec->offset, .length = rec->length, .ino = rec->ino,
		.freed_ns = traced, .bytes = rec->length, .count = 1, .dev = rec->dev,
		.flags = (uint16_t)(rec->flags | (ts_free_is_prealloc(rec, p->env.legacy_prealloc) ? TS_F_PREALLOC : 0)),
		.src_kind = rec->kind,
	};
	{
		struct policy_out head = { p, p->first, 0 };

		return policy_out__emit(&head, &ev);
	}
}

int policy__flush(struct policy *p, uint64_t now)
{
	int ret;

	if (now < p->now)	/* the end of the trace came while a real-time target ran late */
		now = p->now;
	if ((ret = policy__advance(p, now)))
		return ret;
	p->now = now;
	p->dl_ok = false;
	for (size_t i = 0; i < p->n; i++) {
		struct stage *s = &p->st[i];

		if (s->ops->flush && (ret = s->ops->flush(s->priv, p->now, &s->out)) < 0)
			return fail(p, s, ret, "flush");
	}
	return 0;
}

int policy__complete(struct policy *p, const struct policy_done *d)
{
	struct policy_done at = *d;
	int ret;

	/* Reaped after something later (a real-time target's clock): it reaches the stages now. */
	if (at.done_ns < p->now)
		at.done_ns = p->now;
	p->now = at.done_ns;
	p->done++;
	if (!p->completes)
		return 0;
	p->dl_ok = false;
	for (size_t i = 0; i < p->n; i++) {
		struct stage *s = &p->st[i];

		if (s->ops->complete && (ret = s->ops->complete(s->priv, &at, &s->out)) < 0)
			return fail(p, s, ret, "complete");
	}
	return 0;
}

static json_t *stat_json(const void *priv, const struct policy_stat *k)
{
	const char *f = (const char *)priv + k->off;

	switch (k->type) {
	case PSTAT_U32:
		return json_integer(*(const uint32_t *)f);
	case PSTAT_BOOL:
		return json_boolean(*(const bool *)f);
	default:
		return json_integer((json_int_t)*(const uint64_t *)f);
	}
}

json_t *policy__report(const struct policy *p)
{
	json_t *o = json_object(), *arr = json_array();

	if (!o || !arr) {
		json_decref(o);
		json_decref(arr);
		return NULL;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct stage *s = &p->st[i];
		json_t *so = s->ops->opts ? opts__to_json(s->ops->opts, s->cfg) : json_object();
		json_t *st = json_object();

		json_object_set_new(st, "name", json_string(s->ops->name));
		json_object_set_new(st, "options", so ? so : json_object());
		for (const struct policy_stat *k = s->ops->stats; k && k->key; k++)
			json_object_set_new(st, k->key, stat_json(s->priv, k));
		if (s->ops->report)
			s->ops->report(s->priv, st);
		json_array_append_new(arr, st);
	}
	json_object_set_new(o, "pipeline", json_string(p->desc ? p->desc : ""));
	json_object_set_new(o, "source", json_string(policy_source_name(p->props.source)));
	json_object_set_new(o, "qd", json_integer(p->props.qd));
	json_object_set_new(o, "waiter", json_string(policy_waiter_name(p->props.waiter)));
	json_object_set_new(o, "stages", arr);
	return o;
}

void policy__destroy(struct policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		if (p->st[i].priv && p->st[i].ops->destroy)
			p->st[i].ops->destroy(p->st[i].priv);
		free(p->st[i].priv);
		free(p->st[i].cfg);
	}
	free(p->st);
	free(p->desc);
	free(p);
}

static int null_sink(void *arg, const struct policy_event *ev)
{
	(void)arg, (void)ev;
	return 0;
}

int policy_registry_validate(char *err, size_t errlen)
{
	const struct policy_stage_ops *o;
	char msg[1024];

	for (size_t i = 0; (o = policy_stage_at(i)); i++) {
		if (!o->name || !o->push || (!o->init && !o->state_size) || (o->opts && !o->cfg_size) ||
		    (o->state_size && o->state_size < o->cfg_size) ||
		    (!o->tick != !o->next_deadline))
			return snprintf(err, errlen, "stage %zu ('%s'): incomplete ops table", i,
					o->name ? o->name : "?"), -EINVAL;
		if (opts__validate(o->opts, msg, sizeof(msg)))
			return snprintf(err, errlen, "stage '%s': %s", o->name, msg), -EINVAL;
		if (o->positional && !opts__find(o->opts, o->positional))
			return snprintf(err, errlen, "stage '%s': positional '%s' is not an option", o->name,
					o->positional), -EINVAL;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(policy_stage_at(k)->name, o->name))
				return snprintf(err, errlen, "stage '%s' registered twice", o->name), -EINVAL;
	}
	for (const struct policy_preset *pr = policy_presets; pr->name; pr++) {
		struct policy *p = policy__new(pr->name, NULL, null_sink, NULL, msg, sizeof(msg));

		if (!p || policy_preset_check(pr, msg, sizeof(msg)))
			return policy__destroy(p), snprintf(err, errlen, "preset '%s': %s", pr->name, msg), -EINVAL;
		policy__destroy(p);
		if (policy_stage_find(pr->name))
			return snprintf(err, errlen, "preset '%s' has the name of a stage", pr->name), -EINVAL;
	}
	return 0;
}
