/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay engine (ENGINE.md): a discrete-event loop that streams trace
 * records through a policy pipeline into a target, submits the trace's
 * foreground I/O through the same target, and feeds the metrics core.
 * Memory is bounded by the policy's windows, the dispatch queues and the
 * target's state, never by the trace length.
 */
#ifndef TRIMSIM_ENGINE_H
#define TRIMSIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "replay/engine/metrics.h"
#include "replay/policies/policy.h"
#include "replay/targets/target.h"
#include "traces/trace.h"

enum engine_timing { TIMING_TRACE = 0, TIMING_ASAP = 1 };

/*
 * Optional watcher (the compare report, tests): sees what the engine sees on
 * the real target, in the order the engine handles it (ENGINE.md, "Observers").
 * Times: records carry trace time; commands and completions engine time.
 * Any hook may be NULL; a submit hook's error stops the replay.
 */
struct engine_observer {
	void *arg;
	/*
	 * Every record of the replayed device, as read, when the engine takes it:
	 * after the completions and timers due before it, or at once when nothing
	 * reacts to it (a skipped record, ENGINE.md "Cost per record").
	 */
	void (*record)(void *arg, const struct ts_record *rec);
	/* Every command submitted to the target (discards: all their ranges in cmd->segs or offset/length). */
	int (*submit)(void *arg, const struct target_cmd *cmd);
	/* Every completion from the target (not the baseline twin's). */
	void (*done)(void *arg, const struct target_done *d);
	/*
	 * Once, before the first record: that record's trace time and the engine
	 * time it maps to, the origins of the two clocks (a real-time target's
	 * completions are on its own clock, which starts before the replay).
	 */
	void (*start)(void *arg, uint64_t trace_ns, uint64_t engine_ns);
};

struct engine_cfg {
	const char *policy;		/* policy string */
	const struct target_ops *target;
	const char *target_arg;		/* after "name:" */
	enum engine_timing timing;
	double speed;			/* trace timing: 2.0 replays twice as fast */
	uint64_t seed;
	uint32_t devno;			/* only this device's records; 0: all */
	const struct ts_device *dev;	/* its header entry, NULL if unknown */
	unsigned qd;			/* target queue depth override (0: target default) */
	uint64_t trace_extent;		/* highest offset+length the replayed records touch (0: unknown) */
	bool destructive;
	bool baseline;			/* model targets: measure foreground on a discard-free twin */
	bool legacy_prealloc;		/* trace header revision < TS_REV_PREALLOC (policy_env) */
	bool records_sync;		/* ts_header_records_sync() (policy_env) */
	uint64_t start_ns;		/* the trace's start (header start_ns): policy_env.start_ns, the origin of
					   the stages' periodic timers (fstrim's first pass); 0 = unknown */
	const struct engine_observer *observer;	/* may be NULL */
};

struct engine;

/* NULL with errno and a one-line message in err. */
struct engine *engine__new(const struct engine_cfg *cfg, char *err, size_t errlen);
/*
 * Records in time order, as a trace reader returns them: within the bounds
 * traces/bounds.c enforces (times and extents below 2^63, each on its device).
 * 0 or -errno (engine__error).
 */
int engine__feed(struct engine *e, const struct ts_record *recs, size_t n);
/* End of trace: flush the policy, drain the target. */
int engine__finish(struct engine *e);
/*
 * The policy's source layer had no record among those fed (policy_source_missing():
 * compare's n/a, replay's refusal); why gets the reason, or "" when it had input.
 */
bool engine__source_missing(const struct engine *e, char *why, size_t len);
/* The result object (RESULT.md) minus the trace and run sections the caller adds. */
json_t *engine__result(const struct engine *e);
const struct metrics *engine__metrics(const struct engine *e);
/* The pipeline replayed (its props and expanded form, for the report). */
const struct policy *engine__policy(const struct engine *e);
/* Foreground was measured on a discard-free twin (RESULT.md target.baseline). */
bool engine__has_twin(const struct engine *e);
/* The replayed records' span, first to last, in trace time (RESULT.md records.span_ns). */
uint64_t engine__span(const struct engine *e);
/*
 * The workload's wall time: the replayed records' span widened to the recorded command's run
 * where the trace names it (META cmd-start and cmd-stop), else to the recording's window
 * [from, to] (trace time; 0, 0: none known); *end: when that ended, from the first replayed
 * record (replay time).
 */
uint64_t engine__wall(const struct engine *e, uint64_t from, uint64_t to, uint64_t *end);
/* The trace names the recorded command's start (META cmd-start). */
bool engine__ran_command(const struct engine *e);
/* The target's write amplification (FTL models, RESULT.md device.write_amplification): 1, or 0 when it has none. */
int engine__write_amp(const struct engine *e, double *wa);
const char *engine__error(const struct engine *e);
/* Peak entries held in the dispatch queues and in-flight table (memory-bound tests). */
size_t engine__peak_queued(const struct engine *e);
uint32_t engine__devno(const struct engine *e);
void engine__free(struct engine *e);

#endif
