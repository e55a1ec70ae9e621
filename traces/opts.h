/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option tables, fio-style: { key, type, offsetof(...), min, max, default, help }
 * beside the module that owns them, and one generic parser that applies a
 * "key=value,key=value" list or a JSON object to them.
 *
 * Text forms: bytes take K/M/G/T (binary, "KiB" also accepted, "13.2K" fine);
 * durations take ns/us/ms/s/m/h/d/w (a bare number is seconds).
 * In JSON, numbers for byte options are bytes and for durations seconds;
 * strings use the text forms.
 */
#ifndef TRIMSIM_OPTS_H
#define TRIMSIM_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "traces/figure.h"	/* fmt_bytes(), fmt_duration(): every option's human form */

enum opt_type {
	OPT_END = 0,
	OPT_U64,	/* uint64_t */
	OPT_U32,	/* uint32_t */
	OPT_BOOL,	/* bool: 1/0, true/false, yes/no, on/off */
	OPT_DOUBLE,	/* double */
	OPT_BYTES,	/* uint64_t bytes */
	OPT_DURATION,	/* uint64_t nanoseconds */
	OPT_STR,	/* char[size] */
	OPT_ENUM,	/* unsigned index into choices */
};

struct opt_spec {
	const char *key;
	enum opt_type type;
	size_t off;
	double min, max;		/* numeric range, inclusive (bytes/durations in bytes/ns) */
	const char *def;		/* default, in text form; NULL = leave zero */
	const char *help;
	const char *const *choices;	/* OPT_ENUM: NULL-terminated */
	size_t size;			/* OPT_STR: buffer size */
};

/* Checks a table once at start-up (unique keys, defaults parse, ranges sane). 0 or -EINVAL. */
int opts__validate(const struct opt_spec *t, char *err, size_t errlen);
/* Sets every default. */
int opts__defaults(const struct opt_spec *t, void *obj, char *err, size_t errlen);
int opts__set(const struct opt_spec *t, void *obj, const char *key, const char *val,
	      char *err, size_t errlen);
/* "k=v<sep>k=v"; empty string is fine. */
int opts__parse_kv(const struct opt_spec *t, void *obj, const char *list, char sep,
		   char *err, size_t errlen);
/* Applies an object's members; ignore: NULL-terminated keys to skip (e.g. "source"). */
int opts__apply_json(const struct opt_spec *t, void *obj, const json_t *o,
		     const char *const *ignore, char *err, size_t errlen);
/* Current values as a JSON object (bytes/durations as numbers: bytes, seconds). */
json_t *opts__to_json(const struct opt_spec *t, const void *obj);
/* "key (type, default X, range): help" lines. */
void opts__print(const struct opt_spec *t, FILE *f, const char *indent);
const struct opt_spec *opts__find(const struct opt_spec *t, const char *key);
/*
 * A floor the table's range cannot hold (0 still means "auto"): "option 'KEY': V is below MIN (why)",
 * MIN in the option's units ("256 KiB", "1.0 ms"), as every range error (opts__set) gives them. -EINVAL.
 */
int opts__below(const struct opt_spec *t, const char *key, uint64_t v, uint64_t min, const char *why,
		char *err, size_t errlen);
/* "a, b, c": the known keys, for error messages. */
void opts__keys(const struct opt_spec *t, char *buf, size_t len);
/*
 * An option's value in obj as text: as an option string takes it back ("30s", "64M", "true",
 * doubles to 17 digits), or human, as every listing prints it (models, policies, --help
 * tables): figures through the one formatter (traces/figure.h: "64 MiB", "30 s", zero as
 * "0" whatever the unit, doubles as FIG_NUMBER), booleans as true/false, an empty string
 * as "-". Returns buf.
 */
char *opts__format(const struct opt_spec *o, const void *obj, bool human, char *buf, size_t len);

/* Parsers and formatters shared by everything that takes sizes and times. 0 or -EINVAL. */
int parse_bytes(const char *s, uint64_t *out);
int parse_duration(const char *s, uint64_t *ns);
int parse_u64(const char *s, uint64_t *out);
int parse_double(const char *s, double *out);
/* An option's default as opts__format() prints it, human (zero when it has none). */
char *opts__format_default(const struct opt_spec *o, char *buf, size_t len);

#endif
