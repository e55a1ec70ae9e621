/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dispatch core the device and file targets share: slots for commands in
 * flight, a buffer of incompressible data for writes, and two back ends that
 * run them asynchronously at a queue depth:
 *   - io_uring (rd_uring.c): discard through the block device's
 *     BLOCK_URING_CMD_DISCARD (Linux 6.12+) or IORING_OP_FALLOCATE on a file;
 *   - a pool of threads (rd_core.c) issuing BLKDISCARD / fallocate / pwrite /
 *     pread / fsync, one blocking syscall per thread.
 * Completion times are taken when the kernel reports them (threads: when the
 * syscall returns; io_uring: when the CQE is harvested), never modelled.
 */
#ifndef TRIMSIM_RD_CORE_H
#define TRIMSIM_RD_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include "replay/targets/realdev.h"

struct rd_io;

struct rd_io_conf {
	int fd;
	bool is_bdev;		/* discard = block discard; else hole punch */
	bool direct;		/* fd has O_DIRECT: align reads/writes to align */
	unsigned qd;
	enum realdev_dispatch dispatch;
	uint64_t seed;		/* data pattern */
	uint32_t align;		/* logical block size */
	uint32_t granularity;	/* discard granularity (freed bytes) */
	uint64_t discard_max;	/* bytes per device discard command, 0 = no limit */
	uint64_t base;		/* the command offset of byte 0 (target_env.base): subtracted */
};

struct rd_io *rd_io__new(const struct rd_io_conf *c, char *err, size_t errlen);
void rd_io__free(struct rd_io *io);
int rd_io__submit(struct rd_io *io, const struct target_cmd *cmd);
int rd_io__reap(struct rd_io *io, uint64_t until_ns, struct target_done *out);
uint64_t rd_io__next_done(struct rd_io *io);
unsigned rd_io__inflight(struct rd_io *io);
unsigned rd_io__qd(struct rd_io *io);
uint64_t rd_io__clock(struct rd_io *io);
void rd_io__stats(struct rd_io *io, struct realdev_stats *out);

/* Fills buf with incompressible bytes from seed (splitmix64). */
void rd_fill_random(void *buf, size_t len, uint64_t seed);

#endif
