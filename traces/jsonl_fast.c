// SPDX-License-Identifier: GPL-2.0
/*
 * Fast path for one JSON Lines record: a flat object with exactly the nine
 * record fields, integers without sign/fraction/exponent, strings without
 * escapes. Anything else (or anything wrong) returns -1 and the caller
 * parses the line with jansson, which accepts the rest of JSON and words
 * the error. So this path decides nothing on its own: it only skips
 * jansson's per-line allocations for the lines our writer produces.
 */
#include <string.h>

#include "traces/trace.h"
#include "traces/trace_int.h"
#include "traces/util.h"

struct cur {
	const char *p, *end;
};

static void skip_ws(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static bool eat(struct cur *c, char ch)
{
	skip_ws(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/* A string without escapes or control characters, copied into buf. */
static bool str(struct cur *c, char *buf, size_t len)
{
	const char *s;
	size_t n;

	if (!eat(c, '"'))
		return false;
	s = c->p;
	while (c->p < c->end && *c->p != '"') {
		if (*c->p == '\\' || (unsigned char)*c->p < 0x20)
			return false;
		c->p++;
	}
	n = (size_t)(c->p - s);
	if (c->p == c->end || n >= len)
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	c->p++;
	return true;
}

/* Decimal digits, no leading zero; limit is the largest value accepted. */
static bool digits(const char *s, size_t n, uint64_t limit, uint64_t *out)
{
	uint64_t v = 0;

	if (!n || (n > 1 && s[0] == '0'))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9 || v > (limit - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* A bare integer up to 2^63 - 1 (what jansson holds) or a string of digits. */
static bool u64(struct cur *c, uint64_t *out)
{
	char buf[24];
	const char *s;

	skip_ws(c);
	if (c->p < c->end && *c->p == '"')
		return str(c, buf, sizeof(buf)) && digits(buf, strlen(buf), UINT64_MAX, out);
	s = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
		c->p++;
	if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E'))
		return false;
	return digits(s, (size_t)(c->p - s), INT64_MAX, out);
}

enum { F_T, F_KIND, F_OP, F_DEV, F_OFF, F_LEN, F_INO, F_LAT, F_FLAGS, F_N };
static const char *const keys[F_N] = { "t", "kind", "op", "dev", "off", "len", "ino", "lat", "flags" };

static int key_index(const char *k)
{
	for (int i = 0; i < F_N; i++)
		if (!strcmp(k, keys[i]))
			return i;
	return -1;
}

int ts_jsonl_fast(const char *line, size_t len, struct ts_record *r)
{
	struct cur c = { line, line + len };
	char kind[16] = "", op[16] = "", dev[24] = "", flags[96] = "", key[8];
	unsigned seen = 0, fl;
	int k, o;

	memset(r, 0, sizeof(*r));
	if (!eat(&c, '{'))
		return -1;
	for (int n = 0; n < F_N; n++) {
		bool ok;
		int i;

		if ((n && !eat(&c, ',')) || !str(&c, key, sizeof(key)) || !eat(&c, ':'))
			return -1;
		i = key[0] == keys[n][0] && !strcmp(key, keys[n]) ? n : key_index(key);	/* the writer's order first */
		if (i < 0 || (seen & (1u << i)))
			return -1;
		seen |= 1u << i;
		switch (i) {
		case F_T: ok = u64(&c, &r->time_ns); break;
		case F_OFF: ok = u64(&c, &r->offset); break;
		case F_LEN: ok = u64(&c, &r->length); break;
		case F_INO: ok = u64(&c, &r->ino); break;
		case F_LAT: ok = u64(&c, &r->latency_ns); break;
		case F_KIND: ok = str(&c, kind, sizeof(kind)); break;
		case F_OP: ok = str(&c, op, sizeof(op)); break;
		case F_DEV: ok = str(&c, dev, sizeof(dev)); break;
		default: ok = str(&c, flags, sizeof(flags)); break;
		}
		if (!ok)
			return -1;
	}
	if (!eat(&c, '}'))
		return -1;
	skip_ws(&c);
	if (c.p != c.end)
		return -1;
	k = ts_kind_from_name(kind);
	o = k == TS_META ? ts_meta_from_name(op) : ts_op_from_name(op);
	if (k < 0 || o < 0 || ts_dev_parse(dev, &r->dev) || ts_flags_parse(flags, &fl))
		return -1;
	r->kind = (uint8_t)k;
	r->op = (uint8_t)o;
	r->flags = (uint16_t)fl;
	return ts_record_check(r, NULL, 0) ? -1 : 0;
}
