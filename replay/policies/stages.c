// SPDX-License-Identifier: GPL-2.0
/*
 * The stage registry and the stateless generic stages:
 * source, dispatch (pipeline properties), min, split, align (per-request filters).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/evq.h"
#include "replay/policies/stages.h"
#include "traces/util.h"

static const struct policy_stage_ops *const generic_stages[] = {
	&stage_source, &stage_dispatch, &stage_batch, &stage_sort, &stage_merge,
	&stage_min, &stage_split, &stage_align, &stage_delay, &stage_rate, &stage_chain,
};
#define N_GENERIC (sizeof(generic_stages) / sizeof(generic_stages[0]))

const struct policy_stage_ops *policy_stage_at(size_t i)
{
	if (i < N_GENERIC)
		return generic_stages[i];
	i -= N_GENERIC;
	for (size_t k = 0; policy_kernel_stages[k]; k++)
		if (k == i)
			return policy_kernel_stages[k];
	return NULL;
}

const struct policy_stage_ops *policy_stage_find(const char *name)
{
	const struct policy_stage_ops *o;

	for (size_t i = 0; (o = policy_stage_at(i)); i++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

const struct policy_preset *policy_preset_find(const char *name)
{
	for (const struct policy_preset *p = policy_presets; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}


/* ---- source(layer): which trace layer feeds the pipeline ---- */
static const char *const source_names[] = { "default", "none", "free", "intent", "bio", "issue", NULL };

const char *policy_source_name(enum policy_source s)
{
	return s <= PS_MAX ? source_names[s] : "?";
}

const char *policy_waiter_name(enum policy_waiter w)
{
	static const char *const names[] = { [PW_UNKNOWN] = "unknown", [PW_WORKLOAD] = "workload",
					     [PW_WORKER] = "worker" };

	return w <= PW_MAX ? names[w] : "?";
}

struct source_cfg { unsigned layer; };
static const struct opt_spec source_opts[] = {
	{ "layer", OPT_ENUM, offsetof(struct source_cfg, layer), 0, 0, "intent",
	  "trace layer: free (FREE records), intent (INTENT), bio (discard BIO), issue (discard ISSUE), "
	  "none (never discard)", source_names + 1 },
	{ NULL },
};

static int source_init(void *priv, const struct policy_env *env, struct policy_props *props,
		       char *err, size_t errlen)
{
	(void)env, (void)err, (void)errlen;
	props->source = (enum policy_source)(((const struct source_cfg *)priv)->layer + 1);
	return 0;
}

const struct policy_stage_ops stage_source = {
	.name = "source", .help = "choose the trace layer that feeds the pipeline",
	.opts = source_opts, .cfg_size = sizeof(struct source_cfg), .positional = "layer",
	.state_size = sizeof(struct source_cfg), .init = source_init, .push = policy_out__pass,
};

/* ---- dispatch(qd): queue depth the pipeline's output is sent at ---- */
struct dispatch_cfg { uint32_t qd; };
static const struct opt_spec dispatch_opts[] = {
	{ "qd", OPT_U32, offsetof(struct dispatch_cfg, qd), 0, 65536, "0",
	  "discard commands in flight: 1 = serial (next waits for the previous), 0 = the target's maximum" },
	{ NULL },
};

static int dispatch_init(void *priv, const struct policy_env *env, struct policy_props *props,
			 char *err, size_t errlen)
{
	(void)env, (void)err, (void)errlen;
	props->qd = ((const struct dispatch_cfg *)priv)->qd;
	props->qd_set = true;
	return 0;
}

const struct policy_stage_ops stage_dispatch = {
	.name = "dispatch", .help = "set the dispatch queue depth for discard commands",
	.opts = dispatch_opts, .cfg_size = sizeof(struct dispatch_cfg), .positional = "qd",
	.state_size = sizeof(struct dispatch_cfg), .init = dispatch_init, .push = policy_out__pass,
};

/* Emits e with the n ranges a filter kept in segs as its ranges (nothing if none is left). */
static int emit_kept(struct policy_out *out, struct policy_event *e, struct target_seg *segs, uint32_t n)
{
	if (!n)
		return 0;
	e->offset = segs[0].offset;
	e->length = segs[0].length;
	e->nr_segs = n > 1 ? n : 0;
	e->segs = n > 1 ? segs : NULL;
	return policy_out__emit(out, e);
}

/* ---- min(len): drop ranges shorter than len (FITRIM minlen, ext4 -o discard ignores none) ---- */
struct min_state { uint64_t len; uint64_t dropped, dropped_bytes; struct target_seg *segs; size_t cap; };
static const struct opt_spec min_opts[] = {
	{ "len", OPT_BYTES, offsetof(struct min_state, len), 0, 0, "64K",
	  "ranges shorter than this are not discarded" },
	{ NULL },
};

/* Emits ev with only the ranges of at least len bytes (multi-range: filtered per range). */
static int min_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct min_state *s = priv;
	struct policy_event e = *ev;
	uint32_t n = 0;
	int ret;

	if (ev->nr_segs <= 1) {
		if (ev->length >= s->len)
			return policy_out__emit(out, ev);
		s->dropped++;
		s->dropped_bytes += ev->length;
		return 0;
	}
	if ((ret = grow_array((void **)&s->segs, &s->cap, ev->nr_segs, sizeof(*s->segs))))
		return ret;
	e.bytes = 0;
	for (uint32_t i = 0; i < ev->nr_segs; i++) {
		if (ev->segs[i].length < s->len) {
			s->dropped++;
			s->dropped_bytes += ev->segs[i].length;
			continue;
		}
		s->segs[n++] = ev->segs[i];
		e.bytes += ev->segs[i].length;
	}
	return emit_kept(out, &e, s->segs, n);
}

static const struct policy_stat min_stats[] = {
	POLICY_STAT(struct min_state, dropped, "dropped"),
	POLICY_STAT(struct min_state, dropped_bytes, "dropped_bytes"),
	{ NULL },
};

static void min_destroy(void *priv)
{
	free(((struct min_state *)priv)->segs);
}

const struct policy_stage_ops stage_min = {
	.name = "min", .help = "drop ranges shorter than len (like FITRIM's minlen)",
	.opts = min_opts, .cfg_size = sizeof(struct min_state), .positional = "len",
	.state_size = sizeof(struct min_state), .push = min_push, .stats = min_stats, .destroy = min_destroy,
};

/* ---- split(max): no command larger than max bytes ---- */
struct split_state { uint64_t max; uint64_t splits; };
static const struct opt_spec split_opts[] = {
	{ "max", OPT_BYTES, offsetof(struct split_state, max), 0, 0, "0",
	  "largest command in bytes, at least 512 (a sector); 0 = the device's discard_max_bytes from the "
	  "trace header (none if unknown)" },
	{ NULL },
};

static int split_init(void *priv, const struct policy_env *env, struct policy_props *props,
		      char *err, size_t errlen)
{
	struct split_state *s = priv;

	(void)props;
	/* A discard is whole sectors (max_discard_sectors): a smaller piece is no command a kernel sends. */
	if (s->max && s->max < 512)
		return opts__below(split_opts, "max", s->max, 512, "a sector", err, errlen);
	if (!s->max)
		s->max = POLICY_ENV_DEV(env, discard_max_bytes, 0);
	return 0;
}

/*
 * Commands within max pass whole (multi-range included). Larger ones go out
 * range by range, each range cut into max-sized pieces, like the block layer's
 * bio_split_discard() (block/blk-merge.c) against max_discard_sectors.
 */
static int split_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct split_state *s = priv;

	uint64_t pieces = 0;
	int ret;

	if (!s->max || ev->bytes <= s->max)
		return policy_out__emit(out, ev);
	for (uint32_t i = 0; i < ev_nsegs(ev); i++)
		pieces += ev_seg(ev, i).length / s->max + 1;
	if ((ret = policy_out__pieces(out, pieces, "commands")))
		return ret;
	for (uint32_t i = 0; i < ev_nsegs(ev); i++) {
		struct target_seg g = ev_seg(ev, i);

		for (uint64_t off = 0, len; off < g.length; off += len) {
			struct policy_event e;

			len = g.length - off < s->max ? g.length - off : s->max;
			e = ev_single(ev, g.offset + off, len);

			e.count = (i == 0 && off == 0) ? ev->count : 0;
			if ((ret = policy_out__emit(out, &e)))
				return ret;
		}
	}
	s->splits++;
	return 0;
}

static const struct policy_stat split_stats[] = {
	POLICY_STAT(struct split_state, splits, "split_commands"),
	{ NULL },
};

const struct policy_stage_ops stage_split = {
	.name = "split", .help = "cut commands larger than max into pieces (block layer discard_max_bytes)",
	.opts = split_opts, .cfg_size = sizeof(struct split_state), .positional = "max",
	.state_size = sizeof(struct split_state), .init = split_init, .push = split_push, .stats = split_stats,
};

/* ---- align(granularity): shrink ranges inward to granularity boundaries ---- */
struct align_state { uint64_t gran; uint64_t trimmed_bytes, dropped; struct target_seg *segs; size_t cap; };
static const struct opt_spec align_opts[] = {
	{ "granularity", OPT_BYTES, offsetof(struct align_state, gran), 0, 1ull << 32, "0",
	  "alignment in bytes, up to 4G; 0 = the device's discard_granularity from the trace header (4K if unknown)" },
	{ NULL },
};

static int align_init(void *priv, const struct policy_env *env, struct policy_props *props,
		      char *err, size_t errlen)
{
	struct align_state *s = priv;

	(void)props, (void)err, (void)errlen;
	if (!s->gran)
		s->gran = POLICY_ENV_DEV(env, discard_granularity, 4096);
	return 0;
}

/* [off, off+len) shrunk to whole granules; false if nothing is left. */
static bool align_range(uint64_t gran, struct target_seg *g)
{
	uint64_t start = (g->offset + gran - 1) / gran * gran;
	uint64_t end = (g->offset + g->length) / gran * gran;

	if (end <= start)
		return false;
	g->offset = start;
	g->length = end - start;
	return true;
}

static int align_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct align_state *s = priv;
	struct policy_event e = *ev;
	uint32_t n = 0;
	int ret;

	if ((ret = grow_array((void **)&s->segs, &s->cap, ev_nsegs(ev), sizeof(*s->segs))))
		return ret;
	e.bytes = 0;
	for (uint32_t i = 0; i < ev_nsegs(ev); i++) {
		struct target_seg g = ev_seg(ev, i);

		if (!align_range(s->gran, &g)) {
			s->dropped++;
			s->trimmed_bytes += ev_seg(ev, i).length;
			continue;
		}
		s->trimmed_bytes += ev_seg(ev, i).length - g.length;
		s->segs[n++] = g;
		e.bytes += g.length;
	}
	return emit_kept(out, &e, s->segs, n);
}

static void align_destroy(void *priv)
{
	free(((struct align_state *)priv)->segs);
}

static const struct policy_stat align_stats[] = {
	POLICY_STAT(struct align_state, trimmed_bytes, "trimmed_bytes"),
	POLICY_STAT(struct align_state, dropped, "dropped"),
	{ NULL },
};

const struct policy_stage_ops stage_align = {
	.name = "align", .help = "shrink ranges inward to whole granules; drop what is left empty",
	.opts = align_opts, .cfg_size = sizeof(struct align_state), .positional = "granularity",
	.state_size = sizeof(struct align_state), .init = align_init, .push = align_push, .stats = align_stats,
	.destroy = align_destroy,
};
