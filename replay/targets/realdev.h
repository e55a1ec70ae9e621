/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Real-time targets: a block device (destroys its data, needs --destructive)
 * and a regular file (hole punching; one that holds data needs --destructive). Both run on a wall
 * clock (target_ops.clock: ns since open) and dispatch asynchronously at a
 * queue depth, through io_uring where the kernel can, a thread pool otherwise.
 *
 * Target argument: PATH[,key=value...], keys from realdev_opts
 * (dispatch=uring|threads|auto, qd=N, seed=N).
 */
#ifndef TRIMSIM_REALDEV_H
#define TRIMSIM_REALDEV_H

#include "replay/targets/target.h"

extern const struct target_ops device_target_ops;
extern const struct target_ops file_target_ops;

/*
 * Commands in flight by default (a SATA NCQ queue): the device target's
 * max_inflight unless qd= or --qd says otherwise, and the depth trimsim
 * calibrate measures a device at and writes into its profile's qd, so a
 * calibrated model and the device dispatch alike. The policy's dispatch(qd=N)
 * decides how much of it discards use.
 */
#define REALDEV_DEFAULT_QD 32

enum realdev_dispatch { RD_DISPATCH_AUTO = 0, RD_DISPATCH_URING = 1, RD_DISPATCH_THREADS = 2 };

/* What a real target measured, for calibrate and the tests (also in report()). */
struct realdev_stats {
	uint64_t submitted, completed, errors;
	uint64_t discard_bytes, write_bytes, read_bytes;
	unsigned max_inflight_seen;	/* most commands the kernel held at once */
	enum realdev_dispatch dispatch;	/* the path actually used */
};

/* The queue depth a target argument ("PATH[,qd=N]") opens with, given --qd (0: none); 0 if it does not parse. */
unsigned realdev__qd(const char *arg, unsigned env_qd);
/* priv from device_target_ops/file_target_ops.open. */
void realdev__stats(void *priv, struct realdev_stats *out);
const char *realdev__dispatch_name(enum realdev_dispatch d);

#endif
