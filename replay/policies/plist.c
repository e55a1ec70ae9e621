// SPDX-License-Identifier: GPL-2.0
/*
 * f2fs pending discard commands by bucket (see plist.h). The pending space
 * is one coalescing ivset; beside it, bucket b's ivset (exact: adjacent runs
 * stay apart) holds a run [start, end) with aux = the command length for
 * every group of equal eligible commands in bucket b. Any change to a
 * pending extent first drops its runs and then files the runs of what
 * replaces it, so the buckets always describe exactly the current extents.
 */
#include <errno.h>
#include <stdlib.h>

#include "replay/policies/plist.h"

#define PLIST_WORDS	(PLIST_NUM / 64)

struct plist {
	struct ivset *pend;		/* val = earliest freed_ns joined */
	struct ivset *bucket[PLIST_NUM];	/* created on first use */
	uint64_t nonempty[PLIST_WORDS];
	uint64_t block, max_cmd;
	uint32_t granularity;
};

/* One extent's commands: the full max_cmd ones, then the tail (in (0, max_cmd]). */
struct run {
	uint64_t start, end, cmd;
	unsigned idx;
	bool ok;
};

struct plist *plist__new(uint64_t block, uint64_t max_cmd, uint32_t granularity)
{
	struct plist *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (!(p->pend = ivset__new(true))) {
		free(p);
		return NULL;
	}
	p->block = block;
	p->max_cmd = max_cmd;
	p->granularity = granularity;
	return p;
}

void plist__destroy(struct plist *p)
{
	if (!p)
		return;
	ivset__destroy(p->pend);
	for (unsigned i = 0; i < PLIST_NUM; i++)
		ivset__destroy(p->bucket[i]);
	free(p);
}

/* plist_idx(): bucket of a command of this many bytes. */
static unsigned plist_idx(const struct plist *p, uint64_t bytes)
{
	uint64_t blk = bytes / p->block;

	return blk >= PLIST_NUM ? PLIST_NUM - 1 : blk ? (unsigned)blk - 1 : 0;
}

/* DPOLICY_BG issues nothing below discard_granularity. */
static bool eligible(const struct plist *p, uint64_t bytes)
{
	return plist_idx(p, bytes) + 1 >= p->granularity && bytes >= p->block;
}

/* The commands of v, as __update_discard_tree_range() cuts them: max_cmd each from the start. */
static void runs_of(const struct plist *p, const struct iv *v, struct run r[2])
{
	uint64_t len = v->end - v->start, full = (len - 1) / p->max_cmd * p->max_cmd, tail = len - full;

	r[0] = (struct run){ v->start, v->start + full, p->max_cmd, plist_idx(p, p->max_cmd),
			     full && eligible(p, p->max_cmd) };
	r[1] = (struct run){ v->start + full, v->end, tail, plist_idx(p, tail), eligible(p, tail) };
}

static int file_extent(struct plist *p, const struct iv *v)
{
	struct run r[2];
	int err;

	runs_of(p, v, r);
	for (int i = 0; i < 2; i++) {
		struct ivset **b = &p->bucket[r[i].idx];

		if (!r[i].ok)
			continue;
		if (!*b && !(*b = ivset__new(false)))
			return -ENOMEM;
		if ((err = ivset__add(*b, r[i].start, r[i].end - r[i].start, v->val, r[i].cmd)))
			return err;
		p->nonempty[r[i].idx / 64] |= 1ull << (r[i].idx % 64);
	}
	return 0;
}

static void unfile_extent(struct plist *p, const struct iv *v)
{
	struct run r[2];

	runs_of(p, v, r);
	for (int i = 0; i < 2; i++) {
		struct ivset *b = p->bucket[r[i].idx];

		if (!r[i].ok)
			continue;
		ivset__erase(b, r[i].start);
		if (!ivset__count(b))
			p->nonempty[r[i].idx / 64] &= ~(1ull << (r[i].idx % 64));
	}
}

int plist__add(struct plist *p, uint64_t start, uint64_t len, uint64_t val)
{
	uint64_t end = start + len;
	struct iv v;
	bool have;
	int err;

	if (!len)
		return 0;
	/* Every extent touching [start, end] joins the new one (the set keeps extents apart). */
	have = (ivset__find_le(p->pend, start, &v) && v.end >= start) || ivset__next(p->pend, start, &v);
	for (; have && v.start <= end; have = ivset__next(p->pend, v.end, &v))
		unfile_extent(p, &v);
	if ((err = ivset__add(p->pend, start, len, val, 0)))
		return err;
	ivset__next(p->pend, start, &v);
	return file_extent(p, &v);
}

int plist__remove(struct plist *p, uint64_t start, uint64_t len)
{
	uint64_t end = start + len;
	struct iv v, first = { 0 }, last = { 0 };
	bool any = false;
	int err;

	if (!len)
		return 0;
	for (uint64_t pos = start; ivset__next(p->pend, pos, &v) && v.start < end; pos = v.end) {
		if (!any)
			first = v;
		last = v;
		any = true;
		unfile_extent(p, &v);
	}
	if (!any)
		return 0;
	if ((err = ivset__remove(p->pend, start, len)))
		return err;
	/* What is left of the first and last extent keeps their value, as in ivset__remove(). */
	if (first.start < start && (err = file_extent(p, &(struct iv){ first.start, start, first.val, 0 })))
		return err;
	if (last.end > end && (err = file_extent(p, &(struct iv){ end, last.end, last.val, 0 })))
		return err;
	return 0;
}

uint32_t plist__select(const struct plist *p, struct iv *pick, uint32_t max)
{
	uint32_t n = 0;

	for (int w = PLIST_WORDS - 1; w >= 0 && n < max; w--) {
		uint64_t bits = p->nonempty[w];

		while (bits && n < max) {
			int hi = 63 - __builtin_clzll(bits);
			const struct ivset *b = p->bucket[w * 64 + hi];
			uint64_t pos = 0;
			struct iv r;

			bits &= ~(1ull << hi);
			while (n < max && ivset__next(b, pos, &r)) {
				pos = r.end;
				for (uint64_t c = r.start; c < r.end && n < max; c += r.aux)
					pick[n++] = (struct iv){ c, c + r.aux, r.val, 0 };
			}
		}
	}
	return n;
}

size_t plist__count(const struct plist *p)
{
	return ivset__count(p->pend);
}

uint64_t plist__bytes(const struct plist *p)
{
	return ivset__bytes(p->pend);
}
