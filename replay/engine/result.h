/* SPDX-License-Identifier: GPL-2.0 */
/* The result of one replay: JSON (RESULT.md) and the summary table. */
#ifndef TRIMSIM_RESULT_H
#define TRIMSIM_RESULT_H

#include <stdio.h>
#include <jansson.h>
#include "replay/engine/engine.h"

#define RESULT_SCHEMA "trimsim-result/2"

/* The engine's result plus "schema" and "trace" (path as given, records, device, status). */
json_t *result__build(const struct engine *e, const struct trace_reader *r, const char *trace_path,
		      const char *target_name);
/* The result's one file format: -o r.json (a name without an extension is JSON too). */
#define RESULT_EXT ".json"
struct output;
/*
 * -o PATH, opened before the replay runs (traces/output.h), so a bad path fails
 * at once: a name whose extension is not RESULT_EXT is refused. NULL + errno, err.
 */
struct output *result__open(const char *path, char *err, size_t errlen);
/* Sorted keys, indented, into o; commits (or aborts) and frees o. 0 or -errno with err. */
int result__write(const json_t *res, struct output *o, char *err, size_t errlen);
/* The summary table. */
void result__print(const json_t *res, FILE *f);

#endif
