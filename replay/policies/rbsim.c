// SPDX-License-Identifier: GPL-2.0
/*
 * Red-black tree with the shape of lib/rbtree.c (see rbsim.h): the insert
 * fix-up follows __rb_insert() and the erase follows __rb_erase_augmented()
 * (successor splice) and ____rb_erase_color(), case for case, so the same
 * operations leave the same tree. Written from the algorithm, on indices.
 */
#include <errno.h>
#include <stdlib.h>

#include "replay/policies/npool.h"
#include "replay/policies/rbsim.h"

struct rbsim {
	struct npool np;	/* of struct rbnode */
};

struct rbsim *rbsim__new(void)
{
	struct rbsim *s = malloc(sizeof(*s));

	if (s)
		npool__init(&s->np, sizeof(struct rbnode));
	return s;
}

void rbsim__destroy(struct rbsim *s)
{
	if (!s)
		return;
	npool__fini(&s->np);
	free(s);
}

void rbsim__clear(struct rbsim *s)
{
	npool__clear(&s->np);
}

uint32_t rbsim__alloc(struct rbsim *s)
{
	return npool__alloc(&s->np);
}

struct rbnode *rbsim__node(struct rbsim *s, uint32_t i)
{
	return &((struct rbnode *)s->np.base)[i];
}

#define N(i) (*rbsim__node(s, i))

static bool is_red(struct rbsim *s, uint32_t i)
{
	return i && N(i).red;
}

/* __rb_change_child() */
static void change_child(struct rbsim *s, uint32_t old, uint32_t new, uint32_t parent, uint32_t *root)
{
	if (!parent)
		*root = new;
	else if (N(parent).left == old)
		N(parent).left = new;
	else
		N(parent).right = new;
}

/* __rb_rotate_set_parents(): new takes old's place and colour, old goes under new with colour red. */
static void rotate_set_parents(struct rbsim *s, uint32_t old, uint32_t new, uint32_t *root, bool red)
{
	uint32_t parent = N(old).parent;

	N(new).parent = parent;
	N(new).red = N(old).red;
	N(old).parent = new;
	N(old).red = red;
	change_child(s, old, new, parent, root);
}

void rbsim__insert(struct rbsim *s, uint32_t *root, uint32_t parent, bool left, uint32_t node)
{
	uint32_t gparent, tmp;

	N(node).parent = parent;
	N(node).left = N(node).right = 0;
	N(node).red = true;
	if (!parent)
		*root = node;
	else if (left)
		N(parent).left = node;
	else
		N(parent).right = node;

	for (;;) {
		if (!parent) {
			N(node).red = false;
			break;
		}
		if (!N(parent).red)
			break;
		gparent = N(parent).parent;
		tmp = N(gparent).right;
		if (parent != tmp) {		/* parent is gparent's left child */
			if (is_red(s, tmp)) {	/* case 1: uncle red, flip */
				N(tmp).red = false;
				N(parent).red = false;
				node = gparent;
				parent = N(node).parent;
				N(node).red = true;
				continue;
			}
			tmp = N(parent).right;
			if (node == tmp) {	/* case 2: left rotate at parent */
				tmp = N(node).left;
				N(parent).right = tmp;
				N(node).left = parent;
				if (tmp) {
					N(tmp).parent = parent;
					N(tmp).red = false;
				}
				N(parent).parent = node;
				N(parent).red = true;
				parent = node;
				tmp = N(node).right;
			}
			/* case 3: right rotate at gparent */
			N(gparent).left = tmp;
			N(parent).right = gparent;
			if (tmp) {
				N(tmp).parent = gparent;
				N(tmp).red = false;
			}
			rotate_set_parents(s, gparent, parent, root, true);
			break;
		} else {
			tmp = N(gparent).left;
			if (is_red(s, tmp)) {
				N(tmp).red = false;
				N(parent).red = false;
				node = gparent;
				parent = N(node).parent;
				N(node).red = true;
				continue;
			}
			tmp = N(parent).left;
			if (node == tmp) {
				tmp = N(node).right;
				N(parent).left = tmp;
				N(node).right = parent;
				if (tmp) {
					N(tmp).parent = parent;
					N(tmp).red = false;
				}
				N(parent).parent = node;
				N(parent).red = true;
				parent = node;
				tmp = N(node).left;
			}
			N(gparent).right = tmp;
			N(parent).left = gparent;
			if (tmp) {
				N(tmp).parent = gparent;
				N(tmp).red = false;
			}
			rotate_set_parents(s, gparent, parent, root, true);
			break;
		}
	}
}

/* ____rb_erase_color() */
static void erase_color(struct rbsim *s, uint32_t parent, uint32_t *root)
{
	uint32_t node = 0, sibling, tmp1, tmp2;

	for (;;) {
		sibling = N(parent).right;
		if (node != sibling) {		/* node is the left child */
			if (is_red(s, sibling)) {	/* case 1: left rotate at parent */
				tmp1 = N(sibling).left;
				N(parent).right = tmp1;
				N(sibling).left = parent;
				N(tmp1).parent = parent;
				N(tmp1).red = false;
				rotate_set_parents(s, parent, sibling, root, true);
				sibling = tmp1;
			}
			tmp1 = N(sibling).right;
			if (!is_red(s, tmp1)) {
				tmp2 = N(sibling).left;
				if (!is_red(s, tmp2)) {	/* case 2: sibling colour flip */
					N(sibling).red = true;
					if (N(parent).red) {
						N(parent).red = false;
					} else {
						node = parent;
						parent = N(node).parent;
						if (parent)
							continue;
					}
					break;
				}
				/* case 3: right rotate at sibling */
				tmp1 = N(tmp2).right;
				N(sibling).left = tmp1;
				N(tmp2).right = sibling;
				N(parent).right = tmp2;
				if (tmp1) {
					N(tmp1).parent = sibling;
					N(tmp1).red = false;
				}
				N(sibling).parent = tmp2;
				N(tmp2).parent = parent;
				tmp1 = sibling;
				sibling = tmp2;
			}
			/* case 4: left rotate at parent, colour flips */
			tmp2 = N(sibling).left;
			N(parent).right = tmp2;
			N(sibling).left = parent;
			N(tmp1).parent = sibling;
			N(tmp1).red = false;
			if (tmp2)
				N(tmp2).parent = parent;
			rotate_set_parents(s, parent, sibling, root, false);
			break;
		} else {
			sibling = N(parent).left;
			if (is_red(s, sibling)) {
				tmp1 = N(sibling).right;
				N(parent).left = tmp1;
				N(sibling).right = parent;
				N(tmp1).parent = parent;
				N(tmp1).red = false;
				rotate_set_parents(s, parent, sibling, root, true);
				sibling = tmp1;
			}
			tmp1 = N(sibling).left;
			if (!is_red(s, tmp1)) {
				tmp2 = N(sibling).right;
				if (!is_red(s, tmp2)) {
					N(sibling).red = true;
					if (N(parent).red) {
						N(parent).red = false;
					} else {
						node = parent;
						parent = N(node).parent;
						if (parent)
							continue;
					}
					break;
				}
				tmp1 = N(tmp2).left;
				N(sibling).right = tmp1;
				N(tmp2).left = sibling;
				N(parent).left = tmp2;
				if (tmp1) {
					N(tmp1).parent = sibling;
					N(tmp1).red = false;
				}
				N(sibling).parent = tmp2;
				N(tmp2).parent = parent;
				tmp1 = sibling;
				sibling = tmp2;
			}
			tmp2 = N(sibling).right;
			N(parent).left = tmp2;
			N(sibling).right = parent;
			N(tmp1).parent = sibling;
			N(tmp1).red = false;
			if (tmp2)
				N(tmp2).parent = parent;
			rotate_set_parents(s, parent, sibling, root, false);
			break;
		}
	}
}

/* __rb_erase_augmented() without augmentation, then the fix-up. */
void rbsim__erase(struct rbsim *s, uint32_t *root, uint32_t node)
{
	uint32_t child = N(node).right, tmp = N(node).left, parent, rebalance = 0;
	bool node_red = N(node).red;

	if (!tmp) {
		parent = N(node).parent;
		change_child(s, node, child, parent, root);
		if (child) {
			N(child).parent = parent;
			N(child).red = node_red;
		} else if (!node_red) {
			rebalance = parent;
		}
	} else if (!child) {
		parent = N(node).parent;
		N(tmp).parent = parent;
		N(tmp).red = node_red;
		change_child(s, node, tmp, parent, root);
	} else {
		uint32_t successor = child, child2;

		tmp = N(child).left;
		if (!tmp) {
			parent = successor;
			child2 = N(successor).right;
		} else {
			do {
				parent = successor;
				successor = tmp;
				tmp = N(tmp).left;
			} while (tmp);
			child2 = N(successor).right;
			N(parent).left = child2;
			N(successor).right = child;
			N(child).parent = successor;
		}
		tmp = N(node).left;
		N(successor).left = tmp;
		N(tmp).parent = successor;
		change_child(s, node, successor, N(node).parent, root);
		if (child2) {
			N(child2).parent = parent;
			N(child2).red = false;
		} else if (!N(successor).red) {
			rebalance = parent;
		}
		N(successor).parent = N(node).parent;
		N(successor).red = node_red;
	}
	if (rebalance)
		erase_color(s, rebalance, root);
	npool__free(&s->np, node);
}

uint32_t rbsim__first(struct rbsim *s, uint32_t root)
{
	if (!root)
		return 0;
	while (N(root).left)
		root = N(root).left;
	return root;
}

uint32_t rbsim__next(struct rbsim *s, uint32_t node)
{
	uint32_t parent;

	if (N(node).right) {
		node = N(node).right;
		while (N(node).left)
			node = N(node).left;
		return node;
	}
	while ((parent = N(node).parent) && node == N(parent).right)
		node = parent;
	return parent;
}

uint32_t rbsim__prev(struct rbsim *s, uint32_t node)
{
	uint32_t parent;

	if (N(node).left) {
		node = N(node).left;
		while (N(node).right)
			node = N(node).right;
		return node;
	}
	while ((parent = N(node).parent) && node == N(parent).left)
		node = parent;
	return parent;
}
