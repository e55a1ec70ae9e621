// SPDX-License-Identifier: GPL-2.0
/* The node pool under ivset and rbsim: indices from 1, zeroed nodes, last freed reused first, growth keeps nodes. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdint.h>
#include <string.h>

#include "replay/policies/npool.h"

struct node { uint64_t a, b; uint32_t c; };

static struct node *at(struct npool *p, uint32_t i)
{
	return &((struct node *)p->base)[i];
}

Test(npool, indices_from_one_zeroed_and_reused_last_freed_first)
{
	struct npool p;
	uint32_t i;

	npool__init(&p, sizeof(struct node));
	for (uint32_t k = 1; k <= 5; k++) {
		i = npool__alloc(&p);
		cr_assert_eq(i, k, "fresh nodes are handed out from index 1 in order");
		*at(&p, i) = (struct node){ ~0ull, ~0ull, ~0u };
	}
	npool__free(&p, 2);
	npool__free(&p, 4);
	cr_assert_eq(npool__alloc(&p), 4, "the last freed node comes back first");
	cr_assert_eq(npool__alloc(&p), 2);
	cr_assert_eq(npool__alloc(&p), 6, "then a never-used one");
	i = 2;
	cr_assert(at(&p, i)->a == 0 && at(&p, i)->b == 0 && at(&p, i)->c == 0, "a reused node is zeroed");
	npool__clear(&p);
	cr_assert_eq(npool__alloc(&p), 1, "clear makes every node free again, from index 1");
	npool__fini(&p);
	cr_assert_null(p.base);
	npool__fini(NULL);
}

struct growcase { uint32_t n; };

static struct growcase growcases[] = {
	{ .n = 255 }, { .n = 256 }, { .n = 257 }, { .n = 5000 },
};

ParameterizedTestParameters(npool, growth_keeps_every_node)
{
	return cr_make_param_array(struct growcase, growcases, sizeof(growcases) / sizeof(growcases[0]));
}

ParameterizedTest(struct growcase *t, npool, growth_keeps_every_node)
{
	struct npool p;

	npool__init(&p, sizeof(struct node));
	for (uint32_t k = 1; k <= t->n; k++) {
		uint32_t i = npool__alloc(&p);

		cr_assert_eq(i, k);
		*at(&p, i) = (struct node){ k, (uint64_t)k * 3, k ^ 0x5a5a5a5au };
	}
	cr_assert_geq(p.cap, t->n + 1, "node 0 is never handed out but takes a slot");
	for (uint32_t k = 1; k <= t->n; k++)
		cr_assert(at(&p, k)->a == k && at(&p, k)->b == (uint64_t)k * 3 && at(&p, k)->c == (k ^ 0x5a5a5a5au),
			  "node %u moved intact", k);
	npool__fini(&p);
}
