// SPDX-License-Identifier: GPL-2.0
/*
 * The format version 2 checksum (traces/FORMAT.md, "Checksum, version 2"):
 * a second implementation written from the spec alone, pinned vectors, every
 * vector form against the scalar one, what it detects, and the reader and
 * convert with both versions.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/helpers.h"
#include "tests/traces/gen.h"
#include "traces/trace.h"
#include "traces/trace_int.h"

TestSuite(checksum, .init = th_dir_init, .fini = th_dir_fini);

/* ---- FORMAT.md, read literally ---- */

#define K1 0x9e3779b97f4a7c15ull
#define K2 0xd6e8feb86659fd93ull
#define SEED 0x54524d0054524d00ull

static uint64_t ref_fold(uint64_t a)
{
	unsigned __int128 p = (unsigned __int128)a * K1;

	return (uint64_t)(p >> 64) ^ (uint64_t)p;
}

/* Little-endian whatever the host. */
static uint64_t ref_le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

/* Version 1 over n bytes (n a multiple of 8). */
static uint64_t ref_v1(const unsigned char *b, size_t n)
{
	uint64_t lane[4] = { SEED, SEED + 1, SEED + 2, SEED + 3 }, h = SEED;

	for (size_t i = 0; i < n / 8; i++)
		lane[i % 4] = ref_fold(lane[i % 4] ^ ref_le64(b + 8 * i) ^ K2);
	for (int j = 0; j < 4; j++)
		h = ref_fold(h ^ lane[j] ^ K2);
	return ref_fold(h ^ n);
}

static uint64_t ref_key(unsigned i)
{
	uint64_t z = 0x54524d0254524d02ull + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t ref_scr(uint64_t a, uint64_t k)
{
	return ((a ^ (a >> 47)) ^ k) * 0x9e3779b1ull;
}

/* Version 2 of a header of hlen bytes and nrec records. */
static uint64_t ref_v2(const unsigned char *hdr, size_t hlen, const unsigned char *rec, size_t nrec)
{
	uint64_t P[4] = { 0 }, W[4] = { 0 }, h = ref_v1(hdr, hlen);

	for (size_t r = 0; r < nrec; r++) {
		for (unsigned j = 0; j < 6; j++) {
			unsigned q = (unsigned)(r % 16) * 6 + j;
			uint64_t w = ref_le64(rec + 48 * r + 8 * j), x = w ^ ref_key(q);

			P[q % 4] += (x & 0xffffffffu) * (x >> 32);
			W[q % 4] += w;
		}
		if ((r + 1) % 16 == 0)
			for (unsigned l = 0; l < 4; l++) {
				P[l] = ref_scr(P[l], ref_key(96 + l));
				W[l] = ref_scr(W[l], ref_key(100 + l));
			}
	}
	for (int j = 0; j < 4; j++)
		h = ref_fold(h ^ P[j] ^ K2);
	for (int j = 0; j < 4; j++)
		h = ref_fold(h ^ W[j] ^ K2);
	return ref_fold(h ^ nrec);
}

/* ---- the library ---- */

static uint64_t lib_v2(const unsigned char *hdr, size_t hlen, const unsigned char *rec, size_t nrec)
{
	struct ts_sum s;

	ts_sum_start(&s, 2, hdr, hlen);
	ts_sum_update(&s, rec, nrec * TS_RECORD_SIZE);
	return ts_sum_final(&s);
}

static void fill_random(unsigned char *b, size_t n, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;

	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(gen_rand(&s) >> 17);
}

/* n valid records (gen.h's, a little shuffled by seed) at p. */
static void fill_records(unsigned char *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		struct ts_record r;

		gen_record(i + seed * 1000, seed, &r);
		r.flags &= 0x0fff;	/* the flags the vectors were fixed on, before TS_F_WORKLOAD */
		ts_record_to_le(&r);
		memcpy(p + i * TS_RECORD_SIZE, &r, sizeof(r));
	}
}

#define HLEN 64

/* Known values: the spec's, fixed here so that neither implementation drifts with the other. */
Test(checksum, known_vectors)
{
	static const struct { size_t nrec; uint64_t seed, want; } v[] = {
		{ 0, 1, 0x7ae616acb8816997ull },
		{ 1, 1, 0xee622b17f7dacf6cull },
		{ 16, 2, 0xb7feb832210a61fcull },
		{ 37, 3, 0x1b19230a3d5251feull },
	};
	unsigned char hdr[HLEN], rec[37 * TS_RECORD_SIZE];

	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		fill_random(hdr, sizeof(hdr), v[k].seed);
		fill_records(rec, v[k].nrec, v[k].seed);
		cr_assert_eq(ref_v2(hdr, HLEN, rec, v[k].nrec), v[k].want, "vector %zu: reference %016llx", k,
			     (unsigned long long)ref_v2(hdr, HLEN, rec, v[k].nrec));
		cr_assert_eq(lib_v2(hdr, HLEN, rec, v[k].nrec), v[k].want, "vector %zu: library %016llx", k,
			     (unsigned long long)lib_v2(hdr, HLEN, rec, v[k].nrec));
	}
}

/* Any bytes, any record count, any split into updates: the library is the spec. */
Test(checksum, matches_reference_and_splits)
{
	unsigned char hdr[HLEN + 8], rec[70 * TS_RECORD_SIZE];

	for (size_t n = 0; n <= 70; n++) {
		uint64_t want;

		fill_random(hdr, sizeof(hdr), n);
		fill_random(rec, sizeof(rec), n + 100);
		want = ref_v2(hdr, HLEN + (n % 2) * 8, rec, n);
		cr_assert_eq(lib_v2(hdr, HLEN + (n % 2) * 8, rec, n), want, "%zu records", n);
		for (size_t cut = 0; cut <= n; cut += 3) {
			struct ts_sum s;

			ts_sum_start(&s, 2, hdr, HLEN + (n % 2) * 8);
			ts_sum_update(&s, rec, cut * TS_RECORD_SIZE);
			ts_sum_update(&s, rec + cut * TS_RECORD_SIZE, (n - cut) * TS_RECORD_SIZE);
			cr_assert_eq(ts_sum_final(&s), want, "%zu records cut at %zu", n, cut);
		}
	}
	/* version 1 through ts_sum_start is version 1 of header and records together */
	{
		struct ts_sum s;

		fill_random(rec, sizeof(rec), 7);
		ts_sum_start(&s, 1, rec, HLEN);
		ts_sum_update(&s, rec + HLEN, 10 * TS_RECORD_SIZE);
		cr_assert_eq(ts_sum_final(&s), ref_v1(rec, HLEN + 10 * TS_RECORD_SIZE));
	}
}

/* Makes the record at p fail ts_record_ok, one of its tests chosen by how. */
static void spoil(unsigned char *p, unsigned how)
{
	switch (how % 6) {
	case 0: p[44] = TS_KIND_FOOTER; break;		/* not a record kind */
	case 1: p[45] = 8; break;			/* op 8 */
	case 2: p[7] |= 0x80; break;			/* time past 2^63 - 1 */
	case 3: p[39] |= 0x80; break;			/* latency */
	case 4: p[15] = p[23] = 0x40; break;		/* offset + length past 2^63 - 1 */
	default: p[44] = 0; break;			/* kind 0 */
	}
}

/*
 * The fused check + sum, in every form this CPU runs, against the scalar form
 * and the spec: every record count up to 70, starting at every position in a
 * block (records summed before), at every 8-byte alignment of the buffer, with
 * no bad record or one at a chosen place; each form must stop at the same
 * record and give the same checksum.
 */
Test(checksum, isa_forms_agree)
{
	enum { MAXN = 70, PHASES = 18 };
	unsigned char hdr[HLEN], *base = aligned_alloc(64, (MAXN + 2) * TS_RECORD_SIZE + 64), pre[PHASES * TS_RECORD_SIZE];
	unsigned char tmpl[MAXN * TS_RECORD_SIZE];
	unsigned forms = 0;

	cr_assert_not_null(base);
	fill_random(hdr, sizeof(hdr), 5);
	fill_records(pre, PHASES, 9);
	for (int isa = 0; isa < TS_ISA_N; isa++) {
		if (!ts_sum_isa_ok((enum ts_sum_isa)isa))
			continue;
		forms++;
		for (size_t n = 0; n <= MAXN; n++)
			for (size_t ph = 0; ph < PHASES; ph++) {
				fill_records(tmpl, n, n + ph);
				for (size_t al = 0; al < 64; al += 8)
					for (int b = 0; b < 3; b++) {
						unsigned char *p = base + al;
						size_t bad = b == 0 ? n : b == 1 ? (n * 7 + ph) % (n + 1) : n ? n - 1 : 0;
						struct ts_sum s1, s2;
						size_t got1, got2;

						memcpy(p, tmpl, n * TS_RECORD_SIZE);
						if (bad < n)
							spoil(p + bad * TS_RECORD_SIZE, (unsigned)(b * 7 + n + ph));
						ts_sum_start(&s1, 2, hdr, HLEN);
						ts_sum_update(&s1, pre, ph * TS_RECORD_SIZE);
						s2 = s1;
						got1 = ts_sum2_records_isa(&s1, p, n, NULL, TS_ISA_SCALAR);
						got2 = ts_sum2_records_isa(&s2, p, n, NULL, (enum ts_sum_isa)isa);
						cr_assert_eq(got1, bad < n ? bad : n, "%s: n %zu phase %zu",
							     ts_sum_isa_name(TS_ISA_SCALAR), n, ph);
						cr_assert_eq(got2, got1, "%s: n %zu phase %zu align %zu bad %zu: %zu, scalar %zu",
							     ts_sum_isa_name((enum ts_sum_isa)isa), n, ph, al, bad, got2, got1);
						cr_assert_eq(ts_sum_final(&s2), ts_sum_final(&s1),
							     "%s: n %zu phase %zu align %zu bad %zu",
							     ts_sum_isa_name((enum ts_sum_isa)isa), n, ph, al, bad);
						if (al == 0 && b == 0 && ph == 0)
							cr_assert_eq(ts_sum_final(&s1), ref_v2(hdr, HLEN, p, n));
					}
			}
	}
	cr_assert_geq(forms, 1);
	free(base);
}

/*
 * The fused check + sum + device span (the reader's hot path for format
 * version 2): records of one device placed in [lo, hi), then one record made
 * to fail ts_record_ok or the span (another dev, an offset below lo, an end
 * past hi), or placed exactly at its edges (which pass). Every form this CPU
 * runs must stop where the definition does (the first record failing
 * ts_record_ok or ts_span_ok) and hold the same checksum; none may stop on a
 * record that passes. Three spans: a partition (lo > 0: the forms that test
 * lo), the same from byte 0 (the forms for lo == 0) and a device of unknown
 * size (hi = TS_MAX_BYTES), where a record past 4 EiB is valid (the vector
 * forms send it to the definition) and one ending past 2^63 is not.
 */
#define SPAN_LO (1ull << 30)
#define SPAN_HI (2ull << 30)
#define SPAN_DEV TS_DEV_MK(259, 3)

static void set_u64(unsigned char *p, uint64_t v)
{
	for (int k = 0; k < 8; k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

/*
 * How the record at p is changed: 0..5 spoil() (ts_record_ok), 6..9 the span, 10..12 the span's edges (pass),
 * 13..14 past 4 EiB; returns whether it fails with the partition's span.
 */
static bool span_spoil(unsigned char *p, unsigned how)
{
	uint64_t len = 8192;

	switch (how) {
	case 6: p[40] ^= 1; return true;					/* another dev */
	case 7: set_u64(p + 8, SPAN_LO - 4096); return true;			/* below lo */
	case 8: set_u64(p + 8, SPAN_HI - len + 512); set_u64(p + 16, len); return true;	/* past hi */
	case 9: set_u64(p + 8, SPAN_LO - 4096); set_u64(p + 16, 0); return true;	/* no bytes, below lo */
	case 10: set_u64(p + 8, SPAN_HI - len); set_u64(p + 16, len); return false;	/* ends at hi */
	case 11: set_u64(p + 8, SPAN_LO); return false;				/* starts at lo */
	case 12: set_u64(p + 8, SPAN_HI); set_u64(p + 16, 0); return false;	/* no bytes, at hi */
	case 13: set_u64(p + 8, (1ull << 62) + SPAN_LO); set_u64(p + 16, len); return true;	/* past 4 EiB */
	case 14: set_u64(p + 8, 3ull << 61); set_u64(p + 16, 1ull << 62); return true;	/* ends past 2^63 */
	default: spoil(p, how); return true;
	}
}

/* Puts every record of p[0..n) on the span's device, inside it. */
static void place_in_span(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char *q = p + i * TS_RECORD_SIZE;
		uint64_t off = 0;

		for (int k = 7; k >= 0; k--)
			off = off << 8 | q[8 + k];
		set_u64(q + 8, SPAN_LO + off);
		for (int k = 0; k < 4; k++)
			q[40 + k] = (unsigned char)(SPAN_DEV >> (8 * k));
	}
}

/* The first record of p[0..n) that fails ts_record_ok (sp NULL) or also ts_span_ok: the definitions. */
static size_t first_failing(const unsigned char *p, size_t n, const struct ts_span *sp)
{
	for (size_t i = 0; i < n; i++) {
		const struct ts_record *r = (const struct ts_record *)(p + i * TS_RECORD_SIZE);

		if (!ts_record_ok(r) || (sp && !ts_span_ok(r, sp)))
			return i;
	}
	return n;
}

Test(checksum, span_forms_agree)
{
	enum { MAXN = 40, PHASES = 17, HOWS = 15 };
	const struct ts_span spans[] = {
		{ .lo = SPAN_LO, .hi = SPAN_HI, .dev = SPAN_DEV },
		{ .lo = 0, .hi = SPAN_HI, .dev = SPAN_DEV },
		{ .lo = 0, .hi = TS_MAX_BYTES, .dev = SPAN_DEV },
	};
	unsigned char hdr[HLEN], *p = aligned_alloc(64, MAXN * TS_RECORD_SIZE), pre[PHASES * TS_RECORD_SIZE];
	unsigned forms = 0;

	cr_assert_not_null(p);
	fill_random(hdr, sizeof(hdr), 6);
	fill_records(pre, PHASES, 10);
	for (int isa = 0; isa < TS_ISA_N; isa++) {
		if (!ts_sum_isa_ok((enum ts_sum_isa)isa))
			continue;
		forms++;
		for (size_t spi = 0; spi < sizeof(spans) / sizeof(spans[0]); spi++)
			for (size_t n = 0; n <= MAXN; n++)
				for (size_t ph = 0; ph < PHASES; ph += 3)
					for (unsigned how = 0; how <= HOWS; how++) {
						size_t at = n ? (n * 5 + ph + how) % n : 0, want = n;
						struct ts_sum s1, s2, s3;
						size_t got1, got2, got3;

						fill_records(p, n, n + ph + how);
						place_in_span(p, n);
						if (how < HOWS && n && span_spoil(p + at * TS_RECORD_SIZE, how))
							want = at;
						/* the partition's span: as span_spoil says (and the definitions); the others: as they say */
						if (spi)
							want = first_failing(p, n, &spans[spi]);
						else
							cr_assert_eq(want, first_failing(p, n, &spans[0]), "how %u", how);
						ts_sum_start(&s1, 2, hdr, HLEN);
						ts_sum_update(&s1, pre, ph * TS_RECORD_SIZE);
						s3 = s2 = s1;
						got1 = ts_sum2_records_isa(&s1, p, n, &spans[spi], TS_ISA_SCALAR);
						got2 = ts_sum2_records_isa(&s2, p, n, &spans[spi], (enum ts_sum_isa)isa);
						got3 = ts_sum2_records_isa(&s3, p, n, NULL, (enum ts_sum_isa)isa);
						cr_assert_eq(got1, want, "scalar: span %zu n %zu phase %zu how %u at %zu: %zu", spi, n,
							     ph, how, at, got1);
						cr_assert_eq(got2, want, "%s: span %zu n %zu phase %zu how %u at %zu: %zu",
							     ts_sum_isa_name((enum ts_sum_isa)isa), spi, n, ph, how, at, got2);
						cr_assert_eq(ts_sum_final(&s2), ts_sum_final(&s1),
							     "%s: span %zu n %zu phase %zu how %u",
							     ts_sum_isa_name((enum ts_sum_isa)isa), spi, n, ph, how);
						/* without the span, only ts_record_ok stops it */
						cr_assert_eq(got3, (how < 6 || how == 14) && n ? at : n,
							     "%s without span: n %zu how %u", ts_sum_isa_name((enum ts_sum_isa)isa),
							     n, how);
						cr_assert_eq(got3, first_failing(p, n, NULL));
					}
	}
	cr_assert_geq(forms, 1);
	free(p);
}

/*
 * Every (kind, op) byte pair, in one record among valid ones, through every
 * form with and without a span: each must stop where ts_record_ok does (the
 * vector forms look kind and op up in ts_valid_kind_op and test op < 8 in the
 * vectors; this holds that table to ts_valid_ops) and hold the scalar form's
 * checksum.
 */
Test(checksum, kind_op_forms_agree)
{
	enum { N = 8, AT = 5 };
	const struct ts_span spans[] = {
		{ .lo = SPAN_LO, .hi = SPAN_HI, .dev = SPAN_DEV },
		{ .lo = 0, .hi = SPAN_HI, .dev = SPAN_DEV },
	};
	unsigned char hdr[HLEN], p[N * TS_RECORD_SIZE];
	unsigned valid = 0;

	fill_random(hdr, sizeof(hdr), 7);
	for (unsigned ko = 0; ko < 65536; ko++) {
		const struct ts_span *sp = ko % 3 ? &spans[ko % 3 - 1] : NULL;
		size_t want;
		struct ts_sum s1;

		fill_records(p, N, ko % 5);
		place_in_span(p, N);
		p[AT * TS_RECORD_SIZE + 44] = (unsigned char)ko;
		p[AT * TS_RECORD_SIZE + 45] = (unsigned char)(ko >> 8);
		want = first_failing(p, N, sp);
		cr_assert(want == N || want == AT, "kind %u op %u: %zu", ko & 0xff, ko >> 8, want);
		valid += want == N;
		ts_sum_start(&s1, 2, hdr, HLEN);
		cr_assert_eq(ts_sum2_records_isa(&s1, p, N, sp, TS_ISA_SCALAR), want);
		for (int isa = 1; isa < TS_ISA_N; isa++) {
			struct ts_sum s2;

			if (!ts_sum_isa_ok((enum ts_sum_isa)isa))
				continue;
			ts_sum_start(&s2, 2, hdr, HLEN);
			cr_assert_eq(ts_sum2_records_isa(&s2, p, N, sp, (enum ts_sum_isa)isa), want,
				     "%s: kind %u op %u span %d", ts_sum_isa_name((enum ts_sum_isa)isa), ko & 0xff, ko >> 8,
				     sp ? (int)(sp - spans) : -1);
			cr_assert_eq(ts_sum_final(&s2), ts_sum_final(&s1), "%s: kind %u op %u",
				     ts_sum_isa_name((enum ts_sum_isa)isa), ko & 0xff, ko >> 8);
		}
	}
	cr_assert_eq(valid, 6 * (TS_OP_MAX + 1) + TS_META_MAX, "valid (kind, op) pairs");
}

/* What it must detect: a flipped bit anywhere, two words swapped, a record dropped, two records swapped. */
Test(checksum, detects_corruption)
{
	enum { N = 40, WORDS = N * 6 };
	unsigned char hdr[HLEN], rec[N * TS_RECORD_SIZE], v[N * TS_RECORD_SIZE];
	uint64_t whole;

	fill_random(hdr, sizeof(hdr), 11);
	fill_records(rec, N, 4);
	whole = lib_v2(hdr, HLEN, rec, N);
	for (size_t bit = 0; bit < sizeof(rec) * 8; bit++) {
		memcpy(v, rec, sizeof(rec));
		v[bit / 8] ^= (unsigned char)(1u << bit % 8);
		cr_assert_neq(lib_v2(hdr, HLEN, v, N), whole, "bit %zu flipped", bit);
	}
	for (size_t bit = 0; bit < sizeof(hdr) * 8; bit++) {
		hdr[bit / 8] ^= (unsigned char)(1u << bit % 8);
		cr_assert_neq(lib_v2(hdr, HLEN, rec, N), whole, "header bit %zu flipped", bit);
		hdr[bit / 8] ^= (unsigned char)(1u << bit % 8);
	}
	for (size_t i = 0; i < WORDS; i++)
		for (size_t j = i + 1; j < WORDS; j++) {
			if (!memcmp(rec + 8 * i, rec + 8 * j, 8))
				continue;	/* equal words: nothing changed */
			memcpy(v, rec, sizeof(rec));
			memcpy(v + 8 * i, rec + 8 * j, 8);
			memcpy(v + 8 * j, rec + 8 * i, 8);
			cr_assert_neq(lib_v2(hdr, HLEN, v, N), whole, "words %zu and %zu swapped", i, j);
		}
	for (size_t d = 0; d < N; d++) {
		memcpy(v, rec, d * TS_RECORD_SIZE);
		memcpy(v + d * TS_RECORD_SIZE, rec + (d + 1) * TS_RECORD_SIZE, (N - 1 - d) * TS_RECORD_SIZE);
		cr_assert_neq(lib_v2(hdr, HLEN, v, N - 1), whole, "record %zu dropped", d);
	}
	for (size_t i = 0; i < N; i++)
		for (size_t j = i + 1; j < N; j++) {
			memcpy(v, rec, sizeof(rec));
			memcpy(v + i * TS_RECORD_SIZE, rec + j * TS_RECORD_SIZE, TS_RECORD_SIZE);
			memcpy(v + j * TS_RECORD_SIZE, rec + i * TS_RECORD_SIZE, TS_RECORD_SIZE);
			cr_assert_neq(lib_v2(hdr, HLEN, v, N), whole, "records %zu and %zu swapped", i, j);
		}
}

/* ---- through the reader and convert ---- */

static char *read_err(const char *path)
{
	char err[512] = "";
	struct trace_reader *r = trace_reader__open(path, err, sizeof(err));
	const struct ts_record *recs;
	ssize_t n;
	char *msg;

	if (!r)
		return strdup(err);
	while ((n = trace_reader__batch(r, &recs, 4096)) > 0)
		;
	msg = strdup(n < 0 ? trace_reader__error(r) : "");
	trace_reader__close(r);
	return msg;
}

/* A wrong checksum in either version: the same one line, naming the footer's checksum field. */
Test(checksum, reader_rejects_wrong_checksum_in_both_versions)
{
	const enum trace_writer_format fmts[] = { TW_BINARY, TW_BINARY_V1 };

	for (size_t f = 0; f < 2; f++) {
		char path[512], want[700], *msg;
		unsigned char *b;
		size_t len;

		snprintf(path, sizeof(path), "%s/c%zu.tsim", th_dir(), f);
		cr_assert_eq(gen_trace(path, 100, fmts[f], 0), 0);
		b = (unsigned char *)th_slurp(path, &len);
		cr_assert_not_null(b);
		cr_assert_eq(b[0], f ? 1 : TS_VERSION);
		msg = read_err(path);
		cr_assert_str_eq(msg, "", "%s", msg);
		free(msg);
		b[len - 48 - 48 + 24] ^= 1;	/* the last record's inode: still a valid record */
		cr_assert_eq(th_write(path, b, len), 0);
		msg = read_err(path);
		snprintf(want, sizeof(want), "%s: byte %zu: checksum mismatch (footer ", path, len - 48 + 16);
		cr_assert(!strncmp(msg, want, strlen(want)), "version %d: %s", f ? 1 : 2, msg);
		free(msg);
		free(b);
	}
}

Test(checksum, reader_refuses_unknown_versions)
{
	char path[512], *msg;
	unsigned char *b;
	size_t len;

	snprintf(path, sizeof(path), "%s/v.tsim", th_dir());
	cr_assert_eq(gen_trace(path, 3, TW_BINARY, 0), 0);
	b = (unsigned char *)th_slurp(path, &len);
	cr_assert_not_null(b);
	for (unsigned v = 0; v < 5; v += 3) {	/* 0 and 3 */
		char want[700];

		b[0] = (unsigned char)v;
		cr_assert_eq(th_write(path, b, len), 0);
		msg = read_err(path);
		snprintf(want, sizeof(want), "%s: byte 0: unsupported format version %u (this trimsim reads 1..2)", path, v);
		cr_assert_str_eq(msg, want);
		free(msg);
	}
	free(b);
}

/* convert --format-version: 1 for older readers, 2 back, byte for byte; info names the version. */
Test(checksum, convert_format_version)
{
	char a[512], b[512], c[512], cmd[4096], *out = NULL, *err = NULL, *x, *y;
	size_t la, lb;

	snprintf(a, sizeof(a), "%s/a.tsim", th_dir());
	snprintf(b, sizeof(b), "%s/b.tsim", th_dir());
	snprintf(c, sizeof(c), "%s/c.tsim", th_dir());
	cr_assert_eq(gen_trace(a, 6000, TW_BINARY, 3), 0);
	snprintf(cmd, sizeof(cmd), "%s convert --format-version 1 %s %s && %s convert %s %s", th_trimsim(), a, b,
		 th_trimsim(), b, c);
	cr_assert_eq(th_run(cmd, NULL, &err), 0, "%s", err);
	free(err);
	x = th_slurp(a, &la);
	y = th_slurp(b, &lb);
	cr_assert(x && y && la == lb);
	cr_assert_eq(x[0], 2);
	cr_assert_eq(y[0], 1);
	cr_assert_eq(memcmp(x + 1, y + 1, la - 48 - 1), 0, "only the magic and the checksum differ");
	cr_assert_neq(memcmp(x + la - 48, y + la - 48, 48), 0);
	free(y);
	y = th_slurp(c, &lb);
	cr_assert(y && la == lb && !memcmp(x, y, la), "version 2 -> 1 -> 2 is byte-identical");
	free(x);
	free(y);
	snprintf(cmd, sizeof(cmd), "%s info %s", th_trimsim(), b);
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert(strstr(out, "(binary, little-endian, format version 1)\n"), "%s", out);
	cr_assert(strstr(out, "status:   complete, checksum ok\n"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s info --json %s", th_trimsim(), a);
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_assert(strstr(out, "\"format_version\": 2"), "%s", out);
	free(out);
	/* refused: a version this trimsim does not write, and a version for JSON Lines */
	snprintf(cmd, sizeof(cmd), "%s convert --format-version 3 %s %s/d.tsim", th_trimsim(), a, th_dir());
	cr_assert_eq(th_run(cmd, NULL, &err), 2);
	cr_assert(strstr(err, "option '--format-version': '3' is not 1 or 2"), "%s", err);
	free(err);
	snprintf(cmd, sizeof(cmd), "%s convert --format-version 1 %s %s/d.jsonl", th_trimsim(), a, th_dir());
	cr_assert_eq(th_run(cmd, NULL, &err), 2);
	cr_assert(strstr(err, "JSON Lines output has no format version"), "%s", err);
	free(err);
	snprintf(cmd, sizeof(cmd), "ls %s/d.*", th_dir());
	cr_assert_neq(th_run(cmd, NULL, NULL), 0, "nothing written");
}
