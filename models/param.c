// SPDX-License-Identifier: GPL-2.0
/*
 * Parametric engine: per-op base latency plus per-byte cost, service slots
 * (sched.c), and for discards what the block layer and device do with them:
 *
 * - split at discard_max_bytes and pack up to max_discard_segments ranges
 *   per command, as the block layer does (block/blk-merge.c,
 *   bio_split_discard(); multi-range merging in blk-merge.c,
 *   req_attempt_discard_merge(); NVMe builds one DSM range per bio in
 *   drivers/nvme/host/core.c, nvme_setup_discard(), up to
 *   NVME_DSM_MAX_RANGES = 256);
 * - only whole discard_granularity units inside a range are unmapped
 *   (block/blk-lib.c, __blkdev_issue_discard() aligns to the granularity;
 *   a device ignores what it cannot unmap): a sub-granularity discard costs a
 *   command and frees nothing;
 * - discarding already-unmapped space costs trim_unmapped_base;
 * - a device without discard support rejects the command with -EOPNOTSUPP
 *   (blkdev_issue_discard() returns it when bdev_max_discard_sectors() is 0).
 *
 * Mapped space is a bitmap at the granularity, coarsened by powers of two so
 * it never exceeds 2^30 bits (128 MiB); when coarsened, a unit is unmapped
 * only when a discard covers all of it. A summary bitmap (one bit per map
 * word, 1/64 of its size, cache-resident) marks the words that are fully
 * mapped, so a write over mapped space, the common case on a used device,
 * never waits for the big map (its update is deferred, pend_push()).
 * Both arrays are stored XOR `flip` (all ones when the device starts mapped):
 * a fresh mapping, zero, is the device's starting state, so opening it writes
 * nothing and a model whose map a replay never touches (the baseline lane's,
 * a trace without discards) costs no memory at all.
 */
#include <errno.h>
#include <stdlib.h>

#include "traces/trace.h"
#include "models/model_int.h"

#define MAX_MAP_BITS (1ull << 30)	/* so a map word's index is below 2^24: an int32_t holds it */
#define NPEND 8	/* writes whose map update waits for its prefetched line (a power of two, at least 4) */

/* Four slots' first or last map words (pend_apply() tests four at once; GCC vector extensions, any target). */
typedef int32_t pend_words __attribute__((vector_size(16)));

struct param {
	struct model_params p;
	struct msched s;
	struct model_jitter jit;
	uint64_t size, unit, nunits;
	unsigned unit_shift, gran_shift;	/* log2 of unit and of the granularity when powers of two, else 0 */
	uint64_t *map;			/* nwords words; bits past nunits stay 1 and are never counted */
	uint64_t *full;			/* bit w: map[w] is all ones */
	uint64_t flip;			/* map and full as stored: the bits XOR flip (~0: initially mapped) */
	uint64_t nwords, mapped_units;
	struct { uint64_t a, b; } pend[NPEND];	/* units [a, b) to set; applied: b = 0 */
	pend_words pend_wa[NPEND / 4], pend_wb[NPEND / 4];	/* slot i's words [wa, wb]: [i / 4][i % 4];
								   applied: INT32_MAX, -1 (no words) */
	unsigned pend_head, pend_n;
	struct model_op_count ops[TS_OP_MAX + 1];
	struct discard_stats ds;
};

static size_t map_bytes(const struct param *m)
{
	return (m->nwords + 1) * sizeof(uint64_t);
}

static size_t full_bytes(const struct param *m)
{
	return ((m->nwords + 63) / 64 + 1) * sizeof(uint64_t);
}

static void pend_kill(struct param *m, unsigned i)
{
	m->pend[i].b = 0;
	m->pend_wa[i / 4][i % 4] = INT32_MAX;
	m->pend_wb[i / 4][i % 4] = -1;
}

static void *param_open(const struct model_profile *prof, const struct target_env *env,
			char *err, size_t errlen)
{
	struct param *m = calloc(1, sizeof(*m));
	uint64_t size;

	if (!m)
		goto nomem;
	model_params_init(&m->p, prof, env);
	model_jitter_init(&m->jit, env->seed ^ 0x7472696d73696dull, m->p.jitter);
	size = model_device_size(&m->p, env);
	m->unit = m->p.discard_granularity;
	while ((size + m->unit - 1) / m->unit > MAX_MAP_BITS)
		m->unit *= 2;
	m->nunits = (size + m->unit - 1) / m->unit;
	m->unit_shift = model_is_pow2(m->unit) ? (unsigned)__builtin_ctzll(m->unit) : 0;
	m->gran_shift = model_is_pow2(m->p.discard_granularity) ? (unsigned)__builtin_ctzll(m->p.discard_granularity) : 0;
	m->size = m->nunits * m->unit;
	if (!m->p.discard_supported)	/* discards are rejected: no map to keep */
		m->nunits = 0;
	m->nwords = (m->nunits + 63) / 64;
	m->map = model_big_alloc(map_bytes(m));
	m->full = model_big_alloc(full_bytes(m));
	if (!m->map || !m->full || msched__init(&m->s, m->p.channels, m->p.qd))
		goto nomem;
	for (unsigned i = 0; i < NPEND; i++)
		pend_kill(m, i);
	if (m->p.initially_mapped && m->nunits) {	/* zeroes read as all mapped, every word full */
		m->flip = ~0ull;
		m->mapped_units = m->nunits;
	} else if (m->nunits % 64) {	/* the padding past the last unit counts as mapped, never as a change */
		m->map[m->nwords - 1] = ~((1ull << (m->nunits % 64)) - 1);
	}
	return m;
nomem:
	if (m) {
		model_big_free(m->map, map_bytes(m));
		model_big_free(m->full, full_bytes(m));
		msched__fini(&m->s);
		free(m);
	}
	snprintf(err, errlen, "model: out of memory");
	errno = ENOMEM;
	return NULL;
}

static uint64_t word_mask(uint64_t lo, uint64_t hi)	/* bits [lo, hi) of one word, hi <= 64 */
{
	uint64_t m = hi >= 64 ? ~0ull : (1ull << hi) - 1;

	return m & ~((1ull << lo) - 1);
}

static inline bool word_full(const struct param *m, uint64_t w)
{
	return ((m->full[w / 64] ^ m->flip) >> (w % 64)) & 1;
}

static inline void set_full(struct param *m, uint64_t w, bool on)
{
	uint64_t bit = 1ull << (w % 64), f = m->full[w / 64] ^ m->flip;

	m->full[w / 64] = (on ? f | bit : f & ~bit) ^ m->flip;
}

/* Sets units [a, b) (a < b); returns how many changed. Words marked full are skipped unread. */
static inline uint64_t map_set(struct param *m, uint64_t a, uint64_t b)
{
	uint64_t changed = 0, w = a / 64, last = (b - 1) / 64;

	for (; w <= last; w++) {
		uint64_t mask = word_mask(w == a / 64 ? a % 64 : 0, w == last ? b - w * 64 : 64);
		uint64_t old;

		if (word_full(m, w))
			continue;
		old = m->map[w] ^ m->flip;
		changed += (uint64_t)__builtin_popcountll(~old & mask);
		m->map[w] = (old | mask) ^ m->flip;
		if ((old | mask) == ~0ull)
			set_full(m, w, true);
	}
	m->mapped_units += changed;
	return changed;
}

/*
 * Clears units [a, b) (a < b); returns how many changed. A word marked full
 * is known without reading it: the count is the mask's and the word becomes
 * ~mask, a store that does not wait for the cache miss a load would take
 * (the first discard of a region on an initially mapped device).
 */
static uint64_t map_clear(struct param *m, uint64_t a, uint64_t b)
{
	uint64_t changed = 0, w = a / 64, last = (b - 1) / 64;

	for (; w <= last; w++) {
		uint64_t lo = w == a / 64 ? a % 64 : 0, hi = w == last ? b - w * 64 : 64;
		uint64_t mask = word_mask(lo, hi), old;

		if (word_full(m, w)) {	/* the mask's bits, counted without popcount (a call without -mpopcnt) */
			changed += hi - lo;
			m->map[w] = ~mask ^ m->flip;
			set_full(m, w, false);
			continue;
		}
		old = m->map[w] ^ m->flip;
		changed += (old & mask) == mask ? hi - lo : (uint64_t)__builtin_popcountll(old & mask);
		m->map[w] = (old & ~mask) ^ m->flip;
	}
	m->mapped_units -= changed;
	return changed;
}

/*
 * Map updates of writes wait in a small ring so the load of their word does
 * not stall the write that issued its prefetch. Sets commute with each other
 * and with clears of other words, so a clear applies only the pending sets
 * that share a word with it; anything that reads mapped_units applies all.
 * While sets wait, mapped_units is low: a write may queue a set that then
 * changes nothing, never the reverse.
 */
static void pend_push(struct param *m, uint64_t a, uint64_t b)
{
	unsigned i;

	if (m->pend_n == NPEND) {
		i = m->pend_head;
		if (m->pend[i].b)
			map_set(m, m->pend[i].a, m->pend[i].b);
		m->pend_head = (i + 1) % NPEND;
		m->pend_n--;
	}
	i = (m->pend_head + m->pend_n++) % NPEND;
	m->pend[i].a = a;
	m->pend[i].b = b;
	m->pend_wa[i / 4][i % 4] = (int32_t)(a / 64);
	m->pend_wb[i / 4][i % 4] = (int32_t)((b - 1) / 64);
	__builtin_prefetch(&m->full[a / 64 / 64]);
	__builtin_prefetch(&m->map[a / 64], 1);
}

/*
 * Bit i: slot i's words meet [wa, wb]. Four slots a vector operation, and no
 * branch a slot: a discard's words against random writes' mispredict half the time.
 */
static unsigned pend_hits(const struct param *m, int32_t wa, int32_t wb)
{
	pend_words hit = { 0 };

	for (unsigned k = 0; k < NPEND / 4; k++)
		hit |= (m->pend_wa[k] <= wb) & (m->pend_wb[k] >= wa) & ((pend_words){ 1, 2, 4, 8 } << (int)(4 * k));
	return (unsigned)(hit[0] | hit[1] | hit[2] | hit[3]);
}

/*
 * Applies the pending sets touching words [wa, wb], in slot order: sets
 * commute, and an applied slot overlaps no words.
 */
static void pend_apply(struct param *m, uint64_t wa, uint64_t wb)
{
	unsigned hit;

	if (!m->pend_n)	/* no write since the last flush (a trace of discards alone) */
		return;
	for (hit = pend_hits(m, (int32_t)wa, (int32_t)wb); hit; hit &= hit - 1) {
		unsigned i = (unsigned)__builtin_ctz(hit);

		map_set(m, m->pend[i].a, m->pend[i].b);
		pend_kill(m, i);
	}
}

static void pend_flush(struct param *m)
{
	for (unsigned i = 0; i < NPEND; i++) {
		if (m->pend[i].b)
			map_set(m, m->pend[i].a, m->pend[i].b);
		pend_kill(m, i);
	}
	m->pend_n = 0;
}

/* x / (1 << shift) when shift is set, else x / d: the hot paths divide by powers of two by shifting. */
static inline uint64_t div_by(uint64_t x, uint64_t d, unsigned shift)
{
	return shift ? x >> shift : x / d;
}

/* Unmaps the whole units inside [off, off+len); *aligned tells whether any granule was covered. */
static uint64_t unmap(void *ctx, uint64_t off, uint64_t len, bool *aligned)
{
	struct param *m = ctx;
	uint64_t g = m->p.discard_granularity;
	uint64_t a = div_by(off + g - 1, g, m->gran_shift) * g, b = div_by(off + len, g, m->gran_shift) * g;
	uint64_t ua, ub;

	*aligned = b > a;
	if (b <= a)
		return 0;
	ua = div_by(a + m->unit - 1, m->unit, m->unit_shift);
	ub = div_by(b, m->unit, m->unit_shift);
	if (ub <= ua)
		return 0;
	pend_apply(m, ua / 64, (ub - 1) / 64);
	return map_clear(m, ua, ub) * m->unit;
}

/* The words a discard of [off, off + len) reads first: its first unit's map word and summary word. */
static void param_prefetch(void *e, uint64_t off, uint64_t len)
{
	struct param *m = e;
	uint64_t u = div_by(off, m->unit, m->unit_shift);

	(void)len;
	if (u >= m->nunits)
		return;
	__builtin_prefetch(&m->full[u / 64 / 64]);
	__builtin_prefetch(&m->map[u / 64], 1);
}

static int param_submit(void *e, const struct target_cmd *cmd)
{
	struct param *m = e;
	const struct model_params *p = &m->p;
	struct model_cmd c;
	uint64_t service = 0;
	int ret;

	if (!model_cmd_begin(&c, cmd, m->ops, &m->s, p, m->size, &m->ds, &ret))
		return ret;
	switch (cmd->op) {
	case TS_OP_READ:
		service = p->read_base + model_xfer_ns(c.d->bytes, p->read_bw);
		break;
	case TS_OP_WRITE:
	case TS_OP_WRITE_ZEROES:
		service = p->write_base + model_xfer_ns(c.d->bytes, p->write_bw);
		if (m->nunits && m->mapped_units < m->nunits) {	/* all mapped: nothing to change */
			uint64_t a = div_by(cmd->offset, m->unit, m->unit_shift);
			uint64_t b = div_by(cmd->offset + cmd->length + m->unit - 1, m->unit, m->unit_shift);

			if (a < b)	/* the map does not change the write's service time */
				pend_push(m, a, b);
		}
		break;
	case TS_OP_FLUSH:
		service = p->flush_base;
		break;
	case TS_OP_DISCARD:
	case TS_OP_SECURE_ERASE:
		service = model_discard(p, c.r, c.n, unmap, m, &m->ds, c.d);
		break;
	default:
		service = 0;
		break;
	}
	return model_cmd_place(&c, &m->s, p, &m->jit, service, 0);
}

static struct msched *param_sched(void *e)
{
	return &((struct param *)e)->s;
}

static int param_report(void *e, json_t *o)
{
	static const char *const names[] = { "none", "read", "write", "flush", "discard", "secure_erase",
					     "write_zeroes" };
	struct param *m = e;
	json_t *ops = json_object();
	uint64_t req = m->ops[TS_OP_DISCARD].bytes + m->ops[TS_OP_SECURE_ERASE].bytes;

	if (!ops)
		return -ENOMEM;
	pend_flush(m);
	for (int i = 1; i <= TS_OP_MAX; i++) {
		if (!m->ops[i].cmds)
			continue;
		json_object_set_new(ops, names[i], json_pack("{s:I,s:I}", "commands", (json_int_t)m->ops[i].cmds,
							     "bytes", (json_int_t)m->ops[i].bytes));
	}
	json_object_set_new(o, "commands", ops);
	model_report_discards(o, &m->ds, req - m->ds.rejected_bytes);
	json_object_set_new(o, "mapped_bytes", json_integer((json_int_t)(m->mapped_units * m->unit)));
	json_object_set_new(o, "map_unit_bytes", json_integer((json_int_t)m->unit));
	json_object_set_new(o, "device_size_bytes", json_integer((json_int_t)m->size));
	return 0;
}

static void param_close(void *e)
{
	struct param *m = e;

	if (!m)
		return;
	msched__fini(&m->s);
	model_big_free(m->map, map_bytes(m));
	model_big_free(m->full, full_bytes(m));
	free(m);
}

static const struct opt_spec param_opts[] = {
	MODEL_COMMON_OPTS,
	{ "read_bw", OPT_BYTES, MODEL_P(read_bw), 1024, MODEL_TIB, "500M", "read bytes per second" },
	{ "write_bw", OPT_BYTES, MODEL_P(write_bw), 1024, MODEL_TIB, "250M", "write bytes per second" },
	{ "trim_unmapped_bw", OPT_BYTES, MODEL_P(trim_unmapped_bw), 0, MODEL_PIB, "0",
	  "already-unmapped bytes per second; 0 = no per-byte cost" },
	{ "initially_mapped", OPT_BOOL, MODEL_P(initially_mapped), 0, 0, "true",
	  "the device starts fully mapped (a used device); false: factory fresh" },
	{ 0 },
};

const struct model_engine_ops param_engine_ops = {
	.name = "parametric",
	.help = "per-op latency and bandwidth, queued vs non-queued TRIM, splitting, granularity, a mapped-space bitmap",
	.opts = param_opts,
	.open = param_open,
	.submit = param_submit,
	.sched = param_sched,
	.report = param_report,
	.close = param_close,
	.prefetch = param_prefetch,
};
