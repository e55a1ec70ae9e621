// SPDX-License-Identifier: GPL-2.0
/* The comparison matrix, the columns every format shares, figures versus `none`. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "replay/report/report_int.h"

#define U(x) ((double)(x))

static double g_cmds(const struct report_cell *c) { return U(c->cmds); }
static double g_bytes(const struct report_cell *c) { return U(c->bytes); }
static double g_unique(const struct report_cell *c) { return U(c->unique_bytes); }
static double g_redund(const struct report_cell *c) { return c->redundancy; }
static double g_p50(const struct report_cell *c) { return c->lat.count ? U(c->lat_p50_ns) : NAN; }
static double g_p99(const struct report_cell *c) { return c->lat.count ? U(c->lat_p99_ns) : NAN; }
static double g_max(const struct report_cell *c) { return c->lat.count ? U(c->lat_max_ns) : NAN; }
static double g_discard(const struct report_cell *c) { return U(c->discard_ns); }
static double g_stall(const struct report_cell *c)
{
	return c->have & CH_BASELINE ? (double)c->stall_vs_none_ns : NAN;
}
static double g_infl(const struct report_cell *c) { return c->write_p99_inflation; }
static double g_wa(const struct report_cell *c) { return c->have & CH_WA ? c->write_amp : NAN; }
static double g_peak(const struct report_cell *c) { return U(c->peak_cmds_s); }
static double g_peakb(const struct report_cell *c) { return U(c->peak_bytes_s); }
static double g_added(const struct report_cell *c) { return U(c->added_ns); }
static double g_share(const struct report_cell *c) { return c->share; }
static double g_fgstall(const struct report_cell *c) { return U(c->fg_stall_ns); }
static double g_wp99(const struct report_cell *c) { return c->have & CH_WRITE_P99 ? U(c->write_p99_ns) : NAN; }
static double g_req(const struct report_cell *c) { return U(c->requests); }
static double g_errors(const struct report_cell *c) { return U(c->errors); }
static double g_wall(const struct report_cell *c) { return U(c->wall_ns); }
static double g_makespan(const struct report_cell *c) { return U(c->makespan_ns); }
static double g_workload(const struct report_cell *c) { return U(c->workload_ns); }
static double g_held(const struct report_cell *c) { return U(c->fg_held_ns); }
static double g_dwait(const struct report_cell *c) { return U(c->discard_wait_ns); }

static const struct report_col columns[] = {
	{ "discard_cmds", "cmds", CK_COUNT, true, g_cmds, "device discard commands completed" },
	{ "discard_bytes", "bytes", CK_BYTES, true, g_bytes, "bytes those commands covered" },
	{ "unique_bytes", "unique", CK_BYTES, true, g_unique, "bytes in the union of their ranges" },
	{ "redundancy", "redund", CK_RATIO, true, g_redund, "discard_bytes / unique_bytes" },
	{ "lat_p50_ns", "p50", CK_NS, true, g_p50, "median discard latency (submit to completion)" },
	{ "lat_p99_ns", "p99", CK_NS, true, g_p99, "99th percentile discard latency" },
	{ "lat_max_ns", "max", CK_NS, true, g_max, "largest discard latency" },
	{ "discard_time_ns", "in-trim", CK_NS, true, g_discard, "device time spent serving discards" },
	{ "stall_vs_none_ns", "fgwait-sum", CK_SNS, true, g_stall,
	  "sum of foreground waits: over every foreground command, the extra time it waited because of "
	  "discard (vs the engine's discard-free twin, else vs the `none` cell); waits overlap, so the sum "
	  "can exceed the wall time -- it is not wall time (see added_ns and share)" },
	{ "write_p99_inflation", "wp99x", CK_RATIO, true, g_infl,
	  "p99 foreground write latency / the `none` cell's" },
	{ "write_amp", "WA", CK_RATIO, true, g_wa, "device write amplification (FTL targets)" },
	{ "peak_cmds_per_s", "peak/s", CK_RATE, true, g_peak,
	  "most discard commands submitted within one aligned second" },
	{ "added_ns", "added", CK_NS, true, g_added,
	  "time discard adds to the workload: the largest of its later end, its extra held-up time "
	  "(versus the `none` cell, else versus the trace itself) and its own wait for the discards "
	  "(discard_wait_ns)" },
	{ "share", "share", CK_SHARE, true, g_share, "added_ns / wall_ns" },
	{ "requests", "requests", CK_COUNT, false, g_req, "source requests (FREE/INTENT/BIO) the commands carried" },
	{ "peak_bytes_per_s", "peakB/s", CK_BYTE_RATE, false, g_peakb, "most discard bytes submitted within one aligned second" },
	{ "fg_stall_ns", "fgwait", CK_NS, false, g_fgstall, "time foreground commands queued (start - submit)" },
	{ "write_p99_ns", "wp99", CK_NS, false, g_wp99, "p99 foreground write latency" },
	{ "discard_errors", "errors", CK_COUNT, false, g_errors, "discards that completed with an error (rejected)" },
	{ "wall_ns", "wall", CK_NS, false, g_wall, "the workload's wall time: the trace's span, widened to the recorded command's run" },
	{ "makespan_ns", "makespan", CK_NS, false, g_makespan,
	  "replay start to the last completion, discards draining after the workload included" },
	{ "workload_ns", "workload", CK_NS, false, g_workload,
	  "replay start to the workload's end: its last record or foreground completion, whichever is later" },
	{ "fg_held_ns", "held", CK_NS, false, g_held,
	  "wall time during which some foreground command waited to start (union of the waits)" },
	{ "discard_wait_ns", "dwait", CK_NS, false, g_dwait,
	  "wall time the workload waited for the discards themselves (wait_basis synchronous: each to "
	  "complete; queue: room to submit them); 0 when a background worker submits them" },
};

const struct report_col *report_columns(size_t *n)
{
	*n = sizeof(columns) / sizeof(columns[0]);
	return columns;
}

static char *dup_or_null(const char *s, bool *fail)
{
	char *d = strdup(s);

	if (!d)
		*fail = true;
	return d;
}

/*
 * The fields of a zeroed cell that are not zero. report__new() calls it on calloc'd
 * cells: a cell is 40 KiB, mostly its latency histogram, and the pages this does not
 * touch stay unallocated until the cell's result arrives, so compare's forked workers
 * do not share them (a write to a shared page copies it and flushes the other CPUs' TLBs).
 */
static void cell_name(struct report_cell *c, const char *trace, const char *policy, const char *profile,
		      uint32_t index)
{
	c->index = index;
	snprintf(c->trace, sizeof(c->trace), "%s", trace);
	snprintf(c->policy, sizeof(c->policy), "%s", policy);
	snprintf(c->profile, sizeof(c->profile), "%s", profile);
	c->none = !strcmp(policy, "none");
	c->write_amp = NAN;
}

struct report *report__new(char *const *traces, size_t ntraces, char *const *policies, size_t npolicies,
			   char *const *profiles, size_t nprofiles, unsigned runs, uint64_t seed)
{
	struct report *r = calloc(1, sizeof(*r));
	bool fail = false;

	if (!r)
		return NULL;
	r->nt = ntraces;
	r->np = npolicies;
	r->nm = nprofiles;
	r->runs = runs ? runs : 1;
	r->seed = seed;
	r->ncells = ntraces * npolicies * nprofiles;
	r->traces = calloc(ntraces + 1, sizeof(char *));
	r->policies = calloc(npolicies + 1, sizeof(char *));
	r->profiles = calloc(nprofiles + 1, sizeof(char *));
	r->cells = calloc(r->ncells ? r->ncells : 1, sizeof(*r->cells));
	if (!r->traces || !r->policies || !r->profiles || !r->cells)
		goto fail;
	for (size_t i = 0; i < ntraces; i++)
		r->traces[i] = dup_or_null(traces[i], &fail);
	for (size_t i = 0; i < npolicies; i++)
		r->policies[i] = dup_or_null(policies[i], &fail);
	for (size_t i = 0; i < nprofiles; i++)
		r->profiles[i] = dup_or_null(profiles[i], &fail);
	if (fail)
		goto fail;
	for (size_t t = 0; t < ntraces; t++)
		for (size_t p = 0; p < npolicies; p++)
			for (size_t m = 0; m < nprofiles; m++) {
				size_t i = report__at(r, t, p, m);

				cell_name(&r->cells[i], traces[t], policies[p], profiles[m], (uint32_t)i);
			}
	return r;
fail:
	report__destroy(r);
	errno = ENOMEM;
	return NULL;
}

void report_cell__init(struct report_cell *c, const char *trace, const char *policy, const char *profile,
		       uint32_t index)
{
	memset(c, 0, sizeof(*c));
	cell_name(c, trace, policy, profile, index);
}

size_t report__at(const struct report *r, size_t t, size_t p, size_t m)
{
	return (t * r->np + p) * r->nm + m;
}

size_t report__ncells(const struct report *r) { return r->ncells; }
struct report_cell *report__cell(struct report *r, size_t i) { return &r->cells[i]; }
const struct report_cell *report__cell_c(const struct report *r, size_t i) { return &r->cells[i]; }
size_t report__ntraces(const struct report *r) { return r->nt; }
size_t report__npolicies(const struct report *r) { return r->np; }
size_t report__nprofiles(const struct report *r) { return r->nm; }
const char *report__trace(const struct report *r, size_t i) { return r->traces[i]; }
const char *report__policy(const struct report *r, size_t i) { return r->policies[i]; }
const char *report__profile(const struct report *r, size_t i) { return r->profiles[i]; }
unsigned report__runs(const struct report *r) { return r->runs; }
uint64_t report__seed(const struct report *r) { return r->seed; }

const char *const *report__verdicts(const struct report *r, size_t *n)
{
	*n = r->nverdicts;
	return (const char *const *)r->verdicts;
}

const struct report_cmp *report__comparisons(const struct report *r, size_t *n)
{
	*n = r->ncmps;
	return r->cmps;
}

/* The `none` cell of the same trace and profile, or NULL. */
const struct report_cell *report_baseline(const struct report *r, const struct report_cell *c)
{
	size_t t = c->index / (r->np * r->nm), m = c->index % r->nm;

	for (size_t p = 0; p < r->np; p++) {
		const struct report_cell *b = &r->cells[report__at(r, t, p, m)];

		if (b->none && !b->status)
			return b;
	}
	return NULL;
}

const char *report__trace_cut(const struct report *r, size_t t)
{
	for (size_t p = 0; p < r->np; p++)
		for (size_t m = 0; m < r->nm; m++) {
			const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

			if (c->cut[0])
				return c->cut;
		}
	return NULL;
}

uint64_t report_trace_wall(const struct report *r, size_t t)
{
	for (size_t p = 0; p < r->np; p++)
		for (size_t m = 0; m < r->nm; m++) {
			const struct report_cell *c = &r->cells[report__at(r, t, p, m)];

			if (!c->status)
				return c->wall_ns ? c->wall_ns : c->makespan_ns;
		}
	return 0;
}

/*
 * What discard adds to the workload, replayed open-loop at the trace's times:
 * the later end of the workload, or the extra wall time during which its I/O
 * was held up waiting to start, whichever is larger. The first catches a
 * workload whose last I/O waits (seed 001: XFS rm behind serial TRIMs); the
 * second a workload held up in the middle; discards that drain after the
 * workload (btrfs' delayed discard, a final fstrim pass) add neither.
 */
static uint64_t added(const struct report_cell *c, uint64_t end_ns, uint64_t base_end, uint64_t base_held)
{
	uint64_t end = end_ns > base_end ? end_ns - base_end : 0;
	uint64_t held = c->fg_held_ns > base_held ? c->fg_held_ns - base_held : 0;

	return end > held ? end : held;
}

/*
 * The workload's own wait for its discards (DESIGN.md, the verdict), counted even when
 * the trace has no foreground I/O. A synchronous submitter (the pipeline sends one discard
 * at a time, or the trace's own discards were serial and nothing says who sent them) waits
 * for each, [release, completion); an asynchronous one only for room in a full queue,
 * [release, submit). It is the workload's wait when the workload's path submits them
 * (passthrough: seed 001), and, for an unknown submitter (as-recorded), when the trace has
 * no foreground I/O that would show the wait instead. A background worker's waits are its
 * own: without foreground I/O the trace cannot tell whether the workload waited.
 */
static void discard_wait(struct report_cell *c)
{
	/*
	 * Replayed as the trace sent them, discards the trace says the recorded command did
	 * not submit (rec_others: none of its discard BIOs flagged workload) came from the
	 * filesystem's own workers (ext4_discard_work(), XFS's log completion, btrfs'
	 * transaction kthread): one at a time or queued, their waits are the workers', and
	 * without foreground I/O the trace cannot tell whether the workload felt them.
	 */
	bool others = c->waiter == CW_UNKNOWN && c->rec_others;
	bool sync = c->serial_qd || (c->waiter == CW_UNKNOWN && c->rec_serial && !others);
	uint64_t w = sync ? c->d_waited_ns : c->d_held_ns;
	bool counts = c->waiter == CW_WORKLOAD ||
		      (c->waiter == CW_UNKNOWN && !others && !c->fg_cmds && (sync || w));
	/*
	 * Replayed as the trace sent them (an unknown submitter), the discards the recorded
	 * command submitted itself (BIO records flagged workload: traces/FORMAT.md) are its
	 * wait when the trace's discards went out one at a time, foreground I/O or not: the
	 * kernel's paths that submit in the caller's task wait there (blkdev_issue_discard()
	 * -> submit_bio_wait(), block/blk-lib.c), btrfs discard=sync inside the commit its
	 * sync(2) or fsync() ran (btrfs_finish_extent_commit() -> btrfs_discard_extent(),
	 * fs/btrfs/extent-tree.c). Overlapping ones (io_uring's discard command) do not say.
	 */
	uint64_t own = c->waiter == CW_UNKNOWN && !c->none && c->rec_serial ? c->d_own_ns : 0;
	/*
	 * The trace's own fstrim (its recorded command ran FITRIM) sits in the ioctl until its
	 * discards are done: ext4_trim_fs() -> ext4_trim_extent() -> ext4_issue_discard() ->
	 * sb_issue_discard() waits for each extent (fs/ext4/mballoc.c), and XFS's
	 * xfs_ioc_trim() -> xfs_trim_perag_extents() issues a batch and gathers the next
	 * under a synchronous log force (fs/xfs/xfs_discard.c). Replayed as the trace sent
	 * them (an unknown submitter), that wait is the workload's, foreground I/O or not.
	 */
	uint64_t fit = c->waiter == CW_UNKNOWN && !c->none ? c->d_fitrim_ns : 0;
	/*
	 * And the recorded command is done no sooner than the last of those discards: the
	 * workload's end (added(), `workload_ns`) moves to it. Their [submit, done) above
	 * leaves out how long a serial point among them waited in the replay for the
	 * discards sent before it (replay/policies/chain.c), which the command waits for too:
	 * its sync(2) commits after the transaction kthread's commits, and a btrfs commit not
	 * run for an fsync waits for the previous transaction to reach TRANS_STATE_COMPLETED,
	 * after btrfs_finish_extent_commit() has sent (discard=sync) and waited for its
	 * discards (btrfs_commit_transaction(), fs/btrfs/transaction.c). relative() keeps
	 * end_wait where moving the end is what made added_ns what it is.
	 */
	c->workload_ns = c->fg_end_ns;	/* derived here each time: a second finish gives the same */
	c->end_wait = CEW_NONE;
	if (own && c->d_own_end_ns > c->workload_ns) {
		c->workload_ns = c->d_own_end_ns;
		c->end_wait = CEW_OWN;
	}
	if (fit && c->d_fitrim_end_ns > c->workload_ns) {
		c->workload_ns = c->d_fitrim_end_ns;
		c->end_wait = CEW_FITRIM;
	}
	c->discard_wait_ns = counts ? w : 0;
	c->own_wait = own > c->discard_wait_ns;
	if (c->own_wait)
		c->discard_wait_ns = own;
	c->fitrim_wait = fit > c->discard_wait_ns || (fit && fit == own);
	if (c->fitrim_wait) {
		c->discard_wait_ns = fit;
		c->own_wait = false;
	}
	if (c->none || !c->cmds)
		c->wait_basis = CWB_NONE;
	else if (c->fitrim_wait || c->own_wait)
		c->wait_basis = CWB_SYNC;
	else if (counts)
		c->wait_basis = sync ? CWB_SYNC : CWB_QUEUE;
	else
		c->wait_basis = c->fg_cmds ? CWB_FOREGROUND : CWB_UNKNOWN;
}

const char *report_wait_basis_name(unsigned basis)
{
	static const char *const names[] = { [CWB_NONE] = "none", [CWB_FOREGROUND] = "foreground",
					     [CWB_SYNC] = "synchronous", [CWB_QUEUE] = "queue",
					     [CWB_UNKNOWN] = "unknown" };

	return basis <= CWB_UNKNOWN ? names[basis] : "?";
}

/* c's p99 over a baseline's (none's, or the twin's): NAN when either has no such I/O. */
static double inflation(bool have, uint64_t p99_ns, bool base_have, uint64_t base_ns)
{
	return have && base_have && base_ns ? (double)p99_ns / (double)base_ns : NAN;
}

static void relative(const struct report *r, struct report_cell *c)
{
	const struct report_cell *b = report_baseline(r, c);
	uint64_t wall = c->wall_ns ? c->wall_ns : c->makespan_ns, base_end, base_held;

	discard_wait(c);
	c->redundancy = c->unique_bytes ? (double)c->bytes / (double)c->unique_bytes : NAN;
	c->write_p99_inflation = c->read_p99_inflation = NAN;
	if (b) {
		c->have |= CH_BASELINE;
		c->stall_vs_none_ns = (int64_t)c->fg_stall_ns - (int64_t)b->fg_stall_ns;
		c->write_p99_inflation = inflation(c->have & CH_WRITE_P99, c->write_p99_ns, b->have & CH_WRITE_P99,
						   b->write_p99_ns);
		c->read_p99_inflation = inflation(c->have & CH_READ_P99, c->read_p99_ns, b->have & CH_READ_P99,
						  b->read_p99_ns);
	}
	base_end = b ? b->workload_ns : c->trace_end_ns;
	base_held = b ? b->fg_held_ns : 0;
	c->added_ns = added(c, c->workload_ns, base_end, base_held);
	if (c->end_wait && (c->added_ns <= added(c, c->fg_end_ns, base_end, base_held) ||
			    c->discard_wait_ns >= c->added_ns))
		c->end_wait = CEW_NONE;
	if (c->end_wait)
		c->wait_basis = CWB_SYNC;
	if (c->discard_wait_ns > c->added_ns)
		c->added_ns = c->discard_wait_ns;
	/* The engine's discard-free twin replays the same foreground I/O: a per-cell `none`. */
	if (c->have & CH_TWIN) {
		c->have |= CH_BASELINE;
		c->stall_vs_none_ns = (int64_t)c->fg_stall_ns;
		if ((c->have & CH_WRITE_P99) && c->write_p99_base_ns)
			c->write_p99_inflation = inflation(true, c->write_p99_ns, true, c->write_p99_base_ns);
		if ((c->have & CH_READ_P99) && c->read_p99_base_ns)
			c->read_p99_inflation = inflation(true, c->read_p99_ns, true, c->read_p99_base_ns);
	}
	c->share = wall ? (double)c->added_ns / (double)wall : NAN;
}

const double *report_cmp_samples(const struct report_cmp *x, const struct report_cell *c)
{
	return strcmp(x->metric, "discard_s") ? c->runs.makespan_s : c->runs.discard_s;
}

/* ministat on one metric of two cells' runs. */
static void compare_runs(struct report_cmp *x, const struct report_cell *ref, const struct report_cell *c)
{
	const double *a = report_cmp_samples(x, ref), *b = report_cmp_samples(x, c);

	stat_acc__init(&x->a_ref);
	stat_acc__init(&x->a_cell);
	for (uint32_t k = 0; k < ref->runs.n; k++)
		stat_acc__add(&x->a_ref, a[k]);
	for (uint32_t k = 0; k < c->runs.n; k++)
		stat_acc__add(&x->a_cell, b[k]);
	stat_compare(&x->a_ref, &x->a_cell, REPORT_CONF, &x->d);
}

/*
 * Repeated runs (real targets): per (trace, profile), every policy against the
 * reference (`none` if present, else the first policy), on the makespan and on
 * the device time in discard.
 */
static int add_comparisons(struct report *r)
{
	static const char *const metrics[] = { "makespan_s", "discard_s" };
	size_t cap = 2 * r->ncells;

	r->cmps = calloc(cap ? cap : 1, sizeof(*r->cmps));
	if (!r->cmps)
		return -ENOMEM;
	for (size_t t = 0; t < r->nt; t++)
		for (size_t m = 0; m < r->nm; m++) {
			size_t ref = SIZE_MAX;

			for (size_t p = 0; p < r->np && ref == SIZE_MAX; p++)
				if (r->cells[report__at(r, t, p, m)].none)
					ref = report__at(r, t, p, m);
			if (ref == SIZE_MAX)
				ref = report__at(r, t, 0, m);
			const struct report_cell *rc = &r->cells[ref];

			if (!report_cell_ok(rc) || rc->runs.n < 2)
				continue;
			for (size_t p = 0; p < r->np; p++) {
				size_t i = report__at(r, t, p, m);
				const struct report_cell *c = &r->cells[i];

				if (i == ref || !report_cell_ok(c) || c->runs.n < 2)
					continue;
				for (size_t k = 0; k < 2; k++) {
					struct report_cmp *x = &r->cmps[r->ncmps++];

					x->ref = (uint32_t)ref;
					x->cell = (uint32_t)i;
					x->metric = metrics[k];
					compare_runs(x, rc, c);
				}
			}
		}
	return 0;
}

/* Verdicts and comparisons from an earlier report__finish: recomputed from the cells. */
static void reset_derived(struct report *r)
{
	for (size_t i = 0; i < r->nverdicts; i++)
		free(r->verdicts[i]);
	r->nverdicts = 0;
	free(r->cmps);
	r->cmps = NULL;
	r->ncmps = 0;
}

int report__finish(struct report *r)
{
	int err;

	reset_derived(r);

	for (size_t i = 0; i < r->ncells; i++)
		if (report_cell_ok(&r->cells[i]))
			relative(r, &r->cells[i]);
	if ((err = add_comparisons(r)))
		return err;
	return report_verdicts_build(r);
}

void report__destroy(struct report *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->traces && i < r->nt; i++)
		free(r->traces[i]);
	for (size_t i = 0; r->policies && i < r->np; i++)
		free(r->policies[i]);
	for (size_t i = 0; r->profiles && i < r->nm; i++)
		free(r->profiles[i]);
	for (size_t i = 0; i < r->nverdicts; i++)
		free(r->verdicts[i]);
	free(r->verdicts);
	free(r->traces);
	free(r->policies);
	free(r->profiles);
	free(r->cells);
	free(r->cmps);
	free(r);
}

/* The one list of formats: --format names, -o extensions, renderers and the help line; the first is the default. */
static const struct report_format_ops formats[] = {
	{ "table", { ".txt" }, report__write_table, "the terminal table and the verdict (default)" },
	{ "json", { ".json" }, report__write_json, "every figure, REPORT-SCHEMA.md" },
	{ "csv", { ".csv" }, report__write_csv, "one row per cell, raw numbers" },
	{ "html", { ".html", ".htm" }, report__write_html, "one self-contained page with charts" },
	{ "summary", { NULL }, report__write_summary,
	  "per trace and profile: cheapest and costliest policy; does discard matter" },
};

const struct report_format_ops *report_formats(size_t *n)
{
	*n = sizeof(formats) / sizeof(formats[0]);
	return formats;
}

const struct report_format_ops *report_format_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(name, formats[i].name))
			return &formats[i];
	return NULL;
}

const struct report_format_ops *report_format_by_ext(const char *ext)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		for (size_t j = 0; j < REPORT_FORMAT_EXTS && formats[i].exts[j]; j++)
			if (!strcasecmp(ext, formats[i].exts[j]))
				return &formats[i];
	return NULL;
}

int report__write(const struct report *r, const struct report_format_ops *fmt, FILE *f)
{
	return fmt ? fmt->write(r, f) : -EINVAL;
}

const char *report_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}
