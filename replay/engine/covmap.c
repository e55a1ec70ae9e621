// SPDX-License-Identifier: GPL-2.0
/*
 * Coverage map (covmap.h): a bitmap trie of 4 KiB granules plus an exact
 * coalescing ivset (replay/policies/ivset.h) for pieces of granules.
 *
 * Level 0 nodes are leaves of 4096 granule bits (16 MiB of device); a node at
 * level h >= 1 has 256 children, each covering 2^(12 + 8(h-1)) granules. A
 * child pointer is NULL (nothing covered), FULL (everything covered) or a
 * node. Every node counts the granules set below it, so covering a whole
 * subtree costs its count, not a walk. The root grows upward as higher
 * offsets arrive (level 5 spans 2^52 granules: every 64-bit byte offset).
 *
 * Invariant: `part` holds bytes only in granules whose bit is clear; when a
 * granule fills (from pieces, or a range covering it whole) its pieces leave
 * `part` and its bit is set.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "replay/engine/covmap.h"
#include "replay/policies/ivset.h"
#include "traces/util.h"

#define GRAN_SHIFT	12			/* 4 KiB granules */
#define GRAN		(1ull << GRAN_SHIFT)
#define LEAF_BITS	12			/* granules per leaf: 4096 */
#define LEAF_WORDS	((1u << LEAF_BITS) / 64)
#define FAN_BITS	8			/* children per inner node: 256 */
#define FAN		(1u << FAN_BITS)
#define MAX_HEIGHT	5			/* 12 + 5 * 8 = 52 bits of granule index */

/*
 * Both kinds of node begin with the same header: the granules set below it, and
 * where it hangs (its parent, NULL at the root, and its index there), so an add
 * that knows its leaf counts up without walking down (covmap__add_many()).
 */
struct node {
	uint64_t set;
	struct inner *up;
	unsigned at;
};

struct leaf {
	struct node hd;
	uint64_t w[LEAF_WORDS];
};

struct inner {
	struct node hd;
	void *c[FAN];
};

static const char full_mark;
#define FULL ((void *)&full_mark)

/*
 * Nodes come from chunks of one mapping each, carved in order; a node freed by
 * a collapse waits on a free list of its size. Scattered ranges touch a new leaf
 * every few adds: malloc touched a new 4 KiB page (a page fault) every eight
 * leaves, a chunk from 2 MiB up is one huge page (MADV_HUGEPAGE, a hint). Chunks
 * start at 64 KiB and double, so a small trace keeps a small map.
 */
#define CHUNK_MIN	(64u << 10)
#define CHUNK_HUGE	(2u << 20)

struct pool {
	char *cur;			/* carving [cur, end) of the newest chunk */
	char *end;
	void *free_node[2];		/* freed leaves [0] and inner nodes [1], linked through their first word */
	struct chunk { void *p; size_t len; } *chunks;
	size_t nchunks, chunks_cap, next_len;
};

struct covmap {
	void *root;
	unsigned height;
	uint64_t bytes;
	size_t mem;
	struct ivset *part;    		/* pieces of granules (unaligned ranges) */
	struct pool pool;
	uint64_t touch;			/* sink for the loads of covmap__add_many */
	uint64_t drops;			/* nodes dropped so far: a leaf found before is still valid while it is unchanged */
	int err;
};

static unsigned span_bits(unsigned h) { return LEAF_BITS + FAN_BITS * h; }
static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static size_t node_size(unsigned h) { return h ? sizeof(struct inner) : sizeof(struct leaf); }

static uint64_t count(const void *p, unsigned h)
{
	if (!p)
		return 0;
	return p == FULL ? 1ull << span_bits(h) : *(const uint64_t *)p;
}

/* A mapping of len bytes, aligned to len when that is a huge page or more (else THP cannot back it). */
static void *chunk_map(size_t len)
{
	size_t extra = len >= CHUNK_HUGE ? len : 0;
	char *p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	size_t head;

	if (p == MAP_FAILED)
		return NULL;
	if (!extra)
		return p;
	head = (CHUNK_HUGE - (uintptr_t)p % CHUNK_HUGE) % CHUNK_HUGE;
	if (head)
		munmap(p, head);
	if (extra - head)
		munmap(p + head + len, extra - head);
	madvise(p + head, len, MADV_HUGEPAGE);
	return p + head;
}

/* A zeroed node of level h's size, or NULL. */
static void *node_new(struct covmap *c, unsigned h)
{
	struct pool *pl = &c->pool;
	size_t size = node_size(h);
	void *p = pl->free_node[!!h];

	if (p) {
		pl->free_node[!!h] = *(void **)p;
		memset(p, 0, size);
	} else {
		if ((size_t)(pl->end - pl->cur) < size) {	/* the rest of the chunk is left unused */
			size_t len = pl->next_len ? pl->next_len : CHUNK_MIN;

			if (grow_array((void **)&pl->chunks, &pl->chunks_cap, pl->nchunks + 1, sizeof(*pl->chunks)) ||
			    !(p = chunk_map(len)))
				return NULL;
			pl->chunks[pl->nchunks++] = (struct chunk){ p, len };
			pl->cur = p;
			pl->end = pl->cur + len;
			pl->next_len = len < CHUNK_HUGE ? len * 2 : len;
		}
		p = pl->cur;	/* a fresh mapping reads as zeroes */
		pl->cur += size;
	}
	c->mem += size;
	return p;
}

static void drop(struct covmap *c, void *p, unsigned h)
{
	if (!p || p == FULL)
		return;
	if (h)
		for (unsigned i = 0; i < FAN; i++)
			drop(c, ((struct inner *)p)->c[i], h - 1);
	c->mem -= node_size(h);
	c->drops++;
	*(void **)p = c->pool.free_node[!!h];
	c->pool.free_node[!!h] = p;
}

struct covmap *covmap__new(void)
{
	struct covmap *c = calloc(1, sizeof(*c));

	if (c && !(c->part = ivset__new(true))) {
		free(c);
		return NULL;
	}
	return c;
}

void covmap__free(struct covmap *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->pool.nchunks; i++)	/* every node at once */
		munmap(c->pool.chunks[i].p, c->pool.chunks[i].len);
	free(c->pool.chunks);
	ivset__destroy(c->part);
	free(c);
}

/* Sets bits [from, to) of a leaf; the bits that were clear. */
static inline uint64_t leaf_fill(struct leaf *l, uint64_t from, uint64_t to)
{
	uint64_t n = 0;

	if (from < to && from >> 6 == (to - 1) >> 6) {	/* inside one word: most discards */
		unsigned w = (unsigned)(from >> 6), b = (unsigned)(from & 63), k = (unsigned)(to - from);
		uint64_t mask = (k == 64 ? ~0ull : ((1ull << k) - 1)) << b, fresh = mask & ~l->w[w];

		l->w[w] |= mask;
		return fresh == mask ? k : (uint64_t)__builtin_popcountll(fresh);
	}
	while (from < to) {
		unsigned w = (unsigned)(from >> 6), b = (unsigned)(from & 63);
		uint64_t k = min64(to - from, 64 - b);
		uint64_t mask = (k == 64 ? ~0ull : ((1ull << k) - 1)) << b, fresh = mask & ~l->w[w];

		n += fresh == mask ? k : (uint64_t)__builtin_popcountll(fresh);	/* a call without -mpopcnt */
		l->w[w] |= mask;
		from += k;
	}
	return n;
}

static uint64_t leaf_count(const struct leaf *l, uint64_t from, uint64_t to)
{
	uint64_t n = 0;

	while (from < to) {
		unsigned w = (unsigned)(from >> 6), b = (unsigned)(from & 63);
		uint64_t k = min64(to - from, 64 - b);
		uint64_t mask = (k == 64 ? ~0ull : ((1ull << k) - 1)) << b;

		n += (uint64_t)__builtin_popcountll(mask & l->w[w]);
		from += k;
	}
	return n;
}

/*
 * Sets granules [lo, hi) under *pp (a level-h node spanning [base, base + span), child
 * at of up, or the root when up is NULL); the granules that were clear.
 */
static uint64_t fill(struct covmap *c, struct inner *up, unsigned at, void **pp, unsigned h, uint64_t base,
		     uint64_t lo, uint64_t hi)
{
	uint64_t span = 1ull << span_bits(h), n = 0;
	void *p = *pp;

	if (p == FULL)
		return 0;
	if (lo == base && hi == base + span) {
		n = span - count(p, h);
		drop(c, p, h);
		*pp = FULL;
		return n;
	}
	if (!p) {
		if (!(p = node_new(c, h))) {
			c->err = -ENOMEM;
			return 0;
		}
		((struct node *)p)->up = up;
		((struct node *)p)->at = at;
		*pp = p;
	}
	if (!h) {
		n = leaf_fill(p, lo - base, hi - base);
	} else {
		unsigned cb = span_bits(h - 1);

		for (uint64_t i = (lo - base) >> cb; i <= (hi - 1 - base) >> cb; i++) {
			uint64_t cbase = base + (i << cb);

			n += fill(c, p, (unsigned)i, &((struct inner *)p)->c[i], h - 1, cbase, max64(lo, cbase),
				  min64(hi, cbase + (1ull << cb)));
		}
	}
	if ((*(uint64_t *)p += n) == span) {
		drop(c, p, h);
		*pp = FULL;
	}
	return n;
}

/* Granules set in [lo, hi) under p. */
static uint64_t covered(const void *p, unsigned h, uint64_t base, uint64_t lo, uint64_t hi)
{
	uint64_t span = 1ull << span_bits(h), n = 0;

	if (!p || p == FULL || (lo == base && hi == base + span))
		return p == FULL ? hi - lo : count(p, h);
	if (!h)
		return leaf_count(p, lo - base, hi - base);
	for (uint64_t i = (lo - base) >> span_bits(h - 1); i <= (hi - 1 - base) >> span_bits(h - 1); i++) {
		uint64_t cbase = base + (i << span_bits(h - 1));

		n += covered(((const struct inner *)p)->c[i], h - 1, cbase, max64(lo, cbase),
			     min64(hi, cbase + (1ull << span_bits(h - 1))));
	}
	return n;
}

static bool granule_set(const struct covmap *c, uint64_t g)
{
	const void *p = c->root;

	if (g >> span_bits(c->height))
		return false;
	for (unsigned h = c->height; p && p != FULL; h--) {
		if (!h)
			return ((const struct leaf *)p)->w[(g >> 6) & (LEAF_WORDS - 1)] >> (g & 63) & 1;
		p = ((const struct inner *)p)->c[(g >> span_bits(h - 1)) & (FAN - 1)];
	}
	return p == FULL;
}

/* Grows the root until it spans granule hi - 1. */
static int grow(struct covmap *c, uint64_t hi)
{
	while (c->height < MAX_HEIGHT && (hi - 1) >> span_bits(c->height)) {
		struct inner *n;

		if (c->root) {
			if (!(n = node_new(c, c->height + 1)))
				return -ENOMEM;
			n->hd.set = count(c->root, c->height);
			n->hd.up = NULL;
			n->c[0] = c->root;
			if (c->root != FULL)
				((struct node *)c->root)->up = n, ((struct node *)c->root)->at = 0;
			c->root = n;
		}
		c->height++;
	}
	return 0;
}

/*
 * The common case without recursion: [lo, hi) inside one leaf that exists.
 * Counts go up the path; nodes that fill collapse to FULL. False (nothing
 * changed) when the path is missing or ends early.
 */
static bool fill_leaf(struct covmap *c, uint64_t lo, uint64_t hi, uint64_t *n)
{
	void **slot[MAX_HEIGHT + 1], **pp = &c->root;
	unsigned h = c->height, k = 0;
	uint64_t from = lo & ((1u << LEAF_BITS) - 1);

	if ((lo ^ (hi - 1)) >> LEAF_BITS || (hi - 1) >> span_bits(h))
		return false;
	for (;; h--) {
		if (!*pp || *pp == FULL)
			return false;
		slot[k++] = pp;
		if (!h)
			break;
		pp = &((struct inner *)*pp)->c[(lo >> span_bits(h - 1)) & (FAN - 1)];
	}
	if (!(*n = leaf_fill(*pp, from, from + (hi - lo))))
		return true;
	for (unsigned i = 0; i < k; i++)
		*(uint64_t *)*slot[i] += *n;
	for (unsigned i = k; i--;) {	/* from the leaf up: a node that filled becomes FULL */
		unsigned level = c->height - i;

		if (*(uint64_t *)*slot[i] != 1ull << span_bits(level))
			break;
		drop(c, *slot[i], level);
		*slot[i] = FULL;
	}
	return true;
}

/* Sets granules [lo, hi); the granules that were clear. */
static uint64_t fill_granules(struct covmap *c, uint64_t lo, uint64_t hi)
{
	uint64_t n;
	int ret;

	if (fill_leaf(c, lo, hi, &n))
		return n;
	ret = grow(c, hi);

	if (ret) {
		c->err = ret;
		return 0;
	}
	return fill(c, NULL, 0, &c->root, c->height, 0, lo, hi);
}

/* [a, b) inside granule g, not all of it. */
static int64_t add_piece(struct covmap *c, uint64_t g, uint64_t a, uint64_t b)
{
	int64_t n;

	if (granule_set(c, g))
		return 0;
	if (!(n = (int64_t)(b - a - ivset__covered(c->part, a, b - a))))
		return 0;
	if (ivset__add(c->part, a, b - a, 0, 0))
		return -ENOMEM;
	if (ivset__covered(c->part, g << GRAN_SHIFT, GRAN) == GRAN) {
		if (ivset__remove(c->part, g << GRAN_SHIFT, GRAN))
			return -ENOMEM;
		fill_granules(c, g, g + 1);
	}
	return c->err ? c->err : n;
}

/* Whole granules [lo, hi): their bytes, less the pieces already counted. */
static int64_t add_granules(struct covmap *c, uint64_t lo, uint64_t hi)
{
	uint64_t n = fill_granules(c, lo, hi) << GRAN_SHIFT, ov;

	if (c->err)
		return c->err;
	if (ivset__count(c->part) && (ov = ivset__covered(c->part, lo << GRAN_SHIFT, (hi - lo) << GRAN_SHIFT))) {
		if (ivset__remove(c->part, lo << GRAN_SHIFT, (hi - lo) << GRAN_SHIFT))
			return -ENOMEM;
		n -= ov;
	}
	return (int64_t)n;
}

/*
 * [off, off + len) clipped to the 64-bit space (its last byte is never covered) and
 * cut at granule edges: a head piece [a, lo << GRAN_SHIFT) of granule ga when a is
 * not aligned, whole granules [lo, hi), a tail piece [gb << GRAN_SHIFT, b) of
 * granule gb when b is not. A range inside one granule (ga == gb) is one piece
 * unless it is the whole granule. False when nothing is left.
 */
struct cut {
	uint64_t a, b, ga, gb, lo, hi;
};

static bool cut_range(uint64_t off, uint64_t len, struct cut *k)
{
	if (len > UINT64_MAX - off)
		len = UINT64_MAX - off;
	if (!len)
		return false;
	k->a = off;
	k->b = off + len;
	k->ga = k->a >> GRAN_SHIFT;
	k->gb = (k->b - 1) >> GRAN_SHIFT;
	k->lo = (k->a & (GRAN - 1)) ? k->ga + 1 : k->ga;
	k->hi = (k->b & (GRAN - 1)) ? k->gb : k->gb + 1;
	return true;
}

int64_t covmap__add(struct covmap *c, uint64_t off, uint64_t len)
{
	struct cut k;
	int64_t n = 0, r;

	if (!cut_range(off, len, &k))
		return 0;
	if (k.ga == k.gb && k.b - k.a != GRAN) {
		n = add_piece(c, k.ga, k.a, k.b);
	} else {
		if (k.lo != k.ga) {
			if ((r = add_piece(c, k.ga, k.a, k.lo << GRAN_SHIFT)) < 0)
				return r;
			n += r;
		}
		if (k.hi != k.gb + 1) {
			if ((r = add_piece(c, k.gb, k.gb << GRAN_SHIFT, k.b)) < 0)
				return r;
			n += r;
		}
		if (k.lo < k.hi) {
			if ((r = add_granules(c, k.lo, k.hi)) < 0)
				return r;
			n += r;
		}
	}
	if (n > 0)
		c->bytes += (uint64_t)n;
	return n;
}

/* The leaf that holds granule g, NULL if it does not exist. */
static const struct leaf *leaf_of(const struct covmap *c, uint64_t g)
{
	const void *p = c->root;

	if (g >> span_bits(c->height))
		return NULL;
	for (unsigned h = c->height; p && p != FULL; h--) {
		if (!h)
			return p;
		p = ((const struct inner *)p)->c[(g >> span_bits(h - 1)) & (FAN - 1)];
	}
	return NULL;
}

/*
 * Sets bits [from, to) of leaf l, a leaf that is in the map: the counts go up
 * through its parents, and a node that filled becomes FULL, from the leaf up
 * (what fill_leaf() does after walking down to it). The granules that were clear.
 */
static uint64_t leaf_add(struct covmap *c, struct leaf *l, uint64_t from, uint64_t to)
{
	uint64_t n = leaf_fill(l, from, to);
	struct node *x = &l->hd;

	if (!n)
		return 0;
	l->hd.set += n;
	for (struct inner *u = l->hd.up; u; u = u->hd.up)
		u->hd.set += n;
	for (unsigned h = 0; x->set == 1ull << span_bits(h); h++) {
		struct inner *up = x->up;
		void **slot = up ? &up->c[x->at] : &c->root;

		drop(c, x, h);
		*slot = FULL;
		if (!up)
			break;
		x = &up->hd;
	}
	return n;
}

#define TOUCH_BATCH 64

int covmap__add_many(struct covmap *c, const struct covmap_range *r, size_t n, uint64_t *fresh)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i += TOUCH_BATCH) {
		size_t m = n - i < TOUCH_BATCH ? n - i : TOUCH_BATCH;
		const struct leaf *l[TOUCH_BATCH];
		uint64_t any = 0, drops;

		/*
		 * Random offsets cost a cache miss each. Loading the words first,
		 * in a loop of independent loads, lets the CPU overlap the misses
		 * (the adds themselves are too long for it to run ahead).
		 */
		for (size_t k = 0; k < m; k++)
			l[k] = leaf_of(c, r[i + k].offset >> GRAN_SHIFT);
		for (size_t k = 0; k < m; k++) {	/* its count and the word: two cache lines */
			uint64_t g = r[i + k].offset >> GRAN_SHIFT;

			any |= l[k] ? l[k]->hd.set ^ l[k]->w[(g >> 6) & (LEAF_WORDS - 1)] : 0;
		}
		c->touch ^= any;
		drops = c->drops;
		for (size_t k = 0; k < m; k++) {
			uint64_t off = r[i + k].offset, len = r[i + k].length, g, lo, hi;
			int64_t a;

			/*
			 * What covmap__add() does for whole granules inside one leaf
			 * that exists, with no pieces to subtract (add_granules()),
			 * without its cutting and dispatch, and with the leaf found
			 * above, unless a node was dropped since (it may be reused):
			 * most discards.
			 */
			lo = off >> GRAN_SHIFT;
			hi = (off + len) >> GRAN_SHIFT;
			if (!((off | len) & (GRAN - 1)) && len && len <= UINT64_MAX - off && l[k] &&
			    c->drops == drops && !((lo ^ (hi - 1)) >> LEAF_BITS) && !ivset__count(c->part)) {
				uint64_t from = lo & ((1u << LEAF_BITS) - 1);

				g = leaf_add(c, (struct leaf *)l[k], from, from + (hi - lo));
				c->bytes += g << GRAN_SHIFT;
				sum += g << GRAN_SHIFT;
				continue;
			}
			a = covmap__add(c, off, len);

			if (a < 0)
				return (int)a;
			sum += (uint64_t)a;
		}
	}
	if (fresh)
		*fresh = sum;
	return 0;
}

uint64_t covmap__bytes(const struct covmap *c) { return c->bytes; }
size_t covmap__mem(const struct covmap *c) { return c->mem; }

/* Bytes of [a, b) inside granule g (a piece of it). */
static uint64_t piece_overlap(const struct covmap *c, uint64_t g, uint64_t a, uint64_t b)
{
	return granule_set(c, g) ? b - a : ivset__covered(c->part, a, b - a);
}

uint64_t covmap__overlap(const struct covmap *c, uint64_t off, uint64_t len)
{
	struct cut k;
	uint64_t n = 0;

	if (!cut_range(off, len, &k))
		return 0;
	if (k.ga == k.gb)
		return piece_overlap(c, k.ga, k.a, k.b);
	if (k.lo != k.ga)
		n += piece_overlap(c, k.ga, k.a, k.lo << GRAN_SHIFT);
	if (k.hi != k.gb + 1)
		n += piece_overlap(c, k.gb, k.gb << GRAN_SHIFT, k.b);
	if (k.lo < k.hi) {
		uint64_t top = 1ull << span_bits(c->height);

		if (k.lo < top)
			n += covered(c->root, c->height, 0, k.lo, min64(k.hi, top)) << GRAN_SHIFT;
		n += ivset__covered(c->part, k.lo << GRAN_SHIFT, (k.hi - k.lo) << GRAN_SHIFT);
	}
	return n;
}
