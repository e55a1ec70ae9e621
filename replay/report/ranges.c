// SPDX-License-Identifier: GPL-2.0
/* Union of byte ranges (see ranges.h): a coalescing ivset and the bytes added. */
#include <errno.h>
#include <stdlib.h>

#include "replay/report/ranges.h"
#include "replay/policies/ivset.h"

struct ranges {
	struct ivset *set;
	uint64_t total;
};

struct ranges *ranges__new(void)
{
	struct ranges *r = calloc(1, sizeof(*r));

	if (r && !(r->set = ivset__new(true))) {
		free(r);
		return NULL;
	}
	return r;
}

int ranges__add(struct ranges *r, uint64_t offset, uint64_t length)
{
	/* the union stops at the end of the 64-bit space; the total counts what was added */
	if (ivset__add(r->set, offset, length > UINT64_MAX - offset ? UINT64_MAX - offset : length, 0, 0))
		return -ENOMEM;
	r->total += length;
	return 0;
}

uint64_t ranges__unique(struct ranges *r)
{
	return ivset__bytes(r->set);
}

uint64_t ranges__total(const struct ranges *r)
{
	return r->total;
}

size_t ranges__extents(struct ranges *r)
{
	return ivset__count(r->set);
}

void ranges__destroy(struct ranges *r)
{
	if (!r)
		return;
	ivset__destroy(r->set);
	free(r);
}
