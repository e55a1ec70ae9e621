/* SPDX-License-Identifier: GPL-2.0 */
/* Internals shared by the model engines: parameters, scheduler, PRNG. */
#ifndef TRIMSIM_MODEL_INT_H
#define TRIMSIM_MODEL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "replay/targets/target.h"
#include "traces/trace.h"
#include "traces/opts.h"

enum gc_policy { GC_GREEDY = 0, GC_COST_BENEFIT = 1 };

/* One flat parameter set; each engine's option table names the fields it uses. */
struct model_params {
	/* common */
	uint64_t capacity;
	uint32_t qd;
	uint32_t channels;
	bool queued_trim;
	bool discard_supported;
	uint64_t discard_max_bytes;
	uint32_t max_discard_segments;
	uint64_t discard_granularity;
	double jitter;
	uint64_t read_base, write_base, flush_base;
	uint64_t trim_base, trim_per_range, trim_unmapped_base;
	uint64_t trim_bw;		/* bytes/s of mapped space unmapped; 0 = free */
	/* parametric */
	uint64_t read_bw, write_bw;	/* bytes/s */
	uint64_t trim_unmapped_bw;	/* bytes/s of already-unmapped space; 0 = free */
	bool initially_mapped;
	/* ftl */
	uint64_t page_size, block_size;
	double op;			/* over-provisioning: spare / user capacity */
	unsigned gc_policy;
	double gc_low, gc_high;		/* free-block fractions: start GC below low, stop at high */
	uint64_t page_read, page_write, block_erase;
	double prefill;			/* fraction of user space written before time 0 */
	bool gc_idle;			/* collect in idle gaps between commands (background GC) */
	/* derived by model_params_init(), no option */
	uint64_t discard_max_cmd;	/* discard_max_bytes rounded down to the granularity: a command's most */
};

struct model_profile {
	char name[64];
	char path[256];			/* "" for bundled */
	char *source;
	char *description;
	const struct model_engine_ops *engine;	/* the one its "model" field names */
	struct model_params p;
};

/* Generated at build time from models/profiles/NAME.json (models/models.mk). */
struct model_embedded {
	const char *name;
	const char *json;
};
extern const struct model_embedded model_embedded_profiles[];
extern const size_t model_embedded_count;

/* splitmix64: a small deterministic PRNG held by each instance (no global state). */
static inline uint64_t model_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * An instance's service-time jitter: its PRNG and the factor (1 + jitter x u) the
 * next jittered command takes, drawn one command ahead (model_jitter_init()).
 */
struct model_jitter {
	uint64_t rng;
	double next;
};
/* Seeds j for a device with this jitter (model_params.jitter). */
void model_jitter_init(struct model_jitter *j, uint64_t seed, double jitter);

/*
 * Zeroed memory for a big table (bitmaps, mapping tables), from mmap on a
 * 2 MiB boundary and marked MADV_HUGEPAGE: the models touch these at random, and with 4 KiB
 * pages nearly every access is also a TLB miss. Pages are still touched
 * lazily. NULL with errno on failure; model_big_free(NULL, n) is a no-op.
 */
void *model_big_alloc(size_t bytes);
void model_big_free(void *p, size_t bytes);

/* The profile's parameters for one instance: env->qd overrides qd, channels never exceed qd. */
void model_params_init(struct model_params *p, const struct model_profile *prof, const struct target_env *env);
/* The device size an instance models: the trace's device, else the profile's capacity; never below the trace extent. */
uint64_t model_device_size(const struct model_params *p, const struct target_env *env);

/* model_xfer_ns() in floating point: round_ns(bytes x 1e9 / bw), both in doubles (sched.c). */
uint64_t model_xfer_fp(uint64_t bytes, uint64_t bw);
#define MODEL_XFER_EXACT 4503599ull	/* the most bytes whose bytes x 1e9 is below 2^52 */
/*
 * bytes at bw bytes/s, in ns; 0 when bw or bytes is 0. Defined as model_xfer_fp(),
 * and computed in integers where that gives the same: for n = bytes x 1e9 below
 * 2^52 (and bw below 2^53) the doubles hold n and bw exactly, and the quotient
 * q + r/bw rounds to a double within half an ulp, less than 1/(2 bw): never onto
 * q + 1/2 unless it is q + 1/2, so rounding half up gives q + (2r >= bw) either
 * way. Inline: an integer division is about half the latency of the double one and
 * its rounding, on the way to every read's and write's completion time.
 */
static inline uint64_t model_xfer_ns(uint64_t bytes, uint64_t bw)
{
	uint64_t n, q, r;

	if (!bw || !bytes)
		return 0;
	if (bytes > MODEL_XFER_EXACT || bw >> 53)
		return model_xfer_fp(bytes, bw);
	n = bytes * 1000000000ull;
	q = n / bw;
	r = n % bw;
	return q + (r >= bw - r);
}

/*
 * Device service slots and the completion queue. `channels` commands are
 * served at once; a non-queued command (exclusive) waits for every slot to
 * drain and holds all of them until it completes.
 */
struct msched_ent {
	uint64_t done_ns;		/* copy of pool[idx].d.done_ns: the key, without a pointer chase */
	uint32_t idx;			/* pool slot of the completion */
};
struct msched_slot {
	struct target_done d;
	uint64_t seq;			/* submission order: breaks ties in done_ns */
};
struct msched {
	uint64_t *slot_free;		/* nslots free times (a min-heap), then UINT64_MAX */
	unsigned nslots;
	struct msched_ent *heap;	/* min-heap on (done_ns, seq) of 16-byte keys */
	struct msched_slot *pool;	/* the completions themselves; they never move */
	uint32_t *free_idx;		/* stack of unused pool slots, cap - len of them */
	size_t len, cap;
	uint64_t seq;
	uint64_t busy_ns;		/* sum of service times */
	uint64_t last_done;
};

int msched__init(struct msched *s, unsigned channels, unsigned qd);
void msched__fini(struct msched *s);
/* Doubles the heap and the pool: 0 or -ENOMEM. */
int msched__grow(struct msched *s);
/*
 * Where the next completion queued goes: a command's completion is written
 * there (model_cmd_begin()) and queued in place (model_cmd_place(),
 * msched__push()), not copied; valid until something else is queued. NULL: out
 * of memory.
 */
static inline struct target_done *msched__slot(struct msched *s)
{
	if (s->len == s->cap && msched__grow(s))
		return NULL;
	return &s->pool[s->free_idx[s->cap - s->len - 1]].d;
}
/* Queues a completion that used no device time (rejected commands); d may be msched__slot(). */
int msched__push(struct msched *s, const struct target_done *d);
int msched__reap(struct msched *s, uint64_t until, struct target_done *out);
/* The earliest completion's time, UINT64_MAX if none (inline: the engine asks after every submit and reap). */
static inline uint64_t msched__next(const struct msched *s)
{
	return s->len ? s->heap[0].done_ns : UINT64_MAX;
}

/* Discard accounting shared by the engines. */
struct discard_stats {
	uint64_t dev_cmds, freed, sub_gran_cmds, unmapped_cmds;
	uint64_t rejected_cmds, rejected_bytes;	/* discards without discard support (-EOPNOTSUPP) */
	uint64_t range_errors;			/* commands past the device end (-EINVAL), any op, and
						   discards of more than TS_MAX_PIECES device commands (-E2BIG) */
};

/* The completion of cmd before the device runs it: tag, op, class, submit time, bytes of its n ranges r. */
void model_done_init(const struct target_cmd *cmd, const struct target_seg *r, uint32_t n, struct target_done *d);

/* One command while an engine serves it, from model_cmd_begin() to model_cmd_place(). */
struct model_cmd {
	struct target_done *d;		/* its completion, in the scheduler's msched__slot() */
	const struct target_seg *r;	/* its n ranges: the command's segs, or `one` */
	struct target_seg one;
	uint32_t n;
	bool discard;			/* DISCARD or SECURE_ERASE */
};
/* Commands and bytes an engine took, per op. */
struct model_op_count {
	uint64_t cmds, bytes;
};
/*
 * Turns away a command the device cannot run: a discard without discard
 * support (-EOPNOTSUPP, as blkdev_issue_discard() when
 * bdev_max_discard_sectors() is 0), a range past `size` bytes (-EINVAL), or a
 * discard the device would cut into more than TS_MAX_PIECES commands (-E2BIG).
 * Its completion is queued at its submit time with no device time. True when
 * rejected; *ret is then what queueing returned.
 */
bool model_reject(struct msched *s, const struct model_params *p, uint64_t size, const struct target_seg *r,
		  uint32_t n, struct target_done *d, struct discard_stats *st, int *ret);
/*
 * The start every engine's submit shares: an op past TS_OP_MAX is -EINVAL; else the
 * command's ranges and completion (model_done_init()) go into c, it is counted in
 * counts[op], and what the device cannot run is turned away (model_reject()).
 * True when the engine is to serve it; false: *ret is what submit returns.
 */
bool model_cmd_begin_any(struct model_cmd *c, const struct target_cmd *cmd, struct model_op_count *counts,
			 struct msched *s, const struct model_params *p, uint64_t size, struct discard_stats *st,
			 int *ret);
/*
 * model_cmd_begin_any(), with its common case inline: one range inside the device,
 * and for a discard, a device with discard support and a range shorter than its
 * largest command (2 pieces at most: never too many, model_reject()).
 */
static inline bool model_cmd_begin(struct model_cmd *c, const struct target_cmd *cmd, struct model_op_count *counts,
				   struct msched *s, const struct model_params *p, uint64_t size,
				   struct discard_stats *st, int *ret)
{
	bool discard = cmd->op == TS_OP_DISCARD || cmd->op == TS_OP_SECURE_ERASE;
	uint64_t tag;

	if (cmd->op > TS_OP_MAX || (cmd->segs && cmd->nr_segs) || cmd->offset > size ||
	    cmd->length > size - cmd->offset ||
	    (discard && (!p->discard_supported || (p->discard_max_cmd && cmd->length >= p->discard_max_cmd))) ||
	    !(c->d = msched__slot(s)))
		return model_cmd_begin_any(c, cmd, counts, s, p, size, st, ret);
	c->one = (struct target_seg){ cmd->offset, cmd->length };
	c->r = &c->one;
	c->n = 1;
	c->discard = discard;
	/*
	 * The tag through a register: GCC would load tag and submit_ns in one 16-byte
	 * load, and where the engine stored them apart it waits for the stores to reach
	 * the cache (no store forwarding).
	 */
	tag = cmd->tag;
	__asm__("" : "+r"(tag));
	*c->d = (struct target_done){ .tag = tag, .submit_ns = cmd->submit_ns, .bytes = cmd->length,
				      .dev_cmds = 1, .op = cmd->op, .klass = cmd->klass };
	counts[cmd->op].cmds++;
	counts[cmd->op].bytes += cmd->length;
	return true;
}
/*
 * The end every engine's submit shares: service x (1 +/- jitter) plus extra (time
 * jitter does not scale, such as a GC stall) placed on the device, non-queued for a
 * discard without queued_trim (sched.c, place()). 0: its room in the queue was taken by
 * model_cmd_begin().
 */
int model_cmd_place(struct model_cmd *c, struct msched *s, const struct model_params *p, struct model_jitter *j,
		    uint64_t service, uint64_t extra);
/* The discard figures both engines report, in this order; requested: the discard bytes the engine took. */
void model_report_discards(json_t *o, const struct discard_stats *st, uint64_t requested);
/* Unmaps what the device can inside [off, off+len); returns bytes freed; *aligned: a granule was covered. */
typedef uint64_t (*model_unmap_fn)(void *ctx, uint64_t off, uint64_t len, bool *aligned);
/*
 * Packs ranges into device commands (<= max_discard_segments ranges,
 * <= discard_max_bytes each), unmaps them, and returns the service time:
 * per command trim_base (or trim_unmapped_base if it freed nothing), plus
 * trim_per_range for each extra range, plus the per-byte costs. Fills
 * d->dev_cmds and d->freed.
 */
uint64_t model_discard(const struct model_params *p, const struct target_seg *r, uint32_t n,
		       model_unmap_fn unmap, void *ctx, struct discard_stats *st, struct target_done *d);

/*
 * Engines: the model target dispatches to the one a profile's "model" field names.
 * Adding one: a new file with its ops (name, help, option table, callbacks) and one
 * line in model_engines[] (models/model.c).
 */
struct model_engine_ops {
	const char *name;		/* the profile's "model" value: "parametric" */
	const char *help;		/* one line for trimsim models */
	const struct opt_spec *opts;	/* the struct model_params fields it reads (MODEL_COMMON_OPTS first) */
	/* Optional: relations between its parameters a single option range cannot express. 0 or -ERANGE. */
	int (*check)(const struct model_params *p, const char *label, char *err, size_t errlen);
	void *(*open)(const struct model_profile *prof, const struct target_env *env,
		      char *err, size_t errlen);
	int (*submit)(void *e, const struct target_cmd *cmd);
	struct msched *(*sched)(void *e);
	int (*report)(void *e, json_t *obj);
	void (*close)(void *e);
	void (*prefetch)(void *e, uint64_t offset, uint64_t length);	/* optional: target_ops.prefetch */
};
extern const struct model_engine_ops param_engine_ops;
extern const struct model_engine_ops ftl_engine_ops;
extern const struct model_engine_ops *const model_engines[];	/* NULL-terminated (models/model.c) */
const struct model_engine_ops *model_engine_find(const char *name);	/* NULL if none */

static inline bool model_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* The options every engine reads, first in its table. */
#define MODEL_P(f) offsetof(struct model_params, f)
#define MODEL_TIB (1099511627776.0)
#define MODEL_PIB (1125899906842624.0)
#define MODEL_COMMON_OPTS \
	{ "capacity", OPT_BYTES, MODEL_P(capacity), 1048576, MODEL_PIB, "120G", \
	  "device size used when the trace header gives none" }, \
	{ "qd", OPT_U32, MODEL_P(qd), 1, 65535, "32", "queue depth: commands the engine may keep in flight" }, \
	{ "channels", OPT_U32, MODEL_P(channels), 1, 1024, "1", "commands the device serves at the same time" }, \
	{ "queued_trim", OPT_BOOL, MODEL_P(queued_trim), 0, 0, "false", \
	  "TRIM is queued (NCQ TRIM, NVMe deallocate); false: it drains the queue and blocks all I/O" }, \
	{ "discard_supported", OPT_BOOL, MODEL_P(discard_supported), 0, 0, "true", \
	  "false: discards are rejected with EOPNOTSUPP (counted in the report)" }, \
	{ "discard_max_bytes", OPT_BYTES, MODEL_P(discard_max_bytes), 512, MODEL_PIB, "2G", \
	  "largest discard command; larger requests are split (queue/discard_max_bytes)" }, \
	{ "max_discard_segments", OPT_U32, MODEL_P(max_discard_segments), 1, 65535, "1", \
	  "ranges one discard command may carry (queue/max_discard_segments)" }, \
	{ "discard_granularity", OPT_BYTES, MODEL_P(discard_granularity), 512, 1073741824, "512", \
	  "unit the device unmaps; smaller pieces cost a command and free nothing" }, \
	{ "jitter", OPT_DOUBLE, MODEL_P(jitter), 0, 0.9, "0", "service time x (1 +/- jitter), seeded" }, \
	{ "read_base", OPT_DURATION, MODEL_P(read_base), 0, 10e9, "100us", "fixed cost of a read" }, \
	{ "write_base", OPT_DURATION, MODEL_P(write_base), 0, 10e9, "50us", "fixed cost of a write" }, \
	{ "flush_base", OPT_DURATION, MODEL_P(flush_base), 0, 10e9, "1ms", "cost of a cache flush" }, \
	{ "trim_base", OPT_DURATION, MODEL_P(trim_base), 0, 10e9, "100us", \
	  "fixed cost of a discard command that unmaps something" }, \
	{ "trim_per_range", OPT_DURATION, MODEL_P(trim_per_range), 0, 10e9, "0", \
	  "extra cost per range after the first in a multi-range discard" }, \
	{ "trim_unmapped_base", OPT_DURATION, MODEL_P(trim_unmapped_base), 0, 10e9, "50us", \
	  "fixed cost of a discard that unmaps nothing (already unmapped or sub-granularity)" }, \
	{ "trim_bw", OPT_BYTES, MODEL_P(trim_bw), 0, MODEL_PIB, "0", \
	  "mapped bytes unmapped per second; 0 = no per-byte cost" }

/* The ranges of a command: its segs, or its single offset/length. */
static inline const struct target_seg *model_ranges(const struct target_cmd *c, struct target_seg *one,
						    uint32_t *n)
{
	if (c->segs && c->nr_segs) {
		*n = c->nr_segs;
		return c->segs;
	}
	one->offset = c->offset;
	one->length = c->length;
	*n = 1;
	return one;
}

#endif
