// SPDX-License-Identifier: GPL-2.0
/*
 * Periodic timers that find nothing to do park (issue 15 item 4: one record at
 * t ~ 2^63 ns took 4-6 s with -p f2fs, 1.5e8 empty wakes of its discard
 * thread). A parked stage has no deadline, so an idle span of the trace costs
 * nothing, and the wakes it skipped are accounted for when work comes: the
 * commands go out at the same times as when every wake ran (the corpus replays
 * stay byte-identical), and fstrim still counts every pass.
 */
#include "tests/replay/presets_harness.h"

static uint64_t stage_figure(struct harness *h, const char *key)
{
	json_t *r = policy__report(h->p), *st = json_object_get(r, "stages"), *v = NULL;
	uint64_t out;

	for (size_t i = 0; !v && i < json_array_size(st); i++)
		v = json_object_get(json_array_get(st, i), key);
	cr_assert(json_is_integer(v), "no stage reports %s", key);
	out = (uint64_t)json_integer_value(v);
	json_decref(r);
	return out;
}

/* f2fs's issue_discard_thread() sleeps max_discard_issue_time (60 s) while nothing is eligible. */
Test(idle, f2fs_thread_parks, .timeout = 120)
{
	struct harness *h = h_new("f2fs", 0, 0);
	struct policy_done d = { .submit_ns = 60 * S + 50 * MS, .done_ns = 60 * S + 51 * MS, .count = 1 };

	h_mark(h, 100 * MS);	/* the first wake (50 ms) found nothing */
	cr_expect_eq(policy__next_deadline(h->p), UINT64_MAX, "an idle thread keeps a deadline");
	h_free(h, 1 * S, 0, 1 * MIB, 0);
	h_commit(h, 2 * S);	/* candidates: the thread's next wake is its own, 50 ms + 60 s */
	h_mark(h, 61 * S);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 60 * S + 50 * MS, 0, 1 * MIB);
	cr_assert_eq(policy__complete(h->p, &d), 0);
	h_mark(h, 200 * S);	/* the wake after the completion found nothing again */
	cr_expect_eq(policy__next_deadline(h->p), UINT64_MAX);
	/* A free far out in time: nothing runs in between, its wake is on the 60 s grid of the last one. */
	h_free(h, 1ull << 62, 4 * MIB, 1 * MIB, 0);
	h_commit(h, (1ull << 62) + 1);
	h_end(h, (1ull << 62) + 2);
	cr_assert_eq(h->cap.n, 2);
	cr_expect_eq(h->cap.ev[1].off, 4 * MIB);
	cr_expect_eq(stage_figure(h, "discards"), 2);
	h_free_all(h);
}

/*
 * fstrim.timer with nothing untrimmed: the passes in between are counted, not
 * ticked. A free becomes untrimmed when its transaction commits (a META_COMMIT
 * record here), and only then does a pass have work.
 */
Test(idle, fstrim_timer_parks, .timeout = 120)
{
	struct harness *h = h_new("source(free) | fitrim(interval=1s,final=0)", 0, 0);

	h_mark(h, 10 * MS);
	cr_expect_eq(policy__next_deadline(h->p), UINT64_MAX, "nothing untrimmed, yet a pass is due");
	h_free(h, 500 * MS, 0, 1 * MIB, 0);
	/* no commit record seen yet: the transaction's own commit timer, no pass */
	cr_expect_eq(policy__next_deadline(h->p), 5 * S + 500 * MS, "a free not yet committed made a pass due");
	h_commit(h, 600 * MS);
	cr_expect_eq(policy__next_deadline(h->p), 1 * S);
	h_mark(h, 1500 * MS);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 1 * S, 0, 1 * MIB);
	cr_expect_eq(policy__next_deadline(h->p), UINT64_MAX);
	h_free(h, 10 * S + 200 * MS, 4 * MIB, 1 * MIB, 0);	/* passes at 2..10 s ran over nothing */
	h_commit(h, 10 * S + 300 * MS);
	h_mark(h, 12 * S);
	cr_assert_eq(h->cap.n, 2);
	EXPECT_EV(h, 1, 11 * S, 4 * MIB, 1 * MIB);
	cr_expect_eq(stage_figure(h, "passes"), 12);	/* 1 s .. 12 s */
	h_end(h, 12 * S);
	h_free_all(h);
}

/*
 * No commit records: the transaction commits commit= (5 s) after its first free,
 * on the stage's own timer. The passes parked before it trimmed nothing; the
 * first pass after it trims the free, at its own time on the 1 s grid.
 */
Test(idle, fstrim_commit_timer_after_parked_passes, .timeout = 120)
{
	struct harness *h = h_new("source(free) | fitrim(interval=1s,final=0)", 0, 0);

	h_free(h, 500 * MS, 0, 1 * MIB, 0);
	cr_expect_eq(policy__next_deadline(h->p), 5 * S + 500 * MS, "the commit is the only deadline");
	h_mark(h, 7 * S);
	cr_assert_eq(h->cap.n, 1);
	EXPECT_EV(h, 0, 6 * S, 0, 1 * MIB);
	cr_expect_eq(stage_figure(h, "passes"), 7);	/* 1 .. 5 s parked, 6 s trims, 7 s parked */
	h_end(h, 7 * S);
	h_free_all(h);
}
