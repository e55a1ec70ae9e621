// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd importer: trace.dat files (trace-cmd record/extract) read through
 * libtracecmd, every field decoded by name with libtraceevent, so layouts of
 * other kernels work as long as the fields exist.
 *
 * Tracepoint -> record (same mapping as the recorder):
 *   block:block_bio_queue, op D      -> BIO (discard bios only)
 *   block:block_rq_issue             -> ISSUE, any op
 *   block:block_rq_complete          -> DONE, latency paired with the issue (dev, sector, op)
 *   xfs:xfs_free_extent              -> FREE   (agno, agbno, len in fs blocks)
 *   xfs:xfs_discard_extent           -> INTENT (agno, agbno, len; type rtg skipped); FITRIM flag
 *                                       when a non-kworker task (fstrim's) traced it
 *   ext4:ext4_free_blocks            -> FREE   (block, count in blocks; ino); on bigalloc the whole
 *                                       clusters ext4_free_blocks() frees (traces/ext4free.h, with
 *                                       the flag values the file's print format gives)
 *   ext4:ext4_discard_blocks         -> INTENT (blk, count in blocks); FITRIM flag when an
 *                                       ext4_trim_extent of a non-kworker task announced it
 *   ext4:ext4_trim_extent            -> (group, start, len in clusters) see struct trim_note
 *   ext4:ext4_mballoc_alloc          -> ALLOC  (result_group/start/len in clusters; ino)
 *   ext4:ext4_mballoc_discard        -> FREE, flag prealloc (an unused preallocation given back; same fields)
 *   xfs:xfs_alloc_vextent_finish     -> ALLOC  (agno, agbno, len; AGFL refills, wasfromfl, skipped)
 *   jbd2:jbd2_end_commit             -> META commit, ino = transaction id
 *   xfs:xlog_iclog_callbacks_start   -> META commit, ino = LSN (the log write is on disk: XFS
 *                                       discards the extents that transaction freed from here)
 * A filesystem on a partition: the records of its disk's commands inside it are given to the
 * partition once every record is read (traces/import/tcpart.c says why only then).
 * XFS byte offset: XFS_AGB_TO_DADDR() (fs/xfs/libxfs/xfs_format.h) = (agno * sb_agblocks + agbno)
 * blocks. ext4: ext4_group_first_block_no() (fs/ext4/ext4.h) = group * blocks_per_group +
 * first_data_block, clusters via EXT4_C2B(). The geometry comes from --device (superblock)
 * or --fs-block-size/--xfs-agblocks/--ext4-blocks-per-group.
 *
 * The block tracepoints carry only the rwbs text, not the request flags: it is
 * decoded by traces/rwbs.c as kernel/trace/blktrace.c:blk_fill_rwbs() writes it.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <trace-cmd.h>
#include <event-parse.h>

#include "traces/ext4free.h"
#include "traces/rwbs.h"
#include "traces/util.h"
#include "traces/import/fsgeom.h"
#include "traces/import/tcfile.h"
#include "traces/import/tcpart.h"
#include "traces/import/importer.h"

struct tc_opts {
	char device[256];
	uint32_t fs_block_size;
	uint64_t xfs_agblocks;
	uint64_t ext4_blocks_per_group;
	uint64_t partition_start;
};

static const struct opt_spec tc_opt_table[] = {
	{ "device", OPT_STR, offsetof(struct tc_opts, device), 0, 0, "",
	  "block device of the traced fs: geometry from its superblock, limits from sysfs", NULL, 256 },
	{ "fs_block_size", OPT_U32, offsetof(struct tc_opts, fs_block_size), 0, 65536, "0",
	  "fs block size in bytes (xfs/ext4 events); 0 = from --device" },
	{ "xfs_agblocks", OPT_U64, offsetof(struct tc_opts, xfs_agblocks), 0, 1ull << 32, "0",
	  "XFS blocks per allocation group (xfs_info agsize); 0 = from --device" },
	{ "ext4_blocks_per_group", OPT_U64, offsetof(struct tc_opts, ext4_blocks_per_group), 0, 1ull << 32, "0",
	  "ext4 blocks per group; 0 = from --device, else 8 x block size" },
	{ "partition_start", OPT_BYTES, offsetof(struct tc_opts, partition_start), 0, 1ull << 60, "0",
	  "start of the fs's partition on its disk: added to fs event offsets, the disk's commands inside it "
	  "become the partition's; 0 = from --device" },
	{ 0 },
};

enum tc_ev { EV_BIO_QUEUE, EV_RQ_ISSUE, EV_RQ_COMPLETE, EV_XFS_FREE, EV_XFS_DISCARD, EV_XFS_ALLOC,
	     EV_EXT4_FREE, EV_EXT4_DISCARD, EV_EXT4_TRIM, EV_EXT4_ALLOC, EV_EXT4_PA_FREE,
	     EV_JBD2_COMMIT, EV_XLOG_DONE, EV_N };

static const struct { const char *sys, *name; } tc_events[EV_N] = {
	[EV_BIO_QUEUE] = { "block", "block_bio_queue" },
	[EV_RQ_ISSUE] = { "block", "block_rq_issue" },
	[EV_RQ_COMPLETE] = { "block", "block_rq_complete" },
	[EV_XFS_FREE] = { "xfs", "xfs_free_extent" },
	[EV_XFS_DISCARD] = { "xfs", "xfs_discard_extent" },
	[EV_XFS_ALLOC] = { "xfs", "xfs_alloc_vextent_finish" },
	[EV_EXT4_FREE] = { "ext4", "ext4_free_blocks" },
	[EV_EXT4_DISCARD] = { "ext4", "ext4_discard_blocks" },
	[EV_EXT4_TRIM] = { "ext4", "ext4_trim_extent" },
	[EV_EXT4_ALLOC] = { "ext4", "ext4_mballoc_alloc" },
	[EV_EXT4_PA_FREE] = { "ext4", "ext4_mballoc_discard" },
	[EV_JBD2_COMMIT] = { "jbd2", "jbd2_end_commit" },
	[EV_XLOG_DONE] = { "xfs", "xlog_iclog_callbacks_start" },
};

struct tc_geom {
	uint64_t bs, agblocks, bpg, first, cratio, part;
};

/* The child's frames (traces/import/tcfile.h): a record, a record whose device the sink adds, the end. */
enum { TC_F_REC = 1, TC_F_REC_DEV, TC_F_END };

/*
 * ext4 discards every extent through ext4_issue_discard() (fs/ext4/mballoc.c), which traces
 * ext4_discard_blocks; on the trim path (FITRIM, and on 6.x kernels online discard too) the
 * same extent was announced by ext4_trim_extent just before, in the same task. One INTENT per
 * extent: ext4_discard_blocks makes it, ext4_trim_extent only says whether it was FITRIM: the
 * trim ran in the fstrim task rather than in a kernel worker (kworker/...), by the task's name.
 */
#define TC_NOTES 16
struct trim_note {
	int pid;
	uint64_t offset, length;
	bool fitrim;
};

struct tc_state {
	const char *path;
	struct trim_note notes[TC_NOTES];
	unsigned next_note;
	struct tep_handle *tep;
	struct tep_format_field *common[2];	/* what tep_data_type() and tep_data_pid() read */
	struct tep_event *ev[EV_N];
	struct inflight *fl;
	struct tc_out *out;	/* to the parent (tc_import_child()) */
	struct tc_geom g;
	uint32_t nofree_first, nofree_last;	/* ext4_free_blocks() flags of the traced kernel */
	uint64_t nrec;
	uint64_t skipped;
};

/*
 * True if field f lies inside the record. Offsets and sizes come from the file's format
 * text, and libtraceevent reads rec->data + offset unchecked (tep_read_number_field()):
 * an offset past the record made `trimsim import` read far outside the buffer page and
 * die with SIGSEGV (found by tests/fuzz/fuzz_import_tracecmd; input in
 * tests/fuzz/regress/fuzz_import_tracecmd/field-offset-past-record.dat).
 */
static bool field_in(const struct tep_format_field *f, const struct tep_record *rec)
{
	return f->offset >= 0 && f->size >= 0 && rec->size >= 0 && f->offset <= rec->size &&
	       f->size <= rec->size - f->offset;
}

/* A numeric field by name; -ENOENT if the event lacks it, -ERANGE if it lies past the record. */
static int fnum(struct tep_event *e, struct tep_record *rec, const char *name, uint64_t *v)
{
	struct tep_format_field *f = tep_find_field(e, name);
	unsigned long long x;

	if (!f)
		return -ENOENT;
	if (!field_in(f, rec))
		return -ERANGE;
	if (tep_read_number_field(f, rec->data, &x))
		return -ENOENT;
	*v = x;
	return 0;
}

static int past_record(struct tc_state *s, struct tep_event *e, struct tep_record *rec, const char *name,
		       char *err, size_t errlen)
{
	return ts_errf(err, errlen, -EINVAL, "%s: record %" PRIu64 " (%s:%s): field '%s' lies past the record's "
		       "%d bytes", s->path, s->nrec, e->system, e->name, name, rec->size);
}

static int need(struct tc_state *s, struct tep_event *e, struct tep_record *rec, const char *name,
		uint64_t *v, char *err, size_t errlen)
{
	int ret = fnum(e, rec, name, v);

	if (ret == -ERANGE)
		return past_record(s, e, rec, name, err, errlen);
	if (ret)
		return ts_errf(err, errlen, -EINVAL, "%s: record %" PRIu64 " (%s:%s): no field '%s'",
			       s->path, s->nrec, e->system, e->name, name);
	return 0;
}

static int need_geom(struct tc_state *s, struct tep_event *e, bool xfs, char *err, size_t errlen)
{
	if (!s->g.bs)
		return ts_errf(err, errlen, -EINVAL, "%s: record %" PRIu64 " (%s:%s): needs --fs-block-size or --device",
			       s->path, s->nrec, e->system, e->name);
	if (xfs && !s->g.agblocks)
		return ts_errf(err, errlen, -EINVAL, "%s: record %" PRIu64 " (%s:%s): needs --xfs-agblocks or --device",
			       s->path, s->nrec, e->system, e->name);
	return 0;
}

/* *v = *v * mul + add, false if it wraps. */
static bool lin(uint64_t *v, uint64_t mul, uint64_t add)
{
	return !__builtin_mul_overflow(*v, mul, v) && !__builtin_add_overflow(*v, add, v);
}

/* A place computed from the event's numbers that wrapped or ends past any device (traces/bounds.c). */
static int out_of_range(struct tc_state *s, struct tep_event *e, char *err, size_t errlen)
{
	return ts_errf(err, errlen, -EINVAL, "%s: record %" PRIu64 " (%s:%s): its extent ends past 2^63 - 1 bytes "
		       "(no block device reaches that far)", s->path, s->nrec, e->system, e->name);
}

static bool in_range(uint64_t off, uint64_t len)
{
	return off <= TS_MAX_BYTES && len <= TS_MAX_BYTES - off;
}

static int block_event(struct tc_state *s, enum tc_ev which, struct tep_event *e, struct tep_record *rec,
		       struct ts_record *r, char *err, size_t errlen)
{
	struct tep_format_field *rf = tep_find_field(e, "rwbs");
	uint64_t dev, sector, nr, bytes, error, t0, len;
	unsigned op;
	int ret;

	if (!rf)
		return ts_errf(err, errlen, -EINVAL, "%s: record %" PRIu64 " (%s): no field 'rwbs'",
			       s->path, s->nrec, e->name);
	if (!field_in(rf, rec))
		return past_record(s, e, rec, "rwbs", err, errlen);
	if ((ret = need(s, e, rec, "dev", &dev, err, errlen)) || (ret = need(s, e, rec, "sector", &sector, err, errlen)) ||
	    (ret = need(s, e, rec, "nr_sector", &nr, err, errlen)))
		return ret;
	/* mkfs zeroing the XFS log shows as "NS" with sectors: write-zeroes (traces/rwbs.h) */
	op = ts_rwbs_decode((const char *)rec->data + rf->offset, (size_t)rf->size, nr, &r->flags);
	if (op == TS_OP_NONE)
		return 0;
	r->op = (uint8_t)op;
	r->dev = (uint32_t)dev;
	r->offset = sector;	/* a flush request has no position */
	r->length = nr;
	if (op == TS_OP_FLUSH)
		r->offset = r->length = 0;
	else if (!lin(&r->offset, 512, 0) || !lin(&r->length, 512, 0) || !in_range(r->offset, r->length))
		return out_of_range(s, e, err, errlen);
	r->ino = (uint64_t)tep_data_pid(s->tep, rec);
	switch (which) {
	case EV_BIO_QUEUE:
		if (op != TS_OP_DISCARD && op != TS_OP_SECURE_ERASE)
			return 0;
		r->kind = TS_BIO;
		break;
	case EV_RQ_ISSUE:
		r->kind = TS_ISSUE;
		if (!fnum(e, rec, "bytes", &bytes) && bytes)
			r->length = bytes;
		if (inflight__issue(s->fl, r->dev, sector, op, r->time_ns, r->length))
			return -ENOMEM;
		break;
	default:
		r->kind = TS_DONE;
		if (!fnum(e, rec, "error", &error) && error)
			r->flags |= TS_F_ERROR;
		if (inflight__complete(s->fl, r->dev, sector, op, &t0, &len)) {
			r->latency_ns = r->time_ns >= t0 ? r->time_ns - t0 : 0;
			if (!r->length)
				r->length = len;
		}
		break;
	}
	return 1;
}

/*
 * The event ran in a task of its own (fstrim's, in FITRIM), not in a kernel worker
 * (kworker/...), by the task name trace-cmd saved: online discard runs in workers.
 */
static bool in_user_task(struct tc_state *s, struct tep_record *rec)
{
	const char *comm = tep_data_comm_from_pid(s->tep, tep_data_pid(s->tep, rec));

	return !comm || strncmp(comm, "kworker/", 8);
}

static void trim_note(struct tc_state *s, struct tep_record *rec, uint64_t offset, uint64_t length)
{
	struct trim_note *n = &s->notes[s->next_note++ % TC_NOTES];

	n->pid = tep_data_pid(s->tep, rec);
	n->offset = offset;
	n->length = length;
	n->fitrim = in_user_task(s, rec);
}

/* True if pid's last trim_extent announced exactly this extent from a FITRIM task; forgets it. */
static bool trim_noted(struct tc_state *s, int pid, uint64_t offset, uint64_t length)
{
	for (unsigned i = 0; i < TC_NOTES; i++) {
		struct trim_note *n = &s->notes[i];

		if (n->pid == pid && n->offset == offset && n->length == length && n->length) {
			n->length = 0;
			return n->fitrim;
		}
	}
	return false;
}

static int fs_event(struct tc_state *s, enum tc_ev which, struct tep_event *e, struct tep_record *rec,
		    struct ts_record *r, char *err, size_t errlen)
{
	uint64_t dev = 0, a = 0, b = 0, c = 0, ino = 0, ma, mi, type, cl;
	int ret;

	if (which == EV_JBD2_COMMIT || which == EV_XLOG_DONE) {
		if ((ret = need(s, e, rec, "dev", &dev, err, errlen)) ||
		    (ret = need(s, e, rec, which == EV_JBD2_COMMIT ? "transaction" : "lsn", &a, err, errlen)))
			return ret;
		r->dev = (uint32_t)dev;
		r->kind = TS_META;
		r->op = TS_META_COMMIT;
		r->ino = a;
		return 1;
	}
	if (which == EV_EXT4_TRIM) {
		if ((ret = need(s, e, rec, "dev_major", &ma, err, errlen)) ||
		    (ret = need(s, e, rec, "dev_minor", &mi, err, errlen)))
			return ret;
		dev = TS_DEV_MK((uint32_t)ma, (uint32_t)mi);
	} else if ((ret = need(s, e, rec, "dev", &dev, err, errlen))) {
		return ret;
	}
	if ((ret = need_geom(s, e, which == EV_XFS_FREE || which == EV_XFS_DISCARD || which == EV_XFS_ALLOC,
			     err, errlen)))
		return ret;
	r->dev = (uint32_t)dev;
	switch (which) {
	case EV_XFS_FREE:
	case EV_XFS_DISCARD:
	case EV_XFS_ALLOC:
		if (which == EV_XFS_DISCARD && !fnum(e, rec, "type", &type) && type != 0)
			return 0;	/* realtime group: not on the data device */
		if (which == EV_XFS_ALLOC && !fnum(e, rec, "wasfromfl", &type) && type != 0)
			return 0;	/* a block from the AG free list, not a new extent */
		if ((ret = need(s, e, rec, "agno", &a, err, errlen)) || (ret = need(s, e, rec, "agbno", &b, err, errlen)) ||
		    (ret = need(s, e, rec, "len", &c, err, errlen)))
			return ret;
		if (which == EV_XFS_ALLOC && c == 0)
			return 0;	/* the allocation failed */
		r->kind = which == EV_XFS_FREE ? TS_FREE : which == EV_XFS_ALLOC ? TS_ALLOC : TS_INTENT;
		r->flags = TS_FS_XFS;
		/*
		 * xfs_discard_extents() traces every extent it discards: online from the log's
		 * completion work (xlog_cil_committed() -> xlog_discard_busy_extents(), a kworker),
		 * for FITRIM in the fstrim task itself (xfs_ioc_trim() -> xfs_trim_perag_extents())
		 */
		if (which == EV_XFS_DISCARD && in_user_task(s, rec))
			r->flags |= TS_F_FITRIM;
		r->offset = a;
		r->length = c;
		if (!lin(&r->offset, s->g.agblocks, b) || !lin(&r->offset, s->g.bs, 0) || !lin(&r->length, s->g.bs, 0))
			return out_of_range(s, e, err, errlen);
		break;
	case EV_EXT4_FREE:
		if ((ret = need(s, e, rec, "block", &a, err, errlen)) || (ret = need(s, e, rec, "count", &c, err, errlen)))
			return ret;
		fnum(e, rec, "ino", &ino);
		r->kind = TS_FREE;
		r->flags = TS_FS_EXT4;	/* the metadata flag is REQ_META, for requests (FORMAT.md) */
		r->ino = ino;
		r->offset = a;
		r->length = c;
		if (!lin(&r->offset, s->g.bs, 0) || !lin(&r->length, s->g.bs, 0))
			return out_of_range(s, e, err, errlen);
		cl = s->g.cratio * s->g.bs;	/* fsgeom.c: cratio <= 2^15, bs <= 64 KiB */
		if (s->g.cratio > 1 && !(cl & (cl - 1))) {	/* bigalloc: what it frees, whole clusters */
			uint64_t fl = 0;

			fnum(e, rec, "flags", &fl);
			if (r->offset > UINT64_MAX - 2 * cl || r->length > UINT64_MAX - 2 * cl)
				return out_of_range(s, e, err, errlen);
			if (!ts_ext4_free_clusters(cl, s->nofree_first, s->nofree_last, (uint32_t)fl, &r->offset,
						   &r->length))
				return 0;
		}
		break;
	case EV_EXT4_DISCARD:
		if ((ret = need(s, e, rec, "blk", &a, err, errlen)) || (ret = need(s, e, rec, "count", &c, err, errlen)))
			return ret;
		r->kind = TS_INTENT;
		r->flags = TS_FS_EXT4;
		r->offset = a;
		r->length = c;
		if (!lin(&r->offset, s->g.bs, s->g.part) || !lin(&r->length, s->g.bs, 0) ||
		    !in_range(r->offset, r->length))
			return out_of_range(s, e, err, errlen);
		if (trim_noted(s, tep_data_pid(s->tep, rec), r->offset, r->length))
			r->flags |= TS_F_FITRIM;
		return 1;
	default: {	/* ext4_trim_extent, ext4_mballoc_alloc: group-relative clusters */
		bool trim = which == EV_EXT4_TRIM;

		if ((ret = need(s, e, rec, trim ? "group" : "result_group", &a, err, errlen)) ||
		    (ret = need(s, e, rec, trim ? "start" : "result_start", &b, err, errlen)) ||
		    (ret = need(s, e, rec, trim ? "len" : "result_len", &c, err, errlen)))
			return ret;
		if (!trim)
			fnum(e, rec, "ino", &ino);
		r->kind = trim ? TS_INTENT : which == EV_EXT4_PA_FREE ? TS_FREE : TS_ALLOC;
		/* ext4_mb_release_inode_pa()/_group_pa(): mb_free_blocks(), never a discard */
		r->flags = TS_FS_EXT4 | (which == EV_EXT4_PA_FREE ? TS_F_PREALLOC : 0);
		r->ino = ino;
		b = (uint32_t)b;
		r->offset = a;
		r->length = (uint32_t)c;
		if (!lin(&b, s->g.cratio, 0) || !lin(&r->offset, s->g.bpg, s->g.first) || !lin(&r->offset, 1, b) ||
		    !lin(&r->offset, s->g.bs, 0) || !lin(&r->length, s->g.cratio, 0) || !lin(&r->length, s->g.bs, 0) ||
		    !lin(&r->offset, 1, s->g.part) || !in_range(r->offset, r->length))
			return out_of_range(s, e, err, errlen);
		r->offset -= s->g.part;	/* added below, with every other fs event's */
		if (trim) {
			trim_note(s, rec, r->offset + s->g.part, r->length);	/* checked above */
			return 0;	/* its ext4_discard_blocks makes the INTENT */
		}
		break;
	}
	}
	if (__builtin_add_overflow(r->offset, s->g.part, &r->offset) || !in_range(r->offset, r->length))
		return out_of_range(s, e, err, errlen);
	return 1;
}

/*
 * libtraceevent's tep_data_type() and tep_data_pid() read every record's common_type and
 * common_pid at the offset and size the file's first event format gives them
 * (libtraceevent 1.7.1, event-parse.c: get_common_info() takes tep->events[0], and
 * __parse_common() reads data + offset unchecked). A format that puts common_type past the
 * record made `trimsim import` die with SIGSEGV in tep_read_number() (found by
 * tests/fuzz/fuzz_import_tracecmd; input in tests/fuzz/regress/fuzz_import_tracecmd/
 * common-type-past-record.dat): both fields are found once (tc_file()) and checked
 * against each record before libtraceevent reads them.
 */
/*
 * The traced kernel's EXT4_FREE_BLOCKS_NOFREE_FIRST/LAST_CLUSTER, from the values its
 * ext4_free_blocks print format gives them (__print_flags(REC->flags, ..., { 0x0010,
 * "1ST_CLUSTER" }, ...)), as the recorder reads them from tracefs (tracer/devices.c):
 * a format that names neither rounds every free out to whole clusters.
 */
static void ext4_free_flags(struct tc_state *s)
{
	const struct tep_event *e = s->ev[EV_EXT4_FREE];
	const struct tep_print_arg *a;
	const struct tep_print_flag_sym *f;

	s->nofree_first = s->nofree_last = 0;
	for (a = e ? e->print_fmt.args : NULL; a; a = a->next) {
		if (a->type != TEP_PRINT_FLAGS)
			continue;
		for (f = a->flags.flags; f; f = f->next) {
			if (!f->str || !f->value)
				continue;
			if (!strcmp(f->str, TS_EXT4_NOFREE_FIRST_NAME))
				s->nofree_first = (uint32_t)strtoul(f->value, NULL, 0);
			else if (!strcmp(f->str, TS_EXT4_NOFREE_LAST_NAME))
				s->nofree_last = (uint32_t)strtoul(f->value, NULL, 0);
		}
	}
}

static void common_find(struct tc_state *s)
{
	static const char *const names[2] = { "common_type", "common_pid" };
	struct tep_event *first = tep_get_first_event(s->tep);

	for (int i = 0; i < 2; i++)
		s->common[i] = first ? tep_find_common_field(first, names[i]) : NULL;
}

static int tc_record(struct tc_state *s, struct tep_record *rec, char *err, size_t errlen)
{
	struct ts_record r = { .time_ns = rec->ts };
	int type, ret;

	for (int i = 0; i < 2; i++)
		if (s->common[i] && !field_in(s->common[i], rec))
			return ts_errf(err, errlen, -EINVAL, "%s: record %" PRIu64 ": field '%s' lies past the "
				       "record's %d bytes", s->path, s->nrec, s->common[i]->name, rec->size);
	type = tep_data_type(s->tep, rec);
	if (rec->ts > TS_MAX_NS)
		return ts_errf(err, errlen, -EINVAL, "%s: record %" PRIu64 ": time %llu ns is past the kernel's "
			       "ktime_t range (2^63 - 1 ns)", s->path, s->nrec, (unsigned long long)rec->ts);

	if (rec->missed_events > 0) {
		struct ts_record lost = { .time_ns = rec->ts, .kind = TS_META, .op = TS_META_LOST,
					  .length = (uint64_t)rec->missed_events, .ino = (uint64_t)rec->cpu };

		if ((ret = tc_out_frame(s->out, TC_F_REC, &lost, sizeof(lost))))
			return ret;
	}
	for (int i = 0; i < EV_N; i++) {
		if (!s->ev[i] || s->ev[i]->id != type)
			continue;
		ret = i <= EV_RQ_COMPLETE ? block_event(s, i, s->ev[i], rec, &r, err, errlen)
					  : fs_event(s, i, s->ev[i], rec, &r, err, errlen);
		if (ret <= 0)
			return ret;
		return tc_out_frame(s->out, TC_F_REC_DEV, &r, sizeof(r));
	}
	s->skipped++;
	return 0;
}

/* The geometry fs events need, and what the options say of a partition (traces/import/tcpart.h). */
static int tc_geometry(const struct tc_opts *o, struct import_sink *sink, struct tc_geom *tg, struct tc_part *tp,
		       char *err, size_t errlen)
{
	struct fsgeom g = { .ext4_cluster_ratio = 1 };
	struct ts_device d;
	int ret;

	if (o->device[0]) {
		struct ts_device *sd;

		if ((ret = fsgeom__probe(o->device, &d, &g, err, errlen)))
			return ret;
		sd = import_sink__device(sink, d.dev);
		if (!sd)
			return -ENOMEM;
		*sd = d;
		tg->part = d.partition_start;
		*tp = (struct tc_part){ .dev = d.dev, .disk = g.disk_dev, .size = d.size };
	}
	tg->bs = o->fs_block_size ? o->fs_block_size : g.block_size;
	tg->agblocks = o->xfs_agblocks ? o->xfs_agblocks : g.xfs_agblocks;
	tg->bpg = o->ext4_blocks_per_group ? o->ext4_blocks_per_group
		  : g.ext4_blocks_per_group ? g.ext4_blocks_per_group : 8 * tg->bs;
	tg->first = g.ext4_blocks_per_group ? g.ext4_first_data_block : tg->bs == 1024;
	tg->cratio = g.ext4_cluster_ratio ? g.ext4_cluster_ratio : 1;
	if (o->partition_start)
		tg->part = o->partition_start;
	tp->start = tg->part;
	return 0;
}

/* Where each buffer's CPU last was: its records lie at increasing offsets of the file. */
struct tc_walk {
	struct tc_pos {
		const struct tracecmd_input *h;
		int cpu;
		unsigned long long off;
	} *pos;
	size_t n, cap, last;
};

struct tc_iter {
	struct tc_state *s;
	struct tc_walk walk;
	char *err;
	size_t errlen;
	int ret;
};

/*
 * False if a buffer's CPU did not move forward. kbuffer (libtraceevent 1.7.1,
 * kbuffer-parse.c, translate_data()) takes an event of type_len 0 to be its length word minus
 * 4, rounded: a length word below 4 makes the length negative, the next event starts at or
 * before this one, and libtracecmd returns the same record again and again: the import never
 * ended (found by tests/fuzz/fuzz_import_tracecmd; input in
 * tests/fuzz/regress/fuzz_import_tracecmd/kbuffer-length-below-4-loops.dat).
 */
static bool tc_forward(struct tc_walk *w, const struct tracecmd_input *h, int cpu, unsigned long long off)
{
	size_t i = w->last;

	if (i >= w->n || w->pos[i].h != h || w->pos[i].cpu != cpu)
		for (i = 0; i < w->n && (w->pos[i].h != h || w->pos[i].cpu != cpu); i++)
			;
	if (i == w->n) {
		if (grow_array((void **)&w->pos, &w->cap, w->n + 1, sizeof(*w->pos)))
			return true;	/* out of memory: on unchecked */
		w->pos[w->n++] = (struct tc_pos){ h, cpu, off };
	} else if (off <= w->pos[i].off) {
		return false;
	} else {
		w->pos[i].off = off;
	}
	w->last = i;
	return true;
}

/*
 * True if the record lies inside its ring-buffer page. kbuffer (libtraceevent 1.7.1,
 * kbuffer-parse.c, translate_data()) takes an event's length from its length word without
 * comparing it with the page's end: a length word of 1.9 GB made a record of 1,929,379,904
 * bytes, field_in() then let a common_type offset of 39 MB pass, and tep_data_type() read far
 * past the page: `trimsim import` died with SIGSEGV (found by tests/fuzz/fuzz_import_tracecmd;
 * input in tests/fuzz/regress/fuzz_import_tracecmd/record-past-its-page.dat). The per-CPU
 * data of a trace.dat starts page aligned and is read a page at a time (trace-cmd 3.1.6,
 * trace-input.c: get_page(), init_cpu()), so an event (header and data, rec->record_size)
 * that starts at byte rec->offset % page size of its page ends by the page's end.
 */
int tracecmd_page_size(struct tracecmd_input *handle);	/* exported by libtracecmd 1.3, not in trace-cmd.h */

static bool rec_in_page(struct tracecmd_input *h, const struct tep_record *rec)
{
	int ps = tracecmd_page_size(h);

	return ps > 0 && rec->size >= 0 && rec->record_size >= rec->size &&
	       (uint64_t)rec->record_size <= (uint64_t)ps - rec->offset % (uint64_t)ps;
}

/* The child's last frame: the import's result and, if it failed, its message. */
static int tc_end(struct tc_out *o, int ret, const char *err)
{
	struct { int32_t ret; char msg[TC_FRAME_MAX - 4]; } e = { ret };
	size_t n = ret < 0 ? strnlen(err, sizeof(e.msg) - 1) : 0;

	memcpy(e.msg, err, n);
	if ((ret = tc_out_frame(o, TC_F_END, &e, (uint32_t)(4 + n))) || (ret = tc_out_flush(o)))
		return 2;
	return 0;
}

static int tc_callback(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct tc_iter *it = data;

	/*
	 * libtracecmd 1.3 does not stop every iteration on a non-zero return: the first error is
	 * kept, and an iteration that went on after it stops here, and so does one that would
	 * return the same record for ever (tc_forward()).
	 */
	if (it->ret < 0 || !tc_forward(&it->walk, h, cpu, rec->offset)) {
		if (it->ret >= 0)
			ts_errf(it->err, it->errlen, -EINVAL, "%s: malformed trace.dat: libtracecmd reads a record "
				"at or before the one it read last and would never finish", it->s->path);
		_exit(tc_end(it->s->out, it->ret < 0 ? it->ret : -EINVAL, it->err));
	}
	it->s->nrec++;
	if (!rec_in_page(h, rec)) {
		it->ret = ts_errf(it->err, it->errlen, -EINVAL, "%s: record %" PRIu64 " (byte %llu): its %d bytes "
				  "run past its %d-byte ring-buffer page", it->s->path, it->s->nrec,
				  (unsigned long long)rec->offset, rec->record_size, tracecmd_page_size(h));
		return 1;
	}
	it->ret = tc_record(it->s, rec, it->err, it->errlen);
	if (it->ret == -ENOMEM)
		ts_errf(it->err, it->errlen, it->ret, "%s: record %" PRIu64 ": out of memory", it->s->path, it->s->nrec);
	else if (it->ret == -EPIPE)
		ts_errf(it->err, it->errlen, it->ret, "%s: the importing process is gone", it->s->path);
	if (!it->ret && trimsim_stop)
		it->ret = ts_errf(it->err, it->errlen, -EINTR, "%s: interrupted", it->s->path);
	return it->ret < 0;
}

/*
 * The reading child (traces/import/tcfile.c says why there is one): the top buffer and every
 * instance buffer (trace-cmd extract -B), merged by time, decoded into records sent to out.
 * arg is the geometry (struct tc_geom). Its exit code: 0 once its last frame is written.
 */
int tc_import_child(const char *path, const void *arg, size_t arglen, int out)
{
	static struct tc_out o;
	struct tc_state s = { .path = path, .out = &o };
	struct tracecmd_input **hs = NULL;
	char err[TC_FRAME_MAX - 4] = "";
	struct tc_iter it = { .s = &s, .err = err, .errlen = sizeof(err) };
	int nb = 0, ret;

	tc_child_enter();
	o = (struct tc_out){ .fd = out };
	if (arglen != sizeof(s.g))
		return 2;
	memcpy(&s.g, arg, sizeof(s.g));
	/* the libraries' own warnings ("Can not mmap file, will read instead") are not ours to print */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	if ((ret = tc_open_all(path, &hs, &nb, err, sizeof(err))))
		goto out;
	s.tep = tracecmd_get_tep(hs[0]);
	s.fl = inflight__new();
	if (!s.tep || !s.fl) {
		ret = ts_errf(err, sizeof(err), -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	for (int i = 0; i < EV_N; i++)
		s.ev[i] = tep_find_event_by_name(s.tep, tc_events[i].sys, tc_events[i].name);
	common_find(&s);
	ext4_free_flags(&s);
	tracecmd_iterate_events_multi(hs, nb + 1, tc_callback, &it);
	ret = it.ret < 0 ? it.ret : 0;
out:
	/*
	 * Nothing is closed: the child exits. tracecmd_close() (trace-cmd 3.1.6) walks the file's
	 * CPU count, up to 2^31, even when it allocated nothing for them: 0.9-1.8 s of CPU for
	 * such a file, found by tests/fuzz/fuzz_import_tracecmd.
	 */
	return tc_end(&o, ret, err);
}

/* The importing side: the child's records into the sink, their devices noted in seen. */
static int tc_file(const struct tc_geom *g, const char *path, struct import_sink *sink, struct tc_devs *seen,
		   char *err, size_t errlen)
{
	struct tc_child c = { .fd = -1 };
	struct tc_in *in = NULL;
	struct ts_record r;
	const void *p;
	uint32_t type, len;
	char werr[256];
	int ret, st, got = 0, wret;
	bool end = false;

	if ((ret = tc_precheck(path, err, errlen)))
		return ret;
	if (!(in = malloc(sizeof(*in))))
		return ts_errf(err, errlen, -ENOMEM, "%s: out of memory", path);
	if ((ret = tc_child_start(path, g, sizeof(*g), &c, err, errlen)))
		goto out;
	*in = (struct tc_in){ .fd = c.fd };
	while (!end && (got = tc_in_frame(in, &type, &p, &len)) > 0) {
		if (type == TC_F_END && len >= 4) {
			int32_t cret;

			memcpy(&cret, p, 4);
			end = true;
			if (cret < 0)
				ret = ts_errf(err, errlen, cret, "%.*s", (int)(len - 4), (const char *)p + 4);
		} else if ((type == TC_F_REC || type == TC_F_REC_DEV) && len == sizeof(r)) {
			memcpy(&r, p, sizeof(r));
			if (type == TC_F_REC_DEV && !import_sink__device(sink, r.dev))
				ret = -ENOMEM;
			else if (!(ret = tc_devs__note(seen, &r)))
				ret = import_sink__record(sink, &r);
			if (ret) {
				ts_errf(err, errlen, ret, "%s: %s", path, strerror(-ret));
				break;
			}
		} else {
			got = -EPROTO;
			break;
		}
	}
	if (!end)
		kill(c.pid, SIGKILL);	/* an error of ours, a bad frame, or nothing more to come */
	close(c.fd);
	wret = tc_child_wait(&c, &st, werr, sizeof(werr));
	if (ret)
		;	/* the child's own error, or the sink's */
	else if (got == -EINTR || trimsim_stop)
		ret = ts_errf(err, errlen, -EINTR, "%s: interrupted", path);
	else if (wret)
		ret = ts_errf(err, errlen, wret, "%s", werr);
	else if (!end && got == -EPROTO && WIFEXITED(st) && !WEXITSTATUS(st))
		ret = ts_errf(err, errlen, -EPROTO, "%s: the child reading it sent a malformed frame", path);
	else if (!end || st)
		ret = tc_child_status(path, st, err, errlen);
out:
	free(in);
	return ret;
}

/* Every file's records, then the partition's (traces/import/tcpart.h): only all of them say which disk it is on. */
static int tc_run(const void *opts, char *const *files, size_t nfiles, struct import_sink *sink,
		  char *err, size_t errlen)
{
	struct tc_devs *seen = tc_devs__new();
	struct tc_geom g = { 0 };
	struct tc_part p = { 0 };
	int ret;

	if (!seen)
		return ts_errf(err, errlen, -ENOMEM, "out of memory");
	if ((ret = tc_geometry(opts, sink, &g, &p, err, errlen)))
		goto out;
	for (size_t i = 0; i < nfiles; i++)
		if ((ret = tc_file(&g, files[i], sink, seen, err, errlen)))
			goto out;
	ret = tc_part__resolve(&p, seen, sink, nfiles ? files[0] : "trace-cmd", err, errlen);
out:
	tc_devs__free(seen);
	return ret;
}

/*
 * libtraceevent 1.7.1 (Debian 12) leaks a 2-byte strdup while parsing event formats inside
 * tracecmd_open(); tracecmd_close() cannot give it back. libtracecmd (trace-cmd 3.1.6) leaks
 * the tep handle tracecmd_alloc_fd() made when it then rejects a malformed file (it returns
 * NULL: nothing to close; found by tests/fuzz/fuzz_import_tracecmd), and the clock name
 * tracecmd_parse_trace_clock() scans with sscanf's %m out of a version 6 file's trace
 * clock text ("local"; found on the v6 seed in tests/fuzz/seeds/fuzz_import_tracecmd/).
 * The fast unwinder stops inside libc there, so that one is named by __isoc99_vsscanf:
 * nothing in this tree scans with %m, so only a library's %m allocation matches it.
 * libtracecmd also leaks the buffer it mallocs for a format file (its size read from the
 * file) when reading the file then fails (found by the trace.dat-aware mutator of
 * tests/fuzz/fuzz_import_tracecmd; input in tests/fuzz/regress/fuzz_import_tracecmd/):
 * its frames have no frame pointers, so only the module name matches that stack. Our
 * own allocations under libtracecmd are the sink's and the in-flight table's, made in
 * tc_callback() and freed by tc_file(); the blktrace and DTrace harnesses check both.
 * LeakSanitizer (the
 * sanitized build, the tests and the fuzzers) asks this hook for suppressions; other builds
 * never call it.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:libtracecmd.so\nleak:__isoc99_vsscanf\n";
}

/*
 * Those suppressions are expected; LeakSanitizer's table of the ones used, printed at
 * exit, would follow a failed import's one-line error on stderr (tests/traces/
 * test_impexp_cli.c, tracecmd_small_files). LSAN_OPTIONS in the environment still wins.
 */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

const struct importer_ops importer_tracecmd = {
	.name = "trace-cmd",
	.rereads = "libtracecmd opens it by name after its header is checked",
	.help = "trace-cmd trace.dat (record or extract) with the recorder's tracepoints: block_bio_queue,\n"
		"block_rq_issue/complete, xfs_free_extent, xfs_discard_extent, ext4_free_blocks,\n"
		"ext4_discard_blocks, ext4_trim_extent, ext4_mballoc_alloc, ext4_mballoc_discard (unused\n"
		"preallocation: FREE flagged prealloc), jbd2_end_commit. XFS and ext4 block numbers\n"
		"need the fs geometry: --device reads it from the superblock, or give the numbers.\n"
		"A fs on a partition (its events name the partition, the block events the whole disk)\n"
		"needs --device or --partition-start: the trace holds one device, the partition.\n"
		"Times are the trace clock's (set trace_clock=mono to match trimsim record).",
	.opts = tc_opt_table,
	.opts_size = sizeof(struct tc_opts),
	.run = tc_run,
};
