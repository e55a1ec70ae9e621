// SPDX-License-Identifier: GPL-2.0
/*
 * Dispatch core for the real-time targets: command slots, part splitting and
 * alignment, the thread-pool back end and reap. See rd_core.h.
 *
 * Block discards in the thread pool use the BLKDISCARD ioctl, which the kernel
 * serves synchronously in blk_ioctl_discard() (block/ioctl.c): one ioctl per
 * range, so queue depth N needs N threads. Files are punched with
 * fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE), which is what the
 * loop driver itself does for a discard (lo_fallocate() in
 * drivers/block/loop.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "traces/trace.h"
#include "traces/util.h"
#include "replay/targets/rd_int.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rd_fill_random(void *buf, size_t len, uint64_t seed)
{
	uint8_t *p = buf;
	uint64_t s = seed, v;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		v = splitmix64(&s);
		memcpy(p + i, &v, 8);
	}
	for (v = splitmix64(&s); i < len; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

uint64_t rd_now(const struct rd_io *io)
{
	return ts_now_ns() - io->t0;
}

void rd_fifo_push(struct rd_fifo *f, uint32_t v)
{
	f->v[(f->head + f->len++) % f->cap] = v;
}

uint32_t rd_fifo_pop(struct rd_fifo *f)
{
	uint32_t v = f->v[f->head];

	f->head = (f->head + 1) % f->cap;
	f->len--;
	return v;
}

void rd_slot_finish(struct rd_io *io, uint32_t idx)
{
	struct rd_slot *s = &io->slots[idx];

	s->d.done_ns = rd_now(io);
	s->state = RS_DONE;
	io->st.completed++;
	if (s->d.error) {
		io->st.errors++;
		s->d.freed = 0;		/* a failed discard unmapped nothing (add_discard() counted its granules) */
	}
	rd_fifo_push(&io->done, idx);
}

static int slot_add_part(struct rd_slot *s, uint64_t off, uint64_t len)
{
	int ret = grow_array((void **)&s->parts, &s->cap_parts, (size_t)s->nr_parts + 1, sizeof(*s->parts));

	if (ret)
		return ret;
	s->parts[s->nr_parts].offset = off;
	s->parts[s->nr_parts++].length = len;
	return 0;
}

static uint64_t round_down(uint64_t v, uint64_t a) { return v - v % a; }
static uint64_t round_up(uint64_t v, uint64_t a) { return round_down(v + a - 1, a); }

/*
 * Discard range: a block device takes whole logical blocks (shrink to them);
 * a hole punch takes any bytes. freed counts whole granules only.
 */
static int add_discard(struct rd_io *io, struct rd_slot *s, uint64_t off, uint64_t len)
{
	uint64_t a = io->c.is_bdev ? io->c.align : 1, g = io->c.granularity;
	uint64_t start = round_up(off, a), end = round_down(off + len, a);
	uint64_t gs = round_up(off, g), ge = round_down(off + len, g);

	s->d.bytes += len;
	if (ge > gs)
		s->d.freed += ge - gs;
	if (end <= start)
		return 0;
	s->d.dev_cmds += io->c.discard_max ? (uint32_t)((end - start + io->c.discard_max - 1) /
							io->c.discard_max) : 1;
	io->st.discard_bytes += end - start;
	return slot_add_part(s, start, end - start);
}

/* Write/read range: grow to alignment under O_DIRECT, split into chunks. */
static int add_rw(struct rd_io *io, struct rd_slot *s, uint64_t off, uint64_t len, bool wr)
{
	uint64_t a = io->c.direct ? io->c.align : 1;
	uint64_t pos = round_down(off, a), end = round_up(off + len, a), n;
	int rc;

	s->d.bytes += len;
	for (; pos < end; pos += n) {
		n = MIN(end - pos, (uint64_t)RD_CHUNK);
		rc = slot_add_part(s, pos, n);
		if (rc)
			return rc;
		s->d.dev_cmds++;
		if (wr)
			io->st.write_bytes += n;
		else
			io->st.read_bytes += n;
	}
	return 0;
}

/*
 * Write zeroes: one fallocate over the range grown to whole logical blocks
 * (blkdev_fallocate() in block/fops.c takes nothing else). See rd_zero_mode().
 */
static int add_zeroes(struct rd_io *io, struct rd_slot *s, uint64_t off, uint64_t len)
{
	uint64_t a = io->c.is_bdev ? io->c.align : 1;
	uint64_t pos = round_down(off, a), end = round_up(off + len, a);

	s->d.bytes += len;
	if (end <= pos)
		return 0;
	s->d.dev_cmds++;
	io->st.write_bytes += end - pos;
	return slot_add_part(s, pos, end - pos);
}

int rd_zero_mode(const struct rd_io *io)
{
	return (io->c.is_bdev ? FALLOC_FL_ZERO_RANGE : FALLOC_FL_PUNCH_HOLE) | FALLOC_FL_KEEP_SIZE;
}

/*
 * The command's ranges on the target: less the base (the traced partition's start), so a
 * partition's trace replays onto a device of the partition's size; a range before the base
 * lies outside the traced partition (the recorder writes none: -ERANGE).
 */
static int slot_build(struct rd_io *io, struct rd_slot *s, const struct target_cmd *cmd)
{
	struct target_seg one = { cmd->offset, cmd->length };
	const struct target_seg *r = cmd->segs ? cmd->segs : &one;
	uint32_t i, n = cmd->segs ? cmd->nr_segs : 1;
	uint64_t base = io->c.base;
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		uint64_t off = r[i].offset - base;

		if (r[i].offset < base && cmd->op != TS_OP_FLUSH)
			return -ERANGE;
		switch (cmd->op) {
		case TS_OP_DISCARD:
			rc = add_discard(io, s, off, r[i].length);
			break;
		case TS_OP_WRITE:
		case TS_OP_READ:
			rc = add_rw(io, s, off, r[i].length, cmd->op == TS_OP_WRITE);
			break;
		case TS_OP_WRITE_ZEROES:
			rc = add_zeroes(io, s, off, r[i].length);
			break;
		case TS_OP_FLUSH:
			s->d.dev_cmds = 1;
			return slot_add_part(s, 0, 0);
		default:	/* secure erase: not replayed on real devices (fails with EOPNOTSUPP) */
			return -EOPNOTSUPP;
		}
	}
	return rc;
}

/* One part as one blocking syscall (thread pool). */
static int exec_part(struct rd_io *io, struct rd_slot *s, const struct target_seg *p)
{
	uint64_t range[2] = { p->offset, p->length };
	uint8_t *buf = s->d.op == TS_OP_WRITE ? io->wbuf + s->wofs : io->rbuf;
	uint64_t done = 0;
	ssize_t n;

	switch (s->d.op) {
	case TS_OP_DISCARD:
		if (io->c.is_bdev)
			return ioctl(io->c.fd, BLKDISCARD, range) ? -errno : 0;
		return fallocate(io->c.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				 (off_t)p->offset, (off_t)p->length) ? -errno : 0;
	case TS_OP_WRITE_ZEROES:
		return fallocate(io->c.fd, rd_zero_mode(io), (off_t)p->offset, (off_t)p->length) ? -errno : 0;
	case TS_OP_FLUSH:
		return fsync(io->c.fd) ? -errno : 0;
	default:
		break;
	}
	while (done < p->length) {
		if (s->d.op == TS_OP_WRITE)
			n = pwrite(io->c.fd, buf + done, p->length - done, (off_t)(p->offset + done));
		else
			n = pread(io->c.fd, buf + done, p->length - done, (off_t)(p->offset + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return s->d.op == TS_OP_READ ? 0 : -EIO;	/* read past EOF of a file */
		done += (uint64_t)n;
	}
	return 0;
}

static void *worker(void *arg)
{
	struct rd_io *io = arg;
	struct rd_slot *s;
	uint32_t idx, i;
	int err;

	pthread_mutex_lock(&io->mu);
	for (;;) {
		while (!io->stopping && !io->work.len)
			pthread_cond_wait(&io->work_cv, &io->mu);
		if (io->stopping)
			break;
		idx = rd_fifo_pop(&io->work);
		s = &io->slots[idx];
		s->state = RS_RUNNING;
		s->d.start_ns = rd_now(io);
		if (++io->busy > io->st.max_inflight_seen)
			io->st.max_inflight_seen = io->busy;
		pthread_mutex_unlock(&io->mu);
		for (err = 0, i = 0; i < s->nr_parts && !err; i++)
			err = exec_part(io, s, &s->parts[i]);
		pthread_mutex_lock(&io->mu);
		io->busy--;
		s->d.error = err;
		rd_slot_finish(io, idx);
		pthread_cond_signal(&io->done_cv);
	}
	pthread_mutex_unlock(&io->mu);
	return NULL;
}

static int threads_start(struct rd_io *io, char *err, size_t errlen)
{
	pthread_condattr_t ca;
	sigset_t stop, old;
	int rc;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&io->done_cv, &ca);
	pthread_condattr_destroy(&ca);
	io->thr = calloc(io->c.qd, sizeof(*io->thr));
	if (!io->thr)
		return ts_errf(err, errlen, -ENOMEM, "thread pool: out of memory");
	/* the workers block SIGINT/SIGTERM: the signal ends the engine's sleep in the main thread */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	for (rc = 0; !rc && io->nthr < io->c.qd; io->nthr++)
		if ((rc = pthread_create(&io->thr[io->nthr], NULL, worker, io)))
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc ? ts_errf(err, errlen, -rc, "thread pool: %s", strerror(rc)) : 0;
}

static int fifo_init(struct rd_fifo *f, uint32_t cap)
{
	f->v = calloc(cap, sizeof(*f->v));
	f->cap = cap;
	return f->v ? 0 : -ENOMEM;
}

struct rd_io *rd_io__new(const struct rd_io_conf *c, char *err, size_t errlen)
{
	struct rd_io *io = calloc(1, sizeof(*io));
	uint32_t i;
	int rc = -ENOMEM;

	if (!io)
		goto out;
	io->c = *c;
	io->c.qd = c->qd ? c->qd : 1;
	io->c.align = c->align ? c->align : 512;
	io->c.granularity = c->granularity ? c->granularity : io->c.align;
	io->prng = c->seed ^ 0x7472696d73696dull;	/* "trimsim" */
	pthread_mutex_init(&io->mu, NULL);
	pthread_cond_init(&io->work_cv, NULL);
	io->nslots = io->c.qd;
	io->slots = calloc(io->nslots, sizeof(*io->slots));
	if (!io->slots || fifo_init(&io->free, io->nslots) || fifo_init(&io->work, io->nslots) ||
	    fifo_init(&io->done, io->nslots))
		goto out;
	for (i = 0; i < io->nslots; i++)
		rd_fifo_push(&io->free, i);
	if (posix_memalign((void **)&io->wbuf, 4096, RD_WBUF) ||
	    posix_memalign((void **)&io->rbuf, 4096, RD_CHUNK)) {
		io->wbuf = io->rbuf = NULL;
		goto out;
	}
	rd_fill_random(io->wbuf, RD_WBUF, c->seed);
	if (io->c.dispatch != RD_DISPATCH_THREADS) {
		rc = rd_uring__probe(io, err, errlen);
		if (rc && io->c.dispatch == RD_DISPATCH_URING)
			goto out;
		io->c.dispatch = rc ? RD_DISPATCH_THREADS : RD_DISPATCH_URING;
	}
	io->st.dispatch = io->c.dispatch;
	rc = io->c.dispatch == RD_DISPATCH_URING ? rd_uring__setup(io, err, errlen)
						 : threads_start(io, err, errlen);
	if (rc)
		goto out;
	io->t0 = ts_now_ns();
	return io;
out:
	if (rc == -ENOMEM && err && !*err)
		ts_errf(err, errlen, rc, "out of memory");
	rd_io__free(io);
	errno = -rc;
	return NULL;
}

void rd_io__free(struct rd_io *io)
{
	uint32_t i;

	if (!io)
		return;
	pthread_mutex_lock(&io->mu);
	io->stopping = true;
	pthread_cond_broadcast(&io->work_cv);
	pthread_mutex_unlock(&io->mu);
	for (i = 0; i < io->nthr; i++)
		pthread_join(io->thr[i], NULL);
	rd_uring__teardown(io);
	for (i = 0; io->slots && i < io->nslots; i++)
		free(io->slots[i].parts);
	free(io->slots);
	free(io->thr);
	free(io->free.v);
	free(io->work.v);
	free(io->done.v);
	free(io->wbuf);
	free(io->rbuf);
	pthread_cond_destroy(&io->work_cv);
	if (io->nthr)
		pthread_cond_destroy(&io->done_cv);
	pthread_mutex_destroy(&io->mu);
	free(io);
}

int rd_io__submit(struct rd_io *io, const struct target_cmd *cmd)
{
	struct rd_slot *s;
	uint32_t idx;
	int rc;

	pthread_mutex_lock(&io->mu);
	if (!io->free.len) {
		pthread_mutex_unlock(&io->mu);
		return -EBUSY;
	}
	idx = rd_fifo_pop(&io->free);
	pthread_mutex_unlock(&io->mu);
	s = &io->slots[idx];
	s->nr_parts = 0;
	memset(&s->d, 0, sizeof(s->d));
	s->d.tag = cmd->tag;
	s->d.op = cmd->op;
	s->d.klass = cmd->klass;
	s->d.submit_ns = s->d.start_ns = rd_now(io);
	s->wofs = (uint32_t)(splitmix64(&io->prng) % (RD_WBUF - RD_CHUNK)) & ~4095u;
	s->d.error = slot_build(io, s, cmd);
	io->st.submitted++;
	if (s->d.error == -ENOMEM) {
		pthread_mutex_lock(&io->mu);
		rd_fifo_push(&io->free, idx);
		pthread_mutex_unlock(&io->mu);
		return -ENOMEM;
	}
	pthread_mutex_lock(&io->mu);
	if (s->d.error || !s->nr_parts) {	/* nothing reaches the device */
		rd_slot_finish(io, idx);
		pthread_mutex_unlock(&io->mu);
		return 0;
	}
	if (io->c.dispatch == RD_DISPATCH_THREADS) {
		s->state = RS_QUEUED;
		rd_fifo_push(&io->work, idx);
		pthread_cond_signal(&io->work_cv);
		pthread_mutex_unlock(&io->mu);
		return 0;
	}
	pthread_mutex_unlock(&io->mu);
	rc = rd_uring__submit(io, idx);
	return rc;
}

static void sleep_until(struct rd_io *io, uint64_t until_ns)
{
	uint64_t abs = io->t0 + until_ns;
	struct timespec ts = { (time_t)(abs / 1000000000ull), (long)(abs % 1000000000ull) };

	if (until_ns != UINT64_MAX && until_ns > rd_now(io))
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int pop_done(struct rd_io *io, struct target_done *out)
{
	uint32_t idx = rd_fifo_pop(&io->done);

	*out = io->slots[idx].d;
	io->slots[idx].state = RS_FREE;
	rd_fifo_push(&io->free, idx);
	return 1;
}

static int reap_threads(struct rd_io *io, uint64_t until_ns, struct target_done *out)
{
	uint64_t abs = io->t0 + until_ns;
	struct timespec ts = { (time_t)(abs / 1000000000ull), (long)(abs % 1000000000ull) };
	int rc;

	pthread_mutex_lock(&io->mu);
	while (!io->done.len) {
		if (io->free.len == io->nslots) {	/* nothing in flight: let time pass */
			pthread_mutex_unlock(&io->mu);
			sleep_until(io, until_ns);
			return 0;
		}
		if (until_ns == UINT64_MAX) {
			pthread_cond_wait(&io->done_cv, &io->mu);
			continue;
		}
		rc = pthread_cond_timedwait(&io->done_cv, &io->mu, &ts);
		if (rc == ETIMEDOUT && !io->done.len) {
			pthread_mutex_unlock(&io->mu);
			return 0;
		}
	}
	rc = pop_done(io, out);
	pthread_mutex_unlock(&io->mu);
	return rc;
}

static int reap_uring(struct rd_io *io, uint64_t until_ns, struct target_done *out)
{
	int rc;

	rd_uring__harvest(io);
	while (!io->done.len) {
		if (!io->busy) {
			sleep_until(io, until_ns);
			return 0;
		}
		rc = rd_uring__wait(io, until_ns);
		if (rc == -ETIME || (rc == -EINTR && trimsim_stop))	/* nothing yet; the engine sees the flag */
			return 0;
		if (rc < 0 && rc != -EINTR)
			return rc;
		rd_uring__harvest(io);
	}
	return pop_done(io, out);
}

int rd_io__reap(struct rd_io *io, uint64_t until_ns, struct target_done *out)
{
	if (io->c.dispatch == RD_DISPATCH_THREADS)
		return reap_threads(io, until_ns, out);
	return reap_uring(io, until_ns, out);
}

uint64_t rd_io__next_done(struct rd_io *io)
{
	uint64_t t = UINT64_MAX;

	pthread_mutex_lock(&io->mu);
	if (io->done.len)
		t = io->slots[io->done.v[io->done.head]].d.done_ns;
	pthread_mutex_unlock(&io->mu);
	return t;
}

unsigned rd_io__inflight(struct rd_io *io)
{
	unsigned n;

	pthread_mutex_lock(&io->mu);
	n = io->nslots - io->free.len;
	pthread_mutex_unlock(&io->mu);
	return n;
}

unsigned rd_io__qd(struct rd_io *io) { return io->nslots; }
uint64_t rd_io__clock(struct rd_io *io) { return rd_now(io); }

void rd_io__stats(struct rd_io *io, struct realdev_stats *out)
{
	pthread_mutex_lock(&io->mu);
	*out = io->st;
	pthread_mutex_unlock(&io->mu);
}
