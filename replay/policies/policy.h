/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Policies: composable stages that turn a trace's FREE / INTENT / BIO stream
 * into device discard commands (DESIGN.md, "Policies: composable stages").
 *
 *   source(free) | batch(window=1s) | sort | merge(max=64M,segments=64) | min(64K) | dispatch(qd=1)
 *
 * One small, read-only ops table per stage kind (fio style), options in an
 * opt_spec table beside the stage, per-instance state behind a void *.
 * replay/engine/ENGINE.md explains how the engine drives them; this header is the
 * contract; every stage is in this tree, and a change to it changes them all in the
 * same commit (new hooks are optional, so a stage sets only what it uses).
 *
 * How a pipeline runs (all calls in trace time order, single-threaded):
 *  1. Timers: before a record at time t, every stage whose next_deadline()
 *     is <= t gets tick(now = deadline), earliest first, ties by stage order.
 *  2. Every trace record of the pipeline's device is offered to every stage
 *     that has observe(), first to last (stages that track free space, commit
 *     boundaries or file releases use it; FREE, ALLOC, INTENT, BIO, ISSUE,
 *     DONE, META incl. META_COMMIT and META_FREESPACE).
 *  3. If the record belongs to the pipeline's source layer (props.source)
 *     it becomes a policy_event and is pushed into the first stage.
 *  Whatever a stage emits through its policy_out goes, synchronously, to the
 *  next stage's push(); the last stage's output goes to the dispatcher, which
 *  submits it to the target at the pipeline's queue depth (props.qd).
 *  4. At the end of the trace: flush() on each stage, first to last, so what
 *  an earlier stage flushes still passes the later ones.
 *
 * Time. The pipeline has one clock, now, that never goes back: the latest of
 * the record times, timer deadlines and completion times it has seen. Every
 * hook is called at now and is told it: observe() and push() as rec->time_ns
 * and ev->time_ns of a source event, tick() and flush() as their argument,
 * complete() as d->done_ns. A stage emits at that time or later, never before
 * (policy_out__emit refuses it). On a model target now is each record's or
 * completion's own time (but for --speed rounding and completions reaped
 * after the final flush). On a real-time target (block device,
 * file) completions arrive when the device says, later than the trace
 * planned: a completion can move now past the next record's trace time (or a
 * completion is reaped after a later record). The pipeline then delivers that
 * record or completion at now, not at its own time, so a stage reacting to
 * it can emit "now"; timers due by now fire first. A late source record keeps
 * its trace time in the event's freed_ns.
 */
#ifndef TRIMSIM_POLICY_H
#define TRIMSIM_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "traces/opts.h"
#include "traces/trace.h"
#include "replay/targets/target.h"

/*
 * A discard request flowing between stages. Passed by const pointer and
 * borrowed for the duration of the call: a stage that keeps a request copies
 * it (segs included) into its own storage, sized at init (no per-event malloc).
 */
struct policy_event {
	uint64_t time_ns;	/* when it leaves the emitting stage; >= the time of the call */
	uint64_t offset;	/* bytes on the whole device; multi-range: the first range */
	uint64_t length;	/* bytes; multi-range: the first range */
	uint64_t ino;		/* inode from FREE/INTENT (0 unknown); after a merge: the first one's */
	uint64_t freed_ns;	/* earliest time the bytes were freed (FREE time, else the
				   source record's time); free-to-discard delay = submit - freed_ns */
	uint64_t bytes;		/* total bytes over all ranges (== length when nr_segs <= 1) */
	const struct target_seg *segs;	/* nr_segs > 1: every range (segs[0] is offset/length), else NULL */
	uint32_t nr_segs;	/* 0 or 1: single range */
	uint32_t count;		/* source requests it carries (1 from the source; summed by merges) */
	uint32_t dev;		/* kernel dev_t */
	uint16_t flags;		/* TS_F_* from the source record (fs nibble, FITRIM, SYNC) */
	uint8_t src_kind;	/* enum ts_kind of the source record (TS_FREE, TS_INTENT, TS_BIO, TS_ISSUE) */
	uint8_t pad;
};

/* Which trace layer feeds the pipeline (struct policy_props.source). */
enum policy_source {
	PS_DEFAULT = 0,	/* not set by any stage: INTENT */
	PS_NONE,	/* nothing: never discard (baseline `none`) */
	PS_FREE,	/* TS_FREE records */
	PS_INTENT,	/* TS_INTENT records */
	PS_BIO,		/* TS_BIO records with op discard */
	PS_ISSUE,	/* TS_ISSUE records with op discard/secure-erase (as-recorded) */
	PS_MAX = PS_ISSUE,
};

/*
 * Who submits the pipeline's discards, and so whether the workload waits when a submission
 * waits (DESIGN.md, the verdict): the workload's own path (XFS 2011's synchronous discard in
 * the log commit, seed 001: a discard that waits holds the workload up), a background worker
 * (ext4's discard work, btrfs' discard work, f2fs' discard thread, fstrim: the workload feels it
 * only through the device), or unknown (as-recorded and hand-built pipelines).
 */
enum policy_waiter { PW_UNKNOWN = 0, PW_WORKLOAD, PW_WORKER, PW_MAX = PW_WORKER };

/* Pipeline-wide properties; stages may set them in init (source(), dispatch(), kernel stages). */
struct policy_props {
	enum policy_source source;
	unsigned qd;		/* dispatch queue depth: 1 = serial (next submitted when the previous
				   completes), N = async up to N in flight, 0 = the target's max */
	bool qd_set;		/* some stage set qd explicitly */
	enum policy_waiter waiter;	/* set by kernel stages (worker) or by the preset */
	bool snapshot;		/* the free-space snapshot (META_FREESPACE) feeds the pipeline too:
				   fstrim trims what is free at its pass, freed during the trace or not */
};

/* What every stage may know about the traced device and the run. */
struct policy_env {
	const struct ts_device *dev;	/* the pipeline's device from the trace header; NULL if unknown */
	uint32_t devno;			/* its dev_t (0: every device in the trace) */
	uint64_t seed;
	uint64_t start_ns;		/* time of the first record */
	bool records_sync;		/* the records carry REQ_SYNC as the kernel set it (ts_header_records_sync()) */
	bool legacy_prealloc;		/* the trace predates TS_F_PREALLOC (header revision 0): an ext4
					   FREE without an inode is an unused preallocation (ts_free_is_prealloc) */
};

/*
 * A field of the traced device's header (struct ts_device: discard_max_bytes, fs_block_size, ...),
 * or dflt where the trace does not give it (no device, or 0 there): what a stage's option of 0,
 * "the device's value", stands for.
 */
#define POLICY_ENV_DEV(env, field, dflt) ((env)->dev && (env)->dev->field ? (env)->dev->field : (dflt))

/* Where a stage sends its output (opaque; owned by the pipeline). */
struct policy_out;
/* 0 or -errno (propagate it). ev->time_ns must be >= the current call's time (now, see "Time"). */
int policy_out__emit(struct policy_out *out, const struct policy_event *ev);
/*
 * A stage that cuts one request into pieces (blocks, block groups, commands)
 * asks here first: 0 if n pieces are within TS_MAX_PIECES (traces/trace.h),
 * else -E2BIG with the pipeline's error naming the stage, n and what the
 * pieces are. The bound keeps one record's work finite whatever a trace claims.
 */
int policy_out__pieces(struct policy_out *out, uint64_t n, const char *what);
/*
 * The discard commands the pipeline has sent (its last stage's output, each one command)
 * that have not completed, those still waiting in the dispatcher included. Exact in a
 * pipeline with a complete() hook, which the engine tells of every completion.
 */
uint64_t policy_out__inflight(const struct policy_out *out);
/*
 * A push that emits the event unchanged (the stages that only set a pipeline
 * property: source, dispatch). A stage whose push is this and that has no other
 * hook but init and report is linked over: the stage before it emits to the next.
 */
int policy_out__pass(void *priv, const struct policy_event *ev, struct policy_out *out);

/*
 * A figure a stage reports under key: a field of its state (priv) at off, a counter
 * (uint64_t, uint32_t) or a flag (bool, reported as true/false). POLICY_STAT() fills
 * one and fails to compile for a field of another type. A stage's table ends with { NULL }.
 */
enum policy_stat_type { PSTAT_U64, PSTAT_U32, PSTAT_BOOL };
struct policy_stat { const char *key; size_t off; enum policy_stat_type type; };
#define POLICY_STAT(type, field, key) \
	{ (key), offsetof(type, field), \
	  _Generic(((type *)0)->field, uint64_t: PSTAT_U64, uint32_t: PSTAT_U32, bool: PSTAT_BOOL) }

/*
 * state_size of a state struct that begins with its config member cfg (the pipeline
 * copies the config there); fails to compile if cfg is not first.
 */
#define POLICY_STATE_SIZE(type, cfg) (sizeof(type) + 0 * sizeof(char[offsetof(type, cfg) == 0 ? 1 : -1]))

/*
 * .opts, .cfg_size and .state_size of a stage whose state struct begins with its config
 * member cfg, the struct the options table points into; cfg_size is that member's size:
 *	POLICY_CONFIG(xfs_opts, struct xfs_state, cfg),
 */
#define POLICY_CONFIG(opts_table, type, cfg) \
	.opts = (opts_table), .cfg_size = sizeof(((type *)0)->cfg), .state_size = POLICY_STATE_SIZE(type, cfg)

/* A completed discard command, for stages that pace on completions. */
struct policy_done {
	uint64_t submit_ns;
	uint64_t done_ns;
	uint64_t offset;	/* first range */
	uint64_t bytes;		/* all ranges */
	uint32_t count;		/* source requests it carried */
	int error;
};

struct policy_stage_ops {
	const char *name;		/* "merge" */
	const char *help;		/* one line */
	const char *follows;		/* kernel file and function it emulates, NULL for generic stages */
	const struct opt_spec *opts;	/* may be NULL: no options */
	size_t cfg_size;		/* bytes of the struct opts point into */
	const char *positional;		/* key a bare first argument sets: min(64K) == min(len=64K); NULL: none */
	/*
	 * Optional (a stage needs init or state_size). priv: the per-instance state (state_size),
	 * which begins with the config: defaults applied, then the user's options; NULL for a
	 * stage without state. props: set source/qd here if the stage decides them.
	 * Refuse a bad option (-EINVAL, message in err) from the config alone: `trimsim replay` checks
	 * a spec with a zeroed env before it opens the trace (a usage error, exit 2); env only tunes.
	 */
	int (*init)(void *priv, const struct policy_env *env, struct policy_props *props, char *err, size_t errlen);
	/* Optional: every trace record of the device, in time order, before it is pushed. */
	int (*observe)(void *priv, const struct ts_record *rec, struct policy_out *out);
	/* A request from upstream (or from the source layer for the first stage). */
	int (*push)(void *priv, const struct policy_event *ev, struct policy_out *out);
	/* Optional: a timer fired; now == the deadline next_deadline() returned. */
	int (*tick)(void *priv, uint64_t now, struct policy_out *out);
	/* Optional: earliest time tick() must run, UINT64_MAX for none. */
	uint64_t (*next_deadline)(void *priv);
	/* Optional: end of trace at time now; emit everything still held. */
	int (*flush)(void *priv, uint64_t now, struct policy_out *out);
	/* Optional: a discard command this pipeline sent completed (every stage is told). */
	int (*complete)(void *priv, const struct policy_done *d, struct policy_out *out);
	/* Optional, with complete(): whether the stage holds requests until a completion comes. */
	bool (*waits)(void *priv);
	/* Optional: stage figures stats cannot give (computed from the state) into obj, after them. */
	int (*report)(void *priv, json_t *obj);
	/* Optional: release what the state holds (priv is never NULL); the pipeline frees the state itself. */
	void (*destroy)(void *priv);
	/*
	 * Optional: the record kinds observe() acts on, as bits (1u << TS_x); 0 = every kind.
	 * observe() is not called for the others, and the engine may skip records no stage wants.
	 */
	uint32_t observe_kinds;
	/*
	 * Optional, with observe_kinds: the ops (1u << TS_OP_x) of those kinds' records observe()
	 * acts on; 0 = every op. observe() may still be called for the others (another stage
	 * observes them), but a record of an op no stage wants may be skipped like an unobserved
	 * kind (chain: the discards' ISSUE and DONE, not the foreground's).
	 */
	uint32_t observe_ops;
	/* Optional: the stage's counters and flags, reported as they are before report() adds the rest. */
	const struct policy_stat *stats;
	/*
	 * A stage with per-instance state sets this: the pipeline makes the state, state_size
	 * zeroed bytes that begin with a copy of the config (cfg_size bytes), in *priv before
	 * init() runs, and frees it after destroy(). 0: no state (priv NULL).
	 */
	size_t state_size;
};

/* A preset argument that is not its stage option's own name: xfs(plug=0) sets blk-plug's enable. */
struct policy_alias {
	const char *key;
	const char *stage;
	const char *opt;
};

/*
 * A named preset: a pipeline string whose stage arguments are the preset's defaults.
 * The preset's arguments are the options of its stages after the source, forwarded to
 * them: key=value sets every such stage that has an option called key, and the
 * option an alias names; a bare value sets the next key of positional.
 */
struct policy_preset {
	const char *name;		/* "sort-merge-async" */
	const char *help;
	const char *pipeline;		/* "source(intent) | batch | sort | merge(max=64M,segments=1) | dispatch(qd=32)" */
	const char *follows;		/* kernel source it follows: "fs/xfs/xfs_discard.c: xfs_discard_extents()"; NULL if none */
	const char *positional;		/* "qd,window,max,segments": the keys bare arguments set, in order; NULL: none */
	const struct policy_alias *aliases;	/* { NULL }-terminated; NULL: none */
	enum policy_waiter waiter;	/* who submits its discards, unless a stage of it says (props.waiter) */
};

/*
 * Registries. Stage kinds: the generic ones (replay/policies/stages.c) then the
 * kernel-emulating ones (policy_kernel_stages in replay/policies/presets.c).
 * Presets: replay/policies/presets.c.
 */
extern const struct policy_stage_ops *const policy_kernel_stages[];	/* NULL-terminated */
extern const struct policy_preset policy_presets[];			/* { NULL }-terminated */
const struct policy_stage_ops *policy_stage_at(size_t i);	/* NULL past the end */
const struct policy_stage_ops *policy_stage_find(const char *name);
const struct policy_preset *policy_preset_find(const char *name);
/* Checks every stage option table and preset expansion once; 0 or -EINVAL with err. */
int policy_registry_validate(char *err, size_t errlen);

/* ---- A pipeline: parsed from a policy string, driven by the engine ---- */
struct policy;

/* Receives what the last stage emits (the engine's dispatcher). */
typedef int (*policy_sink_fn)(void *arg, const struct policy_event *ev);

/*
 * Parses "preset", "preset(args)" or "stage(args) | stage | ..." (presets may
 * appear as stages too). Errors name the stage or option, show the column
 * with a caret line, and list what is valid. NULL with errno and err set.
 */
struct policy *policy__new(const char *spec, const struct policy_env *env,
			   policy_sink_fn sink, void *sink_arg, char *err, size_t errlen);
const struct policy_props *policy__props(const struct policy *p);
/* The expanded pipeline, canonical form, every option shown: "source(layer=free) | ...". */
const char *policy__describe(const struct policy *p);
/*
 * False when policy__record(rec) would only fire timers: no stage observes
 * records and rec is not of the source layer (the engine skips such records).
 */
bool policy__wants(const struct policy *p, const struct ts_record *rec);
/*
 * True when the stages' state depends on the records alone: no stage reacts to
 * completions and no timer is pending. A completion moves the pipeline's clock,
 * and a timer then fires at that time rather than its deadline; while quiet, when
 * the engine reaps what is in flight (before or after a record policy__wants()
 * refuses) changes nothing.
 */
bool policy__quiet(struct policy *p);
/* Bits 1u << kind of the record kinds below 32 policy__wants() can be true for (fixed once built). */
uint32_t policy__wanted_kinds(const struct policy *p);
/* Fires timers up to now, offers rec to observers, pushes it if it is a source record. */
int policy__record(struct policy *p, const struct ts_record *rec);
/* Fires every timer with deadline <= now. */
int policy__advance(struct policy *p, uint64_t now);
/* Earliest stage deadline, UINT64_MAX for none (cached between hook calls). */
uint64_t policy__next_deadline(struct policy *p);
/* Whether some stage has timers (fixed once built): else policy__next_deadline() is always UINT64_MAX. */
bool policy__has_timers(const struct policy *p);
/*
 * Whether some stage has a complete() hook (fixed once built): else policy__complete() only moves the
 * clock. True with TRIMSIM_OBSERVE_ALL: the engine then tells the pipeline every completion.
 */
bool policy__completes(const struct policy *p);
/*
 * Whether some stage holds requests until a completion comes (struct policy_stage_ops.waits):
 * with --timing asap the engine reaps before the next record until none does, as it empties
 * its own queues, so that the next record comes when they have gone.
 */
bool policy__waits(struct policy *p);
/* Bits 1u << kind of the kinds below 32 some stage observes (all with TRIMSIM_OBSERVE_ALL; fixed once built). */
uint32_t policy__observed_kinds(const struct policy *p);
int policy__flush(struct policy *p, uint64_t now);
int policy__complete(struct policy *p, const struct policy_done *d);
/* {"stages":[{"name":..,"options":{..},..stage report..}], "pipeline": ".."} */
json_t *policy__report(const struct policy *p);
const char *policy__error(const struct policy *p);	/* the last hook error, with the stage name */
void policy__destroy(struct policy *p);

const char *policy_source_name(enum policy_source s);
const char *policy_waiter_name(enum policy_waiter w);	/* "unknown", "workload", "worker" */
/* The replayed records a pipeline could read from, counted by policy_input_count(). */
struct policy_input_counts {
	uint64_t kind[TS_KIND_MAX + 1];	/* per enum ts_kind (0: unknown kinds) */
	uint64_t freespace;		/* META_FREESPACE records: a free-space snapshot */
};

static inline void policy_input_count(struct policy_input_counts *c, const struct ts_record *rec)
{
	c->kind[rec->kind <= TS_KIND_MAX ? rec->kind : 0]++;
	if (rec->kind == TS_META)	/* a branch: the other kinds skip the op test and the add */
		c->freespace += rec->op == TS_META_FREESPACE;
}

/*
 * Whether the source layer is missing from the replayed records, the rule by
 * which compare marks a cell n/a and replay refuses (c: the records of the
 * replayed device). A layer is present when any record of its kind is
 * (a block-layer trace with ISSUE records but no discard among them really
 * issued none: an answer, not a missing layer), and for a pipeline that reads
 * the free-space snapshot (props->snapshot: fstrim) when the trace has one;
 * `none` reads nothing and never misses. When missing, why gets the reason ("trace has no FREE records", and
 * when dev's filesystem recorded neither FREE nor INTENT records ": btrfs has no fs-level events", or, for a
 * filesystem whose events the recorder takes (ext4, xfs; UFS by DTrace), that none of them were recorded);
 * else why = "".
 */
bool policy_source_missing(const struct policy_props *props, const struct policy_input_counts *c,
			   const struct ts_device *dev, char *why, size_t len);

#endif
