// SPDX-License-Identifier: GPL-2.0
/*
 * ext4-mb: ext4 online discard (-o discard), Linux 6.12, fs/ext4/mballoc.c.
 *
 * - ext4_free_blocks() -> ext4_mb_clear_bb(): a journaled free becomes an
 *   ext4_free_data entry {group, start, count, tid} in the group's rb-tree
 *   (ext4_mb_free_metadata()). Entries merge only when physically
 *   contiguous, in the same transaction and the same group, and which
 *   neighbours are tried depends on the kernel (merge=):
 *   - parent (Linux >= 6.17, "ext4: merge freed extent with existing extents
 *     before insertion"): only the node the rb-tree descent ends at; the new
 *     extent joins it (it keeps its list place), which may then join its own
 *     prev/next. A free adjacent to the other in-order neighbour stays apart,
 *     so the tree's exact shape matters: rbsim.c keeps lib/rbtree.c's shape.
 *   - neighbours (Linux <= 6.16, ext4_try_merge_freed_extent()): the new
 *     entry is inserted, absorbs an adjacent rb_prev() and rb_next(), and
 *     goes to the tail of the list.
 *   Every free until the next commit belongs to the running transaction.
 * - ext4_process_freed_data() (jbd2 commit callback): the committed entries
 *   go back to the buddy (ext4_free_data_in_buddy()), then ext4_discard_work()
 *   runs ext4_try_to_trim_range(start, end, minblocks=1) per entry, in list
 *   order: every free run that starts inside the entry is discarded with one
 *   ext4_trim_extent() -> ext4_issue_discard() -> sb_issue_discard()
 *   (synchronous: dispatch at qd=1). Since Linux 6.6 the run reaches the next
 *   allocated block of the group (mb_find_next_bit() up to
 *   ext4_last_grp_cluster()), which can re-discard free space next to the
 *   entry: extend=1. Before (seed 001's 2011 kernels) exactly the entry.
 * - kworker=D (> 0): the discard work is one kworker walking s_discard_list,
 *   and ext4_trim_extent() waits for each discard (sb_issue_discard() is
 *   synchronous), so it reaches an entry only after every discard before it
 *   completed. It reads the buddy bitmap then, not at the commit: space the
 *   allocator handed out again in the meantime (ALLOC records) is not
 *   discarded, and the extension stops at blocks allocated since. Emulated
 *   as one run every D of trace time (D = the device's discard latency plus
 *   the work's overhead; a timer, so --timing asap paces it the same way).
 *   clock=intent: the work takes its next run at each of the trace's INTENT
 *   records instead (ext4:ext4_discard_blocks, fired by the recorded work as it
 *   issued each discard): the recorded work's timing with the emulated
 *   decisions, for fidelity checks (what is discarded given when it ran).
 *   kworker=0: every entry is trimmed at the commit, against the map then
 *   (a device whose discards take no time).
 * - data=writeback user data (journal=0) is discarded at once, unmerged.
 * - ext4_mb_release_inode_pa() / ext4_mb_release_group_pa() (a FREE flagged
 *   prealloc: ext4_discard_preallocations() at truncate, close or eviction,
 *   ext4_mb_discard_group_preallocations() on ENOSPC): the unused part of a
 *   preallocation goes back with mb_free_blocks() only: no ext4_free_data
 *   entry, no discard. It is free space again at once (for extend).
 * Commit points: META_COMMIT records; without them jbd2's commit timer
 * (JBD2_DEFAULT_MAX_COMMIT_AGE, 5 s after the transaction's first free).
 * Free space for extend: the start snapshot, plus committed frees, minus ALLOC.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/policies/gmap.h"
#include "replay/policies/ivset.h"
#include "replay/policies/kstages.h"
#include "replay/policies/rbsim.h"
#include "traces/util.h"

#define EXT4_MIN_GROUP (256ull << 10)

enum { MERGE_PARENT, MERGE_NEIGHBOURS };
static const char *const ext4_merges[] = { "parent", "neighbours", NULL };
enum { CLOCK_TIMER, CLOCK_INTENT };
static const char *const ext4_clocks[] = { "timer", "intent", NULL };

struct ext4_cfg {
	uint64_t commit;
	bool extend;
	uint64_t bgsize;
	bool journal;
	unsigned merge;
	uint64_t kworker;
	unsigned clock;
};

static const struct opt_spec ext4_opts[] = {
	{ "commit", OPT_DURATION, offsetof(struct ext4_cfg, commit), 1e6, 86400e9, "5s",
	  "journal commit interval while the trace shows no META_COMMIT (mount option commit=)" },
	{ "extend", OPT_BOOL, offsetof(struct ext4_cfg, extend), 0, 1, "1",
	  "Linux >= 6.6: a discarded run extends to the next allocated block of its group" },
	{ "bgsize", OPT_BYTES, offsetof(struct ext4_cfg, bgsize), 0, 1ull << 40, "0",
	  "block group size, 256K..1T; 0 = 8 x block size^2 from the trace header (128 MiB for 4 KiB blocks)" },
	{ "journal", OPT_BOOL, offsetof(struct ext4_cfg, journal), 0, 1, "1",
	  "0: data=writeback, frees are discarded at once without waiting for the commit" },
	{ "merge", OPT_ENUM, offsetof(struct ext4_cfg, merge), 0, 0, "parent",
	  "freed-extent merging: parent (Linux >= 6.17: only the rb-tree insertion parent), "
	  "neighbours (<= 6.16: both rb-tree neighbours)", ext4_merges },
	{ "kworker", OPT_DURATION, offsetof(struct ext4_cfg, kworker), 0, 60e9, "0",
	  "time the discard work spends per discard; it reads the free map when it gets to each run "
	  "(0: every entry trimmed at the commit)" },
	{ "clock", OPT_ENUM, offsetof(struct ext4_cfg, clock), 0, 0, "timer",
	  "when the discard work runs: timer (one run per kworker=) or intent (at each recorded INTENT: "
	  "the recorded work's timing)", ext4_clocks },
	{ NULL },
};

/* One block group's rb-tree of to-be-freed entries (ext4_group_info.bb_free_root). */
struct group_root {
	uint64_t g;
	uint32_t root;
};

struct ext4_state {
	struct ext4_cfg cfg;
	struct rbsim *rb;	/* this transaction's entries, one rb-tree per group */
	struct group_root *roots;	/* the groups this transaction touched, in the order touched */
	size_t nroots, caproots;
	struct gmap byg;		/* group number -> index in roots */
	struct ivset *free;	/* free space known to the buddy: val = freed_ns */
	struct iv *list;	/* commit scratch, grown by doubling */
	size_t cap;
	struct iv *dq;		/* s_discard_list (kworker): entries [dq_head, dq_n) */
	size_t dq_head, dq_n, dq_cap;
	uint64_t dq_pos;	/* where the work is in the head entry */
	uint64_t kw_next;	/* the work's next run (UINT64_MAX: idle) */
	bool kw_go;		/* clock=intent: the recorded work issues a discard now */
	bool dq_started;	/* the work has reached the head entry */
	uint64_t pstart, seq, deadline;
	uint32_t dev;
	uint16_t flags;
	bool seen_commit;
	uint64_t frees, merges, commits, discards, bytes, extended, reused, prealloc;
};

static void ext4_destroy(void *priv)
{
	struct ext4_state *s = priv;

	rbsim__destroy(s->rb);
	free(s->roots);
	gmap__fini(&s->byg);
	ivset__destroy(s->free);
	free(s->list);
	free(s->dq);
}

static int ext4_init(void *priv, const struct policy_env *env, struct policy_props *props,
		     char *err, size_t errlen)
{
	struct ext4_state *s = priv;

	/* mke2fs refuses fewer than 256 blocks per group (of at least 1 KiB): a group of a few bytes is no ext4's. */
	if (s->cfg.bgsize && s->cfg.bgsize < EXT4_MIN_GROUP)
		return opts__below(ext4_opts, "bgsize", s->cfg.bgsize, EXT4_MIN_GROUP,
				   "256 blocks of 1 KiB, mke2fs's least", err, errlen);
	if (!(s->rb = rbsim__new()) || !(s->free = ivset__new(true)))
		return -ENOMEM;
	if (!s->cfg.bgsize) {	/* fs_block_size <= 64 KiB (traces/bounds.c): at most 32 GiB, no wrap */
		uint64_t bs = POLICY_ENV_DEV(env, fs_block_size, 4096);

		s->cfg.bgsize = 8 * bs * bs;	/* one bitmap block of blocks */
	}
	s->pstart = POLICY_ENV_DEV(env, partition_start, 0);
	s->dev = env->devno;
	s->deadline = s->kw_next = UINT64_MAX;
	props->source = PS_FREE;
	/*
	 * Journaled frees are discarded by ext4_discard_work() (a work item); without the journal
	 * ext4_mb_clear_bb() calls ext4_issue_discard() in the freeing task, which waits for it.
	 */
	props->waiter = s->cfg.journal ? PW_WORKER : PW_WORKLOAD;
	return 0;
}

/*
 * Groups count from the partition start. A byte before it (no trace the
 * reader accepts has one on the replayed device) counts as group 0: nothing
 * wraps whatever the offset.
 */
static uint64_t group_of(const struct ext4_state *s, uint64_t off)
{
	return off > s->pstart ? (off - s->pstart) / s->cfg.bgsize : 0;
}

/* End of the group holding off (offsets < 2^63, groups <= 1 TiB: no wrap). */
static uint64_t group_end(const struct ext4_state *s, uint64_t off)
{
	return s->pstart + (group_of(s, off) + 1) * s->cfg.bgsize;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group_root *x = a, *y = b;

	return x->g < y->g ? -1 : x->g > y->g;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;

	return x->aux < y->aux ? -1 : x->aux > y->aux;
}

/*
 * One ext4_trim_extent() of ext4_try_to_trim_range(entry.start, entry.end - 1, 1)
 * on the buddy bitmap as it is now: the first free run at or after pos that
 * starts inside the entry, extended (6.6+) to the group's next allocated block.
 * 1 sent (*pos moves past it), 0 nothing left in the entry.
 */
static int trim_run(struct ext4_state *s, const struct iv *e, uint64_t *pos, uint64_t now, struct policy_out *out)
{
	uint64_t gend = group_end(s, e->start), a, b;
	struct iv v;
	int err;

	if (*pos >= e->end || !ivset__next(s->free, *pos, &v) || v.start >= e->end)
		return 0;
	a = v.start > *pos ? v.start : *pos;
	b = s->cfg.extend ? (v.end < gend ? v.end : gend) : (v.end < e->end ? v.end : e->end);
	s->discards++;
	s->bytes += b - a;
	if (b > e->end)
		s->extended += b - e->end;
	if ((err = kstage_emit(out, now, a, b - a, 0, e->val, 1, s->dev, s->flags)))
		return err;
	*pos = b;
	return 1;
}

static int trim_entry(struct ext4_state *s, const struct iv *e, uint64_t now, struct policy_out *out)
{
	uint64_t pos = e->start;
	int ret;

	while ((ret = trim_run(s, e, &pos, now, out)) > 0)
		;
	return ret;
}

/* Free bytes of the entry the allocator took back before the work got there. */
static void count_reused(struct ext4_state *s, const struct iv *e)
{
	s->reused += (e->end - e->start) - ivset__covered(s->free, e->start, e->end - e->start);
}

/*
 * ext4_discard_work(): the next run of the list when the work is idle (it
 * waits for each discard); with all = true (end of the trace) every run left,
 * at once.
 */
static int work(struct ext4_state *s, uint64_t now, uint64_t base, bool all, struct policy_out *out)
{
	int ret;

	while ((all || (s->cfg.clock == CLOCK_INTENT ? s->kw_go : s->kw_next == UINT64_MAX)) &&
	       s->dq_head < s->dq_n) {
		struct iv *e = &s->dq[s->dq_head];

		if (!s->dq_started) {	/* the work reaches a new entry */
			s->dq_started = true;
			s->dq_pos = e->start;
			count_reused(s, e);
		}
		if ((ret = trim_run(s, e, &s->dq_pos, now, out)) < 0)
			return ret;
		if (ret) {
			if (all)
				continue;
			if (s->cfg.clock == CLOCK_INTENT)
				s->kw_go = false;
			else
				s->kw_next = base + s->cfg.kworker;
			continue;
		}
		s->dq_head++;
		s->dq_started = false;
	}
	if (s->dq_head == s->dq_n)
		s->dq_head = s->dq_n = 0;
	return 0;
}

/* list_splice_tail() onto s_discard_list. */
static int queue_entries(struct ext4_state *s, const struct iv *l, size_t n)
{
	int ret;

	if (s->dq_head && s->dq_n + n > s->dq_cap) {	/* reuse the consumed front */
		memmove(s->dq, s->dq + s->dq_head, (s->dq_n - s->dq_head) * sizeof(*s->dq));
		s->dq_n -= s->dq_head;
		s->dq_head = 0;
	}
	if ((ret = grow_array((void **)&s->dq, &s->dq_cap, s->dq_n + n, sizeof(*s->dq))))
		return ret;
	memcpy(s->dq + s->dq_n, l, n * sizeof(*l));
	s->dq_n += n;
	return 0;
}

/* ext4_process_freed_data(): all entries into the buddy, then the discard work in list order. */
static int commit(struct ext4_state *s, uint64_t now, struct policy_out *out)
{
	size_t n = 0;
	int err;

	s->deadline = UINT64_MAX;
	if (s->nroots > 1)	/* group order, as ext4_process_freed_data() meets them */
		qsort(s->roots, s->nroots, sizeof(*s->roots), cmp_group);
	for (size_t g = 0; g < s->nroots; g++) {
		for (uint32_t i = rbsim__first(s->rb, s->roots[g].root); i; i = rbsim__next(s->rb, i)) {
			const struct rbnode *e = rbsim__node(s->rb, i);
			struct iv v = { e->start, e->end, e->val, e->seq };

			if ((err = grow_array((void **)&s->list, &s->cap, n + 1, sizeof(*s->list))))
				return err;
			s->list[n++] = v;
			if ((err = ivset__add(s->free, v.start, v.end - v.start, v.val, 0)))
				return err;
		}
	}
	s->nroots = 0;
	gmap__clear(&s->byg);
	rbsim__clear(s->rb);
	if (!n)
		return 0;
	s->commits++;
	qsort(s->list, n, sizeof(*s->list), cmp_seq);
	if (s->cfg.kworker || s->cfg.clock == CLOCK_INTENT) {	/* onto s_discard_list, queue_work() */
		if ((err = queue_entries(s, s->list, n)))
			return err;
		return work(s, now, now, false, out);
	}
	for (size_t k = 0; k < n; k++) {
		count_reused(s, &s->list[k]);
		if ((err = trim_entry(s, &s->list[k], now, out)))
			return err;
	}
	return 0;
}

static int new_node(struct ext4_state *s, uint32_t *root, uint32_t parent, bool left,
		    uint64_t a, uint64_t b, uint64_t freed_ns, uint32_t *out)
{
	uint32_t n = rbsim__alloc(s->rb);
	struct rbnode *e;

	if (!n)
		return -ENOMEM;
	e = rbsim__node(s->rb, n);
	e->start = a;
	e->end = b;
	e->val = freed_ns;
	e->seq = ++s->seq;
	rbsim__insert(s->rb, root, parent, left, n);
	*out = n;
	return 0;
}

/* Entry e takes the run [a, b) freed at freed_ns, adjacent to it on either side. */
static void join(struct ext4_state *s, struct rbnode *e, uint64_t a, uint64_t b, uint64_t freed_ns)
{
	if (b == e->start)
		e->start = a;
	else
		e->end = b;
	if (freed_ns < e->val)
		e->val = freed_ns;
	s->merges++;
}

/* ext4_merge_freed_extents(), ext4_try_merge_freed_extent(): keep absorbs gone, its neighbour. */
static void absorb(struct ext4_state *s, uint32_t *root, uint32_t keep, uint32_t gone)
{
	const struct rbnode *g = rbsim__node(s->rb, gone);

	join(s, rbsim__node(s->rb, keep), g->start, g->end, g->val);
	rbsim__erase(s->rb, root, gone);
}

/*
 * The root of group g's tree, created empty on first use. Only the groups a
 * transaction touches are kept (gmap.h), so an offset far out on a large (or
 * unknown-size) device costs one entry, not an array up to its group number.
 */
static uint32_t *group_root(struct ext4_state *s, uint64_t g)
{
	uint32_t i = gmap__find(&s->byg, g);

	if (i != GMAP_NONE)
		return &s->roots[i].root;
	if (grow_array((void **)&s->roots, &s->caproots, s->nroots + 1, sizeof(*s->roots)) ||
	    gmap__add(&s->byg, g, (uint32_t)s->nroots))
		return NULL;
	s->roots[s->nroots] = (struct group_root){ g, 0 };
	return &s->roots[s->nroots++].root;
}

/* Linux >= 6.17: join the insertion parent, which may then join its own neighbour. */
static int merge_parent(struct ext4_state *s, uint32_t *root, uint32_t parent, bool left,
			uint64_t a, uint64_t b, uint64_t freed_ns)
{
	struct rbnode *e = parent ? rbsim__node(s->rb, parent) : NULL;
	uint32_t i, n;

	if (e && b == e->start) {
		join(s, e, a, b, freed_ns);
		if ((i = rbsim__prev(s->rb, parent)) && rbsim__node(s->rb, i)->end == a)
			absorb(s, root, i, parent);
		return 0;
	}
	if (e && e->end == a) {
		join(s, e, a, b, freed_ns);
		if ((i = rbsim__next(s->rb, parent)) && rbsim__node(s->rb, i)->start == b)
			absorb(s, root, parent, i);
		return 0;
	}
	return new_node(s, root, parent, left, a, b, freed_ns, &n);
}

/* Linux <= 6.16: insert, then ext4_try_merge_freed_extent() with rb_prev() and rb_next(). */
static int merge_neighbours(struct ext4_state *s, uint32_t *root, uint32_t parent, bool left,
			    uint64_t a, uint64_t b, uint64_t freed_ns)
{
	uint32_t n, i;
	int err;

	if ((err = new_node(s, root, parent, left, a, b, freed_ns, &n)))
		return err;
	if ((i = rbsim__prev(s->rb, n)) && rbsim__node(s->rb, i)->end == a)
		absorb(s, root, n, i);
	if ((i = rbsim__next(s->rb, n)) && rbsim__node(s->rb, i)->start == b)
		absorb(s, root, n, i);
	return 0;
}

/* ext4_mb_free_metadata() for one group's piece [a, b). */
static int add_entry(struct ext4_state *s, uint64_t a, uint64_t b, uint64_t freed_ns)
{
	uint32_t *root = group_root(s, group_of(s, a)), n, parent = 0;
	bool left = false;

	if (!root)
		return -ENOMEM;
	for (n = *root; n; ) {
		const struct rbnode *e = rbsim__node(s->rb, n);

		parent = n;
		if (a < e->start) {
			left = true;
			n = e->left;
		} else if (a >= e->end) {
			left = false;
			n = e->right;
		} else {
			return 0;	/* "Block already on to-be-freed list" */
		}
	}
	if (s->cfg.merge == MERGE_PARENT)
		return merge_parent(s, root, parent, left, a, b, freed_ns);
	return merge_neighbours(s, root, parent, left, a, b, freed_ns);
}

static int ext4_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct ext4_state *s = priv;
	uint64_t a = ev->offset, end = ev->offset + ev->length;
	int err;

	s->frees++;
	s->dev = ev->dev;
	s->flags = ev->flags & (uint16_t)~TS_F_PREALLOC;
	if (ev->flags & TS_F_PREALLOC) {
		/*
		 * ext4_mb_release_inode_pa() / ext4_mb_release_group_pa(): an unused preallocation
		 * goes back to the buddy at once (mb_free_blocks(), no journal entry) and is never
		 * discarded; it is free space the extension can reach from now on.
		 */
		s->prealloc++;
		return ivset__add(s->free, ev->offset, ev->length, ev->freed_ns, 0);
	}
	if (!s->cfg.journal) {
		/* ext4_mb_clear_bb(): not journaled, ext4_issue_discard() right away. */
		s->discards++;
		s->bytes += ev->length;
		if ((err = ivset__add(s->free, ev->offset, ev->length, ev->freed_ns, 0)))
			return err;
		return kstage_emit(out, ev->time_ns, ev->offset, ev->length, ev->ino, ev->freed_ns, 1,
				   ev->dev, ev->flags);
	}
	if (a < end && (err = policy_out__pieces(out, group_of(s, end - 1) - group_of(s, a) + 1, "block groups")))
		return err;
	while (a < end) {	/* ext4_free_blocks() splits at group boundaries */
		uint64_t b = a < s->pstart ? s->pstart : group_end(s, a);

		if (b > end)
			b = end;
		if ((err = add_entry(s, a, b, ev->freed_ns)))
			return err;
		a = b;
	}
	if (!s->seen_commit && s->deadline == UINT64_MAX)
		s->deadline = ev->time_ns + s->cfg.commit;	/* jbd2 transaction t_expires */
	return 0;
}

/* Every record kind ext4_observe() reads (its ops' observe_kinds): keep the two in step. */
#define EXT4_OBSERVES (1u << TS_ALLOC | 1u << TS_INTENT | 1u << TS_META)

static int ext4_observe(void *priv, const struct ts_record *r, struct policy_out *out)
{
	struct ext4_state *s = priv;

	if (r->kind == TS_ALLOC && r->length)
		return ivset__remove(s->free, r->offset, r->length);
	if (r->kind == TS_INTENT && s->cfg.clock == CLOCK_INTENT) {
		int err;

		s->kw_go = true;
		err = work(s, r->time_ns, r->time_ns, false, out);
		s->kw_go = false;
		return err;
	}
	if (kstage_is_snapshot(r))
		return ivset__add(s->free, r->offset, r->length, r->time_ns, 0);
	if (kstage_is_commit(r)) {
		s->seen_commit = true;
		return commit(s, r->time_ns, out);
	}
	return 0;
}

static uint64_t ext4_next_deadline(void *priv)
{
	struct ext4_state *s = priv;

	return s->deadline < s->kw_next ? s->deadline : s->kw_next;
}

static int ext4_tick(void *priv, uint64_t now, struct policy_out *out)
{
	struct ext4_state *s = priv;
	int err = 0;

	if (now >= s->kw_next) {	/* the discard the work waited for completed */
		uint64_t base = s->kw_next;	/* a late timer (asap gaps) does not slow the work */

		s->kw_next = UINT64_MAX;
		err = work(s, now, base, false, out);
	}
	if (!err && now >= s->deadline)
		err = commit(s, now, out);
	return err;
}

static int ext4_flush(void *priv, uint64_t now, struct policy_out *out)
{
	struct ext4_state *s = priv;
	int err = commit(s, now, out);

	s->kw_next = UINT64_MAX;
	return err ? err : work(s, now, now, true, out);
}


static const struct policy_stat ext4_stats[] = {
	POLICY_STAT(struct ext4_state, frees, "frees"),
	POLICY_STAT(struct ext4_state, prealloc, "prealloc_frees"),
	POLICY_STAT(struct ext4_state, merges, "merged_frees"),
	POLICY_STAT(struct ext4_state, commits, "commits"),
	POLICY_STAT(struct ext4_state, discards, "discards"),
	POLICY_STAT(struct ext4_state, bytes, "bytes"),
	POLICY_STAT(struct ext4_state, extended, "bytes_beyond_frees"),
	POLICY_STAT(struct ext4_state, reused, "freed_bytes_reallocated_before_discard"),
	POLICY_STAT(struct ext4_state, seen_commit, "commit_records"),
	{ NULL },
};

const struct policy_stage_ops stage_ext4_mb = {
	.name = "ext4-mb",
	.help = "ext4: frees merged within a transaction, discarded after the journal commit",
	.follows = "fs/ext4/mballoc.c: ext4_mb_free_metadata(), ext4_try_merge_freed_extent(), "
		   "ext4_process_freed_data(), ext4_discard_work(), ext4_try_to_trim_range() (Linux 6.12; "
		   "merge=parent follows the 6.17+ ext4_mb_free_metadata())",
	POLICY_CONFIG(ext4_opts, struct ext4_state, cfg),
	.positional = "commit",
	.init = ext4_init,
	.observe = ext4_observe,
	.observe_kinds = EXT4_OBSERVES,
	.push = ext4_push,
	.tick = ext4_tick,
	.next_deadline = ext4_next_deadline,
	.flush = ext4_flush,
	.stats = ext4_stats,
	.destroy = ext4_destroy,
};
