/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One instruction set's two forms of the fused check + version 2 sum
 * (traces/checksum_kernel.h): sum2_records_KISA, without the span test,
 * sum2_records_KISA_span, with it, and sum2_records_KISA_span0, with it for a
 * span that starts at byte 0 (and their scrambles, sum2_scr_...).
 * Included by traces/checksum.c once per instruction set with KISA (sse2,
 * avx2, avx512), KATTR, VT and the V_* operations defined, and KVL 1 for the
 * AVX-512VL form (checksum_kernel.h); it undefines all of them (VT and the
 * V_* operations not with KKEEP_V: the next form uses them too). Not a header
 * of its own.
 */
#ifndef KVL
#define KVL 0
#endif
#define KFORM_CAT2(a, b) a##b
#define KFORM_CAT(a, b) KFORM_CAT2(a, b)

#define KFN KFORM_CAT(sum2_records_, KISA)
#define KSCR KFORM_CAT(sum2_scr_, KISA)
#define KSPAN 0
#include "traces/checksum_kernel.h"
#define KFN KFORM_CAT(KFORM_CAT(sum2_records_, KISA), _span)
#define KSCR KFORM_CAT(KFORM_CAT(sum2_scr_, KISA), _span)
#define KSPAN 1
#include "traces/checksum_kernel.h"
#define KFN KFORM_CAT(KFORM_CAT(sum2_records_, KISA), _span0)
#define KSCR KFORM_CAT(KFORM_CAT(sum2_scr_, KISA), _span0)
#define KSPAN 2
#include "traces/checksum_kernel.h"

#undef KFORM_CAT2
#undef KFORM_CAT
#undef KISA
#undef KVL
#undef KATTR
#ifndef KKEEP_V
#undef VT
#undef V_SRLI
#undef V_SLLI
#undef V_MULEU
#undef V_LOAD
#undef V_XOR
#undef V_OR
#undef V_AND
#undef V_ADD
#undef V_SUB
#undef V_UNPACKLO
#undef V_UNPACKHI
#undef V_MULLH
#undef V_ZERO
#undef V_ISZERO
#undef V_STORE
#endif
#undef KKEEP_V
