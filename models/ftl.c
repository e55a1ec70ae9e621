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
#include "models/ftl_int.h"

#define MAX_MEM (4ull << 30)	/* mapping tables: 1 TiB at 4 KiB pages */

static void *zalloc(struct ftl *f, size_t n, size_t sz)
{
	f->mem += n * sz;
	return model_big_alloc(n * sz);
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
	model_jitter_init(&f->jit, env->seed ^ 0x66746c6d6f64656cull, f->p.jitter);
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
	if (pages && ftl_map__write(f, 0, pages << f->ps_shift, &pages))
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
		ftl_map__gc_idle(f, cmd->submit_ns);
	switch (cmd->op) {
	case TS_OP_READ:
		service = p->read_base + ((c.d->bytes + p->page_size - 1) >> f->ps_shift) * p->page_read;
		break;
	case TS_OP_WRITE:
	case TS_OP_WRITE_ZEROES:
		ret = ftl_map__write(f, cmd->offset, cmd->length, &pages);
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
		f->discard_req += c.d->bytes;
		service = model_discard(p, c.r, c.n, ftl_map__unmap, f, &f->ds, c.d);
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
	ret = model_cmd_place(&c, &f->s, p, &f->jit, service, f->cur_gc);
	ts_sample(f, c.d->done_ns);
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
	int ret = ftl_map__build(f);

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
