/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device models: the "model" target kind and its profiles.
 *
 * A target spec "model:PROFILE[:key=value,...]" opens PROFILE (a bundled
 * profile name such as sata-sf2281, or a path to a .json file) with the
 * overrides applied by the generic option parser (traces/opts.h). The
 * profile's "model" field picks the engine: "parametric" (per-op latency,
 * queued vs non-queued TRIM, splitting, granularity) or "ftl" (page-mapped
 * FTL with garbage collection). Both are pure functions of
 * (profile, seed, command stream).
 */
#ifndef TRIMSIM_MODEL_H
#define TRIMSIM_MODEL_H

#include <stddef.h>
#include <jansson.h>
#include "replay/targets/target.h"

extern const struct target_ops model_target_ops;

struct model_profile;

/* Names of the profiles built into the binary (models/profiles/NAME.json), in file-name order. */
size_t model_profile__count(void);
const char *model_profile__name_at(size_t i);

/*
 * "NAME" or "path.json", optionally followed by ":key=value,key=value".
 * NULL with errno set and a one-line message naming the file and key in err.
 */
struct model_profile *model_profile__load(const char *spec, char *err, size_t errlen);
void model_profile__free(struct model_profile *p);
const char *model_profile__name(const struct model_profile *p);
const char *model_profile__source(const struct model_profile *p);
const char *model_profile__engine(const struct model_profile *p);	/* "parametric" or "ftl" */
/* { name, model, description, source, params: {...} }; NULL on ENOMEM. */
json_t *model_profile__describe(const struct model_profile *p);
/* The parameter table of an engine ("parametric" or "ftl"), for help text. NULL if unknown. */
const struct opt_spec *model_profile__opts(const char *engine);

#endif
