/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trimsim record, user side: traced devices (devices.c), the recorder that
 * turns raw events into trace records (record.c), and the backends that
 * deliver raw events (bpf.c, tracefs.c), driven by cmd_record.c.
 */
#ifndef TRIMSIM_TRACER_RECORDER_H
#define TRIMSIM_TRACER_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "traces/trace.h"
#include "tracer/record.h"

_Static_assert(sizeof(struct tr_event) == 56, "tr_event must have no padding");
_Static_assert(sizeof(struct tr_filter) == 24, "tr_filter must have no padding");

#define REC_MAX_DEVS	16

/* One traced device: its header entry plus what translation needs. */
struct rec_dev {
	struct ts_device d;		/* d.dev is the device events are recorded under */
	uint32_t disk_dev;		/* whole disk carrying it (request events) */
	uint64_t start_sect;		/* partition start on the disk, 512-byte sectors */
	uint64_t nr_sect;		/* partition size, sectors */
	unsigned fs;			/* enum ts_fs */
	uint64_t ext4_blocks_per_group;
	uint64_t ext4_first_data_block;
	unsigned ext4_cluster_bits;	/* log2(blocks per cluster), bigalloc */
	uint32_t ext4_nofree_first;	/* ext4_free_blocks() flags of this kernel: keep a partial first */
	uint32_t ext4_nofree_last;	/* (last) cluster; 0 where the kernel has no such flag */
};

/* devices.c: -d DEV, -m MOUNTPOINT, or every mounted block filesystem. */
int rec_dev__from_path(const char *path, struct rec_dev *rd, char *err, size_t errlen);
int rec_dev__from_mount(const char *mnt, struct rec_dev *rd, char *err, size_t errlen);
int rec_dev__all_mounted(struct rec_dev *rds, size_t max, size_t *n, char *err, size_t errlen);
/*
 * GETFSMAP free extents of rd's filesystem, whole-device byte offsets.
 * -EOPNOTSUPP if the fs has no GETFSMAP, -ENODEV if it is no longer mounted there.
 */
typedef int (*rec_extent_fn)(void *arg, uint64_t offset, uint64_t length);
int rec_dev__freespace(const struct rec_dev *rd, rec_extent_fn fn, void *arg,
		       char *err, size_t errlen);

/* record.c: raw events in, trace records out. */
struct recorder;

struct kind_stat {
	uint64_t count;
	uint64_t bytes;
};

struct recorder *recorder__new(struct trace_writer *w, const struct rec_dev *devs, size_t ndevs);
void recorder__free(struct recorder *r);
/* Translates and writes one raw event; 0 or -errno. Events of unknown devices are dropped (counted). */
int recorder__event(struct recorder *r, const struct tr_event *e);
/*
 * A backend's count of events lost on cpu since it started reads total; *seen is the
 * backend's, what it read at the last call (0 at first): the increase becomes a META_LOST
 * record (and the footer's lost count) and *seen total. 0 or -errno.
 */
int recorder__lost(struct recorder *r, uint32_t cpu, uint64_t total, uint64_t *seen);
/* A META record stamped now. */
int recorder__meta(struct recorder *r, unsigned meta, uint32_t dev, uint64_t off, uint64_t len,
		   uint64_t ino, uint64_t lat, uint16_t flags);
/*
 * Records are held REC_HOLD_NS in time order before they are written (record.c
 * hold()): long enough for any event before them to have left the kernel's
 * buffers (a record waits there at most the record loop's 100 ms poll).
 */
#define REC_HOLD_NS 300000000ull
/* Writes the held records stamped at or before upto (UINT64_MAX: all, before the trace closes). */
int recorder__release(struct recorder *r, uint64_t upto);
/*
 * Writes the records older than REC_HOLD_NS and pushes the file's buffer to it (a SIGKILL
 * then loses only the records still held).
 */
int recorder__flush(struct recorder *r);
/* Free-space snapshot of every traced filesystem (start or end). */
int recorder__snapshot(struct recorder *r, bool end, char *err, size_t errlen);
const struct kind_stat *recorder__stats(const struct recorder *r);	/* indexed by kind */
uint64_t recorder__lost_total(const struct recorder *r);
uint64_t recorder__dropped(const struct recorder *r);
/* Bytes of the device commands recorded as issued and not yet as done. */
uint64_t recorder__inflight(const struct recorder *r);
/* The latest event time (CLOCK_MONOTONIC, as ts_now_ns()) of a FREE, INTENT, BIO or discard command; 0: none. */
uint64_t recorder__discard_seen(const struct recorder *r);
void recorder__print_summary(const struct recorder *r, FILE *f, uint64_t elapsed_ns);
void recorder__print_progress(struct recorder *r, FILE *f, uint64_t now_ns);

/* Backends: one small ops table each. */
struct rec_config {
	const struct rec_dev *devs;
	size_t ndevs;
	bool io;
	uint64_t ringbuf_size;
};

struct rec_backend_ops {
	const char *name;
	/* Probe, load and attach. NULL on failure with a one-line reason in err. */
	void *(*open)(const struct rec_config *cfg, char *err, size_t errlen);
	/* Deliver pending events to r, waiting up to timeout_ms; count or -errno. */
	int (*poll)(void *st, struct recorder *r, int timeout_ms);
	/* Optional: deliver everything still held back (end of recording); count or -errno. */
	int (*drain)(void *st, struct recorder *r);
	/*
	 * The recorded command's first thread, before it runs: from then on the discard bios of
	 * every thread it and its descendants start are flagged TR_FL_WORKLOAD. 0 or -errno.
	 */
	int (*follow)(void *st, int tid);
	/* Attach/variant notes for the header ("bio: block_bio_queue (fentry: EPERM)"). */
	const char *(*notes)(void *st);
	void (*close)(void *st);
};

/* tracefs.c: op and flags (TR_OP_MASK | TR_FL_*) from a block event's rwbs field (at most n chars). */
uint32_t tr_rwbs_decode(const char *s, size_t n, uint64_t sectors);
/* tracefs.c: where tracefs is mounted (mounting it on /sys/kernel/tracing if needed). */
const char *rec_tracefs_dir(void);

extern const struct rec_backend_ops rec_bpf_ops;
extern const struct rec_backend_ops rec_tracefs_ops;

#endif
