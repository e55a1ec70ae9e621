// SPDX-License-Identifier: GPL-2.0
/*
 * Service slots and the completion heap shared by the model engines.
 *
 * Non-queued commands follow libata: a non-NCQ command (DSM TRIM without
 * FPDMA SEND) cannot be issued while NCQ commands are active, so the queue
 * drains first and nothing else is issued until it completes
 * (drivers/ata/libata-core.c, ata_std_qc_defer(); libata-scsi.c,
 * ata_scsi_write_same_xlat() picks ATA_CMD_FPDMA_SEND only when queued
 * TRIM is supported and not blacklisted with ATA_HORKAGE_NO_NCQ_TRIM).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "traces/trace.h"
#include "models/model_int.h"

#define HUGE_PAGE (2ull << 20)

/*
 * The mapping starts on a huge-page boundary: mmap() gives 4 KiB alignment,
 * and the part before the first 2 MiB boundary can only have small pages (on
 * a 2M-record FTL replay ~500 page faults per table, each ~15 us on a VM).
 * So map one huge page more and unmap the unaligned head and the tail.
 */
void *model_big_alloc(size_t bytes)
{
	size_t len = (bytes + 4095) & ~(size_t)4095, head;
	char *p;

	if (bytes < HUGE_PAGE)
		return calloc(bytes ? bytes : 1, 1);
	p = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	head = (size_t)(-(uintptr_t)p & (HUGE_PAGE - 1));
	if (head)
		munmap(p, head);
	munmap(p + head + len, HUGE_PAGE - head);
	p += head;
	madvise(p, len, MADV_HUGEPAGE);	/* a hint: without THP the table still works */
	return p;
}

void model_big_free(void *p, size_t bytes)
{
	if (!p)
		return;
	if (bytes < HUGE_PAGE)
		free(p);
	else
		munmap(p, bytes);
}

/*
 * llround() for x in [0, 2^63) without the libm call: rounds half away from
 * zero exactly like it (x - trunc(x) is exact in binary floating point).
 * Outside it saturates: a huge transfer at a tiny bandwidth (2^62 bytes at
 * 1 byte/s) is 2^63 - 1 ns, not llround()'s unspecified result, so engine
 * time plus a service time cannot wrap; a negative time is 0.
 */
/*
 * On [0.5, 2^52), where service times fall, the same result is trunc(x + 0.5), half
 * the latency on the way to a completion time: ulp(x) divides 0.5 there, so x + 0.5
 * is exact unless it enters the next binade, and then it rounds to a value in
 * [2^k, 2^k + 0.5], whose truncation 2^k is the answer too.
 */
static inline uint64_t round_ns(double x)
{
	uint64_t t;

	if (x >= 0.5 && x < 0x1p52)
		return (uint64_t)(int64_t)(x + 0.5);
	if (!(x >= 0.5))	/* below one half, negative or NaN */
		return 0;
	if (x >= 0x1p63)
		return (uint64_t)INT64_MAX;
	t = (uint64_t)x;
	return t + (x - (double)t >= 0.5);
}

/* 1 + jitter * u, u uniform in [-1, 1): the factor of the service time of one jittered command. */
static double jitter_factor(uint64_t *rng, double jitter)
{
	double u = (double)(model_rand(rng) >> 11) * 0x1.0p-53 * 2.0 - 1.0;

	return 1.0 + jitter * u;
}

void model_jitter_init(struct model_jitter *j, uint64_t seed, double jitter)
{
	j->rng = seed;
	j->next = jitter > 0 ? jitter_factor(&j->rng, jitter) : 1.0;
}

/*
 * service * (1 + jitter * u). The factor was drawn one command ahead: its ~40
 * cycles of dependent integer and FP work stay off this command's completion
 * time, which the engine's next decisions wait for. Draws come in the same order
 * (one per command with a service time), so the times are those of drawing here.
 * Inline in model_cmd_place(), its one caller.
 */
static inline uint64_t model_jitter(struct model_jitter *j, double jitter, uint64_t service)
{
	double f;

	if (jitter <= 0 || !service)
		return service;
	f = j->next;
	j->next = jitter_factor(&j->rng, jitter);
	return round_ns((double)service * f);
}

uint64_t model_xfer_fp(uint64_t bytes, uint64_t bw)
{
	if (!bw || !bytes)
		return 0;
	return round_ns((double)bytes * 1e9 / (double)bw);
}

/*
 * Grows the heap and the pool to cap entries. The free stack holds the
 * unused pool slots at its bottom [0, cap - len): the new slots go below the
 * ones still free.
 */
static int grow(struct msched *s, size_t cap)
{
	struct msched_ent *h = realloc(s->heap, cap * sizeof(*h));
	struct msched_slot *p;
	uint32_t *f;
	size_t nfree = s->cap - s->len, added = cap - s->cap;

	if (!h)
		return -ENOMEM;
	s->heap = h;
	p = realloc(s->pool, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->pool = p;
	f = realloc(s->free_idx, cap * sizeof(*f));
	if (!f)
		return -ENOMEM;
	s->free_idx = f;
	memmove(f + added, f, nfree * sizeof(*f));
	for (size_t i = 0; i < added; i++)
		f[i] = (uint32_t)(s->cap + i);
	s->cap = cap;
	return 0;
}

int msched__init(struct msched *s, unsigned channels, unsigned qd)
{
	memset(s, 0, sizeof(*s));
	s->nslots = channels ? channels : 1;
	s->slot_free = calloc(s->nslots + 1, sizeof(*s->slot_free));
	if (!s->slot_free || grow(s, qd > 16 ? qd : 16)) {
		msched__fini(s);
		return -ENOMEM;
	}
	s->slot_free[s->nslots] = UINT64_MAX;	/* slot_take_min()'s sentinel */
	return 0;
}

void msched__fini(struct msched *s)
{
	if (!s)
		return;
	free(s->slot_free);
	free(s->heap);
	free(s->pool);
	free(s->free_idx);
	s->slot_free = NULL;
	s->heap = NULL;
	s->pool = NULL;
	s->free_idx = NULL;
}

/* The heap orders by (done_ns, seq): a total order, so completions pop in one deterministic sequence. */
static bool before(const struct msched *s, const struct msched_ent *a, const struct msched_ent *b)
{
	if (a->done_ns != b->done_ns)
		return a->done_ns < b->done_ns;
	return s->pool[a->idx].seq < s->pool[b->idx].seq;
}

/* Sifts e up from the hole at i, moving parents down instead of swapping. */
static inline __attribute__((always_inline)) void sift_up(struct msched *s, size_t i, struct msched_ent e)
{
	while (i && before(s, &e, &s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = e;
}

/*
 * Sifts e down from the hole at the root, bottom-up (Floyd): the hole goes down
 * to a leaf along the earlier child, one comparison a level, and e rises from
 * there. e came from the heap's end, so it belongs near the bottom: about half
 * the comparisons of testing e at every level. The order is total, so the
 * completions pop in the same sequence whichever way the heap is kept.
 */
static void sift_down(struct msched *s, struct msched_ent e)
{
	size_t i = 0, c;

	while ((c = 2 * i + 1) < s->len) {
		if (c + 1 < s->len && before(s, &s->heap[c + 1], &s->heap[c]))
			c++;
		s->heap[i] = s->heap[c];
		i = c;
	}
	sift_up(s, i, e);
}

int msched__grow(struct msched *s)
{
	return grow(s, s->cap * 2);
}

/*
 * Queues the completion written in msched__slot(). Inline in place(): every
 * command a model serves comes through here.
 */
static inline __attribute__((always_inline)) void push_slot(struct msched *s)
{
	struct msched_ent e;

	e.idx = s->free_idx[s->cap - s->len - 1];
	e.done_ns = s->pool[e.idx].d.done_ns;
	s->pool[e.idx].seq = s->seq++;
	sift_up(s, s->len++, e);
}

/*
 * Replaces the earliest slot free time (the heap's root) by t >= it. Which slot
 * serves a command changes nothing, only when the slots free up, so slot_free
 * is a min-heap of those times: a command takes the root. Past its nslots
 * entries it holds a sentinel, UINT64_MAX: the last node's right child, never
 * the smaller one, so every child compares with its sibling without a test.
 */
static void slot_take_min(struct msched *s, uint64_t t)
{
	uint64_t *h = s->slot_free;
	unsigned n = s->nslots, i = 0;

	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= n)
			break;
		/* the smaller child, the left on a tie, by arithmetic: a branch on random times mispredicts half the time */
		c += h[c + 1] < h[c];
		if (h[c] >= t)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = t;
}

int msched__push(struct msched *s, const struct target_done *d)
{
	struct target_done *slot = msched__slot(s);

	if (!slot)
		return -ENOMEM;
	if (slot != d)
		*slot = *d;
	push_slot(s);
	return 0;
}

/*
 * Places a command: fills d->start_ns and d->done_ns and queues d, the
 * completion in msched__slot(). Inline in model_cmd_place(), the engines' one way in.
 */
static inline __attribute__((always_inline)) void place(struct msched *s, struct target_done *d, uint64_t service,
							bool exclusive)
{
	uint64_t start = d->submit_ns;

	if (exclusive) {
		for (unsigned i = 0; i < s->nslots; i++)
			if (s->slot_free[i] > start)
				start = s->slot_free[i];
	} else if (s->slot_free[0] > start) {
		start = s->slot_free[0];
	}
	d->start_ns = start;
	d->done_ns = start + service;
	if (exclusive) {
		for (unsigned i = 0; i < s->nslots; i++)	/* equal times: still a heap */
			s->slot_free[i] = d->done_ns;
	} else {
		slot_take_min(s, d->done_ns);
	}
	s->busy_ns += service;
	if (d->done_ns > s->last_done)
		s->last_done = d->done_ns;
	push_slot(s);
}

int msched__reap(struct msched *s, uint64_t until, struct target_done *out)
{
	uint32_t idx;

	if (!s->len || s->heap[0].done_ns > until)
		return 0;
	idx = s->heap[0].idx;
	*out = s->pool[idx].d;
	s->len--;
	s->free_idx[s->cap - s->len - 1] = idx;
	if (s->len)
		sift_down(s, s->heap[s->len]);
	return 1;
}

void model_params_init(struct model_params *p, const struct model_profile *prof, const struct target_env *env)
{
	uint64_t g;

	*p = prof->p;
	if (env->qd)
		p->qd = env->qd;
	if (p->channels > p->qd)
		p->channels = p->qd;
	g = p->discard_granularity ? p->discard_granularity : 1;
	p->discard_max_cmd = p->discard_max_bytes / g * g;	/* once here, not twice per discard */
}

uint64_t model_device_size(const struct model_params *p, const struct target_env *env)
{
	uint64_t size = env->device_size ? env->device_size : p->capacity;

	return env->trace_extent > size ? env->trace_extent : size;
}

void model_done_init(const struct target_cmd *cmd, const struct target_seg *r, uint32_t n, struct target_done *d)
{
	*d = (struct target_done){ .tag = cmd->tag, .submit_ns = cmd->submit_ns, .op = cmd->op,
				   .klass = cmd->klass, .dev_cmds = 1 };
	for (uint32_t i = 0; i < n; i++)
		d->bytes += r[i].length;
}

static bool in_range(uint64_t size, const struct target_seg *r, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (r[i].offset > size || r[i].length > size - r[i].offset)
			return false;
	return true;
}

/*
 * Device commands model_discard() would make of a discard: each range cut at
 * the device's max_discard_sectors (at most len / max + 2 pieces with the
 * granule alignment). More than TS_MAX_PIECES is refused (-E2BIG): one
 * command's work stays bounded on any device size a trace declares (a 1 PiB
 * whole-device discard at 2 GiB is 2^19 pieces).
 */
static bool too_many_pieces(const struct model_params *p, const struct target_seg *r, uint32_t n)
{
	uint64_t max = p->discard_max_cmd, pieces = 0;

	for (uint32_t i = 0; max && i < n; i++)
		pieces += (r[i].length < max ? 0 : r[i].length / max) + 2;	/* the division only when it counts */
	return pieces > TS_MAX_PIECES;
}

bool model_reject(struct msched *s, const struct model_params *p, uint64_t size, const struct target_seg *r,
		  uint32_t n, struct target_done *d, struct discard_stats *st, int *ret)
{
	bool discard = d->op == TS_OP_DISCARD || d->op == TS_OP_SECURE_ERASE;

	if (in_range(size, r, n) && (!discard || (p->discard_supported && !too_many_pieces(p, r, n))))
		return false;
	d->error = discard && !p->discard_supported ? -EOPNOTSUPP : !in_range(size, r, n) ? -EINVAL : -E2BIG;
	if (d->error == -EOPNOTSUPP) {
		st->rejected_cmds++;
		st->rejected_bytes += d->bytes;
	} else {
		st->range_errors++;	/* -EINVAL or -E2BIG: out_of_range_commands */
	}
	d->start_ns = d->done_ns = d->submit_ns;
	d->dev_cmds = 0;
	*ret = msched__push(s, d);
	return true;
}

bool model_cmd_begin_any(struct model_cmd *c, const struct target_cmd *cmd, struct model_op_count *counts,
			 struct msched *s, const struct model_params *p, uint64_t size, struct discard_stats *st,
			 int *ret)
{
	*ret = -EINVAL;
	if (cmd->op > TS_OP_MAX)
		return false;
	*ret = -ENOMEM;
	if (!(c->d = msched__slot(s)))
		return false;
	c->r = model_ranges(cmd, &c->one, &c->n);
	c->discard = cmd->op == TS_OP_DISCARD || cmd->op == TS_OP_SECURE_ERASE;
	model_done_init(cmd, c->r, c->n, c->d);
	counts[cmd->op].cmds++;
	counts[cmd->op].bytes += c->d->bytes;
	return !model_reject(s, p, size, c->r, c->n, c->d, st, ret);
}

int model_cmd_place(struct model_cmd *c, struct msched *s, const struct model_params *p, struct model_jitter *j,
		    uint64_t service, uint64_t extra)
{
	service = model_jitter(j, p->jitter, service) + extra;
	place(s, c->d, service, c->discard && !p->queued_trim);
	return 0;
}

void model_report_discards(json_t *o, const struct discard_stats *st, uint64_t requested)
{
	json_object_set_new(o, "device_discard_commands", json_integer((json_int_t)st->dev_cmds));
	json_object_set_new(o, "discard_bytes_requested", json_integer((json_int_t)requested));
	json_object_set_new(o, "discard_bytes_freed", json_integer((json_int_t)st->freed));
	json_object_set_new(o, "sub_granularity_commands", json_integer((json_int_t)st->sub_gran_cmds));
	json_object_set_new(o, "already_unmapped_commands", json_integer((json_int_t)st->unmapped_cmds));
	json_object_set_new(o, "discards_rejected", json_integer((json_int_t)st->rejected_cmds));
	json_object_set_new(o, "discard_bytes_rejected", json_integer((json_int_t)st->rejected_bytes));
	json_object_set_new(o, "out_of_range_commands", json_integer((json_int_t)st->range_errors));
}

struct dcmd {
	uint32_t segs;
	uint64_t bytes, freed;
	bool aligned;
};

/* Ends device command c: its service time, and its figures into st. Inline: once for every device discard. */
static inline uint64_t close_dcmd(const struct model_params *p, struct dcmd *c, struct discard_stats *st)
{
	uint64_t t;

	if (!c->segs)
		return 0;
	t = c->freed ? p->trim_base : p->trim_unmapped_base;
	t += (c->segs - 1) * p->trim_per_range;
	t += model_xfer_ns(c->freed, p->trim_bw) + model_xfer_ns(c->bytes - c->freed, p->trim_unmapped_bw);
	st->dev_cmds++;
	st->freed += c->freed;
	if (!c->aligned)
		st->sub_gran_cmds++;
	else if (!c->freed)
		st->unmapped_cmds++;
	memset(c, 0, sizeof(*c));
	return t;
}

/*
 * The block layer splits a discard bio at max_discard_sectors rounded down
 * to the granularity, ending each piece on a granule boundary so the next
 * one starts aligned (block/blk-merge.c, bio_split_discard()), and merges up to
 * max_discard_segments bios into one request (blk-merge.c,
 * bio_attempt_discard_merge()); a request never exceeds
 * max_discard_sectors in total. Returns the service time of the commands it
 * closed; the last is left open in *c (empty at the call).
 */
static uint64_t pack_ranges(const struct model_params *p, const struct target_seg *r, uint32_t n,
			    model_unmap_fn unmap, void *ctx, struct discard_stats *st, struct dcmd *c)
{
	uint64_t g = p->discard_granularity, max = p->discard_max_cmd, t = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t off = r[i].offset, left = r[i].length;

		while (left) {
			uint64_t piece;
			bool aligned;

			if (c->segs == p->max_discard_segments || c->bytes == max)
				t += close_dcmd(p, c, st);
			piece = left < max - c->bytes ? left : max - c->bytes;
			if (piece < left) {	/* split: end on a granule boundary */
				uint64_t end = (off + piece) / g * g;

				if (end <= off && c->segs) {
					t += close_dcmd(p, c, st);
					continue;
				}
				if (end > off)
					piece = end - off;
			}
			c->freed += unmap(ctx, off, piece, &aligned);
			c->aligned |= aligned;
			c->segs++;
			c->bytes += piece;
			off += piece;
			left -= piece;
		}
	}
	return t;
}

uint64_t model_discard(const struct model_params *p, const struct target_seg *r, uint32_t n,
		       model_unmap_fn unmap, void *ctx, struct discard_stats *st, struct target_done *d)
{
	uint64_t t = 0, dev0 = st->dev_cmds, freed0 = st->freed;
	struct dcmd c = { 0 };

	if (n == 1 && r->length && r->length <= p->discard_max_cmd) {	/* one piece, one command: most discards */
		c.freed = unmap(ctx, r->offset, r->length, &c.aligned);
		c.segs = 1;
		c.bytes = r->length;
	} else {
		t = pack_ranges(p, r, n, unmap, ctx, st, &c);
	}
	t += close_dcmd(p, &c, st);
	d->dev_cmds = (uint32_t)(st->dev_cmds - dev0);
	d->freed = st->freed - freed0;
	return t;
}
