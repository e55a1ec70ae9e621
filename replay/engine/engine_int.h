/* SPDX-License-Identifier: GPL-2.0 */
/* The engine's state, shared by engine.c (the loop) and engine_setup.c (open, result, free). */
#ifndef TRIMSIM_ENGINE_INT_H
#define TRIMSIM_ENGINE_INT_H

#include "replay/engine/engine.h"
#include "replay/policies/evq.h"

struct fg_item {
	uint64_t tag, ready, offset, length;
	uint8_t op;
	uint16_t flags;
};

struct lane {
	const struct target_ops *ops;
	void *priv;
	bool shadow;
	uint64_t now;			/* this lane's clock (engine time) */
	struct fg_item *fg;		/* ring of foreground commands waiting to go */
	size_t fg_cap, fg_head, fg_n;	/* fg_cap: 0 or a power of two */
	struct evq dq;			/* discards waiting to go (real lane); ev.time_ns = ready */
	unsigned inflight, d_inflight, max, qd;
	uint64_t next_done;		/* ops->next_done() while next_done_ok (not real-time: it moves only */
	bool next_done_ok;		/* on submit and reap, so it is asked again only after one) */
};

/* A reclaim-only record (FREE, or INTENT while no FREE was counted) whose metrics__freed() waits. */
struct defer_free {
	uint64_t t, bytes;	/* engine time, bytes freed */
	bool intent;
};
#define DEFER_FREES 256		/* a power of two */

struct slot {
	struct metrics_cmd mc;
	uint64_t lat, base;		/* foreground: done - ready (what the application waited) */
	uint64_t ready[2];		/* per lane: when the command was ready */
	uint8_t pending;		/* bit 0: real lane, bit 1: shadow lane */
	bool failed;			/* the real lane completed it with an error: no baseline pair */
	size_t next_free;
};

struct engine {
	struct engine_cfg cfg;
	struct policy *pol;
	struct metrics *m;
	struct lane lane[2];
	unsigned nlanes;
	unsigned nloop;			/* lanes run_until() drives: the twin only with --timing asap (engine.c) */
	bool twin_idle;			/* asap: no foreground command yet, the twin out of the loop (enqueue_fg()) */
	struct slot *slots;
	size_t nslots, slots_cap, free_slot;	/* free list through next_free; SIZE_MAX ends it */
	uint64_t t0, base, last_trace, records, out_of_order, fg_records;
	uint64_t cmd_start, cmd_stop;	/* the recorded command's run (META cmd-start/cmd-stop), trace time */
	bool cmd_started, cmd_stopped;	/* ... seen (a time of 0 is a time) */
	struct policy_input_counts input;	/* replayed records by kind (engine__source_missing, records.replayed) */
	bool started, flushed, realtime;
	bool unscaled;			/* asap or --speed 1: scale() changes no duration (a test of one flag) */
	bool skip_idle;			/* model target: records nothing reacts to are skipped (ENGINE.md) */
	bool drain_owed;		/* asap: records were skipped since the last drain */
	bool sink_direct;		/* engine_sink() may submit a discard at once (engine__feed()) */
	bool timers;			/* policy__has_timers(): else timer_due() asks nothing */
	bool done_unseen;		/* the policy is not told of completions (engine_setup.c) */
	bool fg_unseen;			/* ... nor of foreground records (engine_setup.c) */
	bool done_acts;			/* a stage acts on completions (policy__completes()): a completion may
					   queue a discard or set a deadline before the loop's next stop */
	uint64_t timer_dl, timer_te;	/* the policy's last deadline (trace time) and its engine time */
	uint32_t wanted_kinds;		/* policy__wanted_kinds(): no policy__wants() call for the others */
	uint32_t idle_kinds;		/* kinds never foreground, freed bytes or wanted: skipped at once */
	size_t peak_q;
	uint64_t queued;			/* commands queued so far (foreground and the policy's) */
	/*
	 * skip_idle: reclaim-only records skip the event loop; their metrics__freed()
	 * waits here until the first discard completion after them or the next record
	 * that runs the loop (engine__feed()), so it reaches the metrics in time order.
	 */
	struct defer_free dfree[DEFER_FREES];
	unsigned dfree_head, dfree_n;
	bool free_counted;			/* a FREE record reached the reclaim figures */
	char err[600];
};

/* The policy's sink: queues a discard for dispatch. */
int engine_sink(void *arg, const struct policy_event *ev);

#endif
