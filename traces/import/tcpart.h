/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A filesystem on a partition, in a trace.dat: the filesystem's tracepoints name the
 * partition (sb->s_dev), the block layer's name its whole disk, so the trace-cmd importer
 * learns which disk's commands are the partition's only once it has read every record.
 * tc_part__resolve() then gives them to the partition, as `trimsim record` does (one
 * device, the partition, with its start; traces/FORMAT.md, "Device table").
 */
#ifndef TRIMSIM_TCPART_H
#define TRIMSIM_TCPART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traces/trace.h"

struct import_sink;

/* Which devices the records name, and as what: a filesystem's, the block layer's. */
struct tc_devs;
struct tc_devs *tc_devs__new(void);
void tc_devs__free(struct tc_devs *t);
/* Counts one record the importer made. 0 or -ENOMEM. */
int tc_devs__note(struct tc_devs *t, const struct ts_record *r);

/* What the options say of the filesystem's device. */
struct tc_part {
	uint32_t dev;		/* --device's dev_t, 0 without --device */
	uint32_t disk;		/* the disk it is on (itself if a whole disk), 0 without --device */
	uint64_t start;		/* partition start, bytes: --partition-start or --device's; 0 = none */
	uint64_t size;		/* --device's size, bytes; 0 = unknown (to the disk's end) */
};

/*
 * Gives the partition the block records of its disk inside it, drops the disk from the
 * device table if nothing is left on it, and sets the partition's start in its entry. An
 * error (-EINVAL, one line naming path and the option to give) where a filesystem's device
 * has no block records while other devices have, and the options do not say where it starts.
 */
int tc_part__resolve(const struct tc_part *p, const struct tc_devs *t, struct import_sink *sink,
		     const char *path, char *err, size_t errlen);

#endif
