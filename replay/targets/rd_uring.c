// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring back end of the dispatch core.
 *
 * Block discards use the block device's own io_uring command, added in
 * Linux 6.12: IORING_OP_URING_CMD on a block device file reaches
 * blkdev_uring_cmd() (block/ioctl.c, wired as def_blk_fops.uring_cmd in
 * block/fops.c), which for BLOCK_URING_CMD_DISCARD calls blkdev_cmd_discard():
 * byte offset in sqe->addr, byte length in sqe->addr3, every other field
 * (ioprio, __pad1, len, rw_flags, file_index) zero. It builds discard bios
 * with blk_alloc_discard_bio() and completes the CQE from their end_io, so a
 * single thread keeps N discards in flight. Files are punched with
 * IORING_OP_FALLOCATE, which io_uring runs in its worker pool.
 *
 * liburing 2.3 (Debian 12) predates the command: the opcode below is
 * _IO(0x12, 0) from include/uapi/linux/blkdev.h, and the SQE is filled the
 * way liburing 2.8's io_uring_prep_cmd_discard() does.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/ioctl.h>
#include <string.h>
#include "traces/trace.h"
#include "traces/util.h"
#include "replay/targets/rd_int.h"

#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD _IO(0x12, 0)	/* include/uapi/linux/blkdev.h, Linux 6.12 */
#endif

static void prep_blk_discard(struct io_uring_sqe *sqe, int fd, uint64_t off, uint64_t len)
{
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
	sqe->addr = off;
	sqe->addr3 = len;
}

/*
 * A zero-length discard at offset 0 touches nothing: a kernel with the
 * command rejects it in blk_validate_byte_range() with -EINVAL (or -EBADF /
 * -EPERM before that for a read-only open); a kernel without it answers
 * -EOPNOTSUPP (no uring_cmd on block files) or -EINVAL from the opcode check,
 * which the opcode probe rules out first.
 */
static int probe_blk_discard(int fd)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	int rc;

	rc = io_uring_queue_init(2, &ring, 0);
	if (rc)
		return rc;
	sqe = io_uring_get_sqe(&ring);
	prep_blk_discard(sqe, fd, 0, 0);
	rc = io_uring_submit(&ring);
	if (rc == 1)
		rc = io_uring_wait_cqe(&ring, &cqe);
	if (!rc) {
		rc = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	return rc == -EINVAL || rc == -EBADF || rc == -EPERM ? 0 : (rc < 0 ? rc : -EPROTO);
}

int rd_uring__probe(struct rd_io *io, char *err, size_t errlen)
{
	static const int ops[] = { IORING_OP_WRITE, IORING_OP_READ, IORING_OP_FSYNC, IORING_OP_FALLOCATE };
	struct io_uring_probe *p = io_uring_get_probe();
	int need = io->c.is_bdev ? IORING_OP_URING_CMD : IORING_OP_FALLOCATE;
	int rc = 0;
	size_t i;

	if (!p)
		return ts_errf(err, errlen, -ENOSYS, "io_uring unavailable (io_uring_get_probe failed)");
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && !rc; i++)
		if (!io_uring_opcode_supported(p, ops[i]))
			rc = -EOPNOTSUPP;
	if (!rc && !io_uring_opcode_supported(p, need))
		rc = -EOPNOTSUPP;
	io_uring_free_probe(p);
	if (rc)
		return ts_errf(err, errlen, rc, "io_uring lacks the %s opcode on this kernel",
			       io->c.is_bdev ? "URING_CMD" : "FALLOCATE");
	if (io->c.is_bdev && (rc = probe_blk_discard(io->c.fd)))
		return ts_errf(err, errlen, rc,
			       "io_uring block discard (BLOCK_URING_CMD_DISCARD, Linux 6.12+) "
			       "not supported: %s", strerror(-rc));
	return 0;
}

int rd_uring__setup(struct rd_io *io, char *err, size_t errlen)
{
	int rc = io_uring_queue_init(RD_SQ_ENTRIES, &io->ring, 0);

	if (rc)
		return ts_errf(err, errlen, rc, "io_uring_queue_init: %s", strerror(-rc));
	io->ring_up = true;
	return 0;
}

/*
 * Every command the kernel holds keeps a reference to the device's file, and
 * with it the O_EXCL claim (bd_prepare_to_claim(), block/bdev.c): closing the
 * ring with commands in flight lets io_uring cancel and reap them later, in
 * its exit work (io_ring_exit_work(), io_uring/io_uring.c), so the device stays
 * claimed after trimsim has exited and the next run is refused as busy. An
 * early return (an error, a refusal mid-run) waits for them here instead.
 */
void rd_uring__teardown(struct rd_io *io)
{
	struct io_uring_cqe *cqe;
	int rc;

	if (!io->ring_up)
		return;
	rc = io_uring_submit(&io->ring);	/* SQEs prepared but not yet handed over */
	if (rc > 0)
		io->cqes_due += (unsigned)rc;
	while (io->cqes_due) {
		rc = io_uring_wait_cqe(&io->ring, &cqe);
		if (rc < 0 && rc != -EINTR && rc != -ETIME)
			break;	/* the ring itself failed: nothing more will arrive */
		rd_uring__harvest(io);
	}
	io_uring_queue_exit(&io->ring);
	io->ring_up = false;
}

static void prep_part(struct rd_io *io, struct io_uring_sqe *sqe, struct rd_slot *s,
		      const struct target_seg *p)
{
	int fd = io->c.fd;

	switch (s->d.op) {
	case TS_OP_DISCARD:
		if (io->c.is_bdev)
			prep_blk_discard(sqe, fd, p->offset, p->length);
		else
			io_uring_prep_fallocate(sqe, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
						(off_t)p->offset, (off_t)p->length);
		break;
	case TS_OP_WRITE_ZEROES:
		io_uring_prep_fallocate(sqe, fd, rd_zero_mode(io), (off_t)p->offset, (off_t)p->length);
		break;
	case TS_OP_WRITE:
		io_uring_prep_write(sqe, fd, io->wbuf + s->wofs, (unsigned)p->length, p->offset);
		break;
	case TS_OP_READ:
		io_uring_prep_read(sqe, fd, io->rbuf, (unsigned)p->length, p->offset);
		break;
	default:
		io_uring_prep_fsync(sqe, fd, 0);
		break;
	}
}

int rd_uring__submit(struct rd_io *io, uint32_t idx)
{
	struct rd_slot *s = &io->slots[idx];
	struct io_uring_sqe *sqe;
	uint32_t i;
	int rc;

	rd_uring__harvest(io);	/* so busy counts what the kernel still holds */
	s->state = RS_RUNNING;
	s->parts_left = s->nr_parts;
	s->xfer = 0;
	for (i = 0; i < s->nr_parts; i++) {
		sqe = io_uring_get_sqe(&io->ring);
		if (!sqe) {
			rc = io_uring_submit(&io->ring);
			if (rc > 0)
				io->cqes_due += (unsigned)rc;
			sqe = rc < 0 ? NULL : io_uring_get_sqe(&io->ring);
			if (!sqe)
				return rc < 0 ? rc : -EBUSY;
		}
		prep_part(io, sqe, s, &s->parts[i]);
		io_uring_sqe_set_data64(sqe, idx);
	}
	pthread_mutex_lock(&io->mu);
	if (++io->busy > io->st.max_inflight_seen)
		io->st.max_inflight_seen = io->busy;
	pthread_mutex_unlock(&io->mu);
	s->d.start_ns = rd_now(io);
	rc = io_uring_submit(&io->ring);
	if (rc > 0)
		io->cqes_due += (unsigned)rc;
	return rc < 0 ? rc : 0;
}

void rd_uring__harvest(struct rd_io *io)
{
	struct io_uring_cqe *cqe;
	struct rd_slot *s;
	uint64_t want;
	uint32_t idx, i;

	pthread_mutex_lock(&io->mu);
	while (!io_uring_peek_cqe(&io->ring, &cqe)) {
		idx = (uint32_t)io_uring_cqe_get_data64(cqe);
		s = &io->slots[idx];
		if (io->cqes_due)
			io->cqes_due--;
		if (cqe->res < 0 && !s->d.error)
			s->d.error = cqe->res;
		else if (cqe->res > 0)
			s->xfer += (uint64_t)cqe->res;
		io_uring_cqe_seen(&io->ring, cqe);
		if (--s->parts_left)
			continue;
		if (s->d.op == TS_OP_WRITE && !s->d.error) {
			for (want = 0, i = 0; i < s->nr_parts; i++)
				want += s->parts[i].length;
			if (s->xfer != want)
				s->d.error = -EIO;	/* short write */
		}
		io->busy--;
		rd_slot_finish(io, idx);
	}
	pthread_mutex_unlock(&io->mu);
}

int rd_uring__wait(struct rd_io *io, uint64_t until_ns)
{
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts;
	uint64_t now = rd_now(io), rel;

	if (until_ns == UINT64_MAX)
		return io_uring_wait_cqe(&io->ring, &cqe);
	rel = until_ns > now ? until_ns - now : 0;
	ts.tv_sec = (long long)(rel / 1000000000ull);
	ts.tv_nsec = (long long)(rel % 1000000000ull);
	return io_uring_wait_cqe_timeout(&io->ring, &cqe, &ts);
}
