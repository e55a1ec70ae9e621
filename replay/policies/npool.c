// SPDX-License-Identifier: GPL-2.0
/* Index-addressed node pool (see npool.h). */
#include <stdlib.h>
#include <string.h>

#include "replay/policies/npool.h"

static void *node(const struct npool *p, uint32_t i)
{
	return (char *)p->base + (size_t)i * p->size;
}

void npool__fini(struct npool *p)
{
	if (!p)
		return;
	free(p->base);
	npool__init(p, p->size);
}

void npool__clear(struct npool *p)
{
	p->used = 1;
	p->freelist = 0;
}

uint32_t npool__alloc(struct npool *p)
{
	uint32_t i;

	if (p->freelist) {
		i = p->freelist;
		memcpy(&p->freelist, node(p, i), sizeof(p->freelist));
	} else {
		if (p->used >= p->cap) {
			uint32_t ncap = p->cap ? p->cap * 2 : 256;
			void *b;

			if (ncap <= p->cap || !(b = realloc(p->base, (size_t)ncap * p->size)))
				return 0;
			p->base = b;
			p->cap = ncap;
		}
		i = p->used++;
	}
	memset(node(p, i), 0, p->size);
	return i;
}

void npool__free(struct npool *p, uint32_t i)
{
	memcpy(node(p, i), &p->freelist, sizeof(p->freelist));
	p->freelist = i;
}
