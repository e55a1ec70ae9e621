// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs backend (no BPF): a tracefs instance of our own with the same
 * events as trimsim.bpf.c, in-kernel filters on the device fields, raw per-CPU
 * buffers read with libtracefs and decoded by field name (libtraceevent parses
 * the format files). It produces the same raw events as the eBPF backend.
 *
 * Limits, because tracefs only has what the events print:
 *  - block ops come from the rwbs field, decoded by traces/rwbs.c as
 *    kernel/trace/blktrace.c:blk_fill_rwbs() writes it ("NS" with sectors is write-zeroes).
 *  - ISSUE/DONE are paired in user space by (device, sector).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include <tracefs.h>
#include <event-parse.h>

#include "replay/policies/ivset.h"
#include "tracer/recorder.h"
#include "traces/rwbs.h"
#include "traces/util.h"

const char *rec_tracefs_dir(void)
{
	static const char dir[] = "/sys/kernel/tracing";

	if (access("/sys/kernel/tracing/events", F_OK) && !access(dir, F_OK))
		mount("nodev", dir, "tracefs", 0, NULL);	/* empty on some systems: mount it */
	return dir;
}

#define NFIELDS 6
#define TR_SYSCALL_IOCTL	100	/* local: FITRIM tracking (trimsim.bpf.c sys_enter_ioctl) */
#define TR_SYSCALL_IOCTL_EXIT	101
#define TR_SCHED_FORK		102	/* local: the recorded command's threads (trimsim.bpf.c workload) */
#define TR_SCHED_EXIT		103
#define FITRIM_CMD		0xc0185879u
#define MAX_FITRIM		16
#define PAIR_SLOTS 16384

/* One event: where it lives, which fields (by name) fill vals[], the filter's device fields. */
struct tfs_event {
	const char *sys, *name;
	unsigned src;
	const char *fields[NFIELDS];
	bool optional;		/* an alternative that may be missing (older XFS alloc events) */
};

/* vals[] order per src: see decode(). */
static const struct tfs_event tfs_events[] = {
	{ "ext4", "ext4_free_blocks", TR_EXT4_FREE, { "dev", "block", "count", "ino", NULL, "flags" } },
	{ "ext4", "ext4_mballoc_alloc", TR_EXT4_ALLOC,
	  { "dev", "result_start", "result_len", "ino", "result_group" } },
	{ "ext4", "ext4_mballoc_discard", TR_EXT4_PA_FREE,
	  { "dev", "result_start", "result_len", "ino", "result_group" } },
	{ "ext4", "ext4_discard_blocks", TR_EXT4_DISCARD, { "dev", "blk", "count" } },
	{ "ext4", "ext4_trim_extent", TR_EXT4_TRIM,
	  { "dev_major", "start", "len", "dev_minor", "group" } },
	{ "jbd2", "jbd2_end_commit", TR_JBD2_COMMIT, { "dev", NULL, NULL, "transaction" } },
	{ "xfs", "xfs_free_extent", TR_XFS_FREE, { "dev", "agbno", "len", NULL, "agno" } },
	{ "xfs", "xfs_alloc_vextent_finish", TR_XFS_ALLOC,
	  { "dev", "agbno", "len", NULL, "agno", "wasfromfl" }, true },
	{ "xfs", "xfs_discard_extent", TR_XFS_DISCARD,
	  { "dev", "agbno", "len", NULL, "agno", "type" } },
	{ "xfs", "xlog_iclog_callbacks_start", TR_XFS_LOG_DONE, { "dev", NULL, NULL, "lsn" } },
	{ "syscalls", "sys_enter_ioctl", TR_SYSCALL_IOCTL, { "cmd" }, true },
	{ "syscalls", "sys_exit_ioctl", TR_SYSCALL_IOCTL_EXIT, { "ret" }, true },
	{ "sched", "sched_process_fork", TR_SCHED_FORK, { "parent_pid", "child_pid" } },
	{ "sched", "sched_process_exit", TR_SCHED_EXIT, { "pid" } },
	{ "block", "block_bio_queue", TR_BIO, { "dev", "sector", "nr_sector" } },
	{ "block", "block_rq_issue", TR_RQ_ISSUE, { "dev", "sector", "bytes" } },
	{ "block", "block_rq_complete", TR_RQ_DONE, { "dev", "sector", "nr_sector", NULL, "error" } },
};
#define NEVENTS (sizeof(tfs_events) / sizeof(tfs_events[0]))

struct pair_slot {
	uint64_t key;		/* dev << 40 ^ sector, 0 = empty */
	uint64_t ts;
	uint64_t bytes;		/* not yet completed */
};

struct tfs_state {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct tep_event *ev[NEVENTS];
	struct tep_format_field *f[NEVENTS][NFIELDS];
	struct tep_format_field *rwbs[NEVENTS];
	const struct rec_config *cfg;
	struct recorder *r;
	int err, count, ncpus;
	uint64_t *lost_seen;
	struct pair_slot pairs[PAIR_SLOTS];
	int fitrim_tids[MAX_FITRIM];	/* threads inside an FITRIM ioctl, 0 = free */
	struct ivset *wl;		/* the recorded command's threads (tfs_follow()), exact: one id each */
	struct tr_event *batch;		/* events held back, sorted by time before emitting */
	size_t nbatch, capbatch;
	uint64_t seq;
	char notes[256];
};

/* enum ts_op and TR_FL_* from a block event's rwbs field and sector count (traces/rwbs.c). */
uint32_t tr_rwbs_decode(const char *s, size_t n, uint64_t sectors)
{
	uint16_t fl;
	uint32_t op = ts_rwbs_decode(s, n, sectors, &fl);

	return op | (fl & TS_F_SYNC ? TR_FL_SYNC : 0) | (fl & TS_F_FUA ? TR_FL_FUA : 0) |
	       (fl & TS_F_PREFLUSH ? TR_FL_PREFLUSH : 0) | (fl & TS_F_METADATA ? TR_FL_META : 0);
}

static bool op_wanted(const struct tfs_state *st, uint32_t opfl)
{
	uint32_t op = opfl & TR_OP_MASK;

	return op >= 3 || (st->cfg->io && op != 0);
}

/* Device filter in user space too: the kernel filter cannot express partition ranges. */
static bool want(const struct tfs_state *st, uint32_t dev, uint64_t sector, uint32_t *out)
{
	for (size_t i = 0; i < st->cfg->ndevs; i++) {
		const struct rec_dev *d = &st->cfg->devs[i];

		if (dev == d->d.dev && (d->disk_dev != d->d.dev || sector == ~0ull ||
					 sector < d->nr_sect)) {
			*out = d->d.dev;
			return true;
		}
		if (dev == d->disk_dev && dev != d->d.dev &&
		    (sector == ~0ull || (sector >= d->start_sect && sector < d->start_sect + d->nr_sect))) {
			*out = d->d.dev;
			return true;
		}
	}
	return false;
}

static struct pair_slot *pair_find(struct tfs_state *st, uint64_t key, bool insert)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	for (unsigned i = 0; i < 8; i++) {
		struct pair_slot *p = &st->pairs[((h >> 50) + i) & (PAIR_SLOTS - 1)];

		if (p->key == key || (insert && !p->key))
			return p;
	}
	return insert ? &st->pairs[(h >> 50) & (PAIR_SLOTS - 1)] : NULL;	/* evict */
}

static bool in_fitrim(const struct tfs_state *st, int tid)
{
	for (int i = 0; i < MAX_FITRIM; i++)
		if (st->fitrim_tids[i] == tid)
			return true;
	return false;
}

static void fitrim_track(struct tfs_state *st, int tid, bool enter, uint32_t cmd)
{
	for (int i = 0; i < MAX_FITRIM; i++) {
		if (enter && cmd == FITRIM_CMD && !st->fitrim_tids[i]) {
			st->fitrim_tids[i] = tid;
			return;
		}
		if (!enter && st->fitrim_tids[i] == tid)
			st->fitrim_tids[i] = 0;
	}
}

/* The recorded command's threads, each a one-id extent of the tree's interval set. */
static bool wl_has(const struct tfs_state *st, int tid)
{
	struct iv v;

	return ivset__get(st->wl, (uint64_t)tid, &v) == 1;
}

/* Phase 1 keeps decoded events here; they are sorted by time before pairing and emitting. */
static int batch_add(struct tfs_state *st, const struct tr_event *e)
{
	int ret = grow_array((void **)&st->batch, &st->capbatch, st->nbatch + 1, sizeof(*st->batch));

	if (ret)
		return ret;
	st->batch[st->nbatch] = *e;
	st->batch[st->nbatch].latency_ns = st->seq++;	/* arrival order, for a stable sort */
	st->nbatch++;
	return 0;
}

/* Block events: filter and classify (pairing waits for the time order). */
static int block_event(struct tfs_state *st, struct tr_event *e, uint64_t *v, const char *rwbs,
		       size_t rwlen)
{
	e->opfl = tr_rwbs_decode(rwbs, rwlen, v[2]);	/* v[2]: nr_sector, or bytes at issue */
	/*
	 * A command without bytes has no position (a flush: blk_rq_trace_sector() gives 0 at issue,
	 * blk_rq_pos() -1 at completion): ~0 to want(), so that on a partition's disk it is the
	 * partition's, as the eBPF backend's want() takes rq->__sector (-1) for it. A flush's sector 0
	 * was outside every partition: flushes were dropped there.
	 */
	if (!want(st, (uint32_t)v[0], v[2] ? v[1] : ~0ull, &e->dev))
		return 0;
	/* block_rq_complete prints blk_rq_pos() where block_rq_issue prints blk_rq_trace_sector(): 0 for no position */
	e->a = v[1] == ~0ull ? 0 : v[1];
	switch (e->src) {
	case TR_BIO:
		if ((e->opfl & TR_OP_MASK) != 4 && (e->opfl & TR_OP_MASK) != 5)
			return 0;
		e->b = v[2] * 512;
		break;
	case TR_RQ_ISSUE:
		if (!op_wanted(st, e->opfl))
			return 0;
		e->b = v[2];
		break;
	default:	/* TR_RQ_DONE */
		e->b = v[2] * 512;
		e->opfl |= v[4] ? TR_FL_ERROR : 0;
		break;
	}
	return batch_add(st, e);
}

static int on_record(struct tep_event *event, struct tep_record *rec, int cpu, void *ctx)
{
	struct tfs_state *st = ctx;
	struct tr_event e = { .time_ns = rec->ts };
	unsigned long long v[NFIELDS] = { 0 };
	size_t i;

	(void)cpu;
	for (i = 0; i < NEVENTS && st->ev[i] != event; i++)
		;
	if (i == NEVENTS || st->err)
		return 0;
	for (unsigned k = 0; k < NFIELDS; k++)
		if (st->f[i][k])
			tep_read_number_field(st->f[i][k], rec->data, &v[k]);
	e.src = tfs_events[i].src;
	e.ino = v[3];
	if (e.src == TR_BIO || e.src == TR_RQ_ISSUE || e.src == TR_RQ_DONE) {
		const struct tep_format_field *rf = st->rwbs[i];

		e.ino = (uint64_t)tep_data_pid(st->tep, rec);
		st->err = block_event(st, &e, (uint64_t *)v, (const char *)rec->data + rf->offset,
				      rf->size);
		return 0;
	}
	/* forks and exits: followed in time order (phase 2), as the thread ids of the block events */
	if (e.src == TR_SCHED_FORK || e.src == TR_SCHED_EXIT) {
		e.a = v[0];
		e.b = v[1];
		st->err = batch_add(st, &e);
		return 0;
	}
	/* ioctl enter/exit and discard intents carry the thread in ino until phase 2 */
	if (e.src == TR_SYSCALL_IOCTL || e.src == TR_SYSCALL_IOCTL_EXIT) {
		e.ino = (uint64_t)tep_data_pid(st->tep, rec);
		e.a = v[0];
		st->err = batch_add(st, &e);
		return 0;
	}
	if (e.src == TR_EXT4_TRIM || e.src == TR_EXT4_DISCARD || e.src == TR_XFS_DISCARD)
		e.ino = (uint64_t)tep_data_pid(st->tep, rec);
	if (e.src == TR_EXT4_TRIM)
		v[0] = TS_DEV_MK(v[0], v[3]);
	if ((e.src == TR_XFS_ALLOC && v[5]) || (e.src == TR_XFS_DISCARD && v[5]))
		return 0;	/* AGFL allocations; realtime-group discards (see trimsim.bpf.c) */
	if ((e.src == TR_EXT4_ALLOC || e.src == TR_EXT4_PA_FREE) && (int)v[2] <= 0)
		return 0;
	if (!want(st, (uint32_t)v[0], ~0ull, &e.dev))
		return 0;
	e.a = v[1];
	e.b = v[2];
	e.agno = (uint32_t)v[4];
	if (e.src == TR_EXT4_FREE)
		e.opfl = (uint32_t)v[5];
	st->err = batch_add(st, &e);
	return 0;
}

static int by_time(const void *x, const void *y)
{
	const struct tr_event *a = x, *b = y;

	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? -1 : 1;
	return a->latency_ns < b->latency_ns ? -1 : a->latency_ns > b->latency_ns;
}

/*
 * Phase 2: the per-CPU buffers merged in time order; FITRIM threads and
 * ISSUE/DONE pairs followed in that order. A CPU's page can reach us a poll
 * later than another CPU's newer events, so events younger than HOLD_NS wait
 * for the next poll (all of them at the end: tfs_drain).
 */
#define HOLD_NS 300000000ull

static int emit_batch(struct tfs_state *st, bool all)
{
	uint64_t cut = all ? UINT64_MAX : ts_now_ns() - HOLD_NS;
	size_t i;
	int rc = 0;

	qsort(st->batch, st->nbatch, sizeof(*st->batch), by_time);
	for (i = 0; !rc && i < st->nbatch && st->batch[i].time_ns <= cut; i++) {
		struct tr_event *e = &st->batch[i];
		uint64_t key = ((uint64_t)e->dev << 40 ^ e->a) | 1ull << 63;
		struct pair_slot *p;

		e->latency_ns = 0;
		switch (e->src) {
		case TR_SYSCALL_IOCTL:
		case TR_SYSCALL_IOCTL_EXIT:
			fitrim_track(st, (int)e->ino, e->src == TR_SYSCALL_IOCTL, (uint32_t)e->a);
			continue;
		case TR_SCHED_FORK:	/* a = parent thread, b = child thread (kernel_clone()) */
			if (wl_has(st, (int)e->a))
				rc = ivset__add(st->wl, e->b, 1, 0, 0);
			continue;
		case TR_SCHED_EXIT:	/* a = the thread (do_exit()) */
			ivset__erase(st->wl, e->a);
			continue;
		case TR_BIO:	/* ino: the submitting thread (common_pid) */
			e->opfl |= wl_has(st, (int)e->ino) ? TR_FL_WORKLOAD : 0;
			break;
		case TR_EXT4_TRIM:
		case TR_EXT4_DISCARD:
		case TR_XFS_DISCARD:
			e->opfl = in_fitrim(st, (int)e->ino) ? TR_FL_FITRIM : 0;
			e->ino = 0;
			break;
		case TR_RQ_ISSUE:
			p = pair_find(st, key, true);
			*p = (struct pair_slot){ key, e->time_ns, e->b };
			break;
		case TR_RQ_DONE:	/* only requests whose issue we recorded */
			p = pair_find(st, key, false);
			if (!p)
				continue;
			e->latency_ns = e->time_ns - p->ts;
			if (e->b >= p->bytes)
				p->key = 0;
			else
				p->bytes -= e->b;
			break;
		default:
			break;
		}
		st->count++;
		rc = recorder__event(st->r, e);
	}
	memmove(st->batch, st->batch + i, (st->nbatch - i) * sizeof(*st->batch));
	st->nbatch -= i;
	return rc;
}

/* "dev == 7340032 || dev == ..." over every traced device (and the disks carrying them). */
static void filter_for(const struct tfs_state *st, unsigned src, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < st->cfg->ndevs && n < len; i++) {
		const struct rec_dev *d = &st->cfg->devs[i];
		const char *or = n ? " || " : "";

		if (src == TR_EXT4_TRIM)
			n += snprintf(buf + n, len - n, "%s(dev_major == %u && dev_minor == %u)", or,
				      TS_DEV_MAJOR(d->d.dev), TS_DEV_MINOR(d->d.dev));
		else
			n += snprintf(buf + n, len - n, "%sdev == %u", or, d->d.dev);
		if (n < len && d->disk_dev != d->d.dev && src >= TR_BIO && src <= TR_RQ_DONE)
			n += snprintf(buf + n, len - n, " || dev == %u", d->disk_dev);
	}
}

static void tfs_close(void *p)
{
	struct tfs_state *st = p;

	if (!st)
		return;
	if (st->inst) {
		tracefs_instance_destroy(st->inst);
		tracefs_instance_free(st->inst);
	}
	tep_free(st->tep);
	free(st->lost_seen);
	free(st->batch);
	ivset__destroy(st->wl);
	free(st);
}

static int setup_events(struct tfs_state *st, char *err, size_t errlen)
{
	char filt[2048];
	int nfs = 0;

	for (size_t i = 0; i < NEVENTS; i++) {
		const struct tfs_event *t = &tfs_events[i];

		st->ev[i] = tep_find_event_by_name(st->tep, t->sys, t->name);
		if (!st->ev[i]) {
			if (t->src < TR_BIO || t->optional)
				continue;	/* fs not built in: its events are absent */
			return ts_errf(err, errlen, -ENOENT, "tracefs: no event %s:%s", t->sys, t->name);
		}
		for (unsigned k = 0; k < NFIELDS; k++)
			st->f[i][k] = t->fields[k] ? tep_find_any_field(st->ev[i], t->fields[k]) : NULL;
		st->rwbs[i] = tep_find_any_field(st->ev[i], "rwbs");
		if (!st->f[i][0] || (t->src >= TR_BIO && t->src <= TR_RQ_DONE && !st->rwbs[i]))
			return ts_errf(err, errlen, -EINVAL, "tracefs: %s:%s lacks the fields we read",
				       t->sys, t->name);
		if (t->src == TR_SYSCALL_IOCTL)
			snprintf(filt, sizeof(filt), "cmd == %u", FITRIM_CMD);
		else if (t->src == TR_SYSCALL_IOCTL_EXIT || t->src == TR_SCHED_FORK || t->src == TR_SCHED_EXIT)
			snprintf(filt, sizeof(filt), "common_pid != 0");	/* every thread but the idle task */
		else
			filter_for(st, t->src, filt, sizeof(filt));
		if (tracefs_event_file_write(st->inst, t->sys, t->name, "filter", filt) < 0 ||
		    tracefs_event_enable(st->inst, t->sys, t->name))
			return ts_errf(err, errlen, -EIO, "tracefs: cannot enable %s:%s", t->sys, t->name);
		nfs += t->src < TR_BIO;
	}
	snprintf(st->notes, sizeof(st->notes), "tracefs instance %s, %d fs events, rwbs-decoded ops",
		 tracefs_instance_get_name(st->inst), nfs);
	return 0;
}

/*
 * A tep with only our events' formats (tracefs_local_events() would parse every
 * event and /proc/kallsyms, seconds of work we do not need).
 */
static struct tep_handle *load_formats(void)
{
	struct tep_handle *tep = tep_alloc();
	enum tep_endian host = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN;
	char *buf;
	int size;

	if (!tep)
		return NULL;
	tep_set_file_bigendian(tep, host);
	tep_set_local_bigendian(tep, host);
	tep_set_long_size(tep, (int)sizeof(long));
	tep_set_page_size(tep, getpagesize());
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || tep_parse_header_page(tep, buf, (unsigned long)size, (int)sizeof(long))) {
		free(buf);
		tep_free(tep);
		return NULL;
	}
	free(buf);
	for (size_t i = 0; i < NEVENTS; i++) {
		buf = tracefs_event_file_read(NULL, tfs_events[i].sys, tfs_events[i].name, "format", &size);
		if (buf)	/* absent events are reported by setup_events() */
			tep_parse_event(tep, buf, (unsigned long)size, tfs_events[i].sys);
		free(buf);
	}
	return tep;
}

/* Instances "trimsim-PID" left by a recorder that was killed: remove them (ours by name, owner gone). */
static void remove_stale_instances(void)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/instances", rec_tracefs_dir());
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, "trimsim-", 8))
			continue;
		pid = strtol(de->d_name + 8, &end, 10);
		if (*end || pid <= 0 || !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/instances/%s", rec_tracefs_dir(), de->d_name);
		rmdir(path);
	}
	closedir(d);
}

static void *tfs_open(const struct rec_config *cfg, char *err, size_t errlen)
{
	struct tfs_state *st = calloc(1, sizeof(*st));
	char name[64];

	if (!st) {
		ts_errf(err, errlen, -ENOMEM, "tracefs: out of memory");
		return NULL;
	}
	st->cfg = cfg;
	if (geteuid() != 0) {
		ts_errf(err, errlen, -EPERM, "tracefs: needs root");
		goto fail;
	}
	if (access(rec_tracefs_dir(), W_OK) || access("/sys/kernel/tracing/instances", F_OK)) {
		ts_errf(err, errlen, -ENOENT, "tracefs: not mounted at /sys/kernel/tracing");
		goto fail;
	}
	remove_stale_instances();
	snprintf(name, sizeof(name), "trimsim-%d", (int)getpid());
	st->inst = tracefs_instance_create(name);
	st->tep = load_formats();
	st->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	st->lost_seen = calloc(st->ncpus > 0 ? st->ncpus : 1, sizeof(uint64_t));
	st->wl = ivset__new(false);
	if (!st->inst || !st->tep || !st->lost_seen || !st->wl) {
		ts_errf(err, errlen, -EIO, "tracefs: cannot create instance %s: %s", name, strerror(errno));
		goto fail;
	}
	/* CLOCK_MONOTONIC like the eBPF backend; drop new events (and count them) when full. */
	if (tracefs_instance_file_write(st->inst, "trace_clock", "mono") < 0 ||
	    tracefs_instance_file_write(st->inst, "options/overwrite", "0") < 0) {
		ts_errf(err, errlen, -EIO, "tracefs: cannot set trace_clock/overwrite");
		goto fail;
	}
	if (cfg->ringbuf_size)
		tracefs_instance_set_buffer_size(st->inst, (cfg->ringbuf_size + 1023) / 1024, -1);
	if (setup_events(st, err, errlen))
		goto fail;
	tracefs_trace_on(st->inst);
	return st;
fail:
	tfs_close(st);
	return NULL;
}

/* per_cpu/cpuN/stats "dropped events": events the full buffer refused. */
static int report_lost(struct tfs_state *st)
{
	for (int c = 0; c < st->ncpus; c++) {
		char file[64], *s, *p;
		uint64_t n;
		int rc;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c);
		s = tracefs_instance_file_read(st->inst, file, NULL);
		p = s ? strstr(s, "dropped events:") : NULL;
		n = p ? strtoull(p + 15, NULL, 10) : 0;
		free(s);
		if ((rc = recorder__lost(st->r, (uint32_t)c, n, &st->lost_seen[c])))
			return rc;
	}
	return 0;
}

static int tfs_poll(void *p, struct recorder *r, int timeout_ms)
{
	struct tfs_state *st = p;

	st->r = r;
	st->count = 0;
	st->err = 0;
	if (tracefs_iterate_raw_events(st->tep, st->inst, NULL, 0, on_record, st) < 0 && !st->err)
		return -EIO;
	if (!st->err)
		st->err = emit_batch(st, false);
	if (st->err)
		return st->err;
	if (!st->count && timeout_ms > 0)
		usleep((useconds_t)timeout_ms * 1000);
	return report_lost(st) ?: st->count;
}

static int tfs_drain(void *p, struct recorder *r)
{
	struct tfs_state *st = p;

	st->r = r;
	st->count = 0;
	return emit_batch(st, true) ?: st->count;
}

/* The recorded command's first thread, before it runs; its forks are followed in time order. */
static int tfs_follow(void *p, int tid)
{
	struct tfs_state *st = p;

	return ivset__add(st->wl, (uint64_t)tid, 1, 0, 0);
}

static const char *tfs_notes(void *p)
{
	return ((struct tfs_state *)p)->notes;
}

const struct rec_backend_ops rec_tracefs_ops = {
	.name = "tracefs",
	.open = tfs_open,
	.poll = tfs_poll,
	.drain = tfs_drain,
	.follow = tfs_follow,
	.notes = tfs_notes,
	.close = tfs_close,
};
