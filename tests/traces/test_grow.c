// SPDX-License-Identifier: GPL-2.0
/* traces/util.h's growable arrays and rings: every element kept, in order, through each doubling. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "traces/util.h"

/* A ring pushed and popped so that it wraps, grown whenever full: what comes out is what went in, in order. */
Test(grow, ring_keeps_order_across_wraps)
{
	uint64_t *ring = NULL, next_in = 0, next_out = 0;
	size_t cap = 0, head = 0, n = 0;

	for (unsigned round = 0; round < 2000; round++) {
		for (unsigned k = 0; k < 3; k++) {	/* push 3 */
			if (n == cap) {
				size_t old = cap;

				cr_assert_eq(grow_ring((void **)&ring, &cap, &head, n, sizeof(*ring)), 0);
				cr_assert_eq(cap, old ? old * 2 : 64);
				cr_assert_eq(head, 0);
			}
			ring[(head + n++) & (cap - 1)] = next_in++;
		}
		for (unsigned k = 0; k < 2; k++) {	/* pop 2 */
			cr_assert_eq(ring[head], next_out, "round %u: got %llu", round,
				     (unsigned long long)ring[head]);
			next_out++;
			head = (head + 1) & (cap - 1);
			n--;
		}
	}
	while (n) {
		cr_assert_eq(ring[head], next_out++);
		head = (head + 1) & (cap - 1);
		n--;
	}
	cr_expect_eq(next_out, next_in);
	free(ring);
}

/* An empty ring grows from nothing to 64. */
Test(grow, ring_from_empty)
{
	int *ring = NULL;
	size_t cap = 0, head = 0;

	cr_assert_eq(grow_ring((void **)&ring, &cap, &head, 0, sizeof(*ring)), 0);
	cr_expect_eq(cap, 64);
	cr_expect_not_null(ring);
	free(ring);
}

Test(grow, array_doubles_to_need)
{
	int *a = NULL;
	size_t cap = 0;

	cr_assert_eq(grow_array((void **)&a, &cap, 17, sizeof(*a)), 0);
	cr_expect_eq(cap, 32);
	a[16] = 7;
	cr_assert_eq(grow_array((void **)&a, &cap, 20, sizeof(*a)), 0);
	cr_expect_eq(cap, 32, "no growth when it holds need");
	cr_assert_eq(grow_array((void **)&a, &cap, 100, sizeof(*a)), 0);
	cr_expect_eq(cap, 128);
	cr_expect_eq(a[16], 7);
	free(a);
}
