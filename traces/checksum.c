// SPDX-License-Identifier: GPL-2.0
/*
 * The trace checksums (traces/FORMAT.md, "Checksum"): format version 1's
 * four multiply chains over the file's bytes, and version 2's block sums,
 * built for wide vectors: a scalar form that defines it (and runs on every
 * host, either byte order), and SSE2 and AVX2 forms of the reader's fused
 * check + sum, chosen at run time. ts_sum_* pick the form by s->version.
 */
#include <string.h>

#include "traces/trace.h"
#include "traces/trace_int.h"

/*
 * ---- format version 1 ----
 * FORMAT.md, "Checksum, version 1": the covered bytes are 8-byte little-endian words
 * (a short last word zero-padded); word i updates lane i % 4 as
 * lane = fold((lane ^ w ^ K2) * K1), where fold() xors the high and low
 * halves of the 128-bit product. The four lanes start at SEED + lane number
 * and are independent, so four multiplies are in flight at once (a single
 * chain waits on each multiply's latency). The result chains the lanes in
 * order and then the byte count n: h = SEED; h = fold(h ^ lane[j] ^ K2) for
 * j = 0..3; checksum = fold(h ^ n). Still one multiply per word.
 */
#define SUM_K1 0x9e3779b97f4a7c15ull
#define SUM_K2 0xd6e8feb86659fd93ull
#define SUM_SEED 0x54524d0054524d00ull

static inline uint64_t sum_fold(uint64_t a)
{
	unsigned __int128 p = (unsigned __int128)a * SUM_K1;
	uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;

	return hi ^ lo;
}

static inline uint64_t load_le64(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return TS_HOST_BIG_ENDIAN ? __builtin_bswap64(w) : w;
}

void ts_sum_init(struct ts_sum *s)
{
	memset(s, 0, sizeof(*s));
	s->version = 1;
	for (unsigned j = 0; j < TS_SUM_LANES; j++)
		s->lane[j] = SUM_SEED + j;
	s->n = 0;
}

/*
 * One lane step: fold(lane ^ w ^ K2), with t = w ^ K2 taken first so that
 * only one xor, the multiply and the fold sit on the lane's dependency chain
 * (the chain's latency is what bounds the checksum; the loads and xors off it
 * overlap with the other lanes and with the record checks). The empty asm
 * keeps t whole: without it GCC 12 re-associates the xors to (lane ^ w) ^ K2
 * and puts both on the chain, 7 cycles a step instead of 6 (1 xor, a 4-cycle
 * multiply, 1 xor on Zen 5): 3.5 vs 2.95 ns a record, BENCHMARKS.md.
 */
static inline uint64_t sum_step(uint64_t a, const unsigned char *p)
{
	uint64_t t = load_le64(p) ^ SUM_K2;

	__asm__("" : "+r"(t));
	return sum_fold(a ^ t);
}
#define SUM_STEP(a, p) ((a) = sum_step((a), (p)))

/* The hot loop: whole 32-byte blocks, word k of each to a[k]. Returns the bytes consumed. */
static __attribute__((noinline)) size_t sum_blocks(uint64_t *a, const unsigned char *p, size_t len)
{
	uint64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
	size_t i;

	for (i = 0; i + 32 <= len; i += 32) {
		SUM_STEP(a0, p + i);
		SUM_STEP(a1, p + i + 8);
		SUM_STEP(a2, p + i + 16);
		SUM_STEP(a3, p + i + 24);
	}
	a[0] = a0;
	a[1] = a1;
	a[2] = a2;
	a[3] = a3;
	return i;
}

/* Sums len bytes; word k of buf goes to lane (first + k) % 4. */
static void sum1_update(struct ts_sum *s, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	unsigned first = (unsigned)((s->n + 7) / 8 % TS_SUM_LANES), k;
	uint64_t a[TS_SUM_LANES];
	size_t i;

	for (k = 0; k < TS_SUM_LANES; k++)
		a[k] = s->lane[(first + k) % TS_SUM_LANES];
	i = sum_blocks(a, p, len);
	for (k = 0; i < len; i += 8, k++) {
		unsigned char tail[8] = { 0 };

		memcpy(tail, p + i, len - i < 8 ? len - i : 8);
		a[k] = sum_fold(a[k] ^ load_le64(tail) ^ SUM_K2);
	}
	for (k = 0; k < TS_SUM_LANES; k++)
		s->lane[(first + k) % TS_SUM_LANES] = a[k];
	s->n += len;
}

/*
 * The reader's hot path for a file in host byte order: checks whole records
 * (ts_record_ok) and sums the ones that pass, in one pass over the bytes
 * while they are in L1. Two records are 12 words, three turns of the four
 * lanes, so a pair starts on the same lane as the one before it; both are
 * checked before either is summed, and the checks do not depend on the lane
 * chains, so they run in the multiplies' shadow. The loop asks for the bytes
 * 1 KiB ahead: +5% measured when it sums straight from the page cache through
 * a mapping (the hardware prefetcher stops at each 4 KiB page), neither gain
 * nor loss from the reader's read() buffer, which the copy left in L2. Stops
 * before the first record that fails (a footer fails: its kind is not a
 * record kind).
 */
#define SUM_PREFETCH 1024
static size_t sum1_records(struct ts_sum *s, const unsigned char *p, size_t nrec)
{
	unsigned first = (unsigned)(s->n / 8 % TS_SUM_LANES), k;
	uint64_t a0, a1, a2, a3;
	size_t i = 0;

	a0 = s->lane[first];
	a1 = s->lane[(first + 1) % TS_SUM_LANES];
	a2 = s->lane[(first + 2) % TS_SUM_LANES];
	a3 = s->lane[(first + 3) % TS_SUM_LANES];
	for (; i + 2 <= nrec; i += 2) {
		const unsigned char *q = p + i * TS_RECORD_SIZE;
		unsigned ok;

		__builtin_prefetch(q + SUM_PREFETCH);
		ok = ts_record_ok((const struct ts_record *)q);
		ok &= ts_record_ok((const struct ts_record *)(q + TS_RECORD_SIZE));
		if (!ok)
			break;
		SUM_STEP(a0, q);
		SUM_STEP(a1, q + 8);
		SUM_STEP(a2, q + 16);
		SUM_STEP(a3, q + 24);
		SUM_STEP(a0, q + 32);
		SUM_STEP(a1, q + 40);
		SUM_STEP(a2, q + 48);
		SUM_STEP(a3, q + 56);
		SUM_STEP(a0, q + 64);
		SUM_STEP(a1, q + 72);
		SUM_STEP(a2, q + 80);
		SUM_STEP(a3, q + 88);
	}
	s->lane[first] = a0;
	s->lane[(first + 1) % TS_SUM_LANES] = a1;
	s->lane[(first + 2) % TS_SUM_LANES] = a2;
	s->lane[(first + 3) % TS_SUM_LANES] = a3;
	s->n += i * TS_RECORD_SIZE;
	/* The last odd record, or the pair that failed, one record at a time. */
	for (k = 0; k < 2 && i < nrec; k++, i++) {
		const unsigned char *q = p + i * TS_RECORD_SIZE;

		if (!ts_record_ok((const struct ts_record *)q))
			break;
		sum1_update(s, q, TS_RECORD_SIZE);
	}
	return i;
}

static uint64_t sum1_final(const struct ts_sum *s)
{
	uint64_t h = SUM_SEED;

	for (unsigned j = 0; j < TS_SUM_LANES; j++)
		h = sum_fold(h ^ s->lane[j] ^ SUM_K2);
	return sum_fold(h ^ s->n);
}


/*
 * ---- format version 2 ----
 * FORMAT.md, "Checksum, version 2". The records are taken in blocks of
 * SUM2_BLOCK; word q of a block (record q / 6, word q % 6) goes to lane q % 4:
 *   x = w ^ KEY[q];  P[lane] += lo32(x) * hi32(x);  W[lane] += w   (mod 2^64)
 * and at each block's end every lane is scrambled (a bijection):
 *   P[l] = scr(P[l], KEY[96 + l]), W[l] = scr(W[l], KEY[100 + l]),
 *   scr(a, k) = ((a ^ (a >> 47)) ^ k) * 0x9e3779b1.
 * Within a block it is a sum, so any split of the work and any vector width
 * gives the same value; the per-word keys make the sum depend on where each
 * word sits, the scramble on which block it sits in. The
 * checksum chains the header's hash H (version 1's checksum of the header
 * bytes), the eight lanes and the record count N through version 1's fold:
 *   h = H; h = fold(h ^ P[j] ^ K2), j = 0..3; then the same for W[j]; fold(h ^ N).
 */
#define SUM2_BLOCK 16u				/* records per block */
#define SUM2_WORDS (SUM2_BLOCK * TS_RECORD_SIZE / 8)	/* 96 keyed word positions */
#define SUM2_MUL 0x9e3779b1ull			/* the scramble's multiplier (odd) */

/*
 * KEY[0..103]: splitmix64's outputs 1..104 from the seed 0x54524d0254524d02
 * (z = seed + i * 0x9e3779b97f4a7c15; z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9;
 * z = (z ^ z >> 27) * 0x94d049bb133111eb; z ^ z >> 31): 96 word keys, 4 for
 * the P lanes' scramble, 4 for the W lanes'. tests/traces/test_checksum.c
 * computes them again.
 */
static const uint64_t sum2_key[SUM2_WORDS + 8] __attribute__((aligned(64))) = {
	0x93dfbffd25d38960ull, 0x7c04e2e4e6973db2ull, 0xc4de6fcd36a3d99aull, 0x24c2c5ac31674bd3ull,
	0x39dba74d7e234a37ull, 0x657a5018a6478f1cull, 0x286f97b04147c0e8ull, 0x313dd0baaf2a4c3dull,
	0x793f0810644496f8ull, 0xab6f7b2a0538de45ull, 0x75edc7e5a9786d6bull, 0xb052186bd0348810ull,
	0x5d3ba9f979fbc5fdull, 0xfe9e07f838e56150ull, 0x05924d8c7e1d4648ull, 0x0c9fe249407cd827ull,
	0xc161cd3c2c2b7665ull, 0xcdc7cbd5be5a2140ull, 0x241dba6d9c64bcd9ull, 0x8644c1efff9e28a9ull,
	0xe567b1891e7656ceull, 0xa73467efedad9936ull, 0x1b6145f93acf6a11ull, 0x3d9cd0abfabd09dbull,
	0x5d75da5ff003f461ull, 0x4df6adbe30dd298dull, 0x0d003d965b41e2b0ull, 0x4e069aceae9c2ebeull,
	0x8017b28c88f90d83ull, 0x2db07787c8b4db2dull, 0x555f0b8b11b925e5ull, 0xcd45f64bec574a6aull,
	0xe9fcd5d00b375faeull, 0xc6737f0db9143a58ull, 0x4ad8dac95f57f74aull, 0x5b73c3b564d76b5full,
	0x5bebe7817a0af4f9ull, 0x495c25b49f3a27c2ull, 0xa0dd3819bfa4f83cull, 0xdd901496797efc67ull,
	0x4e53cba86159d89aull, 0x0e7501e713778c6eull, 0x7cfcc84d2d252fc0ull, 0x6ac976f0dc7cb8b2ull,
	0xb159215520995374ull, 0xf3e5afea80cd7f22ull, 0x1ad11f7eec8488f8ull, 0x326e975099ca2f19ull,
	0x87c245da3be63a76ull, 0x89f8415824776cdeull, 0x9a84eef85ce6acfcull, 0x195ecce3ee7ffddaull,
	0x143a690bb248d92eull, 0x0ca95c08ad464117ull, 0x6c0b41edd4edc865ull, 0x308a490cfb025829ull,
	0x7cb070c7eddc6483ull, 0xec64740784e6f010ull, 0x927d2d7db59b81d9ull, 0xee3c8893f1079aebull,
	0xf9e66f65cfcbbb11ull, 0xc22440b194504048ull, 0x7eec1d371e2c4eceull, 0xb96aeb078b799465ull,
	0x7c652d56200abcb8ull, 0x3dbb144936dff8daull, 0x81681674252f062bull, 0x7e356c6b5864ab27ull,
	0xcae809ab58ce8c1bull, 0x255ab4ccd935619cull, 0x4810c6d3430df9cbull, 0xe6bb34a473b5bf2bull,
	0xc11ec50bdbe9cb09ull, 0xc29faec52350d476ull, 0x7cb4b4690ccf3280ull, 0x0a9d5de0527665f8ull,
	0xd924bc7b8aedc16full, 0x5453ae04ba3084dbull, 0xa532bd6975505cb6ull, 0x3f545f6660a4ec3dull,
	0x891f985c9e953483ull, 0x9acb8b6b3decb8dcull, 0xc106e8310b809f4eull, 0xf3255fa5051ec54bull,
	0x28b570e68ad368caull, 0xd233e6492efa7f25ull, 0x5859fe0553200f3aull, 0x3e55c44eccb71aeaull,
	0x3d0adedd4494532aull, 0xa5690cbdfceb55f0ull, 0xfe32b336ade42ec3ull, 0x89b2adf3e59e7208ull,
	0x7fd5b7f4c7d0ed24ull, 0x0b02d02c95c5a4ccull, 0x7139916008bf5d27ull, 0x3402930e983b8adeull,
	0xc4ed9055d4bfa3f5ull, 0xac867bf51e0824e1ull, 0xdeac30a924d40448ull, 0x9370b5fc5987140eull,
	0xe81712ada770e692ull, 0x3d919f9328d5eb0cull, 0xf6b12d1829220084ull, 0x8a9840a2236a2dd6ull,
};

static inline uint64_t sum2_scr(uint64_t a, uint64_t k)
{
	return ((a ^ (a >> 47)) ^ k) * SUM2_MUL;
}

static void sum2_scramble(struct ts_sum *s)
{
	for (unsigned l = 0; l < TS_SUM_LANES; l++) {
		s->lane[l] = sum2_scr(s->lane[l], sum2_key[SUM2_WORDS + l]);
		s->word[l] = sum2_scr(s->word[l], sum2_key[SUM2_WORDS + 4 + l]);
	}
}

/* One record (the definition; every other form must agree with it). */
static inline void sum2_record(struct ts_sum *s, const unsigned char *p)
{
	unsigned q = (unsigned)(s->n % SUM2_BLOCK) * 6;

	for (unsigned j = 0; j < 6; j++) {
		uint64_t w = load_le64(p + 8 * j), x = w ^ sum2_key[q + j];

		s->lane[(q + j) % 4] += (x & 0xffffffffu) * (x >> 32);
		s->word[(q + j) % 4] += w;
	}
	if (++s->n % SUM2_BLOCK == 0)
		sum2_scramble(s);
}

/*
 * The scalar form of the fused check + sum (every host; the definition above,
 * a pair of records at a time so that word j of the pair goes to lane j % 4 and
 * the sums stay in registers). With sp, a record must also lie in the span.
 */
static inline bool rec_ok(const unsigned char *p, const struct ts_span *sp)
{
	const struct ts_record *r = (const struct ts_record *)p;

	return ts_record_ok(r) && (!sp || ts_span_ok(r, sp));
}

static size_t sum2_records_scalar(struct ts_sum *s, const unsigned char *p, size_t nrec, const struct ts_span *sp)
{
	uint64_t P[TS_SUM_LANES], W[TS_SUM_LANES];
	size_t i = 0;

	if (s->n % 2 && nrec) {
		if (!rec_ok(p, sp))
			return 0;
		sum2_record(s, p);
		i = 1;
	}
	memcpy(P, s->lane, sizeof(P));
	memcpy(W, s->word, sizeof(W));
	for (; i + 2 <= nrec; i += 2) {
		const unsigned char *b = p + i * TS_RECORD_SIZE;
		const uint64_t *key = sum2_key + (s->n % SUM2_BLOCK) * 6;
		unsigned ok = rec_ok(b, sp);

		ok &= rec_ok(b + TS_RECORD_SIZE, sp);
		if (!ok)
			break;
#pragma GCC unroll 12
		for (unsigned j = 0; j < 12; j++) {
			uint64_t w = load_le64(b + 8 * j), x = w ^ key[j];

			P[j % 4] += (x & 0xffffffffu) * (x >> 32);
			W[j % 4] += w;
		}
		s->n += 2;
		if (s->n % SUM2_BLOCK == 0)
			for (unsigned l = 0; l < TS_SUM_LANES; l++) {
				P[l] = sum2_scr(P[l], sum2_key[SUM2_WORDS + l]);
				W[l] = sum2_scr(W[l], sum2_key[SUM2_WORDS + 4 + l]);
			}
	}
	memcpy(s->lane, P, sizeof(P));
	memcpy(s->word, W, sizeof(W));
	if (i < nrec && rec_ok(p + i * TS_RECORD_SIZE, sp)) {
		sum2_record(s, p + i * TS_RECORD_SIZE);
		i++;
	}
	return i;
}

#if defined(__x86_64__)
#include <immintrin.h>

/*
 * The vector forms check a pair of records (three 32-byte vectors, lanes
 * 0..3 in the order of P and W) with ORs whose bit 63, or op bits 3..7, must
 * stay clear in the lanes that hold such a field: what ts_record_ok tests,
 * except the (kind, op) lookup, which stays scalar alongside. Per lane of the
 * three vectors: time, offset, length, - | latency, op, time, offset |
 * length, -, latency, op; offset + length of each record in lanes 0 and 1 of
 * os (checksum_kernel.h).
 */
#define B63 0x8000000000000000ull
#define OPHI 0x0000f80000000000ull	/* op (byte 45) >= 8 */
static const uint64_t sum2_mul[4] __attribute__((aligned(32))) = { SUM2_MUL, SUM2_MUL, SUM2_MUL, SUM2_MUL };
static const uint64_t sum2_mask[4][4] __attribute__((aligned(32))) = {
	{ B63, B63, B63, 0 }, { B63, OPHI, B63, B63 }, { B63, 0, B63, OPHI }, { B63, B63, 0, 0 },
};
/* With the span test: bit 62 of offsets and lengths too (checksum_kernel.h, "The ends"). */
#define B62 0xc000000000000000ull	/* bits 62 and 63 */
static const uint64_t sum2_mask_span[4][4] __attribute__((aligned(32))) = {
	{ B63, B62, B62, 0 }, { B63, OPHI, B63, B62 }, { B62, 0, B63, OPHI }, { B63, B63, 0, 0 },
};
/* The AVX-512VL form's: dev xor the span's in the lanes of word 5, the ends not in the vectors (checksum_kernel.h, KVL). */
#define DEVX 0x00000000ffffffffull
static const uint64_t sum2_mask_span_vl[4][4] __attribute__((aligned(32))) = {
	{ B63, B62, B62, 0 }, { B63, OPHI | DEVX, B63, B62 }, { B62, 0, B63, OPHI | DEVX }, { 0, 0, 0, 0 },
};

/* SSE2: a four-lane vector as two halves. */
typedef struct { __m128i a, b; } v4s;
static inline v4s s_load(const void *p) { return (v4s){ _mm_loadu_si128(p), _mm_loadu_si128((const __m128i *)p + 1) }; }
static inline v4s s_xor(v4s x, v4s y) { return (v4s){ _mm_xor_si128(x.a, y.a), _mm_xor_si128(x.b, y.b) }; }
static inline v4s s_or(v4s x, v4s y) { return (v4s){ _mm_or_si128(x.a, y.a), _mm_or_si128(x.b, y.b) }; }
static inline v4s s_and(v4s x, v4s y) { return (v4s){ _mm_and_si128(x.a, y.a), _mm_and_si128(x.b, y.b) }; }
static inline v4s s_add(v4s x, v4s y) { return (v4s){ _mm_add_epi64(x.a, y.a), _mm_add_epi64(x.b, y.b) }; }
static inline v4s s_sub(v4s x, v4s y) { return (v4s){ _mm_sub_epi64(x.a, y.a), _mm_sub_epi64(x.b, y.b) }; }
static inline v4s s_unpacklo(v4s x, v4s y)
{
	return (v4s){ _mm_unpacklo_epi64(x.a, y.a), _mm_unpacklo_epi64(x.b, y.b) };
}
static inline v4s s_unpackhi(v4s x, v4s y)
{
	return (v4s){ _mm_unpackhi_epi64(x.a, y.a), _mm_unpackhi_epi64(x.b, y.b) };
}
static inline v4s s_mullh(v4s x)
{
	return (v4s){ _mm_mul_epu32(x.a, _mm_srli_epi64(x.a, 32)), _mm_mul_epu32(x.b, _mm_srli_epi64(x.b, 32)) };
}
static inline v4s s_srli(v4s x, int n) { return (v4s){ _mm_srli_epi64(x.a, n), _mm_srli_epi64(x.b, n) }; }
static inline v4s s_slli(v4s x, int n) { return (v4s){ _mm_slli_epi64(x.a, n), _mm_slli_epi64(x.b, n) }; }
static inline v4s s_muleu(v4s x, v4s y) { return (v4s){ _mm_mul_epu32(x.a, y.a), _mm_mul_epu32(x.b, y.b) }; }
static inline v4s s_zero(void) { return (v4s){ _mm_setzero_si128(), _mm_setzero_si128() }; }
static inline int s_iszero(v4s x)
{
	return _mm_movemask_epi8(_mm_cmpeq_epi32(_mm_or_si128(x.a, x.b), _mm_setzero_si128())) == 0xffff;
}
static inline void s_store(uint64_t *p, v4s x)
{
	_mm_storeu_si128((__m128i *)p, x.a);
	_mm_storeu_si128((__m128i *)p + 1, x.b);
}

#define KATTR
#define VT v4s
#define V_SRLI s_srli
#define V_SLLI s_slli
#define V_MULEU s_muleu
#define V_LOAD s_load
#define V_XOR s_xor
#define V_OR s_or
#define V_AND s_and
#define V_ADD s_add
#define V_SUB s_sub
#define V_UNPACKLO s_unpacklo
#define V_UNPACKHI s_unpackhi
#define V_MULLH s_mullh
#define V_ZERO s_zero
#define V_ISZERO s_iszero
#define V_STORE s_store
#define KISA sse2
#include "traces/checksum_forms.h"

/* AVX2: one 256-bit vector (compiled for AVX2 only here; called only where the CPU has it). */
#define A2 __attribute__((target("avx2"))) static inline
A2 __m256i a_load(const void *p) { return _mm256_loadu_si256(p); }
A2 __m256i a_xor(__m256i x, __m256i y) { return _mm256_xor_si256(x, y); }
A2 __m256i a_or(__m256i x, __m256i y) { return _mm256_or_si256(x, y); }
A2 __m256i a_and(__m256i x, __m256i y) { return _mm256_and_si256(x, y); }
A2 __m256i a_add(__m256i x, __m256i y) { return _mm256_add_epi64(x, y); }
A2 __m256i a_sub(__m256i x, __m256i y) { return _mm256_sub_epi64(x, y); }
A2 __m256i a_unpacklo(__m256i x, __m256i y) { return _mm256_unpacklo_epi64(x, y); }
A2 __m256i a_unpackhi(__m256i x, __m256i y) { return _mm256_unpackhi_epi64(x, y); }
A2 __m256i a_mullh(__m256i x) { return _mm256_mul_epu32(x, _mm256_srli_epi64(x, 32)); }
A2 __m256i a_srli(__m256i x, int n) { return _mm256_srli_epi64(x, n); }
A2 __m256i a_slli(__m256i x, int n) { return _mm256_slli_epi64(x, n); }
A2 __m256i a_muleu(__m256i x, __m256i y) { return _mm256_mul_epu32(x, y); }
A2 __m256i a_zero(void) { return _mm256_setzero_si256(); }
A2 int a_iszero(__m256i x) { return _mm256_testz_si256(x, x); }
A2 void a_store(uint64_t *p, __m256i x) { _mm256_storeu_si256((__m256i *)p, x); }

#define KATTR __attribute__((target("avx2")))
#define VT __m256i
#define V_SRLI a_srli
#define V_SLLI a_slli
#define V_MULEU a_muleu
#define V_LOAD a_load
#define V_XOR a_xor
#define V_OR a_or
#define V_AND a_and
#define V_ADD a_add
#define V_SUB a_sub
#define V_UNPACKLO a_unpacklo
#define V_UNPACKHI a_unpackhi
#define V_MULLH a_mullh
#define V_ZERO a_zero
#define V_ISZERO a_iszero
#define V_STORE a_store
#define KISA avx2
#define KKEEP_V
#include "traces/checksum_forms.h"

/*
 * AVX-512VL: the same 256-bit vectors and operations, compiled for AVX-512VL
 * (the compiler fuses an xor into an OR as vpternlogq and has 32 vector
 * registers), with dev tested in the vectors and the ends on the scalar side
 * (KVL, checksum_kernel.h): no 512-bit vectors (slower on this project's
 * AMD EPYC host, BENCHMARKS.md "Reading").
 */
#define KATTR __attribute__((target("avx2,avx512f,avx512vl")))
#define KISA avx512
#define KVL 1
#include "traces/checksum_forms.h"
#endif

static const char *const isa_names[TS_ISA_N] = { [TS_ISA_SCALAR] = "scalar", [TS_ISA_SSE2] = "sse2",
						 [TS_ISA_AVX2] = "avx2", [TS_ISA_AVX512] = "avx512vl" };

const char *ts_sum_isa_name(enum ts_sum_isa isa)
{
	return isa < TS_ISA_N ? isa_names[isa] : NULL;
}

bool ts_sum_isa_ok(enum ts_sum_isa isa)
{
	switch (isa) {
	case TS_ISA_SCALAR:
		return true;
#if defined(__x86_64__)
	case TS_ISA_SSE2:
		return true;	/* baseline on x86-64 */
	case TS_ISA_AVX2:
		return __builtin_cpu_supports("avx2");
	case TS_ISA_AVX512:
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512vl");
#endif
	default:
		return false;
	}
}

enum ts_sum_isa ts_sum_isa_best(void)
{
	for (int isa = TS_ISA_N - 1; isa > TS_ISA_SCALAR; isa--)
		if (ts_sum_isa_ok((enum ts_sum_isa)isa))
			return (enum ts_sum_isa)isa;
	return TS_ISA_SCALAR;
}

size_t ts_sum2_records_isa(struct ts_sum *s, const unsigned char *p, size_t nrec, const struct ts_span *sp,
			   enum ts_sum_isa isa)
{
	switch (isa) {
#if defined(__x86_64__)
	case TS_ISA_SSE2:
		return !sp ? sum2_records_sse2(s, p, nrec, NULL) : sp->lo ? sum2_records_sse2_span(s, p, nrec, sp) :
								       sum2_records_sse2_span0(s, p, nrec, sp);
	case TS_ISA_AVX2:
		return !sp ? sum2_records_avx2(s, p, nrec, NULL) : sp->lo ? sum2_records_avx2_span(s, p, nrec, sp) :
								       sum2_records_avx2_span0(s, p, nrec, sp);
	case TS_ISA_AVX512:
		return !sp ? sum2_records_avx512(s, p, nrec, NULL) : sp->lo ? sum2_records_avx512_span(s, p, nrec, sp) :
									 sum2_records_avx512_span0(s, p, nrec, sp);
#endif
	default:
		return sum2_records_scalar(s, p, nrec, sp);
	}
}

/* ---- either version ---- */

void ts_sum_start(struct ts_sum *s, unsigned version, const void *hdr, size_t hlen)
{
	ts_sum_init(s);
	sum1_update(s, hdr, hlen);
	if (version != 2)
		return;
	s->head = sum1_final(s);
	memset(s->lane, 0, sizeof(s->lane));
	s->n = 0;
	s->version = 2;
}

void ts_sum_update(struct ts_sum *s, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (s->version != 2) {
		sum1_update(s, buf, len);
		return;
	}
	for (size_t i = 0; i + TS_RECORD_SIZE <= len; i += TS_RECORD_SIZE)
		sum2_record(s, p + i);
}

size_t ts_sum_records(struct ts_sum *s, const unsigned char *p, size_t nrec)
{
	if (s->version != 2)
		return sum1_records(s, p, nrec);
	return ts_sum2_records_isa(s, p, nrec, NULL, ts_sum_isa_best());
}

size_t ts_sum2_records_span(struct ts_sum *s, const unsigned char *p, size_t nrec, const struct ts_span *sp)
{
	return ts_sum2_records_isa(s, p, nrec, sp, ts_sum_isa_best());
}

uint64_t ts_sum_final(const struct ts_sum *s)
{
	uint64_t h = s->head;

	if (s->version != 2)
		return sum1_final(s);
	for (unsigned j = 0; j < TS_SUM_LANES; j++)
		h = sum_fold(h ^ s->lane[j] ^ SUM_K2);
	for (unsigned j = 0; j < TS_SUM_LANES; j++)
		h = sum_fold(h ^ s->word[j] ^ SUM_K2);
	return sum_fold(h ^ s->n);
}
