// SPDX-License-Identifier: GPL-2.0
/* Generic option tables: one parser for every plug-in's options (opts.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "traces/opts.h"

struct unit {
	const char *name;
	double mul;
};

static const struct unit byte_units[] = {
	{ "", 1 }, { "b", 1 }, { "B", 1 },
	{ "k", 1024.0 }, { "K", 1024.0 }, { "KB", 1024.0 }, { "KiB", 1024.0 },
	{ "m", 1048576.0 }, { "M", 1048576.0 }, { "MB", 1048576.0 }, { "MiB", 1048576.0 },
	{ "g", 1073741824.0 }, { "G", 1073741824.0 }, { "GB", 1073741824.0 }, { "GiB", 1073741824.0 },
	{ "t", 1099511627776.0 }, { "T", 1099511627776.0 }, { "TB", 1099511627776.0 },
	{ "TiB", 1099511627776.0 },
	{ NULL, 0 },
};

static const struct unit time_units[] = {
	{ "", 1e9 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 }, { "d", 86400e9 }, { "w", 604800e9 },
	{ NULL, 0 },
};

/* A finite number at the start of s: 0 with *v and *end (what follows it), else -EINVAL. */
static int read_number(const char *s, double *v, char **end)
{
	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	*v = strtod(s, end);
	return errno || *end == s || !isfinite(*v) ? -EINVAL : 0;
}

static int parse_scaled(const char *s, const struct unit *units, double *out)
{
	char *end;
	double v;

	if (read_number(s, &v, &end) || v < 0)
		return -EINVAL;
	while (*end == ' ')
		end++;
	for (const struct unit *u = units; u->name; u++) {
		if (!strcmp(end, u->name)) {
			*out = v * u->mul;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_bytes(const char *s, uint64_t *out)
{
	double v;

	if (parse_scaled(s, byte_units, &v) || v >= 18446744073709551615.0)
		return -EINVAL;
	*out = (uint64_t)llround(v);
	return 0;
}

int parse_duration(const char *s, uint64_t *ns)
{
	double v;

	if (parse_scaled(s, time_units, &v) || v >= 18446744073709551615.0)
		return -EINVAL;
	*ns = (uint64_t)llround(v);
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (read_number(s, &v, &end) || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static const char *type_name(enum opt_type t)
{
	switch (t) {
	case OPT_U64:
	case OPT_U32: return "integer";
	case OPT_BOOL: return "bool";
	case OPT_DOUBLE: return "number";
	case OPT_BYTES: return "size";
	case OPT_DURATION: return "duration";
	case OPT_STR: return "string";
	case OPT_ENUM: return "choice";
	default: return "?";
	}
}

const struct opt_spec *opts__find(const struct opt_spec *t, const char *key)
{
	for (; t && t->key; t++)
		if (!strcmp(t->key, key))
			return t;
	return NULL;
}

void opts__keys(const struct opt_spec *t, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = 0;
	for (; t && t->key && used < len; t++) {
		int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", t->key);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (len && !buf[0])
		snprintf(buf, len, "none");
}

static void choices_list(const struct opt_spec *o, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (const char *const *c = o->choices; c && *c && used < len; c++) {
		int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", *c);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* A byte or duration value in the units a reader knows ("256 KiB", "10.00 s"); "" for other types. */
static char *fmt_value(enum opt_type type, uint64_t v, char *buf, size_t len)
{
	if (type == OPT_BYTES)
		return fmt_bytes(v, buf, len);
	if (type == OPT_DURATION)
		return fmt_duration(v, buf, len);
	buf[0] = 0;
	return buf;
}

static int range_check(const struct opt_spec *o, double v, const char *val, char *err, size_t errlen)
{
	char lo[32], hi[32];

	if (o->min == 0 && o->max == 0)
		return 0;
	if (v < o->min || v > o->max) {
		/* bytes and durations also in units: "[0, 10000000000] (0 ns .. 10.00 s)" */
		fmt_value(o->type, (uint64_t)o->min, lo, sizeof(lo));
		fmt_value(o->type, (uint64_t)o->max, hi, sizeof(hi));
		snprintf(err, errlen, "option '%s': %s is out of range [%.17g, %.17g]%s%s%s%s%s",
			 o->key, val, o->min, o->max, lo[0] ? " (" : "", lo, lo[0] ? " .. " : "", hi, lo[0] ? ")" : "");
		return -ERANGE;
	}
	return 0;
}

int opts__below(const struct opt_spec *t, const char *key, uint64_t v, uint64_t min, const char *why,
		char *err, size_t errlen)
{
	const struct opt_spec *o = opts__find(t, key);
	char m[32];

	if (!o || !fmt_value(o->type, min, m, sizeof(m))[0])
		snprintf(m, sizeof(m), "%" PRIu64, min);
	snprintf(err, errlen, "option '%s': %" PRIu64 " is below %s%s%s%s", key, v, m,
		 why ? " (" : "", why ? why : "", why ? ")" : "");
	return -EINVAL;
}

static int parse_bool(const char *s, bool *b)
{
	static const char *const yes[] = { "1", "true", "yes", "on", NULL };
	static const char *const no[] = { "0", "false", "no", "off", NULL };

	for (int i = 0; yes[i]; i++) {
		if (!strcasecmp(s, yes[i])) {
			*b = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*b = false;
			return 0;
		}
	}
	return -EINVAL;
}

static int set_one(const struct opt_spec *o, void *obj, const char *val, char *err, size_t errlen)
{
	char *p = (char *)obj + o->off;
	uint64_t u = 0;
	double d = 0;
	bool b;
	int ret;

	switch (o->type) {
	case OPT_U64:
	case OPT_U32:
		if (parse_u64(val, &u))
			goto bad;
		if ((ret = range_check(o, (double)u, val, err, errlen)))
			return ret;
		if (o->type == OPT_U32) {
			if (u > UINT32_MAX)
				goto bad;
			*(uint32_t *)p = (uint32_t)u;
		} else {
			*(uint64_t *)p = u;
		}
		return 0;
	case OPT_BYTES:
	case OPT_DURATION:
		if ((o->type == OPT_BYTES ? parse_bytes : parse_duration)(val, &u))
			goto bad;
		if ((ret = range_check(o, (double)u, val, err, errlen)))
			return ret;
		*(uint64_t *)p = u;
		return 0;
	case OPT_DOUBLE:
		if (parse_double(val, &d))
			goto bad;
		if ((ret = range_check(o, d, val, err, errlen)))
			return ret;
		*(double *)p = d;
		return 0;
	case OPT_BOOL:
		if (parse_bool(val, &b))
			goto bad;
		*(bool *)p = b;
		return 0;
	case OPT_STR:
		if (strlen(val) >= o->size) {
			snprintf(err, errlen, "option '%s': value longer than %zu characters",
				 o->key, o->size - 1);
			return -ERANGE;
		}
		memcpy(p, val, strlen(val) + 1);
		return 0;
	case OPT_ENUM:
		for (unsigned i = 0; o->choices && o->choices[i]; i++) {
			if (!strcmp(o->choices[i], val)) {
				*(unsigned *)p = i;
				return 0;
			}
		}
		{
			char list[256];

			choices_list(o, list, sizeof(list));
			snprintf(err, errlen, "option '%s': '%s' is not one of: %s", o->key, val, list);
		}
		return -EINVAL;
	default:
		break;
	}
bad:
	snprintf(err, errlen, "option '%s': '%s' is not a valid %s%s", o->key, val, type_name(o->type),
		 o->type == OPT_BYTES ? " (e.g. 4096, 64K, 2M)" :
		 o->type == OPT_DURATION ? " (e.g. 500us, 5ms, 2s, 1w)" : "");
	return -EINVAL;
}

int opts__set(const struct opt_spec *t, void *obj, const char *key, const char *val,
	      char *err, size_t errlen)
{
	const struct opt_spec *o = opts__find(t, key);

	if (!o) {
		char keys[512];

		opts__keys(t, keys, sizeof(keys));
		snprintf(err, errlen, "unknown option '%s' (known: %s)", key, keys);
		return -EINVAL;
	}
	return set_one(o, obj, val, err, errlen);
}

int opts__defaults(const struct opt_spec *t, void *obj, char *err, size_t errlen)
{
	for (; t && t->key; t++) {
		int ret;

		if (!t->def)
			continue;
		ret = set_one(t, obj, t->def, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

int opts__parse_kv(const struct opt_spec *t, void *obj, const char *list, char sep,
		   char *err, size_t errlen)
{
	char *copy, *p, *next;
	int ret = 0;

	if (!list || !*list)
		return 0;
	copy = strdup(list);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (p = copy; p; p = next) {
		char *eq;

		next = strchr(p, sep);
		if (next)
			*next++ = 0;
		while (*p == ' ')
			p++;
		if (!*p)
			continue;
		eq = strchr(p, '=');
		if (!eq) {
			snprintf(err, errlen, "option '%s': expected key=value", p);
			ret = -EINVAL;
			break;
		}
		*eq = 0;
		ret = opts__set(t, obj, p, eq + 1, err, errlen);
		if (ret)
			break;
	}
	free(copy);
	return ret;
}

static bool ignored(const char *key, const char *const *ignore)
{
	for (; ignore && *ignore; ignore++)
		if (!strcmp(*ignore, key))
			return true;
	return false;
}

int opts__apply_json(const struct opt_spec *t, void *obj, const json_t *o,
		     const char *const *ignore, char *err, size_t errlen)
{
	const char *key;
	json_t *v;

	if (!json_is_object(o)) {
		snprintf(err, errlen, "options must be a JSON object");
		return -EINVAL;
	}
	json_object_foreach((json_t *)o, key, v) {
		const struct opt_spec *s;
		char buf[64];
		const char *text = buf;
		int ret;

		if (ignored(key, ignore))
			continue;
		s = opts__find(t, key);
		if (!s)
			return opts__set(t, obj, key, "", err, errlen);
		if (json_is_string(v)) {
			text = json_string_value(v);
		} else if (json_is_boolean(v)) {
			text = json_is_true(v) ? "true" : "false";
		} else if (json_is_integer(v)) {
			if (json_integer_value(v) < 0 && s->type != OPT_DOUBLE) {
				snprintf(err, errlen, "option '%s': %" JSON_INTEGER_FORMAT " must not be negative",
					 key, json_integer_value(v));
				return -ERANGE;
			}
			snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		} else if (json_is_real(v)) {
			snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
			if (s->type == OPT_U64 || s->type == OPT_U32) {
				snprintf(err, errlen, "option '%s': %s is not an integer", key, buf);
				return -EINVAL;
			}
		} else {
			snprintf(err, errlen, "option '%s': expected a %s, got a JSON %s", key,
				 type_name(s->type), json_is_null(v) ? "null" :
				 json_is_array(v) ? "array" : "object");
			return -EINVAL;
		}
		ret = set_one(s, obj, text, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

json_t *opts__to_json(const struct opt_spec *t, const void *obj)
{
	json_t *o = json_object();

	for (; o && t && t->key; t++) {
		const char *p = (const char *)obj + t->off;
		json_t *v = NULL;

		switch (t->type) {
		case OPT_U64:
		case OPT_BYTES: v = json_integer((json_int_t)*(const uint64_t *)p); break;
		case OPT_U32: v = json_integer(*(const uint32_t *)p); break;
		case OPT_DURATION: v = json_real((double)*(const uint64_t *)p / 1e9); break;
		case OPT_DOUBLE: v = json_real(*(const double *)p); break;
		case OPT_BOOL: v = json_boolean(*(const bool *)p); break;
		case OPT_STR: v = json_string(p); break;
		case OPT_ENUM: v = json_string(t->choices[*(const unsigned *)p]); break;
		default: break;
		}
		if (v)
			json_object_set_new(o, t->key, v);
	}
	return o;
}

char *opts__format_default(const struct opt_spec *o, char *buf, size_t len)
{
	char scratch[256] __attribute__((aligned(16))) = { 0 }, err[8];
	struct opt_spec tmp = *o;

	tmp.off = 0;	/* laid out like the field, as opts__validate() parses it */
	if (o->def && set_one(&tmp, scratch, o->def, err, sizeof(err)))
		snprintf(buf, len, "%s", o->def);	/* opts__validate() refuses such a table */
	else
		opts__format(&tmp, scratch, true, buf, len);
	return buf;
}

void opts__print(const struct opt_spec *t, FILE *f, const char *indent)
{
	char def[64];

	for (; t && t->key; t++) {
		fprintf(f, "%s%-22s %-8s default %-10s %s", indent, t->key, type_name(t->type),
			opts__format_default(t, def, sizeof(def)), t->help ? t->help : "");
		if (t->type == OPT_ENUM) {
			char list[256];

			choices_list(t, list, sizeof(list));
			fprintf(f, " [%s]", list);
		}
		fputc('\n', f);
	}
}

int opts__validate(const struct opt_spec *t, char *err, size_t errlen)
{
	for (const struct opt_spec *a = t; a && a->key; a++) {
		char scratch[256] __attribute__((aligned(16)));

		for (const struct opt_spec *b = a + 1; b->key; b++) {
			if (!strcmp(a->key, b->key)) {
				snprintf(err, errlen, "option table: duplicate key '%s'", a->key);
				return -EINVAL;
			}
		}
		if (a->min > a->max) {
			snprintf(err, errlen, "option table: '%s' has min > max", a->key);
			return -EINVAL;
		}
		if (a->type == OPT_STR && (a->size == 0 || a->size > sizeof(scratch))) {
			snprintf(err, errlen, "option table: '%s' needs a size", a->key);
			return -EINVAL;
		}
		if (a->type == OPT_ENUM && !a->choices) {
			snprintf(err, errlen, "option table: '%s' has no choices", a->key);
			return -EINVAL;
		}
		if (a->def) {
			/* Parse the default into scratch space laid out like the field. */
			struct opt_spec tmp = *a;

			tmp.off = 0;
			if (set_one(&tmp, scratch, a->def, err, errlen))
				return -EINVAL;
		}
	}
	return 0;
}

char *opts__format(const struct opt_spec *o, const void *obj, bool human, char *buf, size_t len)
{
	const char *p = (const char *)obj + o->off;
	static const char units_b[] = "KMGTPE";
	static const struct { const char *u; uint64_t ns; } units_t[] = {
		{ "w", 604800000000000ull }, { "d", 86400000000000ull }, { "h", 3600000000000ull },
		{ "m", 60000000000ull }, { "s", 1000000000ull }, { "ms", 1000000ull }, { "us", 1000ull },
	};
	uint64_t v;
	int k;

	switch (o->type) {
	case OPT_U64: snprintf(buf, len, "%" PRIu64, *(const uint64_t *)p); break;
	case OPT_U32: snprintf(buf, len, "%" PRIu32, *(const uint32_t *)p); break;
	case OPT_BOOL: snprintf(buf, len, "%s", *(const bool *)p ? "true" : "false"); break;
	case OPT_DOUBLE:
		if (human)
			fig_format(FIG_NUMBER, *(const double *)p, buf, len);
		else
			snprintf(buf, len, "%.17g", *(const double *)p);
		break;
	case OPT_STR: snprintf(buf, len, "%s", human && !*p ? "-" : p); break;
	case OPT_ENUM: snprintf(buf, len, "%s", o->choices[*(const unsigned *)p]); break;
	case OPT_BYTES:
		v = *(const uint64_t *)p;
		if (human) {
			fmt_bytes(v, buf, len);
			break;
		}
		for (k = -1; v && !(v & 1023) && k < 5; k++)
			v >>= 10;
		if (k < 0)
			snprintf(buf, len, "%" PRIu64, v);
		else
			snprintf(buf, len, "%" PRIu64 "%c", v, units_b[k]);
		break;
	case OPT_DURATION:
		v = *(const uint64_t *)p;
		if (human) {
			fmt_duration(v, buf, len);
			break;
		}
		snprintf(buf, len, "%" PRIu64 "ns", v);
		for (size_t i = 0; v && i < sizeof(units_t) / sizeof(units_t[0]); i++)
			if (!(v % units_t[i].ns)) {
				snprintf(buf, len, "%" PRIu64 "%s", v / units_t[i].ns, units_t[i].u);
				break;
			}
		break;
	default: snprintf(buf, len, "?"); break;
	}
	return buf;
}
