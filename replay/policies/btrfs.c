// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs-async: btrfs -o discard=async (default on SSDs since Linux 6.2),
 * Linux 6.12, fs/btrfs/discard.c and fs/btrfs/free-space-cache.c.
 *
 * - Freed space joins its block group's free-space cache untrimmed
 *   (btrfs_add_free_space()); it coalesces with untrimmed neighbours and
 *   absorbs trimmed ones, which become untrimmed again ("overtrimming").
 * - btrfs_discard_queue_work() / __add_to_discard_list(): a block group put on
 *   a discard list becomes eligible BTRFS_DISCARD_DELAY (120 s) later; while
 *   listed it only moves to the tail (LRU). A group with nothing used goes to
 *   list 0 with BTRFS_DISCARD_UNUSED_DELAY (10 s), add_to_discard_unused_list().
 * - Lists 1 and 2 have size filters discard_minlen[] = {0, 1 MiB, 32 KiB};
 *   btrfs_discard_check_filter() moves a group on list 2 back to list 1 when a
 *   coalesced free region reaches 1 MiB.
 * - btrfs_discard_workfn() -> peek_discard_list() -> find_next_block_group():
 *   each run discards ONE untrimmed extent >= the list's filter at or after
 *   the group's cursor (trim_no_bitmap(async)), at most max_discard_size
 *   (64 MiB) unless the rest would be under 32 KiB; at the end of the group
 *   the bitmap pass (none here) and btrfs_finish_discard_pass():
 *   btrfs_update_discard_index() requeues it on the next list (eligible 120 s
 *   later again) or drops it after the last list.
 * - __btrfs_discard_schedule_work(): the next run after
 *   max(1000 ms / iops_limit clamped to [1, 1000] ms (btrfs_discard_calc_delay()),
 *   last bytes / kbps_limit, time until the group is eligible).
 * - do_trimming() discards synchronously: dispatch at qd=1.
 * Block groups are bgsize slices of the device from offset 0; free space
 * before the recording comes from the start snapshot (untrimmed, not queued:
 * btrfs loads every group as untrimmed at mount).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/gmap.h"
#include "replay/policies/ivset.h"
#include "replay/policies/kstages.h"
#include "traces/util.h"

#define BTRFS_NR_LISTS		3
#define BTRFS_MAX_FILTER	(1ull << 20)	/* BTRFS_ASYNC_DISCARD_MAX_FILTER */
#define BTRFS_MIN_FILTER	(32ull << 10)	/* BTRFS_ASYNC_DISCARD_MIN_FILTER */
static const uint64_t discard_minlen[BTRFS_NR_LISTS] = { 0, BTRFS_MAX_FILTER, BTRFS_MIN_FILTER };

struct btrfs_cfg {
	uint64_t delay;
	uint64_t unused_delay;
	uint32_t iops_limit;
	uint32_t kbps_limit;
	uint64_t max_discard_size;
	uint64_t bgsize;
	bool drain;
};

static const struct opt_spec btrfs_opts[] = {
	{ "delay", OPT_DURATION, offsetof(struct btrfs_cfg, delay), 0, 86400e9, "120s",
	  "BTRFS_DISCARD_DELAY: a queued block group waits this long before its first discard" },
	{ "unused_delay", OPT_DURATION, offsetof(struct btrfs_cfg, unused_delay), 0, 86400e9, "10s",
	  "BTRFS_DISCARD_UNUSED_DELAY: the same for a block group with nothing allocated" },
	{ "iops_limit", OPT_U32, offsetof(struct btrfs_cfg, iops_limit), 0, 1e6, "1000",
	  "sysfs discard/iops_limit: discards per second (0 = no limit)" },
	{ "kbps_limit", OPT_U32, offsetof(struct btrfs_cfg, kbps_limit), 0, 4e9, "0",
	  "sysfs discard/kbps_limit: KiB/s (0 = no limit)" },
	{ "max_discard_size", OPT_BYTES, offsetof(struct btrfs_cfg, max_discard_size), 0, 1ull << 40, "64M",
	  "sysfs discard/max_discard_size: largest single discard, 4K..1T (0 = no limit)" },
	{ "bgsize", OPT_BYTES, offsetof(struct btrfs_cfg, bgsize), 1 << 20, 1e15, "1G",
	  "data block group size" },
	{ "drain", OPT_BOOL, offsetof(struct btrfs_cfg, drain), 0, 1, "1",
	  "at the end of the trace the discard work runs on (the system stays up) until nothing is queued; "
	  "0: stop, as an unmount would (btrfs_discard_cleanup())" },
	{ NULL },
};

enum { BG_RESET = 0, BG_EXTENTS, BG_BITMAPS };

enum { SET_UNTRIMMED = 0, SET_TRIMMED };

/*
 * A block group. free[] counts the bytes of each set inside the group (its
 * part of the device), kept up to date by every change to the sets, so
 * bg_used() costs O(1). A listed group is linked (prev/next: index + 1,
 * 0 = none) on the discard list it is on, in LRU order: the head of each
 * list is the least recently queued group, as in fs/btrfs/discard.c's
 * discard_list[] (list_move_tail() in __add_to_discard_list()).
 */
struct bg {
	uint64_t gno;		/* block group number: [gno * bgsize, (gno + 1) * bgsize) */
	uint64_t eligible, cursor;
	uint64_t free[2];
	uint32_t prev, next;
	uint8_t index, state;
	uint8_t on;	/* list linked on + 1, 0 = none */
	bool listed;
};

struct btrfs_state {
	struct btrfs_cfg cfg;
	struct ivset *untrimmed, *trimmed;	/* the free-space cache; val = freed_ns */
	struct ivset *set[2];			/* the same two, by SET_* */
	struct bg *bg;		/* the groups frees touched, in the order they were first touched */
	struct gmap byno;	/* group number -> index into bg */
	size_t nbg, capbg;
	uint32_t head[BTRFS_NR_LISTS], tail[BTRFS_NR_LISTS];
	uint64_t devsize, work_at, prev_bytes, base_delay;
	uint32_t dev;
	uint16_t flags;
	uint64_t frees, runs, discards, bytes, passes, prealloc;
};

static void btrfs_destroy(void *priv)
{
	struct btrfs_state *s = priv;

	ivset__destroy(s->untrimmed);
	ivset__destroy(s->trimmed);
	free(s->bg);
	gmap__fini(&s->byno);
}

static int btrfs_init(void *priv, const struct policy_env *env, struct policy_props *props,
		      char *err, size_t errlen)
{
	struct btrfs_state *s = priv;

	/* A discard of less than a sector (btrfs's sectorsize is at least 4 KiB) is none the fs sends. */
	if (s->cfg.max_discard_size && s->cfg.max_discard_size < 4096)
		return opts__below(btrfs_opts, "max_discard_size", s->cfg.max_discard_size, 4096,
				   "btrfs's least sectorsize", err, errlen);
	if (!(s->untrimmed = ivset__new(true)) || !(s->trimmed = ivset__new(true)))
		return -ENOMEM;
	s->set[SET_UNTRIMMED] = s->untrimmed;
	s->set[SET_TRIMMED] = s->trimmed;
	s->devsize = POLICY_ENV_DEV(env, size, 0);
	s->dev = env->devno;
	s->work_at = UINT64_MAX;
	/* btrfs_discard_calc_delay() */
	if (s->cfg.iops_limit) {
		uint64_t ms = 1000 / s->cfg.iops_limit;

		s->base_delay = (ms < 1 ? 1 : ms > 1000 ? 1000 : ms) * 1000000ull;
	}
	props->source = PS_FREE;
	props->waiter = PW_WORKER;	/* btrfs_discard_workfn(), a delayed work item */
	return 0;
}

static uint64_t bg_start(const struct btrfs_state *s, size_t i)
{
	return s->bg[i].gno * s->cfg.bgsize;	/* gno = offset / bgsize for an offset < 2^63: no wrap */
}

static uint64_t bg_end(const struct btrfs_state *s, size_t i)
{
	uint64_t e = bg_start(s, i) + s->cfg.bgsize;

	return s->devsize && e > s->devsize ? s->devsize : e;
}

/* The part of [a, e) inside group i (empty for a group past the end of the device). */
static uint64_t bg_clip(const struct btrfs_state *s, size_t i, uint64_t *a, uint64_t *e)
{
	uint64_t b0 = bg_start(s, i), b1 = bg_end(s, i);

	*a = *a > b0 ? *a : b0;
	*e = *e < b1 ? *e : b1;
	return *e > *a ? *e - *a : 0;
}

/*
 * The block group numbered gno, set up on first use with the free space the
 * sets already hold inside it. Only groups frees touch exist (gmap.h): an
 * offset far out on a large (or unknown-size) device costs one group, not an
 * array up to it.
 */
static int bg_get(struct btrfs_state *s, uint64_t gno, size_t *idx)
{
	uint32_t i = gmap__find(&s->byno, gno);
	struct bg *g;

	if (i != GMAP_NONE) {
		*idx = i;
		return 0;
	}
	if (grow_array((void **)&s->bg, &s->capbg, s->nbg + 1, sizeof(*s->bg)) ||
	    gmap__add(&s->byno, gno, (uint32_t)s->nbg))
		return -ENOMEM;
	g = &s->bg[s->nbg];
	memset(g, 0, sizeof(*g));
	g->gno = gno;
	*idx = s->nbg++;
	for (int k = 0; k < 2; k++) {
		uint64_t a = 0, e = UINT64_MAX, len = bg_clip(s, *idx, &a, &e);

		g->free[k] = len ? ivset__covered(s->set[k], a, len) : 0;
	}
	return 0;
}

/*
 * Every change to the two sets goes through these, which move the bytes the
 * change adds or removes inside each existing group into its free[] count.
 */
static int set_change(struct btrfs_state *s, int k, bool add, uint64_t start, uint64_t len, uint64_t val)
{
	uint64_t end = start + len;

	if (!len)
		return 0;
	uint64_t g0 = start / s->cfg.bgsize, g1 = (end - 1) / s->cfg.bgsize;

	/* The groups in the range: looked up one by one, or (a range over more groups than exist) all scanned. */
	for (uint64_t k2 = 0; k2 < (g1 - g0 < s->nbg ? g1 - g0 + 1 : s->nbg); k2++) {
		size_t g = g1 - g0 < s->nbg ? gmap__find(&s->byno, g0 + k2) : k2;
		uint64_t a = start, e = end, n, had;

		if (g == GMAP_NONE || s->bg[g].gno < g0 || s->bg[g].gno > g1)
			continue;
		n = bg_clip(s, g, &a, &e);
		had = n ? ivset__covered(s->set[k], a, n) : 0;
		s->bg[g].free[k] += add ? n - had : -had;
	}
	return add ? ivset__add(s->set[k], start, len, val, 0) : ivset__remove(s->set[k], start, len);
}

static int set_add(struct btrfs_state *s, int k, uint64_t start, uint64_t len, uint64_t val)
{
	return set_change(s, k, true, start, len, val);
}

static int set_remove(struct btrfs_state *s, int k, uint64_t start, uint64_t len)
{
	return set_change(s, k, false, start, len, 0);
}

/* Allocated bytes of the group: its size less the free bytes of both sets. */
static uint64_t bg_used(const struct btrfs_state *s, size_t i)
{
	const struct bg *g = &s->bg[i];

	return bg_end(s, i) - bg_start(s, i) - (g->free[SET_UNTRIMMED] + g->free[SET_TRIMMED]);
}

static void list_unlink(struct btrfs_state *s, size_t i)
{
	struct bg *g = &s->bg[i];
	unsigned l = g->on - 1u;

	if (!g->on)
		return;
	if (g->prev)
		s->bg[g->prev - 1].next = g->next;
	else
		s->head[l] = g->next;
	if (g->next)
		s->bg[g->next - 1].prev = g->prev;
	else
		s->tail[l] = g->prev;
	g->prev = g->next = 0;
	g->on = 0;
}

/* list_move_tail() onto the list of g->index: the most recently queued. */
static void list_requeue(struct btrfs_state *s, size_t i)
{
	struct bg *g = &s->bg[i];
	unsigned l = g->index;

	list_unlink(s, i);
	g->prev = s->tail[l];
	if (s->tail[l])
		s->bg[s->tail[l] - 1].next = (uint32_t)i + 1;
	else
		s->head[l] = (uint32_t)i + 1;
	s->tail[l] = (uint32_t)i + 1;
	g->on = (uint8_t)(l + 1);
}

/* __add_to_discard_list() */
static void add_to_list(struct btrfs_state *s, size_t i, uint64_t now)
{
	struct bg *g = &s->bg[i];

	if (!g->listed || g->index == 0) {
		if (g->index == 0)
			g->index = 1;
		g->eligible = now + s->cfg.delay;
		g->state = BG_RESET;
	}
	g->listed = true;
	list_requeue(s, i);
}

/* add_to_discard_unused_list() */
static void add_to_unused(struct btrfs_state *s, size_t i, uint64_t now)
{
	struct bg *g = &s->bg[i];

	g->listed = true;
	g->index = 0;
	g->eligible = now + s->cfg.unused_delay;
	g->state = BG_RESET;
	list_requeue(s, i);
}

static void unlist(struct btrfs_state *s, size_t i)
{
	s->bg[i].listed = false;
	s->bg[i].eligible = 0;
	list_unlink(s, i);
}

/* find_next_block_group(): the head of each list, the first already eligible or the earliest. */
static struct bg *find_next(struct btrfs_state *s, uint64_t now, size_t *idx)
{
	struct bg *ret = NULL;

	for (int l = 0; l < BTRFS_NR_LISTS; l++) {
		size_t h = s->head[l] - 1u;

		if (!s->head[l])
			continue;
		if (!ret) {
			ret = &s->bg[h];
			*idx = h;
		}
		if (ret->eligible < now)
			break;
		if (ret->eligible > s->bg[h].eligible) {
			ret = &s->bg[h];
			*idx = h;
		}
	}
	return ret;
}

/* __btrfs_discard_schedule_work() */
static void schedule(struct btrfs_state *s, uint64_t now, bool force)
{
	size_t i;
	struct bg *g;
	uint64_t delay = s->base_delay ? s->base_delay : 1;	/* no limit: back to back */

	if (!force && s->work_at != UINT64_MAX)
		return;
	if (!(g = find_next(s, now, &i))) {
		s->work_at = UINT64_MAX;
		return;
	}
	if (s->cfg.kbps_limit && s->prev_bytes) {
		uint64_t d = s->prev_bytes * 1000000000ull / ((uint64_t)s->cfg.kbps_limit * 1024);

		delay = d > delay ? d : delay;
	}
	if (now < g->eligible && g->eligible - now > delay)
		delay = g->eligible - now;
	s->work_at = now + delay;
}

/* btrfs_finish_discard_pass() */
static void finish_pass(struct btrfs_state *s, size_t i, uint64_t now)
{
	struct bg *g = &s->bg[i];

	s->passes++;
	unlist(s, i);
	if (bg_used(s, i) == 0) {
		if (g->free[SET_UNTRIMMED])
			add_to_unused(s, i, now);
		return;		/* else btrfs_mark_bg_unused(): the group goes away */
	}
	if (++g->index == BTRFS_NR_LISTS) {	/* btrfs_update_discard_index() */
		g->index = 1;
		return;
	}
	add_to_list(s, i, now);
}

/* trim_no_bitmap(async): one extent. Returns bytes discarded. */
static int trim_one(struct btrfs_state *s, size_t i, uint64_t now, struct policy_out *out, uint64_t *done)
{
	struct bg *g = &s->bg[i];
	uint64_t b0 = bg_start(s, i), b1 = bg_end(s, i), minlen = discard_minlen[g->index];
	struct iv v;
	int err;

	*done = 0;
	while (ivset__next(s->untrimmed, g->cursor, &v) && v.start < b1) {
		uint64_t a = v.start > b0 ? v.start : b0;
		uint64_t e = v.end < b1 ? v.end : b1, bytes = e - a;

		if (bytes < minlen) {
			/*
			 * Coalesced free space may run on into the next group (the
			 * kernel's cache is per group; our set is per device): the
			 * part of v past b1 is not this group's, the pass ends.
			 */
			if (e == b1)
				break;
			g->cursor = e;
			continue;
		}
		if (s->cfg.max_discard_size && bytes >= s->cfg.max_discard_size + BTRFS_MIN_FILTER)
			bytes = s->cfg.max_discard_size;
		if ((err = set_remove(s, SET_UNTRIMMED, a, bytes)) ||
		    (err = set_add(s, SET_TRIMMED, a, bytes, v.val)))
			return err;
		g->cursor = a + bytes;
		*done = bytes;
		s->discards++;
		s->bytes += bytes;
		return kstage_emit(out, now, a, bytes, 0, v.val, 1, s->dev, s->flags);
	}
	g->cursor = b1;
	return 0;
}

/* btrfs_discard_workfn() */
static int btrfs_tick(void *priv, uint64_t now, struct policy_out *out)
{
	struct btrfs_state *s = priv;
	uint64_t trimmed = 0;
	struct bg *g;
	size_t i;
	int err;

	if (now < s->work_at)
		return 0;
	s->work_at = UINT64_MAX;
	s->runs++;
	for (;;) {
		if (!(g = find_next(s, now, &i)))
			return 0;
		if (now < g->eligible) {
			schedule(s, now, true);
			return 0;
		}
		if (g->index == 0 && bg_used(s, i) != 0) {
			add_to_list(s, i, now);	/* peek_discard_list(): no longer unused */
			continue;
		}
		break;
	}
	if (g->state == BG_RESET) {
		g->cursor = bg_start(s, i);
		g->state = BG_EXTENTS;
	}
	if (g->state == BG_EXTENTS) {
		if ((err = trim_one(s, i, now, out, &trimmed)))
			return err;
	} else {
		g->cursor = bg_end(s, i);	/* no bitmaps: nothing to trim there */
	}
	if (g->cursor >= bg_end(s, i)) {
		if (g->state == BG_BITMAPS) {
			finish_pass(s, i, now);
		} else {
			g->cursor = bg_start(s, i);
			g->state = BG_BITMAPS;
		}
	}
	s->prev_bytes = trimmed;
	schedule(s, now, true);
	return 0;
}

static int add_free(struct btrfs_state *s, uint64_t a, uint64_t b, uint64_t freed, uint64_t now)
{
	uint64_t b0, b1, filter;
	struct bg *g;
	struct iv v;
	size_t i;
	int err;

	if ((err = bg_get(s, a / s->cfg.bgsize, &i)))
		return err;
	b0 = bg_start(s, i);
	b1 = bg_end(s, i);
	g = &s->bg[i];
	/* Trimmed neighbours merge into the new untrimmed region. */
	if (a > b0 && ivset__find_le(s->trimmed, a - 1, &v) && v.end == a) {
		uint64_t l = v.start > b0 ? v.start : b0;

		if ((err = set_remove(s, SET_TRIMMED, l, a - l)))
			return err;
		a = l;
	}
	if (b < b1 && ivset__get(s->trimmed, b, &v)) {
		uint64_t r = v.end < b1 ? v.end : b1;

		if ((err = set_remove(s, SET_TRIMMED, b, r - b)))
			return err;
		b = r;
	}
	if ((err = set_add(s, SET_UNTRIMMED, a, b - a, freed)))
		return err;
	ivset__next(s->untrimmed, a, &v);
	filter = (v.end < b1 ? v.end : b1) - (v.start > b0 ? v.start : b0);
	/* btrfs_discard_check_filter() */
	if (g->listed && g->index > 1 && filter >= discard_minlen[g->index - 1]) {
		unlist(s, i);
		for (int l = 1; l < BTRFS_NR_LISTS; l++) {
			if (filter >= discard_minlen[l]) {
				g->index = (uint8_t)l;
				add_to_list(s, i, now);
				break;
			}
		}
	}
	/* btrfs_discard_queue_work() */
	if (bg_used(s, i) == 0)
		add_to_unused(s, i, now);
	else
		add_to_list(s, i, now);
	schedule(s, now, false);
	return 0;
}

static int btrfs_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct btrfs_state *s = priv;
	uint64_t a = ev->offset, end = ev->offset + ev->length;
	int err;

	(void)out;
	s->frees++;
	s->dev = ev->dev;
	s->flags = ev->flags & (uint16_t)~TS_F_PREALLOC;
	/*
	 * An unused preallocation (TS_F_PREALLOC) is btrfs's unused reservation:
	 * btrfs_free_reserved_extent() (fs/btrfs/extent-tree.c) gives it back with
	 * btrfs_add_free_space(), which adds it as BTRFS_TRIM_STATE_UNTRIMMED unless
	 * -o discard=sync (fs/btrfs/free-space-cache.c): the async work discards it like
	 * any other free.
	 */
	s->prealloc += !!(ev->flags & TS_F_PREALLOC);
	/*
	 * The work this free makes: one discard per group, or per max_discard_size
	 * of it (trim_one() cuts at that), each a run of the discard work.
	 */
	if (a < end && (err = policy_out__pieces(out, (end - 1) / s->cfg.bgsize - a / s->cfg.bgsize + 1 +
						 (s->cfg.max_discard_size ? ev->length / s->cfg.max_discard_size : 0),
						 "block groups and discards")))
		return err;
	while (a < end) {
		uint64_t b = a / s->cfg.bgsize * s->cfg.bgsize + s->cfg.bgsize;

		if (b > end)
			b = end;
		if ((err = add_free(s, a, b, ev->freed_ns, ev->time_ns)))
			return err;
		a = b;
	}
	return 0;
}

/* End of trace: let the work run on at its own pace until the lists are empty. */
static int btrfs_flush(void *priv, uint64_t now, struct policy_out *out)
{
	struct btrfs_state *s = priv;
	int err;

	(void)now;
	while (s->cfg.drain && s->work_at != UINT64_MAX)
		if ((err = btrfs_tick(s, s->work_at, out)))
			return err;
	return 0;
}

static int btrfs_observe(void *priv, const struct ts_record *r, struct policy_out *out)
{
	struct btrfs_state *s = priv;
	int err;

	(void)out;
	if (r->kind == TS_ALLOC && r->length) {
		if ((err = set_remove(s, SET_UNTRIMMED, r->offset, r->length)))
			return err;
		return set_remove(s, SET_TRIMMED, r->offset, r->length);
	}
	if (kstage_is_snapshot(r))
		return set_add(s, SET_UNTRIMMED, r->offset, r->length, r->time_ns);
	return 0;
}

static uint64_t btrfs_next_deadline(void *priv)
{
	return ((struct btrfs_state *)priv)->work_at;
}

static const struct policy_stat btrfs_stats[] = {
	POLICY_STAT(struct btrfs_state, frees, "frees"),
	POLICY_STAT(struct btrfs_state, prealloc, "prealloc_frees"),
	POLICY_STAT(struct btrfs_state, runs, "work_runs"),
	POLICY_STAT(struct btrfs_state, discards, "discards"),
	POLICY_STAT(struct btrfs_state, bytes, "bytes"),
	POLICY_STAT(struct btrfs_state, passes, "passes"),
	{ NULL },
};

static int btrfs_report(void *priv, json_t *obj)
{
	struct btrfs_state *s = priv;

	json_object_set_new(obj, "untrimmed_bytes_left", json_integer((json_int_t)ivset__bytes(s->untrimmed)));
	return 0;
}

const struct policy_stage_ops stage_btrfs_async = {
	.name = "btrfs-discard",
	.help = "btrfs discard=async: block groups wait 120 s, then one discard per run, size-filtered lists, rate limits",
	.follows = "fs/btrfs/discard.c: btrfs_discard_workfn(), __add_to_discard_list(), "
		   "btrfs_discard_check_filter(), __btrfs_discard_schedule_work(); "
		   "fs/btrfs/free-space-cache.c: trim_no_bitmap() (Linux 6.12)",
	POLICY_CONFIG(btrfs_opts, struct btrfs_state, cfg),
	.init = btrfs_init,
	.observe = btrfs_observe,
	.push = btrfs_push,
	.tick = btrfs_tick,
	.next_deadline = btrfs_next_deadline,
	.flush = btrfs_flush,
	.stats = btrfs_stats,
	.report = btrfs_report,
	.destroy = btrfs_destroy,
};
