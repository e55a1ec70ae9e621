// SPDX-License-Identifier: GPL-2.0
/* Background discarders: btrfs-async, f2fs and fstrim, driven with synthetic streams. */
#include "tests/replay/presets_harness.h"

/* ---- btrfs-async ---- */
Test(btrfs, nothing_before_the_120s_delay)
{
	struct harness *h = h_new("btrfs-async", 0, 0);

	h_free(h, 0, 0, 4 * MIB, 0);
	h_mark(h, 119 * S);
	cr_assert_eq(h->cap.n, 0, "discarded before BTRFS_DISCARD_DELAY");
	h_mark(h, 600 * S);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 120 * S, 0, 4 * MIB);
	cr_assert_eq(policy__next_deadline(h->p), UINT64_MAX, "the group left the lists after its passes");
	h_free_all(h);
}

Test(btrfs, discards_capped_at_64m)
{
	struct harness *h = h_new("btrfs-async", 0, 0);

	h_free(h, 0, 0, 200 * MIB, 0);
	h_mark(h, 200 * S);
	cr_assert_eq(h->cap.n, 4);
	cr_assert_eq(h->cap.max_len, 64 * MIB);
	cr_assert_eq(h->cap.bytes, 200 * MIB);
	EXPECT_EV(h, 0, 120 * S, 0, 64 * MIB);
	EXPECT_EV(h, 3, 120 * S + 3 * MS, 192 * MIB, 8 * MIB);
	h_free_all(h);
}

Test(btrfs, remainder_under_min_filter_goes_along)
{
	struct harness *h = h_new("btrfs-async", 0, 0);

	h_free(h, 0, 0, 64 * MIB + 16 * K, 0);
	h_mark(h, 200 * S);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 120 * S, 0, 64 * MIB + 16 * K);
	h_free_all(h);
}

Test(btrfs, iops_limit_spaces_discards)
{
	struct harness *h = h_new("btrfs-async(iops_limit=10)", 0, 0);

	for (int i = 0; i < 5; i++)
		h_free(h, (uint64_t)i, (uint64_t)i * 4 * MIB, 2 * MIB, 0);
	h_mark(h, 200 * S);
	cr_assert_eq(h->cap.n, 5);
	for (size_t i = 1; i < 5; i++)
		cr_expect_eq(h->cap.ev[i].t - h->cap.ev[i - 1].t, 100 * MS, "gap %zu: %lu ns", i,
			     (unsigned long)(h->cap.ev[i].t - h->cap.ev[i - 1].t));
	h_free_all(h);
}

Test(btrfs, kbps_limit_waits_for_the_bytes)
{
	struct harness *h = h_new("btrfs-async(kbps_limit=1024)", 0, 0);

	h_free(h, 0, 0, 2 * MIB, 0);
	h_free(h, 1, 4 * MIB, 2 * MIB, 0);
	h_mark(h, 200 * S);
	cr_assert_eq(h->cap.n, 2);
	EXPECT_EV(h, 1, 122 * S, 4 * MIB, 2 * MIB);
	h_free_all(h);
}

Test(btrfs, small_free_space_is_left_alone)
{
	struct harness *h = h_new("btrfs-async", 0, 0);

	h_free(h, 0, 0, 16 * K, 0);
	h_free(h, 1, 1 * MIB, 16 * K, 0);
	h_free(h, 2, 8 * MIB, 512 * K, 0);	/* list 2 (32 KiB filter) catches this one, a pass later */
	h_mark(h, 600 * S);
	cr_assert_eq(h->cap.n, 1);
	cr_assert_eq(h->cap.ev[0].off, 8 * MIB);
	cr_assert_geq(h->cap.ev[0].t, 240 * S);
	h_free_all(h);
}

Test(btrfs, unused_block_group_after_10s)
{
	struct harness *h = h_new("btrfs-async(bgsize=64M)", 0, 0);

	h_snapshot(h, 4 * MIB, 60 * MIB);
	h_free(h, 1 * S, 0, 4 * MIB, 0);
	h_mark(h, 100 * S);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 11 * S, 0, 64 * MIB);
	h_free_all(h);
}

Test(btrfs, drain_after_the_trace)
{
	struct harness *h = h_new("btrfs-async", 0, 0), *stop = h_new("btrfs-async(drain=0)", 0, 0);

	h_free(h, 0, 0, 4 * MIB, 0);
	h_free(stop, 0, 0, 4 * MIB, 0);
	h_end(h, 10 * S);
	h_end(stop, 10 * S);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 120 * S, 0, 4 * MIB);	/* in the future of the trace's end */
	cr_assert_eq(stop->cap.n, 0);
	h_free_all(h);
	h_free_all(stop);
}

/*
 * Free space coalesces across a group boundary in our per-device set; the
 * kernel's free-space cache is per group. Group 0 holds only 16 KiB of the
 * run (under both filters): its passes end at the group's end (they used to
 * find the same extent again forever) and group 1 trims its own 4 MiB.
 */
Test(btrfs, free_space_across_a_group_boundary, .timeout = 20)
{
	struct harness *h = h_new("btrfs-async(bgsize=64M)", 0, 0);

	h_free(h, 0, 64 * MIB - 16 * K, 16 * K, 0);
	h_free(h, 1, 64 * MIB, 4 * MIB, 0);
	h_mark(h, 600 * S);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 120 * S + 2 * MS, 64 * MIB, 4 * MIB);	/* group 0's pass: two runs, nothing sent */
	cr_assert_eq(policy__next_deadline(h->p), UINT64_MAX, "both groups left the lists");
	h_end(h, 600 * S);
	cr_assert_eq(h->cap.n, 1);
	h_free_all(h);
}

/* ---- f2fs ---- */
Test(f2fs, sub_granularity_frees_ignored)
{
	struct harness *h = h_new("f2fs", 0, 0);

	h_free(h, 0, 0, 8 * K, 0);
	h_free(h, 1, 100 * K, 60 * K, 0);	/* 15 blocks < 16 */
	h_free(h, 2, 1 * MIB, 64 * K, 0);		/* 16 blocks: eligible */
	h_commit(h, 1 * S);
	h_mark(h, 300 * S);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 60 * S + 50 * MS, 1 * MIB, 64 * K);
	h_free_all(h);
}

Test(f2fs, busy_fs_backs_off)
{
	struct harness *h = h_new("f2fs(max_interval=2s)", 0, 0);

	h_free(h, 0, 0, 1 * MIB, 0);
	h_commit(h, 1 * S);
	h_rec(h, TS_ISSUE, TS_OP_WRITE, 4 * S, 64 * MIB, 4 * K, 0, 0);	/* foreground I/O */
	h_mark(h, 8 * S);
	cr_assert_eq(h->cap.n, 0, "issued while the fs was busy");
	h_mark(h, 20 * S);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 9 * S, 0, 1 * MIB);	/* 5 s after the last I/O */
	h_free_all(h);
}

Test(f2fs, rounds_of_eight_largest_first)
{
	struct harness *h = h_new("f2fs", 0, 0);
	struct policy_done d = { .submit_ns = 60 * S, .done_ns = 61 * S, .count = 1 };

	for (uint64_t i = 1; i <= 10; i++)
		h_free(h, i, i * 64 * MIB, i * MIB, 0);
	h_commit(h, 1 * S);
	h_mark(h, 61 * S - 1);
	cr_assert_eq(h->cap.n, 8);
	for (size_t i = 0; i < 8; i++)
		cr_expect_eq(h->cap.ev[i].off, (i + 2) * 64 * MIB);	/* 1 MiB is a smaller bucket */
	for (int i = 0; i < 8; i++)
		cr_assert_eq(policy__complete(h->p, &d), 0);
	h_mark(h, 62 * S);
	cr_assert_eq(h->cap.n, 10);
	EXPECT_EV(h, 8, 61 * S + 50 * MS, 10 * 64 * MIB, 10 * MIB);
	EXPECT_EV(h, 9, 61 * S + 50 * MS, 64 * MIB, 1 * MIB);
	h_free_all(h);
}

/*
 * Commands longer than discard_max_bytes (2 GiB here) are cut from the
 * extent's start; every piece of >= 512 blocks is in the last bucket, where
 * the lower offset goes first. An allocation inside a pending extent splits
 * it, and the right part is cut again from its own start.
 */
Test(f2fs, long_extents_cut_at_discard_max_bytes)
{
	struct harness *h = h_new("f2fs", 64ull << 30, 1);
	const uint64_t G = 1ull << 30;
	const uint64_t want[][2] = {
		{ 0, 1 * G }, { 1 * G + 4 * K, 2 * G }, { 3 * G + 4 * K, 2 * G - 4 * K },
		{ 10 * G, 2 * G }, { 12 * G, 1 * G }, { 20 * G, 1 * MIB }, { 30 * G, 64 * K },
	};

	h_free(h, 1, 30 * G, 64 * K, 0);
	h_free(h, 2, 20 * G, 1 * MIB, 0);
	h_free(h, 3, 10 * G, 3 * G, 0);
	h_free(h, 4, 0, 5 * G, 0);
	h_free(h, 5, 40 * G, 60 * K, 0);		/* 15 blocks: never issued */
	h_commit(h, 1 * S);
	h_alloc(h, 2 * S, 1 * G, 4 * K);
	h_mark(h, 61 * S - 1);
	cr_assert_eq(h->cap.n, 7);
	for (size_t i = 0; i < 7; i++)
		EXPECT_EV(h, i, 60 * S + 50 * MS, want[i][0], want[i][1]);
	h_free_all(h);
}

Test(f2fs, drain_after_the_trace)
{
	struct harness *h = h_new("f2fs", 0, 0), *stop = h_new("f2fs(drain=0)", 0, 0);

	for (int i = 0; i < 10; i++) {
		h_free(h, 1 + i, (uint64_t)i * 4 * MIB, 1 * MIB, 0);
		h_free(stop, 1 + i, (uint64_t)i * 4 * MIB, 1 * MIB, 0);
	}
	h_free(h, 20, 64 * MIB, 8 * K, 0);		/* sub-granularity: stays */
	h_end(h, 2 * S);				/* no checkpoint in the trace: flush checkpoints */
	h_end(stop, 2 * S);
	cr_assert_eq(h->cap.n, 10);
	EXPECT_EV(h, 0, 60 * S + 50 * MS, 0, 1 * MIB);	/* idle 5 s after the last free */
	EXPECT_EV(h, 8, 60 * S + 100 * MS, 32 * MIB, 1 * MIB);
	cr_assert_eq(stop->cap.n, 0);
	h_free_all(h);
	h_free_all(stop);
}

/* ---- fstrim ---- */
Test(fstrim, only_free_untrimmed_space_at_least_minlen)
{
	struct harness *h = h_new("fstrim(interval=10s,minlen=64K,final=0)", 0, 0);

	h_snapshot(h, 1 * MIB, 1 * MIB);
	h_free(h, 1 * S, 0, 128 * K, 0);
	h_free(h, 2 * S, 512 * K, 16 * K, 0);	/* shorter than minlen */
	h_alloc(h, 3 * S, 1 * MIB + 512 * K, 4 * K);
	h_mark(h, 11 * S);
	cr_assert_eq(h->cap.n, 3);
	EXPECT_EV(h, 0, 10 * S, 0, 128 * K);
	EXPECT_EV(h, 1, 10 * S, 1 * MIB, 512 * K);
	EXPECT_EV(h, 2, 10 * S, 1 * MIB + 516 * K, 508 * K);
	/* The next pass finds nothing new. */
	h_mark(h, 21 * S);
	cr_assert_eq(h->cap.n, 3, "re-trimmed on the second pass");
	/* Freed again next to trimmed space: only the new part. */
	h_free(h, 25 * S, 128 * K, 64 * K, 0);
	h_mark(h, 31 * S);
	cr_assert_eq(h->cap.n, 4);
	EXPECT_EV(h, 3, 30 * S, 128 * K, 64 * K);
	h_end(h, 32 * S);
	cr_assert_eq(h->cap.n, 4);
	h_free_all(h);
}

Test(fstrim, final_pass_at_end_of_trace)
{
	struct harness *h = h_new("fstrim", 0, 0);

	h_free(h, 1 * S, 0, 1 * MIB, 0);
	h_mark(h, 3600 * S);
	cr_assert_eq(h->cap.n, 0);
	h_end(h, 3601 * S);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 3601 * S, 0, 1 * MIB);
	h_free_all(h);
}

Test(fstrim, xfs_mode_trims_all_free_space_every_pass)
{
	struct harness *h = h_new("fstrim(interval=10s,mode=xfs,final=0)", 0, 0);

	h_free(h, 1 * S, 0, 1 * MIB, 0);
	h_mark(h, 21 * S);
	cr_assert_eq(h->cap.n, 2);
	EXPECT_EV(h, 1, 20 * S, 0, 1 * MIB);
	h_free_all(h);
}

Test(fstrim, ext4_mode_skips_groups_without_frees)
{
	struct harness *h = h_new("source(free) | fitrim(interval=10s,mode=ext4,group=1M,final=0)", 0, 0);

	h_snapshot(h, 0, 4 * MIB);
	h_mark(h, 11 * S);
	cr_assert_eq(h->cap.n, 4);		/* one extent per group */
	h_free(h, 12 * S, 2 * MIB + 4 * K, 4 * K, 0);	/* already free: the group is touched anyway */
	h_mark(h, 21 * S);
	cr_assert_eq(h->cap.n, 5);
	EXPECT_EV(h, 4, 20 * S, 2 * MIB, 1 * MIB);	/* the whole free extent of that group */
	h_free_all(h);
}
