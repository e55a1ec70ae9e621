// SPDX-License-Identifier: GPL-2.0
/* ufs / ufs-trimcons, xfs and ext4 presets driven with synthetic FREE / ALLOC / COMMIT streams. */
#include "tests/replay/presets_harness.h"

#include <criterion/parameterized.h>

/* ---- ufs and ufs-trimcons: a table of small streams ---- */
#define MAXIN 8
struct ufs_in { uint64_t t, off, len, ino; };
struct ufs_out { uint64_t t, off, len; };
struct ufs_case {
	char name[48];
	char policy[64];
	struct ufs_in in[MAXIN];
	size_t nin;
	uint64_t end;
	struct ufs_out out[MAXIN];
	size_t nout;
};

static struct ufs_case ufs_cases[] = {
	{ .name = "adjacent after", .policy = "ufs-trimcons", .nin = 2,
	  .in = { { 0, 0, 32 * K, 5 }, { 1, 32 * K, 32 * K, 5 } }, .end = 2,
	  .nout = 1, .out = { { 2, 0, 64 * K } } },
	{ .name = "adjacent before", .policy = "ufs-trimcons", .nin = 2,
	  .in = { { 0, 32 * K, 32 * K, 5 }, { 1, 0, 32 * K, 5 } }, .end = 2,
	  .nout = 1, .out = { { 2, 0, 64 * K } } },
	{ .name = "before then after", .policy = "ufs-trimcons", .nin = 3,
	  .in = { { 0, 32 * K, 32 * K, 5 }, { 1, 0, 32 * K, 5 }, { 2, 64 * K, 32 * K, 5 } }, .end = 3,
	  .nout = 1, .out = { { 3, 0, 96 * K } } },
	{ .name = "non-adjacent sends the run", .policy = "ufs-trimcons", .nin = 3,
	  .in = { { 0, 0, 32 * K, 5 }, { 1, 128 * K, 32 * K, 5 }, { 2, 160 * K, 32 * K, 5 } }, .end = 3,
	  .nout = 2, .out = { { 1, 0, 32 * K }, { 3, 128 * K, 64 * K } } },
	{ .name = "a gap of one block is not adjacent", .policy = "ufs-trimcons", .nin = 2,
	  .in = { { 0, 0, 32 * K, 5 }, { 1, 64 * K, 32 * K, 5 } }, .end = 2,
	  .nout = 2, .out = { { 1, 0, 32 * K }, { 2, 64 * K, 32 * K } } },
	{ .name = "next file ends the release", .policy = "ufs-trimcons", .nin = 2,
	  .in = { { 0, 0, 32 * K, 5 }, { 1, 32 * K, 32 * K, 6 } }, .end = 2,
	  .nout = 2, .out = { { 1, 0, 32 * K }, { 2, 32 * K, 32 * K } } },
	{ .name = "quiet gap ends the release", .policy = "ufs-trimcons", .nin = 2,
	  .in = { { 0, 0, 32 * K, 5 }, { S, 32 * K, 32 * K, 5 } }, .end = 2 * S,
	  .nout = 2, .out = { { 10 * MS, 0, 32 * K }, { S + 10 * MS, 32 * K, 32 * K } } },
	{ .name = "extent freed block by block", .policy = "ufs-trimcons", .nin = 1,
	  .in = { { 0, 0, 96 * K, 5 } }, .end = 1,
	  .nout = 1, .out = { { 1, 0, 96 * K } } },
	{ .name = "ufs: one delete per block", .policy = "ufs", .nin = 1,
	  .in = { { 0, 0, 96 * K, 5 } }, .end = 1,
	  .nout = 3, .out = { { 0, 0, 32 * K }, { 0, 32 * K, 32 * K }, { 0, 64 * K, 32 * K } } },
	{ .name = "ufs: tail first", .policy = "ufs(order=desc)", .nin = 1,
	  .in = { { 0, 0, 64 * K, 5 } }, .end = 1,
	  .nout = 2, .out = { { 0, 32 * K, 32 * K }, { 0, 0, 32 * K } } },
	{ .name = "ufs: fragments stay whole", .policy = "ufs", .nin = 1,
	  .in = { { 0, 36 * K, 8 * K, 5 } }, .end = 1,
	  .nout = 1, .out = { { 0, 36 * K, 8 * K } } },
	{ .name = "trimcons, tail first still one run", .policy = "ufs-trimcons(order=desc)", .nin = 1,
	  .in = { { 0, 0, 128 * K, 5 } }, .end = 1,
	  .nout = 1, .out = { { 1, 0, 128 * K } } },
};

ParameterizedTestParameters(ufs, streams)
{
	return cr_make_param_array(struct ufs_case, ufs_cases, sizeof(ufs_cases) / sizeof(ufs_cases[0]));
}

ParameterizedTest(struct ufs_case *c, ufs, streams)
{
	struct harness *h = h_new(c->policy, 0, 0);

	for (size_t i = 0; i < c->nin; i++)
		h_free(h, c->in[i].t, c->in[i].off, c->in[i].len, c->in[i].ino);
	h_end(h, c->end);
	cr_assert_eq(h->cap.n, c->nout, "%s: %zu commands, expected %zu", c->name, h->cap.n, c->nout);
	for (size_t i = 0; i < c->nout; i++)
		EXPECT_EV(h, i, c->out[i].t, c->out[i].off, c->out[i].len);
	h_free_all(h);
}

/* rm -rf: many files, each freeing a few runs of contiguous blocks (extents of 256 UFS blocks). */
static void rm_rf(struct harness *h, unsigned files)
{
	uint64_t t = 0;

	for (unsigned f = 0; f < files; f++) {
		uint64_t base = (uint64_t)f * 64 * MIB;

		h_free(h, t += 1000, base, 8 * MIB, 100 + f);
		h_free(h, t += 1000, base + 32 * MIB, 8 * MIB, 100 + f);
	}
	h_end(h, t + S);
}

Test(ufs, rm_rf_trimcons_100x_fewer)
{
	struct harness *plain = h_new("ufs", 0, 0), *cons = h_new("ufs-trimcons", 0, 0);

	rm_rf(plain, 500);
	rm_rf(cons, 500);
	cr_assert_eq(plain->cap.n, 500ull * 2 * 256, "ufs: %zu", plain->cap.n);
	cr_assert_eq(cons->cap.n, 500ull * 2, "ufs-trimcons: %zu", cons->cap.n);
	cr_assert_geq(plain->cap.n, 100 * cons->cap.n);
	cr_assert_eq(plain->cap.bytes, cons->cap.bytes);
	cr_assert_eq(cons->cap.max_len, 8 * MIB);
	h_free_all(plain);
	h_free_all(cons);
}

/* ---- xfs ---- */
Test(xfs, one_command_per_busy_extent_after_commit)
{
	struct harness *h = h_new("xfs(plug=0)", 0, 0);

	h_free(h, 1, 100 * K, 4 * K, 0);
	h_free(h, 2, 0, 4 * K, 0);
	h_free(h, 3, 4 * K, 4 * K, 0);		/* adjacent to the previous: still its own busy extent */
	h_free(h, 4, 40 * K, 8 * K, 0);
	cr_assert_eq(h->cap.n, 0, "nothing may be discarded before the checkpoint commits");
	h_commit(h, 10);
	cr_assert_eq(h->cap.n, 4);
	EXPECT_EV(h, 0, 10, 0, 4 * K);		/* xfs_extent_busy_sort(): device order */
	EXPECT_EV(h, 1, 10, 4 * K, 4 * K);
	EXPECT_EV(h, 2, 10, 40 * K, 8 * K);
	EXPECT_EV(h, 3, 10, 100 * K, 4 * K);
	cr_assert_eq(h->cap.ev[3].freed, 1);
	h_end(h, 20);
	cr_assert_eq(h->cap.n, 4);
	h_free_all(h);
}

Test(xfs, plug_merges_contiguous_bios)
{
	struct harness *h = h_new("xfs", 1ull << 40, 1);

	h_free(h, 1, 4 * K, 4 * K, 0);
	h_free(h, 2, 0, 4 * K, 0);
	h_free(h, 3, 64 * K, 4 * K, 0);
	h_commit(h, 10);
	h_mark(h, 11);
	cr_assert_eq(h->cap.n, 2);
	EXPECT_EV(h, 0, 10, 0, 8 * K);
	EXPECT_EV(h, 1, 10, 64 * K, 4 * K);
	cr_assert_eq(h->cap.ev[0].count, 2);
	h_free_all(h);
}

Test(xfs, plug_multi_range_on_multi_segment_devices)
{
	struct harness *h = h_new("xfs", 1ull << 40, 4);

	for (int i = 0; i < 6; i++)
		h_free(h, 1 + i, (uint64_t)i * 64 * K, 4 * K, 0);
	h_commit(h, 10);
	h_end(h, 11);
	cr_assert_eq(h->cap.n, 2);
	cr_assert_eq(h->cap.ev[0].nsegs, 4);
	cr_assert_eq(h->cap.ev[0].bytes, 16 * K);
	cr_assert_eq(h->cap.ev[1].bytes, 8 * K);
	h_free_all(h);
}

Test(xfs, allocation_reuses_busy_extent)
{
	struct harness *h = h_new("xfs(plug=0)", 0, 0);

	h_free(h, 1, 0, 16 * K, 0);
	h_alloc(h, 2, 4 * K, 4 * K);
	h_commit(h, 3);
	cr_assert_eq(h->cap.n, 2);
	EXPECT_EV(h, 0, 3, 0, 4 * K);
	EXPECT_EV(h, 1, 3, 8 * K, 8 * K);
	h_free_all(h);
}

Test(xfs, log_worker_commits_without_commit_records)
{
	struct harness *h = h_new("xfs(plug=0)", 0, 0);

	h_free(h, 1 * S, 0, 4 * K, 0);
	h_free(h, 29 * S, 8 * K, 4 * K, 0);
	h_mark(h, 29 * S + 1);
	cr_assert_eq(h->cap.n, 0);
	h_free(h, 31 * S, 16 * K, 4 * K, 0);
	cr_assert_eq(h->cap.n, 2);
	EXPECT_EV(h, 0, 30 * S, 0, 4 * K);
	h_end(h, 40 * S);		/* unmount forces the log */
	cr_assert_eq(h->cap.n, 3);
	EXPECT_EV(h, 2, 40 * S, 16 * K, 4 * K);
	h_free_all(h);
}

/* ---- ext4 ---- */
Test(ext4, adjacent_frees_of_one_transaction_merge)
{
	struct harness *h = h_new("ext4", 0, 0);

	h_free(h, 1, 8 * K, 4 * K, 7);
	h_free(h, 2, 64 * K, 4 * K, 7);
	h_free(h, 3, 0, 4 * K, 7);
	h_free(h, 4, 4 * K, 4 * K, 7);		/* joins both neighbours */
	cr_assert_eq(h->cap.n, 0, "no discard before the journal commit");
	h_commit(h, 10);
	cr_assert_eq(h->cap.n, 2);
	EXPECT_EV(h, 0, 10, 64 * K, 4 * K);	/* list order: the merged entry went to the tail */
	EXPECT_EV(h, 1, 10, 0, 12 * K);
	cr_assert_eq(h->cap.ev[1].freed, 1);
	cr_assert_eq(h->cap.ev[1].count, 1);
	h_free_all(h);
}

Test(ext4, frees_of_different_transactions_stay_apart)
{
	struct harness *h = h_new("ext4", 0, 0);

	h_free(h, 1, 0, 4 * K, 7);
	h_commit(h, 2);
	h_free(h, 3, 4 * K, 4 * K, 7);
	h_commit(h, 4);
	cr_assert_eq(h->cap.n, 2);
	EXPECT_EV(h, 0, 2, 0, 4 * K);
	EXPECT_EV(h, 1, 4, 4 * K, 4 * K);	/* runs extend forward only */
	h_free_all(h);
}

Test(ext4, trimmed_run_extends_to_next_allocated_block)
{
	struct harness *h = h_new("ext4", 0, 0), *old = h_new("ext4(extend=0)", 0, 0);

	h_snapshot(h, 64 * K, 960 * K);
	h_snapshot(old, 64 * K, 960 * K);
	h_alloc(h, 1, 512 * K, 4 * K);
	h_alloc(old, 1, 512 * K, 4 * K);
	h_free(h, 2, 60 * K, 4 * K, 7);
	h_free(old, 2, 60 * K, 4 * K, 7);
	h_commit(h, 3);
	h_commit(old, 3);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 3, 60 * K, 452 * K);	/* up to the allocated block at 512K */
	cr_assert_eq(old->cap.n, 1);
	EXPECT_EV(old, 0, 3, 60 * K, 4 * K);
	h_free_all(h);
	h_free_all(old);
}

Test(ext4, no_merge_across_block_groups)
{
	struct harness *h = h_new("ext4", 0, 0);

	h_free(h, 1, 128 * MIB - 4 * K, 4 * K, 7);
	h_free(h, 2, 128 * MIB, 4 * K, 7);
	h_commit(h, 3);
	cr_assert_eq(h->cap.n, 2);
	EXPECT_EV(h, 0, 3, 128 * MIB - 4 * K, 4 * K);
	EXPECT_EV(h, 1, 3, 128 * MIB, 4 * K);
	h_free_all(h);
}

Test(ext4, commit_timer_without_commit_records)
{
	struct harness *h = h_new("ext4", 0, 0);

	h_free(h, 1 * S, 0, 4 * K, 7);
	h_free(h, 2 * S, 4 * K, 4 * K, 7);
	h_mark(h, 6 * S - 1);
	cr_assert_eq(h->cap.n, 0);
	h_mark(h, 7 * S);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 6 * S, 0, 8 * K);
	h_free_all(h);
}

Test(ext4, writeback_discards_at_once)
{
	struct harness *h = h_new("ext4(journal=0)", 0, 0);

	h_free(h, 5, 0, 4 * K, 7);
	h_free(h, 6, 4 * K, 4 * K, 7);
	cr_assert_eq(h->cap.n, 2);
	EXPECT_EV(h, 0, 5, 0, 4 * K);
	EXPECT_EV(h, 1, 6, 4 * K, 4 * K);
	h_free_all(h);
}

Test(presets, every_preset_expands)
{
	static const char *const names[] = { "xfs", "ext4", "ufs", "ufs-trimcons", "btrfs-async", "f2fs",
					     "fstrim", "fstrim(1d,64K)", NULL };

	for (const char *const *n = names; *n; n++) {
		struct harness *h = h_new(*n, 0, 0);

		cr_assert_eq(policy__props(h->p)->source, PS_FREE, "%s", *n);
		cr_assert(policy__props(h->p)->qd_set, "%s", *n);
		h_free_all(h);
	}
}

/* Linux >= 6.17 merges a free only with the rb-tree node its descent ends at. */
Test(ext4, merge_parent_misses_the_other_neighbour)
{
	struct harness *h = h_new("ext4(extend=0)", 0, 0), *old = h_new("ext4(extend=0,merge=neighbours)", 0, 0);
	struct harness *hs[2] = { h, old };

	for (int i = 0; i < 2; i++) {
		h_free(hs[i], 1, 0, 4 * K, 7);		/* root */
		h_free(hs[i], 2, 12 * K, 4 * K, 7);	/* its right child */
		h_free(hs[i], 3, 4 * K, 4 * K, 7);	/* descent ends at [12K): [0,4K) is not tried */
		h_commit(hs[i], 10);
	}
	cr_assert_eq(h->cap.n, 3);
	EXPECT_EV(h, 0, 10, 0, 4 * K);
	EXPECT_EV(h, 1, 10, 12 * K, 4 * K);
	EXPECT_EV(h, 2, 10, 4 * K, 4 * K);
	cr_assert_eq(old->cap.n, 2);
	EXPECT_EV(old, 0, 10, 12 * K, 4 * K);
	EXPECT_EV(old, 1, 10, 0, 8 * K);		/* merged, moved to the tail */
	h_free_all(h);
	h_free_all(old);
}

/* push_flush: the first cache flush after a commit closes the checkpoint being pushed. */
Test(xfs, flush_cuts_the_checkpoint)
{
	struct harness *h = h_new("source(free) | xfs-cil(push_flush=1) | dispatch(qd=0)", 0, 0);

	h_free(h, 1, 0, 4 * K, 0);
	h_rec(h, TS_ISSUE, TS_OP_FLUSH, 2, 0, 0, 0, 0);		/* the push's first iclog */
	h_free(h, 3, 4 * K, 4 * K, 0);				/* next checkpoint */
	h_rec(h, TS_ISSUE, TS_OP_FLUSH, 4, 0, 0, 0, 0);		/* commit record: no second cut */
	h_commit(h, 5);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 5, 0, 4 * K);
	h_rec(h, TS_ISSUE, TS_OP_WRITE, 6, 0, 4 * K, 0, TS_F_PREFLUSH);
	h_commit(h, 7);
	cr_assert_eq(h->cap.n, 2);
	EXPECT_EV(h, 1, 7, 4 * K, 4 * K);
	h_free_all(h);
}
