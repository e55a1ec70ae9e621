// SPDX-License-Identifier: GPL-2.0
/*
 * ufs(trimcons): FreeBSD FFS BIO_DELETE, with and without McKusick's 2018
 * TRIM consolidation (vfs.ffs.dotrimcons, FreeBSD 12.0, r338517).
 *
 * Follows sys/ufs/ffs/ffs_alloc.c:
 *  - ffs_blkfree() is called once per block or fragment (size <= fs_bsize)
 *    by the truncation code, so a FREE extent reaches it as its blocks;
 *  - trimcons=0: every ffs_blkfree() sends one BIO_DELETE (g_io_request(),
 *    asynchronous): one command per block;
 *  - trimcons=1: ffs_blkrelease_start() opens a run for one file's release;
 *    ffs_blkfree() grows it only by a block ending exactly at its start
 *    (prepend) or starting exactly at its end (append); any other block sends
 *    the run (trim_lookup(REPLACE) + ffs_blkfree_sendtrim()) and starts a new
 *    one; ffs_blkrelease_finish() (trim_lookup(DONE)) sends the last run.
 *    No size limit.
 * A release ends here when the inode changes, when frees of the same inode
 * are more than release_gap apart (a timer), or at the end of the trace.
 */
#include <errno.h>
#include <stdlib.h>

#include "replay/policies/kstages.h"

struct ufs_cfg {
	bool trimcons;
	uint64_t bsize;
	unsigned order;		/* 0 asc, 1 desc */
	uint64_t release_gap;
};

static const char *const ufs_orders[] = { "asc", "desc", NULL };

static const struct opt_spec ufs_opts[] = {
	{ "trimcons", OPT_BOOL, offsetof(struct ufs_cfg, trimcons), 0, 1, "0",
	  "vfs.ffs.dotrimcons: consolidate adjacent blocks of one release into one BIO_DELETE" },
	{ "bsize", OPT_BYTES, offsetof(struct ufs_cfg, bsize), 512, 1 << 20, "32K",
	  "UFS block size (fs_bsize; newfs default 32 KiB): the unit ffs_blkfree() frees" },
	{ "order", OPT_ENUM, offsetof(struct ufs_cfg, order), 0, 0, "asc",
	  "order the blocks of one FREE extent reach ffs_blkfree(): asc, desc (truncation frees tail first)",
	  ufs_orders },
	{ "release_gap", OPT_DURATION, offsetof(struct ufs_cfg, release_gap), 0, 3600e9, "10ms",
	  "frees of one inode further apart than this belong to separate releases" },
	{ NULL },
};

struct ufs_state {
	struct ufs_cfg cfg;
	uint32_t devno;
	/* The open run (trimcons). */
	bool open;
	uint64_t start, end, ino, freed_ns, last_ns, blocks;
	uint32_t dev;
	uint16_t flags;
	/* Figures. */
	uint64_t frees, blkfrees, sent, prepends, appends, breaks, prealloc;
};

static int ufs_init(void *priv, const struct policy_env *env, struct policy_props *props,
		    char *err, size_t errlen)
{
	struct ufs_state *s = priv;

	(void)err, (void)errlen;
	s->devno = env->devno;
	props->source = PS_FREE;
	props->waiter = PW_WORKER;	/* g_io_request() is asynchronous and GEOM queues without limit */
	return 0;
}

static int send_run(struct ufs_state *s, uint64_t now, struct policy_out *out)
{
	if (!s->open)
		return 0;
	s->open = false;
	s->sent++;
	/* count is 32-bit: a run of more than 2^32 - 1 blocks (128 TiB of 32 KiB) says so as UINT32_MAX. */
	return kstage_emit(out, now, s->start, s->end - s->start, s->ino, s->freed_ns,
			   s->blocks > UINT32_MAX ? UINT32_MAX : (uint32_t)s->blocks, s->dev, s->flags);
}

/* One ffs_blkfree() call: [a, b) of one block. */
static int blkfree(struct ufs_state *s, const struct policy_event *ev, uint64_t a, uint64_t b,
		   struct policy_out *out)
{
	int err;

	s->blkfrees++;
	if (!s->cfg.trimcons) {
		s->sent++;
		return kstage_emit(out, ev->time_ns, a, b - a, ev->ino, ev->freed_ns, 1, ev->dev, ev->flags);
	}
	if (s->open) {
		if (b == s->start) {		/* bno + numfrags(size) == tp->bno */
			s->start = a;
			s->prepends++;
			goto grown;
		}
		if (a == s->end) {		/* bno == tp->bno + numfrags(tp->size) */
			s->end = b;
			s->appends++;
			goto grown;
		}
		s->breaks++;
		if ((err = send_run(s, ev->time_ns, out)))
			return err;
	}
	s->open = true;
	s->start = a;
	s->end = b;
	s->ino = ev->ino;
	s->freed_ns = ev->freed_ns;
	s->blocks = 1;
	s->dev = ev->dev;
	s->flags = ev->flags;
	return 0;
grown:
	s->blocks++;
	if (ev->freed_ns < s->freed_ns)
		s->freed_ns = ev->freed_ns;
	return 0;
}

/* ffs_blkfree() calls for [a, end): the blocks it touches (end > a). */
static uint64_t nblocks(uint64_t a, uint64_t end, uint64_t bs)
{
	return (end - 1) / bs - a / bs + 1;
}

/*
 * trimcons=1: only the extent's first block can break the open run; every
 * block after it starts where the run ends (asc) or ends where it starts
 * (desc), so the rest is counted, not walked: a 1 TiB free costs what a
 * 32 KiB one does.
 */
static int consolidate(struct ufs_state *s, const struct policy_event *ev, uint64_t n, struct policy_out *out)
{
	uint64_t a = ev->offset, end = ev->offset + ev->length, bs = s->cfg.bsize;
	int err;

	if (s->cfg.order == 0)
		err = blkfree(s, ev, a, a / bs * bs + bs < end ? a / bs * bs + bs : end, out);
	else
		err = blkfree(s, ev, (end - 1) / bs * bs > a ? (end - 1) / bs * bs : a, end, out);
	if (err || n == 1)
		return err;
	if (s->cfg.order == 0) {
		s->end = end;
		s->appends += n - 1;
	} else {
		s->start = a;
		s->prepends += n - 1;
	}
	s->blkfrees += n - 1;
	s->blocks += n - 1;
	return 0;
}

static int ufs_push(void *priv, const struct policy_event *ev, struct policy_out *out)
{
	struct ufs_state *s = priv;
	uint64_t bs = s->cfg.bsize, a = ev->offset, end = ev->offset + ev->length, n;
	int err;

	s->frees++;
	if (ev->flags & TS_F_PREALLOC) {
		/*
		 * An unused preallocation (ext4 traces) was never a file's block: FFS does not
		 * preallocate past EOF, and ffs_blkfree() is only called for the block pointers a
		 * file holds (ffs_truncate(), ffs_indirtrunc()). No BIO_DELETE.
		 */
		s->prealloc++;
		return 0;
	}
	/* ffs_blkrelease_finish() of the previous file's release. */
	if (s->open && (ev->ino != s->ino || ev->time_ns - s->last_ns > s->cfg.release_gap) &&
	    (err = send_run(s, ev->time_ns, out)))
		return err;
	s->last_ns = ev->time_ns;
	if (!ev->length)
		return 0;
	n = nblocks(a, end, bs);
	if (s->cfg.trimcons)
		return consolidate(s, ev, n, out);
	/* One BIO_DELETE per block: the work is the blocks', bounded like every stage's. */
	if ((err = policy_out__pieces(out, n, "ffs_blkfree() blocks")))
		return err;
	if (s->cfg.order == 0) {
		while (a < end) {
			uint64_t b = a / bs * bs + bs;	/* a < 2^63 and bs <= 1 MiB: no wrap */

			if (b > end)
				b = end;
			if ((err = blkfree(s, ev, a, b, out)))
				return err;
			a = b;
		}
	} else {
		while (end > a) {
			uint64_t b = (end - 1) / bs * bs;

			if (b < a)
				b = a;
			if ((err = blkfree(s, ev, b, end, out)))
				return err;
			end = b;
		}
	}
	return 0;
}

static uint64_t ufs_next_deadline(void *priv)
{
	struct ufs_state *s = priv;

	return s->open ? s->last_ns + s->cfg.release_gap : UINT64_MAX;
}

static int ufs_tick(void *priv, uint64_t now, struct policy_out *out)
{
	struct ufs_state *s = priv;

	return now >= ufs_next_deadline(s) ? send_run(s, now, out) : 0;
}

static int ufs_flush(void *priv, uint64_t now, struct policy_out *out)
{
	return send_run(priv, now, out);
}

static const struct policy_stat ufs_stats[] = {
	POLICY_STAT(struct ufs_state, frees, "frees"),
	POLICY_STAT(struct ufs_state, prealloc, "prealloc_frees"),
	POLICY_STAT(struct ufs_state, blkfrees, "blkfree_calls"),
	POLICY_STAT(struct ufs_state, sent, "bio_deletes"),
	{ NULL },
};

static int ufs_report(void *priv, json_t *obj)
{
	struct ufs_state *s = priv;

	if (s->cfg.trimcons) {
		json_object_set_new(obj, "prepends", json_integer((json_int_t)s->prepends));
		json_object_set_new(obj, "appends", json_integer((json_int_t)s->appends));
		json_object_set_new(obj, "non_adjacent", json_integer((json_int_t)s->breaks));
	}
	return 0;
}

const struct policy_stage_ops stage_ufs = {
	.name = "ffs-blkfree",
	.help = "FreeBSD FFS: one BIO_DELETE per freed block, or (trimcons=1) runs grown by adjacent blocks",
	.follows = "sys/ufs/ffs/ffs_alloc.c: ffs_blkfree(), trim_lookup(), ffs_blkfree_sendtrim(), "
		   "ffs_blkrelease_start()/ffs_blkrelease_finish() (FreeBSD 12, r338517)",
	POLICY_CONFIG(ufs_opts, struct ufs_state, cfg),
	.positional = "trimcons",
	.init = ufs_init,
	.push = ufs_push,
	.tick = ufs_tick,
	.next_deadline = ufs_next_deadline,
	.flush = ufs_flush,
	.stats = ufs_stats,
	.report = ufs_report,
};
