// SPDX-License-Identifier: GPL-2.0
/* FTL model: write amplification with and without TRIM, the fill curve, GC, memory. */
#include <errno.h>
#include <stdlib.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/models/drive.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)
#define SMALL "ftl-sata:capacity=128M,block_size=256K,jitter=0"

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A filesystem at 90% use on a device whose every LBA was written once.
 * Each step frees a random live 64 KiB extent and writes a random free one.
 * With TRIM the freed extent is discarded (and the initial 10% too), so the
 * FTL knows it holds 90% live data; without, it copies stale data forever.
 */
static double churn_wa(bool trim)
{
	const uint64_t chunk = 64 * KIB, n = 128 * MIB / chunk;
	uint32_t *live = calloc(n, sizeof(*live)), *fr = calloc(n, sizeof(*fr)), nl = 0, nf = 0;
	uint64_t s = 42, h0, g0;
	struct drv d;
	json_t *rep;
	double wa;

	cr_assert(live && fr);
	drv_open(&d, SMALL, 1);
	for (uint64_t i = 0; i < n; i++)
		drv_serial(&d, TS_OP_WRITE, i * chunk, chunk);
	for (uint32_t i = 0; i < n; i++) {
		if (xorshift(&s) % 10 == 0)
			fr[nf++] = i;
		else
			live[nl++] = i;
	}
	for (uint32_t i = 0; trim && i < nf; i++)
		drv_serial(&d, TS_OP_DISCARD, fr[i] * chunk, chunk);
	rep = drv_report(&d);
	h0 = (uint64_t)jnum(rep, "host_pages_written");
	g0 = (uint64_t)jnum(rep, "gc_pages_copied");
	json_decref(rep);
	for (uint64_t k = 0; k < 3 * n; k++) {
		uint32_t li = (uint32_t)(xorshift(&s) % nl), fi = (uint32_t)(xorshift(&s) % nf);
		uint32_t a = live[li], b = fr[fi];

		if (trim)
			drv_serial(&d, TS_OP_DISCARD, a * chunk, chunk);
		drv_serial(&d, TS_OP_WRITE, b * chunk, chunk);
		live[li] = b;
		fr[fi] = a;
	}
	rep = drv_report(&d);
	wa = (jnum(rep, "host_pages_written") - (double)h0 + jnum(rep, "gc_pages_copied") - (double)g0) /
	     (jnum(rep, "host_pages_written") - (double)h0);
	cr_assert_eq(jnum(rep, "valid_pages"), trim ? nl * (chunk / 4096) : n * (chunk / 4096));
	json_decref(rep);
	drv_close(&d);
	free(live);
	free(fr);
	return wa;
}

Test(ftl, trim_lowers_write_amplification_at_90_percent)
{
	double without = churn_wa(false), with = churn_wa(true);

	cr_assert_gt(with, 1.0);
	cr_assert_gt(without, 1.3 * with, "write amplification without TRIM %.3f, with TRIM %.3f", without, with);
}

/*
 * Seed 004's fs_mark table: files/s hold steady, then fall as the device
 * fills and the cleaner copies live data. Here: random 64 KiB overwrites of
 * the first `fill` of the device after writing it once.
 */
static double fill_throughput(double fill)
{
	char spec[128];
	struct drv d;
	uint64_t s = 7, region, bytes = 0, t0;

	snprintf(spec, sizeof(spec), "%s,prefill=%g", SMALL, fill);
	drv_open(&d, spec, 1);
	region = (uint64_t)(fill * (double)(128 * MIB)) / (64 * KIB);
	t0 = d.now;
	for (uint64_t k = 0; k < 2 * region; k++) {
		cr_assert_eq(drv_serial(&d, TS_OP_WRITE, xorshift(&s) % region * 64 * KIB, 64 * KIB).error, 0);
		bytes += 64 * KIB;
	}
	drv_close(&d);
	return (double)bytes / ((double)(d.now - t0) / 1e9);
}

Test(ftl, throughput_falls_as_fill_approaches_full)
{
	static const double fills[] = { 0.5, 0.7, 0.8, 0.9, 0.95 };
	double tp[5];

	for (int i = 0; i < 5; i++) {
		tp[i] = fill_throughput(fills[i]);
		if (i)
			cr_assert_lt(tp[i], tp[i - 1], "fill %.2f: %.1f MiB/s, fill %.2f: %.1f MiB/s", fills[i],
				     tp[i] / MIB, fills[i - 1], tp[i - 1] / MIB);
	}
	cr_assert_lt(tp[4], 0.5 * tp[0], "fill 0.95: %.1f MiB/s vs 0.5: %.1f MiB/s", tp[4] / MIB, tp[0] / MIB);
}

struct gc_case {
	char policy[16];
};

ParameterizedTestParameters(ftl, gc_policies)
{
	static struct gc_case cases[] = { { .policy = "greedy" }, { .policy = "cost-benefit" } };

	return cr_make_param_array(struct gc_case, cases, 2);
}

/* Hot/cold overwrites: GC runs, stalls the writes that trigger it, and keeps the mapping exact. */
ParameterizedTest(struct gc_case *c, ftl, gc_policies)
{
	const uint64_t pages = 128 * MIB / 4096;
	char spec[160];
	struct drv d;
	uint64_t s = 3, stalled = 0;
	json_t *rep, *ts;

	snprintf(spec, sizeof(spec), "%s,gc_policy=%s,prefill=1", SMALL, c->policy);
	drv_open(&d, spec, 1);
	for (uint64_t k = 0; k < 2 * pages; k++) {
		uint64_t r = xorshift(&s);
		uint64_t lpn = r % 10 < 8 ? r / 16 % (pages / 10) : r / 16 % pages;	/* 80% to the hot 10% */
		struct target_done done = drv_serial(&d, TS_OP_WRITE, lpn * 4096, 4096);

		stalled += done.done_ns - done.start_ns > 20000 + 8000;
	}
	rep = drv_report(&d);
	cr_assert_eq(jnum(rep, "valid_pages"), pages);
	cr_assert_gt(jnum(rep, "gc_pages_copied"), 0);
	cr_assert_gt(jnum(rep, "gc_time_s"), 0);
	cr_assert_gt(jnum(rep, "max_gc_stall_s"), 0);
	cr_assert_eq(jnum(rep, "gc_stalls"), (double)stalled);
	cr_assert_gt(jnum(rep, "write_amplification"), 1.0);
	ts = json_object_get(rep, "timeseries");
	cr_assert(json_array_size(ts) >= 128 && json_array_size(ts) <= 256, "%zu points", json_array_size(ts));
	for (size_t i = 1; i < json_array_size(ts); i++)
		cr_assert_geq(jnum(json_array_get(ts, i), "t_s"), jnum(json_array_get(ts, i - 1), "t_s"));
	json_decref(rep);
	drv_close(&d);
}

struct trim_case {
	uint64_t off, len, freed;
};

ParameterizedTestParameters(ftl, trim_invalidates_whole_pages)
{
	static struct trim_case cases[] = {
		{ .off = 0, .len = 1 * MIB, .freed = 1 * MIB },
		{ .off = 2048, .len = 6 * KIB, .freed = 4 * KIB },
		{ .off = 1024, .len = 2 * KIB, .freed = 0 },
		{ .off = 4 * MIB, .len = 1 * MIB, .freed = 0 },	/* never written */
	};

	return cr_make_param_array(struct trim_case, cases, 4);
}

ParameterizedTest(struct trim_case *c, ftl, trim_invalidates_whole_pages)
{
	struct drv d;
	struct target_done done;
	json_t *rep;

	drv_open(&d, SMALL, 1);
	drv_serial(&d, TS_OP_WRITE, 0, 2 * MIB);
	done = drv_serial(&d, TS_OP_DISCARD, c->off, c->len);
	cr_assert_eq(done.freed, c->freed);
	rep = drv_report(&d);
	cr_assert_eq(jnum(rep, "valid_pages"), (double)((2 * MIB - c->freed) / 4096));
	cr_assert_eq(jnum(rep, "trimmed_pages"), (double)(c->freed / 4096));
	cr_assert_eq(jnum(rep, "discard_bytes_requested"), (double)c->len);
	cr_assert_eq(jnum(rep, "discard_bytes_freed"), (double)c->freed);
	json_decref(rep);
	drv_close(&d);
}

Test(ftl, nodiscard_rejects)
{
	struct drv d;
	json_t *rep;

	drv_open(&d, SMALL ",discard_supported=false", 1);
	cr_assert_eq(drv_serial(&d, TS_OP_DISCARD, 0, 1 * MIB).error, -EOPNOTSUPP);
	rep = drv_report(&d);
	cr_assert_eq(jnum(rep, "discards_rejected"), 1);
	json_decref(rep);
	drv_close(&d);
}

/* 256 GiB at 4 KiB pages: sparse u32 L2P (directory + chunks in use) + P2L + per-block metadata, < 1 GiB. */
Test(ftl, big_device_fits_in_a_gigabyte)
{
	struct drv d;
	json_t *rep;
	double mem;

	drv_open(&d, "ftl-sata:capacity=256G", 1);
	drv_serial(&d, TS_OP_WRITE, 200 * GIB, 1 * MIB);
	cr_assert_eq(drv_serial(&d, TS_OP_DISCARD, 200 * GIB, 1 * MIB).freed, 1 * MIB);
	rep = drv_report(&d);
	mem = jnum(rep, "memory_bytes");
	cr_assert(mem > 256.0 * MIB && mem < 1.0 * GIB, "memory %.0f MiB", mem / MIB);
	cr_assert_eq(jnum(rep, "user_pages"), 256.0 * GIB / 4096);
	json_decref(rep);
	drv_close(&d);
}

/* With idle gaps between writes, background GC keeps free blocks up and foreground stalls become rare. */
static json_t *gappy_writes(bool idle)
{
	char spec[160];
	struct drv d;
	uint64_t s = 11, region = (uint64_t)(0.9 * (double)(128 * MIB)) / (64 * KIB);

	snprintf(spec, sizeof(spec), "%s,prefill=0.9,gc_idle=%s", SMALL, idle ? "true" : "false");
	drv_open(&d, spec, 1);
	for (uint64_t k = 0; k < 2 * region; k++) {
		d.now += 20 * 1000000ull;	/* 20 ms of think time */
		drv_serial(&d, TS_OP_WRITE, xorshift(&s) % region * 64 * KIB, 64 * KIB);
	}
	{
		json_t *rep = drv_report(&d);

		drv_close(&d);
		return rep;
	}
}

Test(ftl, idle_gc_hides_stalls)
{
	json_t *fg = gappy_writes(false), *bg = gappy_writes(true);

	cr_assert_eq(jnum(fg, "background_gc_time_s"), 0);
	cr_assert_gt(jnum(bg, "background_gc_time_s"), 0);
	cr_assert_gt(jnum(fg, "gc_stalls"), 10);
	cr_assert_lt(jnum(bg, "gc_stalls"), jnum(fg, "gc_stalls") / 4, "stalls: %.0f with idle GC, %.0f without",
		     jnum(bg, "gc_stalls"), jnum(fg, "gc_stalls"));
	cr_assert_float_eq(jnum(bg, "gc_time_s"),
			   jnum(bg, "foreground_gc_time_s") + jnum(bg, "background_gc_time_s"), 1e-9);
	json_decref(fg);
	json_decref(bg);
}

/*
 * Random writes and discards of any size and alignment, heavy GC: the FTL's
 * valid page count must match a shadow map kept here, and every command must
 * complete once, never before it was submitted.
 */
struct shadow_case {
	char spec[128];
};

ParameterizedTestParameters(ftl, shadow_map)
{
	static struct shadow_case cases[] = {
		{ .spec = "ftl-sata:capacity=32M,block_size=64K,jitter=0.1,gc_policy=greedy,prefill=0.95" },
		{ .spec = "ftl-sata:capacity=32M,block_size=64K,gc_policy=cost-benefit,op=0.02,qd=4,channels=2" },
		{ .spec = "nvme-ftl:capacity=32M,block_size=128K,discard_granularity=16K,discard_max_bytes=64K" },
	};

	return cr_make_param_array(struct shadow_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct shadow_case *c, ftl, shadow_map)
{
	const uint64_t size = 32 * MIB, pages = size / 4096;
	struct target_env env = { .seed = 3 };
	uint8_t *map = calloc(pages, 1), *seen = calloc(40001, 1);
	uint64_t s = 5, t = 0, valid = 0, gran;
	struct target_done done;
	struct drv d;
	json_t *rep;
	char err[256];
	struct model_profile *p = model_profile__load(c->spec, err, sizeof(err));
	json_t *desc, *params;
	double prefill;

	cr_assert(map && seen && p, "%s", err);
	desc = model_profile__describe(p);
	params = json_object_get(desc, "params");
	gran = (uint64_t)json_integer_value(json_object_get(params, "discard_granularity"));
	gran = gran > 4096 ? gran : 4096;
	prefill = json_number_value(json_object_get(params, "prefill"));
	for (uint64_t i = 0; i < (uint64_t)(prefill * (double)pages); i++, valid++)
		map[i] = 1;
	json_decref(desc);
	model_profile__free(p);
	drv_open_env(&d, c->spec, &env);
	for (unsigned i = 1; i <= 40000; i++) {
		uint64_t r = xorshift(&s), off = r % size, len = 1 + (r >> 32) % (256 * KIB);
		uint8_t op = (r >> 60) < 5 ? TS_OP_DISCARD : TS_OP_WRITE;

		if (off + len > size)
			len = size - off;
		if (op == TS_OP_WRITE) {
			for (uint64_t pg = off / 4096; pg < (off + len + 4095) / 4096; pg++)
				valid += !map[pg], map[pg] = 1;
		} else {
			uint64_t a = (off + gran - 1) / gran * gran, b = (off + len) / gran * gran;

			for (uint64_t pg = a / 4096; b > a && pg < b / 4096; pg++)
				valid -= map[pg], map[pg] = 0;
		}
		while (d.ops->inflight(d.priv) >= d.ops->max_inflight(d.priv)) {
			cr_assert_eq(d.ops->reap(d.priv, d.ops->next_done(d.priv), &done), 1);
			cr_assert(done.start_ns >= done.submit_ns && done.done_ns >= done.start_ns);
			cr_assert_leq(done.freed, done.bytes);
			cr_assert_eq(seen[done.tag], 0, "tag %llu completed twice", (unsigned long long)done.tag);
			seen[done.tag] = 1;
			t = done.done_ns > t ? done.done_ns : t;
		}
		d.tag = i - 1;
		drv_submit(&d, t, op, off, len, NULL, 0);
		t += r % 3 ? 0 : 50000;
	}
	while (d.ops->reap(d.priv, UINT64_MAX, &done) == 1) {
		cr_assert_eq(seen[done.tag], 0);
		seen[done.tag] = 1;
	}
	for (unsigned i = 1; i <= 40000; i++)
		cr_assert_eq(seen[i], 1, "tag %u never completed", i);
	rep = drv_report(&d);
	cr_assert_eq(jnum(rep, "valid_pages"), (double)valid, "%s: FTL %.0f valid pages, shadow %llu", c->spec,
		     jnum(rep, "valid_pages"), (unsigned long long)valid);
	cr_assert_gt(jnum(rep, "gc_pages_copied"), 0, "%s: GC never ran", c->spec);
	json_decref(rep);
	drv_close(&d);
	free(map);
	free(seen);
}

/*
 * An FTL that rejects discards (the replay's baseline twin) lists its writes
 * and builds its tables only when GC could run, when the list is full, or for
 * the report: the same writes, reads and flushes must give the same completion
 * times and the same report as an FTL that builds them as it goes (one that
 * supports discards, sent none). Cases: GC in writes and in idle gaps, the
 * report while still deferred, the list filling before any GC, cost-benefit,
 * blocks of a size that is not a power of two, prefill, random sizes.
 */
struct defer_case {
	char spec[128];
	unsigned cmds;
	uint64_t span;		/* writes land in [0, span) */
	uint64_t max_len;
	bool gc;		/* GC must have run (else: must not have) */
};

ParameterizedTestParameters(ftl, deferred_equals_eager)
{
	static struct defer_case cases[] = {
		/* built when free blocks reach gc_high: in an idle gap, in a write, cost-benefit, 768-page blocks */
		{ .spec = "nvme-ftl:capacity=1G,jitter=0,prefill=0.9", .cmds = 12000, .span = 1 * GIB,
		  .max_len = 256 * KIB, .gc = true },
		{ .spec = "ftl-sata:capacity=1G,block_size=4M,prefill=0.9,gc_idle=false", .cmds = 12000,
		  .span = 1 * GIB, .max_len = 256 * KIB, .gc = true },
		{ .spec = "ftl-sata:capacity=1G,block_size=3M,gc_policy=cost-benefit,jitter=0.1,prefill=0.9",
		  .cmds = 12000, .span = 900 * MIB, .max_len = 300 * KIB, .gc = true },
		/* built when the list is full (1024 writes here), GC after; no GC at all */
		{ .spec = SMALL ",prefill=0.9", .cmds = 30000, .span = 115 * MIB, .max_len = 256 * KIB, .gc = true },
		{ .spec = SMALL, .cmds = 3000, .span = 16 * MIB, .max_len = 64 * KIB, .gc = false },
		/* built for the report */
		{ .spec = "nvme-ftl:capacity=8G,jitter=0", .cmds = 5000, .span = 8 * GIB, .max_len = 128 * KIB, .gc = false },
	};

	return cr_make_param_array(struct defer_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct defer_case *c, ftl, deferred_equals_eager)
{
	static const char *const same[] = { "write_amplification", "host_pages_written", "gc_pages_copied",
					     "blocks_erased", "gc_time_s", "foreground_gc_time_s",
					     "background_gc_time_s", "gc_stalls", "max_gc_stall_s", "trimmed_pages",
					     "valid_pages", "free_blocks", "memory_bytes", "timeseries",
					     "device_busy_s", "last_completion_s", "commands" };
	char spec[160];
	struct drv eager, lazy;
	json_t *re, *rl;
	uint64_t s = 17;

	snprintf(spec, sizeof(spec), "%s,discard_supported=false", c->spec);
	drv_open(&eager, c->spec, 5);
	drv_open(&lazy, spec, 5);
	for (unsigned i = 0; i < c->cmds; i++) {
		uint64_t r = xorshift(&s), off = r % c->span, len = 1 + (r >> 20) % c->max_len;
		uint8_t op = (r >> 60) < 12 ? TS_OP_WRITE : (r >> 60) < 15 ? TS_OP_READ : TS_OP_FLUSH;
		struct target_done de, dl;

		if (off + len > c->span)
			len = c->span - off;
		if (op == TS_OP_FLUSH)
			off = len = 0;
		if (r % 7 == 0)
			eager.now = lazy.now = eager.now + 30 * 1000000ull;	/* an idle gap */
		de = drv_serial(&eager, op, off, len);
		dl = drv_serial(&lazy, op, off, len);
		cr_assert_eq(dl.start_ns, de.start_ns, "command %u: started at %llu, eager FTL %llu", i,
			     (unsigned long long)dl.start_ns, (unsigned long long)de.start_ns);
		cr_assert_eq(dl.done_ns, de.done_ns, "command %u: done at %llu, eager FTL %llu", i,
			     (unsigned long long)dl.done_ns, (unsigned long long)de.done_ns);
	}
	re = drv_report(&eager);
	rl = drv_report(&lazy);
	for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++)
		cr_assert(json_equal(json_object_get(re, same[k]), json_object_get(rl, same[k])),
			  "%s: '%s' differs", c->spec, same[k]);
	cr_assert_eq(jnum(rl, "gc_pages_copied") > 0 || jnum(rl, "blocks_erased") > 0, c->gc,
		     "%s: GC %s", c->spec, c->gc ? "never ran" : "ran");
	json_decref(re);
	json_decref(rl);
	drv_close(&eager);
	drv_close(&lazy);
}
