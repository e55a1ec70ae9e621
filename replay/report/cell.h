/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One cell of a comparison: (trace, policy, profile) and what its replay cost.
 *
 * A cell is plain old data (fixed arrays, no pointers) so a forked worker can
 * hand it to the parent through a pipe as bytes and the parent renders every
 * format (table, JSON, CSV, HTML) from the same numbers.
 *
 * Filled in two steps:
 *  1. the replay of the cell: raw figures (counts, bytes, latencies, device
 *     times, makespan) from the engine's metrics, and the time series a
 *     report_probe collects as the engine's observer (replay/report/probe.h);
 *  2. report__finish(): the figures relative to the `none` baseline of the
 *     same (trace, profile) -- stall, write-latency inflation, added time,
 *     share of wall time.
 * Times are ns, sizes bytes. A figure that is unknown is NAN (doubles) or
 * flagged in `have` (integers).
 */
#ifndef TRIMSIM_REPORT_CELL_H
#define TRIMSIM_REPORT_CELL_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/engine/hist.h"

/* Command-size histogram: bucket i holds sizes in [512 << (i-1), 512 << i), bucket 0: < 512 B. */
#define SIZE_BUCKETS	32
#define SIZE_BASE	512ull
/* Time series: SERIES_BINS bins of bin_ns each from the replay's start (the bin width doubles as needed). */
#define SERIES_BINS	240
#define RUNS_MAX	64

/*
 * Discard latency (submit to completion): the engine's histogram (struct hist,
 * replay/engine/hist.h: metrics__latency), copied because a cell is plain data. The
 * table's percentiles and the latency chart both come from it.
 */
struct cell_lat {
	uint64_t count;
	uint64_t sum_ns;		/* saturates at UINT64_MAX */
	uint64_t min_ns;		/* valid when count > 0 */
	uint64_t max_ns;
	uint64_t buckets[HIST_BUCKETS];	/* hist_bucket() indices; hist_bucket_range() gives each one's range */
};

struct cell_series {
	uint64_t bin_ns;			/* width of one bin */
	uint32_t nbins;				/* bins in use */
	uint32_t pad;
	uint64_t cmds[SERIES_BINS];		/* discard commands completed in the bin */
	uint64_t bytes[SERIES_BINS];		/* bytes they covered */
	uint64_t busy_ns[SERIES_BINS];		/* device time serving them */
	uint64_t untrimmed[SERIES_BINS];	/* freed, not yet discarded, at the end of the bin */
};

/* Per-run samples (--runs N on real targets); one entry per run. */
struct cell_runs {
	uint32_t n;
	uint32_t pad;
	double makespan_s[RUNS_MAX];
	double discard_s[RUNS_MAX];
};

/* Who submits a cell's discards (RESULT.md policy.waiter; replay/policies/policy.h enum policy_waiter). */
enum cell_waiter { CW_UNKNOWN = 0, CW_WORKLOAD, CW_WORKER };

/*
 * What the cell's added time rests on (report.c, discard_wait()):
 *  - FOREGROUND: the trace's own I/O (how long it was held up, when it ended);
 *  - SYNC: the workload waited for each discard (a synchronous submitter): [release, completion);
 *  - QUEUE: the workload's asynchronous submissions waited for room in the queue: [release, submit);
 *  - UNKNOWN: no foreground I/O, and the discards came from a background worker (or an unknown
 *    submitter that never waited): the trace cannot tell whether the workload waited.
 * SYNC and QUEUE add to what the foreground shows, when there is any.
 */
enum cell_wait { CWB_NONE = 0, CWB_FOREGROUND, CWB_SYNC, CWB_QUEUE, CWB_UNKNOWN };
/* Whose discards' last completion the workload's end moved to (report.c, discard_wait()). */
enum cell_end_wait { CEW_NONE = 0, CEW_OWN, CEW_FITRIM };

enum cell_have {
	CH_WRITE_P99 = 1u << 0,	/* foreground writes were replayed */
	CH_WA = 1u << 1,	/* target reported write amplification */
	CH_UNTRIMMED = 1u << 2,	/* free-space series is meaningful (trace has FREE records) */
	CH_BASELINE = 1u << 3,	/* report__finish found a `none` cell for this (trace, profile) */
	CH_TWIN = 1u << 4,	/* the engine measured foreground on a discard-free twin of the target */
	CH_READ_P99 = 1u << 5,	/* foreground reads were replayed */
};

struct report_cell {
	/* identity */
	char trace[256];		/* as given on the command line */
	char policy[160];		/* as given (-p item) */
	char profile[96];		/* as given (-M item) */
	char pipeline[512];		/* the engine's expanded pipeline, every option shown ("" unknown) */
	uint32_t index;			/* position in the matrix: trace-major, then policy, then profile */
	int status;			/* 0, or -errno if the replay failed */
	char error[256];
	char na[160];			/* not applicable: why ("trace has no FREE records: ..."); "" = applicable.
					   The policy's source layer (policy.h enum policy_source) is absent
					   from the trace, so its figures would be zeros that mean nothing */
	char cut[200];			/* the trace ended before its footer: the reader's message (file, byte,
					   whole records recovered), which the figures cover; "" = complete */
	bool realtime;			/* real device / file target (runs vary) */
	bool none;			/* the policy never discards (baseline) */
	uint16_t have;			/* enum cell_have */

	/* discards */
	uint64_t cmds;			/* device discard commands completed, failed ones (errors) included */
	uint64_t bytes;			/* bytes they covered */
	uint64_t unique_bytes;		/* bytes of the union of their ranges */
	uint64_t requests;		/* source requests (FREE/INTENT/BIO) they carried */
	uint64_t errors;		/* discards that completed with an error (rejected by the device) */
	struct cell_lat lat;		/* discard latency (submit -> done) of those that completed without error */
	uint64_t lat_p50_ns, lat_p99_ns, lat_max_ns;
	uint64_t discard_ns;		/* device time spent serving discards */
	uint64_t peak_cmds_s;		/* most discard commands submitted in one aligned second */
	uint64_t peak_bytes_s;		/* most discard bytes in one aligned second */
	uint64_t size_hist[SIZE_BUCKETS];

	/* foreground and device */
	uint64_t fg_cmds;		/* foreground commands replayed */
	uint64_t fg_stall_ns;		/* time foreground commands waited behind discards (CH_TWIN: the
					   engine's stall against its discard-free twin; else queueing time) */
	uint64_t write_p99_ns;		/* p99 foreground write latency */
	uint64_t write_p99_base_ns;	/* CH_TWIN: the same on the discard-free twin */
	uint64_t read_p99_ns;		/* p99 foreground read latency */
	uint64_t read_p99_base_ns;	/* CH_TWIN: the same on the discard-free twin */
	double write_amp;		/* NAN if the target has no FTL */
	double reclaim_byte_s;		/* RESULT.md reclaim.byte_s: freed-but-untrimmed byte-seconds */
	uint64_t reclaim_freed;		/* RESULT.md reclaim.freed_bytes (0: the trace frees nothing) */

	/* time */
	uint64_t wall_ns;		/* the workload's wall time: the trace span, widened to the recorded
					   command's run or the recording's window (engine__wall()) */
	uint64_t trace_end_ns;		/* when that ended, from the first replayed record */
	uint64_t makespan_ns;		/* replay end - start (includes discards still draining after the workload) */
	uint64_t fg_end_ns;		/* the later of the trace's last record and the last foreground
					   completion (probe.c) */
	uint64_t workload_ns;		/* when the workload was done: fg_end_ns, or the last completion of the
					   discards it waited for (report.c, discard_wait()) */
	uint64_t fg_held_ns;		/* wall time during which some foreground command waited to start
					   (union of its [submit, start) intervals) */
	uint64_t d_held_ns;		/* RESULT.md discard.held_ns: released discards waiting for room */
	uint64_t d_waited_ns;		/* RESULT.md discard.waited_ns: released discards not yet completed */
	uint64_t d_fitrim_ns;		/* wall time some discard of the trace's own FITRIM (an fstrim the
					   recorded command ran) had not completed: union of [submit, done) */
	uint64_t d_own_ns;		/* wall time some discard covering the recorded command's own discard
					   bios (flag workload) had not completed: union of [submit, done) */
	uint64_t d_fitrim_end_ns;	/* replay start to the last completion of those FITRIM discards (0: none) */
	uint64_t d_own_end_ns;		/* the same for those own discards */
	uint8_t waiter;			/* enum cell_waiter */
	bool serial_qd;			/* the pipeline sends one discard at a time (policy.qd 1) */
	uint64_t rec_bios, rec_bios_own;	/* the trace's discard BIOs; those flagged workload */
	bool rec_others;		/* the trace names the command's own discard BIOs (revision >=
					   TS_REV_WORKLOAD, a cmd-start) and none of its discard BIOs is one:
					   the filesystem's workers sent them (runcell.c) */
	bool rec_serial;		/* the trace's own discards were serial: each ISSUE after the previous
					   one's DONE (a synchronous submitter, as in seed 001) */
	struct cell_series series;
	struct cell_runs runs;

	/* relative to `none`, filled by report__finish (NAN / 0 if no baseline) */
	int64_t stall_vs_none_ns;
	double write_p99_inflation;	/* write_p99 / none's write_p99 */
	double read_p99_inflation;	/* read_p99 / none's read_p99 */
	uint64_t added_ns;		/* what discard adds to the workload's time (report.c, relative()) */
	uint64_t discard_wait_ns;	/* the workload's wait for the discards themselves (part of added_ns) */
	uint8_t wait_basis;		/* enum cell_wait */
	bool fitrim_wait;		/* discard_wait_ns is the trace's fstrim waiting for its FITRIM discards */
	bool own_wait;			/* discard_wait_ns is the recorded command waiting for the discards it
					   submitted itself, one at a time */
	uint8_t end_wait;		/* enum cell_end_wait: added_ns is the workload's end moved to the
					   last completion of the discards it waited for */
	double share;			/* added_ns / wall_ns */
	double redundancy;		/* bytes / unique_bytes, NAN without discards */

	/* real targets: commands (discard and foreground) that completed with an error, over every run */
	uint64_t failed;
	char failed_why[96];		/* per errno: "ENOSPC 3280, EIO 2" */
};

/* A cell whose figures mean something: it ran and its policy had input. */
static inline bool report_cell_ok(const struct report_cell *c)
{
	return !c->status && !c->na[0];
}

#endif
