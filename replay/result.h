/* SPDX-License-Identifier: GPL-2.0 */
/* The result of one replay: JSON (RESULT.md) and the summary table. */
#ifndef TRIMSIM_RESULT_H
#define TRIMSIM_RESULT_H

#include <stdio.h>
#include <jansson.h>
#include "engine.h"

#define RESULT_SCHEMA "trimsim-result/1"

/* The engine's result plus "schema" and "trace" (path as given, records, device, status). */
json_t *result__build(const struct engine *e, const struct trace_reader *r, const char *trace_path,
		      const char *target_name);
/* Sorted keys, indented, written to a temporary file beside path and renamed. 0 or -errno with err. */
int result__write(const json_t *res, const char *path, char *err, size_t errlen);
/* The summary table. */
void result__print(const json_t *res, FILE *f);

#endif
