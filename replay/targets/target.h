/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Targets turn commands into completion times. One ops table per kind
 * (parametric model, FTL model, block device, file), in the fio style:
 * small, read-only, per-instance state behind a void *.
 *
 * Time: model targets live in virtual time (ns); every cmd->submit_ns is
 * >= the previous one and completions are a pure function of
 * (profile, seed, command stream). Real-time targets (block device, file)
 * run on their own clock, target_ops.clock(), ns since open.
 */
#ifndef TRIMSIM_TARGET_H
#define TRIMSIM_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include "traces/opts.h"

struct target_seg {
	uint64_t offset;	/* bytes */
	uint64_t length;
};

/* Command classes, for metrics: discards vs the application's own I/O. */
enum target_class { TC_FOREGROUND = 0, TC_DISCARD = 1 };

struct target_cmd {
	uint64_t tag;			/* engine's id, returned in the completion */
	uint64_t submit_ns;		/* virtual submit time (model targets) */
	uint64_t offset;		/* bytes; for multi-range discards the first range */
	uint64_t length;
	const struct target_seg *segs;	/* multi-range discard: nr_segs ranges, or NULL */
	uint32_t nr_segs;
	uint8_t op;			/* enum ts_op */
	uint8_t klass;			/* enum target_class */
	uint16_t flags;			/* TS_F_* (FUA, PREFLUSH, SYNC) */
};

struct target_done {
	uint64_t tag;
	uint64_t submit_ns;	/* when the engine submitted it */
	uint64_t start_ns;	/* when the device began serving it */
	uint64_t done_ns;	/* completion */
	uint64_t bytes;		/* bytes the command covered */
	uint64_t freed;		/* discard: bytes the device actually unmapped (granularity!) */
	uint32_t dev_cmds;	/* device commands it became (discard_max_bytes split) */
	int error;		/* 0, or -EOPNOTSUPP for a rejected discard, -EIO ... */
	uint8_t op;
	uint8_t klass;
};

/* What the engine knows when it opens a target. */
struct target_env {
	uint64_t seed;
	uint64_t device_size;	/* from the trace header, 0 if unknown */
	uint64_t trace_extent;	/* highest offset+length the trace touches */
	uint64_t base;		/* real targets: the trace offset their byte 0 stands for, the traced
				   partition's start (replay/targets/REALDEV.md, "Partitions") */
	unsigned qd;		/* requested queue depth, 0 = target default */
	bool destructive;	/* real targets: allowed to write/discard */
	bool quiet;
	bool twin;		/* the engine's discard-free baseline twin (ENGINE.md): it never receives a
				   discard, so a model prices none (discard_supported=false) and keeps no map */
	const char *action;	/* real targets: what --destructive would allow, for the refusal
				   ("calibration writes and discards the whole device"); NULL: replaying */
};

struct target_ops {
	const char *name;
	const char *help;
	const struct opt_spec *opts;	/* options after the ':' of the target spec, may be NULL */
	bool realtime;			/* runs on a wall clock (block device, file) */
	/* arg: the text after "name:" (profile name and overrides, or a path). */
	int (*open)(const char *arg, const struct target_env *env, void **priv,
		    char *err, size_t errlen);
	/* Queue a command. Model targets compute its completion now. */
	int (*submit)(void *priv, const struct target_cmd *cmd);
	/*
	 * 1: *out holds the earliest completion with done_ns <= until_ns;
	 * 0: none; -errno on failure. Real-time targets block until a
	 * completion arrives or their clock passes until_ns.
	 */
	int (*reap)(void *priv, uint64_t until_ns, struct target_done *out);
	/* Earliest pending completion time, UINT64_MAX if none (models). Not real-time: it changes only
	   with submit and reap (the engine asks again only after one). */
	uint64_t (*next_done)(void *priv);
	/* Commands in flight. */
	unsigned (*inflight)(void *priv);
	/* Max commands in flight the engine should allow. */
	unsigned (*max_inflight)(void *priv);
	/* Real-time targets: ns since open. NULL for models. */
	uint64_t (*clock)(void *priv);
	/* Target-specific figures (write amplification, GC time, profile name...) into obj. */
	int (*report)(void *priv, json_t *obj);
	void (*close)(void *priv);
	/*
	 * Optional (real targets): every refusal open() would make, without opening
	 * anything; 0 or -errno with the one-line message. open() makes the same checks.
	 */
	int (*check)(const char *arg, const struct target_env *env, char *err, size_t errlen);
	/*
	 * Optional (models), a hint: a discard of [offset, offset + length) comes in a
	 * few records; start loading the state serving it reads (a map word at a random
	 * place of a large device is a cache miss). Changes nothing a result shows.
	 */
	void (*prefetch)(void *priv, uint64_t offset, uint64_t length);
};

/* The explicit registry (replay/targets/targets.c). */
const struct target_ops *const *target_registry(size_t *n);
const struct target_ops *target_find(const char *name);
/*
 * The one target spec grammar (replay -M/-t/--device/--file, compare -M items):
 *   NAME:ARG  a registered target: model:PROFILE[:k=v,...], fixed:discard=9ms, device:/dev/sdb, file:/tmp/x
 *   NAME      (strict only) a registered target with an empty ARG: -t fixed
 *   PROFILE[:key=value,...]  (not strict) anything else is a device model profile: nvme, sata-sf2281:trim_base=5ms
 * strict (-t, --device, --file): NAME must be registered. *arg points into spec.
 * NULL with "target 'NAME' is not built in (targets: model fixed ...)" in err.
 */
const struct target_ops *target_spec_parse(const char *spec, bool strict, const char **arg, char *err,
					   size_t errlen);

#endif
