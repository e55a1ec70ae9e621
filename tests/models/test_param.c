// SPDX-License-Identifier: GPL-2.0
/* Parametric model: queueing, splitting, segments, granularity, rejection, jitter. */
#include <errno.h>
#include <math.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "models/model_int.h"
#include "tests/models/drive.h"

#define MIB (1024ull * 1024)
#define MS 1000000ull

struct queue_case {
	char spec[96];
	bool write_waits;
};

ParameterizedTestParameters(param, write_during_trim)
{
	static struct queue_case cases[] = {
		{ .spec = "sata-sf2281:jitter=0", .write_waits = true },
		{ .spec = "sata-sf2281:jitter=0,queued_trim=true,channels=2", .write_waits = false },
		{ .spec = "nvme:jitter=0", .write_waits = false },
		{ .spec = "emmc:jitter=0", .write_waits = true },
		{ .spec = "thin-cloud:jitter=0", .write_waits = false },
	};

	return cr_make_param_array(struct queue_case, cases, sizeof(cases) / sizeof(cases[0]));
}

/* A write submitted 1 ms into a TRIM: non-queued TRIM holds it; queued TRIM does not. */
ParameterizedTest(struct queue_case *c, param, write_during_trim)
{
	struct target_done trim, wr;
	struct drv d;

	drv_open(&d, c->spec, 1);
	drv_submit(&d, 0, TS_OP_DISCARD, 0, 1024 * MIB, NULL, 0);
	drv_submit(&d, 1 * MS, TS_OP_WRITE, 2048 * MIB, 4096, NULL, 0);
	trim = drv_wait(&d, 1);
	wr = drv_wait(&d, 2);
	cr_assert(trim.done_ns > 1 * MS, "%s: the TRIM must still run at 1 ms (done %llu)", c->spec,
		  (unsigned long long)trim.done_ns);
	if (c->write_waits) {
		cr_assert_geq(wr.start_ns, trim.done_ns, "%s: write started before the TRIM completed", c->spec);
	} else {
		cr_assert_eq(wr.start_ns, 1 * MS, "%s: write waited for a queued TRIM", c->spec);
		cr_assert_lt(wr.done_ns, trim.done_ns, "%s", c->spec);
	}
	drv_close(&d);
}

/* A non-queued TRIM drains the queue: it starts only when the writes before it have completed. */
Test(param, nonqueued_trim_drains_queue)
{
	struct target_done w1, w2, trim;
	struct drv d;

	drv_open(&d, "sata-sf2281:jitter=0,channels=2", 1);
	drv_submit(&d, 0, TS_OP_WRITE, 0, 100 * MIB, NULL, 0);
	drv_submit(&d, 0, TS_OP_WRITE, 200 * MIB, 10 * MIB, NULL, 0);
	drv_submit(&d, 1 * MS, TS_OP_DISCARD, 400 * MIB, 1 * MIB, NULL, 0);
	w1 = drv_wait(&d, 1);
	w2 = drv_wait(&d, 2);
	trim = drv_wait(&d, 3);
	cr_assert_lt(w2.done_ns, w1.done_ns);
	cr_assert_eq(trim.start_ns, w1.done_ns);
	cr_assert_eq(trim.done_ns - trim.start_ns, 9500000 + (uint64_t)(1 * MIB * 1e9 / (32.0 * 1024 * MIB) + 0.5));
	drv_close(&d);
}

struct split_case {
	char spec[96];
	uint32_t nsegs;
	uint64_t seg_len;
	uint32_t dev_cmds;
};

ParameterizedTestParameters(param, split_and_segments)
{
	static struct split_case cases[] = {
		/* 5 GiB over a 2,147,450,880-byte limit: 3 commands */
		{ .spec = "sata-sf2281", .nsegs = 1, .seg_len = 5120 * MIB, .dev_cmds = 3 },
		/* one range per SATA command */
		{ .spec = "sata-sf2281", .nsegs = 3, .seg_len = 1 * MIB, .dev_cmds = 3 },
		/* 300 ranges, 256 per DSM command */
		{ .spec = "nvme", .nsegs = 300, .seg_len = 64 * 1024, .dev_cmds = 2 },
		{ .spec = "nvme:max_discard_segments=1", .nsegs = 300, .seg_len = 64 * 1024, .dev_cmds = 300 },
		/* 64 MiB limit on the SD card */
		{ .spec = "sdcard", .nsegs = 1, .seg_len = 200 * MIB, .dev_cmds = 4 },
	};

	return cr_make_param_array(struct split_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct split_case *c, param, split_and_segments)
{
	static struct target_seg segs[300];
	struct target_done done;
	struct drv d;

	for (uint32_t i = 0; i < c->nsegs; i++)
		segs[i] = (struct target_seg){ .offset = i * 2 * c->seg_len, .length = c->seg_len };
	drv_open(&d, c->spec, 1);
	drv_submit(&d, 0, TS_OP_DISCARD, segs[0].offset, segs[0].length, c->nsegs > 1 ? segs : NULL,
		   c->nsegs > 1 ? c->nsegs : 0);
	done = drv_wait(&d, 1);
	cr_assert_eq(done.error, 0);
	cr_assert_eq(done.dev_cmds, c->dev_cmds, "%s: %u device commands, expected %u", c->spec, done.dev_cmds,
		     c->dev_cmds);
	cr_assert_eq(done.bytes, c->nsegs * c->seg_len);
	cr_assert_eq(done.freed, c->nsegs * c->seg_len);
	drv_close(&d);
}

struct gran_case {
	uint64_t off, len, freed;
};

ParameterizedTestParameters(param, granularity)
{
	static struct gran_case cases[] = {
		{ .off = 0, .len = 1 * MIB, .freed = 0 },		/* sub-granularity */
		{ .off = 2 * MIB, .len = 8 * MIB, .freed = 4 * MIB },	/* [4M, 8M) only */
		{ .off = 0, .len = 4 * MIB, .freed = 4 * MIB },
		{ .off = 1, .len = 12 * MIB, .freed = 8 * MIB },
	};

	return cr_make_param_array(struct gran_case, cases, sizeof(cases) / sizeof(cases[0]));
}

/* thin-cloud: 4 MiB chunks. A sub-granularity discard costs a command and frees nothing. */
ParameterizedTest(struct gran_case *c, param, granularity)
{
	struct target_done done;
	struct drv d;
	json_t *rep;

	drv_open(&d, "thin-cloud:jitter=0", 1);
	done = drv_serial(&d, TS_OP_DISCARD, c->off, c->len);
	cr_assert_eq(done.freed, c->freed, "freed %llu", (unsigned long long)done.freed);
	cr_assert_eq(done.dev_cmds, 1);
	cr_assert_eq(done.done_ns - done.start_ns,
		     c->freed ? 1 * MS + (uint64_t)llround((double)c->freed * 1e9 / (4.0 * 1024 * MIB)) : 200000);
	rep = drv_report(&d);
	cr_assert_eq(jnum(rep, "discard_bytes_freed"), (double)c->freed);
	cr_assert_eq(jnum(rep, "discard_bytes_requested"), (double)c->len);
	cr_assert_eq(jnum(rep, "sub_granularity_commands"), c->freed ? 0 : 1);
	json_decref(rep);
	drv_close(&d);
}

/* Discarding space that is already unmapped costs trim_unmapped_base; a write maps it again. */
Test(param, already_unmapped)
{
	struct target_done a, b, c;
	struct drv d;
	json_t *rep;

	drv_open(&d, "sata-good:jitter=0", 1);
	a = drv_serial(&d, TS_OP_DISCARD, 0, 1 * MIB);
	b = drv_serial(&d, TS_OP_DISCARD, 0, 1 * MIB);
	cr_assert_eq(a.freed, 1 * MIB);
	cr_assert_eq(b.freed, 0);
	cr_assert_eq(b.done_ns - b.start_ns, 20000 + (uint64_t)(1e9 / 65536 + 0.5));
	cr_assert_gt(a.done_ns - a.start_ns, b.done_ns - b.start_ns);
	drv_serial(&d, TS_OP_WRITE, 256 * 1024, 4096);
	c = drv_serial(&d, TS_OP_DISCARD, 0, 1 * MIB);
	cr_assert_eq(c.freed, 4096);
	rep = drv_report(&d);
	cr_assert_eq(jnum(rep, "already_unmapped_commands"), 1);
	json_decref(rep);
	drv_close(&d);
}

/* Unsupported: rejected with -EOPNOTSUPP, counted, costs no device time. */
Test(param, nodiscard_rejects_and_counts)
{
	struct target_done done;
	struct drv d;
	json_t *rep;

	drv_open(&d, "hdd-nodiscard", 1);
	done = drv_serial(&d, TS_OP_DISCARD, 0, 1 * MIB);
	cr_assert_eq(done.error, -EOPNOTSUPP);
	cr_assert_eq(done.done_ns, done.submit_ns);
	cr_assert_eq(done.freed, 0);
	drv_serial(&d, TS_OP_DISCARD, 8 * MIB, 3 * MIB);
	cr_assert_eq(drv_serial(&d, TS_OP_WRITE, 0, 4096).error, 0);
	rep = drv_report(&d);
	cr_assert_eq(jnum(rep, "discards_rejected"), 2);
	cr_assert_eq(jnum(rep, "discard_bytes_rejected"), 4.0 * MIB);
	cr_assert_eq(jnum(rep, "discard_bytes_freed"), 0);
	json_decref(rep);
	drv_close(&d);
}

Test(param, out_of_range_is_an_error)
{
	struct drv d;
	struct target_env env = { .seed = 1, .device_size = 64 * MIB };

	drv_open_env(&d, "sata-good", &env);
	cr_assert_eq(drv_serial(&d, TS_OP_WRITE, 64 * MIB - 4096, 4096).error, 0);
	cr_assert_eq(drv_serial(&d, TS_OP_WRITE, 64 * MIB, 4096).error, -EINVAL);
	drv_close(&d);
}

/* Queue depth from the environment wins over the profile. */
Test(param, env_qd)
{
	struct drv d;
	struct target_env env = { .seed = 1, .qd = 4 };

	drv_open_env(&d, "nvme", &env);
	cr_assert_eq(d.ops->max_inflight(d.priv), 4);
	cr_assert_eq(d.ops->inflight(d.priv), 0);
	drv_submit(&d, 0, TS_OP_READ, 0, 4096, NULL, 0);
	cr_assert_eq(d.ops->inflight(d.priv), 1);
	drv_close(&d);
}

static uint64_t jitter_run(uint64_t seed)
{
	struct drv d;
	uint64_t sum = 0;

	drv_open(&d, "sata-sf2281:jitter=0.2", seed);
	for (int i = 0; i < 50; i++)
		sum = sum * 31 + drv_serial(&d, TS_OP_DISCARD, (uint64_t)i * MIB, 64 * 1024).done_ns;
	drv_close(&d);
	return sum;
}

Test(param, jitter_is_seeded)
{
	struct drv d;
	struct target_done done;

	cr_assert_eq(jitter_run(3), jitter_run(3));
	cr_assert_neq(jitter_run(3), jitter_run(4));
	drv_open(&d, "sata-sf2281:jitter=0.2", 9);
	for (int i = 0; i < 200; i++) {
		done = drv_serial(&d, TS_OP_DISCARD, (uint64_t)i * MIB, 4096);
		cr_assert(done.done_ns - done.start_ns >= 7600000 && done.done_ns - done.start_ns <= 11400000);
	}
	drv_close(&d);
}

/* Splits end on granule boundaries (bio_split_discard()), so splitting loses nothing. */
Test(param, split_keeps_granule_alignment)
{
	struct target_done done;
	struct drv d;

	drv_open(&d, "thin-cloud:discard_max_bytes=10M", 1);
	done = drv_serial(&d, TS_OP_DISCARD, 1 * MIB, 29 * MIB);
	cr_assert_eq(done.dev_cmds, 4);	/* [1M,8M) [8M,16M) [16M,24M) [24M,30M) */
	cr_assert_eq(done.freed, 24 * MIB);
	drv_close(&d);
}

/*
 * The map against a reference bitmap over four map words: random writes and
 * discards (sizes across word edges, writes left pending by later writes to
 * other words, a discard right after the write it overlaps) free exactly the
 * mapped units a discard covers, and mapped_bytes matches at the end.
 */
struct map_case {
	char spec[64];
	bool initially_mapped;
};

ParameterizedTestParameters(param, map_matches_reference)
{
	static struct map_case cases[] = {
		{ .spec = "nvme:jitter=0", .initially_mapped = true },
		{ .spec = "nvme:jitter=0,initially_mapped=false", .initially_mapped = false },
	};

	return cr_make_param_array(struct map_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct map_case *c, param, map_matches_reference)
{
	enum { UNITS = 256, G = 4096 };
	bool ref[UNITS];
	uint64_t s = 88172645463325252ull, ones = 0;
	struct drv d;
	json_t *rep;

	drv_open(&d, c->spec, 1);
	for (int i = 0; i < UNITS; i++)
		ref[i] = c->initially_mapped;
	for (int i = 0; i < 4000; i++) {
		uint64_t a, n, want = 0;
		bool write;

		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		write = s % 3 != 0;
		a = (s >> 8) % UNITS;
		n = 1 + (s >> 20) % (i % 7 == 0 ? 100 : 6);
		if (a + n > UNITS)
			n = UNITS - a;
		for (uint64_t u = a; u < a + n; u++) {
			want += ref[u] != write;
			ref[u] = write;
		}
		if (write)
			drv_serial(&d, TS_OP_WRITE, a * G, n * G);
		else
			cr_assert_eq(drv_serial(&d, TS_OP_DISCARD, a * G, n * G).freed, want * G, "op %d", i);
	}
	for (int i = 0; i < UNITS; i++)
		ones += ref[i];
	rep = drv_report(&d);
	cr_assert_eq(jnum(rep, "map_unit_bytes"), G);
	cr_assert_eq(jnum(rep, "mapped_bytes"),
		     (double)((c->initially_mapped ? (uint64_t)jnum(rep, "device_size_bytes") - UNITS * G : 0) + ones * G));
	json_decref(rep);
	drv_close(&d);
}

/*
 * model_xfer_ns() computes in integers below MODEL_XFER_EXACT bytes: it must give
 * what the double formula (model_xfer_fp()) gives, on random sizes and rates, on
 * quotients a half away from an integer (rounded up), at and past the limit.
 */
struct xfer_case {
	uint64_t bw;
};

ParameterizedTestParameters(param, xfer_integer_equals_double)
{
	static struct xfer_case cases[] = {
		{ 1 }, { 3 }, { 1024 }, { 250000000 }, { 1900000000 }, { 2000000000 }, { 2800000000 }, { 100000000000 },
		{ 1000000000000 }, { 1099511627776 }, { 1125899906842624 }, { (1ull << 53) - 1 }, { 1ull << 53 },
	};

	return cr_make_param_array(struct xfer_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct xfer_case *c, param, xfer_integer_equals_double)
{
	uint64_t s = 0x9e3779b97f4a7c15ull ^ c->bw, halves = 0;

	for (uint64_t b = 0; b < 5000; b++)	/* small sizes, every one */
		cr_assert_eq(model_xfer_ns(b, c->bw), model_xfer_fp(b, c->bw), "%llu bytes at %llu",
			     (unsigned long long)b, (unsigned long long)c->bw);
	for (int i = 0; i < 200000; i++) {
		uint64_t b;

		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		b = s % (MODEL_XFER_EXACT + 2000);	/* across the limit */
		if (i % 4 == 0)
			b = (MODEL_XFER_EXACT - 1000) + s % 2001;
		halves += (b * 1000000000ull % c->bw) * 2 == c->bw && b <= MODEL_XFER_EXACT;
		cr_assert_eq(model_xfer_ns(b, c->bw), model_xfer_fp(b, c->bw), "%llu bytes at %llu",
			     (unsigned long long)b, (unsigned long long)c->bw);
	}
	if (c->bw == 1024 || c->bw == 2000000000)	/* quotients ending in exactly one half were met */
		cr_assert_gt(halves, 0);
}
