// SPDX-License-Identifier: GPL-2.0
/*
 * The FTL's translation: L2P chunks, erase blocks and their GC buckets,
 * garbage collection, host writes and discards, and the tables a deferred
 * FTL builds late (models/ftl.c has the overview).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "traces/trace.h"
#include "models/ftl_int.h"

static uint32_t *chunk_at(const struct ftl *f, uint32_t id)
{
	return &f->l2p[(uint64_t)(id - 1) << L2P_SHIFT];
}

/*
 * The chunk id for lpn, taken from the free list or the region on first use
 * (the region has room for every chunk); 0 when the directory could not grow.
 * A free chunk is all zero but for its link in entry 0.
 */
static uint32_t chunk_get(struct ftl *f, uint64_t lpn)
{
	uint32_t id = ftl_dir__find(&f->dir, lpn >> L2P_SHIFT);

	if (id)
		return id;
	id = f->chunk_free ? f->chunk_free : (uint32_t)(f->nchunks + 1);
	if (ftl_dir__add(&f->dir, lpn >> L2P_SHIFT, id))
		return 0;
	if (f->chunk_free) {
		f->chunk_free = chunk_at(f, id)[0];
		chunk_at(f, id)[0] = 0;
	} else {
		f->nchunks++;
	}
	return id;
}

/* Chunk id (lpn's) goes back to the free list if none of its entries is mapped; true if it did. */
static bool chunk_release(struct ftl *f, uint64_t lpn, uint32_t id)
{
	if (f->l2p_live[id - 1])
		return false;
	ftl_dir__del(&f->dir, lpn >> L2P_SHIFT);
	chunk_at(f, id)[0] = f->chunk_free;
	f->chunk_free = id;
	return true;
}

/* One entry of chunk id (lpn's) went from mapped to unmapped; true if the chunk went back. */
static bool chunk_put(struct ftl *f, uint64_t lpn, uint32_t id)
{
	f->l2p_live[id - 1]--;
	return chunk_release(f, lpn, id);
}

static void bucket_insert(struct ftl *f, uint32_t b)
{
	uint32_t v = f->valid[b];

	f->prev[b] = NIL;
	f->next[b] = f->bucket[v];
	if (f->bucket[v] != NIL)
		f->prev[f->bucket[v]] = b;
	f->bucket[v] = b;
}

static void bucket_remove(struct ftl *f, uint32_t b)
{
	if (f->prev[b] != NIL)
		f->next[f->prev[b]] = f->next[b];
	else
		f->bucket[f->valid[b]] = f->next[b];
	if (f->next[b] != NIL)
		f->prev[f->next[b]] = f->prev[b];
}

/* The erase block of physical page ppn (a shift for the usual power-of-two blocks, not a division). */
static uint32_t block_of(const struct ftl *f, uint32_t ppn)
{
	return f->ppb_shift ? ppn >> f->ppb_shift : ppn / f->ppb;
}

/*
 * k pages of block b became invalid. A full block moves to its new bucket once:
 * k moves of one step leave the lists the same (each puts b at the head of
 * the next bucket, and taking it out again restores that bucket).
 */
static void invalidate_n(struct ftl *f, uint32_t b, uint32_t k)
{
	f->valid_total -= k;
	if (f->state[b] == BLK_FULL) {
		bucket_remove(f, b);
		f->valid[b] -= k;
		bucket_insert(f, b);
	} else {
		f->valid[b] -= k;
	}
}

static void invalidate(struct ftl *f, uint32_t ppn)
{
	f->p2l[ppn] = 0;
	invalidate_n(f, block_of(f, ppn), 1);
}

static uint32_t pick_victim(struct ftl *f)
{
	uint32_t best = NIL;
	double best_score = -1;

	if (f->p.gc_policy == GC_GREEDY) {
		for (uint32_t v = 0; v < f->ppb; v++)
			if (f->bucket[v] != NIL)
				return f->bucket[v];
		return NIL;
	}
	for (uint32_t b = 0; b < f->nblocks; b++) {
		double score;

		if (f->state[b] != BLK_FULL || f->valid[b] == f->ppb)
			continue;
		if (!f->valid[b])
			return b;
		score = f->cb_weight[f->valid[b]] * (double)(f->clock - f->stamp[b] + 1);
		if (score > best_score) {
			best_score = score;
			best = b;
		}
	}
	return best;
}

static void gc(struct ftl *f);

/*
 * Takes a free block: the last one erased, else the lowest never used. The
 * free list holds only erased blocks, so the blocks a short replay never
 * reaches cost no memory (the list filled up front was ~70 page faults).
 */
static uint32_t free_pop(struct ftl *f)
{
	f->nfree--;
	if (f->nfree >= f->nfresh)
		return f->freelist[f->nfree - f->nfresh];
	return f->nblocks - f->nfresh--;
}

/*
 * Closes the full (or no) open block *blk and takes a free one, collecting
 * first for a host write when free blocks ran low. False when none is free.
 */
static bool open_block(struct ftl *f, uint32_t *blk, uint32_t *wp, bool for_gc)
{
	if (*blk != NIL) {
		f->state[*blk] = BLK_FULL;
		f->stamp[*blk] = f->clock;
		bucket_insert(f, *blk);
	}
	if (!for_gc && f->nfree < f->low)
		gc(f);
	if (!f->nfree)
		return false;
	*blk = free_pop(f);
	f->state[*blk] = BLK_OPEN;
	*wp = 0;
	return true;
}

/*
 * Maps lpn (whose L2P entry is *l2p) to the next page of the host or GC
 * open block; returns -ENOSPC when no block is free (cannot happen with
 * op > 0). Chunks never move, so *l2p stays valid across the GC that
 * open_block() may run. Inline: GC calls it for every page it copies.
 */
static inline int program(struct ftl *f, uint32_t *l2p, uint32_t lpn, bool for_gc)
{
	uint32_t *blk = for_gc ? &f->gc_blk : &f->host_blk;
	uint32_t *wp = for_gc ? &f->gc_wp : &f->host_wp;
	uint32_t ppn;

	if ((*blk == NIL || *wp == f->ppb) && !open_block(f, blk, wp, for_gc))
		return -ENOSPC;
	ppn = *blk * f->ppb + (*wp)++;
	f->p2l[ppn] = lpn + 1;
	*l2p = ppn + 1;
	f->valid[*blk]++;
	f->valid_total++;
	return 0;
}

/* True when a GC copy would find no page: the GC block is full and no block is free. */
static bool next_free_check(const struct ftl *f)
{
	return (f->gc_blk == NIL || f->gc_wp == f->ppb) && !f->nfree;
}

/* Relocates one victim's valid pages and erases it; returns the time it took, 0 if there is nothing to gain. */
static uint64_t gc_one(struct ftl *f, uint32_t v)
{
	uint64_t copies = 0, t;

	if (v == NIL || f->valid[v] == f->ppb)
		return 0;
	bucket_remove(f, v);
	f->state[v] = BLK_OPEN;	/* out of the buckets while it drains */
	for (uint32_t i = 0; i < f->ppb && f->valid[v]; i++) {
		uint32_t ppn = v * f->ppb + i, lpn1 = f->p2l[ppn];

		if (!lpn1)
			continue;
		if (next_free_check(f))
			break;
		invalidate(f, ppn);	/* the lpn stays mapped: its chunk exists */
		program(f, &chunk_at(f, ftl_dir__find(&f->dir, (lpn1 - 1) >> L2P_SHIFT))[(lpn1 - 1) & (L2P_CHUNK - 1)],
			lpn1 - 1, true);
		copies++;
	}
	t = copies * (f->p.page_read + f->p.page_write) + f->p.block_erase;
	f->gc_pages += copies;
	if (f->valid[v]) {	/* no room to finish: keep the block (cannot happen with op > 0) */
		f->state[v] = BLK_FULL;
		bucket_insert(f, v);
		return 0;
	}
	f->state[v] = BLK_FREE;
	f->freelist[f->nfree++ - f->nfresh] = v;
	f->erases++;
	return t;
}

/* Foreground GC: the writing command waits for it. */
static void gc(struct ftl *f)
{
	for (uint32_t guard = 0; f->nfree < f->high && guard < f->nblocks; guard++) {
		uint64_t t = gc_one(f, pick_victim(f));

		if (!t)
			break;
		f->cur_gc += t;
	}
}

/* Background GC in the idle gap before `now`: only whole victims that fit in the gap. */
void ftl_map__gc_idle(struct ftl *f, uint64_t now)
{
	uint64_t idle_from = f->s.last_done > f->idle_used ? f->s.last_done : f->idle_used;
	uint64_t budget = now > idle_from ? now - idle_from : 0;

	while (f->nfree < f->high && budget) {
		uint32_t v = pick_victim(f);
		uint64_t t;

		if (v == NIL || (uint64_t)f->valid[v] * (f->p.page_read + f->p.page_write) + f->p.block_erase > budget)
			break;
		t = gc_one(f, v);
		if (!t)
			break;
		budget -= t;
		f->bg_gc_ns += t;
		f->idle_used = now - budget;
	}
}

/*
 * Unmaps logical pages [lpn, stop) of one chunk; returns the pages it freed.
 * Their blocks are counted in runs: *run pages of *run_blk not yet moved to
 * their bucket (the pages a discard frees mostly sit together in one block).
 */
static inline uint64_t unmap_chunk(struct ftl *f, uint64_t lpn, uint64_t stop, uint32_t *run_blk, uint32_t *run)
{
	uint32_t id = ftl_dir__find(&f->dir, lpn >> L2P_SHIFT), *c, live, k = 0;
	uint64_t first = lpn;

	if (!id)
		return 0;	/* no chunk: nothing mapped there */
	c = chunk_at(f, id);
	live = f->l2p_live[id - 1];
	for (; lpn < stop && k < live; lpn++) {	/* past its last mapped entry, nothing left to find */
		uint32_t *e = &c[lpn & (L2P_CHUNK - 1)], ppn, blk;

		if (!*e)
			continue;
		ppn = *e - 1;
		*e = 0;
		blk = block_of(f, ppn);
		f->p2l[ppn] = 0;
		if (blk != *run_blk) {
			if (*run)
				invalidate_n(f, *run_blk, *run);
			*run_blk = blk;
			*run = 0;
		}
		(*run)++;
		k++;
	}
	f->l2p_live[id - 1] = live - k;
	if (k)
		chunk_release(f, first, id);	/* to the free list if it emptied */
	return k;
}

/*
 * Chunk by chunk in logical order; a range with more chunk numbers than the
 * directory has slots visits the chunks the directory lists in that range
 * instead (the same ones, in the same order), so trimming a whole sparse
 * device does not look up every 64 KiB of it.
 */
uint64_t ftl_map__unmap(void *ctx, uint64_t off, uint64_t len, bool *aligned)
{
	struct ftl *f = ctx;
	uint64_t g = f->p.discard_granularity > (1ull << f->ps_shift) ? f->p.discard_granularity
								      : 1ull << f->ps_shift;
	uint64_t a = (off + g - 1) / g * g, b = (off + len) / g * g, freed = 0;
	uint64_t lpn = a >> f->ps_shift, end = b >> f->ps_shift, *keys = NULL;
	uint32_t run_blk = NIL, run = 0;
	size_t n;

	*aligned = b > a;
	if (lpn < end && (keys = ftl_dir__range(&f->dir, lpn >> L2P_SHIFT, ((end - 1) >> L2P_SHIFT) + 1, &n))) {
		for (size_t i = 0; i < n; i++) {
			uint64_t lo = keys[i] << L2P_SHIFT, hi = lo + L2P_CHUNK;

			freed += unmap_chunk(f, lo > lpn ? lo : lpn, hi < end ? hi : end, &run_blk, &run);
		}
		free(keys);
	}
	for (uint64_t stop; !keys && lpn < end; lpn = stop) {
		stop = ((lpn >> L2P_SHIFT) + 1) << L2P_SHIFT;
		if (stop > end)
			stop = end;
		freed += unmap_chunk(f, lpn, stop, &run_blk, &run);
	}
	if (run)
		invalidate_n(f, run_blk, run);
	f->trimmed_pages += freed;
	return freed << f->ps_shift;
}

/*
 * Maps logical pages [first, last) to newly programmed pages, in order, a run
 * at a time: the pages of one L2P chunk that go to one open block. As page by
 * page, a page's old copy is invalidated before its new one is programmed;
 * the first page of a run does that before the block is opened, so the GC
 * that opening may run does not copy it, and no GC runs within a run.
 */
static int write_pages(struct ftl *f, uint64_t first, uint64_t last)
{
	for (uint64_t lpn = first; lpn < last;) {
		uint32_t id = chunk_get(f, lpn), *c, *p2l = f->p2l;
		uint64_t n = L2P_CHUNK - (lpn & (L2P_CHUNK - 1));

		if (!id)
			return -ENOMEM;
		c = chunk_at(f, id) + (lpn & (L2P_CHUNK - 1));
		n = n < last - lpn ? n : last - lpn;
		while (n) {
			uint32_t old = c[0], fresh = !old, k, ppn, blk;

			if (old)
				invalidate(f, old - 1);
			c[0] = 0;
			if ((f->host_blk == NIL || f->host_wp == f->ppb) &&
			    !open_block(f, &f->host_blk, &f->host_wp, false)) {
				if (old)
					chunk_put(f, lpn, id);
				else
					chunk_release(f, lpn, id);
				return -ENOSPC;
			}
			blk = f->host_blk;
			k = f->ppb - f->host_wp < n ? f->ppb - f->host_wp : (uint32_t)n;
			ppn = blk * f->ppb + f->host_wp;
			c[0] = ppn + 1;
			p2l[ppn] = (uint32_t)lpn + 1;
			for (uint32_t i = 1; i < k; i++) {
				old = c[i];
				if (old)
					invalidate(f, old - 1);
				else
					fresh++;
				c[i] = ppn + i + 1;
				p2l[ppn + i] = (uint32_t)lpn + i + 1;
			}
			f->host_wp += k;
			f->valid[blk] += k;
			f->valid_total += k;
			f->clock += k;
			f->l2p_live[id - 1] += fresh;
			c += k;
			lpn += k;
			n -= k;
		}
	}
	return 0;
}

/*
 * Builds the tables of a deferred FTL: replays the listed writes (no GC can
 * run in them: they kept gc_high blocks free) and fills in the valid page
 * counts of the time series points taken meanwhile.
 */
int ftl_map__build(struct ftl *f)
{
	uint32_t k = 0;
	int ret = 0;

	if (!f->defer)
		return 0;
	f->defer = false;
	for (uint64_t i = 0; !ret; i++) {
		for (; k < f->nts && f->ts[k].pend == i + 1; k++) {
			f->ts[k].valid = f->valid_total;
			f->ts[k].pend = 0;
		}
		if (i == f->nhist)
			break;
		ret = write_pages(f, f->hist[2 * i], (uint64_t)f->hist[2 * i] + f->hist[2 * i + 1]);
	}
	model_big_free(f->hist, f->hist_cap * 2 * sizeof(uint32_t));
	f->hist = NULL;
	return ret;
}

/*
 * Lists a write of n pages at lpn on a deferred FTL: true when it left at
 * least gc_high blocks free (so no GC could have run in it or can run before
 * the next write), false (nothing listed) when the tables must be built first.
 */
static bool defer_write(struct ftl *f, uint64_t lpn, uint64_t n)
{
	uint64_t opens = n > f->d_room ? (n - f->d_room + f->ppb - 1) / f->ppb : 0;

	if (f->nhist == f->hist_cap || f->d_free < opens + f->high)
		return false;
	f->hist[2 * f->nhist] = (uint32_t)lpn;
	f->hist[2 * f->nhist + 1] = (uint32_t)n;
	f->nhist++;
	f->d_free -= (uint32_t)opens;
	f->d_room = (uint32_t)(opens * f->ppb + f->d_room - n);
	return true;
}

int ftl_map__write(struct ftl *f, uint64_t off, uint64_t len, uint64_t *pages)
{
	uint64_t first = off >> f->ps_shift, last = (off + len + (1ull << f->ps_shift) - 1) >> f->ps_shift;
	int ret;

	*pages = last - first;
	if (first == last || (f->defer && defer_write(f, first, last - first)))
		return 0;
	ret = ftl_map__build(f);
	return ret ? ret : write_pages(f, first, last);
}
