// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder: raw events (tr_event, from either backend) become trace
 * records on the whole device, in bytes:
 *   XFS   (agno * sb_agblocks + agbno) * blocksize   (XFS_AGB_TO_DADDR, fs/xfs/libxfs/xfs_format.h)
 *   ext4  block * blocksize; group-relative clusters via ext4_group_first_block_no()
 *         and EXT4_C2B() (fs/ext4/ext4.h)
 *   block 512-byte sectors on the whole disk
 * plus the partition start from sysfs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/recorder.h"
#include "traces/ext4free.h"
#include "traces/figure.h"
#include "traces/opts.h"
#include "traces/util.h"

struct recorder {
	struct trace_writer *w;
	const struct rec_dev *devs;
	size_t ndevs;
	struct kind_stat stats[TS_KIND_MAX + 1];
	struct kind_stat last[TS_KIND_MAX + 1];	/* at the previous progress line */
	uint64_t last_ns;
	uint64_t lost;
	uint64_t dropped;	/* events of devices outside the table */
	uint64_t dups;		/* ext4_discard_blocks repeating an ext4_trim_extent */
	struct { uint32_t dev; uint64_t off, len; } trims[8];	/* recent ext4 trim extents */
	unsigned ntrim;
	struct dev_balance {	/* free-space bookkeeping per traced device */
		uint64_t snap[2];	/* free bytes at start, end (GETFSMAP) */
		bool has_snap[2];
		uint64_t freed, allocated;
	} bal[REC_MAX_DEVS];
	uint64_t inflight;	/* bytes of device commands issued and not yet done */
	uint64_t discard_seen;	/* the latest event time of a FREE, INTENT, BIO or discard command */
	uint64_t inflight_at_end;	/* inflight when the end snapshot was taken */
	uint64_t newest;	/* latest event time seen */
	struct ts_record *hold;	/* records younger than REC_HOLD_NS, in time order (a ring) */
	size_t hold_cap, hold_head, nhold;
};

struct recorder *recorder__new(struct trace_writer *w, const struct rec_dev *devs, size_t ndevs)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->w = w;
	r->devs = devs;
	r->ndevs = ndevs;
	return r;
}

void recorder__free(struct recorder *r)
{
	if (r)
		free(r->hold);
	free(r);
}

static const struct rec_dev *find_dev(const struct recorder *r, uint32_t dev)
{
	for (size_t i = 0; i < r->ndevs; i++)
		if (r->devs[i].d.dev == dev)
			return &r->devs[i];
	return NULL;
}

static int put(struct recorder *r, const struct ts_record *rec)
{
	struct kind_stat *k = &r->stats[rec->kind];
	const struct rec_dev *d = find_dev(r, rec->dev);

	if (d && (rec->kind == TS_FREE || rec->kind == TS_ALLOC))
		*(rec->kind == TS_FREE ? &r->bal[d - r->devs].freed
				       : &r->bal[d - r->devs].allocated) += rec->length;

	k->count++;
	if (rec->kind != TS_META)
		k->bytes += rec->length;
	return trace_writer__write(r->w, rec);
}

/*
 * Every record waits here in time order until it is REC_HOLD_NS old, so the
 * file is in time order although events do not reach us in it:
 * - the eBPF program stamps an event, then reserves its place in the ring
 *   (trimsim.bpf.c emit_at()), and an interrupt or a stalled vCPU between the two
 *   lets another CPU's later event take an earlier place;
 * - the META records made here (command start and stop, lost, free space) carry
 *   the time they happen, while events before it may still sit in kernel buffers.
 * Arrival is nearly sorted, so a record is placed by walking back from the newest.
 */
static int hold(struct recorder *r, const struct ts_record *rec)
{
	size_t mask, i;

	if (r->nhold == r->hold_cap &&
	    grow_ring((void **)&r->hold, &r->hold_cap, &r->hold_head, r->nhold, sizeof(*r->hold)))
		return -ENOMEM;
	mask = r->hold_cap - 1;
	for (i = r->nhold; i > 0; i--) {
		const struct ts_record *prev = &r->hold[(r->hold_head + i - 1) & mask];

		if (prev->time_ns <= rec->time_ns)
			break;
		r->hold[(r->hold_head + i) & mask] = *prev;
	}
	r->hold[(r->hold_head + i) & mask] = *rec;
	r->nhold++;
	return 0;
}

int recorder__release(struct recorder *r, uint64_t upto)
{
	int rc = 0;

	while (!rc && r->nhold && r->hold[r->hold_head].time_ns <= upto) {
		rc = put(r, &r->hold[r->hold_head]);
		r->hold_head = (r->hold_head + 1) & (r->hold_cap - 1);
		r->nhold--;
	}
	return rc;
}

/* Writes the held records stamped REC_HOLD_NS or more before t. */
static int release_before(struct recorder *r, uint64_t t)
{
	return t > REC_HOLD_NS ? recorder__release(r, t - REC_HOLD_NS) : 0;
}

/*
 * An event's record held, and what it makes REC_HOLD_NS old written: records go out as
 * events come in, so writing keeps pace with reading and the hold stays REC_HOLD_NS of
 * events long even where nothing flushes (the record loop's settling).
 * recorder__flush() releases by the clock when events stop.
 */
static int hold_event(struct recorder *r, const struct ts_record *rec)
{
	int rc = hold(r, rec);

	if (rec->time_ns > r->newest)
		r->newest = rec->time_ns;
	return rc ?: release_before(r, r->newest);
}

static uint64_t xfs_bytes(const struct rec_dev *d, uint64_t agno, uint64_t agbno)
{
	return (agno * d->d.xfs_agblocks + agbno) * d->d.fs_block_size;
}

/* ext4 group-relative cluster -> bytes on the filesystem device. */
static uint64_t ext4_group_bytes(const struct rec_dev *d, uint64_t group, uint64_t cluster)
{
	uint64_t block = group * d->ext4_blocks_per_group + d->ext4_first_data_block +
			 (cluster << d->ext4_cluster_bits);

	return block * d->d.fs_block_size;
}

static uint16_t blk_flags(uint32_t opfl)
{
	return (opfl & TR_FL_SYNC ? TS_F_SYNC : 0) | (opfl & TR_FL_FUA ? TS_F_FUA : 0) |
	       (opfl & TR_FL_PREFLUSH ? TS_F_PREFLUSH : 0) | (opfl & TR_FL_META ? TS_F_METADATA : 0) |
	       (opfl & TR_FL_ERROR ? TS_F_ERROR : 0) | (opfl & TR_FL_WORKLOAD ? TS_F_WORKLOAD : 0);
}

/*
 * ext4_trim_extent() calls ext4_issue_discard(), which fires ext4_discard_blocks
 * for the same range (fs/ext4/mballoc.c): one INTENT, not two. A discard that
 * follows no trim (no-journal frees in ext4_mb_clear_bb()) stays.
 */
static bool ext4_dup(struct recorder *r, const struct ts_record *rec, bool is_trim)
{
	size_t n = sizeof(r->trims) / sizeof(r->trims[0]);

	if (is_trim) {
		r->trims[r->ntrim++ % n].dev = rec->dev;
		r->trims[(r->ntrim - 1) % n].off = rec->offset;
		r->trims[(r->ntrim - 1) % n].len = rec->length;
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (r->trims[i].dev == rec->dev && r->trims[i].off == rec->offset &&
		    r->trims[i].len == rec->length) {
			r->trims[i].dev = 0;
			r->dups++;
			return true;
		}
	return false;
}

/* What an event's a and b count (tracer/record.h, enum tr_src). */
enum src_units {
	U_FS_BLOCKS = 1,	/* a = fs block, b = blocks */
	U_EXT4_CLUSTERS,	/* agno = group, a = cluster in group, b = clusters */
	U_XFS_AG_BLOCKS,	/* agno = AG, a = block in AG, b = blocks */
	U_DISK,			/* a = sector on the whole disk, b = bytes: a block-layer command */
	U_NONE,			/* a journal commit: no extent */
};

/* Each event source's record kind, filesystem flags and units; recorder__event() adds where and how much. */
static const struct {
	uint8_t kind;
	uint16_t flags;
	enum src_units units;
} src_rec[TR_SRC_MAX + 1] = {
	[TR_EXT4_FREE] = { TS_FREE, TS_FS_EXT4, U_FS_BLOCKS },
	[TR_EXT4_ALLOC] = { TS_ALLOC, TS_FS_EXT4, U_EXT4_CLUSTERS },
	[TR_EXT4_DISCARD] = { TS_INTENT, TS_FS_EXT4, U_FS_BLOCKS },
	[TR_EXT4_TRIM] = { TS_INTENT, TS_FS_EXT4, U_EXT4_CLUSTERS },
	/*
	 * ext4_mb_release_inode_pa() / ext4_mb_release_group_pa() give the blocks back with
	 * mb_free_blocks() and never discard them: a FREE (free-space balance), marked.
	 */
	[TR_EXT4_PA_FREE] = { TS_FREE, TS_FS_EXT4 | TS_F_PREALLOC, U_EXT4_CLUSTERS },
	[TR_XFS_FREE] = { TS_FREE, TS_FS_XFS, U_XFS_AG_BLOCKS },
	[TR_XFS_ALLOC] = { TS_ALLOC, TS_FS_XFS, U_XFS_AG_BLOCKS },
	[TR_XFS_DISCARD] = { TS_INTENT, TS_FS_XFS, U_XFS_AG_BLOCKS },
	[TR_BIO] = { TS_BIO, 0, U_DISK },
	[TR_RQ_ISSUE] = { TS_ISSUE, 0, U_DISK },
	[TR_RQ_DONE] = { TS_DONE, 0, U_DISK },
	[TR_JBD2_COMMIT] = { TS_META, TS_FS_EXT4, U_NONE },
	[TR_XFS_LOG_DONE] = { TS_META, TS_FS_XFS, U_NONE },
};

int recorder__event(struct recorder *r, const struct tr_event *e)
{
	const struct rec_dev *d = find_dev(r, e->dev);
	struct ts_record rec = { .time_ns = e->time_ns, .dev = e->dev, .ino = e->ino };
	uint64_t bs, c;

	if (!d || e->src > TR_SRC_MAX || !src_rec[e->src].kind) {
		r->dropped++;
		return 0;
	}
	rec.kind = src_rec[e->src].kind;
	rec.flags = src_rec[e->src].flags;
	bs = d->d.fs_block_size;
	c = bs << d->ext4_cluster_bits;
	switch (src_rec[e->src].units) {
	case U_FS_BLOCKS:
		rec.offset = e->a * bs;
		rec.length = e->b * bs;
		if (e->src == TR_EXT4_FREE && d->ext4_cluster_bits &&	/* what it frees: whole clusters */
		    !ts_ext4_free_clusters(c, d->ext4_nofree_first, d->ext4_nofree_last, e->opfl, &rec.offset,
					   &rec.length))
			return 0;
		break;
	case U_EXT4_CLUSTERS:
		rec.offset = ext4_group_bytes(d, e->agno, e->a);
		rec.length = e->b * c;
		break;
	case U_XFS_AG_BLOCKS:
		rec.offset = xfs_bytes(d, e->agno, e->a);
		rec.length = e->b * bs;
		break;
	case U_DISK:
		rec.op = e->opfl & TR_OP_MASK;
		rec.offset = e->a * 512;	/* already on the whole disk */
		rec.length = e->b;
		rec.latency_ns = e->latency_ns;
		rec.flags = blk_flags(e->opfl);
		if (rec.kind == TS_ISSUE)
			r->inflight += rec.length;
		else if (rec.kind == TS_DONE)	/* only commands whose ISSUE was recorded have a DONE */
			r->inflight -= rec.length < r->inflight ? rec.length : r->inflight;
		if (rec.op == TS_OP_DISCARD && rec.time_ns > r->discard_seen)
			r->discard_seen = rec.time_ns;
		return hold_event(r, &rec);
	case U_NONE:
		rec.op = TS_META_COMMIT;
		return hold_event(r, &rec);
	}
	rec.offset += d->d.partition_start;
	if (rec.kind == TS_INTENT && (e->opfl & TR_FL_FITRIM))
		rec.flags |= TS_F_FITRIM;
	if ((e->src == TR_EXT4_TRIM || e->src == TR_EXT4_DISCARD) &&
	    ext4_dup(r, &rec, e->src == TR_EXT4_TRIM))
		return 0;
	if (rec.kind != TS_ALLOC && rec.time_ns > r->discard_seen)
		r->discard_seen = rec.time_ns;
	return hold_event(r, &rec);
}

int recorder__meta(struct recorder *r, unsigned meta, uint32_t dev, uint64_t off, uint64_t len,
		   uint64_t ino, uint64_t lat, uint16_t flags)
{
	struct ts_record rec = {
		.time_ns = ts_now_ns(), .offset = off, .length = len, .ino = ino,
		.latency_ns = lat, .dev = dev, .kind = TS_META, .op = meta, .flags = flags,
	};

	return hold(r, &rec);
}

/*
 * Losses seen while recording become META lost records, in time, per CPU. The
 * format counts the footer's lost and the META lost lengths together
 * (traces/FORMAT.md, "Footer"), so they are not added to the footer again.
 */
int recorder__lost(struct recorder *r, uint32_t cpu, uint64_t total, uint64_t *seen)
{
	uint64_t n = total > *seen ? total - *seen : 0;
	int rc;

	if (!n)
		return 0;
	r->lost += n;
	rc = recorder__meta(r, TS_META_LOST, 0, 0, n, cpu, 0, 0);
	if (!rc)
		*seen = total;
	return rc;
}

struct snap_arg {
	struct recorder *r;
	const struct rec_dev *d;
	uint64_t now;
	uint16_t flags;
};

static int snap_extent(void *arg, uint64_t offset, uint64_t length)
{
	struct snap_arg *a = arg;
	struct ts_record rec = {
		.time_ns = a->now, .offset = offset, .length = length, .dev = a->d->d.dev,
		.kind = TS_META, .op = TS_META_FREESPACE, .flags = a->flags,
	};
	struct dev_balance *b = &a->r->bal[a->d - a->r->devs];
	int end = !!(a->flags & TS_F_SNAP_END);

	b->snap[end] += length;
	b->has_snap[end] = true;
	return hold(a->r, &rec);
}

int recorder__snapshot(struct recorder *r, bool end, char *err, size_t errlen)
{
	if (end)
		r->inflight_at_end = r->inflight;
	for (size_t i = 0; i < r->ndevs; i++) {
		struct snap_arg a = {
			.r = r, .d = &r->devs[i], .now = ts_now_ns(),
			.flags = (uint16_t)(r->devs[i].fs | (end ? TS_F_SNAP_END : 0)),
		};
		int rc = rec_dev__freespace(&r->devs[i], snap_extent, &a, err, errlen);

		if (rc && rc != -EOPNOTSUPP && rc != -ENODEV)
			return rc;
	}
	if (end) {	/* the last records: everything held goes out */
		int rc = recorder__release(r, UINT64_MAX);

		if (rc)
			return ts_errf(err, errlen, rc, "writing the trace: %s", strerror(-rc));
	}
	return 0;
}

uint64_t recorder__inflight(const struct recorder *r)
{
	return r->inflight;
}

uint64_t recorder__discard_seen(const struct recorder *r)
{
	return r->discard_seen;
}

int recorder__flush(struct recorder *r)
{
	return release_before(r, ts_now_ns()) ?: trace_writer__flush(r->w);
}

const struct kind_stat *recorder__stats(const struct recorder *r)
{
	return r->stats;
}

uint64_t recorder__lost_total(const struct recorder *r)
{
	return r->lost;
}

uint64_t recorder__dropped(const struct recorder *r)
{
	return r->dropped;
}

void recorder__print_progress(struct recorder *r, FILE *f, uint64_t now_ns)
{
	double dt = r->last_ns ? (double)(now_ns - r->last_ns) / 1e9 : 0;

	if (dt > 0) {
		char v[32];

		fprintf(f, "\r");
		for (unsigned k = TS_FREE; k < TS_META; k++)
			fprintf(f, "%s %s  ", ts_kind_name(k),
				fig_format(FIG_RATE, (double)(r->stats[k].count - r->last[k].count) / dt, v, sizeof(v)));
		fprintf(f, "lost %llu   ", (unsigned long long)r->lost);
		fflush(f);
	}
	memcpy(r->last, r->stats, sizeof(r->last));
	r->last_ns = now_ns;
}

void recorder__print_summary(const struct recorder *r, FILE *f, uint64_t elapsed_ns)
{
	char b[32], t[32], x[32];

	fprintf(f, "recorded %s:", fmt_duration(elapsed_ns, t, sizeof(t)));
	for (unsigned k = TS_FREE; k <= TS_KIND_MAX; k++) {
		if (k == TS_META)
			fprintf(f, " %s %llu", ts_kind_name(k), (unsigned long long)r->stats[k].count);
		else
			fprintf(f, " %s %llu (%s)", ts_kind_name(k),
				(unsigned long long)r->stats[k].count,
				fmt_bytes(r->stats[k].bytes, b, sizeof(b)));
		fprintf(f, k < TS_KIND_MAX ? "," : "");
	}
	fprintf(f, "; lost %llu\n", (unsigned long long)r->lost);
	for (size_t i = 0; i < r->ndevs; i++) {
		const struct dev_balance *bl = &r->bal[i];
		int64_t expect, rem;

		if (!bl->has_snap[0] || !bl->has_snap[1])
			continue;
		expect = (int64_t)bl->snap[0] + (int64_t)bl->freed - (int64_t)bl->allocated;
		rem = (int64_t)bl->snap[1] - expect;
		fprintf(f, "%s (%s): free space %llu + FREE %llu - ALLOC %llu = %lld, end snapshot %llu: "
			"remainder %s (%s of %s; metadata the events do not show",
			r->devs[i].d.name, r->devs[i].d.fs, (unsigned long long)bl->snap[0],
			(unsigned long long)bl->freed, (unsigned long long)bl->allocated, (long long)expect,
			(unsigned long long)bl->snap[1], fig_format(FIG_BYTES, (double)rem, t, sizeof(t)),
			fig_format(FIG_SHARE, r->devs[i].d.size ? (double)rem / (double)r->devs[i].d.size : 0.0, x, sizeof(x)),
			fmt_bytes(r->devs[i].d.size, b, sizeof(b)));
		if (r->inflight_at_end)	/* the settle gave up: ext4 frees discarded blocks once the discard is done */
			fprintf(f, ", and %s of device commands still in flight at the end snapshot",
				fmt_bytes(r->inflight_at_end, b, sizeof(b)));
		fprintf(f, ")\n");
	}
}
