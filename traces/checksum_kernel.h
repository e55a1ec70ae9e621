/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fused check + version 2 sum over records, for one vector width: included
 * by traces/checksum_forms.h once per instruction set and span test, with KFN (the
 * function's name), KSCR (its scramble's), KATTR (its target attribute), KSPAN
 * (1: the records must also lie in the span sp, ts_span_ok; 0: sp is not
 * read), VT (a vector of four 64-bit lanes) and the V_* operations on it
 * defined; it undefines KFN, KSCR and KSPAN (checksum_forms.h the rest). Not a
 * header of its own.
 *
 * Pairs of records, three vectors each, so every vector holds lanes 0..3 of
 * the sums in order (a block is 96 words, a pair 12). A run is the pairs up
 * to the block's end: summed into the lanes and checked, then, if every
 * record passed, kept (the lanes stay in registers for the whole call, and
 * the block is scrambled at its end);
 * else the run is done again one record at a time by the definition, which
 * stops at the first that fails. So the state only ever holds records that
 * passed, as the scalar form's does. A record left alone (odd count, or the
 * state between pairs) goes through the definition too.
 *
 * The ends: a = the pair's words at bytes 8 and 56 (offset, length, ino,
 * latency of each record), unpacked to offs = offset 0, offset 1, -, - and
 * lens = length 0, length 1, -, -; ends = offs + lens must keep bit 63 clear.
 * With KSPAN, the offsets and lengths must also keep bit 62 clear (sum2_mask_span),
 * so that every end is below 2^63, and the end is tested against hi with one
 * add: ends + (2^63 - 1 - hi) sets bit 63 iff the end is past hi (hi <= 2^63 - 1,
 * so the constant is too; it also stands for the test of bit 63 of the end).
 * KSPAN 1 also tests offset - lo (bit 63 set iff the offset is below lo);
 * KSPAN 2 is for lo == 0, where that test is bit 63 of the offset, already
 * made. A record with bit 62 of its offset or length set (past 4 EiB, which no
 * device has) fails the vector test and is then judged by the definition.
 *
 * Kind and op: ts_valid_kind_op, one byte looked up on the scalar side by
 * the record's bytes 44..45 (kind, op & 7) alongside the vectors (op < 8 is
 * tested in the vectors); with KSPAN, dev xor the span's dev is ORed into
 * devx, which must stay 0.
 *
 * KVL (the AVX-512VL form, still on 256-bit vectors): the ends are tested
 * on the scalar side (se: offset + length, with KSPAN + (2^63 - 1 - hi), and
 * offset - lo, ORed; bit 63 must stay clear), and with KSPAN dev is tested in
 * the vectors instead, xored into the lanes that hold it (D1, D2) in the same
 * instruction as the OR (vpternlogq). That leaves the vector units, what
 * bounds this pass, five operations a pair fewer with the span (18 instead of
 * 23) and four without (BENCHMARKS.md "Reading"). Without AVX-512VL the dev
 * xor would cost two operations a pair, and the scalar ends more instructions
 * than the front end issues in time (measured slower), so the other forms
 * keep theirs.
 */
#define KBLOCKS 4	/* blocks summed before one test of the accumulators */
#if KSPAN
#define KOK(r) (ts_record_ok(r) && ts_span_ok((r), sp))
#else
#define KOK(r) ts_record_ok(r)
#endif
/* scr() of FORMAT.md on four lanes: ((a ^ (a >> 47)) ^ k) * 0x9e3779b1, the 64 x 32-bit product from two halves. */
KATTR static inline VT KSCR(VT a, VT k, VT mul)
{
	a = V_XOR(V_XOR(a, V_SRLI(a, 47)), k);
	return V_ADD(V_MULEU(a, mul), V_SLLI(V_MULEU(V_SRLI(a, 32), mul), 32));
}

/* One pair at b with its keys at key: summed into P and W, its tests ORed into the accumulators. */
#if KVL
#if KSPAN == 1
#define KSENDS(f0, l0, f1, l1) (se |= (f0 + l0 + hib) | (f1 + l1 + hib) | (f0 - sp->lo) | (f1 - sp->lo))
#elif KSPAN
#define KSENDS(f0, l0, f1, l1) (se |= (f0 + l0 + hib) | (f1 + l1 + hib))
#else
#define KSENDS(f0, l0, f1, l1) (se |= (f0 + l0) | (f1 + l1))
#endif
#define KENDS(b)                                                                                       \
	do {                                                                                           \
		uint64_t f0, l0, f1, l1;                                                               \
                                                                                                       \
		memcpy(&f0, (b) + 8, 8);                                                               \
		memcpy(&l0, (b) + 16, 8);                                                              \
		memcpy(&f1, (b) + 56, 8);                                                              \
		memcpy(&l1, (b) + 64, 8);                                                              \
		KSENDS(f0, l0, f1, l1);                                                                \
	} while (0)
#if KSPAN
#define KDEV(v, d) V_XOR(v, d)
#define KMASK sum2_mask_span_vl
#else
#define KDEV(v, d) (v)
#define KMASK sum2_mask
#endif
#else
#if KSPAN == 1
#define KPAIR_ENDS(offs, ends) (os = V_OR(os, V_OR(V_ADD(ends, HIB), V_SUB(offs, LO))))
#elif KSPAN
#define KPAIR_ENDS(offs, ends) (os = V_OR(os, V_ADD(ends, HIB)))
#else
#define KPAIR_ENDS(offs, ends) (os = V_OR(os, ends))
#endif
#define KENDS(b)                                                                                       \
	do {                                                                                           \
		VT a = V_LOAD((b) + 8), c = V_LOAD((b) + 56), offs = V_UNPACKLO(a, c);                 \
		VT ends = V_ADD(offs, V_UNPACKHI(a, c));                                               \
                                                                                                       \
		KPAIR_ENDS(offs, ends);                                                                \
	} while (0)
#define KDEV(v, d) (v)
#if KSPAN
#define KMASK sum2_mask_span
#else
#define KMASK sum2_mask
#endif
#endif
#if KSPAN && !KVL
#define KDEVS(b)                                                                                       \
	do {                                                                                           \
		uint32_t d0, d1;                                                                       \
                                                                                                       \
		memcpy(&d0, (b) + 40, 4);                                                              \
		memcpy(&d1, (b) + 88, 4);                                                              \
		devx |= (d0 ^ sp->dev) | (d1 ^ sp->dev);                                               \
	} while (0)
#else
#define KDEVS(b) ((void)0)
#endif
#define KPAIR(b, key)                                                                                  \
	do {                                                                                           \
		VT v0 = V_LOAD(b), v1 = V_LOAD((b) + 32), v2 = V_LOAD((b) + 64);                       \
		uint16_t ko0, ko1;                                                                     \
                                                                                                       \
		P = V_ADD(P, V_MULLH(V_XOR(v0, V_LOAD(key))));                                         \
		P = V_ADD(P, V_MULLH(V_XOR(v1, V_LOAD((key) + 4))));                                   \
		P = V_ADD(P, V_MULLH(V_XOR(v2, V_LOAD((key) + 8))));                                   \
		W = V_ADD(W, V_ADD(v0, V_ADD(v1, v2)));                                                \
		o0 = V_OR(o0, v0);                                                                     \
		o1 = V_OR(o1, KDEV(v1, D1));                                                           \
		o2 = V_OR(o2, KDEV(v2, D2));                                                           \
		KENDS(b);                                                                              \
		KDEVS(b);                                                                              \
		memcpy(&ko0, (b) + 44, 2);                                                             \
		memcpy(&ko1, (b) + 92, 2);                                                             \
		ok &= ts_valid_kind_op[ko0 & 0x7ff] & ts_valid_kind_op[ko1 & 0x7ff];                   \
	} while (0)

KATTR static size_t KFN(struct ts_sum *s, const unsigned char *p, size_t nrec, const struct ts_span *sp)
{
	const VT kp = V_LOAD(sum2_key + SUM2_WORDS), kw = V_LOAD(sum2_key + SUM2_WORDS + 4), mul = V_LOAD(sum2_mul);
#if KSPAN && KVL
	const uint64_t hib = TS_MAX_BYTES - sp->hi, d1[4] = { 0, sp->dev, 0, 0 }, d2[4] = { 0, 0, 0, sp->dev };
	const VT D1 = V_LOAD(d1), D2 = V_LOAD(d2);
#elif KSPAN
	const uint64_t hib = TS_MAX_BYTES - sp->hi, hb[4] = { hib, hib, 0, 0 };
	const VT HIB = V_LOAD(hb);
#if KSPAN == 1
	const uint64_t lo[4] = { sp->lo, sp->lo, 0, 0 };
	const VT LO = V_LOAD(lo);
#endif
#else
	(void)sp;
#endif
	size_t i = 0;
	VT P, W;

	if (s->n % 2 && nrec) {
		if (!KOK((const struct ts_record *)p))
			return 0;
		sum2_record(s, p);
		i = 1;
	}
	P = V_LOAD(s->lane);
	W = V_LOAD(s->word);
	while (nrec - i >= 2) {
		unsigned q = (unsigned)(s->n % SUM2_BLOCK);
		size_t run = SUM2_BLOCK - q <= nrec - i ? SUM2_BLOCK - q : (nrec - i) & ~(size_t)1;
		const unsigned char *b = p + i * TS_RECORD_SIZE;
		const VT P0 = P, W0 = W;
		VT o0 = V_ZERO(), o1 = V_ZERO(), o2 = V_ZERO(), os = V_ZERO();
		unsigned ok = 1;
		uint32_t devx = 0;
		uint64_t se = 0;

		if (!q && nrec - i >= 2 * SUM2_BLOCK)	/* whole blocks, up to KBLOCKS, checked once */
			run = ((nrec - i) / SUM2_BLOCK < KBLOCKS ? (nrec - i) / SUM2_BLOCK : KBLOCKS) * SUM2_BLOCK;
		for (size_t k = 0; k < run; q = 0) {
			size_t part = run - k < SUM2_BLOCK - q ? run - k : SUM2_BLOCK - q;

			/*
			 * Two pairs an iteration: the AVX-512VL span0 loop then runs at 0.85 ns a record in
			 * cache wherever the link puts it; one pair an iteration ran at 0.91 when the loop
			 * started on a 64-byte boundary, 0.85 elsewhere (BENCHMARKS.md "Reading").
			 */
			_Pragma("GCC unroll 2")
			for (const uint64_t *key = sum2_key + q * 6, *kend = key + part * 6; key < kend;
			     b += 2 * TS_RECORD_SIZE, key += 12)
				KPAIR(b, key);
			k += part;
			if (q + part == SUM2_BLOCK) {
				P = KSCR(P, kp, mul);
				W = KSCR(W, kw, mul);
			}
		}
		o0 = V_AND(o0, V_LOAD(KMASK[0]));
		o1 = V_AND(o1, V_LOAD(KMASK[1]));
		o2 = V_AND(o2, V_LOAD(KMASK[2]));
		os = V_AND(os, V_LOAD(KMASK[3]));
		if (!(ok & 1) || devx || se >> 63 || !V_ISZERO(V_OR(V_OR(o0, o1), V_OR(o2, os)))) {
			/* a record in the run fails: the definition, one record at a time, finds it */
			V_STORE(s->lane, P0);
			V_STORE(s->word, W0);
			for (size_t k = 0; k < run; k++, i++) {
				const unsigned char *r = p + i * TS_RECORD_SIZE;

				if (!KOK((const struct ts_record *)r))
					return i;
				sum2_record(s, r);
			}
			P = V_LOAD(s->lane);
			W = V_LOAD(s->word);
			continue;
		}
		s->n += run;
		i += run;
	}
	V_STORE(s->lane, P);
	V_STORE(s->word, W);
	if (i < nrec && KOK((const struct ts_record *)(p + i * TS_RECORD_SIZE))) {
		sum2_record(s, p + i * TS_RECORD_SIZE);
		i++;
	}
	return i;
}

#undef KPAIR
#undef KSENDS
#undef KENDS
#undef KDEV
#undef KDEVS
#undef KPAIR_ENDS
#undef KMASK
#undef KBLOCKS
#undef KOK
#undef KFN
#undef KSCR
#undef KSPAN
