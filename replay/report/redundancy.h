/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Redundancy analysis of one trace (`trimsim info --redundancy`): per device
 * and per layer (FREE, INTENT, discard BIO, discard ISSUE), how many bytes
 * were named in total and how many distinct bytes that was: unique bytes,
 * overlap (bytes named more than once) and redundancy = total / unique.
 * A filesystem that discards the same extents again (fstrim over space that
 * was already trimmed, a policy that re-sends after a merge) shows here.
 */
#ifndef TRIMSIM_REPORT_REDUNDANCY_H
#define TRIMSIM_REPORT_REDUNDANCY_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "traces/trace.h"

enum redund_layer { RL_FREE = 0, RL_INTENT, RL_BIO, RL_ISSUE, RL_MAX };

struct redund;

struct redund_figures {
	uint64_t records;
	uint64_t total;		/* bytes, overlaps counted each time */
	uint64_t unique;	/* bytes of the union */
	uint64_t extents;	/* disjoint extents in the union */
};

/* NULL + errno. */
struct redund *redund__new(void);
/* Any record; those that name discarded (or freed) bytes are counted. 0 or -ENOMEM. */
int redund__add(struct redund *r, const struct ts_record *rec);
size_t redund__ndevs(const struct redund *r);
uint32_t redund__dev(const struct redund *r, size_t i);
/* Figures of device i, layer l (computes the union). */
void redund__figures(struct redund *r, size_t i, enum redund_layer l, struct redund_figures *out);
/* Text block for trimsim info. */
int redund__print(struct redund *r, FILE *f);
/* {"devices":[{"dev":"7:0","layers":{"ISSUE":{records,total_bytes,unique_bytes,overlap_bytes,redundancy,extents}}}]} */
json_t *redund__json(struct redund *r);
void redund__destroy(struct redund *r);

#endif
