/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The FTL engine's state, shared by models/ftl.c (the engine: open, submit,
 * report, options) and models/ftl_map.c (the translation: L2P chunks, blocks,
 * GC, host writes and discards, the deferred tables). models/ftl.c says how
 * it works.
 */
#ifndef TRIMSIM_MODELS_FTL_INT_H
#define TRIMSIM_MODELS_FTL_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "traces/trace.h"
#include "models/ftl_dir.h"
#include "models/model_int.h"

#define NIL UINT32_MAX
#define TS_POINTS 256
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
	struct model_jitter jit;
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

static inline uint64_t ndir(const struct ftl *f)
{
	return (f->lpages + L2P_CHUNK - 1) >> L2P_SHIFT;
}

/* Host write of [off, off + len): *pages programmed (or listed, deferred); 0, -ENOSPC or -ENOMEM. */
int ftl_map__write(struct ftl *f, uint64_t off, uint64_t len, uint64_t *pages);
/* The unmap callback of model_discard() (models/model_int.h): frees the whole pages of a range. */
uint64_t ftl_map__unmap(void *ctx, uint64_t off, uint64_t len, bool *aligned);
/* Background GC in the idle gap before `now`. */
void ftl_map__gc_idle(struct ftl *f, uint64_t now);
/* Builds a deferred FTL's tables (a no-op once built); 0 or -errno. */
int ftl_map__build(struct ftl *f);

#endif
