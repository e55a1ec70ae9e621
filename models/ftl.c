// SPDX-License-Identifier: GPL-2.0
/*
 * FTL engine: a page-mapped flash translation layer with garbage collection.
 *
 * L2P and P2L hold u32 index+1 (0 = unmapped/invalid). The P2L is one
 * array, touched in flash order as pages are programmed. The L2P is sparse:
 * a directory from chunk number (16 logical pages) to chunk id, a small hash
 * table until the mapping is dense (models/ftl_dir.h), and chunks of
 * 16 entries (one cache line) handed out from one lazily touched region, so
 * the memory in use is dense however scattered the writes. A chunk whose
 * pages are all trimmed goes back to a free list (linked through its first
 * entry) for the next write, so a workload that deletes what it writes
 * stays small. 256 GiB at 4 KiB pages: 16 MiB of directory, 4 MiB of chunk
 * counts, 64 bytes per 64 KiB region mapped (at most 256 MiB), plus ~7% more
 * than the user pages of P2L; per-block metadata is ~21 bytes. Host writes and GC relocations go to separate open blocks.
 * When free blocks fall below gc_low the writing command runs foreground GC
 * until gc_high: greedy picks the block with the fewest valid pages (O(1)
 * with lists bucketed by valid count), cost-benefit maximises
 * (1-u)/2u x age (Rosenblum & Ousterhout, LFS, 1992; age is host pages
 * written since the block was filled; O(blocks) per victim).
 * A TRIM invalidates the whole pages it covers, so GC need not copy them.
 * The GC time of a command is added to its service time (a GC stall).
 *
 * An FTL that rejects discards (the baseline twin of every replay, see
 * replay/engine/engine_setup.c) defers its tables: until GC could run, a
 * command's time depends only on how many pages were written (which blocks
 * open, how many stay free), never on which, so its host writes are kept as
 * a list of (first page, pages) and the counters of free blocks and pages
 * move by arithmetic. The tables are built from that list, exactly as the
 * writes would have built them, when free blocks would fall below gc_high
 * (GC in an idle gap or in a write is then possible), when the list reaches
 * the size of the L2P directory, or for the report; from then on the FTL
 * runs as above. Results are the same either way (tests/models/test_ftl.c,
 * deferred_equals_eager).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "traces/trace.h"
#include "models/ftl_dir.h"
#include "models/model_int.h"

#define NIL UINT32_MAX
#define TS_POINTS 256
#define MAX_MEM (4ull << 30)	/* mapping tables: 1 TiB at 4 KiB pages */
#define L2P_SHIFT 4		/* 16 L2P entries (64 bytes) per chunk */
#define L2P_CHUNK (1u << L2P_SHIFT)
enum { BLK_FREE = 0, BLK_OPEN = 1, BLK_FULL = 2 };

struct ts_point {
	uint64_t t_ns, valid, free, host, gc;
	uint64_t pend;			/* deferred: valid is the count after this many - 1 listed writes; 0 = known */
};

struct ftl {
	struct model_params p;
	struct msched s;
	uint64_t rng;
	uint32_t ps_shift, ppb, nblocks;
	uint32_t ppb_shift;		/* log2(ppb) when ppb is a power of two, else 0 */
	uint64_t lpages, ppages;
	uint32_t *l2p_dir;		/* the directory's region, one u32 per L2P_CHUNK logical pages */
	struct ftl_dir dir;		/* chunk number -> chunk id (1-based), 0 = none mapped (models/ftl_dir.h) */
	uint32_t *l2p;			/* the chunks, L2P_CHUNK entries each; chunk id c at (c - 1) * L2P_CHUNK */
	uint8_t *l2p_live;		/* per chunk id - 1: its entries that are mapped */
	uint32_t *p2l;
	uint32_t chunk_free;		/* free list of chunk ids, linked through entry 0; 0 = empty */
	uint64_t nchunks;		/* chunk ids handed out (the high-water mark); memory_bytes counts these */
	uint32_t *valid, *prev, *next, *freelist, *bucket;
	double *cb_weight;		/* cost-benefit: (1-u)/2u for each valid count, u = valid / ppb */
	uint64_t *stamp;
	uint8_t *state;
	uint32_t nfree, low, high;
	uint32_t nfresh;		/* free blocks never used: nblocks - nfresh .. nblocks - 1, popped in that order */
	uint32_t host_blk, host_wp, gc_blk, gc_wp;
	uint64_t valid_total, clock;
	uint64_t host_pages, gc_pages, erases, gc_ns, gc_stalls, max_stall, cur_gc;
	uint64_t trimmed_pages, mem;
	uint64_t discard_req;
	struct model_op_count ops[TS_OP_MAX + 1];
	uint64_t bg_gc_ns, idle_used;	/* background GC time; end of the last idle-gap GC */
	struct discard_stats ds;
	struct ts_point ts[TS_POINTS];
	uint32_t nts;
	uint64_t ts_every, ncmds;
	bool defer;			/* tables not built yet: host writes listed in hist */
	uint32_t *hist;			/* deferred host writes: first page, pages */
	uint64_t nhist, hist_cap;	/* pairs listed; room (the directory's size in bytes / 8) */
	uint32_t d_free, d_room;	/* deferred: free blocks; pages left in the open host block */
};

static void *zalloc(struct ftl *f, size_t n, size_t sz)
{
	f->mem += n * sz;
	return model_big_alloc(n * sz);
}

static uint64_t ndir(const struct ftl *f)
{
	return (f->lpages + L2P_CHUNK - 1) >> L2P_SHIFT;
}

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
static void gc_idle(struct ftl *f, uint64_t now)
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

static void ts_sample(struct ftl *f, uint64_t t_ns)
{
	struct ts_point *pt;

	if (f->ncmds++ % f->ts_every)
		return;
	if (f->nts == TS_POINTS) {	/* keep every other point, sample half as often */
		for (uint32_t i = 0; i < TS_POINTS / 2; i++)
			f->ts[i] = f->ts[2 * i];
		f->nts = TS_POINTS / 2;
		f->ts_every *= 2;
		if ((f->ncmds - 1) % f->ts_every)
			return;
	}
	pt = &f->ts[f->nts++];
	pt->t_ns = t_ns;
	pt->valid = f->valid_total;
	pt->free = (uint64_t)f->nfree * f->ppb + (f->host_blk == NIL ? 0 : f->ppb - f->host_wp) +
		   (f->gc_blk == NIL ? 0 : f->ppb - f->gc_wp);
	pt->pend = 0;
	if (f->defer) {
		pt->free = (uint64_t)f->d_free * f->ppb + f->d_room;
		pt->pend = f->nhist + 1;
	}
	pt->host = f->host_pages;
	pt->gc = f->gc_pages;
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
static uint64_t unmap(void *ctx, uint64_t off, uint64_t len, bool *aligned)
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
static int build_tables(struct ftl *f)
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

static int host_write(struct ftl *f, uint64_t off, uint64_t len, uint64_t *pages)
{
	uint64_t first = off >> f->ps_shift, last = (off + len + (1ull << f->ps_shift) - 1) >> f->ps_shift;
	int ret;

	*pages = last - first;
	if (first == last || (f->defer && defer_write(f, first, last - first)))
		return 0;
	ret = build_tables(f);
	return ret ? ret : write_pages(f, first, last);
}

static void ftl_close(void *e)
{
	struct ftl *f = e;

	if (!f)
		return;
	msched__fini(&f->s);
	model_big_free(f->l2p_dir, ndir(f) * sizeof(uint32_t));
	model_big_free(f->l2p, (ndir(f) << L2P_SHIFT) * sizeof(uint32_t));
	model_big_free(f->l2p_live, ndir(f));
	model_big_free(f->p2l, f->ppages * sizeof(uint32_t));
	model_big_free(f->valid, f->nblocks * sizeof(uint32_t));
	model_big_free(f->prev, f->nblocks * sizeof(uint32_t));
	model_big_free(f->next, f->nblocks * sizeof(uint32_t));
	model_big_free(f->freelist, f->nblocks * sizeof(uint32_t));
	model_big_free(f->bucket, (f->ppb + 1) * sizeof(uint32_t));
	model_big_free(f->cb_weight, f->ppb * sizeof(double));
	model_big_free(f->stamp, f->nblocks * sizeof(uint64_t));
	model_big_free(f->state, f->nblocks * sizeof(uint8_t));
	model_big_free(f->hist, f->hist_cap * 2 * sizeof(uint32_t));
	free(f);
}

static void *ftl_open(const struct model_profile *prof, const struct target_env *env, char *err, size_t errlen)
{
	struct ftl *f = calloc(1, sizeof(*f));
	uint64_t cap, pages;

	if (!f)
		goto nomem;
	model_params_init(&f->p, prof, env);
	f->rng = env->seed ^ 0x66746c6d6f64656cull;
	f->ps_shift = (uint32_t)__builtin_ctzll(f->p.page_size);
	f->ppb = (uint32_t)(f->p.block_size >> f->ps_shift);
	f->ppb_shift = model_is_pow2(f->ppb) ? (uint32_t)__builtin_ctz(f->ppb) : 0;
	cap = model_device_size(&f->p, env);
	f->lpages = (cap + f->p.page_size - 1) >> f->ps_shift;
	pages = (uint64_t)((double)f->lpages * (1.0 + f->p.op) + 0.5);
	f->nblocks = (uint32_t)((pages + f->ppb - 1) / f->ppb + 2);
	f->ppages = (uint64_t)f->nblocks * f->ppb;
	if (f->ppages >= NIL || f->nblocks < 8) {
		snprintf(err, errlen, "model %s: capacity %llu at page_size %llu gives %llu flash pages "
			 "(allowed 8 blocks .. 2^32 pages)", prof->name, (unsigned long long)cap,
			 (unsigned long long)f->p.page_size, (unsigned long long)f->ppages);
		ftl_close(f);
		errno = ERANGE;
		return NULL;
	}
	if ((f->lpages + f->ppages) * 4 + (uint64_t)f->nblocks * 21 > MAX_MEM) {
		snprintf(err, errlen, "model %s: capacity %llu at page_size %llu needs %llu MiB of mapping "
			 "tables (limit %llu MiB); raise page_size", prof->name, (unsigned long long)cap,
			 (unsigned long long)f->p.page_size,
			 (unsigned long long)(((f->lpages + f->ppages) * 4 + (uint64_t)f->nblocks * 21) >> 20),
			 (unsigned long long)(MAX_MEM >> 20));
		ftl_close(f);
		errno = ERANGE;
		return NULL;
	}
	f->low = (uint32_t)(f->p.gc_low * f->nblocks);
	f->high = (uint32_t)(f->p.gc_high * f->nblocks);
	if (f->low < 2)
		f->low = 2;
	if (f->high <= f->low)
		f->high = f->low + 1;
	f->l2p_dir = zalloc(f, ndir(f), sizeof(uint32_t));
	f->l2p = model_big_alloc((ndir(f) << L2P_SHIFT) * sizeof(uint32_t));	/* counted as used */
	f->l2p_live = zalloc(f, ndir(f), sizeof(uint8_t));
	f->p2l = zalloc(f, f->ppages, sizeof(uint32_t));
	f->valid = zalloc(f, f->nblocks, sizeof(uint32_t));
	f->prev = zalloc(f, f->nblocks, sizeof(uint32_t));
	f->next = zalloc(f, f->nblocks, sizeof(uint32_t));
	f->freelist = zalloc(f, f->nblocks, sizeof(uint32_t));
	f->bucket = zalloc(f, f->ppb + 1, sizeof(uint32_t));
	f->stamp = zalloc(f, f->nblocks, sizeof(uint64_t));
	f->state = zalloc(f, f->nblocks, sizeof(uint8_t));
	if (!f->l2p_dir || !f->l2p || !f->l2p_live || !f->p2l || !f->valid || !f->prev || !f->next || !f->freelist || !f->bucket ||
	    !f->stamp || !f->state || msched__init(&f->s, f->p.channels, f->p.qd))
		goto nomem;
	ftl_dir__init(&f->dir, f->l2p_dir, ndir(f));
	for (uint32_t v = 0; v <= f->ppb; v++)
		f->bucket[v] = NIL;
	if (f->p.gc_policy == GC_COST_BENEFIT) {
		f->cb_weight = zalloc(f, f->ppb, sizeof(double));
		if (!f->cb_weight)
			goto nomem;
		for (uint32_t v = 1; v < f->ppb; v++) {
			double u = (double)v / f->ppb;

			f->cb_weight[v] = (1.0 - u) / (2.0 * u);
		}
	}
	f->nfree = f->nfresh = f->nblocks;	/* pop order: block 0 first */
	f->host_blk = f->gc_blk = NIL;
	f->ts_every = 64;
	if (!f->p.discard_supported) {
		f->hist_cap = ndir(f) / 2;
		f->hist = model_big_alloc(f->hist_cap * 2 * sizeof(uint32_t));	/* gone before any report */
		if (!f->hist)
			goto nomem;
		f->defer = true;
		f->d_free = f->nblocks;
	}
	pages = (uint64_t)(f->p.prefill * (double)f->lpages);
	if (pages && host_write(f, 0, pages << f->ps_shift, &pages))
		goto nomem;
	f->host_pages = f->gc_pages = f->erases = f->cur_gc = 0;
	return f;
nomem:
	ftl_close(f);
	snprintf(err, errlen, "model %s: out of memory", prof->name);
	errno = ENOMEM;
	return NULL;
}

static int ftl_submit(void *e, const struct target_cmd *cmd)
{
	struct ftl *f = e;
	const struct model_params *p = &f->p;
	struct model_cmd c;
	uint64_t service = 0, pages = 0;
	int ret;

	if (!model_cmd_begin(&c, cmd, f->ops, &f->s, p, f->lpages << f->ps_shift, &f->ds, &ret))
		return ret;
	f->cur_gc = 0;
	if (p->gc_idle)
		gc_idle(f, cmd->submit_ns);
	switch (cmd->op) {
	case TS_OP_READ:
		service = p->read_base + ((c.d.bytes + p->page_size - 1) >> f->ps_shift) * p->page_read;
		break;
	case TS_OP_WRITE:
	case TS_OP_WRITE_ZEROES:
		ret = host_write(f, cmd->offset, cmd->length, &pages);
		if (ret)
			return ret;
		f->host_pages += pages;
		service = p->write_base + pages * p->page_write;
		break;
	case TS_OP_FLUSH:
		service = p->flush_base;
		break;
	case TS_OP_DISCARD:
	case TS_OP_SECURE_ERASE:
		f->discard_req += c.d.bytes;
		service = model_discard(p, c.r, c.n, unmap, f, &f->ds, &c.d);
		break;
	default:
		break;
	}
	if (f->cur_gc) {
		f->gc_stalls++;
		f->gc_ns += f->cur_gc;
		if (f->cur_gc > f->max_stall)
			f->max_stall = f->cur_gc;
	}
	ret = model_cmd_place(&c, &f->s, p, &f->rng, service, f->cur_gc);
	ts_sample(f, c.d.done_ns);
	return ret;
}

static struct msched *ftl_sched(void *e)
{
	return &((struct ftl *)e)->s;
}

static json_t *ts_json(const struct ftl *f)
{
	json_t *a = json_array();

	for (uint32_t i = 0; a && i < f->nts; i++) {
		const struct ts_point *pt = &f->ts[i];

		json_array_append_new(a, json_pack("{s:f,s:I,s:I,s:I,s:I}", "t_s", (double)pt->t_ns / 1e9,
						   "valid_pages", (json_int_t)pt->valid, "free_pages",
						   (json_int_t)pt->free, "host_pages", (json_int_t)pt->host,
						   "gc_pages", (json_int_t)pt->gc));
	}
	return a;
}

static int ftl_report(void *e, json_t *o)
{
	struct ftl *f = e;
	double wa = f->host_pages ? (double)(f->host_pages + f->gc_pages) / (double)f->host_pages : 1.0;
	int ret = build_tables(f);

	if (ret)
		return ret;

	json_object_set_new(o, "commands", json_pack("{s:I,s:I,s:I,s:I}", "read", (json_int_t)f->ops[TS_OP_READ].cmds,
						    "write", (json_int_t)(f->ops[TS_OP_WRITE].cmds +
									 f->ops[TS_OP_WRITE_ZEROES].cmds),
						    "flush", (json_int_t)f->ops[TS_OP_FLUSH].cmds, "discard",
						    (json_int_t)(f->ops[TS_OP_DISCARD].cmds +
								 f->ops[TS_OP_SECURE_ERASE].cmds)));
	json_object_set_new(o, "write_amplification", json_real(wa));
	json_object_set_new(o, "host_pages_written", json_integer((json_int_t)f->host_pages));
	json_object_set_new(o, "gc_pages_copied", json_integer((json_int_t)f->gc_pages));
	json_object_set_new(o, "blocks_erased", json_integer((json_int_t)f->erases));
	json_object_set_new(o, "gc_time_s", json_real((double)(f->gc_ns + f->bg_gc_ns) / 1e9));
	json_object_set_new(o, "foreground_gc_time_s", json_real((double)f->gc_ns / 1e9));
	json_object_set_new(o, "background_gc_time_s", json_real((double)f->bg_gc_ns / 1e9));
	json_object_set_new(o, "gc_stalls", json_integer((json_int_t)f->gc_stalls));
	json_object_set_new(o, "max_gc_stall_s", json_real((double)f->max_stall / 1e9));
	json_object_set_new(o, "trimmed_pages", json_integer((json_int_t)f->trimmed_pages));
	model_report_discards(o, &f->ds, f->discard_req);
	json_object_set_new(o, "user_pages", json_integer((json_int_t)f->lpages));
	json_object_set_new(o, "flash_pages", json_integer((json_int_t)f->ppages));
	json_object_set_new(o, "valid_pages", json_integer((json_int_t)f->valid_total));
	json_object_set_new(o, "free_blocks", json_integer((json_int_t)f->nfree));
	json_object_set_new(o, "memory_bytes", json_integer((json_int_t)(f->mem + f->nchunks * L2P_CHUNK * sizeof(uint32_t))));
	json_object_set_new(o, "timeseries", ts_json(f));
	return 0;
}

static const char *const gc_choices[] = { "greedy", "cost-benefit", NULL };

static const struct opt_spec ftl_opts[] = {
	MODEL_COMMON_OPTS,
	{ "page_size", OPT_BYTES, MODEL_P(page_size), 512, 65536, "4K", "mapping unit (flash page)" },
	{ "block_size", OPT_BYTES, MODEL_P(block_size), 4096, 1073741824, "1M", "erase block" },
	{ "op", OPT_DOUBLE, MODEL_P(op), 0.01, 4, "0.07", "over-provisioning: spare / user capacity" },
	{ "gc_policy", OPT_ENUM, MODEL_P(gc_policy), 0, 0, "greedy", "victim selection", gc_choices },
	{ "gc_low", OPT_DOUBLE, MODEL_P(gc_low), 0, 0.5, "0.02", "start GC when free blocks fall below this share" },
	{ "gc_high", OPT_DOUBLE, MODEL_P(gc_high), 0, 0.5, "0.04", "GC until free blocks reach this share" },
	{ "page_read", OPT_DURATION, MODEL_P(page_read), 0, 1e9, "10us", "effective read time per page" },
	{ "page_write", OPT_DURATION, MODEL_P(page_write), 0, 1e9, "15us", "effective program time per page" },
	{ "block_erase", OPT_DURATION, MODEL_P(block_erase), 0, 1e9, "1ms", "effective erase time per block" },
	{ "prefill", OPT_DOUBLE, MODEL_P(prefill), 0, 1, "0", "share of user space written sequentially before time 0" },
	{ "gc_idle", OPT_BOOL, MODEL_P(gc_idle), 0, 0, "false",
	  "collect in idle gaps (up to gc_high) without delaying commands" },
	{ 0 },
};

/* Relations between the FTL parameters a single option range cannot express. */
static int ftl_check(const struct model_params *p, const char *label, char *err, size_t errlen)
{
	if (!model_is_pow2(p->page_size)) {
		snprintf(err, errlen, "%s: option 'page_size': %llu must be a power of two in [512, 65536]",
			 label, (unsigned long long)p->page_size);
		return -ERANGE;
	}
	if (p->block_size % p->page_size || p->block_size / p->page_size < 2 ||
	    p->block_size / p->page_size > 65536) {
		snprintf(err, errlen, "%s: option 'block_size': %llu must be 2..65536 pages of page_size (%llu)",
			 label, (unsigned long long)p->block_size, (unsigned long long)p->page_size);
		return -ERANGE;
	}
	if ((double)p->capacity / (double)p->page_size * (1.0 + p->op) > 4.0e9) {
		snprintf(err, errlen, "%s: option 'capacity': %llu needs more than 4e9 pages of %llu bytes "
			 "(raise page_size)", label, (unsigned long long)p->capacity,
			 (unsigned long long)p->page_size);
		return -ERANGE;
	}
	if (p->gc_high <= p->gc_low) {
		snprintf(err, errlen, "%s: option 'gc_high': %g must be greater than gc_low (%g)",
			 label, p->gc_high, p->gc_low);
		return -ERANGE;
	}
	return 0;
}

const struct model_engine_ops ftl_engine_ops = {
	.name = "ftl",
	.help = "page-mapped FTL: L2P table, over-provisioning, garbage collection (greedy or cost-benefit)",
	.opts = ftl_opts,
	.check = ftl_check,
	.open = ftl_open,
	.submit = ftl_submit,
	.sched = ftl_sched,
	.report = ftl_report,
	.close = ftl_close,
};
