/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pool of same-size nodes addressed by 32-bit index, 0 = none (node 0 is
 * never handed out), grown by doubling from 256; a freed node is handed out
 * again before a new one, the last freed first. The trees here (ivset's treap,
 * rbsim's red-black tree) link their nodes by index, so a pool that moves
 * keeps every link valid.
 */
#ifndef TRIMSIM_NPOOL_H
#define TRIMSIM_NPOOL_H

#include <stddef.h>
#include <stdint.h>

struct npool {
	void *base;		/* cap nodes of size bytes */
	size_t size;
	uint32_t cap;
	uint32_t used;		/* next never-used index */
	uint32_t freelist;	/* last freed node, 0 = none; a free node holds the next in its first 4 bytes */
};

static inline void npool__init(struct npool *p, size_t size)
{
	*p = (struct npool){ .size = size, .used = 1 };
}

void npool__fini(struct npool *p);	/* frees the nodes; accepts NULL */
void npool__clear(struct npool *p);	/* every node free again, memory kept */
/* A zeroed node, 0 on ENOMEM (or past 2^32 - 1 nodes). May move base: re-fetch node pointers after it. */
uint32_t npool__alloc(struct npool *p);
void npool__free(struct npool *p, uint32_t i);

#endif
