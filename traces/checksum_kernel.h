/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fused check + version 2 sum over records, for one vector width: included
 * by traces/checksum.c once per instruction set, with KFN (the function's
 * name), KSCR (its scramble's), KATTR (its target attribute), VT (a vector of four 64-bit lanes) and
 * the V_* operations on it defined. Not a header of its own.
 *
 * Pairs of records, three vectors each, so every vector holds lanes 0..3 of
 * the sums in order (a block is 96 words, a pair 12). A run is the pairs up
 * to the block's end: checked and summed into registers, then, if every
 * record passed, added to the lanes, which stay in registers for the whole
 * call (and the block scrambled at its end);
 * else the run is done again one record at a time by the definition, which
 * stops at the first that fails. So the state only ever holds records that
 * passed, as the scalar form's does. A record left alone (odd count, or the
 * state between pairs) goes through the definition too.
 */
/* scr() of FORMAT.md on four lanes: ((a ^ (a >> 47)) ^ k) * 0x9e3779b1, the 64 x 32-bit product from two halves. */
KATTR static inline VT KSCR(VT a, VT k, VT mul)
{
	a = V_XOR(V_XOR(a, V_SRLI(a, 47)), k);
	return V_ADD(V_MULEU(a, mul), V_SLLI(V_MULEU(V_SRLI(a, 32), mul), 32));
}

KATTR static size_t KFN(struct ts_sum *s, const unsigned char *p, size_t nrec)
{
	const VT m0 = V_LOAD(sum2_mask[0]), m1 = V_LOAD(sum2_mask[1]), m2 = V_LOAD(sum2_mask[2]),
		 ms = V_LOAD(sum2_mask[3]), kp = V_LOAD(sum2_key + SUM2_WORDS), kw = V_LOAD(sum2_key + SUM2_WORDS + 4),
		 mul = V_LOAD(sum2_mul);
	size_t i = 0;
	VT P, W;

	if (s->n % 2 && nrec) {
		if (!ts_record_ok((const struct ts_record *)p))
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
		const uint64_t *key = sum2_key + q * 6;
		VT p0 = V_ZERO(), p1 = V_ZERO(), p2 = V_ZERO(), w0 = V_ZERO(), w1 = V_ZERO(), w2 = V_ZERO();
		VT o0 = V_ZERO(), o1 = V_ZERO(), o2 = V_ZERO(), os = V_ZERO();
		unsigned ok = 1;

		for (size_t k = 0; k < run; k += 2, b += 2 * TS_RECORD_SIZE, key += 12) {
			VT v0 = V_LOAD(b), v1 = V_LOAD(b + 32), v2 = V_LOAD(b + 64);

			p0 = V_ADD(p0, V_MULLH(V_XOR(v0, V_LOAD(key))));
			p1 = V_ADD(p1, V_MULLH(V_XOR(v1, V_LOAD(key + 4))));
			p2 = V_ADD(p2, V_MULLH(V_XOR(v2, V_LOAD(key + 8))));
			w0 = V_ADD(w0, v0);
			w1 = V_ADD(w1, v1);
			w2 = V_ADD(w2, v2);
			o0 = V_OR(o0, v0);
			o1 = V_OR(o1, v1);
			o2 = V_OR(o2, v2);
			os = V_OR(os, V_OR(V_ADD(V_LOAD(b + 8), V_LOAD(b + 16)), V_ADD(V_LOAD(b + 56), v2)));
			ok &= ts_valid_ops[b[44]] >> (b[45] & 7);
			ok &= ts_valid_ops[b[92]] >> (b[93] & 7);
		}
		if (!(ok & 1) ||
		    !V_ISZERO(V_OR(V_OR(V_AND(o0, m0), V_AND(o1, m1)), V_OR(V_AND(o2, m2), V_AND(os, ms))))) {
			/* a record in the run fails: the definition, one record at a time, finds it */
			V_STORE(s->lane, P);
			V_STORE(s->word, W);
			for (size_t k = 0; k < run; k++, i++) {
				const unsigned char *r = p + i * TS_RECORD_SIZE;

				if (!ts_record_ok((const struct ts_record *)r))
					return i;
				sum2_record(s, r);
			}
			P = V_LOAD(s->lane);
			W = V_LOAD(s->word);
			continue;
		}
		P = V_ADD(P, V_ADD(V_ADD(p0, p1), p2));
		W = V_ADD(W, V_ADD(V_ADD(w0, w1), w2));
		s->n += run;
		i += run;
		if (s->n % SUM2_BLOCK == 0) {
			P = KSCR(P, kp, mul);
			W = KSCR(W, kw, mul);
		}
	}
	V_STORE(s->lane, P);
	V_STORE(s->word, W);
	if (i < nrec && ts_record_ok((const struct ts_record *)(p + i * TS_RECORD_SIZE))) {
		sum2_record(s, p + i * TS_RECORD_SIZE);
		i++;
	}
	return i;
}

#undef KFN
#undef KSCR
#undef V_SRLI
#undef V_SLLI
#undef V_MULEU
#undef KATTR
#undef VT
#undef V_LOAD
#undef V_XOR
#undef V_OR
#undef V_AND
#undef V_ADD
#undef V_MULLH
#undef V_ZERO
#undef V_ISZERO
#undef V_STORE
