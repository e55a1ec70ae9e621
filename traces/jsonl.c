// SPDX-License-Identifier: GPL-2.0
/*
 * JSON Lines form of a record (traces/FORMAT.md, "JSON Lines"):
 * {"t":..,"kind":"DONE","op":"discard","dev":"8:0","off":..,"len":..,"ino":..,"lat":..,"flags":"xfs|sync"}
 * kind and op are names (op is the META subtype name for META records),
 * flags a '|'-joined list of names with unknown bits as one hex number.
 * Numbers above 2^63-1 are written as decimal strings (jansson's integers are signed).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "traces/trace.h"
#include "traces/trace_int.h"
#include "traces/util.h"

static const struct {
	const char *name;
	unsigned bit;
} flag_names[] = {
	{ "fitrim", TS_F_FITRIM }, { "sync", TS_F_SYNC }, { "fua", TS_F_FUA },
	{ "preflush", TS_F_PREFLUSH }, { "error", TS_F_ERROR }, { "metadata", TS_F_METADATA },
	{ "snap-end", TS_F_SNAP_END }, { "prealloc", TS_F_PREALLOC },
	{ "workload", TS_F_WORKLOAD },
};
#define NFLAGS (sizeof(flag_names) / sizeof(flag_names[0]))

char *ts_flags_str(unsigned flags, char *buf, size_t len)
{
	unsigned fs = flags & TS_F_FS_MASK, rest = flags & ~TS_F_FS_MASK;
	size_t used = 0;

	buf[0] = 0;
	if (fs && ts_fs_name(fs)) {
		used += (size_t)snprintf(buf + used, len - used, "%s", ts_fs_name(fs));
		fs = 0;
	}
	for (size_t i = 0; i < NFLAGS && used < len; i++) {
		if (!(rest & flag_names[i].bit))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "|" : "", flag_names[i].name);
		rest &= ~flag_names[i].bit;
	}
	if ((rest | fs) && used < len)
		snprintf(buf + used, len - used, "%s0x%x", used ? "|" : "", rest | fs);
	return buf;
}

/*
 * The inverse of ts_flags_str(). The filesystem nibble holds one value, so
 * it may come from one token only: "xfs|ext4" (which an OR would turn into
 * btrfs) or "ext4|0x2" is a contradiction (-EEXIST), not a flag set.
 * -EINVAL for anything that is not a list of flag names and hex numbers.
 */
int ts_flags_parse(const char *s, unsigned *flags)
{
	unsigned f = 0;
	bool fs_set = false;

	while (*s) {
		const char *end = strchr(s, '|');
		size_t n = end ? (size_t)(end - s) : strlen(s);
		char tok[32];
		unsigned v = 0;
		bool found = false;

		if (!n || n >= sizeof(tok))
			return -EINVAL;
		memcpy(tok, s, n);
		tok[n] = 0;
		for (size_t i = 0; i < NFLAGS && !found; i++)
			if (!strcmp(tok, flag_names[i].name)) {
				v = flag_names[i].bit;
				found = true;
			}
		if (!found && ts_fs_from_name(tok) > 0) {
			v = (unsigned)ts_fs_from_name(tok);
			found = true;
		}
		if (!found) {
			char *e;
			unsigned long x = strtoul(tok, &e, 0);

			if (*e || tok[0] < '0' || tok[0] > '9' || x > 0xffff)
				return -EINVAL;
			v = (unsigned)x;
		}
		if (v & TS_F_FS_MASK) {
			if (fs_set)
				return -EEXIST;
			fs_set = true;
		}
		f |= v;
		s += n;
		if (*s == '|' && !*++s)
			return -EINVAL;
	}
	*flags = f;
	return 0;
}

static int put_u64(FILE *f, const char *key, uint64_t v, bool comma)
{
	const char *q = v > INT64_MAX ? "\"" : "";

	return fprintf(f, "%s\"%s\":%s%" PRIu64 "%s", comma ? "," : "", key, q, v, q);
}

int ts_jsonl_write_record(FILE *f, const struct ts_record *r)
{
	const char *op = r->kind == TS_META ? ts_meta_name(r->op) : ts_op_name(r->op);
	char dev[24], flags[128];

	if (fputc('{', f) == EOF || put_u64(f, "t", r->time_ns, false) < 0 ||
	    fprintf(f, ",\"kind\":\"%s\",\"op\":\"%s\",\"dev\":\"%s\"", ts_kind_name(r->kind), op ? op : "?",
		    ts_dev_str(r->dev, dev, sizeof(dev))) < 0 ||
	    put_u64(f, "off", r->offset, true) < 0 || put_u64(f, "len", r->length, true) < 0 ||
	    put_u64(f, "ino", r->ino, true) < 0 || put_u64(f, "lat", r->latency_ns, true) < 0 ||
	    fprintf(f, ",\"flags\":\"%s\"}", ts_flags_str(r->flags, flags, sizeof(flags))) < 0)
		return -EIO;
	return 0;
}

enum rf { RF_T, RF_KIND, RF_OP, RF_DEV, RF_OFF, RF_LEN, RF_INO, RF_LAT, RF_FLAGS, RF_N };
static const char *const rf_keys[RF_N] = { "t", "kind", "op", "dev", "off", "len", "ino", "lat", "flags" };

static const char *jtype_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

static int parse_u64_dec(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static int get_u64(const json_t *v, const char *key, uint64_t *out, char *err, size_t errlen)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v) && parse_u64_dec(json_string_value(v), out) == 0)
		return 0;
	return ts_errf(err, errlen, -EBADMSG, "field \"%s\": expected a non-negative integer, got %s%s", key,
		       json_is_integer(v) ? "a negative integer" : jtype_name(v),
		       json_is_string(v) ? " that is not a number" : "");
}

static int get_str(const json_t *v, const char *key, const char **out, char *err, size_t errlen)
{
	if (!json_is_string(v))
		return ts_errf(err, errlen, -EBADMSG, "field \"%s\": expected a string, got %s", key, jtype_name(v));
	*out = json_string_value(v);
	return 0;
}

static int fill_record(json_t *v[RF_N], struct ts_record *r, char *err, size_t errlen)
{
	const char *kind, *op, *dev, *flags;
	char esc[96];
	unsigned fl;
	int k, o, ret;

	if (get_u64(v[RF_T], "t", &r->time_ns, err, errlen) || get_u64(v[RF_OFF], "off", &r->offset, err, errlen) ||
	    get_u64(v[RF_LEN], "len", &r->length, err, errlen) || get_u64(v[RF_INO], "ino", &r->ino, err, errlen) ||
	    get_u64(v[RF_LAT], "lat", &r->latency_ns, err, errlen) ||
	    get_str(v[RF_KIND], "kind", &kind, err, errlen) || get_str(v[RF_OP], "op", &op, err, errlen) ||
	    get_str(v[RF_DEV], "dev", &dev, err, errlen))
		return -EBADMSG;
	k = ts_kind_from_name(kind);
	if (k < 0)
		return ts_errf(err, errlen, -EBADMSG, "unknown kind \"%s\"", ts_escape(kind, esc, sizeof(esc)));
	o = k == TS_META ? ts_meta_from_name(op) : ts_op_from_name(op);
	if (o < 0)
		return ts_errf(err, errlen, -EBADMSG, "unknown %s \"%s\"", k == TS_META ? "META subtype" : "op",
			       ts_escape(op, esc, sizeof(esc)));
	if (ts_dev_parse(dev, &r->dev))
		return ts_errf(err, errlen, -EBADMSG, "field \"dev\": \"%s\" is not major:minor",
			       ts_escape(dev, esc, sizeof(esc)));
	if (json_is_integer(v[RF_FLAGS]) && json_integer_value(v[RF_FLAGS]) >= 0 &&
	    json_integer_value(v[RF_FLAGS]) <= 0xffff) {
		fl = (unsigned)json_integer_value(v[RF_FLAGS]);
	} else if (get_str(v[RF_FLAGS], "flags", &flags, err, errlen)) {
		return -EBADMSG;
	} else if ((ret = ts_flags_parse(flags, &fl))) {
		return ts_errf(err, errlen, -EBADMSG, "field \"flags\": \"%s\" %s", ts_escape(flags, esc, sizeof(esc)),
			       ret == -EEXIST ? "names two filesystems" : "is not a list of flag names");
	}
	r->kind = (uint8_t)k;
	r->op = (uint8_t)o;
	r->flags = (uint16_t)fl;
	return ts_record_check(r, err, errlen);
}

int ts_jsonl_parse_record(const char *line, size_t len, struct ts_record *r, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *o, *v[RF_N], *val;
	const char *key;
	int ret = -EBADMSG;

	if (!ts_jsonl_fast(line, len, r))
		return 0;
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	memset(r, 0, sizeof(*r));
	if (!o) {
		char esc[200];

		return ts_errf(err, errlen, -EBADMSG, "invalid JSON: %s", ts_escape(jerr.text, esc, sizeof(esc)));
	}
	if (!json_is_object(o)) {
		ts_errf(err, errlen, -EBADMSG, "expected a record object, got %s", jtype_name(o));
		goto out;
	}
	for (int i = 0; i < RF_N; i++) {
		v[i] = json_object_get(o, rf_keys[i]);
		if (!v[i]) {
			ts_errf(err, errlen, -EBADMSG, "missing field \"%s\"", rf_keys[i]);
			goto out;
		}
	}
	json_object_foreach(o, key, val) {
		int i = 0;

		while (i < RF_N && strcmp(key, rf_keys[i]))
			i++;
		if (i == RF_N) {
			char esc[96];

			ts_errf(err, errlen, -EBADMSG, "unknown field \"%s\"", ts_escape(key, esc, sizeof(esc)));
			goto out;
		}
	}
	ret = fill_record(v, r, err, errlen);
out:
	json_decref(o);
	return ret;
}
