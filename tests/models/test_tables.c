// SPDX-License-Identifier: GPL-2.0
/*
 * The models' space tables against shadow maps kept here: the parametric
 * mapped-space bitmap (with its summary of full words) and the FTL's sparse
 * L2P (chunks handed out on first write, returned when trimmed empty).
 */
#include <stdlib.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/models/drive.h"

#define KIB 1024ull
#define MIB (1024ull * 1024)

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct map_case {
	char spec[128];
	uint64_t gran;
	bool mapped;		/* initially_mapped */
};

ParameterizedTestParameters(tables, param_map_shadow)
{
	static struct map_case cases[] = {
		{ .spec = "nvme:capacity=64M,jitter=0", .gran = 4 * KIB, .mapped = true },
		{ .spec = "nvme:capacity=64M,initially_mapped=false", .gran = 4 * KIB, .mapped = false },
		{ .spec = "thin-cloud:capacity=61M,discard_granularity=64K", .gran = 64 * KIB, .mapped = true },
		{ .spec = "sata-good:capacity=63M,initially_mapped=false,discard_granularity=8K", .gran = 8 * KIB,
		  .mapped = false },
	};

	return cr_make_param_array(struct map_case, cases, sizeof(cases) / sizeof(cases[0]));
}

/*
 * Random writes and discards of any size and alignment, crossing map words
 * and summary words: every discard frees exactly the mapped granules it
 * covers, and the mapped total matches the shadow at the end.
 */
ParameterizedTest(struct map_case *c, tables, param_map_shadow)
{
	struct target_env env = { .seed = 9 };
	uint64_t size, units, mapped, s = 77;
	uint8_t *map;
	struct target_done done;
	struct drv d;
	json_t *rep;

	drv_open_env(&d, c->spec, &env);
	rep = drv_report(&d);
	size = (uint64_t)jnum(rep, "device_size_bytes");
	cr_assert_eq(jnum(rep, "map_unit_bytes"), (double)c->gran, "%s: the map is at the granularity", c->spec);
	json_decref(rep);
	units = size / c->gran;
	map = malloc(units);
	cr_assert_not_null(map);
	memset(map, c->mapped, units);
	mapped = c->mapped ? units : 0;
	for (unsigned i = 0; i < 20000; i++) {
		uint64_t r = xorshift(&s), off = r % size, len = 1 + (r >> 24) % (i % 16 ? 96 * KIB : 3 * MIB);
		uint64_t expect = 0;
		uint8_t op = (r >> 61) < 3 ? TS_OP_DISCARD : TS_OP_WRITE;

		if (off + len > size)
			len = size - off;
		if (op == TS_OP_WRITE) {
			for (uint64_t u = off / c->gran; u < (off + len + c->gran - 1) / c->gran; u++)
				mapped += !map[u], map[u] = 1;
		} else {
			for (uint64_t u = (off + c->gran - 1) / c->gran; u < (off + len) / c->gran; u++)
				expect += map[u], mapped -= map[u], map[u] = 0;
		}
		done = drv_serial(&d, op, off, len);
		if (op == TS_OP_DISCARD)
			cr_assert_eq(done.freed, expect * c->gran, "%s: discard %u of [%llu, +%llu) freed %llu, not %llu",
				     c->spec, i, (unsigned long long)off, (unsigned long long)len,
				     (unsigned long long)done.freed, (unsigned long long)(expect * c->gran));
	}
	rep = drv_report(&d);
	cr_assert_eq(jnum(rep, "mapped_bytes"), (double)(mapped * c->gran), "%s", c->spec);
	json_decref(rep);
	drv_close(&d);
	free(map);
}

/* Trimming what was written gives its L2P chunks back: writing as much elsewhere takes no more memory. */
Test(tables, ftl_chunks_reused)
{
	double mem0, mem1, mem2;
	struct drv d;
	json_t *rep;

	drv_open(&d, "nvme-ftl:capacity=4G", 1);
	rep = drv_report(&d);
	mem0 = jnum(rep, "memory_bytes");
	json_decref(rep);
	for (uint64_t off = 0; off < 64 * MIB; off += 1 * MIB)
		drv_serial(&d, TS_OP_WRITE, off, 1 * MIB);
	cr_assert_eq(drv_serial(&d, TS_OP_DISCARD, 0, 64 * MIB).freed, 64 * MIB);
	rep = drv_report(&d);
	mem1 = jnum(rep, "memory_bytes");
	cr_assert_eq(mem1 - mem0, 64.0 * MIB / 4096 * 4, "64 MiB written costs 4 bytes per page of L2P");
	json_decref(rep);
	for (uint64_t off = 1024 * MIB; off < 1088 * MIB; off += 1 * MIB)
		drv_serial(&d, TS_OP_WRITE, off, 1 * MIB);
	rep = drv_report(&d);
	mem2 = jnum(rep, "memory_bytes");
	cr_assert_eq(mem2, mem1, "the trimmed chunks were not reused (%.0f -> %.0f bytes)", mem1, mem2);
	cr_assert_eq(jnum(rep, "valid_pages"), 64.0 * MIB / 4096);
	json_decref(rep);
	/* The reused chunks map exactly: trimming the new region frees all of it and nothing else. */
	cr_assert_eq(drv_serial(&d, TS_OP_DISCARD, 0, 1024 * MIB).freed, 0);
	cr_assert_eq(drv_serial(&d, TS_OP_DISCARD, 1024 * MIB, 64 * MIB).freed, 64 * MIB);
	rep = drv_report(&d);
	cr_assert_eq(jnum(rep, "valid_pages"), 0);
	json_decref(rep);
	drv_close(&d);
}

/* Scattered small writes cost one 64-byte chunk per 64 KiB region touched, not a page of table each. */
Test(tables, ftl_sparse_writes_cost_chunks)
{
	double mem0, mem1;
	struct drv d;
	json_t *rep;

	drv_open(&d, "nvme-ftl:capacity=64G", 1);
	rep = drv_report(&d);
	mem0 = jnum(rep, "memory_bytes");
	json_decref(rep);
	for (uint64_t i = 0; i < 1000; i++)
		drv_serial(&d, TS_OP_WRITE, i * 37 * MIB + 4096, 4096);
	rep = drv_report(&d);
	mem1 = jnum(rep, "memory_bytes");
	cr_assert_eq(mem1 - mem0, 1000.0 * 64, "%.0f bytes for 1000 scattered pages", mem1 - mem0);
	json_decref(rep);
	drv_close(&d);
}
