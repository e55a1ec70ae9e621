/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A red-black tree that keeps the exact shape lib/rbtree.c gives the same
 * sequence of inserts and erases (rb_link_node() + rb_insert_color(),
 * rb_erase()), for emulating kernel code whose behaviour depends on the
 * tree's shape: ext4_mb_free_metadata() since Linux 6.17 merges a freed
 * extent only with the node its descent ends at. The caller descends with
 * rbsim__node()->left/right and links at the leaf it found.
 * Nodes live in one pool addressed by index (0 = none, npool.h).
 */
#ifndef TRIMSIM_RBSIM_H
#define TRIMSIM_RBSIM_H

#include <stdbool.h>
#include <stdint.h>

struct rbnode {
	uint64_t start, end;	/* the caller's key and payload */
	uint64_t val, seq;
	uint32_t left, right, parent;
	bool red;
};

struct rbsim;

struct rbsim *rbsim__new(void);
void rbsim__destroy(struct rbsim *s);	/* accepts NULL */
void rbsim__clear(struct rbsim *s);	/* frees every node */
/* A fresh node (zeroed), 0 on ENOMEM. May move the pool: re-fetch node pointers after it. */
uint32_t rbsim__alloc(struct rbsim *s);
struct rbnode *rbsim__node(struct rbsim *s, uint32_t i);
/* rb_link_node(node, parent, left ? &parent->left : &parent->right) + rb_insert_color(). */
void rbsim__insert(struct rbsim *s, uint32_t *root, uint32_t parent, bool left, uint32_t node);
/* rb_erase(); the node goes back to the pool. */
void rbsim__erase(struct rbsim *s, uint32_t *root, uint32_t node);
uint32_t rbsim__prev(struct rbsim *s, uint32_t node);
uint32_t rbsim__next(struct rbsim *s, uint32_t node);
uint32_t rbsim__first(struct rbsim *s, uint32_t root);

#endif
