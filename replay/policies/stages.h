/* SPDX-License-Identifier: GPL-2.0 */
/* The generic stage kinds (replay/policies/stages*.c), listed in stages.c. */
#ifndef TRIMSIM_STAGES_H
#define TRIMSIM_STAGES_H

#include "replay/policies/policy.h"

extern const struct policy_stage_ops stage_source;
extern const struct policy_stage_ops stage_dispatch;
extern const struct policy_stage_ops stage_min;
extern const struct policy_stage_ops stage_split;
extern const struct policy_stage_ops stage_align;
extern const struct policy_stage_ops stage_batch;
extern const struct policy_stage_ops stage_sort;
extern const struct policy_stage_ops stage_merge;
extern const struct policy_stage_ops stage_delay;
extern const struct policy_stage_ops stage_rate;
extern const struct policy_stage_ops stage_chain;

#endif
