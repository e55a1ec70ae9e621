/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structure-aware mutation for the libFuzzer harnesses (LLVMFuzzerCustomMutator).
 * Byte-level mutation of a binary trace dies at the checksum (or the record
 * count) and never reaches what consumes the values; these mutators change
 * one meaningful thing (a header field, a record field, a record inserted,
 * dropped or moved) and then write the file back whole: header length,
 * record count and checksum recomputed, so the reader accepts the shape and
 * the mutated value travels on into policies, models and exporters.
 *
 * Values come from a table of edges (0, 1, 512, 2^31, 2^32 - 1, 2^52, 2^55 + 8,
 * 2^63 - 1, 2^63, 2^64 - 1, ...), from the device the header describes (its
 * size, partition start, the bytes around its end) and from the old value
 * (+-1, doubled, a bit flipped). One mutation in eight is libFuzzer's own on
 * the record bytes (checksum fixed after), one in 32 leaves the checksum or
 * footer wrong on purpose, so those paths stay covered too.
 *
 * Each harness includes this file and defines LLVMFuzzerCustomMutator with the
 * mutator for its input (fm_trace_mutate, fm_jsonl_body_mutate, ...).
 */
#ifndef TRIMSIM_FUZZ_MUTATE_H
#define TRIMSIM_FUZZ_MUTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "traces/trace.h"
#include "traces/trace_int.h"
#include "traces/util.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* TRIMSIM_FUZZ_RAW=1: libFuzzer's byte mutation only (to compare what the structure buys). */
static inline bool fm_raw(void)
{
	const char *v = getenv("TRIMSIM_FUZZ_RAW");

	return v && *v == '1';
}

/* ---- randomness: libFuzzer's seed, a xorshift64* stream ---- */
struct fm_rng {
	uint64_t s;
};

static inline uint64_t fm_next(struct fm_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

static inline uint64_t fm_below(struct fm_rng *r, uint64_t n)
{
	return n ? fm_next(r) % n : 0;
}

static inline void fm_seed(struct fm_rng *r, unsigned seed)
{
	r->s = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed << 17 | seed);
	if (!r->s)
		r->s = 1;
	fm_next(r);
}

/* Edges where arithmetic on trace values breaks: powers of two, sector and block sizes, type limits. */
static const uint64_t fm_edges[] = {
	0, 1, 2, 3, 7, 8, 15, 16, 255, 256, 511, 512, 513, 1023, 1024, 4095, 4096, 4097, 8192, 32768,
	65535, 65536, 65537, 1ull << 20, (1ull << 20) + 1, 1ull << 30, 1ull << 31, (1ull << 31) + 512,
	(1ull << 32) - 1, 1ull << 32, (1ull << 32) + 1, 2199023255040ull, 1ull << 40, 1ull << 44, 1ull << 48,
	1ull << 52, 1ull << 55, (1ull << 55) + 8, 1ull << 60, 1ull << 62, (1ull << 63) - 4096,
	(1ull << 63) - 1, 1ull << 63, (1ull << 63) + 1, UINT64_MAX - 4096, UINT64_MAX - 1, UINT64_MAX,
};
#define FM_NEDGES (sizeof(fm_edges) / sizeof(fm_edges[0]))

/* A new value for a field that held old; ref is a related value (a device size), 0 if none. */
static inline uint64_t fm_value(struct fm_rng *r, uint64_t old, uint64_t ref)
{
	switch (fm_below(r, 8)) {
	case 0: case 1: case 2: return fm_edges[fm_below(r, FM_NEDGES)];
	case 3: return old + 1 - 2 * fm_below(r, 2);
	case 4: return old ^ (1ull << fm_below(r, 64));
	case 5: return ref ? ref - fm_below(r, 2) * 4096 + fm_below(r, 3) * 512 - 512 : old * 2;
	case 6: return fm_below(r, 2) ? old * 2 : old / 2;
	default: return fm_next(r) >> fm_below(r, 64);
	}
}

/* ---- the binary trace, taken apart and put back ---- */
struct fm_trace {
	json_t *h;			/* header object */
	struct ts_record *rec;		/* host order (the harnesses run little-endian) */
	size_t n, cap;
	uint64_t lost, end_ns;
	bool footer;
	unsigned version;		/* the format version it came in, written back the same (its checksum) */
};

static inline void fm_trace_free(struct fm_trace *t)
{
	json_decref(t->h);
	free(t->rec);
	memset(t, 0, sizeof(*t));
}

static inline uint32_t fm_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* 0 if d is a little-endian trimsim binary trace whose header JSON parses. */
static inline int fm_trace_parse(const uint8_t *d, size_t size, struct fm_trace *t)
{
	uint32_t hlen, jlen;
	size_t end;

	memset(t, 0, sizeof(*t));
	if (size < TS_FIXED_HDR || (fm_le32(d) & ~0xffu) != TS_MAGIC_BASE || (fm_le32(d) & 0xffu) < TS_VERSION_MIN ||
	    (fm_le32(d) & 0xffu) > TS_VERSION)
		return -1;
	t->version = fm_le32(d) & 0xffu;
	hlen = fm_le32(d + 4);
	jlen = fm_le32(d + 12);
	if (hlen < TS_FIXED_HDR || hlen > size || jlen > hlen - TS_FIXED_HDR)
		return -1;
	t->h = json_loadb((const char *)d + TS_FIXED_HDR, jlen, 0, NULL);
	if (!json_is_object(t->h)) {
		fm_trace_free(t);
		return -1;
	}
	end = hlen + (size - hlen) / TS_RECORD_SIZE * TS_RECORD_SIZE;
	if (end - hlen >= TS_RECORD_SIZE && d[end - TS_RECORD_SIZE + 44] == TS_KIND_FOOTER) {
		struct ts_footer ft;

		memcpy(&ft, d + end - TS_RECORD_SIZE, sizeof(ft));
		t->footer = true;
		t->lost = ft.lost;
		t->end_ns = ft.end_ns;
		end -= TS_RECORD_SIZE;
	}
	t->n = t->cap = (end - hlen) / TS_RECORD_SIZE;
	t->rec = malloc((t->cap + 1) * sizeof(*t->rec));
	if (!t->rec) {
		fm_trace_free(t);
		return -1;
	}
	memcpy(t->rec, d + hlen, t->n * sizeof(*t->rec));
	return 0;
}

/*
 * Writes t as a complete trace (or, with broken, one whose footer or checksum
 * is wrong) into out; drops records from the end until it fits max. Returns
 * the size, 0 if even the header does not fit.
 */
static inline size_t fm_trace_write(const struct fm_trace *t, uint8_t *out, size_t max, int broken)
{
	char *json = json_dumps(t->h, JSON_SORT_KEYS | JSON_COMPACT);
	size_t jlen, hlen, n = t->n, size;
	struct ts_footer ft = { 0 };
	struct ts_sum sum;
	uint32_t v;

	if (!json)
		return 0;
	jlen = strlen(json);
	hlen = (TS_FIXED_HDR + jlen + 7) & ~(size_t)7;
	if (hlen + TS_RECORD_SIZE > max) {
		free(json);
		return 0;
	}
	while (n && hlen + (n + 1) * TS_RECORD_SIZE > max)
		n--;
	memset(out, 0, hlen);
	v = TS_MAGIC_BASE | (t->version ? t->version : TS_VERSION);
	memcpy(out, &v, 4);
	v = (uint32_t)hlen;
	memcpy(out + 4, &v, 4);
	v = TS_RECORD_SIZE;
	memcpy(out + 8, &v, 4);
	v = (uint32_t)jlen;
	memcpy(out + 12, &v, 4);
	memcpy(out + TS_FIXED_HDR, json, jlen);
	free(json);
	memcpy(out + hlen, t->rec, n * TS_RECORD_SIZE);
	size = hlen + n * TS_RECORD_SIZE;
	if (broken == 1)	/* cut short: no footer */
		return size;
	ts_sum_start(&sum, t->version ? t->version : TS_VERSION, out, hlen);
	ts_sum_update(&sum, out + hlen, size - hlen);
	ft.records = n;
	ft.lost = t->lost;
	ft.checksum = ts_sum_final(&sum) ^ (broken == 2);
	ft.end_ns = t->end_ns;
	ft.magic = TS_FOOTER_MAGIC;
	ft.kind = TS_KIND_FOOTER;
	memcpy(out + size, &ft, sizeof(ft));
	return size + TS_RECORD_SIZE;
}

/* ---- header: the device table ---- */
static const char *const fm_dev_u64[] = {
	"size", "logical_block_size", "physical_block_size", "partition_start", "discard_granularity",
	"discard_max_bytes", "max_discard_segments", "fs_block_size", "xfs_agblocks",
};
static const char *const fm_fs[] = { "xfs", "ext4", "btrfs", "f2fs", "ufs", "", "zfs" };
static const char *const fm_devs[] = { "7:0", "8:1", "259:0", "0:0", "4095:1048575", " 7:+0", "7:00", "7:-0" };
static const char *const fm_strs[] = {
	"/mnt/x", "", "\x1b[2J\x1b]0;owned\x07", "a\nb\tc", "\xc2\x9b\x33\x31m", "caf\xc3\xa9", "/mnt/\x7f",
};

#define FM_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* devices[k] of the header, made (with a dev) if the table has fewer entries. */
static inline json_t *fm_device(json_t *h, size_t k)
{
	json_t *arr = json_object_get(h, "devices"), *d;

	if (!json_is_array(arr)) {
		arr = json_array();
		json_object_set_new(h, "devices", arr);
	}
	while (json_array_size(arr) <= k) {
		d = json_object();
		json_object_set_new(d, "name", json_string("loop7"));
		json_object_set_new(d, "dev", json_string("7:0"));
		json_array_append_new(arr, d);
	}
	return json_array_get(arr, k);
}

static inline uint64_t fm_dev_get(const json_t *d, const char *key)
{
	json_t *v = json_object_get(d, key);

	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* JSON holds integers up to 2^63 - 1: larger values go in as the string they print as (a type error to check). */
static inline json_t *fm_json_u64(uint64_t v)
{
	char buf[24];

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return json_string(buf);
}

static inline void fm_header_mutate(struct fm_rng *r, json_t *h)
{
	json_t *arr = json_object_get(h, "devices");
	size_t n = json_array_size(arr), k = n && fm_below(r, 8) ? fm_below(r, n) : n ? fm_below(r, n + 1) : 0;
	json_t *d = fm_device(h, k);
	const char *key;

	switch (fm_below(r, 10)) {
	case 0:
		json_object_set_new(d, "fs", json_string(fm_fs[fm_below(r, FM_NELEM(fm_fs))]));
		return;
	case 1:
		json_object_set_new(d, "dev", json_string(fm_devs[fm_below(r, FM_NELEM(fm_devs))]));
		return;
	case 2:
		key = fm_below(r, 2) ? "mount" : "name";
		json_object_set_new(d, key, json_string(fm_strs[fm_below(r, FM_NELEM(fm_strs))]));
		return;
	case 3:
		json_object_del(d, fm_dev_u64[fm_below(r, FM_NELEM(fm_dev_u64))]);
		return;
	case 4:	/* a second device: the same dev (a contradiction) or another */
		if (n < 8)
			json_array_append_new(json_object_get(h, "devices"), json_deep_copy(d));
		return;
	default:
		key = fm_dev_u64[fm_below(r, FM_NELEM(fm_dev_u64))];
		json_object_set_new(d, key, fm_json_u64(fm_value(r, fm_dev_get(d, key), fm_dev_get(d, "size"))));
		return;
	}
}

/* ---- records ---- */
static inline const json_t *fm_some_device(struct fm_rng *r, const json_t *h)
{
	const json_t *arr = json_object_get(h, "devices");

	return json_array_size(arr) ? json_array_get(arr, fm_below(r, json_array_size(arr))) : NULL;
}

static inline void fm_record_field(struct fm_rng *r, const json_t *h, struct ts_record *x)
{
	const json_t *d = fm_some_device(r, h);
	uint64_t size = fm_dev_get(d, "size"), start = fm_dev_get(d, "partition_start");
	uint32_t dev;

	switch (fm_below(r, 11)) {
	case 0: x->time_ns = fm_value(r, x->time_ns, 0); break;
	case 1: x->offset = fm_value(r, x->offset, start + size); break;
	case 2: x->length = fm_value(r, x->length, size); break;
	case 3:	/* an extent right at (or across) the end of a device */
		x->offset = start + size - fm_below(r, 3) * 4096;
		x->length = fm_below(r, 3) * 4096 + fm_below(r, 2);
		break;
	case 4: x->latency_ns = fm_value(r, x->latency_ns, 0); break;
	case 5: x->ino = fm_value(r, x->ino, 0); break;
	case 6:
		if (d && !ts_dev_parse(json_string_value(json_object_get(d, "dev")) ?: "", &dev))
			x->dev = dev;
		else
			x->dev = (uint32_t)fm_next(r);
		break;
	case 7: x->kind = fm_below(r, 16) ? (uint8_t)(1 + fm_below(r, TS_KIND_MAX)) : (uint8_t)fm_next(r); break;
	case 8: x->op = fm_below(r, 16) ? (uint8_t)fm_below(r, 8) : (uint8_t)fm_next(r); break;
	case 9: x->flags = (uint16_t)((x->flags & ~TS_F_FS_MASK) | fm_below(r, 16)); break;
	default: x->flags ^= (uint16_t)(1u << fm_below(r, 16)); break;
	}
}

static inline void fm_records_mutate(struct fm_rng *r, struct fm_trace *t, size_t max_records)
{
	size_t i = fm_below(r, t->n ? t->n : 1);
	struct ts_record x;

	switch (t->n ? fm_below(r, 8) : 5) {
	case 0: case 1: case 2: case 3:
		fm_record_field(r, t->h, &t->rec[i]);
		return;
	case 4:	/* drop one */
		memmove(t->rec + i, t->rec + i + 1, (t->n - i - 1) * sizeof(x));
		t->n--;
		return;
	case 5: case 6:	/* a copy of one (or a fresh one), changed, somewhere */
		if (t->n >= max_records)
			return;
		if (t->n == t->cap) {
			struct ts_record *n = realloc(t->rec, (t->cap * 2 + 2) * sizeof(*n));

			if (!n)
				return;
			t->rec = n;
			t->cap = t->cap * 2 + 1;
		}
		if (t->n)
			x = t->rec[i];
		else
			x = (struct ts_record){ .time_ns = 1000, .length = 4096, .kind = TS_FREE, .flags = TS_FS_XFS };
		fm_record_field(r, t->h, &x);
		i = fm_below(r, t->n + 1);
		memmove(t->rec + i + 1, t->rec + i, (t->n - i) * sizeof(x));
		t->rec[i] = x;
		t->n++;
		return;
	default: {	/* move one */
		size_t j = fm_below(r, t->n);

		x = t->rec[i];
		t->rec[i] = t->rec[j];
		t->rec[j] = x;
		return;
	}
	}
}

/*
 * The mutator for a binary trace at data[skip..size) (skip: bytes a harness
 * keeps in front, fuzz_replay's selector). Anything that is not a trace is
 * left to libFuzzer's own mutation.
 */
static inline size_t fm_trace_mutate(uint8_t *data, size_t size, size_t max, unsigned seed, size_t skip)
{
	struct fm_rng r;
	struct fm_trace t;
	uint8_t *out;
	size_t n;
	int how;

	fm_seed(&r, seed);
	if (size < skip || max <= skip || fm_below(&r, 16) == 0 || fm_trace_parse(data + skip, size - skip, &t))
		return LLVMFuzzerMutate(data, size, max);
	if (skip && fm_below(&r, 8) == 0)
		data[0] = (uint8_t)fm_next(&r);
	how = (int)fm_below(&r, 16);
	if (how < 5) {
		fm_header_mutate(&r, t.h);
	} else if (how < 14) {
		for (uint64_t k = 1 + fm_below(&r, 3); k; k--)
			fm_records_mutate(&r, &t, (max - skip) / TS_RECORD_SIZE);
	} else if (how == 14 && t.n) {	/* libFuzzer's own mutation, inside the records */
		size_t bytes = t.n * sizeof(*t.rec);

		LLVMFuzzerMutate((uint8_t *)t.rec, bytes, bytes);
	} else {
		t.end_ns = fm_value(&r, t.end_ns, 0);
	}
	out = malloc(max - skip);
	n = out ? fm_trace_write(&t, out, max - skip, fm_below(&r, 32) ? 0 : 1 + (int)fm_below(&r, 2)) : 0;
	if (n) {
		memcpy(data + skip, out, n);
		n += skip;
	}
	free(out);
	fm_trace_free(&t);
	return n ? n : LLVMFuzzerMutate(data, size, max);
}

/* ---- JSON Lines: record lines and the footer, its count kept right ---- */

/* Odd spellings of fields the parser must refuse or take (the fast path and jansson's). */
static const char *const fm_flag_words[] = {
	"xfs|ext4", "ext4|ufs", "xfs|0x2", "0x3|0x1", "xfs|xfs", "fitrim|sync", "0x8000", "ext4|", "|xfs",
	" 1", "+1", "-0", "0x10000", "snap-end|metadata|error",
};

/* One record line for r: canonical, or with one field spelled oddly. */
static inline char *fm_jsonl_line(struct fm_rng *r, const struct ts_record *x)
{
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *o;

	if (!f)
		return NULL;
	if (ts_jsonl_write_record(f, x) || fclose(f)) {
		free(buf);
		return NULL;
	}
	if (fm_below(r, 4))
		return buf;
	o = json_loads(buf, 0, NULL);
	free(buf);
	if (!o)
		return NULL;
	switch (fm_below(r, 6)) {
	case 0: json_object_set_new(o, "flags", json_string(fm_flag_words[fm_below(r, FM_NELEM(fm_flag_words))]));
		break;
	case 1: json_object_set_new(o, "dev", json_string(fm_devs[fm_below(r, FM_NELEM(fm_devs))])); break;
	case 2: json_object_set_new(o, "kind", json_string(fm_strs[fm_below(r, FM_NELEM(fm_strs))])); break;
	case 3: json_object_set_new(o, "off", fm_json_u64(fm_value(r, x->offset, 0))); break;
	case 4: json_object_set_new(o, "flags", json_integer((json_int_t)fm_below(r, 0x20000))); break;
	default: json_object_del(o, "ino"); break;
	}
	p = json_dumps(o, JSON_COMPACT | (fm_below(r, 2) ? JSON_SORT_KEYS : JSON_PRESERVE_ORDER));
	json_decref(o);
	if (p && fm_below(r, 4) == 0) {	/* a duplicate key, which jansson would take last-wins */
		char *q = NULL;

		if (asprintf(&q, "{\"len\":4096,%s", p + 1) < 0)
			q = NULL;
		free(p);
		p = q;
	}
	return p;
}

/*
 * The body of a JSON Lines trace (the lines after the header, as fuzz_jsonl
 * takes it): record lines parsed back to records, mutated as records are,
 * written again with a footer whose count matches (or, rarely, does not).
 */
static inline size_t fm_jsonl_body_mutate(uint8_t *data, size_t size, size_t max, unsigned seed,
					  const char *hdr_line)
{
	struct fm_rng r;
	struct fm_trace t = { 0 };
	char *text, *save = NULL, *line, *out = NULL;
	size_t olen = 0, n = 0;
	json_t *top;
	FILE *f;

	fm_seed(&r, seed);
	if (fm_below(&r, 8) == 0 || !(text = strndup((const char *)data, size)))
		return LLVMFuzzerMutate(data, size, max);
	top = json_loads(hdr_line, 0, NULL);
	t.h = json_object_get(top, "header");	/* the devices records are placed on */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct ts_record x;
		char why[200];

		if (!strncmp(line, "{\"footer\"", 9) || ts_jsonl_parse_record(line, strlen(line), &x, why, sizeof(why)))
			continue;
		if (t.n == t.cap) {
			struct ts_record *nr = realloc(t.rec, (t.cap * 2 + 2) * sizeof(*nr));

			if (!nr)
				break;
			t.rec = nr;
			t.cap = t.cap * 2 + 2;
		}
		t.rec[t.n++] = x;
	}
	free(text);
	for (uint64_t k = 1 + fm_below(&r, 3); k; k--)
		fm_records_mutate(&r, &t, 256);
	f = open_memstream(&out, &olen);
	for (size_t i = 0; f && i < t.n; i++) {
		char *l = fm_jsonl_line(&r, &t.rec[i]);

		if (l)
			fprintf(f, "%s\n", l);
		free(l);
	}
	if (f && fm_below(&r, 32))
		fprintf(f, "{\"footer\":{\"records\":%zu,\"lost\":0,\"end_ns\":%llu}}\n", t.n + (fm_below(&r, 64) == 0),
			(unsigned long long)(fm_below(&r, 2) ? 0 : fm_value(&r, 0, 0) >> 1));
	if (f)
		fclose(f);
	json_decref(top);
	free(t.rec);
	if (out && olen <= max) {
		memcpy(data, out, olen);
		n = olen;
	}
	free(out);
	return n ? n : LLVMFuzzerMutate(data, size, max);
}

/*
 * A whole JSON Lines trace (fuzz_reader takes either form): the header line's
 * device table mutated as a binary header's is, or the body as above.
 */
static inline size_t fm_jsonl_file_mutate(uint8_t *data, size_t size, size_t max, unsigned seed)
{
	struct fm_rng r;
	const uint8_t *nl = memchr(data, '\n', size);
	char *hdr, *body_out = NULL, *line = NULL;
	size_t hlen, blen, n = 0;
	json_t *top;

	fm_seed(&r, seed);
	if (!nl)
		return LLVMFuzzerMutate(data, size, max);
	hlen = (size_t)(nl - data) + 1;
	if (!(hdr = strndup((const char *)data, hlen)))
		return 0;
	top = json_loads(hdr, 0, NULL);
	if (json_is_object(json_object_get(top, "header")) && fm_below(&r, 3) == 0) {
		fm_header_mutate(&r, json_object_get(top, "header"));
		line = json_dumps(top, JSON_COMPACT | JSON_SORT_KEYS);
	}
	if (line && strlen(line) + 1 + (size - hlen) <= max) {	/* new header, same body */
		memmove(data + strlen(line) + 1, data + hlen, size - hlen);
		memcpy(data, line, strlen(line));
		data[strlen(line)] = '\n';
		n = strlen(line) + 1 + (size - hlen);
	} else if (!line && (body_out = malloc(max)) && max > hlen) {	/* same header, new body */
		memcpy(body_out, data + hlen, size - hlen);
		blen = fm_jsonl_body_mutate((uint8_t *)body_out, size - hlen, max - hlen, (unsigned)fm_next(&r), hdr);
		memcpy(data + hlen, body_out, blen);
		n = hlen + blen;
	}
	free(line);
	free(body_out);
	free(hdr);
	json_decref(top);
	return n ? n : LLVMFuzzerMutate(data, size, max);
}

#endif
