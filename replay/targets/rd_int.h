/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the dispatch core, shared by rd_core.c and rd_uring.c only. */
#ifndef TRIMSIM_RD_INT_H
#define TRIMSIM_RD_INT_H

#include <liburing.h>
#include <pthread.h>
#include "replay/targets/rd_core.h"

#define RD_CHUNK	(4u << 20)	/* largest single write/read syscall */
#define RD_WBUF		(2 * RD_CHUNK)	/* pattern buffer: a chunk starts anywhere in the first half */
#define RD_SQ_ENTRIES	256u

enum rd_state { RS_FREE = 0, RS_QUEUED, RS_RUNNING, RS_DONE };

struct rd_slot {
	struct target_done d;
	struct target_seg *parts;	/* aligned ranges, one syscall/SQE each */
	uint32_t nr_parts;
	size_t cap_parts;
	uint32_t parts_left;		/* io_uring: CQEs still expected */
	uint32_t wofs;			/* write: offset into the pattern buffer */
	uint64_t xfer;			/* io_uring: bytes the CQEs reported */
	enum rd_state state;
};

/* A FIFO of slot indices; capacity = number of slots. */
struct rd_fifo {
	uint32_t *v;
	uint32_t head, len, cap;
};

struct rd_io {
	struct rd_io_conf c;
	uint64_t t0;
	struct rd_slot *slots;
	uint32_t nslots;
	struct rd_fifo free, work, done;
	uint8_t *wbuf, *rbuf;
	uint64_t prng;
	struct realdev_stats st;
	unsigned busy;			/* commands held by the kernel right now */
	/* threads */
	pthread_mutex_t mu;
	pthread_cond_t work_cv, done_cv;
	pthread_t *thr;
	unsigned nthr;
	bool stopping;
	/* io_uring */
	struct io_uring ring;
	bool ring_up;
	unsigned cqes_due;		/* SQEs the kernel took whose CQEs have not been harvested */
};

uint64_t rd_now(const struct rd_io *io);
void rd_fifo_push(struct rd_fifo *f, uint32_t v);
uint32_t rd_fifo_pop(struct rd_fifo *f);
/*
 * fallocate mode of a write-zeroes command: on a block device ZERO_RANGE
 * (blkdev_fallocate() -> blkdev_issue_zeroout(), which writes zero pages where
 * the device has no WRITE ZEROES); on a file PUNCH_HOLE, what the loop driver
 * does with a write-zeroes that may unmap (lo_fallocate() in drivers/block/loop.c;
 * tmpfs has no ZERO_RANGE). Both read back as zeroes.
 */
int rd_zero_mode(const struct rd_io *io);
/* Marks a slot complete (caller holds mu in thread mode). */
void rd_slot_finish(struct rd_io *io, uint32_t idx);

/* io_uring back end (rd_uring.c). */
int rd_uring__probe(struct rd_io *io, char *err, size_t errlen);
int rd_uring__setup(struct rd_io *io, char *err, size_t errlen);
int rd_uring__submit(struct rd_io *io, uint32_t idx);
int rd_uring__wait(struct rd_io *io, uint64_t until_ns);
void rd_uring__harvest(struct rd_io *io);
/* Waits for every command still in the kernel, then closes the ring. */
void rd_uring__teardown(struct rd_io *io);

#endif
